package translate

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
func numType(t sqlType) sqlType {
	if t == typeInt || t == typeBool {
		return typeInt
	}
	return typeFloat
}

func init() {
	register("ABS", &funcDef{min: 1, max: 1, typ: func(fc *funcCall) (sqlType, error) {
		return numType(fc.args[0].typ), nil
	}, eval: func(e *expr, v []any) any {
		if n, ok := intOf(v[0]); ok {
			if n == math.MinInt64 {
				return -float64(n)
			}
			if n < 0 {
				return -n
			}
			return n
		}
		f, _ := toFloat(v[0])
		return math.Abs(f)
	}})
	register("SIGN", &funcDef{min: 1, max: 1, typ: typeOf(typeInt), eval: func(e *expr, v []any) any {
		f, _ := toFloat(v[0])
		switch {
		case f > 0:
			return int64(1)
		case f < 0:
			return int64(-1)
		}
		return int64(0)
	}})
	register("ROUND", &funcDef{min: 1, max: 2, typ: func(fc *funcCall) (sqlType, error) {
		// The argument's type, with or without digits, as MySQL: ROUND of a DOUBLE is a DOUBLE
		// (ROUND(Score) * Age is a DOUBLE product, never BIGINT's out-of-range error).
		// A decimal literal's ROUND is MySQL's DECIMAL of scale 0: an integer here.
		if len(fc.args) == 1 && fc.args[0].kind == exConst {
			return typeInt, nil
		}
		return numType(fc.args[0].typ), nil
	}, eval: func(e *expr, v []any) any {
		return roundOrTruncate(e, v, false)
	}})
	register("TRUNCATE", &funcDef{min: 2, max: 2, typ: func(fc *funcCall) (sqlType, error) {
		return numType(fc.args[0].typ), nil
	}, eval: func(e *expr, v []any) any {
		return roundOrTruncate(e, v, true)
	}})
	ceilFloor := func(f func(float64) float64) *funcDef {
		return &funcDef{min: 1, max: 1, typ: typeOf(typeInt), eval: func(e *expr, v []any) any {
			if n, ok := intOf(v[0]); ok {
				return n
			}
			x, _ := toFloat(v[0])
			x = f(x)
			if math.Abs(x) < 1<<63 {
				return int64(x)
			}
			return x
		}}
	}
	register("CEIL", ceilFloor(math.Ceil))
	register("FLOOR", ceilFloor(math.Floor))
	register("MOD", &funcDef{min: 2, max: 2, mayBeNull: true, typ: func(fc *funcCall) (sqlType, error) {
		return unifyTypes(numType(fc.args[0].typ), numType(fc.args[1].typ)), nil
	}, eval: func(e *expr, v []any) any {
		return arith("%", numberOf(v[0]), numberOf(v[1]))
	}})
	register("POWER", &funcDef{min: 2, max: 2, typ: typeOf(typeFloat), mayBeNull: true, eval: func(e *expr, v []any) any {
		x, _ := toFloat(v[0])
		y, _ := toFloat(v[1])
		return finite(math.Pow(x, y))
	}})
	register("SQRT", &funcDef{min: 1, max: 1, typ: typeOf(typeFloat), mayBeNull: true, eval: func(e *expr, v []any) any {
		x, _ := toFloat(v[0])
		if x < 0 {
			return nil
		}
		return math.Sqrt(x)
	}})
	register("EXP", &funcDef{min: 1, max: 1, typ: typeOf(typeFloat), mayBeNull: true, eval: func(e *expr, v []any) any {
		x, _ := toFloat(v[0])
		return finite(math.Exp(x))
	}})
	register("LN", &funcDef{min: 1, max: 1, typ: typeOf(typeFloat), mayBeNull: true, eval: func(e *expr, v []any) any {
		x, _ := toFloat(v[0])
		if x <= 0 {
			return nil
		}
		return math.Log(x)
	}})
	// INTERVAL(n, n1, n2, …): how many of n1, n2, … come before the first one greater than n (for
	// a sorted list, the number of them at most n); -1 when n is NULL. A NULL item is never greater.
	register(intervalFunction, &funcDef{min: 2, max: -1, typ: typeOf(typeInt), nullArgs: true,
		nullable: func([]*expr) bool { return false }, eval: func(e *expr, v []any) any {
			if v[0] == nil {
				return int64(-1)
			}
			n, _ := toFloat(v[0])
			for i := 1; i < len(v); i++ {
				if f, ok := toFloat(v[i]); ok && f > n {
					return int64(i - 1)
				}
			}
			return int64(len(v) - 1)
		}})
	register("PI", &funcDef{min: 0, max: 0, typ: typeOf(typeFloat), eval: func(e *expr, v []any) any { return math.Pi }})
	for _, name := range []string{"GREATEST", "LEAST"} {
		greatest := name == "GREATEST"
		register(name, &funcDef{min: 2, max: -1, typ: typeOfValues, eval: func(e *expr, v []any) any {
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
				if c := compareValues(x, best); (greatest && c > 0) || (!greatest && c < 0) {
					best = x
				}
			}
			return best
		}})
	}
}

// typeOfValues is the type of a function that returns one of its arguments (GREATEST, LEAST,
// COALESCE, …): unifyTypes of them, as MySQL aggregates types (a date and a text are text).
func typeOfValues(fc *funcCall) (sqlType, error) {
	return unifyArgs(fc.args), nil
}

// unifyArgs is unifyTypes of the types of args.
func unifyArgs(args []*expr) sqlType {
	types := make([]sqlType, len(args))
	for i, a := range args {
		types[i] = a.typ
	}
	return unifyTypes(types...)
}

// numberOf is a value as a number for arithmetic: integers stay integers.
func numberOf(v any) any {
	switch v.(type) {
	case int64, float64, bool:
		return v
	}
	f, _ := toFloat(v)
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
func roundOrTruncate(e *expr, v []any, trunc bool) any {
	digits := int64(0)
	if len(v) == 2 {
		digits = toInt(v[1])
	}
	if n, ok := intOf(v[0]); ok {
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
	x, _ := toFloat(v[0])
	r := roundDecimal(x, digits, trunc)
	if e.typ == typeInt {
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
