package transport

import (
	"context"
	"sync"

	"github.com/airsql/airsql/internal/clock"
)

// turns hands the base's pacing slots to the partitions of one scan, fewest pages first.
//
// Without it every partition waits in the pacer on its own, and whichever goroutine wakes first
// takes the slot. With more partitions than the window has slots (K = 7 at 1 s: 5 slots a
// round) that is a lottery: measured at 1 s, one partition fell three pages behind the others,
// and once they had ended it read its last three pages alone, one round trip each, with the
// window idle — 2 s of a 23.9 s scan. The partitions are balanced (equal shares of the id
// alphabet), so the fair order is round robin: the slot goes to the waiting partition that has
// had the fewest pages, and they all reach their last page in the same round.
//
// One dispatcher goroutine claims a slot from the pacer only while some partition waits, and
// gives it, as the pipelined writes' pre-paced start, to the partition with the fewest pages at
// the moment the slot opens (not when the claim began: one that became ready meanwhile may come
// first). A retry after a failed try waits in the pacer directly, as any request does.
type turns struct {
	p   *pacer
	clk clock.Clock

	mu      sync.Mutex
	pages   []int  // slots given to each partition
	waiting []bool // each partition waits for a slot
	done    bool   // the dispatcher has ended: no more slots

	wake  chan struct{}   // a partition started waiting (buffered: a wake is never lost)
	grant []chan turnSlot // one per partition, buffered: the dispatcher never blocks on a send
}

// turnsStarted, when set (by tests), is told of each scan's turns as they start, so that a test
// can wait until given partitions wait for a slot before it moves the clock.
var turnsStarted func(*turns)

type turnSlot struct {
	start uint64
	err   error
}

func newTurns(clk clock.Clock, p *pacer, k int) *turns {
	t := &turns{p: p, clk: clk, pages: make([]int, k), waiting: make([]bool, k), wake: make(chan struct{}, 1), grant: make([]chan turnSlot, k)}
	for i := range t.grant {
		t.grant[i] = make(chan turnSlot, 1)
	}
	return t
}

// run dispatches slots until ctx ends. Once it has returned, release gives back the slots given
// but not taken.
func (t *turns) run(ctx context.Context) {
	defer func() {
		t.mu.Lock()
		t.done = true
		t.mu.Unlock()
	}()
	for {
		t.mu.Lock()
		anyWaiting := false
		for _, w := range t.waiting {
			anyWaiting = anyWaiting || w
		}
		t.mu.Unlock()
		if !anyWaiting {
			select {
			case <-t.wake:
				continue
			case <-ctx.Done():
				return
			}
		}
		start, err := t.p.wait(ctx, t.clk)
		t.mu.Lock()
		pick := -1
		for i, w := range t.waiting {
			if w && (pick < 0 || t.pages[i] < t.pages[pick]) {
				pick = i
			}
		}
		if err != nil {
			// Only the context ends a wait in the pacer: every waiting partition is told why.
			for i, w := range t.waiting {
				if w {
					t.waiting[i] = false
					t.grant[i] <- turnSlot{err: err}
				}
			}
			t.mu.Unlock()
			return
		}
		if pick < 0 { // the waiter gave up (its context ended): the slot is not used
			t.mu.Unlock()
			t.p.finish(start, 0, false)
			continue
		}
		t.waiting[pick] = false
		t.pages[pick]++
		t.grant[pick] <- turnSlot{start: start}
		t.mu.Unlock()
	}
}

// take waits for partition i's next slot: the start to send its next page with.
func (t *turns) take(ctx context.Context, i int) (uint64, error) {
	t.mu.Lock()
	if t.done {
		t.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		return 0, context.Canceled
	}
	t.waiting[i] = true
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
	select {
	case s := <-t.grant[i]:
		return s.start, s.err
	case <-ctx.Done():
		t.mu.Lock()
		t.waiting[i] = false
		t.mu.Unlock()
		return 0, ctx.Err()
	}
}

// release finishes, unsent, the slots given to partitions that did not take them (they ended
// with the context while the slot was on its way). Call it once run has returned.
func (t *turns) release() {
	for _, ch := range t.grant {
		select {
		case s := <-ch:
			if s.err == nil && s.start != 0 {
				t.p.finish(s.start, 0, false)
			}
		default:
		}
	}
}
