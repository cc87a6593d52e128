package frontend

import (
	"testing"

	"github.com/xwb1989/sqlparser"
)

// TestParseSetOps: INTERSECT binds tighter than UNION and EXCEPT, which bind left to right;
// parentheses group; ORDER BY and LIMIT after the last SELECT are on the whole; ? keep their
// numbers across operands.
func TestParseSetOps(t *testing.T) {
	cases := []struct{ sql, want string }{
		{"SELECT a FROM t INTERSECT SELECT a FROM u", "select a from t intersect select a from u"},
		{"SELECT a FROM t UNION SELECT a FROM u INTERSECT SELECT a FROM v",
			"select a from t union select a from u intersect select a from v"},
		{"SELECT a FROM t EXCEPT ALL SELECT a FROM u INTERSECT DISTINCT SELECT a FROM v UNION ALL SELECT a FROM w",
			"select a from t except all select a from u intersect select a from v union all select a from w"},
		{"(SELECT a FROM t EXCEPT SELECT a FROM u) INTERSECT SELECT a FROM v ORDER BY a DESC LIMIT 3",
			"select a from t except select a from u intersect select a from v order by a desc limit 3"},
		{"SELECT a FROM t WHERE b = ? EXCEPT SELECT a FROM u WHERE c = ?",
			"select a from t where b = :v1 except select a from u where c = :v2"},
		{"SELECT a FROM t UNION (SELECT a FROM u INTERSECT ALL SELECT a FROM v)",
			"select a from t union select a from u intersect all select a from v"},
	}
	for _, tc := range cases {
		t.Run(tc.sql, func(t *testing.T) {
			st, err := ParseSQL(tc.sql)
			if err != nil {
				t.Fatal(err)
			}
			if got := sqlparser.String(st); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	// The tree's shape: the INTERSECT is the right operand of the UNION.
	st, err := ParseSQL("SELECT 1 UNION SELECT 2 INTERSECT SELECT 3 EXCEPT SELECT 4")
	if err != nil {
		t.Fatal(err)
	}
	top, ok := st.(*sqlparser.Union)
	if !ok || top.Type != SetExcept {
		t.Fatalf("got %T %+v, want EXCEPT at the top", st, st)
	}
	left, ok := top.Left.(*sqlparser.Union)
	if !ok || left.Type != sqlparser.UnionStr {
		t.Fatalf("got %+v, want UNION on EXCEPT's left", top.Left)
	}
	if right, ok := left.Right.(*sqlparser.Union); !ok || right.Type != SetIntersect {
		t.Errorf("got %+v, want INTERSECT on UNION's right", left.Right)
	}
	for _, bad := range []string{
		"SELECT a FROM t ORDER BY a INTERSECT SELECT a FROM u",
		"SELECT a FROM t INTERSECT",
		"SELECT a FROM t EXCEPT INSERT INTO u VALUES (1)",
	} {
		if _, err := ParseSQL(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func FuzzParseSetOps(f *testing.F) {
	for _, s := range []string{
		"SELECT a FROM t INTERSECT SELECT a FROM u",
		"(SELECT 1) EXCEPT ALL (SELECT 2 UNION SELECT 3) ORDER BY 1 LIMIT 2",
		"SELECT a FROM t WHERE a IN (SELECT b FROM u EXCEPT SELECT c FROM v) UNION SELECT 1",
		"SELECT 1 INTERSECT (SELECT 2 INTERSECT (SELECT 3))",
		"((SELECT 1)) EXCEPT SELECT ?",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		_, _ = ParseSQL(sql) // must not panic or loop
	})
}
