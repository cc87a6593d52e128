package emulator

import (
	"math"
	"sync"
	"time"

	"github.com/airsql/airsql/internal/clock"
)

// rateLimiter enforces reference §3: per base, a sliding window; once a request would exceed it,
// that request and every request to the base during the penalty get 429 RATE_LIMIT_REACHED.
// Per user (all the tokens of one userId), a sliding window without penalty. Only requests that were answered (not 429) count.
type rateLimiter struct {
	clock   clock.Clock
	penalty time.Duration
	base    windowSpec
	token   windowSpec

	mu      sync.Mutex
	bases   map[string]*window
	tokens  map[string]*window
	blocked map[string]time.Time // base id -> end of its penalty
}

// windowSpec allows max requests in any span of length span; max 0 means unlimited.
// A rate r per second becomes ceil(r) requests per ceil(r)/r seconds, so 5/s is 5 per second and
// 0.5/s is 1 per 2 seconds.
type windowSpec struct {
	max  int
	span time.Duration
}

func specFor(perSecond float64) windowSpec {
	if perSecond <= 0 {
		return windowSpec{}
	}
	n := math.Ceil(perSecond)
	return windowSpec{max: int(n), span: time.Duration(n / perSecond * float64(time.Second))}
}

type window struct{ times []time.Time }

// admit reports whether one more request fits the window at now, and records it if so.
func (w *window) admit(spec windowSpec, now time.Time) bool {
	cut := 0
	for cut < len(w.times) && now.Sub(w.times[cut]) >= spec.span {
		cut++
	}
	w.times = w.times[cut:]
	if len(w.times) >= spec.max {
		return false
	}
	w.times = append(w.times, now)
	return true
}

func newRateLimiter(c clock.Clock, perBase float64, penalty time.Duration, perToken float64) *rateLimiter {
	return &rateLimiter{clock: c, penalty: penalty, base: specFor(perBase), token: specFor(perToken),
		bases: map[string]*window{}, tokens: map[string]*window{}, blocked: map[string]time.Time{}}
}

// allow admits a request by user (a token's userId) to baseID ("" for requests not about one base).
func (l *rateLimiter) allow(user, baseID string) *apiError {
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if baseID != "" && l.base.max > 0 {
		if until, ok := l.blocked[baseID]; ok {
			if now.Before(until) {
				return errRateLimited()
			}
			delete(l.blocked, baseID)
		}
	}
	var bw *window
	if baseID != "" && l.base.max > 0 {
		bw = l.bases[baseID]
		if bw == nil {
			if len(l.bases) >= maxTrackedBases {
				l.forgetIdle(now)
			}
			bw = &window{}
			l.bases[baseID] = bw
		}
		if !bw.fits(l.base, now) {
			l.blocked[baseID] = now.Add(l.penalty)
			return errRateLimited()
		}
	}
	if l.token.max > 0 {
		tw := l.tokens[user]
		if tw == nil {
			tw = &window{}
			l.tokens[user] = tw
		}
		if !tw.admit(l.token, now) {
			return errRateLimited()
		}
	}
	if bw != nil {
		bw.admit(l.base, now)
	}
	return nil
}

// fits reports whether one more request fits, without recording it.
func (w *window) fits(spec windowSpec, now time.Time) bool {
	n := 0
	for _, t := range w.times {
		if now.Sub(t) < spec.span {
			n++
		}
	}
	return n < spec.max
}

// maxTrackedBases bounds the per-base windows kept for paths naming arbitrary base ids; beyond it,
// windows with nothing in the last span are forgotten (they would admit the next request anyway).
const maxTrackedBases = 4096

func (l *rateLimiter) forgetIdle(now time.Time) {
	for id, w := range l.bases {
		if _, blocked := l.blocked[id]; blocked {
			continue
		}
		if len(w.times) == 0 || now.Sub(w.times[len(w.times)-1]) >= l.base.span {
			delete(l.bases, id)
		}
	}
}
