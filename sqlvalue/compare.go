package sqlvalue

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"
)

// Comparison, as WHERE, joins, GROUP BY, DISTINCT and ORDER BY apply it: one implementation for
// the planner and the engine.

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

// CompareHolds reports whether a comparison op (= <> < <= > >=) holds of Compare's result c.
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
