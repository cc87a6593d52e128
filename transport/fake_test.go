package transport

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// jumpClock is a clock whose waits end at once by moving its time forward: code that paces or
// backs off runs without sleeping, and the waits it asked for are recorded.
type jumpClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func newJumpClock() *jumpClock {
	return &jumpClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *jumpClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *jumpClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
		c.waits = append(c.waits, d)
	}
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

func (c *jumpClock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// seenRequest is one request the fake service received.
type seenRequest struct {
	Method, Path, Query string // Path escaped, Query raw
	Host                string
	Header              http.Header
	Body                string
}

func (r seenRequest) String() string {
	s := r.Method + " " + r.Path
	if r.Query != "" {
		s += "?" + r.Query
	}
	if r.Body != "" {
		s += " " + r.Body
	}
	return s
}

// reply is the fake service's answer.
type reply struct {
	status int
	header http.Header
	body   string
}

func ok(body string) reply { return reply{status: 200, body: body} }

// fakeService is an in-process RoundTripper that records requests and answers through a handler.
type fakeService struct {
	mu       sync.Mutex
	requests []seenRequest
	handler  func(n int, r seenRequest) reply // n: index of the request, from 0
	arrived  chan seenRequest                 // if not nil, every request is also sent here
}

func newFake(handler func(n int, r seenRequest) reply) *fakeService {
	return &fakeService{handler: handler}
}

func (f *fakeService) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
	}
	r := seenRequest{Method: req.Method, Host: req.URL.Host, Path: req.URL.EscapedPath(), Query: req.URL.RawQuery, Header: req.Header.Clone(), Body: string(body)}
	f.mu.Lock()
	n := len(f.requests)
	f.requests = append(f.requests, r)
	f.mu.Unlock()
	if f.arrived != nil {
		f.arrived <- r
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	rep := f.handler(n, r)
	h := rep.header
	if h == nil {
		h = http.Header{}
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json; charset=utf-8")
	}
	return &http.Response{StatusCode: rep.status, Status: fmt.Sprintf("%d %s", rep.status, http.StatusText(rep.status)),
		Header: h, Body: io.NopCloser(bytes.NewReader([]byte(rep.body))), Request: req, ProtoMajor: 1, ProtoMinor: 1}, nil
}

func (f *fakeService) Requests() []seenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seenRequest(nil), f.requests...)
}

func (f *fakeService) Lines() []string {
	var out []string
	for _, r := range f.Requests() {
		out = append(out, r.String())
	}
	return out
}

const testToken = "patTESTtoken.secret-0123456789"
const testBase = "appTEST0000000001"

// newTestTable returns a table on a fresh fake service with a jump clock (no real waits).
func newTestTable(t *testing.T, handler func(n int, r seenRequest) reply, opts ...Option) (*Table, *fakeService, *jumpClock) {
	t.Helper()
	fake := newFake(handler)
	clk := newJumpClock()
	all := append([]Option{WithHTTPClient(&http.Client{Transport: fake}), WithEndpointURL("http://fake.test"), WithClock(clk)}, opts...)
	tbl, err := NewTable(testToken, testBase, "My Tasks", all...)
	if err != nil {
		t.Fatal(err)
	}
	return tbl, fake, clk
}

// recordJSON is a record as the service sends it.
func recordJSON(id string, fields string) string {
	return fmt.Sprintf(`{"id":%q,"createdTime":"2024-01-01T00:00:00.000Z","fields":%s}`, id, fields)
}

func recordsJSON(n, from int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = recordJSON(fmt.Sprintf("rec%014d", from+i), fmt.Sprintf(`{"N":%d}`, from+i))
	}
	return strings.Join(parts, ",")
}

func diffLines(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\ngot:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

var bg = context.Background()

func sortLines(lines []string) { slices.Sort(lines) }
