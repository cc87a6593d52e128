package airsql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/internal/oracle"
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
