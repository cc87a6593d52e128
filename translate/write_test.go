package translate

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/xwb1989/sqlparser"
)

func parseStmt(t *testing.T, sql string) sqlparser.Statement {
	t.Helper()
	stmt, err := sqlparser.Parse(sql)
	if err != nil {
		t.Fatalf("parse %q: %v", sql, err)
	}
	return stmt
}

// TestInsertArguments checks how Go arguments become cells of each field type.
func TestInsertArguments(t *testing.T) {
	schema := loadSchema(t)
	when := time.Date(2024, 5, 6, 7, 8, 9, 500e6, time.FixedZone("X", 3600))
	tests := []struct {
		column string
		arg    any
		want   any
		err    string
	}{
		{"Name", "x", "x", ""},
		{"Name", []byte("bytes"), "bytes", ""},
		{"Name", int64(5), "5", ""},
		{"Name", nil, nil, ""},
		{"Priority", 3, int64(3), ""},
		{"Priority", uint8(3), int64(3), ""},
		{"Priority", "12", int64(12), ""},
		{"Priority", "twelve", nil, "not one"},
		{"Estimate", float32(1.5), 1.5, ""},
		{"Done", true, true, ""},
		{"Done", int64(0), false, ""},
		{"Done", "yes", nil, "cannot hold"},
		{"Due", when, "2024-05-06", ""},
		{"Due", "2024-01-02", "2024-01-02", ""},
		{"Due", "soon", nil, "ISO 8601"},
		{"Updated At", when, "2024-05-06T06:08:09.500Z", ""},
		{"Tags", []string{"x", "y"}, []any{"x", "y"}, ""},
		{"Tags", json.RawMessage(`["x"]`), []any{"x"}, ""},
		{"Tags", `["y"]`, []any{"y"}, ""},
		{"Tags", "x", []any{"x"}, ""},
		{"Owner", []string{"recAAAAAAAAAAAAAA"}, []any{"recAAAAAAAAAAAAAA"}, ""},
		{"Tags", 3.5, nil, "cannot hold"},
		{"Tags", struct{}{}, nil, "unsupported Go type"},
	}
	for _, tt := range tests {
		t.Run(tt.column+"/"+jsonOf(tt.arg), func(t *testing.T) {
			stmt := parseStmt(t, "INSERT INTO Tasks (`"+tt.column+"`) VALUES (?)").(*sqlparser.Insert)
			plan, err := Insert(stmt, schema, Args{Positional: []any{tt.arg}})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, ok := plan.Rows[0][tt.column]
			if !ok {
				t.Fatalf("row %v has no %s", plan.Rows[0], tt.column)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cell %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestInsertRefusals(t *testing.T) {
	schema := loadSchema(t)
	tests := []struct{ sql, err string }{
		{"INSERT INTO Tasks VALUES ('a')", "column list"},
		{"INSERT INTO Tasks (id) VALUES ('recAAAAAAAAAAAAAA')", "record id"},
		{"INSERT INTO Tasks (Seq) VALUES (1)", "computed"},
		{"INSERT INTO Tasks (Name, Name) VALUES ('a', 'b')", "twice"},
		{"INSERT INTO Tasks (Name) VALUES ('a', 'b')", "2 values for 1 columns"},
		{"INSERT INTO Tasks (Name) VALUES (Notes)", "reads a column"},
		{"INSERT INTO Tasks (Name) SELECT Name FROM People", "INSERT … SELECT"},
		{"INSERT IGNORE INTO Tasks (Name) VALUES ('a')", "INSERT IGNORE"},
		{"INSERT INTO Tasks (Name, Priority) VALUES ('a', 1) ON DUPLICATE KEY UPDATE Name = VALUES(Name), Priority = VALUES(Priority)", "1 to 3"},
		{"INSERT INTO Tasks (Done, Name) VALUES (TRUE, 'a') ON DUPLICATE KEY UPDATE Name = VALUES(Name)", "merges only"},
		{"INSERT INTO People (Email, Name) VALUES ('a@x.org', 'a') ON DUPLICATE KEY UPDATE Name = VALUES(Name)", "merges only"},
		{"INSERT INTO Tasks (Name) VALUES ('a') ON DUPLICATE KEY UPDATE Status = VALUES(Status)", "not inserted"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			_, err := Insert(parseStmt(t, tt.sql).(*sqlparser.Insert), schema, Args{})
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want one containing %q", err, tt.err)
			}
		})
	}
}

// TestUpdateFields checks that SET reads each record's current values, with SQL NULL semantics.
func TestUpdateFields(t *testing.T) {
	schema := loadSchema(t)
	stmt := parseStmt(t, "UPDATE Tasks SET Priority = Priority + 1, Name = CONCAT(Name, ?), Done = NOT Done, Due = NULL WHERE Status = 'Todo'").(*sqlparser.Update)
	plan, err := Update(stmt, schema, Args{Positional: []any{"!"}})
	if err != nil {
		t.Fatal(err)
	}
	find := plan.Search.Query.Scan
	if got, want := find.Request.Formula, "{Status}='Todo'"; got != want {
		t.Errorf("find formula %q, want %q", got, want)
	}
	if got, want := find.Request.Fields, []string{"Name", "Priority", "Done"}; !reflect.DeepEqual(got, want) {
		t.Errorf("find fields %v, want %v (what SET reads)", got, want)
	}
	tests := []struct {
		fields map[string]any
		want   map[string]any
	}{
		{map[string]any{"Priority": 2.0, "Name": "a", "Done": true}, map[string]any{"Priority": int64(3), "Name": "a!", "Done": false, "Due": nil}},
		{map[string]any{}, map[string]any{"Priority": nil, "Name": nil, "Done": true, "Due": nil}},
	}
	for _, tt := range tests {
		got, err := plan.Fields(searchRow(t, plan.Search, Row{ID: "recAAAAAAAAAAAAAA", Fields: tt.fields}))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Fields(%v) = %v, want %v", tt.fields, got, tt.want)
		}
	}
	for _, bad := range []struct{ sql, err string }{
		{"UPDATE Tasks SET Score = 1", "computed"},
		{"UPDATE Tasks SET id = 'x'", "record id"},
		{"UPDATE Tasks SET Done = 'yes'", "cannot hold"},
		{"UPDATE Tasks SET Name = 'a' LIMIT 1", "LIMIT"},
		{"UPDATE Tasks SET Name = 'a' ORDER BY Name", "ORDER BY"},
		{"UPDATE Tasks SET Name = 'a', Name = CONCAT(Name, 'b')", "assigns \"Name\" twice, and the second value reads \"Name\""},
		{"UPDATE Tasks SET Priority = COUNT(*)", "invalid use of group function COUNT(*) in SET"},
		{"UPDATE Tasks SET Priority = 1 + SUM(Priority)", "invalid use of group function SUM(Priority) in SET"},
		{"UPDATE Tasks SET Priority = ROW_NUMBER() OVER ()", "window function 'row_number'"},
		{"UPDATE Tasks SET Priority = SUM(Priority) OVER ()", "window function 'sum'"},
		{"UPDATE Tasks t JOIN Tasks u ON u.Name = t.Name SET t.Priority = MAX(u.Priority)", "invalid use of group function"},
	} {
		stmt, err := Parse(bad.sql) // the front end reads OVER (…)
		if err != nil {
			t.Fatalf("parse %q: %v", bad.sql, err)
		}
		if _, err := Update(stmt.(*sqlparser.Update), schema, Args{}); err == nil || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("%s: error %v, want one containing %q", bad.sql, err, bad.err)
		}
	}
}

func TestDeletePlans(t *testing.T) {
	schema := loadSchema(t)
	tests := []struct {
		sql     string
		formula string
		ids     []string
		exact   bool
	}{
		{"DELETE FROM Tasks WHERE id = 'recAAAAAAAAAAAAAA'", "", []string{"recAAAAAAAAAAAAAA"}, true},
		{"DELETE FROM Tasks WHERE Name <> 'a'", "AND({Name}!='', {Name}!='a')", nil, true},
		{"DELETE FROM Tasks WHERE Tags = '[]'", "", nil, false},
		{"DELETE FROM Tasks", "", nil, true},
	}
	for _, tt := range tests {
		plan, err := Delete(parseStmt(t, tt.sql).(*sqlparser.Delete), schema, Args{})
		if err != nil {
			t.Fatal(err)
		}
		f := plan.Search.Query.Scan
		if f.Request.Formula != tt.formula || !reflect.DeepEqual(f.RecordIDs, tt.ids) || f.Exact != tt.exact {
			t.Errorf("%s: formula %q ids %v exact %v, want %q %v %v", tt.sql, f.Request.Formula, f.RecordIDs, f.Exact, tt.formula, tt.ids, tt.exact)
		}
		if len(f.Request.Fields) != 1 && tt.exact {
			t.Errorf("%s: fields %v, want one small field", tt.sql, f.Request.Fields)
		}
	}
	if _, err := Delete(parseStmt(t, "DELETE FROM Tasks LIMIT 1").(*sqlparser.Delete), schema, Args{}); err == nil {
		t.Error("DELETE … LIMIT accepted")
	}
}

// TestInsertValueErrorsReadOnce: an error about one VALUES row names the row once, without the
// package prefix repeated inside it, and still unwraps.
func TestInsertValueErrorsReadOnce(t *testing.T) {
	schema := loadSchema(t)
	stmt, err := Parse("INSERT INTO Tasks (Name, Done) VALUES ('a', 'yes')")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Insert(stmt.(*sqlparser.Insert), schema, Args{})
	if err == nil {
		t.Fatal("a text value for a checkbox should be refused")
	}
	if msg := err.Error(); strings.Count(msg, "translate: ") != 1 || !strings.Contains(msg, "VALUES row 1: field \"Done\"") {
		t.Errorf("message %q: want one prefix and the row, then the field", msg)
	}
	if errors.Unwrap(err) == nil {
		t.Errorf("the row's error should unwrap to the value's")
	}
}

// searchRow is the row a search's SELECT gives for one record, as the engine computes it.
func searchRow(t *testing.T, s *Search, r Row) []any {
	t.Helper()
	row := make([]any, len(s.Query.Outputs))
	for i, o := range s.Query.Outputs {
		v, err := o.Value(&r)
		if err != nil {
			t.Fatal(err)
		}
		row[i] = v
	}
	return row
}
