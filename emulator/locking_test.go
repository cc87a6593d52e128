package emulator

import (
	"net/url"
	"runtime"
	"strings"
	"testing"
)

// A whole-table read does not start while a writer waits: it sees the write. (With a plain
// RWMutex, a listing arriving while writers queued slipped in between them — the mutex wakes
// waiting readers before the next writer — and under load writes ran one per listing.)
func TestHeavyReadWaitsForWaitingWriters(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	pending := &call{}
	s.writerArrived(pending) // a write routed, not yet holding the lock
	listed := make(chan response, 1)
	go func() {
		r, _ := tryDo(s, DefaultToken, "GET", testBase+"/Tasks?filterByFormula="+url.QueryEscape("{Name}='w'"), nil)
		listed <- r
	}()
	waitUntil(t, func() bool { return len(s.slots) == 1 }) // the listing has its slot and waits
	mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Name": "w"}}), 200)
	select {
	case r := <-listed:
		t.Fatalf("the listing ran while a writer waited: %s", r.raw)
	default:
	}
	s.writerNoLongerWaiting(pending)
	r := <-listed
	mustStatus(t, r, 200)
	if n := len(records(t, r)); n != 1 {
		t.Fatalf("the listing saw %d records, want the 1 written before it: %s", n, r.raw)
	}
}

// A listing waiting for a compute slot holds no lock: a write goes through meanwhile.
func TestListWaitingForASlotHoldsNoLock(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	for range cap(s.slots) { // every slot taken by computations in progress
		s.slots <- struct{}{}
	}
	listed := make(chan response, 1)
	go func() {
		r, _ := tryDo(s, DefaultToken, "GET", testBase+"/Tasks", nil)
		listed <- r
	}()
	mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Name": "during"}}), 200)
	for range cap(s.slots) {
		<-s.slots
	}
	r := <-listed
	mustStatus(t, r, 200)
	if !strings.Contains(string(r.raw), "during") {
		t.Fatalf("listing %s", r.raw)
	}
}

// waitUntil waits for a condition other goroutines make true (an event, not a duration).
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; !cond(); i++ {
		if i > 10_000_000 {
			t.Fatal("the condition never became true")
		}
		runtime.Gosched()
	}
}

// The record ids all iterators hold are bounded: the oldest listing is forgotten, and its offset
// answers as an expired one.
func TestIteratorIDsAreBounded(t *testing.T) {
	n := 20_000
	s, _ := newTestServer(t, WithFixture(manyFixture(n)))
	path := "/v0/appMANY0000000001/Many?pageSize=100"
	first := do(t, s, DefaultToken, "GET", path, nil).body["offset"].(string)
	for range maxIteratorIDs / n {
		mustStatus(t, do(t, s, DefaultToken, "GET", path, nil), 200)
	}
	if s.iterators.totalIDs > maxIteratorIDs {
		t.Fatalf("%d ids kept, limit %d", s.iterators.totalIDs, maxIteratorIDs)
	}
	r := do(t, s, DefaultToken, "GET", path+"&offset="+url.QueryEscape(first), nil)
	mustStatus(t, r, 422)
	if !strings.Contains(string(r.raw), "LIST_RECORDS_ITERATOR_NOT_AVAILABLE") {
		t.Fatalf("evicted offset answered %s", r.raw)
	}
}
