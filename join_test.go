package airsql

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/airsql/airsql/emulator"
)

// openDemo serves the emulator's demo base (40 people, 20 projects, 300 tasks, linked records) and
// opens a database on it.
func openDemo(t testing.TB, params string, opts ...emulator.Option) (*sql.DB, *emulator.Server) {
	t.Helper()
	all := append([]emulator.Option{emulator.WithDemo(), emulator.WithRate(0, 0), emulator.WithTokenRate(0)}, opts...)
	srv, err := emulator.New(all...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	dsn := "airtable://" + emulator.DemoToken + "@localhost/" + emulator.DemoBaseID + "?tls=false"
	if params != "" {
		dsn += "&" + params
	}
	db, _ := openDSN(t, dsn, srv.Client())
	return db, srv
}

func TestJoinSmoke(t *testing.T) {
	db, srv := openDemo(t, "")
	warmSchema(t, db, srv)
	for _, q := range []string{
		"SELECT t.Name, p.Name, p.Role FROM Tasks t JOIN People p ON p.id = t.Assignee WHERE p.Role = 'QA' ORDER BY t.Name LIMIT 5",
		"SELECT p.Role, COUNT(*) FROM Tasks t JOIN People p ON p.id = t.Assignee GROUP BY p.Role ORDER BY 1",
		"SELECT pr.Name, p.Email FROM Projects pr LEFT JOIN People p ON p.id = pr.Lead ORDER BY pr.Name LIMIT 5",
	} {
		srv.ResetRequests()
		got := rowTexts(t, db, q)
		t.Logf("%s\n%s", q, strings.Join(got, "\n"))
		for _, r := range dataRequests(srv) {
			t.Logf("  %s %s", r.Method, r.Query)
		}
	}
}
