package translate

import (
	"errors"
	"testing"

	"github.com/xwb1989/sqlparser"
)

// TestRewriteWindows: the window calls the grammar cannot read, as the calls it reads, and back
// in their SQL form (sqlString, for column names and messages).
func TestRewriteWindows(t *testing.T) {
	tests := []struct {
		sql  string
		want string // sqlString of the first select expression
	}{
		{"SELECT ROW_NUMBER() OVER () FROM t", "ROW_NUMBER() OVER ()"},
		{"SELECT SUM(x) OVER (PARTITION BY g, h ORDER BY d DESC, e) FROM t", "SUM(x) OVER (PARTITION BY g, h ORDER BY d DESC, e)"},
		{"SELECT SUM(x) OVER (ORDER BY d ROWS 2 PRECEDING) FROM t", "SUM(x) OVER (ORDER BY d ROWS 2 PRECEDING)"},
		{"SELECT COUNT(*) OVER (ORDER BY d RANGE BETWEEN INTERVAL 1 DAY PRECEDING AND UNBOUNDED FOLLOWING) FROM t",
			"COUNT(*) OVER (ORDER BY d RANGE BETWEEN INTERVAL 1 DAY PRECEDING AND UNBOUNDED FOLLOWING)"},
		{"SELECT LAG(x, 2, 0) OVER w FROM t WINDOW w AS (PARTITION BY g ORDER BY d)", "LAG(x, 2, 0) OVER w"},
		{"SELECT rank()  over (w order by d) FROM t WINDOW w AS (PARTITION BY g)", "rank()  over (w order by d)"},
		{"SELECT RANK() OVER w2 FROM t WINDOW w1 AS (PARTITION BY g), w2 AS (w1 ORDER BY d)", "RANK() OVER w2"},
		{"SELECT NTH_VALUE(x, 2) FROM FIRST RESPECT NULLS OVER (ORDER BY d) FROM t", "NTH_VALUE(x, 2) FROM FIRST RESPECT NULLS OVER (ORDER BY d)"},
		{`SELECT LEAD(x, 1, 'it''s 50\% done') OVER () FROM t`, `LEAD(x, 1, 'it''s 50\% done') OVER ()`},
		{"SELECT (SELECT MAX(y) OVER () FROM u LIMIT 1) FROM t", "(select MAX(y) OVER () from u limit 1)"},
		{"SELECT `over` FROM t /* OVER () */", "over"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			stmt, err := Parse(tt.sql)
			if err != nil {
				t.Fatal(err)
			}
			got := sqlString(stmt.(*sqlparser.Select).SelectExprs[0])
			if got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// TestRewriteWindowsErrors: MySQL's refusals of window definitions, by number.
func TestRewriteWindowsErrors(t *testing.T) {
	tests := []struct {
		sql  string
		code int
	}{
		{"SELECT RANK() OVER w FROM t", 3579},
		{"SELECT RANK() OVER w FROM t WINDOW v AS ()", 3579},
		{"SELECT RANK() OVER w FROM t WINDOW w AS (), w AS ()", 3591},
		{"SELECT RANK() OVER a FROM t WINDOW a AS (b), b AS (a)", 3580},
		{"SELECT RANK() OVER (w PARTITION BY g) FROM t WINDOW w AS ()", 3581},
		{"SELECT RANK() OVER (w ORDER BY g) FROM t WINDOW w AS (ROWS CURRENT ROW)", 3582},
		{"SELECT RANK() OVER (w ORDER BY g) FROM t WINDOW w AS (ORDER BY h)", 3583},
		{"SELECT LAG(x) IGNORE NULLS OVER () FROM t", 1235},
		{"SELECT NTH_VALUE(x, 2) FROM LAST OVER () FROM t", 1235},
		{"SELECT RANK() OVER (ORDER BY) FROM t", 1064},
		{"SELECT RANK() OVER (ORDER BY x ROWS SIDEWAYS) FROM t", 1064},
		{"SELECT RANK() OVER (x y z) FROM t", 1064},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			_, err := Parse(tt.sql)
			var we *WindowError
			if !errors.As(err, &we) || we.Code != tt.code {
				t.Fatalf("got %v, want MySQL error %d", err, tt.code)
			}
		})
	}
}

// TestWindowPlanTypes: MySQL's result types (ROW_NUMBER and the ranks BIGINT, PERCENT_RANK and
// CUME_DIST DOUBLE, LAG its argument's) and that a window plans no LIMIT into the scan.
func TestWindowPlanTypes(t *testing.T) {
	q := mustQuery(t, "SELECT ROW_NUMBER() OVER (ORDER BY Priority), PERCENT_RANK() OVER (ORDER BY Priority), CUME_DIST() OVER (), LAG(Name) OVER (ORDER BY Priority), NTILE(3) OVER () FROM Tasks ORDER BY Priority LIMIT 2")
	want := []string{"INT64", "FLOAT64", "FLOAT64", "TEXT", "INT64"}
	for i, c := range q.Columns {
		if c.DatabaseType != want[i] {
			t.Errorf("column %d (%s): got %s, want %s", i, c.Name, c.DatabaseType, want[i])
		}
	}
	if q.Scan.Request.MaxRecords != 0 || len(q.Scan.Request.Sort) != 0 {
		t.Errorf("a window's input is every row: got maxRecords %d, sort %v", q.Scan.Request.MaxRecords, q.Scan.Request.Sort)
	}
	if len(q.Windows) != 5 || q.Windows[0].Spec != q.Windows[1].Spec || q.Windows[0].Spec == q.Windows[2].Spec {
		t.Errorf("windows written alike share one spec (sorted once): got %d windows", len(q.Windows))
	}
}

func mustQuery(t *testing.T, sql string) *Query {
	t.Helper()
	stmt, err := Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	q, err := NewQuery(stmt.(*sqlparser.Select), loadSchema(t), Args{})
	if err != nil {
		t.Fatal(err)
	}
	return q
}
