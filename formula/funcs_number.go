package formula

import (
	"math"
	"strings"
)

// numberFunctions are the numeric functions, one entry each.
var numberFunctions = []funcEntry{
	{"ABS", 1, 1, numeric1(math.Abs)},
	{"EXP", 1, 1, numeric1(math.Exp)},
	{"SQRT", 1, 1, numeric1(math.Sqrt)},
	{"INT", 1, 1, numeric1(math.Floor)},
	{"EVEN", 1, 1, numeric1(func(x float64) float64 { return awayToMultiple(x, 2, 0) })},
	{"ODD", 1, 1, numeric1(func(x float64) float64 { return awayToMultiple(x, 2, 1) })},
	{"POWER", 2, 2, numeric2(math.Pow)},
	// MOD's result takes the sign of the dividend, as JavaScript's % does.
	{"MOD", 2, 2, numeric2(math.Mod)},
	{"LOG", 1, 2, fnN(func(_ *Env, args []Value) Value {
		nums, bad := numbers(args)
		if bad.kind == KindError {
			return bad
		}
		if len(nums) == 1 || nums[1] == 10 {
			return Number(math.Log10(nums[0]))
		}
		if nums[1] == 2 {
			return Number(math.Log2(nums[0]))
		}
		return Number(math.Log(nums[0]) / math.Log(nums[1]))
	})},
	{"ROUND", 2, 2, numeric2(func(x, p float64) float64 { return roundTo(x, p, roundHalfUp) })},
	{"ROUNDUP", 2, 2, numeric2(func(x, p float64) float64 { return roundTo(x, p, roundAway) })},
	{"ROUNDDOWN", 2, 2, numeric2(func(x, p float64) float64 { return roundTo(x, p, math.Trunc) })},
	{"CEILING", 1, 2, fnN(func(_ *Env, args []Value) Value { return toSignificance(args, math.Ceil) })},
	{"FLOOR", 1, 2, fnN(func(_ *Env, args []Value) Value { return toSignificance(args, math.Floor) })},

	// The aggregates take numbers, arrays of numbers, or both; SUM, AVERAGE, MAX and MIN ignore
	// what is not a number (text, blanks), as Airtable's rollups do.
	{"SUM", 1, -1, aggregate(func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s
	})},
	{"AVERAGE", 1, -1, aggregate(func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs)) // no numbers: 0/0, NaN, as an empty rollup
	})},
	{"MAX", 1, -1, aggregate(func(xs []float64) float64 {
		if len(xs) == 0 {
			return 0
		}
		m := xs[0]
		for _, x := range xs[1:] {
			m = math.Max(m, x)
		}
		return m
	})},
	{"MIN", 1, -1, aggregate(func(xs []float64) float64 {
		if len(xs) == 0 {
			return 0
		}
		m := xs[0]
		for _, x := range xs[1:] {
			m = math.Min(m, x)
		}
		return m
	})},
	{"COUNT", 1, -1, counter(func(v Value) bool { return v.kind == KindNumber })},
	{"COUNTA", 1, -1, counter(func(v Value) bool {
		return v.kind != KindBlank && !(v.kind == KindText && v.str == "")
	})},
	{"COUNTALL", 1, -1, counter(func(Value) bool { return true })},
	{"VALUE", 1, 1, fn1(func(_ *Env, v Value) Value {
		v = scalar(v)
		if v.kind != KindText {
			f, bad := toNumber(v)
			if bad.kind == KindError {
				return bad
			}
			return Number(f)
		}
		if f, ok := parseLooseNumber(v.str); ok {
			return Number(f)
		}
		return ErrorValue("VALUE: " + v.str + " is not a number")
	})},
}

func init() { registerAll(numberFunctions) }

func numeric1(f func(float64) float64) builder {
	return fn1(func(_ *Env, a Value) Value {
		x, bad := toNumber(a)
		if bad.kind == KindError {
			return bad
		}
		return Number(f(x))
	})
}

func numeric2(f func(x, y float64) float64) builder {
	return fn2(func(_ *Env, a, b Value) Value {
		x, bad := toNumber(a)
		if bad.kind == KindError {
			return bad
		}
		y, bad := toNumber(b)
		if bad.kind == KindError {
			return bad
		}
		return Number(f(x, y))
	})
}

// numbers converts every argument with toNumber.
func numbers(args []Value) ([]float64, Value) {
	out := make([]float64, len(args))
	for i, a := range args {
		f, bad := toNumber(a)
		if bad.kind == KindError {
			return nil, bad
		}
		out[i] = f
	}
	return out, Value{}
}

// flatten appends the scalars of vs, arrays expanded, to out.
func flatten(out []Value, vs []Value) []Value {
	for _, v := range vs {
		if v.kind == KindArray {
			out = flatten(out, v.arr)
		} else {
			out = append(out, v)
		}
	}
	return out
}

func aggregate(f func([]float64) float64) builder {
	return fnN(func(_ *Env, args []Value) Value {
		var xs []float64
		for _, v := range flatten(nil, args) {
			switch v.kind {
			case KindError:
				return v
			case KindNumber:
				xs = append(xs, v.num)
			case KindText:
				// A literal or cell that reads as a number counts; other text is skipped.
				if x, ok := parseNumber(v.str); ok && strings.TrimSpace(v.str) != "" {
					xs = append(xs, x)
				}
			case KindBool:
				xs = append(xs, v.num)
			}
		}
		return Number(f(xs))
	})
}

func counter(counts func(Value) bool) builder {
	return fnN(func(_ *Env, args []Value) Value {
		n := 0
		for _, v := range flatten(nil, args) {
			if counts(v) {
				n++
			}
		}
		return Number(float64(n))
	})
}

func roundHalfUp(x float64) float64 { return math.Floor(x + 0.5) }

func roundAway(x float64) float64 {
	if x < 0 {
		return -math.Ceil(-x)
	}
	return math.Ceil(x)
}

// roundTo rounds x to p decimal places (p may be negative) with round. ROUND rounds half up
// (toward +infinity), as JavaScript's Math.round; ROUNDUP away from zero; ROUNDDOWN toward zero.
func roundTo(x, p float64, round func(float64) float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	places := math.Trunc(p)
	if places > 15 {
		return x
	}
	scale := math.Pow(10, math.Abs(places))
	if places >= 0 {
		// Correct for binary representation: 1.005*100 is 100.49999999999999.
		return round(cleanProduct(x*scale)) / scale
	}
	return round(cleanProduct(x/scale)) * scale
}

// cleanProduct removes the error of a decimal scaling, so 100.49999999999999 becomes 100.5.
func cleanProduct(y float64) float64 {
	r := math.Round(y*1e9) / 1e9
	if math.Abs(r-y) < 1e-7*math.Max(1, math.Abs(y)) && !math.IsInf(r, 0) {
		return r
	}
	return y
}

// awayToMultiple rounds x away from zero to the nearest number ≡ rem (mod m): EVEN and ODD.
func awayToMultiple(x float64, m, rem float64) float64 {
	sign := 1.0
	if x < 0 {
		sign, x = -1, -x
	}
	n := math.Ceil(x)
	if math.Mod(n, m) != rem {
		n++
	}
	return sign * n
}

// toSignificance implements CEILING and FLOOR: round to a multiple of the significance (default 1).
func toSignificance(args []Value, round func(float64) float64) Value {
	nums, bad := numbers(args)
	if bad.kind == KindError {
		return bad
	}
	sig := 1.0
	if len(nums) == 2 {
		sig = math.Abs(nums[1])
	}
	if sig == 0 {
		return Number(0)
	}
	return Number(round(cleanProduct(nums[0]/sig)) * sig)
}

// parseLooseNumber is VALUE's reading of text: currency symbols, thousands separators and spaces
// are ignored, parentheses or a leading minus make it negative, a trailing % divides by 100.
func parseLooseNumber(s string) (float64, bool) {
	var b strings.Builder
	negative, percent := false, false
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		negative, s = true, s[1:len(s)-1]
	}
	if strings.HasSuffix(s, "%") {
		percent, s = true, s[:len(s)-1]
	}
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9', r == '.', r == '-', r == '+', r == 'e', r == 'E':
			b.WriteRune(r)
		case r == ',', r == ' ', r == '$', r == '€', r == '£', r == '¥':
		default:
			return 0, false
		}
	}
	if b.Len() == 0 {
		return 0, false
	}
	f, ok := parseNumber(b.String())
	if !ok {
		return 0, false
	}
	if negative {
		f = -f
	}
	if percent {
		f /= 100
	}
	return f, true
}
