package airsql

import (
	"flag"
	"testing"

	"github.com/airsql/airsql/internal/oracle"
)

var oracleWindows = flag.Int("oracle.windows", 0, "number of generated window queries of TestOracleWindows (0: 1000 under CI=true, else 200); query i uses seed oracle.seed+i")

// TestOracleWindows runs generated window-function queries (internal/oracle/gen_window.go: every
// function, frame and partition shape, over groups, in ORDER BY, top-N per group in derived
// tables and WITH) against MariaDB and the driver, both ways.
func TestOracleWindows(t *testing.T) {
	runGenerated(t, "window", "TestOracleWindows", "oracle.windows", *oracleWindows, func(g *oracle.Generator, seed uint64) *oracle.Query {
		return g.WindowQuery(seed)
	})
}
