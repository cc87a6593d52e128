package sqlvalue

import (
	"strings"
)

// IntervalUnits are the interval units of DATE_ADD, TIMESTAMPDIFF and EXTRACT.
var IntervalUnits = map[string]bool{
	"MICROSECOND": true, "SECOND": true, "MINUTE": true, "HOUR": true, "DAY": true, "WEEK": true,
	"MONTH": true, "QUARTER": true, "YEAR": true, "SECOND_MICROSECOND": true, "MINUTE_MICROSECOND": true,
	"MINUTE_SECOND": true, "HOUR_MICROSECOND": true, "HOUR_SECOND": true, "HOUR_MINUTE": true,
	"DAY_MICROSECOND": true, "DAY_SECOND": true, "DAY_MINUTE": true, "DAY_HOUR": true, "YEAR_MONTH": true,
}

// QuoteText writes s as a MySQL string literal.
func QuoteText(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(s) + "'"
}

// The names of the table's entries that SQL cannot call by name: the front end rewrites
// constructs the pinned grammar cannot read into calls of them.
const (
	DateLiteral      = "DATE LITERAL"
	TimeLiteral      = "TIME LITERAL"
	TimestampLiteral = "TIMESTAMP LITERAL"
	// RollupMark is the call the front end puts last in GROUP BY for WITH ROLLUP.
	RollupMark = "WITH ROLLUP"
	// IntervalFunction is the function INTERVAL(n, n1, …).
	IntervalFunction = "INTERVAL"
	// MemberOf is the call written for x MEMBER OF(arr).
	MemberOf = "MEMBER OF"
)
