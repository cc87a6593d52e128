package sqlvalue

import (
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
		return formatFloat(v)
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
// datetime is a datetime), any other mix is text, as in MySQL.
func Unify(types ...Type) Type {
	out := Null
	for _, t := range types {
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

// FloatText writes a float as MySQL writes a DOUBLE (my_gcvt): the shortest decimal that reads
// back, positional from 1e-15 up to 1e15 (1000000000000, 0.00000015), with an exponent beyond
// (1e15, 1e-16); -0 is 0. The MariaDB oracle holds it to these bounds.
func FloatText(f float64) string {
	if f == 0 {
		return "0"
	}
	if a := math.Abs(f); a >= 1e15 || a < 1e-15 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		s = strings.Replace(s, "e+", "e", 1)
		// MySQL writes 1e-07 as 1e-7 and 1e+21 as 1e21.
		if i := strings.Index(s, "e-0"); i >= 0 {
			s = s[:i+2] + s[i+3:]
		}
		if i := strings.Index(s, "e0"); i >= 0 {
			s = s[:i+1] + s[i+2:]
		}
		return s
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
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

// formatFloat is a float's shortest text.
func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
