package frontend

import (
	"strings"
	"testing"

	"github.com/xwb1989/sqlparser"
)

func TestParseWith(t *testing.T) {
	for sql, want := range map[string]string{
		"WITH a AS (SELECT x FROM t WHERE y = ?) SELECT * FROM a WHERE z = ?":                       "select * from (select x from t where y = :v1) as a where z = :v2",
		"with `a b` (c) as (select 1), d as (select * from `a b`) select * from d join t":           "select * from (select * from (select 1 as c from dual) as `a b`) as d join t",
		"WITH a AS (SELECT ')' AS p) SELECT p FROM a -- WITH b AS (x)":                              "select p from (select ')' as p from dual) as a",
		"WITH a AS (SELECT 1) SELECT * FROM a x UNION SELECT * FROM a WHERE 1 IN (SELECT * FROM a)": "select * from (select 1 from dual) as x union select * from (select 1 from dual) as a where 1 in (select * from (select 1 from dual) as a)",
	} {
		st, err := ParseSQL(sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if got := sqlparser.String(st); got != want {
			t.Errorf("%s:\n got %s\nwant %s", sql, got, want)
		}
	}
	for sql, want := range map[string]string{
		"WITH RECURSIVE a AS (SELECT 1) SELECT * FROM a": "WITH RECURSIVE",
		"WITH a AS (SELECT 1":                            "not closed",
		"WITH a AS (SELECT 1)":                           "a statement is expected",
		"WITH a (SELECT 1) SELECT 1":                     "AS (SELECT …) is expected",
		"WITH a AS (DELETE FROM t) SELECT 1":             "must be a SELECT",
		"WITH a AS (SELECT 1) DELETE FROM t":             "WITH before DELETE",
	} {
		if _, err := ParseSQL(sql); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", sql, err, want)
		}
	}
}

// FuzzParseWith: no input makes the WITH reader panic or loop.
func FuzzParseWith(f *testing.F) {
	for _, s := range []string{"WITH a AS (SELECT 1) SELECT * FROM a", "with a(x,y) as (select 1, 2), b as (select * from a) select * from b", "WITH a AS ((((", "WITH", "WITH a AS (SELECT ?) SELECT ? FROM a", "WITH /* c */ a AS (SELECT 1) SELECT 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		_, _ = ParseSQL(sql)
	})
}
