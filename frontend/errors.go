package frontend

import (
	"fmt"
	"strings"
)

// UnsupportedError is a statement or construct the driver refuses, rather than run it differently
// from SQL or drop it: the one refusal type of the whole driver (airsql.UnsupportedError is this
// type), whichever part refuses. Match it with errors.As.
type UnsupportedError struct {
	Construct string // what was refused: "GROUP BY", "OFFSET", "JOIN", "the function FOO", …
	SQL       string // the SQL text concerned, when it says more than Construct; may be empty
	Hint      string // what to do instead
}

func (e *UnsupportedError) Error() string { return "airsql: " + e.Message() }

// Message says what is refused, the SQL concerned and the hint, without a package prefix, so
// that the driver's own refusals read the same.
func (e *UnsupportedError) Message() string {
	msg := e.Construct + " is not supported"
	if sql := strings.TrimSpace(e.SQL); sql != "" && sql != e.Construct {
		if !strings.HasPrefix(sql, "(") {
			sql = "(" + sql + ")"
		}
		msg += " " + sql
	}
	if e.Hint != "" {
		msg += ": " + e.Hint
	}
	return msg
}

// unsupported is the error for a construct the front end refuses.
func unsupported(construct, sql, hint string) error {
	return &UnsupportedError{Construct: construct, SQL: sql, Hint: hint}
}

func fmtErr(format string, a ...any) error { return fmt.Errorf("translate: "+format, a...) }
