package sqlvalue

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Truth is a non-NULL value as a condition: numbers are true when non-zero.
func Truth(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case int64:
		return v != 0
	case float64:
		return v != 0
	case string:
		return NumericPrefix(v) != 0 // MySQL: '1abc' is true, 'abc' false
	}
	return true
}

func CompareHolds(op string, c int) bool {
	switch op {
	case "=":
		return c == 0
	case "<>":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}

// valueClass orders values of different kinds, as SQLite does: numbers before text; times (which
// SQLite would hold as text) after both.
func valueClass(v any) int {
	switch v.(type) {
	case int64, float64, bool:
		return 0
	case string:
		return 1
	case time.Time:
		return 2
	}
	return 3
}

// Compare compares two non-NULL values: numbers numerically, text by code point (byte order of
// UTF-8), times chronologically.
func Compare(a, b any) int {
	ca, cb := valueClass(a), valueClass(b)
	if ca != cb {
		return cmp.Compare(ca, cb)
	}
	switch ca {
	case 0:
		ia, aInt := IntOf(a)
		ib, bInt := IntOf(b)
		if aInt && bInt {
			return cmp.Compare(ia, ib)
		}
		return cmp.Compare(FloatOf(a), FloatOf(b))
	case 1:
		return strings.Compare(a.(string), b.(string))
	case 2:
		return a.(time.Time).Compare(b.(time.Time))
	}
	return 0
}

func IntOf(v any) (int64, bool) {
	switch v := v.(type) {
	case int64:
		return v, true
	case bool:
		return BoolInt(v), true
	}
	return 0, false
}

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

// Arith is MySQL arithmetic: integers stay integers (falling back to float on overflow), / is real
// division, DIV integer division; division or modulo by zero is NULL.
func Arith(op string, a, b any) any {
	ia, aInt := IntOf(a)
	ib, bInt := IntOf(b)
	if aInt && bInt {
		switch op {
		case "+":
			if s := ia + ib; (s > ia) == (ib > 0) {
				return s
			}
		case "-":
			if d := ia - ib; (d < ia) == (ib > 0) {
				return d
			}
		case "*":
			if ia == 0 || ib == 0 {
				return int64(0)
			}
			if p := ia * ib; p/ib == ia && !(ia == -1 && ib == math.MinInt64) && !(ib == -1 && ia == math.MinInt64) {
				return p
			}
		case "div":
			if ib == 0 {
				return nil
			}
			if !(ia == math.MinInt64 && ib == -1) {
				return ia / ib
			}
		case "%":
			if ib == 0 {
				return nil
			}
			if ib == -1 {
				return int64(0)
			}
			return ia % ib
		}
	}
	fa, fb := FloatOf(a), FloatOf(b)
	switch op {
	case "+":
		return fa + fb
	case "-":
		return fa - fb
	case "*":
		return fa * fb
	case "/":
		if fb == 0 {
			return nil
		}
		return fa / fb
	case "div":
		if fb == 0 {
			return nil
		}
		q := math.Trunc(fa / fb)
		if math.Abs(q) < 1<<63 {
			return int64(q)
		}
		return q
	case "%":
		if fb == 0 {
			return nil
		}
		return math.Mod(fa, fb)
	}
	return nil
}

// substring is MySQL SUBSTRING(s, pos[, len]) on characters: pos counts from 1, or from the end when
// negative; pos 0 gives "".
func substring(s string, args []any) string {
	runes := []rune(s)
	pos, ok := IntOf(args[0])
	if !ok {
		pos = int64(math.Round(FloatOf(args[0])))
	}
	n := int64(len(runes))
	var start int64
	switch {
	case pos > 0:
		start = pos - 1
	case pos < 0:
		start = n + pos
		if start < 0 {
			return ""
		}
	default:
		return ""
	}
	if start >= n {
		return ""
	}
	end := n
	if len(args) > 1 {
		count, ok := IntOf(args[1])
		if !ok {
			count = int64(math.Round(FloatOf(args[1])))
		}
		if count <= 0 {
			return ""
		}
		if start+count < end {
			end = start + count
		}
	}
	return string(runes[start:end])
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
// round half away from zero, as MySQL does for such arguments; out-of-range values Saturate.
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

// AppendKey appends to buf an encoding of the non-NULL or NULL value v such that two values have the
// same encoding exactly when SQL takes them as equal in GROUP BY and DISTINCT: NULL equals NULL,
// numbers compare numerically (1, 1.0 and TRUE are one key), text by code point, times by instant.
func AppendKey(buf []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(buf, 0)
	case bool:
		return appendIntKey(buf, BoolInt(x))
	case int64:
		return appendIntKey(buf, x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
			return appendIntKey(buf, int64(x))
		}
		if x == 0 {
			x = 0 // -0 is 0
		}
		buf = append(buf, 2)
		return binary.BigEndian.AppendUint64(buf, math.Float64bits(x))
	case string:
		buf = append(buf, 3)
		buf = binary.AppendUvarint(buf, uint64(len(x)))
		return append(buf, x...)
	case time.Time:
		buf = append(buf, 4)
		buf = binary.BigEndian.AppendUint64(buf, uint64(x.Unix()))
		return binary.BigEndian.AppendUint32(buf, uint32(x.Nanosecond()))
	}
	s := fmt.Sprint(v)
	buf = append(buf, 5)
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

func appendIntKey(buf []byte, n int64) []byte {
	buf = append(buf, 1)
	return binary.BigEndian.AppendUint64(buf, uint64(n))
}

// CompareSQL orders two values as ORDER BY does, ascending: NULL first, then Compare (numbers
// numerically, text by code point, times chronologically).
func CompareSQL(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return Compare(a, b)
}

// CompareNames orders two non-NULL values of a case-insensitive column of names as MySQL 8's data
// dictionary does (utf8mb3_tolower_ci): by their lower-case text, so that ORDER BY COLUMN_NAME puts
// createdTime before Done.
func CompareNames(a, b any) int {
	sa, okA := a.(string)
	sb, okB := b.(string)
	if !okA || !okB {
		return Compare(a, b)
	}
	return strings.Compare(strings.ToLower(sa), strings.ToLower(sb))
}

func BoolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
