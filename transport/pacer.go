package transport

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/airsql/airsql/internal/clock"
)

// pacer spaces the request starts to one base, and holds them all after a 429.
// One pacer exists per (endpoint, transport, clock, base) in the process, shared by every API,
// Base and Table object that reaches that base through that server.
//
// The token bucket alone schedules starts on an ideal timeline; a request that wakes late would
// leave less than the interval to the next one, and the service counts arrivals in a sliding
// second. So the actual starts are also kept apart, by the interval plus pacingMargin, which
// absorbs scheduling and network jitter between two arrivals.
type pacer struct {
	limiter *rate.Limiter // burst 1: one start per interval

	mu        sync.Mutex
	interval  time.Duration // APILimit when the limiter was last set
	lastStart time.Time
	holdUntil time.Time // after a 429: nothing starts before this
}

// pacingMargin is the share of APILimit added between actual starts: 1/40 (5 ms at 200 ms), so
// 6 starts span 1.025 s and keep 25 ms of slack against a service counting 5 arrivals in any
// 1 s window, at a cost of 2.5% of the throughput.
const pacingMargin = 40 // interval/pacingMargin

func spacingFor(interval time.Duration) time.Duration {
	if interval <= 0 {
		return 0
	}
	return interval + interval/pacingMargin
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
		p = &pacer{limiter: rate.NewLimiter(limitFor(iv), 1), interval: iv}
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
			if err := clock.Sleep(ctx, clk, hold.Sub(now)); err != nil {
				return err
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		r := p.limiter.ReserveN(now, 1)
		if delay := r.DelayFrom(now); delay > 0 {
			if err := clock.Sleep(ctx, clk, delay); err != nil {
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

// claimStart waits until the interval since the previous actual start has passed and records
// this start. It reports false when a hold began meanwhile.
func (p *pacer) claimStart(ctx context.Context, clk clock.Clock) (bool, error) {
	for {
		now := clk.Now()
		p.mu.Lock()
		if now.Before(p.holdUntil) {
			p.mu.Unlock()
			return false, nil
		}
		gap := spacingFor(p.interval) - now.Sub(p.lastStart)
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

// hold stops every request to the base until t.
func (p *pacer) hold(t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t.After(p.holdUntil) {
		p.holdUntil = t
	}
}
