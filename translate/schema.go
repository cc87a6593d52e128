package translate

import (
	"database/sql"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/airsql/airsql/frontend"
)

// Field is one Airtable field as the translator sees it: the metadata API's id, name, type and options.
type Field struct {
	ID, Name, Type string
	Options        map[string]any
	Description    string // the field's description: information_schema's COLUMN_COMMENT
}

// Table is one Airtable table: its fields in schema order and its views.
type Table struct {
	ID, Name, PrimaryFieldID string
	Description              string // the table's description: information_schema's TABLE_COMMENT
	// Database is the base (app… id) that holds the table: the driver sends the table's requests
	// to that base. "" for an in-memory table.
	Database string
	Fields   []Field
	Views    []View
	// Local: an in-memory table (information_schema) that no request reads; nothing is pushed
	// into a request and every condition is checked locally.
	Local bool
	// Derived: a derived table (FROM (SELECT …) AS d, a WITH query, a UNION's rows): Local, its
	// rows are this query's (Row.Values = its columns), and its columns are Derived.Columns.
	Derived *Query
	// JSONTable: a JSON_TABLE of FROM (jsontable.go): Local, its rows made from its document
	// (Row.Values = its columns).
	JSONTable *JSONTable
}

// View is one view of a table, reachable with FROM t USE INDEX (`view`).
type View struct{ ID, Name string }

// Schema finds a table by name or by tbl… id.
type Schema interface {
	Table(nameOrID string) (*Table, bool)
}

// Args holds the bound values of the statement's placeholders: ? (Positional, in order) and :name
// (Named, without the colon). Now is the value of SQL NOW() for the statement (the driver passes its
// connector's clock); zero means time.Now() at translation. Session is the connection's session
// (DATABASE(), @@variables); nil answers as a new session with no database.
type Args struct {
	Positional []any
	Named      map[string]any
	Now        time.Time
	Session    *Session

	// LocalOnly is for differential tests: nothing is pushed (no formula, sort, maxRecords or
	// fetch by id), every record of the table is listed and Keep, SortRows and the Limit decide
	// everything locally. Pushdown must never change a result; the oracle test (internal/oracle)
	// runs each query both ways and against MariaDB.
	LocalOnly bool

	// Labels name the output columns of the statement's own select list as MySQL does
	// (frontend.Select.Labels: an alias as written, a column by its bare name, an expression by
	// its text), by select expression; an expression without one keeps the planner's name.
	// Only names change: an ORDER BY or HAVING still resolves against the aliases as parsed.
	Labels frontend.Labels
}

// scanType is what a column scans into: the plain Go type when it is never NULL, else its sql.Null form.
func scanType(t sqlType, nullable bool) reflect.Type {
	if !nullable {
		switch t {
		case typeInt, typeCond:
			return reflect.TypeFor[int64]()
		case typeFloat:
			return reflect.TypeFor[float64]()
		case typeBool:
			return reflect.TypeFor[bool]()
		case typeDate, typeDateTime:
			return reflect.TypeFor[time.Time]()
		default:
			return reflect.TypeFor[string]()
		}
	}
	switch t {
	case typeInt, typeCond:
		return reflect.TypeFor[sql.NullInt64]()
	case typeFloat:
		return reflect.TypeFor[sql.NullFloat64]()
	case typeBool:
		return reflect.TypeFor[sql.NullBool]()
	case typeDate, typeDateTime:
		return reflect.TypeFor[sql.NullTime]()
	default:
		return reflect.TypeFor[sql.NullString]()
	}
}

// fieldInfo is what the translator knows about a field's values.
type fieldInfo struct {
	typ sqlType
	// nullable: the cell can be absent (NULL). Checkbox (false when absent), autoNumber, count and
	// createdTime are never NULL.
	nullable bool
	// computed: formula or rollup. Their cells can hold {"error":…} or {"specialValue":"NaN"}, which
	// read as NULL here but not in a formula, so predicates on them are never claimed exact.
	computed bool
	// sortable: the service orders non-blank values of this field the way SQL does (numbers and
	// times). Text is not: Airtable's order for text is not code-point order. Nor are formula and
	// rollup results, which can hold NaN, Infinity and errors.
	sortable bool
	// writable: the API accepts values for it.
	writable bool
}

// fieldInfoOf maps an Airtable field type (and its options) to its SQL view. The table is in the
// package doc.
func fieldInfoOf(f *Field) fieldInfo {
	return infoForType(f.Type, f.Options, 0)
}

func infoForType(typ string, opts map[string]any, depth int) fieldInfo {
	switch typ {
	case "singleLineText", "multilineText", "email", "url", "phoneNumber", "richText", "singleSelect":
		return fieldInfo{typ: typeText, nullable: true, writable: true}
	case "externalSyncSource":
		return fieldInfo{typ: typeText, nullable: true}
	case "number", "currency":
		if precision, ok := numberOption(opts, "precision"); ok && precision == 0 {
			return fieldInfo{typ: typeInt, nullable: true, sortable: true, writable: true}
		}
		return fieldInfo{typ: typeFloat, nullable: true, sortable: true, writable: true}
	case "percent":
		return fieldInfo{typ: typeFloat, nullable: true, sortable: true, writable: true}
	case "duration":
		// Seconds; whole seconds unless the format shows fractions (h:mm:ss.S and finer).
		if format, _ := opts["durationFormat"].(string); strings.Contains(format, ".") {
			return fieldInfo{typ: typeFloat, nullable: true, sortable: true, writable: true}
		}
		return fieldInfo{typ: typeInt, nullable: true, sortable: true, writable: true}
	case "rating":
		return fieldInfo{typ: typeInt, nullable: true, sortable: true, writable: true}
	case "autoNumber", "count":
		return fieldInfo{typ: typeInt, sortable: true}
	case "checkbox":
		return fieldInfo{typ: typeBool, writable: true}
	case "date":
		return fieldInfo{typ: typeDate, nullable: true, sortable: true, writable: true}
	case "dateTime":
		return fieldInfo{typ: typeDateTime, nullable: true, sortable: true, writable: true}
	case "createdTime", "lastModifiedTime":
		info := fieldInfo{typ: typeDateTime, nullable: typ == "lastModifiedTime", sortable: true}
		if result, _ := opts["result"].(map[string]any); result != nil && result["type"] == "date" {
			info.typ = typeDate
		}
		return info
	case "formula", "rollup":
		result, _ := opts["result"].(map[string]any)
		if result == nil || depth > 0 {
			return fieldInfo{typ: typeText, nullable: true, computed: true}
		}
		rtype, _ := result["type"].(string)
		ropts, _ := result["options"].(map[string]any)
		info := infoForType(rtype, ropts, depth+1)
		if info.typ == typeBool {
			// A formula's false reads as absent, like a checkbox.
			info.nullable = false
		} else {
			info.nullable = true
		}
		info.computed, info.writable = true, false
		// A computed number can be NaN, Infinity or an error: NULL in SQL, but the service sorts
		// them somewhere among the numbers (where is not documented), and an order that is not
		// total can leave even the finite values out of order. The rows are sorted locally.
		info.sortable = false
		return info
	case "multipleSelects", "multipleRecordLinks", "multipleCollaborators", "singleCollaborator",
		"multipleAttachments", "barcode":
		return fieldInfo{typ: typeJSON, nullable: true, writable: true}
	case "multipleLookupValues", "createdBy", "lastModifiedBy", "button", "aiText":
		return fieldInfo{typ: typeJSON, nullable: true}
	default:
		// A type this package does not know (Airtable adds types): strings as they are, anything else
		// as JSON text.
		return fieldInfo{typ: typeText, nullable: true}
	}
}

func numberOption(opts map[string]any, key string) (float64, bool) {
	switch v := opts[key].(type) {
	case float64:
		return v, true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	}
	return 0, false
}

// cellValue converts a cell in the API's JSON form into the SQL value of a column of type typ:
// nil (NULL), string, int64, float64, bool or time.Time. Formula errors and NaN read as NULL.
func cellValue(info fieldInfo, cell any) any {
	if cell == nil {
		if info.typ == typeBool {
			return false
		}
		return nil
	}
	if m, ok := cell.(map[string]any); ok && info.typ != typeJSON {
		_, isErr := m["error"]
		_, isSpecial := m["specialValue"]
		if isErr || isSpecial {
			if info.typ == typeBool {
				return false // a boolean column is never NULL
			}
			return nil
		}
	}
	switch info.typ {
	case typeText:
		if _, ok := cell.(string); ok {
			return cell // as it is: a string taken out and boxed again would allocate per read
		}
		return jsonText(cell)
	case typeInt, typeFloat:
		if f, ok := cell.(float64); ok && info.typ == typeFloat && !math.IsNaN(f) {
			return cell // likewise (NaN reads NULL, below)
		}
		f, ok := cellNumber(cell)
		if !ok {
			return nil
		}
		if info.typ == typeInt && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			return int64(f)
		}
		return f
	case typeBool:
		switch v := cell.(type) {
		case bool:
			return v
		case float64:
			return v != 0
		case json.Number:
			return v.String() != "0"
		}
		return true
	case typeDate, typeDateTime:
		s, ok := cell.(string)
		if !ok {
			return nil
		}
		t, ok := parseTime(s)
		if !ok {
			return nil
		}
		if info.typ == typeDate {
			return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		}
		return t
	default:
		return jsonText(cell)
	}
}

func cellNumber(cell any) (float64, bool) {
	switch v := cell.(type) {
	case float64:
		return v, !math.IsNaN(v)
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	}
	return 0, false
}

// jsonText renders a cell as compact JSON text.
func jsonText(cell any) string {
	if ids, ok := cell.([]any); ok && ids != nil { // a nil list is null
		if text, ok := plainStringsJSON(ids); ok {
			return text
		}
	}
	b, err := json.Marshal(cell)
	if err != nil {
		return ""
	}
	return string(b)
}

// plainStringsJSON is json.Marshal's text of a list of strings made of ASCII letters and digits
// only (a link's record ids), which need no escaping, written in one allocation: COUNT(DISTINCT
// link) reads one per row. ok is false for any other list.
func plainStringsJSON(list []any) (string, bool) {
	n := 2
	for _, x := range list {
		s, ok := x.(string)
		if !ok {
			return "", false
		}
		for i := 0; i < len(s); i++ {
			if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
				return "", false
			}
		}
		n += len(s) + 3
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteByte('[')
	for i, x := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(x.(string))
		b.WriteByte('"')
	}
	b.WriteByte(']')
	return b.String(), true
}

// timeLayouts are the date and time forms accepted in cells and in SQL text compared with dates.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.000Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	"2006-01-02",
}

// parseTime reads an ISO 8601 date or date-time; without a zone it is UTC.
func parseTime(s string) (time.Time, bool) {
	// Date cells are the common case after RFC 3339: try their layout first instead of failing
	// (and allocating an error) through every longer layout.
	if len(s) == len(time.DateOnly) {
		t, err := time.Parse(time.DateOnly, s)
		return t, err == nil
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
