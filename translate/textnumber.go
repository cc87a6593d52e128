package translate

import (
	"math"
	"strconv"
	"strings"
)

// Text compared with a number. MySQL compares them as numbers: the text is read as the number its
// longest numeric prefix spells, after leading white space ('1.0' and ' 1' and '1abc' are 1, 'abc'
// and '' are 0). So Code = 1 is TRUE for '1.0' and Name = 0 for every name that does not start with
// a number other than 0. The service has no such conversion that is known to agree (VALUE's rules
// are not documented), so these comparisons are checked locally.

// opTextNumber is the internal function that reads text as MySQL reads it in a numeric context. Its
// name cannot be written in SQL.
const opTextNumber = "(text as number)"

// asNumber wraps a text expression so that it compares as a number; other expressions are returned
// as they are. A text constant is converted here.
func asNumber(x *expr) *expr {
	if x.typ != typeText {
		return x
	}
	if x.kind == exConst {
		out := *x
		if s, ok := x.val.(string); ok {
			out.val = mysqlNumber(s)
		}
		out.typ = typeFloat
		return &out
	}
	return &expr{kind: exFunc, op: opTextNumber, typ: typeFloat, nullable: x.nullable, args: []*expr{x}, sql: x.sql}
}

// textWithNumber reports a comparison of text with a number (a BOOL is a number too).
func textWithNumber(a, b *expr) bool {
	return a.typ == typeText && b.typ.numeric() || b.typ == typeText && a.typ.numeric()
}

// mysqlNumber is MySQL's conversion of text to DOUBLE: the longest prefix that is a decimal number
// (sign, digits, point, exponent) after leading white space; 0 when there is none.
func mysqlNumber(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\r\f\v")
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		j := i + 1
		frac := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j, frac = j+1, frac+1
		}
		if digits+frac > 0 {
			i, digits = j, digits+frac
		}
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			i = k
		}
	}
	f, err := strconv.ParseFloat(s[:i], 64)
	if err != nil && math.IsInf(f, 0) {
		return math.Copysign(math.MaxFloat64, f) // MySQL clamps to the largest DOUBLE
	}
	return f
}

// The evaluator of opTextNumber, in the one table of functions (a NULL gives NULL).
func init() {
	register(opTextNumber, &funcDef{min: 1, max: 1,
		typ:  func(*funcCall) (sqlType, error) { return typeFloat, nil },
		eval: func(_ *expr, v []any) any { return mysqlNumber(textOf(v[0])) }})
}
