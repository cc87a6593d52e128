package transport

import (
	"context"
	"maps"
	"runtime"
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
