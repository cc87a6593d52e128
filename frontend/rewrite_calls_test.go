package frontend

import (
	"testing"

	"github.com/xwb1989/sqlparser"
)

// FuzzRewriteCalls: rewriting never panics, and never makes a statement that the parser read
// before unreadable.
func FuzzRewriteCalls(f *testing.F) {
	for _, s := range []string{"SELECT SUBSTR(LTRIM(a), 4, 2) FROM t", "SELECT TRIM(LEADING 'x' FROM 'xa')", "SELECT POSITION('a' IN 'b')",
		"SELECT EXTRACT(YEAR FROM d) FROM t", "SELECT CAST(a AS DOUBLE)", "SELECT 'é', `x``y` FROM t /* TRIM(x FROM y) */", "SELECT SCHEMA()"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		out := applyStep(sql, (*source).callEdits)
		if rawParses(sql) && !rawParses(out) {
			t.Fatalf("%q parsed, but its rewriting %q does not", sql, out)
		}
	})
}

// rawParses reports whether sqlparser itself reads the statement (its panics are a no).
func rawParses(sql string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	_, err := sqlparser.Parse(sql)
	return err == nil
}

// TestRewriteCalls checks the rewriting of the calls the grammar reads narrowly, and that nothing
// else in a statement changes (strings, identifiers, comments).
func TestRewriteCalls(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SELECT SUBSTR(LTRIM(Code), 4, 2) FROM People", "SELECT `SUBSTRING`(LTRIM(Code), 4, 2) FROM People"},
		{"SELECT substring(a FROM 2 FOR 3)", "SELECT `SUBSTRING`(a , 2 , 3)"},
		{"SELECT TRIM(LEADING 'x' FROM s)", "SELECT `TRIM LEADING`( 'x' , s)"},
		{"SELECT TRIM(BOTH FROM s)", "SELECT `TRIM BOTH`(  s)"},
		{"SELECT TRIM('x' FROM s), TRIM(s)", "SELECT `TRIM BOTH`('x' , s), TRIM(s)"},
		{"SELECT POSITION('a' IN s)", "SELECT `POSITION IN`('a' , s)"},
		{"SELECT EXTRACT(year FROM d)", "SELECT `EXTRACT FROM`('YEAR' , d)"},
		{"SELECT CAST(x AS DOUBLE), CONVERT(x, REAL)", "SELECT `CAST DOUBLE`(x  ), `CAST DOUBLE`(x )"},
		{"SELECT SCHEMA()", "SELECT `SCHEMA`()"},
		{"SELECT 'SUBSTR(a FROM 1)', `trim` FROM t -- TRIM(x FROM y)", "SELECT 'SUBSTR(a FROM 1)', `trim` FROM t -- TRIM(x FROM y)"},
		{"SELECT TRIM(LEADING 'x' FROM SUBSTRING(a FROM 2))", "SELECT `TRIM LEADING`( 'x' , `SUBSTRING`(a , 2))"},
		{"SELECT Name FROM Tasks WHERE Name = 'é'", "SELECT Name FROM Tasks WHERE Name = 'é'"},
	}
	for _, tt := range tests {
		if got := applyStep(tt.in, (*source).callEdits); got != tt.want {
			t.Errorf("rewriteCalls(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}
