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
// One pacer exists per (endpoint, transport, clock, base) in the process (see servers), shared
// by every API, Base and Table object that reaches that base through that server.
//
// The service counts arrivals in a sliding second: a 6th request arriving less than 1 s after
// the 1st of 6 draws a 429 and 30 s of silence. Starts are kept APILimit plus 1/40 apart (by the
// token bucket, and between the actual starts too, so that a request that wakes late does not
// let the next one catch up): 6 starts span 1.025 s. But arrivals are not starts. A request
// that spends longer on its way than the fastest round trip seen may arrive that much later,
// and so closer to the 5th request after it; that one is held back by as much (see
// arrivalWaitLocked). Only what is known to be late costs time, and only once: one slow answer
// delays one later start, and a quiet client keeps its pace.
type pacer struct {
	limiter *rate.Limiter // burst 1: one start per interval

	mu        sync.Mutex
	interval  time.Duration // APILimit when the limiter was last set
	lastStart time.Time
	holdUntil time.Time                 // after a 429: nothing starts before this
	rtts      [rttSamples]time.Duration // recent round trips, a ring: the fastest bounds the path's own delay
	rttCount  int
	starts    [windowStarts]startRec // the last starts, by seq % windowStarts
	seq       uint64                 // starts claimed so far
	arrivals  bool                   // hold starts back for late arrivals (off in tests that count exact gaps)
}

// startRec is one start, until windowStarts later starts replace it.
type startRec struct {
	seq  uint64
	at   time.Time
	took time.Duration // until the answer (or the failure), once done
	done bool
}

// windowStarts is how many requests the service admits in its window (5 in any second).
const windowStarts = 5

// pacingMargin is the share of APILimit added between starts: 1/40 (5 ms at 200 ms), so 6
// starts span at least 1.025 s against a service counting 5 arrivals in any 1 s window.
const pacingMargin = 40 // interval/pacingMargin

// rttSamples is how many recent round trips the fastest is taken from.
const rttSamples = 20

func spacingFor(interval time.Duration) time.Duration {
	if interval <= 0 {
		return 0
	}
	return interval + interval/pacingMargin
}

// arrivalWaitLocked is how much longer the next start must wait because the start windowStarts
// back may have arrived late. That request (k) took took; the fastest recent round trip is
// fastest, which bounds the path's fixed delay there and back. So k arrived at most
// took-fastest later than a request on time would have, and the next start (k+5) is put that much
// after the 1.025 s its spacing gives. While k is unanswered and already slower than the fastest,
// how late it is grows with every moment: the next start waits for its answer, re-checking every
// pollStep. The extra wait is at most windowStarts spacings (a hung request must not stall the
// base for long).
func (p *pacer) arrivalWaitLocked(now time.Time) (wait time.Duration, pending bool) {
	if !p.arrivals || p.interval <= 0 || p.seq < windowStarts {
		return 0, false
	}
	back := p.seq + 1 - windowStarts
	k := p.starts[back%windowStarts]
	if k.seq != back {
		return 0, false
	}
	took := k.took
	if !k.done {
		took = now.Sub(k.at)
	}
	fastest, ok := p.fastestLocked() // 0 when no round trip is known yet
	if k.done && (!ok || k.took < fastest) {
		fastest = k.took
	}
	span := windowStarts * spacingFor(p.interval)
	late := min(max(took-fastest, 0), span)
	wait = k.at.Add(span + late).Sub(now)
	return wait, !k.done && wait > 0 && late < span
}

// pollStep is how often a start held for an unanswered request checks again.
func (p *pacer) pollStep() time.Duration { return max(p.interval/10, time.Millisecond) }

func (p *pacer) fastestLocked() (time.Duration, bool) {
	n := min(p.rttCount, rttSamples)
	if n == 0 {
		return 0, false
	}
	return slices.Min(p.rtts[:n]), true
}

// finish records how a started request ended: took is the time from its start to its answer
// (answered) or its failure. Every claimed start is finished, sent or not (took 0 if not).
func (p *pacer) finish(seq uint64, took time.Duration, answered bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if answered {
		p.rtts[p.rttCount%rttSamples] = took
		p.rttCount++
	}
	if r := &p.starts[seq%windowStarts]; r.seq == seq {
		r.took, r.done = took, true
	}
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
	fixed  bool              // pacers made without the wait for late arrivals (tests: fixedPacing)
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
		p = &pacer{limiter: rate.NewLimiter(limitFor(iv), 1), interval: iv, arrivals: !s.fixed}
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

// wait returns when a request to the base may start, or with the context's error. The start it
// returns must be passed to finish once the request has ended (or is not sent after all).
func (p *pacer) wait(ctx context.Context, clk clock.Clock) (uint64, error) {
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
				return 0, fmt.Errorf("%w: requests to this base are held %s more, until the service's rate-limit penalty ends", err, hold.Sub(clk.Now()).Round(time.Millisecond))
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		r := p.limiter.ReserveN(now, 1)
		if delay := r.DelayFrom(now); delay > 0 {
			if err := sleepWithin(ctx, clk, delay); err != nil {
				r.CancelAt(clk.Now())
				return 0, err
			}
		}
		seq, err := p.claimStart(ctx, clk)
		if err != nil || seq != 0 {
			return seq, err
		}
		// A 429 arrived while this request waited for its turn: wait for the hold, then queue again.
	}
}

// claimStart waits until the spacing since the previous actual start has passed, and for the
// arrival of the start windowStarts back (arrivalWaitLocked), and records this start. It returns
// 0 when a hold began meanwhile.
func (p *pacer) claimStart(ctx context.Context, clk clock.Clock) (uint64, error) {
	for {
		now := clk.Now()
		p.mu.Lock()
		if now.Before(p.holdUntil) {
			p.mu.Unlock()
			return 0, nil
		}
		gap := spacingFor(p.interval) - now.Sub(p.lastStart)
		if p.lastStart.IsZero() {
			gap = 0
		}
		late, pending := p.arrivalWaitLocked(now)
		if pending {
			late = min(late, p.pollStep())
		}
		if wait := max(gap, late); wait > 0 {
			p.mu.Unlock()
			if err := sleepWithin(ctx, clk, wait); err != nil {
				return 0, err
			}
			continue
		}
		p.lastStart = now
		p.seq++
		p.starts[p.seq%windowStarts] = startRec{seq: p.seq, at: now}
		seq := p.seq
		p.mu.Unlock()
		return seq, nil
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
