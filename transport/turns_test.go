package transport

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/airsql/airsql/internal/clock"
)

// waitUntil yields to other goroutines until cond holds (no sleep: the goroutines it waits for
// are runnable, not timed).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 1_000_000 {
		if cond() {
			return
		}
		runtime.Gosched()
	}
	t.Fatalf("gave up waiting until %s", what)
}

func (t *turns) isWaiting(i int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.waiting[i]
}

// TestTurnsFewestPagesFirst: when the window opens, the slot goes to the waiting partition with
// the fewest pages (ties: the lower partition), whichever asked first; each slot is the pacer's
// next start.
func TestTurnsFewestPagesFirst(t *testing.T) {
	saved := APILimit
	APILimit = 200 * time.Millisecond
	defer func() { APILimit = saved }()
	clk := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	p := newPacer(false, clk)
	tn := newTurns(clk, p, 3)
	ctx, cancel := context.WithCancel(bg)
	done := make(chan struct{})
	go func() { tn.run(ctx); close(done) }()
	defer func() { cancel(); <-done; tn.release() }()

	// The window's 5 starts go at once: partition 0 takes 3, partitions 1 and 2 one each.
	for _, i := range []int{0, 0, 0, 1, 2} {
		if _, err := tn.take(ctx, i); err != nil {
			t.Fatal(err)
		}
	}
	// The window is full. Partition 0 asks first; the dispatcher waits in the pacer for it.
	type got struct {
		part  int
		start uint64
	}
	granted := make(chan got, 3)
	ask := func(i int) {
		go func() {
			s, err := tn.take(ctx, i)
			if err != nil {
				t.Error(err)
			}
			granted <- got{i, s}
		}()
	}
	ask(0)
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	ask(2)
	ask(1)
	waitUntil(t, "all three wait", func() bool { return tn.isWaiting(0) && tn.isWaiting(1) && tn.isWaiting(2) })
	clk.Advance(5 * spacingFor(APILimit))
	starts := map[int]uint64{}
	for range 3 {
		g := <-granted
		starts[g.part] = g.start
	}
	if want := map[int]uint64{1: 6, 2: 7, 0: 8}; !maps.Equal(starts, want) {
		t.Fatalf("partitions got starts %v, want %v (fewest pages first, then the lower partition)", starts, want)
	}
}

// TestTurnsEndWithTheContext: a partition waiting for a slot when the scan ends gets the
// context's error, and a slot claimed for nobody is given back (finished unsent), so that the
// window does not count a start that never went.
func TestTurnsEndWithTheContext(t *testing.T) {
	saved := APILimit
	APILimit = 200 * time.Millisecond
	defer func() { APILimit = saved }()
	clk := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	p := newPacer(false, clk)
	tn := newTurns(clk, p, 2)
	ctx, cancel := context.WithCancel(bg)
	done := make(chan struct{})
	go func() { tn.run(ctx); close(done) }()
	for range windowStarts {
		s, err := tn.take(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		p.finish(s, ms(300), true) // sent and answered
	}
	errc := make(chan error, 1)
	go func() { _, err := tn.take(ctx, 1); errc <- err }()
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("a take waiting when the scan ended got a slot")
	}
	<-done
	tn.release()
	if _, err := tn.take(ctx, 0); err == nil {
		t.Fatal("a take after the dispatcher ended got a slot")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.win.Starts {
		if r.Seq != 0 && !r.Done {
			t.Errorf("start %d was claimed and never finished", r.Seq)
		}
	}
}

// TestPartitionsTakeTurnsOnTheWindow: a scan of 7 partitions (1 s round trips) on a window of 5
// slots. The first 5 partitions to ask go at once; when the window opens again, the 2 that have
// had no page go first, then the 3 lowest of the others — not whichever goroutine wakes first.
// The service's answers are held until the test releases them, and the pacer runs on a fake
// clock without the wait for late arrivals, so every slot is where the test puts it.
func TestPartitionsTakeTurnsOnTheWindow(t *testing.T) {
	saved := APILimit
	APILimit = 200 * time.Millisecond
	defer func() { APILimit = saved }()
	answers := make(chan struct{})
	fake := newFake(func(n int, r seenRequest) reply {
		<-answers // closed at the end: every held answer then goes
		return ok(`{"records":[` + recordsJSON(100, n*100) + fmt.Sprintf(`],"offset":"itr%d/rec%d"}`, n, n))
	})
	fake.arrived = make(chan seenRequest, 100)
	clk := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	tbl, err := NewTable(testToken, testBase, "My Tasks", WithHTTPClient(&http.Client{Transport: fake}), WithEndpointURL("http://fake.test"), WithClock(clk), fixedPacing())
	if err != nil {
		t.Fatal(err)
	}
	// The base's round trip is known to be 1 s (as after the schema request): K=7 from the start.
	p := tbl.c.pacerFor(testBase)
	seq, err := p.wait(bg, clk)
	if err != nil {
		t.Fatal(err)
	}
	p.finish(seq, time.Second, true)
	clk.Advance(2 * time.Second)
	const k = 7
	if got := partitionCount(time.Second, 0, 100); got != k {
		t.Fatalf("K at 1 s is %d, want %d", got, k)
	}
	formulas := partitionFormulas("", alphabetSets(k), nil)
	partOf := func(r seenRequest) int {
		q, _ := url.ParseQuery(r.Query)
		i := slices.Index(formulas, q.Get("filterByFormula"))
		if i < 0 {
			t.Fatalf("request %s is not one of the partitions", r)
		}
		return i
	}
	started := make(chan *turns, 1)
	turnsStarted = func(tn *turns) { started <- tn }
	defer func() { turnsStarted = nil }()

	ctx, cancel := context.WithCancel(bg)
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		for _, err := range tbl.Iterate(ctx, ListOptions{}) {
			if err != nil {
				return
			}
		}
	}()
	defer func() { cancel(); close(answers); <-scanned }()
	tn := <-started

	round := func() map[int]bool {
		got := map[int]bool{}
		for range windowStarts {
			got[partOf(<-fake.arrived)] = true
		}
		return got
	}
	first := round()
	if len(first) != windowStarts {
		t.Fatalf("first round: partitions %v, want %d different", first, windowStarts)
	}
	for range windowStarts {
		answers <- struct{}{} // the first round's pages come back, each with more to read
	}
	waitUntil(t, "all 7 partitions wait for a slot", func() bool {
		for i := range k {
			if !tn.isWaiting(i) {
				return false
			}
		}
		return true
	})
	want := map[int]bool{}
	for i := range k {
		if !first[i] {
			want[i] = true // no page yet: first
		}
	}
	for i := range k {
		if first[i] && len(want) < windowStarts {
			want[i] = true // then the lowest of those with one page
		}
	}
	clk.Advance(5 * spacingFor(APILimit))
	if second := round(); !maps.Equal(second, want) {
		t.Errorf("second round: partitions %v, want %v (first round: %v)", second, want, first)
	}
}
