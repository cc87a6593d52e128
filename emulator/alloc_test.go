package emulator

import (
	"runtime"
	"testing"
	"weak"
)

// TestFilterAllocationsPerRecord: evaluating filterByFormula over a table must not allocate an
// evaluation environment (or anything else) per record beyond what reading its cells needs; the
// 100,000-record figure of the issue depends on it.
func TestFilterAllocationsPerRecord(t *testing.T) {
	const n = 2000
	s, _ := newTestServer(t, WithFixture(bigFixture(n)))
	s.mu.RLock()
	defer s.mu.RUnlock()
	tb := s.bases["appBIG00000000001"].table("Big")
	q := &listQuery{Formula: "AND({N} > 10, {Done}, {Status} != 'Doing')"}
	rq, aerr := s.resolveQuery(tb, q)
	if aerr != nil {
		t.Fatal(aerr)
	}
	var ids []string
	allocs := testing.AllocsPerRun(5, func() {
		ids, _ = s.computeList(tb, q, rq)
	})
	if len(ids) == 0 {
		t.Fatal("the formula matched nothing")
	}
	// Measured: about one allocation per record (reading the select cell as a formula value);
	// an environment per record doubles it.
	if perRecord := allocs / n; perRecord > 1.5 {
		t.Fatalf("%.2f allocations per record (%.0f in all for %d records), want at most 1.5", perRecord, allocs, n)
	}
}

// TestFixtureNotKept: once loaded, a fixture is garbage: the server holds its records in its
// own form only (a second copy of a 20,000-record fixture doubled the live heap a GC scans in a
// process running the driver beside the emulator, BenchmarkDashboardReplicaQueries).
func TestFixtureNotKept(t *testing.T) {
	f := bigFixture(100)
	kept := weak.Make(f)
	s, _ := newTestServer(t, WithFixture(f))
	f = nil
	runtime.GC()
	if kept.Value() != nil {
		t.Fatal("the fixture is still reachable after New loaded it")
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.bases["appBIG00000000001"].table("Big") == nil {
		t.Fatal("the fixture's table was not loaded")
	}
}
