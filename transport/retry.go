package transport

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Retry says which failed requests are retried and how long to wait between tries
// (seed §7: status_forcelist, backoff_factor, total).
//
// Whatever the strategy, a request is repeated only when repeating it cannot duplicate data:
//   - a 429 is retried for every method, since the service refused it before doing anything
//     (except PUBLIC_API_BILLING_LIMIT_EXCEEDED, a spent monthly quota that no wait fixes);
//   - a 5xx, a timeout or a network error only for requests safe to repeat: GET, DELETE,
//     PUT and PATCH of records by id, upserts whose records all carry ids, and the listRecords
//     POST, which only reads; never a POST that creates records — unless the request provably
//     never left the client (the connection could not be made).
//
// The n-th retry waits BackoffFactor·2^(n−1), scaled by a random factor in [0.5, 1) so that
// clients that failed together do not retry together, capped by MaxBackoff, and never less than
// the service's Retry-After. After a 429 every request to that base is held until the service's
// penalty is over (Retry-After, or RateLimitPenalty without it). Every wait ends with the context.
type Retry struct {
	Total           int           // retries after the first try; 0: none
	BackoffFactor   time.Duration // base of the exponential backoff
	StatusForcelist []int         // statuses that may be retried
	MaxBackoff      time.Duration // cap of one backoff wait; 0: 2 minutes
}

// RetryStrategy returns the seed's defaults: statuses 429, 500, 502, 503 and 504, backoff factor
// 0.3 s, 5 retries.
func RetryStrategy() *Retry {
	return &Retry{
		Total:           5,
		BackoffFactor:   300 * time.Millisecond,
		StatusForcelist: []int{429, 500, 502, 503, 504},
	}
}

const defaultMaxBackoff = 2 * time.Minute

func (r *Retry) validate() error {
	if r.Total < 0 {
		return invalidf("Retry.Total %d: want 0 (no retries) or more", r.Total)
	}
	if r.BackoffFactor < 0 || r.MaxBackoff < 0 {
		return invalidf("Retry backoff (factor %s, max %s) must not be negative", r.BackoffFactor, r.MaxBackoff)
	}
	for _, s := range r.StatusForcelist {
		if s < 400 || s > 599 {
			return invalidf("Retry.StatusForcelist has %d: only error statuses 400..599 can be retried", s)
		}
	}
	return nil
}

func (r *Retry) retriesStatus(status int) bool { return slices.Contains(r.StatusForcelist, status) }

// backoff is the wait before retry n (n ≥ 1), with jitter in [0.5, 1) of the full value.
func (r *Retry) backoff(n int, jitter float64) time.Duration {
	limit := r.MaxBackoff
	if limit == 0 {
		limit = defaultMaxBackoff
	}
	full := min(float64(r.BackoffFactor)*math.Pow(2, float64(n-1)), float64(limit))
	return time.Duration(full * (0.5 + jitter/2))
}

// maxRetryAfter bounds the Retry-After we honour; a longer one is taken as garbage.
const maxRetryAfter = 24 * time.Hour

// parseRetryAfter reads a Retry-After header: delay seconds or an HTTP date. 0 when absent or bad.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if !(secs > 0 && secs <= maxRetryAfter.Seconds()) { // also refuses NaN
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) && t.Sub(now) <= maxRetryAfter {
		return t.Sub(now)
	}
	return 0
}

// String shows the strategy as the seed's keyword arguments.
func (r *Retry) String() string {
	return fmt.Sprintf("Retry{total=%d, backoff_factor=%s, status_forcelist=%v}", r.Total, r.BackoffFactor, r.StatusForcelist)
}
