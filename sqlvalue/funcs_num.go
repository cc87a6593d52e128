package sqlvalue

import (
	"math"
	"strconv"
	"strings"
)

// Numeric functions (MySQL 8 manual, 14.6.2 "Mathematical Functions"). Text arguments read as
// numbers by their numeric prefix, as in MySQL. ROUND and TRUNCATE work on the decimal digits of
// the number (the shortest decimal that reads back as the float), so ROUND(2.675, 2) is 2.68 and
// TRUNCATE(0.29, 2) is 0.29, as with MySQL's exact DECIMAL values; ROUND rounds halves away from
// zero.

// numType is the type of a numeric result that keeps an integer argument integer.
func numType(t Type) Type {
	if t.Integer() {
		return Int
	}
	return Float
}

// numberFuncs is this file's part of the function table (funcTable), by name.
var numberFuncs = map[string]*Func{
	"ABS": {Min: 1, Max: 1, Type: func(fc *Check) (Type, error) {
		return numType(fc.Args[0].Type), nil
	}, Eval: func(e *Call, v []any) any {
		if n, ok := IntOf(v[0]); ok {
			if n == math.MinInt64 {
				return -float64(n)
			}
			if n < 0 {
				return -n
			}
			return n
		}
		f, _ := ToFloat(v[0])
		return math.Abs(f)
	}},
	"SIGN": {Min: 1, Max: 1, Type: typeOf(Int), Eval: func(e *Call, v []any) any {
		f, _ := ToFloat(v[0])
		switch {
		case f > 0:
			return int64(1)
		case f < 0:
			return int64(-1)
		}
		return int64(0)
	}},
	"ROUND": {Min: 1, Max: 2, Type: func(fc *Check) (Type, error) {
		// The argument's type, with or without digits, as MySQL: ROUND of a DOUBLE is a DOUBLE
		// (ROUND(Score) * Age is a DOUBLE product, never BIGINT's out-of-range error).
		// A decimal literal's ROUND is MySQL's DECIMAL of scale 0: an integer here.
		if len(fc.Args) == 1 && fc.Args[0].Const {
			return Int, nil
		}
		return numType(fc.Args[0].Type), nil
	}, Eval: func(e *Call, v []any) any {
		return roundOrTruncate(e, v, false)
	}},
	"TRUNCATE": {Min: 2, Max: 2, Type: func(fc *Check) (Type, error) {
		return numType(fc.Args[0].Type), nil
	}, Eval: func(e *Call, v []any) any {
		return roundOrTruncate(e, v, true)
	}},
	"CEIL":  ceilFloor(math.Ceil),
	"FLOOR": ceilFloor(math.Floor),
	"MOD": {Min: 2, Max: 2, MayBeNull: true, Type: func(fc *Check) (Type, error) {
		return Unify(numType(fc.Args[0].Type), numType(fc.Args[1].Type)), nil
	}, Eval: func(e *Call, v []any) any {
		return Arith("%", numberOf(v[0]), numberOf(v[1]))
	}},
	"POWER": {Min: 2, Max: 2, Type: typeOf(Float), MayBeNull: true, Eval: func(e *Call, v []any) any {
		x, _ := ToFloat(v[0])
		y, _ := ToFloat(v[1])
		return finite(math.Pow(x, y))
	}},
	"SQRT": {Min: 1, Max: 1, Type: typeOf(Float), MayBeNull: true, Eval: func(e *Call, v []any) any {
		x, _ := ToFloat(v[0])
		if x < 0 {
			return nil
		}
		return math.Sqrt(x)
	}},
	"EXP": {Min: 1, Max: 1, Type: typeOf(Float), MayBeNull: true, Eval: func(e *Call, v []any) any {
		x, _ := ToFloat(v[0])
		return finite(math.Exp(x))
	}},
	"LN": {Min: 1, Max: 1, Type: typeOf(Float), MayBeNull: true, Eval: func(e *Call, v []any) any {
		x, _ := ToFloat(v[0])
		if x <= 0 {
			return nil
		}
		return math.Log(x)
	}},
	// INTERVAL(n, n1, n2, …): how many of n1, n2, … come before the first one greater than n (for
	// a sorted list, the number of them at most n); -1 when n is NULL. A NULL item is never greater.
	IntervalFunction: {Min: 2, Max: -1, Type: typeOf(Int), NullArgs: true,
		Nullable: func([]Arg) bool { return false }, Eval: func(e *Call, v []any) any {
			if v[0] == nil {
				return int64(-1)
			}
			n, _ := ToFloat(v[0])
			for i := 1; i < len(v); i++ {
				if f, ok := ToFloat(v[i]); ok && f > n {
					return int64(i - 1)
				}
			}
			return int64(len(v) - 1)
		}},
	"PI": {Min: 0, Max: 0, Type: typeOf(Float), Eval: func(e *Call, v []any) any { return math.Pi }}, "GREATEST": greatestOrLeast(true),
	"LEAST": greatestOrLeast(false),
}

// ceilFloor is CEIL or FLOOR: an integer stays itself; a DOUBLE is rounded by f, an integer
// when it fits.
func ceilFloor(f func(float64) float64) *Func {
	return &Func{Min: 1, Max: 1, Type: typeOf(Int), Eval: func(e *Call, v []any) any {
		if n, ok := IntOf(v[0]); ok {
			return n
		}
		x, _ := ToFloat(v[0])
		x = f(x)
		if math.Abs(x) < 1<<63 {
			return int64(x)
		}
		return x
	}}
}

// greatestOrLeast is GREATEST (greatest) or LEAST: NULL when an argument is, else the extreme
// of the arguments converted to the call's type.
func greatestOrLeast(greatest bool) *Func {
	return &Func{Min: 2, Max: -1, Type: typeOfValues, Eval: func(e *Call, v []any) any {
		var best any
		for i, x := range v {
			x = convertArg(e, i, x)
			if x == nil {
				return nil
			}
			if best == nil {
				best = x
				continue
			}
			if c := Compare(x, best); (greatest && c > 0) || (!greatest && c < 0) {
				best = x
			}
		}
		return best
	}}
}

// typeOfValues is the type of a function that returns one of its arguments (GREATEST, LEAST,
// COALESCE, …): Unify of them, as MySQL aggregates types (a date and a text are text).
func typeOfValues(fc *Check) (Type, error) {
	return unifyArgs(fc.Args), nil
}

// unifyArgs is Unify of the types of args.
func unifyArgs(args []Arg) Type {
	types := make([]Type, len(args))
	for i, a := range args {
		types[i] = a.Type
	}
	return Unify(types...)
}

// numberOf is a value as a number for arithmetic: integers stay integers.
func numberOf(v any) any {
	switch v.(type) {
	case int64, float64, bool:
		return v
	}
	f, _ := ToFloat(v)
	return f
}

// finite is NULL for NaN and infinities, which have no SQL value.
func finite(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}

// roundOrTruncate is ROUND(x[, d]) and TRUNCATE(x, d).
func roundOrTruncate(e *Call, v []any, trunc bool) any {
	digits := int64(0)
	if len(v) == 2 {
		digits = ToInt(v[1])
	}
	if n, ok := IntOf(v[0]); ok {
		if digits >= 0 {
			return n
		}
		if digits < -18 {
			return int64(0)
		}
		p := int64(1)
		for range -digits {
			p *= 10
		}
		q, r := n/p, n%p
		if !trunc && (r >= p/2 || r <= -p/2) {
			// Halves away from zero: r is at least half of p.
			if r > 0 {
				q++
			} else {
				q--
			}
		}
		return q * p
	}
	x, _ := ToFloat(v[0])
	r := roundDecimal(x, digits, trunc)
	if e.Type == Int {
		if math.Abs(r) < 1<<63 {
			return int64(r)
		}
	}
	return r
}

// roundDecimal rounds (half away from zero) or truncates x to d decimal digits (d < 0: to tens,
// hundreds, …), working on the shortest decimal form of x.
func roundDecimal(x float64, d int64, trunc bool) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return x
	}
	if d > 30 {
		return x
	}
	s := strconv.FormatFloat(math.Abs(x), 'e', -1, 64) // d.ddddde±x
	mant, expText, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1) // value = 0.digits × 10^(exp+1)
	// Keep the digits up to position exp+1+d after the leading one.
	keep := int64(exp) + 1 + d
	if keep < 0 {
		return math.Copysign(0, 1)
	}
	if keep >= int64(len(digits)) {
		return x
	}
	kept := []byte(digits[:keep])
	roundUp := !trunc && digits[keep] >= '5'
	if roundUp {
		i := len(kept) - 1
		for ; i >= 0; i-- {
			if kept[i] == '9' {
				kept[i] = '0'
				continue
			}
			kept[i]++
			break
		}
		if i < 0 {
			kept = append([]byte{'1'}, kept...)
			exp++
		}
	}
	if len(kept) == 0 {
		return 0
	}
	out, err := strconv.ParseFloat("0."+string(kept)+"e"+strconv.Itoa(exp+1), 64)
	if err != nil {
		return x
	}
	return math.Copysign(out, x)
}
