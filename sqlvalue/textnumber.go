package sqlvalue

import (
	"math"
	"strconv"
	"strings"
)

// TextNumber is MySQL's conversion of text to DOUBLE: the longest prefix that is a decimal number
// (sign, digits, point, exponent) after leading white space; 0 when there is none.
func TextNumber(s string) float64 {
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

// The evaluator of TextAsNumber, in the one table of functions (a NULL gives NULL).
var textNumberFuncs = map[string]*Func{
	TextAsNumber: {Min: 1, Max: 1,
		Type: func(*Check) (Type, error) { return Float, nil },
		Eval: func(e *Call, v []any) any { return TextNumber(TextOf(v[0])) }},
}

// TextAsNumber is the internal function that reads text as MySQL reads it in a numeric context. Its
// name cannot be written in SQL.
const TextAsNumber = "(text as number)"
