package airsql

import (
	"context"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/airsql/airsql/internal/oracle"
)

var oracleWindows = flag.Int("oracle.windows", 0, "number of generated window queries of TestOracleWindows (0: 1000 under CI=true, else 200); query i uses seed oracle.seed+i")

// TestOracleWindows runs generated window-function queries (internal/oracle/gen_window.go: every
// function, frame and partition shape, over groups, in ORDER BY, top-N per group in derived
// tables and WITH) against MariaDB and the driver, both ways.
func TestOracleWindows(t *testing.T) {
	ctx := context.Background()
	maria, fx, pushed, local := startOracle(t)
	n := *oracleWindows
	if n == 0 {
		n = 200
		if os.Getenv("CI") == "true" {
			n = 1000
		}
	}
	gen := oracle.NewGenerator(fx.Schema)
	start := time.Now()
	failures := 0
	var unanswered []uint64 // seeds MariaDB did not answer within its timeout: not compared
	for i := range n {
		q := gen.WindowQuery(*oracleSeed + uint64(i))
		o := runOracle(ctx, q, maria, pushed, local)
		if o.unanswered() {
			unanswered = append(unanswered, q.Seed)
			continue
		}
		problem := o.check()
		if problem == "" {
			continue
		}
		failures++
		if failures <= 20 {
			t.Errorf("seed %d: %s\n  driver:  %s\n  mariadb: %s\n  args:    %#v\n  reproduce: go test -run 'TestOracleWindows$' -oracle.seed=%d -oracle.windows=1 .",
				q.Seed, problem, q.Driver, q.MariaDB, q.Args, q.Seed)
		}
	}
	t.Logf("%d window queries (seeds %d..%d) in %v: %d differences, %d skipped (MariaDB gave no answer within %v): %v",
		n, *oracleSeed, *oracleSeed+uint64(n)-1, time.Since(start).Round(time.Millisecond), failures, len(unanswered), maria.Timeout, unanswered)
}
