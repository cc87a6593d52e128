package frontend

import (
	"strings"
	"testing"

	"github.com/xwb1989/sqlparser"
)

// TestRewriteOffset: OFFSET without LIMIT (goqu and squirrel write it) reads as MySQL's
// "LIMIT <all> OFFSET n"; an OFFSET with its LIMIT, and OFFSET in strings and names, are left alone.

func TestRewriteOffset(t *testing.T) {
	const all = "LIMIT 18446744073709551615 "
	for in, want := range map[string]string{
		"SELECT a FROM t ORDER BY a OFFSET 4":                "SELECT a FROM t ORDER BY a " + all + "OFFSET 4",
		"SELECT a FROM t LIMIT 2 OFFSET 4":                   "SELECT a FROM t LIMIT 2 OFFSET 4",
		"SELECT a FROM t WHERE b = 'x OFFSET 1' OFFSET ?":    "SELECT a FROM t WHERE b = 'x OFFSET 1' " + all + "OFFSET ?",
		"SELECT `offset` FROM t":                             "SELECT `offset` FROM t",
		"SELECT a FROM (SELECT a FROM t OFFSET 1) s LIMIT 1": "SELECT a FROM (SELECT a FROM t " + all + "OFFSET 1) s LIMIT 1",
		"SELECT a FROM (SELECT a FROM t LIMIT 3) s OFFSET 1": "SELECT a FROM (SELECT a FROM t LIMIT 3) s " + all + "OFFSET 1",
	} {
		if got := applyStep(in, (*source).offsetEdits); got != want {
			t.Errorf("rewriteOffset(%q) = %q, want %q", in, got, want)
		}
	}
	stmt, err := ParseSQL("SELECT Name FROM Tasks ORDER BY Name OFFSET 2")
	if err != nil {
		t.Fatal(err)
	}
	if got := sqlparser.String(stmt); got != "select Name from Tasks order by Name asc limit 2, 18446744073709551615" {
		t.Errorf("parsed as %s", got)
	}
}

// FuzzRewriteOffset: the rewrite never panics, only ever inserts whole "LIMIT <all> " texts
// (removing them gives the input back), and leaves a statement it cannot tokenize alone.
func FuzzRewriteOffset(f *testing.F) {
	for _, s := range []string{"SELECT a FROM t OFFSET 1", "SELECT a FROM t LIMIT 1 OFFSET 2", "SELECT 'offset' OFFSET", "select (select 1 offset 1) offset 2", "/*! offset */", "offset offset offset"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		out := applyStep(sql, (*source).offsetEdits)
		if strings.ReplaceAll(out, "LIMIT "+allRows+" ", "") != strings.ReplaceAll(sql, "LIMIT "+allRows+" ", "") {
			t.Fatalf("rewriteOffset(%q) = %q changed more than adding LIMITs", sql, out)
		}
	})
}
