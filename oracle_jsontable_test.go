package airsql

import (
	"context"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/airsql/airsql/internal/oracle"
)

var oracleJSONTables = flag.Int("oracle.jsontable", 0, "number of generated JSON_TABLE queries of TestOracleJSONTable (0: 1000 under CI=true, else 200); query i uses seed oracle.seed+i")

// TestOracleJSONTable runs generated JSON_TABLE queries (internal/oracle/gen_jsontable.go: list
// cells unnested with a comma, JOIN and LEFT JOIN … ON TRUE, filtered and grouped; constant
// documents with NESTED PATHs) against MariaDB and the driver, both ways.
func TestOracleJSONTable(t *testing.T) {
	ctx := context.Background()
	maria, fx, pushed, local := startOracle(t)
	n := *oracleJSONTables
	if n == 0 {
		n = 200
		if os.Getenv("CI") == "true" {
			n = 1000
		}
	}
	gen := oracle.NewGenerator(fx.Schema)
	start := time.Now()
	failures, withRows := 0, 0
	for i := range n {
		q := gen.JSONTableQuery(*oracleSeed + uint64(i))
		o := runOracle(ctx, q, maria.DB, pushed, local)
		problem := o.check()
		if problem == "" && o.maria.Err != nil {
			problem = "MariaDB refused the generated SQL: " + o.maria.Err.Error()
		}
		if problem == "" {
			if len(o.maria.Rows) > 0 {
				withRows++
			}
			continue
		}
		failures++
		if failures <= 20 {
			t.Errorf("seed %d: %s\n  driver:  %s\n  mariadb: %s\n  args:    %#v\n  reproduce: go test -run 'TestOracleJSONTable$' -oracle.seed=%d -oracle.jsontable=1 .",
				q.Seed, problem, q.Driver, q.MariaDB, q.Args, q.Seed)
		}
	}
	t.Logf("%d JSON_TABLE queries (seeds %d..%d) in %v: %d differences; %d of the agreeing answers have rows", n, *oracleSeed, *oracleSeed+uint64(n)-1,
		time.Since(start).Round(time.Millisecond), failures, withRows)
}
