package formula

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// scalar reduces an array operand of an operator to one value: a one-element array is its element,
// an empty array is blank, a longer one is its text ("a, b").
func scalar(v Value) Value {
	for v.kind == KindArray {
		switch len(v.arr) {
		case 0:
			return Value{}
		case 1:
			v = v.arr[0]
		default:
			return Text(TextOf(v))
		}
	}
	return v
}

// toNumber converts an operand of arithmetic to a number: blank is 0, booleans are 1 and 0, text
// is read as a number ("" is 0). It returns an error value (second result) when v is an error or
// cannot be read as a number; the second result is otherwise the zero Value.
func toNumber(v Value) (float64, Value) {
	v = scalar(v)
	switch v.kind {
	case KindNumber, KindBool, KindBlank:
		return v.num, Value{}
	case KindText:
		if f, ok := parseNumber(v.str); ok {
			return f, Value{}
		}
		return 0, ErrorValue("text " + strconv.Quote(v.str) + " is not a number")
	case KindError:
		return 0, v
	}
	return 0, ErrorValue(v.kind.String() + " is not a number")
}

// parseNumber reads text as a number: surrounding spaces are ignored and "" is 0.
func parseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, true
	}
	if !looksNumeric(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeError(err) {
		return 0, false
	}
	return f, true
}

// looksNumeric rejects what strconv.ParseFloat accepts but a formula number is not: "Inf", "NaN",
// hexadecimal and underscores.
func looksNumeric(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == '.', c == '-', c == '+', c == 'e', c == 'E':
		default:
			return false
		}
	}
	return true
}

func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func binary(op string, l, r evalFn) evalFn {
	switch op {
	case "+", "-", "*", "/":
		return func(rec Record, env *Env) Value {
			a, errA := toNumber(l(rec, env))
			if errA.kind == KindError {
				return errA
			}
			b, errB := toNumber(r(rec, env))
			if errB.kind == KindError {
				return errB
			}
			switch op {
			case "+":
				return Number(a + b)
			case "-":
				return Number(a - b)
			case "*":
				return Number(a * b)
			}
			return Number(a / b) // JavaScript's rules: x/0 is ±Infinity, 0/0 is NaN
		}
	case "&":
		return func(rec Record, env *Env) Value {
			a, b := l(rec, env), r(rec, env)
			if a.kind == KindError {
				return a
			}
			if b.kind == KindError {
				return b
			}
			x, y := TextOf(a), TextOf(b)
			if len(x)+len(y) > maxTextLen {
				return ErrorValue("&: the text is too long")
			}
			return Text(x + y)
		}
	case "=":
		return func(rec Record, env *Env) Value { return equal(l(rec, env), r(rec, env), env) }
	case "!=":
		return func(rec Record, env *Env) Value {
			v := equal(l(rec, env), r(rec, env), env)
			if v.kind == KindError {
				return v
			}
			return Bool(v.num == 0)
		}
	}
	var want func(int) bool
	switch op {
	case "<":
		want = func(c int) bool { return c < 0 }
	case ">":
		want = func(c int) bool { return c > 0 }
	case "<=":
		want = func(c int) bool { return c <= 0 }
	case ">=":
		want = func(c int) bool { return c >= 0 }
	default:
		panic("formula: unknown operator " + op)
	}
	return func(rec Record, env *Env) Value {
		c, ok, bad := compare(l(rec, env), r(rec, env), env)
		if bad.kind == KindError {
			return bad
		}
		return Bool(ok && want(c))
	}
}

func isNumeric(k Kind) bool { return k == KindNumber || k == KindBool || k == KindBlank }
func isTime(k Kind) bool    { return k == KindDate || k == KindDateTime }

// equal is the = operator. Blank equals blank, 0, false and ""; text compares case-sensitively;
// text and a number are equal when the text reads as that number; a date equals text that
// parses to the same instant; otherwise different kinds are unequal.
func equal(a, b Value, env *Env) Value {
	a, b = scalar(a), scalar(b)
	if a.kind == KindError {
		return a
	}
	if b.kind == KindError {
		return b
	}
	switch {
	case a.kind == KindText && b.kind == KindText:
		return Bool(a.str == b.str)
	case isNumeric(a.kind) && isNumeric(b.kind):
		return Bool(a.num == b.num)
	case a.kind == KindBlank && b.kind == KindText:
		return Bool(b.str == "")
	case a.kind == KindText && b.kind == KindBlank:
		return Bool(a.str == "")
	case isTime(a.kind) || isTime(b.kind):
		ta, okA := timeOperand(a, env)
		tb, okB := timeOperand(b, env)
		return Bool(okA && okB && ta.Equal(tb))
	case a.kind == KindText:
		f, ok := parseNumber(a.str)
		return Bool(ok && f == b.num)
	case b.kind == KindText:
		f, ok := parseNumber(b.str)
		return Bool(ok && f == a.num)
	}
	return Bool(false)
}

// compare orders two operands for < > <= >=. ok is false when they cannot be ordered (NaN, a date
// against a number); bad is set when an operand is an error.
func compare(a, b Value, env *Env) (c int, ok bool, bad Value) {
	a, b = scalar(a), scalar(b)
	if a.kind == KindError {
		return 0, false, a
	}
	if b.kind == KindError {
		return 0, false, b
	}
	switch {
	case isNumeric(a.kind) && isNumeric(b.kind):
		return compareFloat(a.num, b.num)
	case a.kind == KindText && b.kind == KindText:
		return strings.Compare(a.str, b.str), true, Value{}
	case a.kind == KindBlank && b.kind == KindText:
		return strings.Compare("", b.str), true, Value{}
	case a.kind == KindText && b.kind == KindBlank:
		return strings.Compare(a.str, ""), true, Value{}
	case isTime(a.kind) || isTime(b.kind):
		ta, okA := timeOperand(a, env)
		tb, okB := timeOperand(b, env)
		if !okA || !okB {
			return 0, false, Value{}
		}
		return ta.Compare(tb), true, Value{}
	case a.kind == KindText:
		if f, ok := parseNumber(a.str); ok {
			return compareFloat(f, b.num)
		}
		return strings.Compare(a.str, TextOf(b)), true, Value{}
	case b.kind == KindText:
		if f, ok := parseNumber(b.str); ok {
			return compareFloat(a.num, f)
		}
		return strings.Compare(TextOf(a), b.str), true, Value{}
	}
	return 0, false, Value{}
}

func compareFloat(x, y float64) (int, bool, Value) {
	switch {
	case math.IsNaN(x) || math.IsNaN(y):
		return 0, false, Value{}
	case x < y:
		return -1, true, Value{}
	case x > y:
		return 1, true, Value{}
	}
	return 0, true, Value{}
}

// timeOperand reads a date, a date-time, or text that parses as one (in env's zone) as an instant.
func timeOperand(v Value, env *Env) (time.Time, bool) {
	switch v.kind {
	case KindDate, KindDateTime:
		return v.t, true
	case KindText:
		if t, ok := parseISO(v.str, env.location()); ok {
			return t, true
		}
	}
	return time.Time{}, false
}
