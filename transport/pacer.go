package transport

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/airsql/airsql/internal/clock"
)

// serverKey tells servers apart: the endpoint URL, the transport (two in-process emulators share
// a URL), and the clock (tests on fake clocks must not share limiters with real time).
type serverKey struct {
	endpoint  string
	transport any
	clock     clock.Clock
}

// server holds the pacers of the bases of one server, shared by every core that reaches it.
type server struct {
	users int // live cores using it; guarded by serversMu

	mu     sync.Mutex
	pacers map[string]*pacer // by base id
	fixed  bool              // pacers made without the wait for late arrivals (tests: fixedPacing)

	endpoint string // the server's URL, part of the shared window's key
	shareDir string // not "": pacers keep their window in a file there, shared across processes
}

// The process-wide registry of servers. An entry lives as long as a core uses it; once the last
// one is garbage collected the entry goes too, so that a program (or a test suite) making many
// short-lived servers does not keep their limiters, nor the transports in the keys and what
// they reference. On the real clock an entry whose limiters are still busy (a start in the last
// idleAfter, or a 429 hold) stays until it is idle, so that a client made right after the last
// one was dropped still waits its turn; it goes at the next registration after that.
var (
	serversMu sync.Mutex
	servers   = map[serverKey]*server{}
)

// idleAfter is how long after its last start a pacer is no different from a new one: the
// service's window is 1 s, and the limiter has refilled by then.
const idleAfter = 2 * time.Second

// acquireServer registers one more user of the server's entry, creating it if needed.
func acquireServer(key serverKey, fixed bool, shareDir string) *server {
	serversMu.Lock()
	defer serversMu.Unlock()
	s := servers[key]
	if s == nil {
		sweepServersLocked()
		s = &server{pacers: map[string]*pacer{}, fixed: fixed, endpoint: key.endpoint, shareDir: shareDir}
		servers[key] = s
	}
	s.users++
	return s
}

// releaseServer runs when a core is garbage collected (runtime.AddCleanup in newCore).
func releaseServer(key serverKey) {
	serversMu.Lock()
	defer serversMu.Unlock()
	s := servers[key]
	if s == nil {
		return
	}
	s.users--
	if s.users <= 0 && (key.clock != clock.Real || s.idle(key.clock.Now())) {
		delete(servers, key)
		s.closePacers()
	}
}

// sweepServersLocked forgets the unused entries that have become idle.
func sweepServersLocked() {
	for key, s := range servers {
		if s.users <= 0 && s.idle(key.clock.Now()) {
			delete(servers, key)
			s.closePacers()
		}
	}
}

// idle reports whether no pacer of the server holds anything a new one would not.
func (s *server) idle(now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pacers {
		p.mu.Lock()
		busy := now.Before(p.holdUntil) || !p.lastStart.IsZero() && now.Sub(p.lastStart) < idleAfter
		p.mu.Unlock()

		if busy {
			return false
		}
	}
	return true
}

// closePacers closes the shared windows' files of a server no longer registered.
func (s *server) closePacers() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pacers {
		p.close()
	}
}

// pacerFor returns the pacer of one base of the core's server. With shared pacing (see
// sharedpace.go) its window lives in a file that every process on the machine reaching the same
// endpoint and base uses; if that file cannot be opened, the pacer keeps its window in memory.
func (c *core) pacerFor(base string) *pacer {
	s := c.server
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pacers[base]
	if p == nil {
		p = newPacer(!s.fixed, c.clock)
		if s.shareDir != "" {
			if st, err := openSharedWindow(s.shareDir, s.endpoint, base); err == nil {
				p.shared = st
			} else {
				p.shareErr = err
			}
		}
		s.pacers[base] = p
	}
	return p
}

// sleepWithin waits d on clk, or until ctx ends. When ctx has a deadline that comes before the
// wait would end, it fails at once instead of waiting for nothing (as rate.Limiter.Wait does):
// a caller with 2 s left is told now, not in 2 s, that a 30 s penalty is in the way. Deadlines are
// in real time, so this holds on clock.Real only; on another clock the wait ends with ctx.
func sleepWithin(ctx context.Context, clk clock.Clock, d time.Duration) error {
	if d > 0 && clk == clock.Real {
		if deadline, ok := ctx.Deadline(); ok {
			if left := time.Until(deadline); left < d {
				return fmt.Errorf("%w: %s left, not enough to wait %s", context.DeadlineExceeded, max(left, 0).Round(time.Millisecond), d.Round(time.Millisecond))
			}
		}
	}
	return clock.Sleep(ctx, clk, d)
}
