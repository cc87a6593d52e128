package translate

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/xwb1989/sqlparser"
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

// convertType describes a CAST target, kept in the call's val.
type convertType struct {
	length int64 // CHAR(n), BINARY(n), DATETIME(fsp); -1: none
	scale  int64 // DECIMAL's s
}

func init() {
	register("CAST SIGNED", &funcDef{min: 1, max: 1, typ: typeOf(typeInt), eval: func(e *expr, v []any) any {
		return castSigned(v[0])
	}})
	register("CAST UNSIGNED", &funcDef{min: 1, max: 1, typ: typeOf(typeInt), eval: func(e *expr, v []any) any {
		n := castSigned(v[0])
		if f, ok := v[0].(float64); ok && f > math.MaxInt64 {
			return math.Min(math.Round(f), math.MaxUint64)
		}
		if n < 0 {
			return float64(uint64(n))
		}
		return n
	}})
	register("CAST DOUBLE", &funcDef{min: 1, max: 1, typ: typeOf(typeFloat), eval: func(e *expr, v []any) any {
		f, _ := toFloat(v[0])
		return f
	}})
	register("CAST DECIMAL", &funcDef{min: 1, max: 1, typ: func(fc *funcCall) (sqlType, error) {
		if castParam(fc.out).scale == 0 {
			return typeInt, nil
		}
		return typeFloat, nil
	}, eval: func(e *expr, v []any) any {
		ct := castParam(e)
		var f float64
		if n, ok := intOf(v[0]); ok {
			f = float64(n)
		} else {
			f, _ = toFloat(v[0])
		}
		f = roundDecimal(f, ct.scale, false)
		limit := math.Pow(10, float64(ct.length-ct.scale)) - math.Pow(10, -float64(ct.scale))
		f = math.Max(-limit, math.Min(limit, f))
		if e.typ == typeInt {
			return saturate(f)
		}
		return f
	}})
	register("CAST CHAR", &funcDef{min: 1, max: 1, typ: typeOf(typeText), eval: func(e *expr, v []any) any {
		s := textArg(e, v, 0)
		if n := castParam(e).length; n >= 0 {
			if r := []rune(s); int64(len(r)) > n {
				s = string(r[:n])
			}
		}
		return s
	}})
	register("CAST BINARY", &funcDef{min: 1, max: 1, typ: typeOf(typeText), eval: func(e *expr, v []any) any {
		s := textArg(e, v, 0)
		if n := castParam(e).length; n >= 0 {
			if int64(len(s)) > n {
				s = s[:n]
			} else {
				s += strings.Repeat("\x00", int(n)-len(s))
			}
		}
		return s
	}})
	register("CAST DATE", &funcDef{min: 1, max: 1, typ: castTimeType(typeDate), eval: func(e *expr, v []any) any {
		t, ok := toTime(v[0])
		if !ok {
			return nil
		}
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}})
	register("CAST DATETIME", &funcDef{min: 1, max: 1, typ: castTimeType(typeDateTime), eval: func(e *expr, v []any) any {
		t, ok := toTime(v[0])
		if !ok {
			return nil
		}
		fsp := max(castParam(e).length, 0)
		step := time.Second
		for range fsp {
			step /= 10
		}
		r := t.Round(step)
		if r.Year() > 9999 {
			return nil
		}
		return r
	}})
}

// castParam is the CAST's parameters: a function called by its internal name (`CAST CHAR`(x))
// has none, and takes the defaults.
func castParam(e *expr) convertType {
	if ct, ok := e.val.(convertType); ok {
		return ct
	}
	if e.op == "CAST DECIMAL" {
		return convertType{length: 10}
	}
	return convertType{length: -1}
}

func castTimeType(t sqlType) func(fc *funcCall) (sqlType, error) {
	return func(fc *funcCall) (sqlType, error) {
		if !fc.args[0].typ.temporal() {
			fc.nullable = true
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
		return boolInt(v)
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
	f, _ := toFloat(v)
	return saturate(math.Round(f))
}

// convert compiles CAST(x AS type), CONVERT(x, type) and CONVERT(x USING charset).
func (s *scope) convert(e sqlparser.Expr) (*expr, error) {
	text := sqlparser.String(e)
	var inner sqlparser.Expr
	var ct *sqlparser.ConvertType
	switch c := e.(type) {
	case *sqlparser.ConvertExpr:
		inner, ct = c.Expr, c.Type
	case *sqlparser.ConvertUsingExpr:
		if !utf8Charset(c.Type) {
			return nil, unsupported("CONVERT … USING "+c.Type, text, "the driver's text is UTF-8: use USING utf8mb4")
		}
		x, err := s.compile(c.Expr)
		if err != nil {
			return nil, err
		}
		return s.callRegistered(funcTable["CAST CHAR"], "CAST CHAR", "CONVERT", []*expr{x}, text, convertType{length: -1})
	}
	x, err := s.compile(inner)
	if err != nil {
		return nil, err
	}
	length := int64(-1)
	if ct.Length != nil {
		n, err := strconv.ParseInt(string(ct.Length.Val), 10, 64)
		if err != nil || n < 0 {
			return nil, fmtErr("%s: the length %s is not a number", text, ct.Length.Val)
		}
		length = n
	}
	if ct.Charset != "" && !utf8Charset(ct.Charset) && !strings.EqualFold(ct.Charset, "binary") {
		return nil, unsupported("the character set "+ct.Charset, text, "the driver's text is UTF-8: use utf8mb4 or leave the character set out")
	}
	param := convertType{length: length}
	op := ""
	switch typ := strings.ToLower(ct.Type); typ {
	case "signed", "signed integer":
		op = "CAST SIGNED"
	case "unsigned", "unsigned integer":
		op = "CAST UNSIGNED"
	case "char", "nchar":
		op = "CAST CHAR"
	case "binary":
		op = "CAST BINARY"
	case "date":
		op = "CAST DATE"
	case "datetime":
		op = "CAST DATETIME"
		if length > 6 {
			return nil, fmtErr("%s: DATETIME takes a precision of 0 to 6 digits, not %d", text, length)
		}
	case "decimal":
		op = "CAST DECIMAL"
		param = convertType{length: 10}
		if ct.Length != nil {
			param.length = length
		}
		if ct.Scale != nil {
			n, err := strconv.ParseInt(string(ct.Scale.Val), 10, 64)
			if err != nil || n < 0 {
				return nil, fmtErr("%s: the scale %s is not a number", text, ct.Scale.Val)
			}
			param.scale = n
		}
		switch {
		case param.length < 1 || param.length > 65:
			return nil, fmtErr("%s: DECIMAL takes a precision of 1 to 65 digits, not %d", text, param.length)
		case param.scale > 30:
			return nil, fmtErr("%s: DECIMAL takes a scale of at most 30 digits, not %d", text, param.scale)
		case param.scale > param.length:
			return nil, fmtErr("%s: DECIMAL(M, D) needs M >= D", text)
		}
	default:
		return nil, unsupported("CAST to "+strings.ToUpper(ct.Type), text, "supported: SIGNED, UNSIGNED, DECIMAL(p, s), DOUBLE, CHAR(n), BINARY(n), DATE and DATETIME")
	}
	return s.callRegistered(funcTable[op], op, "CAST", []*expr{x}, text, param)
}

func utf8Charset(cs string) bool {
	switch strings.ToLower(strings.Trim(cs, "'\"`")) {
	case "utf8mb4", "utf8", "utf8mb3":
		return true
	}
	return false
}
