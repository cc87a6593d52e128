// Package clock lets code that waits on time be driven by a fake clock in tests.
//
// Every package that paces, delays or expires something (the emulator's rate limiter and
// iterator expiry, the client's pacing and retry backoff, NOW() in formulas) reads time
// through a Clock, so its tests move time forward with Fake.Advance instead of sleeping.
package clock

import (
	"context"
	"sort"
	"sync"
	"time"
)

// Clock tells the time and wakes waiters.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives the time once d has passed.
	After(d time.Duration) <-chan time.Time
}

// Real is the wall clock.
var Real Clock = realClock{}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Sleep waits for d on c, or until ctx is done, whichever comes first.
// It returns ctx.Err() when the context ended the wait.
func Sleep(ctx context.Context, c Clock, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-c.After(d):
		return nil
	}
}

// Fake is a Clock that only moves when told to. It is safe for concurrent use.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	changed chan struct{} // closed and replaced whenever the set of waiters grows
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

// NewFake returns a fake clock reading t.
func NewFake(t time.Time) *Fake {
	return &Fake{now: t, changed: make(chan struct{})}
}

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// After returns a channel that fires when the fake time reaches Now()+d.
func (f *Fake) After(d time.Duration) <-chan time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan time.Time, 1)
	at := f.now.Add(d)
	if d <= 0 {
		ch <- f.now
		return ch
	}
	f.waiters = append(f.waiters, waiter{at: at, ch: ch})
	close(f.changed)
	f.changed = make(chan struct{})
	return ch
}

// Advance moves the fake time forward by d and fires every waiter that is due, in time order.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	sort.SliceStable(f.waiters, func(i, j int) bool { return f.waiters[i].at.Before(f.waiters[j].at) })
	kept := f.waiters[:0]
	for _, w := range f.waiters {
		if w.at.After(f.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- w.at
	}
	f.waiters = kept
}

// Waiters reports how many After channels are still pending.
func (f *Fake) Waiters() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiters)
}

// BlockUntil waits until at least n After channels are pending, or ctx is done.
// Tests use it to wait for the code under test to start waiting, instead of sleeping.
func (f *Fake) BlockUntil(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		count, changed := len(f.waiters), f.changed
		f.mu.Unlock()
		if count >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}
