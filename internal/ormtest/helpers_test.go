package ormtest

import (
	"database/sql"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/airsql/airsql"
	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/transport"
)

const baseID = "appORMTEST0000001"

func TestMain(m *testing.M) {
	// Tests run against an unlimited emulator; the benchmarks turn the service's pacing back on.
	transport.APILimit = 0
	// GORM's PrepareStmt mode starts a cache-expiry goroutine that GORM never stops.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("gorm.io/gorm/internal/lru.NewLRU[...].func1"))
}

// newBase serves an empty base in-process (no tables: the tests create them through DDL, as an
// application's first AutoMigrate does) and opens the driver on it. opts may set a rate or a
// latency; by default there is neither.
func newBase(t testing.TB, opts ...emulator.Option) (*emulator.Server, *sql.DB) {
	t.Helper()
	return newBaseWith(t, nil, opts...)
}

// newBaseWith serves a base holding tables (made as in Airtable itself, not through DDL) and
// opens the driver on it.
func newBaseWith(t testing.TB, tables []emulator.FixtureTable, opts ...emulator.Option) (*emulator.Server, *sql.DB) {
	t.Helper()
	fixture := &emulator.Fixture{Bases: []emulator.FixtureBase{{ID: baseID, Name: "ORM tests", Tables: tables}}}
	all := append([]emulator.Option{emulator.WithFixture(fixture), emulator.WithRate(0, 0), emulator.WithTokenRate(0)}, opts...)
	srv, err := emulator.New(all...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cfg, err := airsql.ParseDSN("airtable://" + emulator.DefaultToken + "@localhost/" + baseID + "?tls=false")
	if err != nil {
		t.Fatal(err)
	}
	cfg.HTTPClient = srv.Client()
	c, err := airsql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	return srv, db
}

// idPattern matches the table and record ids in a path.
var idPattern = regexp.MustCompile(`(tbl|rec)[A-Za-z0-9]{14}`)

// sent returns the requests served since the last call, as "METHOD path" with the base id cut
// off and table and record ids shortened to "tbl" and "rec", without the schema's GETs, and
// forgets them.
func sent(t testing.TB, srv *emulator.Server) []string {
	t.Helper()
	var out []string
	for _, r := range srv.Requests() {
		if r.Method == "GET" && strings.HasPrefix(r.Path, "/v0/meta/") {
			continue
		}
		p := strings.TrimPrefix(r.Path, "/v0/")
		p = strings.TrimPrefix(p, baseID+"/")
		p = strings.TrimPrefix(p, "meta/bases/"+baseID+"/")
		p = idPattern.ReplaceAllStringFunc(p, func(id string) string { return id[:3] })
		out = append(out, r.Method+" "+p)
	}
	srv.ResetRequests()
	return out
}

// requests returns the data requests served since the last reset, with their queries and bodies.
func requests(srv *emulator.Server) []emulator.Request {
	var out []emulator.Request
	for _, r := range srv.Requests() {
		if r.Method == "GET" && strings.HasPrefix(r.Path, "/v0/meta/") {
			continue
		}
		out = append(out, r)
	}
	return out
}

// formula returns the filterByFormula of a list request, or "".
func formula(t testing.TB, r emulator.Request) string {
	t.Helper()
	v, err := url.ParseQuery(r.Query)
	if err != nil {
		t.Fatal(err)
	}
	return v.Get("filterByFormula")
}

// writes keeps the requests of sent that are not GETs.
func writes(s []string) []string {
	var out []string
	for _, r := range s {
		if !strings.HasPrefix(r, "GET ") {
			out = append(out, r)
		}
	}
	return out
}
