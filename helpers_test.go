package airsql

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/transport"
)

const (
	testBase   = "appTEST0000000001"
	tasksTable = "tblTASKS000000001"
	tasksPath  = "/v0/" + testBase + "/" + tasksTable
)

func TestMain(m *testing.M) {
	// Tests run against an unlimited emulator; the pacing of 5 requests per second would only make
	// them slow. The benchmark at the service's rate turns it back on.
	transport.APILimit = 0
	goleak.VerifyTestMain(m)
}

// newEmulator serves testdata/base.json in-process, with no rate limit (per base or per token)
// unless opts set one.
func newEmulator(t testing.TB, opts ...emulator.Option) *emulator.Server {
	t.Helper()
	return serveFixtureFile(t, "testdata/base.json", opts...)
}

// serveFixtureFile serves the fixture file at path in-process, with no rate limit (per base or per
// token) unless opts set one.
func serveFixtureFile(t testing.TB, path string, opts ...emulator.Option) *emulator.Server {
	t.Helper()
	all := append([]emulator.Option{emulator.WithFixture(loadFixture(t, path)), emulator.WithRate(0, 0), emulator.WithTokenRate(0)}, opts...)
	srv, err := emulator.New(all...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// loadFixture reads the fixture file at path.
func loadFixture(t testing.TB, path string) *emulator.Fixture {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := emulator.ParseFixture(data)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return f
}

// testDSN is the DSN of the test base on a loopback host, over plain HTTP.
func testDSN(params string) string {
	dsn := "airtable://" + emulator.DefaultToken + "@localhost/" + testBase + "?tls=false"
	if params != "" {
		dsn += "&" + params
	}
	return dsn
}

// openDB opens a *sql.DB on srv through the in-process transport (sql.OpenDB on a Connector).
func openDB(t testing.TB, srv *emulator.Server, params string) (*sql.DB, *Connector) {
	t.Helper()
	return openDSN(t, testDSN(params), srv.Client())
}

// openDSN opens a *sql.DB on a Connector for dsn whose requests go through client; the test's
// cleanup closes it.
func openDSN(t testing.TB, dsn string, client *http.Client) (*sql.DB, *Connector) {
	t.Helper()
	cfg, err := ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.HTTPClient = client
	c, err := NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	return db, c
}

// dataRequests returns the requests served since the last reset, without the schema requests
// (the schema is fetched once per connector and cached).
func dataRequests(srv *emulator.Server) []emulator.Request {
	var out []emulator.Request
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.Path, "/v0/meta/") {
			continue
		}
		out = append(out, r)
	}
	return out
}

// warmSchema runs a query so that the schema is cached, then forgets the requests so far.
func warmSchema(t testing.TB, db *sql.DB, srv *emulator.Server) {
	t.Helper()
	if err := db.PingContext(context.Background()); err != nil {
		t.Fatalf("ping: %v", err)
	}
	srv.ResetRequests()
}

// queryValues parses a request's raw query.
func queryValues(t testing.TB, r emulator.Request) url.Values {
	t.Helper()
	v, err := url.ParseQuery(r.Query)
	if err != nil {
		t.Fatalf("request query %q: %v", r.Query, err)
	}
	return v
}

// scanAll reads every row as []any of driver values.
func scanAll(t testing.TB, rows *sql.Rows) [][]any {
	t.Helper()
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// queryColumn runs a query and returns the first column of each row as text ("NULL" for nil).
func queryColumn(t testing.TB, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	var out []string
	for _, row := range scanAll(t, rows) {
		if row[0] == nil {
			out = append(out, "NULL")
			continue
		}
		out = append(out, toString(row[0]))
	}
	return out
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// connOn returns one connection of db, closed when the test ends: statements that keep session
// state (transactions, user variables, PREPARE) must run on the same connection.
func connOn(t testing.TB, db *sql.DB) *sql.Conn {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
