package airsql

import (
	"context"
	"errors"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/airsql/airsql/internal/oracle"
	"github.com/go-sql-driver/mysql"
)

var oracleJSONTables = flag.Int("oracle.jsontable", 0, "number of generated JSON_TABLE queries of TestOracleJSONTable (0: 1000 under CI=true, else 200); query i uses seed oracle.seed+i")

// TestOracleJSONTable runs generated JSON_TABLE queries (internal/oracle/gen_jsontable.go: list
// cells unnested with a comma, JOIN and LEFT JOIN … ON TRUE, filtered and grouped; constant
// documents with NESTED PATHs) against MariaDB and the driver, both ways.
func TestOracleJSONTable(t *testing.T) {
	runGenerated(t, "JSON_TABLE", "TestOracleJSONTable", "oracle.jsontable", *oracleJSONTables, func(g *oracle.Generator, seed uint64) *oracle.Query {
		return g.JSONTableQuery(seed)
	})
}

// runGenerated runs n generated queries of one kind (0: 200, or 1000 under CI=true; query i of
// seed oracle.seed+i) against MariaDB and the driver, both ways: each must agree, and MariaDB
// must answer it (a query it refuses proves nothing). flagName is the test's flag of n.
func runGenerated(t *testing.T, what, testName, flagName string, n int, query func(g *oracle.Generator, seed uint64) *oracle.Query) {
	ctx := context.Background()
	maria, fx, pushed, local := startOracle(t)
	if n == 0 {
		n = 200
		if os.Getenv("CI") == "true" {
			n = 1000
		}
	}
	gen := oracle.NewGenerator(fx.Schema)
	start := time.Now()
	failures, withRows := 0, 0
	var unanswered []uint64 // seeds MariaDB did not answer within its timeout: not compared
	for i := range n {
		q := query(gen, *oracleSeed+uint64(i))
		o := runOracle(ctx, q, maria, pushed, local)
		if o.unanswered() {
			unanswered = append(unanswered, q.Seed)
			continue
		}
		problem := o.check()
		if problem == "" && o.maria.Err != nil && q.Refusal == "" && !sameErrorNumber(o.maria.Err, o.push.Err, o.loc.Err) {
			// A refusal the driver does not share is the generator's fault (SQL MariaDB cannot
			// read); the same error on both sides (a BIGINT overflow, 1690) is their answer.
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
			t.Errorf("seed %d: %s\n  driver:  %s\n  mariadb: %s\n  args:    %#v\n  reproduce: go test -run '%s$' -oracle.seed=%d -%s=1 .",
				q.Seed, problem, q.Driver, q.MariaDB, q.Args, testName, q.Seed, flagName)
		}
	}
	t.Logf("%d %s queries (seeds %d..%d) in %v: %d differences; %d of the agreeing answers have rows; %d skipped (MariaDB gave no answer within %v): %v",
		n, what, *oracleSeed, *oracleSeed+uint64(n)-1, time.Since(start).Round(time.Millisecond), failures, withRows, len(unanswered), maria.Timeout, unanswered)
}

// sameErrorNumber reports whether every driver error is MariaDB's error by MySQL's number.
func sameErrorNumber(maria error, driver ...error) bool {
	var me *mysql.MySQLError
	if !errors.As(maria, &me) {
		return false
	}
	for _, err := range driver {
		if code, _ := MySQLErrorCode(err); err == nil || code != me.Number {
			return false
		}
	}
	return true
}
