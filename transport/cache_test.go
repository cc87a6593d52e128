package transport

import (
	"context"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
)

func cachedEmu(t *testing.T, n int, ttl time.Duration, maxBytes int64) (*emulator.Server, *Table, *jumpClock) {
	t.Helper()
	clk := newJumpClock()
	s, err := emulator.New(emulator.WithFixture(emuFixture(n)), emulator.WithClock(clk), emulator.WithRate(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	tbl, err := NewTable(emulator.DefaultToken, emuBase, "My Tasks", WithEndpointURL(emulator.InProcessURL), WithHTTPClient(s.Client()), WithClock(clk), WithResultCache(ttl, maxBytes))
	if err != nil {
		t.Fatal(err)
	}
	return s, tbl, clk
}

func countAll(t *testing.T, ctx context.Context, tbl *Table, opts ListOptions) int {
	t.Helper()
	n := 0
	for recs, err := range tbl.Iterate(ctx, opts) {
		if err != nil {
			t.Fatal(err)
		}
		n += len(recs)
	}
	return n
}

func TestResultCache(t *testing.T) {
	s, tbl, clk := cachedEmu(t, 250, 30*time.Second, 0)
	opts := ListOptions{Formula: "{Done}"}
	if n := countAll(t, bg, tbl, opts); n != 125 {
		t.Fatalf("%d records, want 125", n)
	}
	if got := len(s.Requests()); got != 2 {
		t.Fatalf("first read: %d requests, want 2 pages", got)
	}
	// The same listing: from memory, page by page, with the hits told.
	s.ResetRequests()
	var hitPages, hitRecords int
	ctx := WithCacheHits(bg, func(n int) { hitPages++; hitRecords += n })
	if n := countAll(t, ctx, tbl, opts); n != 125 || len(s.Requests()) != 0 || hitPages != 2 || hitRecords != 125 {
		t.Fatalf("repeat: %d records, %d requests, %d pages / %d records told as hits; want 125, 0, 2/125", n, len(s.Requests()), hitPages, hitRecords)
	}
	if recs, _, hits, ok := tbl.CachedListing(opts); !ok || recs != 125 || hits != 1 {
		t.Errorf("CachedListing: %d records, %d hits, %v", recs, hits, ok)
	}
	// Another listing is not the same one.
	countAll(t, bg, tbl, ListOptions{Formula: "NOT({Done})"})
	if len(s.Requests()) != 2 {
		t.Errorf("another formula: %d requests, want 2", len(s.Requests()))
	}
	// A write of this client to the table drops its entries.
	s.ResetRequests()
	if _, err := tbl.Create(bg, map[string]any{"Name": "new", "Done": true}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := countAll(t, bg, tbl, opts); n != 126 || len(s.Requests()) != 3 {
		t.Errorf("after a write: %d records with %d requests (incl. the write), want 126 with 3", n, len(s.Requests()))
	}
	// The TTL.
	s.ResetRequests()
	clk.After(30 * time.Second)
	countAll(t, bg, tbl, opts)
	if len(s.Requests()) != 2 {
		t.Errorf("after the TTL: %d requests, want 2", len(s.Requests()))
	}
	// A listing not read to its end is not stored.
	s.ResetRequests()
	other := ListOptions{PageSize: 10}
	for range tbl.Iterate(bg, other) {
		break
	}
	countAll(t, bg, tbl, other)
	if got := len(s.Requests()); got != 1+26 {
		t.Errorf("after a listing left half-read: %d requests, want 1 + 26 (no entry from the half)", got)
	}
}

// TestResultCacheBounded: entries beyond the size limit push out the least recently used; a
// listing larger than the whole limit is read but not stored; no error either way.
func TestResultCacheBounded(t *testing.T) {
	s, tbl, _ := cachedEmu(t, 60, time.Minute, 0)
	var one int64
	for recs, err := range tbl.Iterate(bg, ListOptions{MaxRecords: 10}) {
		if err != nil {
			t.Fatal(err)
		}
		for i := range recs {
			one += recordSize(&recs[i])
		}
	}
	// A cache holding about two listings of 10 records.
	s, tbl, _ = cachedEmu(t, 60, time.Minute, 2*one+one/2)
	a, b, c := ListOptions{MaxRecords: 10}, ListOptions{MaxRecords: 10, Formula: "{N}>=0"}, ListOptions{MaxRecords: 10, Formula: "{N}>=1"}
	countAll(t, bg, tbl, a)
	countAll(t, bg, tbl, b)
	countAll(t, bg, tbl, a) // a is now the most recently used
	countAll(t, bg, tbl, c) // pushes out b
	s.ResetRequests()
	countAll(t, bg, tbl, a)
	countAll(t, bg, tbl, c)
	if n := len(s.Requests()); n != 0 {
		t.Errorf("a and c: %d requests, want 0 (cached)", n)
	}
	countAll(t, bg, tbl, b)
	if n := len(s.Requests()); n != 1 {
		t.Errorf("b: %d requests, want 1 (evicted)", n)
	}
	s.ResetRequests()
	countAll(t, bg, tbl, ListOptions{}) // 60 records: larger than the whole cache
	countAll(t, bg, tbl, ListOptions{})
	if n := len(s.Requests()); n != 2 {
		t.Errorf("a listing larger than the cache: %d requests for two reads, want 2", n)
	}
}
