package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/airsql/airsql/internal/clock"
)

// userAgent identifies the library to the service.
const userAgent = "airsql-transport/1"

// maxResponseBytes bounds a response body read into memory (a page of 100 large records is far less).
const maxResponseBytes = 64 << 20

// call is one logical request, tried once or more.
type call struct {
	op          string // what the caller asked for, for error messages: "list records", ...
	base, table string // for pacing and error messages; base "" is not paced
	method      string
	path        string // escaped, from /v0/
	host        string // scheme://host to send to instead of the endpoint ("": the endpoint); see uploadHost
	query       string // encoded, without "?"
	body        []byte // JSON, or nil
	safe        bool   // repeating it cannot duplicate data
	prepaced    uint64 // not 0: the first try already waited for its turn, this start (pipelined writes)
}

// response is one answer of the service.
type response struct {
	status int
	header http.Header
	body   []byte
}

// attemptError is a failure to get a response; sent tells whether the request may have reached
// the service.
type attemptError struct {
	err  error
	sent bool
}

// do runs the call with pacing and retries and decodes a success into out (when not nil).
// Errors are wrapped with the operation and table.
func (c *core) do(ctx context.Context, cl *call, out any) error {
	resp, err := c.exchange(ctx, cl)
	if c.cache != nil && cl.isWrite() && cl.table != "" {
		c.cache.invalidate(cl.base, cl.table) // whatever the outcome: a failed write may have written
	}
	if err != nil {
		c.noteAnswer(cl.base, err)
		return wrapOp(cl.op, cl.base, cl.table, err)
	}
	if out != nil {
		if fast, ok := out.(interface{ decodeFast([]byte) bool }); ok && fast.decodeFast(resp.body) {
			return nil
		}
		if err := json.Unmarshal(resp.body, out); err != nil {
			// The body may be anything (a proxy or captive portal echoing the request headers):
			// the token is taken out before it is cut to an excerpt.
			msg := fmt.Sprintf("the service answered HTTP %d with a body that is not the expected JSON (%v): %q",
				resp.status, err, bodyExcerpt(c.redactBody(resp.body)))
			return wrapOp(cl.op, cl.base, cl.table, errors.New(redact(msg, c.token.token)))
		}
	}
	return nil
}

// exchange returns the first success, or the error that ended the tries (unwrapped).
func (c *core) exchange(ctx context.Context, cl *call) (*response, error) {
	var p *pacer
	if cl.base != "" {
		p = c.pacerFor(cl.base)
	}
	// reached is the failure of the first try that may have reached the service (an answer lost
	// on the way back, a 5xx): whatever later tries answer, the request may have been carried out.
	var reached error
	for attempt := 0; ; attempt++ {
		var start uint64
		if p != nil {
			if attempt == 0 && cl.prepaced != 0 {
				start = cl.prepaced
			} else {
				var err error
				if start, err = p.wait(ctx, c.clock); err != nil {
					return nil, fmt.Errorf("waiting for a turn to send: %w", err)
				}
			}
		}
		sentAt := c.clock.Now()
		var wrote func(time.Time, bool)
		if p != nil {
			wrote = func(at time.Time, fresh bool) { p.sent(start, at, fresh) }
		}
		resp, aerr, wroteAt := c.send(ctx, cl, wrote)
		if p != nil {
			if !wroteAt.IsZero() {
				sentAt = wroteAt // the round trip from the wire: a new connection's dial is not the path's
			}
			p.finish(start, c.clock.Now().Sub(sentAt), aerr == nil)
		}
		var wait time.Duration
		var failure error
		switch {
		case aerr != nil:
			failure = aerr.err
			if aerr.sent && reached == nil {
				reached = failure
			}
			if ctx.Err() != nil || !c.mayRetryFailure(cl, aerr.sent, attempt) {
				return nil, afterEarlierTry(failure, reached)
			}
			wait = c.retry.backoff(attempt+1, c.jitter())
		case resp.status >= 400:
			apiErr := parseAPIError(resp.status, c.redactBody(resp.body))
			failure = apiErr
			if resp.status >= 500 && reached == nil {
				reached = failure
			}
			retryAfter := parseRetryAfter(resp.header, c.clock.Now())
			if resp.status == http.StatusTooManyRequests && p != nil && apiErr.Type != billingLimitType {
				penalty := retryAfter
				if penalty == 0 {
					penalty = RateLimitPenalty
				}
				p.hold(c.clock.Now().Add(penalty))
			}
			if !c.mayRetryStatus(cl, apiErr, attempt) {
				return nil, afterEarlierTry(failure, reached)
			}
			wait = max(c.retry.backoff(attempt+1, c.jitter()), retryAfter)
		default:
			return resp, nil
		}
		if err := sleepWithin(ctx, c.clock, wait); err != nil {
			return nil, afterEarlierTry(fmt.Errorf("%w (while waiting %s to retry after: %w)", err, wait, failure), reached)
		}
	}
}

// EarlierTryError is the failure that ended the tries of a request when an earlier try may have
// reached the service (its answer was lost, or it was a 5xx): the request may have been carried
// out whatever the last try answered — a retried write refused with 404, 403 or a final 429 may
// well have been written by the earlier try. Err is the last failure (errors.As still finds its
// *APIError), Earlier the first try that may have been carried out.
type EarlierTryError struct {
	Err     error
	Earlier error
}

func (e *EarlierTryError) Error() string {
	return fmt.Sprintf("%v (an earlier try may have been carried out: %v)", e.Err, e.Earlier)
}

func (e *EarlierTryError) Unwrap() error { return e.Err }

// afterEarlierTry marks the last failure of a request whose earlier try may have reached the service.
// A last failure that itself may have been carried out (a 5xx, a lost answer) already says so.
func afterEarlierTry(last, reached error) error {
	if reached == nil || last == reached || !refused(last) {
		return last
	}
	return &EarlierTryError{Err: last, Earlier: reached}
}

// refused tells whether err is the service's refusal of a request (a 4xx), which it did not carry out.
func refused(err error) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.StatusCode < 500
}

func (c *core) mayRetryStatus(cl *call, e *APIError, attempt int) bool {
	if c.retry == nil || attempt >= c.retry.Total || !c.retry.retriesStatus(e.StatusCode) {
		return false
	}
	if e.StatusCode == http.StatusTooManyRequests {
		return e.Type != billingLimitType
	}
	return cl.safe
}

func (c *core) mayRetryFailure(cl *call, sent bool, attempt int) bool {
	if c.retry == nil || attempt >= c.retry.Total {
		return false
	}
	return cl.safe || !sent
}

// send makes one HTTP exchange, with the connect and read limits of WithTimeout.
//
// wrote, when not nil, is told when the request has been written to the connection (with a
// transport that reports it: *http.Transport), which is returned too (zero when not known), and
// whether that connection was new (fresh: opened for this request, not reused).
func (c *core) send(ctx context.Context, cl *call, wrote func(at time.Time, fresh bool)) (*response, *attemptError, time.Time) {
	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	var wroteAt atomic.Int64 // UnixNano on c.clock; 0: not written (yet)
	var fresh atomic.Bool    // the connection was opened for this request
	wroteTime := func() time.Time {
		if n := wroteAt.Load(); n != 0 {
			return time.Unix(0, n)
		}
		return time.Time{}
	}
	var wd *watchdog
	if c.connectTimeout > 0 || c.readTimeout > 0 {
		wd = c.startWatchdog(cancel)
		defer wd.stop()
	}
	if c.traced {
		reqCtx = httptrace.WithClientTrace(reqCtx, &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) {
				fresh.Store(!info.Reused)
				if wd != nil {
					wd.reading()
				}
			},
			WroteRequest: func(httptrace.WroteRequestInfo) {
				at := c.clock.Now()
				wroteAt.Store(at.UnixNano())
				if wrote != nil {
					wrote(at, fresh.Load())
				}
			},
		})
	}

	var body io.Reader
	if cl.body != nil {
		body = bytes.NewReader(cl.body)
	}
	u := c.endpoint + cl.path
	if cl.host != "" {
		u = cl.host + cl.path
	}
	if cl.query != "" {
		u += "?" + cl.query
	}
	req, err := http.NewRequestWithContext(reqCtx, cl.method, u, body)
	if err != nil {
		return nil, &attemptError{err: fmt.Errorf("building the request: %w", err)}, time.Time{}
	}
	req.Header.Set("Authorization", "Bearer "+c.token.token)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if cl.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}

	res, err := c.client.Do(req)
	// Without connection events (a custom RoundTripper) we cannot tell whether it was sent.
	sent := !c.traced || !wroteTime().IsZero()
	if err != nil {
		return nil, &attemptError{err: c.sendError(reqCtx, err), sent: sent}, wroteTime()
	}
	defer res.Body.Close()
	var r io.Reader = io.LimitReader(res.Body, maxResponseBytes)
	if wd != nil {
		r = &progressReader{r: r, wd: wd}
	}
	data, err := readBody(r, res.ContentLength)
	if err != nil {
		return nil, &attemptError{err: fmt.Errorf("reading the response (HTTP %d): %w", res.StatusCode, c.sendError(reqCtx, err)), sent: true}, wroteTime()
	}
	return &response{status: res.StatusCode, header: res.Header, body: data}, nil, wroteTime()
}

// readBody reads an answer into one buffer of its announced length (plus a byte to see the end),
// or else of a page's usual size: io.ReadAll starts at 512 bytes and copies a page of records
// about a dozen times as it grows.
func readBody(r io.Reader, length int64) ([]byte, error) {
	size := int64(32 << 10)
	if length >= 0 && length < maxResponseBytes {
		size = length + 1
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // as io.ReadAll grows
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// sendError prefers our own timeout cause to the context error it surfaces as, and keeps the
// token out of the text.
func (c *core) sendError(reqCtx context.Context, err error) error {
	if cause := context.Cause(reqCtx); cause != nil && (errors.Is(cause, ErrConnectTimeout) || errors.Is(cause, ErrReadTimeout)) {
		return cause
	}
	if strings.Contains(err.Error(), c.token.token) {
		return errors.New(redact(err.Error(), c.token.token))
	}
	return err
}

// bearerCredentials matches an Authorization header's value as an echoing server would quote it.
var bearerCredentials = regexp.MustCompile(`(?i)(bearer)(\s|%20|\+)+[^\s"'\\,;<>&]+`)

// redactBody takes the token, and any bearer credentials, out of an answer body before any of it
// is quoted in an error: whole, before the body is cut to an excerpt that could keep part of it.
func (c *core) redactBody(body []byte) []byte {
	s := redact(string(body), c.token.token)
	s = bearerCredentials.ReplaceAllString(s, "$1 [redacted]")
	return []byte(s)
}

// scrub keeps the token out of an error that quotes part of an answer (a record id, an offset):
// the text is redacted, errors.Is and errors.As still see the original.
func (c *core) scrub(err error) error {
	msg := err.Error()
	clean := string(c.redactBody([]byte(msg)))
	if clean == msg {
		return err
	}
	return &scrubbedError{msg: clean, err: err}
}

type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

// redact removes the token from text that came from elsewhere (a server echoing headers).
func redact(s, token string) string {
	if token == "" || !strings.Contains(s, token) {
		return s
	}
	return strings.ReplaceAll(s, token, "[redacted]")
}

// watchdog cancels a request that overruns the connect or read limit; it runs on the core's clock.
type watchdog struct {
	clock   clock.Clock
	cancel  context.CancelCauseFunc
	read    time.Duration
	readErr error
	phase   chan struct{} // a token: the connection is made, or the response made progress
	done    chan struct{}
	once    atomic.Bool
}

func (c *core) startWatchdog(cancel context.CancelCauseFunc) *watchdog {
	w := &watchdog{
		clock:   c.clock,
		cancel:  cancel,
		read:    c.readTimeout,
		readErr: fmt.Errorf("%w: no response within %s; raise the read limit of WithTimeout if the service is slow", ErrReadTimeout, c.readTimeout),
		phase:   make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	// The connect phase exists only where connection events tell us when it ends.
	limit, cause := c.readTimeout, w.readErr
	if c.traced && c.connectTimeout > 0 {
		limit = c.connectTimeout
		cause = fmt.Errorf("%w: no connection within %s; check the endpoint and network, or raise the connect limit of WithTimeout", ErrConnectTimeout, c.connectTimeout)
	}
	go w.run(limit, cause)
	return w
}

func (w *watchdog) run(limit time.Duration, cause error) {
	for {
		var fire <-chan time.Time
		if limit > 0 {
			fire = w.clock.After(limit)
		}
		select {
		case <-fire:
			w.cancel(cause)
			return
		case <-w.phase:
			limit, cause = w.read, w.readErr
		case <-w.done:
			return
		}
	}
}

// reading restarts the read limit: the connection is made or the response moved forward.
func (w *watchdog) reading() {
	select {
	case w.phase <- struct{}{}:
	default: // a restart is already pending
	}
}

func (w *watchdog) stop() {
	if w.once.CompareAndSwap(false, true) {
		close(w.done)
	}
}

type progressReader struct {
	r  io.Reader
	wd *watchdog
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.wd.reading()
	}
	return n, err
}
