package oracle

import (
	"strings"
	"testing"

	"github.com/airsql/airsql/translate"
)

// TestWindowGenerator: window queries are reproducible from their seed, the driver's parser reads
// each one, and every function, frame and shape occurs.
func TestWindowGenerator(t *testing.T) {
	g := NewGenerator(NewFixture(11).Schema)
	seen := map[string]int{}
	for seed := range uint64(2000) {
		q := g.WindowQuery(seed)
		if again := g.WindowQuery(seed); q.Driver != again.Driver || q.MariaDB != again.MariaDB {
			t.Fatalf("seed %d is not reproducible:\n%s\n%s", seed, q.Driver, again.Driver)
		}
		if _, err := translate.Parse(q.Driver); err != nil {
			t.Errorf("seed %d: %v\n%s", seed, err, q.Driver)
		}
		for _, w := range []string{"ROW_NUMBER(", "RANK(", "DENSE_RANK(", "PERCENT_RANK(", "CUME_DIST(", "NTILE(", "LAG(", "LEAD(",
			"FIRST_VALUE(", "LAST_VALUE(", "NTH_VALUE(", "COUNT(", "SUM(", "AVG(", "MIN(", "MAX(", "PARTITION BY", "ROWS BETWEEN",
			"RANGE BETWEEN", "PRECEDING", "FOLLOWING", "INTERVAL", " WINDOW ", "OVER nw", "WITH d AS", "GROUP BY", "FROM FIRST"} {
			if strings.Contains(q.Driver, w) {
				seen[w]++
			}
		}
	}
	for _, w := range []string{"ROW_NUMBER(", "RANK(", "DENSE_RANK(", "PERCENT_RANK(", "CUME_DIST(", "NTILE(", "LAG(", "LEAD(",
		"FIRST_VALUE(", "LAST_VALUE(", "NTH_VALUE(", "COUNT(", "SUM(", "AVG(", "MIN(", "MAX(", "PARTITION BY", "ROWS BETWEEN",
		"RANGE BETWEEN", "PRECEDING", "FOLLOWING", "INTERVAL", " WINDOW ", "OVER nw", "WITH d AS", "GROUP BY", "FROM FIRST"} {
		if seen[w] == 0 {
			t.Errorf("no window query has %s", w)
		}
	}
}
