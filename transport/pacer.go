package transport

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/airsql/airsql/internal/clock"
)

// pacer spaces the request starts to one base by APILimit, and holds them all after a 429.
// One pacer exists per (endpoint, transport, clock, base) in the process, shared by every API,
// Base and Table object that reaches that base through that server.
type pacer struct {
	limiter *rate.Limiter // burst 1: one start per interval

	mu        sync.Mutex
	interval  time.Duration
	holdUntil time.Time // after a 429: nothing starts before this
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
	return rate.Every(interval)
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
		delay := r.DelayFrom(now)
		if delay > 0 {
			if err := clock.Sleep(ctx, clk, delay); err != nil {
				r.CancelAt(clk.Now())
				return err
			}
		}
		// A 429 may have arrived while this request waited for its turn.
		p.mu.Lock()
		held := clk.Now().Before(p.holdUntil)
		p.mu.Unlock()
		if !held {
			return nil
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
