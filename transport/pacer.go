package transport

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/airsql/airsql/internal/clock"
)

// pacer spaces the request starts to one base, and holds them all after a 429.
// One pacer exists per (endpoint, transport, clock, base) in the process (see servers), shared by every API,
// Base and Table object that reaches that base through that server.
//
// The service counts arrivals in a sliding second, and arrivals are not starts: each request
// spends a varying time on its way. So the token bucket schedules starts APILimit plus a margin
// apart, and the actual starts are kept as far apart too (a request that wakes late does not let
// the next one catch up). The margin is 1/40 of APILimit, or more when the round-trip times seen
// recently vary more: a quarter of their spread (the slowest and fastest left out), so that the
// starts of the next few requests absorb it, up to a quarter of APILimit. A 429 costs 30 s, far
// more than the margin.
type pacer struct {
	limiter *rate.Limiter // burst 1: one start per interval

	mu        sync.Mutex
	interval  time.Duration // APILimit when the limiter was last set
	lastStart time.Time
	holdUntil time.Time                 // after a 429: nothing starts before this
	rtts      [rttSamples]time.Duration // recent round trips, a ring
	rttCount  int
	adaptive  bool // the margin follows the round trips (off in tests that count exact gaps)
}

// pacingMargin is the least share of APILimit added between starts: 1/40 (5 ms at 200 ms), so 6
// starts span at least 1.025 s against a service counting 5 arrivals in any 1 s window.
const pacingMargin = 40 // interval/pacingMargin

// rttSamples is how many recent round trips the margin looks at.
const rttSamples = 20

func spacingFor(interval time.Duration) time.Duration {
	if interval <= 0 {
		return 0
	}
	return interval + interval/pacingMargin
}

// spacingLocked is the current least gap between two starts: the base spacing, or APILimit plus
// a quarter of the recent round-trip spread, at most 1.25 APILimit (also before enough round trips
// were seen). The spread leaves out the
// slowest and the fastest sample: one slow answer (a pause of the garbage collector, one slow
// query) says little about the next requests and must not slow a quiet client down, while a
// loaded machine or network, where arrivals really do wander, gives several.
func (p *pacer) spacingLocked() time.Duration {
	base := spacingFor(p.interval)
	if !p.adaptive {
		return base
	}
	widest := p.interval + p.interval/4
	n := min(p.rttCount, rttSamples)
	if n < minRTTSamples {
		return widest
	}
	sorted := p.rtts // a copy: the ring keeps its order
	slices.Sort(sorted[:n])
	spread := sorted[n-2] - sorted[1]
	return min(max(base, p.interval+spread/4), widest)
}

// minRTTSamples is how many round trips the margin needs before it follows them (with the
// extremes left out, two remain). Until then nothing is known of the path, and the margin is the
// widest: the first second of a new client is when a loaded machine drew 429s with the narrow
// one (the 6th start, before any round trip had come back to widen it). It costs the first few
// requests 45 ms each.
const minRTTSamples = 4

// observe records the round trip of one request to the base.
func (p *pacer) observe(rtt time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rtts[p.rttCount%rttSamples] = rtt
	p.rttCount++
}

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
	fixed  bool              // pacers made without the adaptive margin (tests)
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
func acquireServer(key serverKey, fixed bool) *server {
	serversMu.Lock()
	defer serversMu.Unlock()
	s := servers[key]
	if s == nil {
		sweepServersLocked()
		s = &server{pacers: map[string]*pacer{}, fixed: fixed}
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
	}
}

// sweepServersLocked forgets the unused entries that have become idle.
func sweepServersLocked() {
	for key, s := range servers {
		if s.users <= 0 && s.idle(key.clock.Now()) {
			delete(servers, key)
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

// pacerFor returns the pacer of one base of the core's server.
func (c *core) pacerFor(base string) *pacer {
	s := c.server
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pacers[base]
	if p == nil {
		iv := APILimit
		p = &pacer{limiter: rate.NewLimiter(limitFor(iv), 1), interval: iv, adaptive: !s.fixed}
		s.pacers[base] = p
	}
	return p
}

func limitFor(interval time.Duration) rate.Limit {
	if interval <= 0 {
		return rate.Inf
	}
	return rate.Every(spacingFor(interval))
}

// wait returns when a request to the base may start, or with the context's error.
func (p *pacer) wait(ctx context.Context, clk clock.Clock) error {
	for {
		now := clk.Now()
		p.mu.Lock()
		if iv := APILimit; iv != p.interval {
			p.interval = iv
			p.limiter.SetLimitAt(now, limitFor(iv))
		}
		hold := p.holdUntil
		p.mu.Unlock()
		if now.Before(hold) {
			err := ctx.Err()
			if err == nil {
				err = sleepWithin(ctx, clk, hold.Sub(now))
			}
			if err != nil {
				return fmt.Errorf("%w: requests to this base are held %s more, until the service's rate-limit penalty ends", err, hold.Sub(clk.Now()).Round(time.Millisecond))
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		r := p.limiter.ReserveN(now, 1)
		if delay := r.DelayFrom(now); delay > 0 {
			if err := sleepWithin(ctx, clk, delay); err != nil {
				r.CancelAt(clk.Now())
				return err
			}
		}
		started, err := p.claimStart(ctx, clk)
		if err != nil || started {
			return err
		}
		// A 429 arrived while this request waited for its turn: wait for the hold, then queue again.
	}
}

// claimStart waits until the spacing since the previous actual start has passed and records
// this start. It reports false when a hold began meanwhile.
func (p *pacer) claimStart(ctx context.Context, clk clock.Clock) (bool, error) {
	for {
		now := clk.Now()
		p.mu.Lock()
		if now.Before(p.holdUntil) {
			p.mu.Unlock()
			return false, nil
		}
		gap := p.spacingLocked() - now.Sub(p.lastStart)
		if p.lastStart.IsZero() || gap <= 0 {
			p.lastStart = now
			p.mu.Unlock()
			return true, nil
		}
		p.mu.Unlock()
		if err := clock.Sleep(ctx, clk, gap); err != nil {
			return false, err
		}
	}
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

// hold stops every request to the base until t.
func (p *pacer) hold(t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t.After(p.holdUntil) {
		p.holdUntil = t
	}
}
