package translate

import "testing"

// TestGrammarStatements: the statements of MySQL 8 that sqllogictest and BI tools send parse, and
// the column names of the typed literals are written as in the statement.
func TestGrammarStatements(t *testing.T) {
	for _, tt := range []struct{ sql, label string }{
		{"SELECT DATE '2024-05-15'", "DATE '2024-05-15'"},
		{"SELECT TIMESTAMP '2024-05-15 10:00:00'", "TIMESTAMP '2024-05-15 10:00:00'"},
	} {
		stmt, err := Parse(tt.sql)
		if err != nil {
			t.Fatalf("%s: %v", tt.sql, err)
		}
		sel, _ := stmtSelect(stmt)
		if got := sqlString(sel.SelectExprs[0]); got != tt.label {
			t.Errorf("%s: written as %q, want %q", tt.sql, got, tt.label)
		}
	}
	for _, bad := range []string{"SELECT DATE '2024-02-30'", "SELECT TIME 'ab'", "SELECT TIMESTAMP 'x'"} {
		if _, _, err := evalExpr(t, bad[len("SELECT "):], Args{}); err == nil {
			t.Errorf("%s: no error, want an incorrect value", bad)
		}
	}
}
