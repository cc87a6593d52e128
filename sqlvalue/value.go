package sqlvalue

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// IntOf is an integer value (a BOOL is 0 or 1); false for any other.
func IntOf(v any) (int64, bool) {
	switch v := v.(type) {
	case int64:
		return v, true
	case bool:
		return BoolInt(v), true
	}
	return 0, false
}

// FloatOf is a number value as a float; NaN for any other.
func FloatOf(v any) float64 {
	switch v := v.(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	case bool:
		return float64(BoolInt(v))
	}
	return math.NaN()
}

// TextOf renders a value as SQL text (for LIKE and CONCAT on non-text values).
func TextOf(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return FloatText(v)
	case bool:
		return strconv.FormatInt(BoolInt(v), 10)
	case time.Time:
		if v.Hour() == 0 && v.Minute() == 0 && v.Second() == 0 && v.Nanosecond() == 0 {
			return v.Format("2006-01-02")
		}
		return v.Format("2006-01-02 15:04:05.999")
	}
	return fmt.Sprint(v)
}

// Unify is the type of a result that can be any of several values (CASE, IF, COALESCE,
// GREATEST): numbers stay numbers (integer unless one is not), times stay times (a date with a
// datetime is a datetime), any other mix is text, as in MySQL. A condition's value passed on is a
// plain BIGINT (MySQL's CASE, IF, COALESCE and UNION of Item_bool_func are not boolean): Int.
func Unify(types ...Type) Type {
	out := Null
	for _, t := range types {
		if t == Cond {
			t = Int
		}
		switch {
		case t == Null || t == out:
		case out == Null:
			out = t
		case out.Numeric() && t.Numeric():
			if out == Float || t == Float {
				out = Float
			} else {
				out = Int
			}
		case out.Temporal() && t.Temporal():
			out = DateTime
		default:
			out = Text
		}
	}
	return out
}

// Convert converts a value of type from to type to (a result type of Unify).
func Convert(v any, from, to Type) any {
	if v == nil || from == to {
		return v
	}
	switch to {
	case Text, JSON:
		return Format(v, from)
	case Float:
		f, _ := ToFloat(v)
		return f
	case Int:
		if b, ok := v.(bool); ok {
			return BoolInt(b)
		}
	case DateTime, Date:
		if t, ok := ToTime(v); ok {
			return t
		}
		return nil
	}
	return v
}

// Format renders a value as MySQL shows it, given its SQL type: a date as 2006-01-02, a datetime
// as 2006-01-02 15:04:05 (with its fraction of a second when it has one), TRUE as 1.
func Format(v any, typ Type) string { return FormatFsp(v, typ, -1) }

// FormatFsp is Format with fsp fraction digits for a DATETIME (MySQL writes a DATETIME(3) column
// as 2024-01-05 00:00:00.000); fsp -1 writes the fraction only when there is one.
func FormatFsp(v any, typ Type, fsp int) string {
	if t, ok := v.(time.Time); ok {
		t = t.UTC()
		if typ == Date {
			return t.Format(time.DateOnly)
		}
		if fsp > 0 {
			return t.Format(time.DateTime + "." + strings.Repeat("0", min(fsp, 6)))
		}
		if t.Nanosecond() != 0 && fsp < 0 {
			return t.Format("2006-01-02 15:04:05.999999")
		}
		return t.Format(time.DateTime)
	}
	if f, ok := v.(float64); ok {
		return FloatText(f)
	}
	return TextOf(v)
}

// FloatText writes a float as MySQL writes a DOUBLE as text (AppendFloatText).
func FloatText(f float64) string {
	var buf [32]byte
	return string(AppendFloatText(buf[:0], f))
}

// maxDecptForF is MySQL's MAX_DECPT_FOR_F_FORMAT (DBL_DIG): the most integer digits my_gcvt
// writes positionally when the shortest digits have nothing after the point.
const maxDecptForF = 15

// AppendFloatText appends f as MySQL 8 writes a DOUBLE as text — in a result set, CAST(… AS
// CHAR), CONCAT — which is my_gcvt(MY_GCVT_ARG_DOUBLE) with the wide buffer of
// String::set_real: the shortest digits that read back (dtoa mode 4), positional when the
// decimal point falls from 1e-15 up to 15 integer digits (100000000000000, 0.000000000000001),
// and also beyond 15 integer digits when the shortest digits have a fraction
// (3703703669999999.5); else with an exponent, without '+' or leading zeros (1e15, 1e-16,
// 1.2345678901234568e17). -0 is 0.
func AppendFloatText(b []byte, f float64) []byte {
	if f == 0 {
		return append(b, '0')
	}
	if math.IsInf(f, 0) || math.IsNaN(f) { // no MySQL value; written as Go does
		return strconv.AppendFloat(b, f, 'g', -1, 64)
	}
	// Most values a report reads are well inside the positional range: write them at once
	// rather than find their exponent first (a result set's text rows spent half their float
	// time there). Below 1e14 and from 1e-14 the point falls within the positional range
	// whatever the shortest digits round to.
	if a := math.Abs(f); a < 1e14 && a >= 1e-14 {
		if f == math.Trunc(f) {
			return strconv.AppendInt(b, int64(f), 10)
		}
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	return appendFloatTextExp(b, f)
}

// appendFloatTextExp is AppendFloatText for any finite nonzero f: it places the point from the
// shortest digits' exponent.
func appendFloatTextExp(b []byte, f float64) []byte {
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // [-]d[.ddd]e±XX
	at := bytes.IndexByte(e, 'e')
	mant, exp := e[:at], e[at+1:]
	digits := len(mant)
	if mant[0] == '-' {
		digits--
	}
	if digits > 1 {
		digits-- // the point
	}
	x, _ := strconv.Atoi(string(exp))
	// my_gcvt's decpt: the digits are 0.ddd × 10^decpt.
	if decpt := x + 1; decpt > -maxDecptForF && (decpt <= maxDecptForF || digits > decpt) {
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	b = append(b, mant...)
	b = append(b, 'e')
	if exp[0] == '-' {
		b = append(b, '-')
	}
	exp = bytes.TrimLeft(exp[1:], "0")
	return append(b, exp...)
}

// ToFloat reads a value as a number, as MySQL does in a numeric context: text by its longest
// numeric prefix (" 12abc" is 12, "abc" is 0), a date as YYYYMMDD, a datetime as YYYYMMDDhhmmss.
// It reports false for NULL.
func ToFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	case bool:
		return float64(BoolInt(v)), true
	case string:
		return NumericPrefix(v), true
	case time.Time:
		v = v.UTC()
		d := float64(v.Year()*10000 + int(v.Month())*100 + v.Day())
		if v.Hour() == 0 && v.Minute() == 0 && v.Second() == 0 && v.Nanosecond() == 0 {
			return d, true
		}
		return d*1e6 + float64(v.Hour()*10000+v.Minute()*100+v.Second()) + float64(v.Nanosecond())/1e9, true
	}
	return 0, false
}

// ToInt reads a value as an integer argument (a length, a position, a count of digits): numbers
// round half away from zero, as MySQL does for such arguments; out-of-range values saturate.
func ToInt(v any) int64 {
	switch v := v.(type) {
	case int64:
		return v
	case bool:
		return BoolInt(v)
	case string:
		v = strings.TrimSpace(v)
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
	}
	f, _ := ToFloat(v)
	return Saturate(math.Round(f))
}

// Saturate converts a float to int64, clamping to the int64 range.
func Saturate(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// NumericPrefix is MySQL's reading of text as a number: leading spaces, then the longest prefix
// that is a decimal number (sign, digits, point, exponent); 0 when there is none.
func NumericPrefix(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\r")
	end, digits := 0, false
	if end < len(s) && (s[end] == '+' || s[end] == '-') {
		end++
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end, digits = end+1, true
	}
	if end < len(s) && s[end] == '.' {
		end++
		for end < len(s) && s[end] >= '0' && s[end] <= '9' {
			end, digits = end+1, true
		}
	}
	if !digits {
		return 0
	}
	if end < len(s) && (s[end] == 'e' || s[end] == 'E') {
		k := end + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			end = k
		}
	}
	f, err := strconv.ParseFloat(s[:end], 64)
	if err != nil { // out of range: ParseFloat gives ±Inf
		if math.IsInf(f, 0) {
			return math.Copysign(math.MaxFloat64, f)
		}
		return 0
	}
	return f
}

// BoolInt is a BOOL as MySQL's number: 1 or 0.
func BoolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
