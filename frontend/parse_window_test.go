package frontend

import (
	"strings"
	"testing"
)

func FuzzRewriteWindows(f *testing.F) {
	for _, s := range []string{
		"SELECT ROW_NUMBER() OVER () FROM t",
		"SELECT SUM(x) OVER (PARTITION BY g ORDER BY d DESC ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING) FROM t",
		"SELECT RANK() OVER w FROM t WINDOW w AS (ORDER BY x), v AS (w ROWS CURRENT ROW) ORDER BY 1",
		"SELECT COUNT(*) OVER (ORDER BY d RANGE INTERVAL 1 DAY PRECEDING) FROM t",
		"SELECT 'OVER ()', `over`, x over FROM t",
		"SELECT f(g(x) OVER (), (SELECT h() OVER w FROM u WINDOW w AS ())) OVER () FROM t",
		"SELECT a OVER ( FROM t",
		"SELECT NTH_VALUE(x, 2) FROM FIRST OVER () FROM t",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		out, err := rewriteWindows(sql)
		if err != nil {
			return
		}
		if !strings.Contains(strings.ToLower(sql), "over") && !strings.Contains(strings.ToLower(sql), "window") && out != sql {
			t.Fatalf("a statement without OVER changed: %q -> %q", sql, out)
		}
		_, _ = ParseSQL(sql) // never panics
	})
}
