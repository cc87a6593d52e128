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
// One pacer exists per (endpoint, transport, clock, base) in the process, shared by every API,
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
// a quarter of the recent round-trip spread, at most 1.25 APILimit. The spread leaves out the
// slowest and the fastest sample: one slow answer (a pause of the garbage collector, one slow
// query) says little about the next requests and must not slow a quiet client down, while a
// loaded machine or network, where arrivals really do wander, gives several.
func (p *pacer) spacingLocked() time.Duration {
	base := spacingFor(p.interval)
	n := min(p.rttCount, rttSamples)
	if !p.adaptive || n < minRTTSamples {
		return base
	}
	sorted := p.rtts // a copy: the ring keeps its order
	slices.Sort(sorted[:n])
	spread := sorted[n-2] - sorted[1]
	return min(max(base, p.interval+spread/4), p.interval+p.interval/4)
}

// minRTTSamples is how many round trips the margin needs before it follows them: with the
// extremes left out, two remain.
const minRTTSamples = 4

// observe records the round trip of one request to the base.
func (p *pacer) observe(rtt time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rtts[p.rttCount%rttSamples] = rtt
	p.rttCount++
}

type pacerKey struct {
	endpoint  string
	transport any
	clock     clock.Clock
	base      string
}

var (
	pacersMu sync.Mutex
	pacers   = map[pacerKey]*pacer{}
)

func (c *core) pacerFor(base string) *pacer {
	key := pacerKey{endpoint: c.endpoint, transport: c.pacerIdentity, clock: c.clock, base: base}
	pacersMu.Lock()
	defer pacersMu.Unlock()
	p := pacers[key]
	if p == nil {
		iv := APILimit
		p = &pacer{limiter: rate.NewLimiter(limitFor(iv), 1), interval: iv, adaptive: !c.fixedPacing}
		pacers[key] = p
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
