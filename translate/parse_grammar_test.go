package translate

import (
	"errors"
	"strings"
	"testing"

	"github.com/xwb1989/sqlparser"
)

// grammarCases are statements of MySQL 8's grammar that the pinned parser reads only after
// rewriteGrammar, with the text it reads.
var grammarCases = []struct{ in, want string }{
	{"SELECT ALL Name FROM t", "SELECT  Name FROM t"},
	{"select all a, b from t union all select all a, b from u", "select  a, b from t union all select  a, b from u"},
	{"SELECT COUNT(ALL x), MIN( all y), GROUP_CONCAT(ALL z) FROM t", "SELECT COUNT( x), MIN(  y), GROUP_CONCAT( z) FROM t"},
	{"SELECT a AS offset, b AS end, c AS full, d AS tables FROM t", "SELECT a AS `offset`, b AS `end`, c AS `full`, d AS `tables` FROM t"},
	{"SELECT a AS `end`, 'x AS end' FROM t -- AS end", "SELECT a AS `end`, 'x AS end' FROM t -- AS end"},
	{"SELECT CAST(a AS DATE) AS date FROM t", "SELECT CAST(a AS DATE) AS date FROM t"},
	{"SELECT DATE '2024-05-15', TIME '10:00', TIMESTAMP '2024-05-15 10:00:00'",
		"SELECT `DATE LITERAL`( '2024-05-15'), `TIME LITERAL`( '10:00'), `TIMESTAMP LITERAL`( '2024-05-15 10:00:00')"},
	{"SELECT * FROM t WHERE d >= date '2024-01-01'", "SELECT * FROM t WHERE d >= `DATE LITERAL`( '2024-01-01')"},
	{"SELECT date, time FROM t WHERE date > 'x'", "SELECT date, time FROM t WHERE date > 'x'"},
	{"SELECT DISTINCTROW a FROM t", "SELECT DISTINCT a FROM t"},
	{"SHOW SCHEMAS", "SHOW DATABASES"},
	{"SELECT INTERVAL(5, 1, 10), d + INTERVAL (1 + 1) DAY FROM t", "SELECT `INTERVAL`(5, 1, 10), d + INTERVAL (1 + 1) DAY FROM t"},
	{"SELECT a, COUNT(*) FROM t GROUP BY a WITH ROLLUP", "SELECT a, COUNT(*) FROM t GROUP BY a , `WITH ROLLUP`( )"},
	{"show schemas like 'app%'", "show DATABASES like 'app%'"},
	{"SELECT 'SELECT ALL' AS x", "SELECT 'SELECT ALL' AS x"},
}

func TestRewriteGrammar(t *testing.T) {
	for _, tt := range grammarCases {
		t.Run(tt.in, func(t *testing.T) {
			got := rewriteGrammar(tt.in)
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if _, err := Parse(tt.in); err != nil {
				t.Errorf("Parse: %v", err)
			}
		})
	}
}

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

// FuzzRewriteGrammar: rewriting never panics, is idempotent, and leaves every string literal as
// it was.
func FuzzRewriteGrammar(f *testing.F) {
	for _, tt := range grammarCases {
		f.Add(tt.in)
	}
	for _, s := range []string{"SELECT ALL", "AS", "DATE", "date '", "SELECT x AS end(", "SHOW schemas", "/*! ALL */", "COUNT(ALL", "`date` 'x'"} {
		f.Add(s)
	}
	strings := func(sql string) []string {
		toks, ok := tokenize(sql)
		if !ok {
			return nil
		}
		var out []string
		for _, t := range toks {
			if t.typ == sqlparser.STRING {
				out = append(out, sql[t.start:t.end])
			}
		}
		return out
	}
	f.Fuzz(func(t *testing.T, sql string) {
		defer func() {
			if r := recover(); r != nil {
				t.Skip("the tokenizer panics on this input before any rewrite (Parse recovers)")
			}
		}()
		once := rewriteGrammar(sql)
		if twice := rewriteGrammar(once); twice != once {
			t.Fatalf("not idempotent:\n%q\n%q\n%q", sql, once, twice)
		}
		before, after := strings(sql), strings(once)
		if len(before) != len(after) {
			t.Fatalf("%q -> %q: strings %q -> %q", sql, once, before, after)
		}
		for i := range before {
			if before[i] != after[i] {
				t.Fatalf("%q -> %q: strings %q -> %q", sql, once, before, after)
			}
		}
	})
}

func TestRefuseViews(t *testing.T) {
	for _, tt := range []struct{ sql, want string }{
		{"CREATE VIEW v AS SELECT 1", "CREATE VIEW"},
		{"create or replace algorithm = merge view v as select 1", "CREATE VIEW"},
		{"DROP VIEW v1", "DROP VIEW"},
		{"DROP VIEW IF EXISTS v1, v2", "DROP VIEW"},
		{"ALTER VIEW v AS SELECT 2", "ALTER VIEW"},
		{"DROP TABLE view", ""},
		{"CREATE TABLE view (a INT)", ""},
		{"SELECT view FROM t", ""},
	} {
		err := refuseViews(tt.sql)
		var ue *UnsupportedError
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v, want no refusal", tt.sql, err)
		case tt.want != "" && (!errors.As(err, &ue) || ue.Construct != tt.want):
			t.Errorf("%s: %v, want an UnsupportedError naming %s", tt.sql, err, tt.want)
		}
	}
}

// BenchmarkRewriteGrammar: a 1 MB INSERT of prose (words of the rewrites inside its strings only)
// is scanned once and not tokenised.
func BenchmarkRewriteGrammar(b *testing.B) {
	sql := "INSERT INTO Tasks (Name, Notes) VALUES " + strings.Repeat("('all the time', 'as it is, date unknown'),", 24000) + "('x', 'y')"
	b.ReportAllocs()
	b.SetBytes(int64(len(sql)))
	for b.Loop() {
		if rewriteGrammar(sql) != sql {
			b.Fatal("rewritten")
		}
	}
}
