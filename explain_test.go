package airsql

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// explainRows runs EXPLAIN and returns its rows as step -> detail.
func explainRows(t *testing.T, query string, args ...any) map[string]string {
	t.Helper()
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	rows, err := db.Query("EXPLAIN "+query, args...)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", query, err)
	}
	out := map[string]string{}
	for _, row := range scanAll(t, rows) {
		out[row[0].(string)] = row[1].(string)
	}
	if reqs := dataRequests(srv); len(reqs) != 0 {
		t.Errorf("EXPLAIN sent %d data requests, want none: %v", len(reqs), reqs)
	}
	return out
}

func TestExplain(t *testing.T) {
	tests := []struct {
		name, query string
		args        []any
		want        map[string]string // steps that must be present with exactly this detail
		contains    map[string]string // steps whose detail must contain this text
		absent      []string
	}{
		{
			name:  "pushed select",
			query: "SELECT Name, Priority FROM Tasks WHERE Priority >= ? ORDER BY Priority DESC LIMIT 10",
			args:  []any{3},
			want: map[string]string{
				"statement": "SELECT", "table": "Tasks (tblTASKS000000001)",
				"filterByFormula": "{Priority}>=3", "sort": "Priority desc", "maxRecords": "10",
				"fields[]": "Name, Priority", "pageSize": "10",
				"pushdown": "exact: the formula selects exactly the rows of the WHERE clause",
				"local":    "nothing but reading the values", "streaming": "yes: rows are returned as the pages arrive",
			},
		},
		{
			name:     "local sort and limit",
			query:    "SELECT Name FROM Tasks ORDER BY Name LIMIT 2",
			contains: map[string]string{"local": "sort by Name, keeping the first 2 rows in a heap", "request": "list records"},
			absent:   []string{"maxRecords", "sort", "filterByFormula"},
		},
		{
			name:     "superset re-checked",
			query:    "SELECT Name FROM Tasks WHERE Score > 1",
			contains: map[string]string{"pushdown": "superset", "local": "check the WHERE clause"},
		},
		{
			name:     "functions computed locally",
			query:    "SELECT Name FROM Tasks WHERE DATE_FORMAT(`Due Date`, '%Y') = '2024' AND UPPER(Name) LIKE 'S%' AND SUBSTR(LTRIM(Notes), 1, 1) = 'f'",
			contains: map[string]string{"pushdown": "superset", "local": "compute DATE_FORMAT, LTRIM, SUBSTRING locally"},
		},
		{
			name:     "by id",
			query:    "SELECT Name FROM Tasks WHERE id = 'recAAAAAAAAAAAAAA'",
			contains: map[string]string{"request": "GET one record by id, 1 request(s): recAAAAAAAAAAAAAA"},
		},
		{
			name:     "never true",
			query:    "SELECT Name FROM Tasks WHERE id = 'not an id'",
			contains: map[string]string{"request": "none"},
		},
		{
			name:     "count",
			query:    "SELECT COUNT(*) FROM Tasks",
			contains: map[string]string{"local": "aggregate: one group (no GROUP BY); computing COUNT(*)", "fields[]": "Done", "streaming": "no: every row is read"},
		},
		{
			name:     "insert",
			query:    "INSERT INTO Tasks (Name) VALUES ('a'), ('b')",
			want:     map[string]string{"statement": "INSERT", "typecast": "false"},
			contains: map[string]string{"request": "2 record(s) in 1 request(s)"},
		},
		{
			name:     "update",
			query:    "UPDATE Tasks SET Priority = Priority + 1 WHERE Done",
			want:     map[string]string{"statement": "UPDATE", "filterByFormula": "{Done}"},
			contains: map[string]string{"find": "select RECORD_ID(), Priority + 1 from Tasks where Done", "request": "list records", "write": "PATCH"},
		},
		{
			name:     "delete",
			query:    "DELETE FROM Tasks WHERE Priority = 1",
			contains: map[string]string{"write": "DELETE ?records[]="},
		},
		{
			name:     "describe",
			query:    "DESCRIBE Tasks",
			contains: map[string]string{"request": "/v0/meta/bases/"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := explainRows(t, tt.query, tt.args...)
			for step, want := range tt.want {
				if got[step] != want {
					t.Errorf("%s = %q, want %q", step, got[step], want)
				}
			}
			for step, want := range tt.contains {
				if !strings.Contains(got[step], want) {
					t.Errorf("%s = %q, want it to contain %q", step, got[step], want)
				}
			}
			for _, step := range tt.absent {
				if _, ok := got[step]; ok {
					t.Errorf("unexpected step %s = %q", step, got[step])
				}
			}
		})
	}
}

func TestExplainErrors(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	for query, want := range map[string]string{
		"EXPLAIN SELECT Nope FROM Tasks":              "Nope",
		"EXPLAIN SELECT * FROM Tasks GROUP BY Status": "GROUP BY",
		"EXPLAIN EXPLAIN SELECT 1 FROM Tasks":         "EXPLAIN EXPLAIN",
	} {
		if _, err := db.Query(query); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want one naming %q", query, err, want)
		}
	}
	if _, err := db.Exec("EXPLAIN SELECT Name FROM Tasks"); err == nil || !strings.Contains(err.Error(), "Query") {
		t.Errorf("Exec of EXPLAIN: err = %v", err)
	}
}

func TestProgressReportsPages(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "pageSize=3")
	var reports []Progress
	ctx := WithProgress(context.Background(), func(p Progress) {
		p.Elapsed = 0 // not deterministic
		reports = append(reports, p)
	})
	rows, err := db.QueryContext(ctx, "SELECT Name FROM Tasks")
	if err != nil {
		t.Fatal(err)
	}
	n := len(scanAll(t, rows))
	want := []Progress{
		{Table: "Tasks", Pages: 1, Records: 3},
		{Table: "Tasks", Pages: 2, Records: 6},
		{Table: "Tasks", Pages: 3, Records: n},
		{Table: "Tasks", Pages: 3, Records: n, Done: true},
	}
	if !reflect.DeepEqual(reports, want) {
		t.Errorf("reports = %+v, want %+v", reports, want)
	}
}
