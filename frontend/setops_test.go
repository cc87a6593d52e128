package frontend

import (
	"strings"
	"testing"

	"github.com/xwb1989/sqlparser"
)

// TestParseSetOps: INTERSECT binds tighter than UNION and EXCEPT, which bind left to right;
// parentheses group; ORDER BY and LIMIT after the last SELECT are on the whole; ? keep their
// numbers across operands; the same inside subqueries.
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
		// Inside a statement: IN, NOT IN, EXISTS, a scalar subquery, a derived table, WITH,
		// nested, the whole statement in parentheses; a ? keeps its number in the whole.
		{"SELECT a FROM t WHERE a IN (SELECT a FROM u INTERSECT SELECT a FROM v)",
			"select a from t where a in (select a from u intersect select a from v)"},
		{"SELECT a FROM t WHERE a NOT IN (SELECT a FROM u UNION SELECT a FROM v EXCEPT ALL SELECT a FROM w)",
			"select a from t where a not in (select a from u union select a from v except all select a from w)"},
		{"SELECT EXISTS (SELECT 1 EXCEPT SELECT 2), (SELECT a FROM u INTERSECT ALL SELECT a FROM v) FROM t",
			"select exists (select 1 from dual except select 2 from dual), (select a from u intersect all select a from v) from t"},
		{"SELECT d.a FROM (SELECT a FROM u EXCEPT SELECT a FROM v) AS d JOIN t ON t.a = d.a",
			"select d.a from (select a from u except select a from v) as d join t on t.a = d.a"},
		{"WITH w AS (SELECT a FROM u INTERSECT SELECT a FROM v) SELECT a FROM w",
			"select a from (select a from u intersect select a from v) as w"},
		{"SELECT a FROM t WHERE a IN (SELECT a FROM u WHERE a IN (SELECT b FROM v EXCEPT SELECT b FROM w) INTERSECT SELECT a FROM x)",
			"select a from t where a in (select a from u where a in (select b from v except select b from w) intersect select a from x)"},
		{"SELECT a FROM t WHERE b = ? AND a IN (SELECT a FROM u WHERE c = ? EXCEPT SELECT a FROM v WHERE d = ?) AND e = ?",
			"select a from t where b = :v1 and a in (select a from u where c = :v2 except select a from v where d = :v3) and e = :v4"},
		{"SELECT a FROM t WHERE a IN (SELECT a FROM u INTERSECT SELECT a FROM v) UNION SELECT a FROM w EXCEPT SELECT a FROM x",
			"select a from t where a in (select a from u intersect select a from v) union select a from w except select a from x"},
		{"(SELECT a FROM u INTERSECT SELECT a FROM v)", "select a from u intersect select a from v"},
		{"INSERT INTO t (a, b) SELECT a, ? FROM u EXCEPT ALL SELECT a, b FROM v WHERE c = ? ORDER BY 1 LIMIT 3",
			"insert into t(a, b) select a, :v1 from u except all select a, b from v where c = :v2 order by 1 asc limit 3"},
		{"SELECT a FROM t WHERE a IN ((SELECT a FROM u) EXCEPT (SELECT a FROM v))",
			"select a from t where a in (select a from u except select a from v)"},
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
	// The subquery's tree is the set operation's, INTERSECT below EXCEPT.
	if st, err = ParseSQL("SELECT a FROM t WHERE a IN (SELECT a FROM u EXCEPT SELECT a FROM v INTERSECT SELECT a FROM w)"); err != nil {
		t.Fatal(err)
	}
	in := st.(*sqlparser.Select).Where.Expr.(*sqlparser.ComparisonExpr).Right.(*sqlparser.Subquery)
	if top, ok = in.Select.(*sqlparser.Union); !ok || top.Type != SetExcept {
		t.Fatalf("got %T %+v, want EXCEPT at the subquery's top", in.Select, in.Select)
	}
	if right, ok := top.Right.(*sqlparser.Union); !ok || right.Type != SetIntersect {
		t.Errorf("got %+v, want INTERSECT on EXCEPT's right", top.Right)
	}
	for _, bad := range []string{
		"SELECT a FROM t ORDER BY a INTERSECT SELECT a FROM u",
		"SELECT a FROM t WHERE a IN (SELECT a FROM u INTERSECT)",
		"SELECT a FROM t WHERE a IN (SELECT a FROM u EXCEPT DELETE FROM v)",
		"SELECT a FROM t WHERE a IN (SELECT a FROM u ORDER BY a EXCEPT SELECT a FROM v)",
		"SELECT a FROM t INTERSECT",
		"SELECT a FROM t EXCEPT INSERT INTO u VALUES (1)",
		"INSERT INTO t VALUES (1) EXCEPT SELECT 1",
		"INSERT INTO t (a) SELECT a FROM u EXCEPT INSERT INTO t VALUES (1)",
		"UPDATE t SET a = 1 EXCEPT SELECT 1",
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
		"SELECT (SELECT 1 EXCEPT ALL SELECT ?) FROM t WHERE b = ?",
		"SELECT * FROM (SELECT a FROM u EXCEPT (SELECT a FROM v INTERSECT SELECT a FROM w)) d",
		"(SELECT 1 INTERSECT SELECT 1)",
		"SELECT EXISTS (SELECT 1 INTERSECT",
		"SELECT ((SELECT 1 INTERSECT SELECT 2)) + (SELECT 3 EXCEPT SELECT 4)",
		"INSERT INTO t VALUES (1) EXCEPT SELECT 1",
		"INSERT INTO t (a) SELECT ? FROM u INTERSECT SELECT a FROM v",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		st, err := ParseSQL(sql) // must not panic or loop
		if err == nil && strings.Contains(sqlparser.String(st), "setop") && !strings.Contains(strings.ToLower(sql), "setop") {
			// A subquery's marker (parseSetOpSubqueries) is always replaced by its query.
			t.Fatalf("%q parsed as %q", sql, sqlparser.String(st))
		}
	})
}
