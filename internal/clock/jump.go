package clock

import (
	"sync"
	"time"
)

// Jump is a Clock whose waits end at once by moving its time forward: shared by an emulator and
// its clients, pacing and backoff run without sleeping, and a test moves a week ahead with one
// After. It is safe for concurrent use.
type Jump struct {
	mu  sync.Mutex
	now time.Time
}

// NewJump returns a jumping clock reading t.
func NewJump(t time.Time) *Jump { return &Jump{now: t} }

// Now returns the clock's time.
func (c *Jump) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After moves the time forward by d and returns a channel that already holds the new time.
func (c *Jump) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
	}
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}
