package sqlvalue

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// CAST(x AS type) and CONVERT(x, type) (MySQL 8 manual, 14.10 "Cast Functions and Operators").
// SIGNED and UNSIGNED read text by its integer prefix ('12.7' is 12, as MySQL's string-to-integer
// conversion) and round other numbers half away from zero, saturating at the int64 range; an
// UNSIGNED result above the int64 range (CAST(-1 AS UNSIGNED)) is a FLOAT64, since the driver's
// integers are int64. DECIMAL(p, s) rounds to s digits and clamps to p digits, as MySQL does; its
// value is a float64 (FLOAT64, or INT64 when s is 0). CHAR(n) cuts to n characters, BINARY(n)
// pads with zero bytes. DATE and DATETIME(fsp) read text as MySQL literals (NULL when it is not
// one) and round fractions of a second to fsp digits. TIME and JSON are refused, and so is a
// character set other than UTF-8.

// CastTarget describes a CAST target, kept in the call's val.
type CastTarget struct {
	Length int64 // CHAR(n), BINARY(n), DATETIME(fsp); -1: none
	Scale  int64 // DECIMAL's s
}

// castFuncs is this file's part of the function table (funcTable), by name.
var castFuncs = map[string]*Func{
	"CAST SIGNED": {Min: 1, Max: 1, Type: typeOf(Int), Eval: func(e *Call, v []any) any {
		return castSigned(v[0])
	}},
	"CAST UNSIGNED": {Min: 1, Max: 1, Type: typeOf(Int), Eval: func(e *Call, v []any) any {
		n := castSigned(v[0])
		if f, ok := v[0].(float64); ok && f > math.MaxInt64 {
			return math.Min(math.Round(f), math.MaxUint64)
		}
		if n < 0 {
			return float64(uint64(n))
		}
		return n
	}},
	"CAST DOUBLE": {Min: 1, Max: 1, Type: typeOf(Float), Eval: func(e *Call, v []any) any {
		f, _ := ToFloat(v[0])
		return f
	}},
	"CAST DECIMAL": {Min: 1, Max: 1, Type: func(fc *Check) (Type, error) {
		if castParam(fc.Name, fc.Param).Scale == 0 {
			return Int, nil
		}
		return Float, nil
	}, Eval: func(e *Call, v []any) any {
		ct := castParam(e.Name, e.Param)
		var f float64
		if n, ok := IntOf(v[0]); ok {
			f = float64(n)
		} else {
			f, _ = ToFloat(v[0])
		}
		f = roundDecimal(f, ct.Scale, false)
		limit := math.Pow(10, float64(ct.Length-ct.Scale)) - math.Pow(10, -float64(ct.Scale))
		f = math.Max(-limit, math.Min(limit, f))
		if e.Type == Int {
			return Saturate(f)
		}
		return f
	}},
	"CAST CHAR": {Min: 1, Max: 1, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		s := textArg(e, v, 0)
		if n := castParam(e.Name, e.Param).Length; n >= 0 {
			if r := []rune(s); int64(len(r)) > n {
				s = string(r[:n])
			}
		}
		return s
	}},
	"CAST BINARY": {Min: 1, Max: 1, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		s := textArg(e, v, 0)
		if n := castParam(e.Name, e.Param).Length; n >= 0 {
			if int64(len(s)) > n {
				s = s[:n]
			} else {
				s += strings.Repeat("\x00", int(n)-len(s))
			}
		}
		return s
	}},
	"CAST DATE": {Min: 1, Max: 1, Type: castTimeType(Date), Eval: func(e *Call, v []any) any {
		t, ok := ToTime(v[0])
		if !ok {
			return nil
		}
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}},
	"CAST DATETIME": {Min: 1, Max: 1, Type: castTimeType(DateTime), Eval: func(e *Call, v []any) any {
		t, ok := ToTime(v[0])
		if !ok {
			return nil
		}
		fsp := max(castParam(e.Name, e.Param).Length, 0)
		step := time.Second
		for range fsp {
			step /= 10
		}
		r := t.Round(step)
		if r.Year() > 9999 {
			return nil
		}
		return r
	}},
}

// castParam is the CAST's parameters: a function called by its internal name (`CAST CHAR`(x))
// has none, and takes the defaults.
func castParam(name string, param any) CastTarget {
	if ct, ok := param.(CastTarget); ok {
		return ct
	}
	if name == "CAST DECIMAL" {
		return CastTarget{Length: 10}
	}
	return CastTarget{Length: -1}
}

func castTimeType(t Type) func(fc *Check) (Type, error) {
	return func(fc *Check) (Type, error) {
		if !fc.Args[0].Type.Temporal() {
			fc.Nullable = true
		}
		return t, nil
	}
}

// castSigned is CAST(v AS SIGNED).
func castSigned(v any) int64 {
	switch v := v.(type) {
	case int64:
		return v
	case bool:
		return BoolInt(v)
	case string:
		// The integer prefix, as MySQL's my_strtoll10: '12.7' is 12, ' -3x' is -3.
		s := strings.TrimLeft(v, " \t\n\r")
		end := 0
		if end < len(s) && (s[end] == '+' || s[end] == '-') {
			end++
		}
		for end < len(s) && s[end] >= '0' && s[end] <= '9' {
			end++
		}
		n, err := strconv.ParseInt(s[:end], 10, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				if strings.HasPrefix(s, "-") {
					return math.MinInt64
				}
				return math.MaxInt64
			}
			return 0
		}
		return n
	}
	f, _ := ToFloat(v)
	return Saturate(math.Round(f))
}

func UTF8Charset(cs string) bool {
	switch strings.ToLower(strings.Trim(cs, "'\"`")) {
	case "utf8mb4", "utf8", "utf8mb3":
		return true
	}
	return false
}
