package airsql

import (
	"strings"
	"testing"
)

var schemaStatementCases = []struct {
	query   string
	ok      bool
	table   string
	wantErr string
}{
	{"DESCRIBE Tasks", true, "Tasks", ""},
	{"describe `Team Members`;", true, "Team Members", ""},
	{"DESC `a``b`", true, "a`b", ""},
	{"SHOW COLUMNS FROM Tasks", true, "Tasks", ""},
	{"show full columns in `Tasks`", true, "Tasks", ""},
	{"SHOW FIELDS FROM tblTASKS000000001", true, "tblTASKS000000001", ""},
	{"  SHOW   COLUMNS\nFROM\tTasks ; ", true, "Tasks", ""},
	{"SHOW COLUMNS Tasks", true, "", "SHOW COLUMNS form"},
	{"DESCRIBE", true, "", "without a table"},
	{"DESCRIBE Tasks Name", true, "", "text after the table"},
	{"DESCRIBE SELECT * FROM Tasks", true, "", "EXPLAIN"},
	{"SHOW TABLES", false, "", ""},
	{"SELECT * FROM Tasks", false, "", ""},
	{"DESCRIBE `unterminated", false, "", ""},
	{"", false, "", ""},
}

func TestParseSchemaStatement(t *testing.T) {
	for _, tc := range schemaStatementCases {
		st, ok, err := parseSchemaStatement(tc.query)
		if ok != tc.ok {
			t.Errorf("%q: ok = %v, want %v", tc.query, ok, tc.ok)
			continue
		}
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want one with %q", tc.query, err, tc.wantErr)
			}
			continue
		}
		if err != nil || st.table != tc.table {
			t.Errorf("%q: table %q, %v; want %q", tc.query, st.table, err, tc.table)
		}
	}
}

// FuzzParseSchemaStatement: no input panics, and a table name read back from DESCRIBE of its
// quoted form is the same name.
func FuzzParseSchemaStatement(f *testing.F) {
	for _, tc := range schemaStatementCases {
		f.Add(tc.query)
	}
	f.Fuzz(func(t *testing.T, query string) {
		st, ok, err := parseSchemaStatement(query)
		if !ok || err != nil {
			return
		}
		again, ok, err := parseSchemaStatement("DESCRIBE " + quoteName(st.table))
		if !ok || err != nil || again.table != st.table {
			t.Fatalf("table %q of %q does not round-trip through quoteName: %q, %v, %v", st.table, query, again.table, ok, err)
		}
	})
}

// FuzzParseStatement: no statement text makes the driver panic (sqlparser panics on some inputs,
// such as an empty MySQL comment "/*!*/").
func FuzzParseStatement(f *testing.F) {
	for _, tc := range schemaStatementCases {
		f.Add(tc.query)
	}
	for _, q := range []string{"/*!*/", "SELECT /*!*/ 1", "SELECT * FROM `Tasks` WHERE Name = ?", "INSERT INTO t (a) VALUES (:x)",
		"SHOW TABLES LIKE 'a%'", "UPDATE t SET a = a + 1 WHERE id = 'rec1'", "select `a``b` from `c`", "CREATE TABLE t (a int)", "ALTER TABLE t ADD b text"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, query string) {
		st, err := parseStatement(query)
		if err == nil && st.describe == nil && st.ddl == nil && st.ast == nil {
			t.Fatalf("%q parsed to nothing without an error", query)
		}
	})
}
