package frontend

import (
	"fmt"
	"strings"
)

// UnsupportedError is a construct the translator refuses, rather than run it differently from SQL
// or drop it. Match it with errors.As; the root package's *airsql.UnsupportedError carries it.
type UnsupportedError struct {
	Construct string // what was refused: "GROUP BY", "OFFSET", "JOIN", "the function FOO", …
	SQL       string // the SQL text concerned, when it says more than Construct; may be empty
	Hint      string // what to do instead
}

func (e *UnsupportedError) Error() string { return "translate: " + e.Message() }

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
