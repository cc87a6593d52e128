package translate

import (
	"database/sql"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xwb1989/sqlparser"
)

// TestFieldTypes checks the SQL type of each Airtable field type and the Go value of its cells.
func TestFieldTypes(t *testing.T) {
	day := time.Date(2022, 9, 5, 0, 0, 0, 0, time.UTC)
	instant := time.Date(2022, 9, 5, 7, 0, 0, 0, time.UTC)
	tests := []struct {
		field    Field
		dbType   string
		nullable bool
		cell     any
		want     any
	}{
		{Field{Type: "singleLineText"}, "TEXT", true, "hi", "hi"},
		{Field{Type: "multilineText"}, "TEXT", true, "a\nb", "a\nb"},
		{Field{Type: "email"}, "TEXT", true, nil, nil},
		{Field{Type: "singleSelect"}, "TEXT", true, "Todo", "Todo"},
		{Field{Type: "number", Options: map[string]any{"precision": 0.0}}, "INT64", true, 42.0, int64(42)},
		{Field{Type: "number", Options: map[string]any{"precision": 0.0}}, "INT64", true, json.Number("7"), int64(7)},
		{Field{Type: "number", Options: map[string]any{"precision": 0.0}}, "INT64", true, 2.6, int64(3)}, // shown rounded
		{Field{Type: "number", Options: map[string]any{"precision": 2.0}}, "FLOAT64", true, 42.1, 42.1},
		{Field{Type: "number"}, "FLOAT64", true, nil, nil},
		{Field{Type: "currency", Options: map[string]any{"precision": 0.0}}, "INT64", true, 6.0, int64(6)},
		{Field{Type: "percent", Options: map[string]any{"precision": 0.0}}, "FLOAT64", true, 0.5, 0.5},
		{Field{Type: "duration", Options: map[string]any{"durationFormat": "h:mm"}}, "INT64", true, 4980.0, int64(4980)},
		{Field{Type: "duration", Options: map[string]any{"durationFormat": "h:mm:ss.S"}}, "FLOAT64", true, 1.5, 1.5},
		{Field{Type: "rating"}, "INT64", true, 4.0, int64(4)},
		{Field{Type: "autoNumber"}, "INT64", false, 9.0, int64(9)},
		{Field{Type: "count"}, "INT64", false, 0.0, int64(0)},
		{Field{Type: "checkbox"}, "BOOL", false, true, true},
		{Field{Type: "checkbox"}, "BOOL", false, nil, false},
		{Field{Type: "date"}, "DATE", true, "2022-09-05", day},
		{Field{Type: "dateTime"}, "DATETIME", true, "2022-09-05T07:00:00.000Z", instant},
		{Field{Type: "createdTime", Options: map[string]any{"result": map[string]any{"type": "dateTime"}}}, "DATETIME", false, "2022-09-05T07:00:00.000Z", instant},
		{Field{Type: "lastModifiedTime", Options: map[string]any{"result": map[string]any{"type": "date"}}}, "DATE", true, "2022-09-05", day},
		{Field{Type: "multipleSelects"}, "JSON", true, []any{"Red", "Green"}, `["Red","Green"]`},
		{Field{Type: "multipleRecordLinks"}, "JSON", true, []any{"recA"}, `["recA"]`},
		{Field{Type: "singleCollaborator"}, "JSON", true, map[string]any{"id": "usr1", "name": "B"}, `{"id":"usr1","name":"B"}`},
		{Field{Type: "multipleAttachments"}, "JSON", true, nil, nil},
		{Field{Type: "multipleLookupValues"}, "JSON", true, []any{1.0, 2.0}, `[1,2]`},
		{Field{Type: "barcode"}, "JSON", true, map[string]any{"text": "A1"}, `{"text":"A1"}`},
		{Field{Type: "formula", Options: map[string]any{"result": map[string]any{"type": "number", "options": map[string]any{"precision": 0.0}}}}, "INT64", true, 4.0, int64(4)},
		{Field{Type: "formula", Options: map[string]any{"result": map[string]any{"type": "number"}}}, "FLOAT64", true, map[string]any{"specialValue": "NaN"}, nil},
		{Field{Type: "formula", Options: map[string]any{"result": map[string]any{"type": "singleLineText"}}}, "TEXT", true, map[string]any{"error": "#ERROR!"}, nil},
		{Field{Type: "formula", Options: map[string]any{"result": map[string]any{"type": "checkbox"}}}, "BOOL", false, nil, false},
		{Field{Type: "rollup", Options: map[string]any{"result": map[string]any{"type": "number"}}}, "FLOAT64", true, 540.5, 540.5},
		{Field{Type: "formula"}, "TEXT", true, []any{"a", "b"}, `["a","b"]`}, // no result type known
		{Field{Type: "someFutureType"}, "TEXT", true, "x", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.field.Type+"/"+jsonOf(tt.cell), func(t *testing.T) {
			f := tt.field
			f.Name, f.ID = "F", "fldF0000000000000"
			table := &Table{Name: "T", Fields: []Field{f}}
			plan, err := selectPlan(parseSelect(t, "SELECT F FROM T"), testSchema{table}, Args{})
			if err != nil {
				t.Fatal(err)
			}
			col := plan.Columns[0]
			if col.DatabaseType != tt.dbType || col.Nullable != tt.nullable {
				t.Errorf("column %s nullable=%v, want %s nullable=%v", col.DatabaseType, col.Nullable, tt.dbType, tt.nullable)
			}
			dest := make([]any, 1)
			fields := map[string]any{}
			if tt.cell != nil {
				fields["F"] = tt.cell
			}
			if err := plan.Values(Row{Fields: fields}, dest); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(dest[0], tt.want) {
				t.Errorf("value %#v, want %#v", dest[0], tt.want)
			}
			if dest[0] != nil && !tt.nullable && reflect.TypeOf(dest[0]) != col.ScanType {
				t.Errorf("value type %T, scan type %v", dest[0], col.ScanType)
			}
		})
	}
}

func TestScanTypes(t *testing.T) {
	tests := []struct {
		typ      sqlType
		nullable bool
		want     reflect.Type
	}{
		{typeInt, true, reflect.TypeFor[sql.NullInt64]()},
		{typeInt, false, reflect.TypeFor[int64]()},
		{typeFloat, true, reflect.TypeFor[sql.NullFloat64]()},
		{typeBool, false, reflect.TypeFor[bool]()},
		{typeCond, false, reflect.TypeFor[int64]()},
		{typeCond, true, reflect.TypeFor[sql.NullInt64]()},
		{typeDate, true, reflect.TypeFor[sql.NullTime]()},
		{typeDateTime, false, reflect.TypeFor[time.Time]()},
		{typeJSON, true, reflect.TypeFor[sql.NullString]()},
		{typeText, false, reflect.TypeFor[string]()},
	}
	for _, tt := range tests {
		if got := scanType(tt.typ, tt.nullable); got != tt.want {
			t.Errorf("scanType(%s, %v) = %v, want %v", tt.typ, tt.nullable, got, tt.want)
		}
	}
}

// TestValuesExpressions checks output expressions, id and createdTime.
func TestValuesExpressions(t *testing.T) {
	schema := loadSchema(t)
	created := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	row := Row{ID: "recAAAAAAAAAAAAAA", CreatedTime: created, Fields: map[string]any{
		"Name": "Ünïcode", "Priority": 7.0, "Estimate": 2.5, "Due": "2024-02-29", "Notes": "  pad  ",
	}}
	sql := "SELECT id, createdTime, RECORD_ID(), Priority DIV 2, Priority % 4, Priority / 2, Estimate * 2, -Priority, " +
		"UPPER(Name), LENGTH(Name), SUBSTRING(Name, 2, 3), SUBSTRING(Name, -2), CONCAT(Name, Priority), TRIM(Notes), " +
		"ROUND(Estimate), ROUND(-2.5), ROUND(1.25, 1), ABS(-3), COALESCE(Rating, Priority), IFNULL(Rating, 'x'), " +
		"YEAR(Due), MONTH(Due), DAY(Due), NOW(), Priority > 5, Rating IS NULL, Priority / 0 FROM Tasks"
	// IFNULL of a number and text is text, as in MySQL.
	plan, err := selectPlan(parseSelect(t, sql), schema, Args{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"recAAAAAAAAAAAAAA", created, "recAAAAAAAAAAAAAA", int64(3), int64(3), 3.5, 5.0, int64(-7),
		"ÜNÏCODE", int64(9), "nïc", "de", "Ünïcode7", "pad", // LENGTH counts bytes, as MySQL's
		3.0, int64(-3), 1.3, int64(3), int64(7), "x",
		int64(2024), int64(2), int64(29), testNow, int64(1), int64(1), nil}
	got := make([]any, len(plan.Columns))
	if err := plan.Values(row, got); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("column %d (%s): got %#v, want %#v", i, plan.Columns[i].Name, got[i], want[i])
		}
	}
}

// TestOrder checks SQL order: NULL first ascending, text by code point, numbers numerically.
func TestOrder(t *testing.T) {
	schema := loadSchema(t)
	rows := []Row{
		{ID: "r1", Fields: map[string]any{"Name": "b", "Priority": 10.0}},
		{ID: "r2", Fields: map[string]any{"Name": "B", "Priority": 9.0}},
		{ID: "r3", Fields: map[string]any{}},
		{ID: "r4", Fields: map[string]any{"Name": "a", "Priority": 10.0}},
		{ID: "r5", Fields: map[string]any{"Name": "é", "Priority": -1.0}},
	}
	tests := []struct {
		order string
		want  []string
	}{
		{"Name", []string{"r3", "r2", "r4", "r1", "r5"}},
		{"Name DESC", []string{"r5", "r1", "r4", "r2", "r3"}},
		{"Priority, Name DESC", []string{"r3", "r5", "r2", "r1", "r4"}},
		{"Priority", []string{"r3", "r5", "r2", "r1", "r4"}}, // stable: r1 and r4 tie
		{"Priority DESC, id", []string{"r1", "r4", "r2", "r5", "r3"}},
	}
	for _, tt := range tests {
		t.Run(tt.order, func(t *testing.T) {
			plan, err := selectPlan(parseSelect(t, "SELECT Name FROM Tasks ORDER BY "+tt.order), schema, Args{})
			if err != nil {
				t.Fatal(err)
			}
			if !plan.SortLocally && plan.Split == nil {
				t.Error("neither SortLocally nor Split for nullable or text keys")
			}
			sorted := slices.Clone(rows)
			plan.SortRows(sorted)
			var got []string
			for _, r := range sorted {
				got = append(got, r.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestErrorsNameTheConstruct checks that what is refused is named.
func TestErrorsNameTheConstruct(t *testing.T) {
	schema := loadSchema(t)
	tests := []struct{ sql, construct string }{
		{"SELECT Name FROM Tasks LEFT JOIN People ON 1 = 1", "ambiguous"},
		{"SELECT COUNT(*), Name FROM Tasks", "only_full_group_by"},
		{"SELECT CAST(Due AS TIME) FROM Tasks", "TIME"},
		{"SELECT FOO(Name) FROM Tasks", "FOO"},
		{"SELECT Name FROM Tasks FOR UPDATE", "locking"},
		{"SELECT Name FROM Tasks WHERE Name", "not a condition"},
		{"SELECT Name FROM Tasks WHERE Priority = 'high'", "cannot compare"},
		{"SELECT Name FROM Tasks WHERE Due < 5", "cannot compare"},
		{"SELECT Name FROM Tasks WHERE Name = ?", "placeholder"},
		{"SELECT Name FROM Tasks LIMIT -1", "non-negative"},
		{"SELECT Name FROM other.Tasks", "database-qualified"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			stmt, err := sqlparser.Parse(tt.sql)
			if err != nil {
				t.Fatal(err)
			}
			sel, ok := stmt.(*sqlparser.Select)
			if !ok {
				t.Fatalf("%T", stmt)
			}
			_, err = NewQuery(sel, schema, Args{})
			if err == nil {
				t.Fatal("no error")
			}
			if !containsFold(err.Error(), tt.construct) {
				t.Errorf("error %q does not name %q", err, tt.construct)
			}
		})
	}
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// TestUnsupportedErrorsAreTyped: every refusal of a construct is an *UnsupportedError (errors.As)
// that names the construct and says what to do instead; errors in the query itself (a wrong type,
// a missing argument) are not.
func TestUnsupportedErrorsAreTyped(t *testing.T) {
	schema := loadSchema(t)
	tests := []struct{ sql, construct string }{
		{"SELECT People.* FROM Tasks", "JOIN"},
		{"SELECT CAST(Due AS TIME) FROM Tasks", "CAST to TIME"},
		{"SELECT CONVERT(Name USING latin1) FROM Tasks", "CONVERT … USING latin1"},
		{"SELECT FOO(Name) FROM Tasks", "the function FOO"},
		{"SELECT Name FROM Tasks FOR UPDATE", "locking reads"},
		{"SELECT Name FROM other.Tasks", "a database-qualified table name"},
		{"SELECT Name FROM Tasks WHERE Priority & 1", "the operator &"},
		{"SELECT Name FROM Tasks WHERE (Name, Notes) = ('a', 'b')", "a row value"},
		{"SELECT Name FROM Tasks WHERE Name = 'a' COLLATE utf8_bin", "COLLATE"},
		{"REPLACE INTO Tasks (Name) VALUES ('a')", "REPLACE"},
		{"INSERT IGNORE INTO Tasks (Name) VALUES ('a')", "INSERT IGNORE"},
		{"INSERT INTO Tasks (Name) SELECT Name FROM People", "INSERT … SELECT"},
		{"INSERT INTO People (Email, Name) VALUES ('a@x.org', 'Ann') ON DUPLICATE KEY UPDATE Name = CONCAT(Name, 'x')", "ON DUPLICATE KEY UPDATE"},
		{"UPDATE Tasks SET Done = TRUE ORDER BY Priority", "UPDATE … ORDER BY"},
		{"UPDATE Tasks SET Done = TRUE LIMIT 1", "UPDATE … LIMIT"},
		{"DELETE FROM Tasks ORDER BY Priority", "DELETE … ORDER BY"},
		{"DELETE FROM Tasks LIMIT 1", "DELETE … LIMIT"},
		{"DELETE Tasks, People FROM Tasks JOIN People ON Tasks.Owner = People.id", "multi-table DELETE"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			err := translateError(t, schema, tt.sql)
			var ue *UnsupportedError
			if !errors.As(err, &ue) {
				t.Fatalf("error %T %v, want an *UnsupportedError", err, err)
			}
			if !strings.Contains(ue.Construct, tt.construct) {
				t.Errorf("Construct %q, want it to name %q", ue.Construct, tt.construct)
			}
			if ue.Hint == "" {
				t.Errorf("%v: no hint of what to do instead", err)
			}
			if !strings.Contains(err.Error(), ue.Construct) || !strings.Contains(err.Error(), ue.Hint) {
				t.Errorf("message %q should hold the construct and the hint", err)
			}
		})
	}
	for _, sql := range []string{
		"SELECT Name FROM Tasks WHERE Priority = 'high'",
		"SELECT Name FROM Tasks WHERE Name = ?",
		"SELECT Nope FROM Tasks",
	} {
		var ue *UnsupportedError
		if err := translateError(t, schema, sql); errors.As(err, &ue) {
			t.Errorf("%s: %v is an error in the query, not an unsupported construct", sql, err)
		}
	}
}

// translateError translates any statement and returns its error (failing the test if there is none).
func translateError(t *testing.T, schema Schema, sql string) error {
	t.Helper()
	stmt, err := Parse(sql)
	if err != nil {
		t.Fatalf("parse %q: %v", sql, err)
	}
	switch stmt := stmt.(type) {
	case *sqlparser.Select:
		_, err = NewQuery(stmt, schema, Args{})
	case *sqlparser.Insert:
		_, err = Insert(stmt, schema, Args{})
	case *sqlparser.Update:
		_, err = Update(stmt, schema, Args{})
	case *sqlparser.Delete:
		_, err = Delete(stmt, schema, Args{})
	default:
		t.Fatalf("%q is a %T", sql, stmt)
	}
	if err == nil {
		t.Fatalf("%q: no error", sql)
	}
	return err
}
