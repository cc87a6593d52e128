package frontend

import (
	"errors"
	"testing"

	"github.com/xwb1989/sqlparser"
)

// grammarCases are statements of MySQL 8's grammar that the pinned parser reads only after the
// grammar steps, with the text it reads.
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
	{"SELECT INTERVAL(5, 1, 10), d + INTERVAL (1 + 1) DAY FROM t", "SELECT `INTERVAL`(5, 1, 10), d + INTERVAL (1 + 1) DAY FROM t"},
	{"SELECT a, COUNT(*) FROM t GROUP BY a WITH ROLLUP", "SELECT a, COUNT(*) FROM t GROUP BY a , `WITH ROLLUP`( )"},
	{"SELECT 'SELECT ALL' AS x", "SELECT 'SELECT ALL' AS x"},
	{"SELECT TABLE_NAME FROM TABLES JOIN tables t USING (TABLE_NAME)", "SELECT TABLE_NAME FROM `TABLES` JOIN `tables` t USING (TABLE_NAME)"},
	{"SELECT * FROM information_schema.TABLES", "SELECT * FROM information_schema.TABLES"},
	{"SELECT 'x' MEMBER OF(Tags) FROM t", "SELECT `MEMBER OF`('x' , (Tags)) FROM t"},
	{"SELECT * FROM t WHERE t.a member of (JSON_ARRAY(1, 2)) AND LOWER(b) MEMBER OF(t.c)",
		"SELECT * FROM t WHERE `MEMBER OF`(t.a ,  (JSON_ARRAY(1, 2))) AND `MEMBER OF`(LOWER(b) , (t.c))"},
	{"SELECT ? MEMBER OF(Tags), (1 + 1) MEMBER OF ('[2]') FROM t", "SELECT `MEMBER OF`(? , (Tags)), `MEMBER OF`((1 + 1) ,  ('[2]')) FROM t"},
	{"SELECT member, `member` of FROM t", "SELECT member, `member` of FROM t"},
}

func TestGrammarEdits(t *testing.T) {
	for _, tt := range grammarCases {
		t.Run(tt.in, func(t *testing.T) {
			if got := applyStep(tt.in, (*source).grammarEdits); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if _, err := ParseSQL(tt.in); err != nil {
				t.Errorf("ParseSQL: %v", err)
			}
		})
	}
}

// FuzzGrammarEdits: the grammar steps never panic, are idempotent, and leave every string
// literal as it was.
func FuzzGrammarEdits(f *testing.F) {
	for _, tt := range grammarCases {
		f.Add(tt.in)
	}
	for _, s := range []string{"SELECT ALL", "AS", "DATE", "date '", "SELECT x AS end(", "/*! ALL */", "COUNT(ALL", "`date` 'x'", "INTERVAL(", "WITH ROLLUP", "x MEMBER OF(", "MEMBER OF()", ") MEMBER OF(a)", "a.b.c member of (d)"} {
		f.Add(s)
	}
	literals := func(sql string) []string {
		src, err := lex(sql)
		if err != nil {
			return nil
		}
		var out []string
		for _, t := range src.toks {
			if t.typ == sqlparser.STRING {
				out = append(out, sql[t.start:t.end])
			}
		}
		return out
	}
	f.Fuzz(func(t *testing.T, sql string) {
		once := applyStep(sql, (*source).grammarEdits)
		if twice := applyStep(once, (*source).grammarEdits); twice != once {
			t.Fatalf("not idempotent:\n%q\n%q\n%q", sql, once, twice)
		}
		before, after := literals(sql), literals(once)
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

func TestViewsRefused(t *testing.T) {
	for _, tt := range []struct{ sql, want string }{
		{"CREATE VIEW v AS SELECT 1", "CREATE VIEW"},
		{"create or replace algorithm = merge view v as select 1", "CREATE VIEW"},
		{"/* c */ DROP VIEW v1", "DROP VIEW"},
		{"DROP VIEW IF EXISTS v1, v2", "DROP VIEW"},
		{"ALTER VIEW v AS SELECT 2", "ALTER VIEW"},
		{"DROP TABLE view", ""},
		{"CREATE TABLE view (a INT)", ""},
		{"SELECT view FROM t", ""},
	} {
		_, err := Read(tt.sql)
		var ue *UnsupportedError
		isView := errors.As(err, &ue) && ue.Construct == tt.want
		switch {
		case tt.want == "" && errors.As(err, &ue) && ue.Construct != "" && ue.Construct[len(ue.Construct)-4:] == "VIEW":
			t.Errorf("%s: %v, want no view refusal", tt.sql, err)
		case tt.want != "" && !isView:
			t.Errorf("%s: %v, want an UnsupportedError naming %s", tt.sql, err, tt.want)
		}
	}
}
