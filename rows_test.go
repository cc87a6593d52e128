package airsql

import (
	"context"
	"database/sql/driver"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/airsql/airsql/emulator"
)

// checkLeaks verifies, after every other cleanup of the test, that no goroutine the test started
// is left.
func checkLeaks(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// waitFor fails the test if ch yields nothing within a generous bound. It does not sleep: it
// returns as soon as the event happens; the bound only turns a hang into a failure.
func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// holdLaterPages is a client of srv that serves the first page of a list and holds every later
// page (a request with an offset) until its request is canceled. It tells held as each later
// request arrives, and canceled, unless nil, as each one gives up.
func holdLaterPages(srv *emulator.Server, held, canceled chan<- struct{}) *http.Client {
	inner := srv.Transport()
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if !strings.Contains(r.URL.RawQuery, "offset=") {
			return inner.RoundTrip(r)
		}
		held <- struct{}{}
		<-r.Context().Done()
		if canceled != nil {
			canceled <- struct{}{}
		}
		return nil, r.Context().Err()
	})}
}

// TestRowsPrefetchAndClose: while the first page is being read the next one is already being
// fetched; Close cancels that request and leaves no goroutine behind.
func TestRowsPrefetchAndClose(t *testing.T) {
	checkLeaks(t)
	srv := newEmulator(t)
	laterPage := make(chan struct{}, 1)
	canceled := make(chan struct{}, 1)
	cfg, _ := ParseDSN(testDSN("pageSize=2"))
	cfg.HTTPClient = holdLaterPages(srv, laterPage, canceled)
	c, err := NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cn, _ := c.Connect(context.Background())
	rows, err := cn.(*conn).QueryContext(context.Background(), "SELECT Name FROM Tasks", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := rows.Columns(); len(got) != 1 || got[0] != "Name" {
		t.Fatalf("columns %q before the first row", got)
	}
	if err := rows.Next(make([]driver.Value, 1)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, laterPage, "the second page to be requested while the first is read")
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, canceled, "Close to cancel the request in flight")
}

// TestQueryContextCanceled: canceling the statement's context ends the rows with its error.
func TestQueryContextCanceled(t *testing.T) {
	checkLeaks(t)
	srv := newEmulator(t)
	laterPage := make(chan struct{}, 1)
	db, _ := openDSN(t, testDSN("pageSize=2"), holdLaterPages(srv, laterPage, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rows, err := db.QueryContext(ctx, "SELECT Name FROM Tasks")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
		if n == 2 {
			waitFor(t, laterPage, "the second page request")
			cancel()
		}
	}
	if err := rows.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("rows.Err() = %v, want context.Canceled", err)
	}
	if n != 2 {
		t.Errorf("read %d rows, want the 2 of the first page", n)
	}
	rows.Close()
}

// TestLimitStopsFetching: once LIMIT rows are out, no further page is requested.
func TestLimitStopsFetching(t *testing.T) {
	checkLeaks(t)
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "pageSize=2")
	warmSchema(t, db, srv)
	// LENGTH(Name) > 3 is evaluated locally, so LIMIT cannot go out as maxRecords; the driver stops
	// reading pages once it has its row. The first page already holds a match.
	got := queryColumn(t, db, "SELECT Name FROM Tasks WHERE LENGTH(Name) > 3 LIMIT 1")
	if len(got) != 1 {
		t.Fatalf("got %q, want 1 row", got)
	}
	if n := len(dataRequests(srv)); n > 2 {
		t.Errorf("%d list requests for LIMIT 1 with a match on the first page, want at most 2 (one prefetched)", n)
	}
}

// TestCancelledListingNeverLooksComplete: a listing whose context is cancelled while a request is
// in flight ends in the context's error. Before, the goroutine closed its channel without a word
// and a reader that saw the close first took it for the last page: a cancelled statement answered
// an empty (or partial) result as if complete — airsql serve's shutdown test caught it under load.
func TestCancelledListingNeverLooksComplete(t *testing.T) {
	for i := 0; i < 200; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		inFlight := make(chan struct{})
		src := startSource(ctx, func(ctx context.Context, send func(sourcePage) bool) {
			close(inFlight)
			<-ctx.Done() // the request fails with the context; its error cannot be sent
			send(sourcePage{err: ctx.Err()})
		})
		<-inFlight
		cancel()
		<-src.done
		// The reader's own context is live: only the closed channel can answer.
		if _, err := src.next(context.Background()); !errors.Is(err, context.Canceled) {
			t.Fatalf("next after a cancelled listing: got %v, want context.Canceled", err)
		}
		src.close()
	}
}
