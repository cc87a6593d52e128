package airsql

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/internal/oracle"
	"github.com/airsql/airsql/transport"
)

// listingRequests counts the record listings among requests (GET /v0/{base}/{table} and POST
// …/listRecords): what a read from the replica must not send.
func listingRequests(reqs []emulator.Request) int {
	n := 0
	for _, r := range reqs {
		if strings.HasPrefix(r.Path, "/v0/meta/") || strings.HasPrefix(r.Path, "/v0/bases/") {
			continue
		}
		if r.Method == "GET" || strings.HasSuffix(r.Path, "/listRecords") {
			n++
		}
	}
	return n
}

// payloadRequests counts the polls of webhook payloads among requests.
func payloadRequests(reqs []emulator.Request) int {
	n := 0
	for _, r := range reqs {
		if strings.HasSuffix(r.Path, "/payloads") {
			n++
		}
	}
	return n
}

// openReplica opens a connector with replica=memory on srv whose clock is fake: freshness is
// driven by advancing it.
func openReplica(t *testing.T, srv *emulator.Server, params string) (*sql.DB, *clock.Fake) {
	t.Helper()
	db, c := openDB(t, srv, "replica=memory&"+params)
	fake := clock.NewFake(time.Now())
	c.clock = fake
	return db, fake
}

func queryString(t *testing.T, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, query string, args ...any) string {
	t.Helper()
	var s sql.NullString
	if err := db.QueryRowContext(context.Background(), query, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return s.String
}

// TestReplicaFreshness: once a table is copied, reads send no request until the last sync is
// older than freshness; then one poll of the payloads brings another client's write in (so it
// is visible after at most freshness and one round trip); the connection's own writes are read
// at once, from the write's answer.
func TestReplicaFreshness(t *testing.T) {
	srv := newEmulator(t)
	db, fake := openReplica(t, srv, "freshness=5s")
	other, _ := openDB(t, srv, "") // another client, writing live
	ctx := context.Background()

	if got, want := queryString(t, db, "SELECT Name FROM Tasks WHERE Priority = 3"), "Write spec"; got != want {
		t.Fatalf("first read: got %q, want %q", got, want)
	}
	if n := listingRequests(srv.Requests()); n == 0 {
		t.Fatalf("the first read listed nothing: the table was not copied")
	}

	srv.ResetRequests()
	for _, q := range []string{
		"SELECT COUNT(*) FROM Tasks",
		"SELECT Status, COUNT(*), SUM(Estimate) FROM Tasks GROUP BY Status ORDER BY Status",
		"SELECT Name FROM Tasks WHERE Name LIKE 'W%' ORDER BY Priority DESC LIMIT 2",
		"SELECT Name FROM Tasks WHERE Priority IN (SELECT Priority FROM Tasks WHERE Done)",
	} {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		scanAll(t, rows)
	}
	if reqs := srv.Requests(); len(reqs) != 0 {
		t.Fatalf("reads within freshness of the copy: got %d requests (%s %s…), want 0", len(reqs), reqs[0].Method, reqs[0].Path)
	}

	if _, err := other.ExecContext(ctx, "UPDATE Tasks SET Notes = 'changed elsewhere' WHERE Priority = 3"); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	fake.Advance(4 * time.Second)
	if got := queryString(t, db, "SELECT Notes FROM Tasks WHERE Priority = 3"); got != "first" {
		t.Fatalf("within freshness of the last sync: got %q, want the copy's %q", got, "first")
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("a read 4 s after the sync (freshness 5 s): got %d requests, want 0", n)
	}
	fake.Advance(time.Second)
	if got, want := queryString(t, db, "SELECT Notes FROM Tasks WHERE Priority = 3"), "changed elsewhere"; got != want {
		t.Fatalf("5 s after the other client's write: got %q, want %q", got, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || payloadRequests(reqs) != 1 {
		t.Fatalf("the read after freshness: got %d requests (%d payload polls), want exactly one poll of the payloads", len(reqs), payloadRequests(reqs))
	}

	// Own writes: read at once, from the write's answer, with no read request.
	srv.ResetRequests()
	if _, err := db.ExecContext(ctx, "INSERT INTO Tasks (Name, Priority, Status) VALUES ('from the replica', 42, 'Todo')"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "UPDATE Tasks SET Notes = 'mine' WHERE Priority = 3"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "DELETE FROM Tasks WHERE Priority = 1"); err != nil {
		t.Fatal(err)
	}
	before := len(srv.Requests())
	if got, want := queryString(t, db, "SELECT Name FROM Tasks WHERE Priority = 42"), "from the replica"; got != want {
		t.Fatalf("own insert: got %q, want %q", got, want)
	}
	if got, want := queryString(t, db, "SELECT Notes FROM Tasks WHERE Priority = 3"), "mine"; got != want {
		t.Fatalf("own update: got %q, want %q", got, want)
	}
	if got, want := queryString(t, db, "SELECT COUNT(*) FROM Tasks WHERE Priority = 1"), "0"; got != want {
		t.Fatalf("own delete: got %q rows left, want %q", got, want)
	}
	if n := len(srv.Requests()) - before; n != 0 {
		t.Fatalf("reads of own writes: got %d requests, want 0", n)
	}
	// The payloads of those writes, applied later, leave the copy as the base is.
	fake.Advance(5 * time.Second)
	assertReplicaMatchesLive(t, db, other, "SELECT id, Name, Priority, Notes, Status FROM Tasks ORDER BY id")
}

// assertReplicaMatchesLive runs a query on the replica and live and compares the rows.
func assertReplicaMatchesLive(t *testing.T, replicaDB, liveDB *sql.DB, query string, args ...any) {
	t.Helper()
	got, err := queryAll(replicaDB, query, args...)
	if err != nil {
		t.Fatalf("replica: %s: %v", query, err)
	}
	want, err := queryAll(liveDB, query, args...)
	if err != nil {
		t.Fatalf("live: %s: %v", query, err)
	}
	if g, w := formatRows(got), formatRows(want); g != w {
		t.Fatalf("%s:\nreplica: %s\nlive:    %s", query, g, w)
	}
}

// queryAll runs a query and returns its answer as oracle.Answer does (rows and error).
func queryAll(db *sql.DB, query string, args ...any) (*oracle.Result, error) {
	res := oracle.Answer(context.Background(), db, query, args...)
	return res, res.Err
}

// formatRows writes an answer's rows in order, one per line.
func formatRows(r *oracle.Result) string {
	return fmt.Sprint(r.Rows)
}

// countingTransport counts the listing requests one client sends.
type countingTransport struct {
	next     http.RoundTripper
	listings atomic.Int64
	all      atomic.Int64
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.all.Add(1)
	p := req.URL.Path
	if !strings.HasPrefix(p, "/v0/meta/") && !strings.HasPrefix(p, "/v0/bases/") &&
		(req.Method == "GET" || strings.HasSuffix(p, "/listRecords")) {
		c.listings.Add(1)
	}
	return c.next.RoundTrip(req)
}

var replicaDiffN = flag.Int("replica.n", 600, "number of generated queries of TestReplicaDifferential")

// TestReplicaDifferential runs the oracle's generated SELECTs (joins through links, GROUP BY,
// subqueries, every WHERE construct) live and on a replica, with another client's writes
// (updates copying a cell from one record to another or clearing it, creates, deletes) every few
// queries: the answers must be the same. After each round of writes the fake clock moves by
// freshness, so the next read polls; between, the replica sends no listing at all.
func TestReplicaDifferential(t *testing.T) {
	ctx := context.Background()
	fx := oracle.NewFixture(oracleFixtureSeed)
	for i := range fx.Emulator.Tokens {
		fx.Emulator.Tokens[i].Scopes = append(fx.Emulator.Tokens[i].Scopes, "webhook:manage")
	}
	srv, err := emulator.New(emulator.WithFixture(fx.Emulator), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	dsn := "airtable://" + fx.Schema.Token + "@localhost/" + fx.Schema.BaseID + "?tls=false&schemaTTL=1h"
	live, lc := openDSN(t, dsn, srv.Client())
	liveLocal, llc := openDSN(t, dsn, srv.Client())
	llc.localOnly = true
	counted := &countingTransport{next: srv.Transport()}
	rep, rc := openDSN(t, dsn+"&replica=memory&freshness=5s", &http.Client{Transport: counted})
	fake := clock.NewFake(time.Now())
	rc.clock, lc.clock, llc.clock = fake, fake, fake // one NOW() for all
	base, err := transport.NewBase(fx.Schema.Token, fx.Schema.BaseID, transport.WithEndpointURL(emulator.InProcessURL), transport.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}

	rng := rand.New(rand.NewPCG(7, 25))
	gen := oracle.NewGenerator(fx.Schema)
	var compared, writes int
	copiedListings := int64(-1)
	for i := range *replicaDiffN {
		if i > 0 && i%10 == 0 {
			writes += replicaRandomWrites(t, rng, fx.Schema, base)
			fake.Advance(5 * time.Second)
		}
		q := gen.Query(uint64(1000 + i))
		if q.Refusal != "" {
			continue
		}
		want := oracle.Answer(ctx, live, q.Driver, q.Args...)
		got := oracle.Answer(ctx, rep, q.Driver, q.Args...)
		switch {
		case (want.Err == nil) != (got.Err == nil):
			t.Fatalf("seed %d: live error %v, replica error %v\n  %s", q.Seed, want.Err, got.Err, q.Driver)
		case want.Err != nil:
			continue
		}
		if d := oracle.Diff(want, got, q.Ordered); d != "" {
			ll := oracle.Answer(ctx, liveLocal, q.Driver, q.Args...)
			// Which side is wrong: the replica, or pushdown (then live without pushdown agrees).
			t.Logf("live without pushdown vs live: %q; vs replica: %q", oracle.Diff(want, ll, q.Ordered), oracle.Diff(ll, got, q.Ordered))
			t.Fatalf("seed %d, after %d writes: replica differs from live: %s\n  %s\n  args %#v", q.Seed, writes, d, q.Driver, q.Args)
		}
		compared++
		if i == 20 { // every table has been read by now: its copy exists
			copiedListings = counted.listings.Load()
		}
	}
	if compared < *replicaDiffN/2 {
		t.Fatalf("only %d of %d queries compared", compared, *replicaDiffN)
	}
	if n := counted.listings.Load(); copiedListings >= 0 && n != copiedListings {
		t.Errorf("the replica listed records %d times after its copies were made (polls only expected)", n-copiedListings)
	}
	t.Logf("%d queries compared, %d writes by another client; the replica sent %d requests (%d listings, all while copying)",
		compared, writes, counted.all.Load(), counted.listings.Load())
}

// replicaRandomWrites makes a few writes through transport (another client): a cell copied from
// one record to another or cleared, a record created from another's cells, a record deleted.
func replicaRandomWrites(t *testing.T, rng *rand.Rand, schema *oracle.Schema, base *transport.Base) int {
	t.Helper()
	ctx := context.Background()
	n := 0
	for range 1 + rng.IntN(3) {
		tbl := schema.Tables[rng.IntN(len(schema.Tables))]
		recs, err := base.All(ctx, tbl.Name, transport.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) < 2 {
			continue
		}
		var writable []*oracle.Column
		for _, c := range tbl.Columns {
			if !c.Pseudo && !c.Computed && !computedAirType[c.AirType] {
				writable = append(writable, c)
			}
		}
		a, b := recs[rng.IntN(len(recs))], recs[rng.IntN(len(recs))]
		switch k := rng.IntN(10); {
		case k < 6 && len(writable) > 0:
			c := writable[rng.IntN(len(writable))]
			v := b.Fields[c.Name] // nil clears it
			if _, err := base.Update(ctx, tbl.Name, a.ID, map[string]any{c.Name: v}, transport.WriteOptions{}); err != nil {
				t.Fatalf("update %s.%s: %v", tbl.Name, c.Name, err)
			}
		case k < 8:
			fields := map[string]any{}
			for _, c := range writable {
				if v, ok := b.Fields[c.Name]; ok {
					fields[c.Name] = v
				}
			}
			if _, err := base.Create(ctx, tbl.Name, fields, transport.WriteOptions{}); err != nil {
				t.Fatalf("create in %s: %v", tbl.Name, err)
			}
		default:
			if _, err := base.Delete(ctx, tbl.Name, a.ID); err != nil {
				t.Fatalf("delete from %s: %v", tbl.Name, err)
			}
		}
		n++
	}
	return n
}

// computedAirType are the field types no write sets.
var computedAirType = map[string]bool{
	"formula": true, "rollup": true, "count": true, "multipleLookupValues": true, "autoNumber": true,
	"createdTime": true, "lastModifiedTime": true, "createdBy": true, "lastModifiedBy": true, "button": true,
}

// TestReplicaShowAndExplain: SHOW REPLICA STATUS lists each copied table (records, cursor,
// mode, lag); EXPLAIN says a statement reads the copy, how old it is, and that it sends no request.
func TestReplicaShowAndExplain(t *testing.T) {
	srv := newEmulator(t)
	db, fake := openReplica(t, srv, "freshness=5s")
	live, _ := openDB(t, srv, "")
	ctx := context.Background()

	for name, d := range map[string]*sql.DB{"live": live, "replica before any read": db} {
		rows, err := d.QueryContext(ctx, "SHOW REPLICA STATUS")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := scanAll(t, rows); len(got) != 0 {
			t.Fatalf("%s: SHOW REPLICA STATUS: got %d rows, want none", name, len(got))
		}
	}
	explain := func(q string) string {
		t.Helper()
		var lines []string
		for _, r := range oracleRows(t, db, "EXPLAIN "+q) {
			lines = append(lines, strings.Join(r, " "))
		}
		return strings.Join(lines, "\n")
	}
	if got := explain("SELECT Name FROM Tasks WHERE Priority > 2"); !strings.Contains(got, "not copied yet") {
		t.Fatalf("EXPLAIN before the copy: got\n%s\nwant it to say the table is not copied yet", got)
	}
	queryString(t, db, "SELECT COUNT(*) FROM Tasks")
	fake.Advance(2 * time.Second)
	srv.ResetRequests()
	got := explain("SELECT Name FROM Tasks WHERE Priority > 2 ORDER BY Name")
	for _, want := range []string{"read from the local copy (8 records", "last synced 2s ago, freshness 5s: no request", "checked with the WHERE clause"} {
		if !strings.Contains(got, want) {
			t.Errorf("EXPLAIN from the copy: got\n%s\nwant it to contain %q", got, want)
		}
	}
	if strings.Contains(got, "filterByFormula") || strings.Contains(got, "list records") {
		t.Errorf("EXPLAIN from the copy names a request:\n%s", got)
	}
	fake.Advance(4 * time.Second)
	if got := explain("SELECT Name FROM Tasks"); !strings.Contains(got, "one request first") {
		t.Errorf("EXPLAIN 6 s after the sync: got\n%s\nwant it to say the read polls first", got)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("EXPLAIN sent %d requests, want 0", n)
	}

	status := oracleRows(t, db, "SHOW REPLICA STATUS")
	if len(status) != 1 {
		t.Fatalf("SHOW REPLICA STATUS: got %d rows, want 1 (Tasks): %v", len(status), status)
	}
	row := strings.Join(status[0], " | ")
	for _, want := range []string{"s:Tasks", "n:8 ", "s:webhook ach", "n:1 "} {
		if !strings.Contains(row+" ", want) {
			t.Errorf("SHOW REPLICA STATUS row %s: want it to contain %q", row, want)
		}
	}
	if status[0][7] != "n:6" {
		t.Errorf("Lag_seconds: got %s, want n:6 (the fake clock moved 6 s since the sync)", status[0][7])
	}
}

// oracleRows runs a query and returns its rows in oracle's canonical form.
func oracleRows(t *testing.T, db *sql.DB, query string) [][]string {
	t.Helper()
	res := oracle.Answer(context.Background(), db, query)
	if res.Err != nil {
		t.Fatalf("%s: %v", query, res.Err)
	}
	return res.Rows
}

// webhookCreates counts the webhooks created among requests.
func webhookCreates(reqs []emulator.Request) int {
	n := 0
	for _, r := range reqs {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/webhooks") {
			n++
		}
	}
	return n
}

// TestReplicaDirRestart: with replica=DIR a new connector (a restarted process) resumes the
// copy and the webhook from the directory: it lists nothing and creates no webhook, polls the
// payloads from the stored cursor, and sees what changed while it was down.
func TestReplicaDirRestart(t *testing.T) {
	srv := newEmulator(t)
	dir := t.TempDir()
	other, _ := openDB(t, srv, "")
	ctx := context.Background()

	first, _ := openDB(t, srv, "replica="+dir)
	if got, want := queryString(t, first, "SELECT COUNT(*) FROM Tasks"), "8"; got != want {
		t.Fatalf("first process: got %s tasks, want %s", got, want)
	}
	first.Close()
	if _, err := other.ExecContext(ctx, "UPDATE Tasks SET Notes = 'while it was down' WHERE Priority = 3"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.ExecContext(ctx, "DELETE FROM Tasks WHERE Priority = 1"); err != nil {
		t.Fatal(err)
	}

	srv.ResetRequests()
	second, _ := openDB(t, srv, "replica="+dir)
	if got, want := queryString(t, second, "SELECT Notes FROM Tasks WHERE Priority = 3"), "while it was down"; got != want {
		t.Fatalf("after the restart: got %q, want %q", got, want)
	}
	assertReplicaMatchesLive(t, second, other, "SELECT id, Name, Priority, Notes FROM Tasks ORDER BY id")
	reqs := srv.Requests()
	if n := listingRequests(reqs); n != 1 { // the live side's one listing
		t.Errorf("after the restart: got %d listings in all, want 1 (the live comparison's): the copy was listed again", n)
	}
	if n := webhookCreates(reqs); n != 0 {
		t.Errorf("after the restart: got %d webhooks created, want 0 (resumed from the directory)", n)
	}
	if n := payloadRequests(reqs); n == 0 {
		t.Errorf("after the restart: no payload was polled")
	}
	status := oracleRows(t, second, "SHOW REPLICA STATUS")
	if len(status) != 1 || status[0][8] != "n:1" {
		t.Errorf("SHOW REPLICA STATUS after the restart: got %v, want one row with Copies 1", status)
	}
}

// TestReplicaPolling: where the service refuses the webhook (a token without webhook:manage),
// the replica polls instead and says so once (the notice), in SHOW REPLICA STATUS and in
// EXPLAIN. Another client's change to a record is read after at most freshness and one poll (one
// request: the listing of the records changed since the last poll); a record it deletes is gone
// after replicaFullCheck (the id listing); the connection's own writes are read at once.
func TestReplicaPolling(t *testing.T) {
	const token = "patNOHOOKS.secret"
	srv := newEmulator(t, emulator.WithFixture(&emulator.Fixture{Tokens: []emulator.FixtureToken{{Token: token,
		Bases: []string{testBase}, Scopes: []string{"data.records:read", "data.records:write", "schema.bases:read"}}}}))
	dsn := "airtable://" + token + "@localhost/" + testBase + "?tls=false"
	db, c := openDSN(t, dsn+"&replica=memory&freshness=5s&replicaFullCheck=1m", srv.Client())
	fake := clock.NewFake(time.Now())
	c.clock = fake
	var notices []string
	c.notice = func(msg string) { notices = append(notices, msg) }
	other, _ := openDSN(t, dsn, srv.Client())
	ctx := context.Background()

	if got, want := queryString(t, db, "SELECT Name FROM Tasks WHERE Priority = 3"), "Write spec"; got != want {
		t.Fatalf("first read: got %q, want %q", got, want)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "polls instead") || !strings.Contains(notices[0], "webhook:manage") {
		t.Fatalf("notices after the first read: got %q, want one saying the replica polls and how to follow a webhook", notices)
	}
	if strings.Contains(notices[0], "patNOHOOKS") {
		t.Errorf("the notice shows the token: %s", notices[0])
	}
	for _, q := range []string{
		"UPDATE Tasks SET Notes = 'changed elsewhere' WHERE Priority = 3",
		"DELETE FROM Tasks WHERE Priority = 1",
	} {
		if _, err := other.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	srv.ResetRequests()
	fake.Advance(4 * time.Second)
	if got := queryString(t, db, "SELECT Notes FROM Tasks WHERE Priority = 3"); got != "first" {
		t.Fatalf("within freshness of the last poll: got %q, want the copy's %q", got, "first")
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("a read 4 s after the copy (freshness 5 s): got %d requests, want 0", n)
	}
	fake.Advance(time.Second)
	if got, want := queryString(t, db, "SELECT Notes FROM Tasks WHERE Priority = 3"), "changed elsewhere"; got != want {
		t.Fatalf("5 s after the other client's write: got %q, want %q", got, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].Query, "LAST_MODIFIED_TIME") {
		t.Fatalf("the read after freshness: got %d requests, want exactly one listing of the records changed since the last poll", len(reqs))
	}
	if got := queryString(t, db, "SELECT COUNT(*) FROM Tasks WHERE Priority = 1"); got != "1" {
		t.Fatalf("a record deleted elsewhere, before replicaFullCheck: got %s rows, want the copy's 1", got)
	}
	fake.Advance(time.Minute)
	if got := queryString(t, db, "SELECT COUNT(*) FROM Tasks WHERE Priority = 1"); got != "0" {
		t.Fatalf("a record deleted elsewhere, replicaFullCheck later: got %s rows, want 0", got)
	}

	srv.ResetRequests()
	if _, err := db.ExecContext(ctx, "UPDATE Tasks SET Notes = 'mine' WHERE Priority = 3"); err != nil {
		t.Fatal(err)
	}
	before := len(srv.Requests())
	if got, want := queryString(t, db, "SELECT Notes FROM Tasks WHERE Priority = 3"), "mine"; got != want {
		t.Fatalf("own update: got %q, want %q", got, want)
	}
	if n := len(srv.Requests()) - before; n != 0 {
		t.Fatalf("the read of an own write: got %d requests, want 0", n)
	}

	status := oracleRows(t, db, "SHOW REPLICA STATUS")
	if len(status) != 1 || status[0][2] != "s:polling" {
		t.Errorf("SHOW REPLICA STATUS: got %v, want one row (Tasks) in Mode polling", status)
	}
	var lines []string
	for _, r := range oracleRows(t, db, "EXPLAIN SELECT Name FROM Tasks") {
		lines = append(lines, strings.Join(r, " "))
	}
	if got := strings.Join(lines, "\n"); !strings.Contains(got, "polling: the service refused the webhook") || !strings.Contains(got, "replicaFullCheck (1m0s)") {
		t.Errorf("EXPLAIN: got\n%s\nwant it to say the copy polls, and when deletions are found", got)
	}
	if len(notices) != 1 {
		t.Errorf("got %d notices, want the one", len(notices))
	}
	assertReplicaMatchesLive(t, db, other, "SELECT id, Name, Priority, Notes, Status FROM Tasks ORDER BY id")
}

// demoWheres are conditions on the demo base's Tasks: every field type it has, computed ones
// (formula, lookup, autonumber, created time) included.
var demoWheres = []string{
	"Priority > 2", "Priority BETWEEN 1 AND 3", "Status = 'Done'", "Status IN ('Todo', 'Blocked')", "Done", "NOT Done",
	"Name LIKE 'Fix%'", "Name LIKE '%page%'", "Due < '2024-03-01'", "Due IS NULL", "`Estimate Hours` >= 4",
	"Effort = 5", "`Project Status` = 'Active'", "Score > 4", "Label LIKE '%(Done)%'", "`Task ID` < 50",
	"Created > '2020-01-01'", "Assignee IS NULL", "Notes IS NOT NULL", "Priority = 3 OR Status = 'Blocked'",
	"COALESCE(Priority, 0) + 1 > 3", "LENGTH(Name) > 20", "YEAR(Due) = 2024 AND MONTH(Due) <= 6", "`Started At` IS NOT NULL",
	"Priority IN (SELECT Priority FROM Tasks WHERE Done)", "Reviewer IS NULL", "Tags IS NULL", "UPPER(Status) = 'TODO'",
}

// demoShapes are the statements a condition goes into.
var demoShapes = []string{
	"SELECT id, Name, Priority, Status FROM Tasks WHERE %s ORDER BY id",
	"SELECT Status, COUNT(*), SUM(Priority), MAX(Due) FROM Tasks WHERE %s GROUP BY Status ORDER BY Status",
	"SELECT Name, Priority FROM Tasks WHERE %s ORDER BY Priority DESC, Name LIMIT 7",
	"SELECT p.Name, COUNT(*), SUM(t.`Estimate Hours`) FROM Tasks t JOIN Projects p ON p.id = t.Project WHERE t.%s GROUP BY p.Name ORDER BY p.Name",
	"SELECT Name, Role FROM People WHERE id IN (SELECT Assignee FROM Tasks WHERE %s) ORDER BY Name",
	"SELECT Name, `Task Count`, `Estimated Hours`, `Lead Email` FROM Projects WHERE id IN (SELECT Project FROM Tasks WHERE %s) ORDER BY Name",
	"SELECT COUNT(*) FROM Tasks WHERE %s",
}

// TestReplicaDemoDifferential: on the demo base (links, lookups, rollups, counts, formulas,
// collaborators), seeded random statements from demoShapes × demoWheres run live and on a
// replica, with another client's writes (links moved, numbers and selects changed, records
// created and deleted) between rounds: the answers must be the same.
func TestReplicaDemoDifferential(t *testing.T) {
	ctx := context.Background()
	srv, err := emulator.New(emulator.WithDemo(), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	dsn := "airtable://" + emulator.DemoToken + "@localhost/" + emulator.DemoBaseID + "?tls=false"
	live, lc := openDSN(t, dsn, srv.Client())
	rep, rc := openDSN(t, dsn+"&replica=memory&freshness=5s", srv.Client())
	fake := clock.NewFake(time.Now())
	lc.clock, rc.clock = fake, fake
	base, err := transport.NewBase(emulator.DemoToken, emulator.DemoBaseID, transport.WithEndpointURL(emulator.InProcessURL), transport.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	ids := func(table string) []string {
		recs, err := base.All(ctx, table, transport.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(recs))
		for i, r := range recs {
			out[i] = r.ID
		}
		return out
	}
	projects, people := ids("Projects"), ids("People")
	rng := rand.New(rand.NewPCG(25, 2))
	statuses := []string{"Todo", "In Progress", "Blocked", "Done"}
	compared := 0
	for round := range 30 {
		if round > 0 {
			tasks := ids("Tasks")
			for range 1 + rng.IntN(4) {
				id := tasks[rng.IntN(len(tasks))]
				var err error
				switch rng.IntN(7) {
				case 0:
					_, err = base.Update(ctx, "Tasks", id, map[string]any{"Project": []string{projects[rng.IntN(len(projects))]}}, transport.WriteOptions{})
				case 1:
					_, err = base.Update(ctx, "Tasks", id, map[string]any{"Assignee": []string{people[rng.IntN(len(people))]}}, transport.WriteOptions{})
				case 2:
					_, err = base.Update(ctx, "Tasks", id, map[string]any{"Priority": rng.IntN(5), "Estimate Hours": float64(rng.IntN(80)) / 2}, transport.WriteOptions{})
				case 3:
					_, err = base.Update(ctx, "Tasks", id, map[string]any{"Status": statuses[rng.IntN(len(statuses))], "Done": rng.IntN(2) == 0}, transport.WriteOptions{})
				case 4:
					_, err = base.Create(ctx, "Tasks", map[string]any{"Name": fmt.Sprintf("Fix round %d page", round), "Priority": rng.IntN(5),
						"Project": []string{projects[rng.IntN(len(projects))]}, "Status": "Todo"}, transport.WriteOptions{})
				case 5:
					_, err = base.Delete(ctx, "Tasks", id)
				case 6:
					_, err = base.Update(ctx, "Projects", projects[rng.IntN(len(projects))], map[string]any{"Status": "Active"}, transport.WriteOptions{})
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			fake.Advance(5 * time.Second)
		}
		for range 20 {
			q := fmt.Sprintf(demoShapes[rng.IntN(len(demoShapes))], demoWheres[rng.IntN(len(demoWheres))])
			want := oracle.Answer(ctx, live, q)
			got := oracle.Answer(ctx, rep, q)
			if (want.Err == nil) != (got.Err == nil) {
				t.Fatalf("round %d: %s\n live error %v, replica error %v", round, q, want.Err, got.Err)
			}
			if want.Err != nil {
				continue
			}
			if d := oracle.Diff(want, got, true); d != "" {
				t.Fatalf("round %d: %s\n replica differs from live: %s", round, q, d)
			}
			compared++
		}
	}
	if compared < 400 {
		t.Fatalf("only %d statements compared (the others failed on both sides)", compared)
	}
	t.Logf("%d of 600 statements compared", compared)
}

// TestReplicaPollsAhead: a read that finds the last sync close to freshness (less than two
// polls' time left) starts one poll in the background instead of waiting for it at the next read:
// after it, the other client's write is in the copy and the next read sends nothing.
func TestReplicaPollsAhead(t *testing.T) {
	srv := newEmulator(t)
	db, c := openDB(t, srv, "replica=memory&freshness=5s")
	fake := clock.NewFake(time.Now())
	c.clock = fake
	other, _ := openDB(t, srv, "")
	queryString(t, db, "SELECT COUNT(*) FROM Tasks")
	if _, err := other.Exec("UPDATE Tasks SET Notes = 'ahead' WHERE Priority = 3"); err != nil {
		t.Fatal(err)
	}
	c.replica.mu.Lock()
	c.replica.pollTime = 2 * time.Second // as measured at 300 ms of latency under load: lead = 2.5 s
	c.replica.mu.Unlock()
	srv.ResetRequests()
	fake.Advance(2 * time.Second)
	queryString(t, db, "SELECT COUNT(*) FROM Tasks") // 3 s left: no poll yet
	c.replica.polls.Wait()
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("2 s after the sync: got %d requests, want 0", n)
	}
	fake.Advance(time.Second)
	queryString(t, db, "SELECT COUNT(*) FROM Tasks") // 2 s left: one poll in the background
	c.replica.polls.Wait()
	if n, p := len(srv.Requests()), payloadRequests(srv.Requests()); n != 1 || p != 1 {
		t.Fatalf("3 s after the sync: got %d requests (%d polls), want one poll", n, p)
	}
	if got := queryString(t, db, "SELECT Notes FROM Tasks WHERE Priority = 3"); got != "ahead" {
		t.Fatalf("after the background poll: got %q, want %q", got, "ahead")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("the read after the background poll sent %d more requests, want 0", n-1)
	}
}

// TestReplicaFieldRenamed: a field renamed by another client reaches the copy with the next poll
// while this connector's cached schema still has the old name; the read planned with the old
// name gets the field's values (by field id), not NULLs, and the next statement plans with the
// new name.
func TestReplicaFieldRenamed(t *testing.T) {
	srv := newEmulator(t)
	db, fake := openReplica(t, srv, "freshness=5s")
	other, _ := openDB(t, srv, "")
	ctx := context.Background()
	if got := queryString(t, db, "SELECT Notes FROM Tasks WHERE Priority = 3"); got != "first" {
		t.Fatalf("first read: got %q, want %q", got, "first")
	}
	if _, err := other.ExecContext(ctx, "ALTER TABLE Tasks RENAME COLUMN Notes TO Details"); err != nil {
		t.Fatal(err)
	}
	fake.Advance(5 * time.Second) // the next read polls the payloads, which hold the rename
	if got := queryString(t, db, "SELECT Notes FROM Tasks WHERE Priority = 3"); got != "first" {
		t.Errorf("the read planned before the rename was known: got %q, want the field's value %q", got, "first")
	}
	if got := queryString(t, db, "SELECT Details FROM Tasks WHERE Priority = 3"); got != "first" {
		t.Errorf("the next statement, by the new name: got %q, want %q", got, "first")
	}
}
