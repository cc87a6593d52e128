package formula

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
)

// Kind is the type of a formula value.
type Kind uint8

// The kinds of formula values. NaN is a KindNumber whose number is NaN.
const (
	KindBlank    Kind = iota // an empty cell or BLANK(): equals both 0 and ""
	KindNumber               // float64, NaN and the infinities included
	KindText                 // string
	KindBool                 // TRUE(), FALSE(), comparisons, checkboxes; numerically 1 and 0
	KindDate                 // a date without time of day (a date field); midnight UTC
	KindDateTime             // an instant
	KindArray                // lookups, rollups, links, multiple selects, attachments
	KindError                // #ERROR!
)

var kindNames = [...]string{"blank", "number", "text", "bool", "date", "dateTime", "array", "error"}

// String returns the kind's name: blank, number, text, bool, date, dateTime, array or error.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is a formula value. It is a small struct passed by value, so that scalars never allocate.
// The zero Value is blank.
type Value struct {
	kind Kind
	// zoned marks a date/time whose zone was set by SET_TIMEZONE: date functions then use t's zone
	// instead of Env.Location.
	zoned bool
	num   float64 // number, bool (1 or 0)
	str   string  // text; error reason
	t     time.Time
	arr   []Value
}

// Blank returns the blank value.
func Blank() Value { return Value{} }

// Number returns a number value.
func Number(f float64) Value { return Value{kind: KindNumber, num: f} }

// Text returns a text value.
func Text(s string) Value { return Value{kind: KindText, str: s} }

// Bool returns a boolean value.
func Bool(b bool) Value {
	if b {
		return Value{kind: KindBool, num: 1}
	}
	return Value{kind: KindBool}
}

// Date returns a date value (no time of day): t's calendar day, as midnight UTC.
func Date(t time.Time) Value {
	y, m, d := t.Date()
	return Value{kind: KindDate, t: time.Date(y, m, d, 0, 0, 0, 0, time.UTC)}
}

// DateTime returns a date-time value.
func DateTime(t time.Time) Value { return Value{kind: KindDateTime, t: t} }

// Array returns an array value holding elems (not copied).
func Array(elems []Value) Value { return Value{kind: KindArray, arr: elems} }

// ErrorValue returns #ERROR!; reason says why, for debugging (String shows it, Cell does not).
func ErrorValue(reason string) Value { return Value{kind: KindError, str: reason} }

// Kind returns the value's kind.
func (v Value) Kind() Kind { return v.kind }

// IsNaN reports whether v is the number NaN.
func (v Value) IsNaN() bool { return v.kind == KindNumber && math.IsNaN(v.num) }

// Num returns the number of a number or bool value, 0 for blank, and NaN otherwise.
func (v Value) Num() float64 {
	switch v.kind {
	case KindNumber, KindBool, KindBlank:
		return v.num
	}
	return math.NaN()
}

// Str returns the text of a text value, the reason of an error, and "" otherwise (TextOf converts
// any value to text).
func (v Value) Str() string {
	if v.kind == KindText || v.kind == KindError {
		return v.str
	}
	return ""
}

// Time returns the time of a date or date-time value.
func (v Value) Time() (time.Time, bool) {
	return v.t, v.kind == KindDate || v.kind == KindDateTime
}

// Elems returns the elements of an array value.
func (v Value) Elems() []Value { return v.arr }

// Truthy reports whether v counts as true in IF, AND, OR, NOT and filterByFormula: everything
// except blank, 0, false, "", NaN, [] and #ERROR!.
func (v Value) Truthy() bool {
	switch v.kind {
	case KindNumber, KindBool:
		return v.num != 0 && !math.IsNaN(v.num)
	case KindText:
		return v.str != ""
	case KindDate, KindDateTime:
		return true
	case KindArray:
		return len(v.arr) > 0
	}
	return false
}

// String returns the value as formula text would show it (TextOf), errors with their reason.
func (v Value) String() string {
	if v.kind == KindError {
		if v.str != "" {
			return "#ERROR! (" + v.str + ")"
		}
		return "#ERROR!"
	}
	return TextOf(v)
}

// TextOf converts v to text as the & operator does: numbers in the shortest form that reads back
// (JavaScript's rules), booleans as 1 and 0, dates as YYYY-MM-DD, date-times as ISO 8601 in UTC
// with milliseconds, arrays as their elements joined by ", ", blank as "", errors as #ERROR!.
func TextOf(v Value) string {
	switch v.kind {
	case KindText:
		return v.str
	case KindNumber:
		return jsNumber(v.num)
	case KindBool:
		if v.num != 0 {
			return "1"
		}
		return "0"
	case KindDate:
		return v.t.Format("2006-01-02")
	case KindDateTime:
		if v.zoned {
			return v.t.Format(isoMillis)
		}
		return v.t.UTC().Format(isoMillis)
	case KindArray:
		parts := make([]string, len(v.arr))
		for i, e := range v.arr {
			parts[i] = TextOf(e)
		}
		return strings.Join(parts, ", ")
	case KindError:
		return "#ERROR!"
	}
	return ""
}

// jsNumber formats f as JavaScript's Number.prototype.toString does.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	if a := math.Abs(f); a >= 1e21 || a < 1e-6 {
		// Go writes 1.5e-07; JavaScript 1.5e-7 and 1e+21.
		s := strconv.FormatFloat(f, 'e', -1, 64)
		i := strings.IndexByte(s, 'e') + 2 // after the exponent's sign
		return s[:i] + strings.TrimLeft(s[i:], "0")
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// FromCell converts a cell in the API's JSON form (float64 or json.Number, string, bool, []any,
// map[string]any; nil for an empty cell) to a formula operand, according to the field's type:
//
//   - text types, singleSelect, url, email, phone, richText: text
//   - number, currency, percent (a fraction), duration (seconds), rating, count, autoNumber: number
//   - checkbox: true, or false when empty
//   - date: a date; dateTime, createdTime, lastModifiedTime: a date-time (a date-only string: a date)
//   - multipleSelects: an array of texts (", "-joined in text contexts)
//   - collaborators: their names (else email, else id); attachments: "filename (url)";
//     barcode: its text; button: its label; aiText: its value
//   - multipleRecordLinks: the caller passes the linked records' primary-field cells as []any
//   - multipleLookupValues, rollup, formula: converted by options.result.type when the schema
//     gives it, else by the JSON type; {"error":"#ERROR!"} is an error, {"specialValue":"NaN"} NaN
//
// Any other empty cell is blank.
func FromCell(f FieldInfo, cell any) Value {
	return fromCell(f.Type, f.Options, cell)
}

func fromCell(typ string, options map[string]any, cell any) Value {
	// Fast paths for the common cells, which need no look at the options.
	switch c := cell.(type) {
	case float64:
		return Number(c)
	case string:
		switch typ {
		case "date", "dateTime", "createdTime", "lastModifiedTime", "formula", "rollup", "multipleLookupValues":
		default:
			return Text(c)
		}
	}
	if cell == nil {
		if typ == "checkbox" {
			return Bool(false)
		}
		return Value{}
	}
	switch typ {
	case "checkbox":
		if b, ok := cell.(bool); ok {
			return Bool(b)
		}
	case "date":
		if s, ok := cell.(string); ok {
			if t, ok := parseISO(s, time.UTC); ok {
				return Date(t)
			}
			return Text(s)
		}
	case "dateTime", "createdTime", "lastModifiedTime":
		if s, ok := cell.(string); ok {
			if len(s) == len("2006-01-02") {
				if t, ok := parseISO(s, time.UTC); ok {
					return Date(t)
				}
			}
			if t, ok := parseISO(s, time.UTC); ok {
				return DateTime(t)
			}
			return Text(s)
		}
	case "multipleLookupValues", "rollup", "formula":
		if rt, ropts := resultType(options); rt != "" {
			if arr, ok := cell.([]any); ok {
				elems := make([]Value, len(arr))
				for i, e := range arr {
					elems[i] = fromCell(rt, ropts, e)
				}
				return Array(elems)
			}
			return fromCell(rt, ropts, cell)
		}
	case "multipleRecordLinks", "multipleSelects", "multipleCollaborators", "multipleAttachments":
		if arr, ok := cell.([]any); ok {
			elems := make([]Value, len(arr))
			for i, e := range arr {
				elems[i] = fromCell("", nil, e)
			}
			return Array(elems)
		}
	}
	return fromJSON(cell)
}

// resultType returns the type and options of a computed field's result.
func resultType(options map[string]any) (string, map[string]any) {
	r, _ := options["result"].(map[string]any)
	if r == nil {
		return "", nil
	}
	typ, _ := r["type"].(string)
	opts, _ := r["options"].(map[string]any)
	return typ, opts
}

// fromJSON converts a cell by its JSON type alone.
func fromJSON(cell any) Value {
	switch c := cell.(type) {
	case nil:
		return Value{}
	case string:
		return Text(c)
	case float64:
		return Number(c)
	case json.Number:
		if f, err := c.Float64(); err == nil {
			return Number(f)
		}
		return Text(c.String())
	case int:
		return Number(float64(c))
	case int64:
		return Number(float64(c))
	case float32:
		return Number(float64(c))
	case bool:
		return Bool(c)
	case time.Time:
		return DateTime(c)
	case Value:
		return c
	case []any:
		elems := make([]Value, len(c))
		for i, e := range c {
			elems[i] = fromJSON(e)
		}
		return Array(elems)
	case []string:
		elems := make([]Value, len(c))
		for i, e := range c {
			elems[i] = Text(e)
		}
		return Array(elems)
	case map[string]any:
		if e, ok := c["error"]; ok {
			s, _ := e.(string)
			return ErrorValue(s)
		}
		if sv, ok := c["specialValue"].(string); ok {
			switch sv {
			case "NaN":
				return Number(math.NaN())
			case "Infinity":
				return Number(math.Inf(1))
			case "-Infinity":
				return Number(math.Inf(-1))
			}
		}
		if fn, ok := c["filename"].(string); ok { // attachment
			if u, ok := c["url"].(string); ok && u != "" {
				return Text(fn + " (" + u + ")")
			}
			return Text(fn)
		}
		for _, key := range [...]string{"name", "email", "text", "label", "value", "id"} {
			if s, ok := c[key].(string); ok {
				return Text(s)
			}
		}
		if v, ok := c["value"]; ok { // aiText with a non-string value
			return fromJSON(v)
		}
	}
	return ErrorValue("unsupported cell value")
}

// Cell converts v back to the API's JSON form, as a formula field returns it: a number as
// float64, text as string, true as true; false, blank, "" and [] as nil (the API leaves empty values
// out); a date as "YYYY-MM-DD", a date-time as ISO 8601 UTC with milliseconds; an array as []any;
// an error as {"error":"#ERROR!"}; NaN as {"specialValue":"NaN"} and the infinities as
// {"specialValue":"Infinity"} and {"specialValue":"-Infinity"}.
func (v Value) Cell() any {
	switch v.kind {
	case KindNumber:
		switch {
		case math.IsNaN(v.num):
			return map[string]any{"specialValue": "NaN"}
		case math.IsInf(v.num, 1):
			return map[string]any{"specialValue": "Infinity"}
		case math.IsInf(v.num, -1):
			return map[string]any{"specialValue": "-Infinity"}
		}
		return v.num
	case KindText:
		if v.str == "" {
			return nil
		}
		return v.str
	case KindBool:
		if v.num != 0 {
			return true
		}
		return nil
	case KindDate:
		return v.t.Format("2006-01-02")
	case KindDateTime:
		return v.t.UTC().Format("2006-01-02T15:04:05.000Z")
	case KindArray:
		if len(v.arr) == 0 {
			return nil
		}
		out := make([]any, len(v.arr))
		for i, e := range v.arr {
			out[i] = e.Cell()
		}
		return out
	case KindError:
		return map[string]any{"error": "#ERROR!"}
	}
	return nil
}
