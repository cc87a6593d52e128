package mysqlserver

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"

	"github.com/airsql/airsql/sqlvalue"
)

// The result set is written here rather than through the library's mysql.Resultset (which holds
// every row in memory) or its StreamResult (whose binary rows encode every integer in 8 bytes
// and every time as DATETIME whatever the column's type, length-prefix only VAR_STRING values,
// and which cannot mark a result as followed by another one of a multi-statement query).

// Character sets of column definitions.
const (
	collationUTF8MB4Bin = 46 // utf8mb4_bin: text compares by code point, as the driver does
	collationBinary     = 63 // numbers, dates
)

// column is one result column: its MySQL definition and how its values are encoded.
type column struct {
	name  string
	field *mysql.Field
}

// columnFor maps the driver's column type (translate.Column.DatabaseType) to a MySQL column
// definition. A type this table does not know (a newer driver's) is sent as VAR_STRING with
// each value's text.
func columnFor(table, name, dbType string, nullable bool) column {
	f := &mysql.Field{Name: []byte(name), OrgName: []byte(name), Table: []byte(table), OrgTable: []byte(table)}
	switch dbType {
	case "INT64", "BIGINT", "INT":
		f.Type, f.Charset, f.ColumnLength, f.Flag = mysql.MYSQL_TYPE_LONGLONG, collationBinary, 20, mysql.NUM_FLAG|mysql.BINARY_FLAG
	case "FLOAT64", "DOUBLE":
		f.Type, f.Charset, f.ColumnLength, f.Flag, f.Decimal = mysql.MYSQL_TYPE_DOUBLE, collationBinary, 22, mysql.NUM_FLAG|mysql.BINARY_FLAG, 31
	case "BOOL":
		f.Type, f.Charset, f.ColumnLength, f.Flag = mysql.MYSQL_TYPE_TINY, collationBinary, 1, mysql.NUM_FLAG|mysql.BINARY_FLAG
	case "DATE":
		f.Type, f.Charset, f.ColumnLength, f.Flag = mysql.MYSQL_TYPE_DATE, collationBinary, 10, mysql.BINARY_FLAG
	case "DATETIME":
		// Airtable keeps milliseconds.
		f.Type, f.Charset, f.ColumnLength, f.Flag, f.Decimal = mysql.MYSQL_TYPE_DATETIME, collationBinary, 23, mysql.BINARY_FLAG, 3
	case "JSON":
		f.Type, f.Charset, f.ColumnLength, f.Flag = mysql.MYSQL_TYPE_JSON, collationUTF8MB4Bin, math.MaxUint32, mysql.BLOB_FLAG
	default: // TEXT and anything newer
		f.Type, f.Charset, f.ColumnLength = mysql.MYSQL_TYPE_VAR_STRING, collationUTF8MB4Bin, 4*65535
	}
	if !nullable {
		f.Flag |= mysql.NOT_NULL_FLAG
	}
	return column{name: name, field: f}
}

// columnsOf describes the columns of a driver result.
func columnsOf(rows *sql.Rows) ([]column, error) {
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	cols := make([]column, len(types))
	for i, t := range types {
		nullable, ok := t.Nullable()
		cols[i] = columnFor("", t.Name(), t.DatabaseTypeName(), nullable || !ok)
	}
	return cols, nil
}

// appendText appends a value in the text protocol: NULL as 0xfb, everything else as a
// length-encoded string in MySQL's own text form.
func appendText(b []byte, col *column, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, 0xfb), nil
	case string:
		return append(appendLenEnc(b, uint64(len(x))), x...), nil
	case []byte:
		return append(appendLenEnc(b, uint64(len(x))), x...), nil
	}
	var scratch [64]byte
	text, err := appendTextValue(scratch[:0], col, v)
	if err != nil {
		return nil, err
	}
	return append(appendLenEnc(b, uint64(len(text))), text...), nil
}

// appendLenEnc appends a length-encoded integer.
func appendLenEnc(b []byte, n uint64) []byte {
	switch {
	case n < 251:
		return append(b, byte(n))
	case n < 1<<16:
		return append(b, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), n)
}

func appendTextValue(b []byte, col *column, v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		return append(b, x...), nil
	case []byte:
		return append(b, x...), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case float64:
		return sqlvalue.AppendFloatText(b, x), nil
	case float32:
		return sqlvalue.AppendFloatText(b, float64(x)), nil
	case bool:
		if x {
			return append(b, '1'), nil
		}
		return append(b, '0'), nil
	case time.Time:
		return appendTimeText(b, x, col.field.Type == mysql.MYSQL_TYPE_DATE), nil
	}
	return fmt.Appendf(b, "%v", v), nil
}

// appendTimeText writes a DATE as 2006-01-02 and a DATETIME as 2006-01-02 15:04:05.000, digit by
// digit: time.AppendFormat reads its layout again for every value, a third of a text row's time
// where a row holds dates. Years outside 0–9999 (no MySQL value) are written as Go writes them.
func appendTimeText(b []byte, t time.Time, dateOnly bool) []byte {
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		if dateOnly {
			return t.AppendFormat(b, time.DateOnly)
		}
		return t.AppendFormat(b, "2006-01-02 15:04:05.000")
	}
	b = appendDigits(b, y, 4)
	b = appendDigits(append(b, '-'), int(mo), 2)
	b = appendDigits(append(b, '-'), d, 2)
	if dateOnly {
		return b
	}
	h, mi, sec := t.Clock()
	b = appendDigits(append(b, ' '), h, 2)
	b = appendDigits(append(b, ':'), mi, 2)
	b = appendDigits(append(b, ':'), sec, 2)
	return appendDigits(append(b, '.'), t.Nanosecond()/1e6, 3)
}

// appendDigits writes n (≥ 0) in width digits, zeros in front.
func appendDigits(b []byte, n, width int) []byte {
	var buf [4]byte
	for i := width - 1; i >= 0; i-- {
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, buf[:width]...)
}

// appendBinaryRow appends a row in the binary protocol (the answer to COM_STMT_EXECUTE): a 0x00
// header, the NULL bitmap (offset 2), then each non-NULL value in its column type's encoding.
func appendBinaryRow(b []byte, cols []column, vals []any) ([]byte, error) {
	b = append(b, 0)
	bitmap := len(b)
	for range (len(cols) + 7 + 2) / 8 {
		b = append(b, 0)
	}
	for i, v := range vals {
		if v == nil {
			b[bitmap+(i+2)/8] |= 1 << ((i + 2) % 8)
			continue
		}
		var err error
		if b, err = appendBinaryValue(b, &cols[i], v); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func appendBinaryValue(b []byte, col *column, v any) ([]byte, error) {
	switch col.field.Type {
	case mysql.MYSQL_TYPE_LONGLONG:
		n, ok := asInt64(v)
		if !ok {
			return nil, typeMismatch(col, v)
		}
		return binary.LittleEndian.AppendUint64(b, uint64(n)), nil
	case mysql.MYSQL_TYPE_DOUBLE:
		f, ok := asFloat64(v)
		if !ok {
			return nil, typeMismatch(col, v)
		}
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(f)), nil
	case mysql.MYSQL_TYPE_TINY:
		switch x := v.(type) {
		case bool:
			if x {
				return append(b, 1), nil
			}
			return append(b, 0), nil
		case int64:
			if x >= math.MinInt8 && x <= math.MaxInt8 {
				return append(b, byte(int8(x))), nil
			}
		}
		return nil, typeMismatch(col, v)
	case mysql.MYSQL_TYPE_DATE, mysql.MYSQL_TYPE_DATETIME:
		t, ok := v.(time.Time)
		if !ok {
			return nil, typeMismatch(col, v)
		}
		return appendBinaryTime(b, t, col.field.Type == mysql.MYSQL_TYPE_DATE), nil
	}
	// VAR_STRING, JSON: a length-encoded string of the value's text.
	return appendText(b, col, v)
}

// appendBinaryTime encodes a DATE or DATETIME: a length byte (0, 4, 7 or 11) and the parts.
func appendBinaryTime(b []byte, t time.Time, dateOnly bool) []byte {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	us := t.Nanosecond() / 1000
	n := byte(11)
	switch {
	case dateOnly || (h == 0 && mi == 0 && s == 0 && us == 0):
		n = 4
	case us == 0:
		n = 7
	}
	b = append(b, n)
	b = binary.LittleEndian.AppendUint16(b, uint16(y))
	b = append(b, byte(mo), byte(d))
	if n == 4 {
		return b
	}
	b = append(b, byte(h), byte(mi), byte(s))
	if n == 7 {
		return b
	}
	return binary.LittleEndian.AppendUint32(b, uint32(us))
}

func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt64 && x < math.MaxInt64 {
			return int64(x), true
		}
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func asFloat64(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}

func typeMismatch(col *column, v any) error {
	return fmt.Errorf("airsql serve: column %q is declared %s by the driver but a row holds a %T (%v): this is a driver bug, please report it",
		col.name, typeName(col.field.Type), v, v)
}

func typeName(t uint8) string {
	switch t {
	case mysql.MYSQL_TYPE_LONGLONG:
		return "BIGINT"
	case mysql.MYSQL_TYPE_DOUBLE:
		return "DOUBLE"
	case mysql.MYSQL_TYPE_TINY:
		return "TINYINT(1)"
	case mysql.MYSQL_TYPE_DATE:
		return "DATE"
	case mysql.MYSQL_TYPE_DATETIME:
		return "DATETIME"
	case mysql.MYSQL_TYPE_JSON:
		return "JSON"
	}
	return "VARCHAR"
}
