package transport

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

func failing(status int, times int, header http.Header) func(n int, r seenRequest) reply {
	return func(n int, r seenRequest) reply {
		if n < times {
			return reply{status: status, header: header, body: `{"error":{"type":"T","message":"m"}}`}
		}
		return echoWrites(n, r)
	}
}

func TestRetryWhatIsSafe(t *testing.T) {
	get := func(t *Table) error { _, err := t.Get(bg, "recA"); return err }
	list := func(t *Table) error { _, err := t.All(bg, ListOptions{}); return err }
	create := func(t *Table) error { _, err := t.Create(bg, map[string]any{"a": 1}, WriteOptions{}); return err }
	batchCreate := func(t *Table) error {
		_, err := t.BatchCreate(bg, []map[string]any{{"a": 1}}, WriteOptions{})
		return err
	}
	patch := func(t *Table) error { _, err := t.Update(bg, "recA", nil, WriteOptions{}); return err }
	put := func(t *Table) error { _, err := t.Update(bg, "recA", nil, WriteOptions{Replace: true}); return err }
	del := func(t *Table) error { _, err := t.Delete(bg, "recA"); return err }
	batchUpdate := func(t *Table) error {
		_, err := t.BatchUpdate(bg, []Record{{ID: "recA"}}, WriteOptions{})
		return err
	}
	tests := []struct {
		name     string
		status   int
		do       func(*Table) error
		retry    *Retry
		wantSent int
		wantErr  bool
	}{
		{"GET 503 retried", 503, get, RetryStrategy(), 3, false},
		{"DELETE 502 retried", 502, del, RetryStrategy(), 3, false},
		{"PATCH 500 retried", 500, patch, RetryStrategy(), 3, false},
		{"PUT 504 retried", 504, put, RetryStrategy(), 3, false},
		{"batch PATCH 503 retried", 503, batchUpdate, RetryStrategy(), 3, false},
		{"POST create 503 not retried", 503, create, RetryStrategy(), 1, true},
		{"POST batch create 500 not retried", 500, batchCreate, RetryStrategy(), 1, true},
		{"POST create 429 retried", 429, create, RetryStrategy(), 3, false},
		{"POST batch create 429 retried", 429, batchCreate, RetryStrategy(), 3, false},
		{"GET 429 retried", 429, list, RetryStrategy(), 3, false},
		{"no strategy: nothing retried", 503, get, nil, 1, true},
		{"no strategy: 429 not retried", 429, get, nil, 1, true},
		{"422 never retried", 422, get, RetryStrategy(), 1, true},
		{"status not in forcelist", 503, get, &Retry{Total: 5, StatusForcelist: []int{429}}, 1, true},
		{"total caps the retries", 503, get, &Retry{Total: 1, StatusForcelist: []int{503}}, 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []Option
			if tt.retry != nil {
				opts = append(opts, WithRetryStrategy(tt.retry))
			}
			tbl, fake, _ := newTestTable(t, failing(tt.status, 2, nil), opts...)
			err := tt.do(tbl)
			if (err != nil) != tt.wantErr {
				t.Errorf("error %v, want error: %v", err, tt.wantErr)
			}
			if err != nil {
				var apiErr *APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.status {
					t.Errorf("got %v, want the HTTP %d APIError", err, tt.status)
				}
			}
			if n := len(fake.Requests()); n != tt.wantSent {
				t.Errorf("%d requests, want %d", n, tt.wantSent)
			}
		})
	}
}

func TestBackoffWaits(t *testing.T) {
	APILimitOff(t)
	tbl, _, clk := newTestTable(t, failing(503, 5, nil), WithRetryStrategy(RetryStrategy()))
	tbl.c.jitter = func() float64 { return 0.999999 } // the full wait
	if _, err := tbl.Get(bg, "recA"); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{300 * time.Millisecond, 600 * time.Millisecond, 1200 * time.Millisecond, 2400 * time.Millisecond, 4800 * time.Millisecond}
	got := clk.Waits()
	if len(got) != len(want) {
		t.Fatalf("waits %v, want %v", got, want)
	}
	for i := range want {
		if d := want[i] - got[i]; d < 0 || d > time.Millisecond {
			t.Errorf("wait %d: %v, want %v", i, got[i], want[i])
		}
	}

	tbl, _, clk = newTestTable(t, failing(503, 1, nil), WithRetryStrategy(RetryStrategy()))
	tbl.c.jitter = func() float64 { return 0 } // half the wait
	if _, err := tbl.Get(bg, "recA"); err != nil {
		t.Fatal(err)
	}
	if got := clk.Waits(); !reflect.DeepEqual(got, []time.Duration{150 * time.Millisecond}) {
		t.Errorf("waits %v, want [150ms]: jitter takes at most half", got)
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	APILimitOff(t)
	tbl, _, clk := newTestTable(t, failing(503, 1, http.Header{"Retry-After": {"7"}}), WithRetryStrategy(RetryStrategy()))
	if _, err := tbl.Get(bg, "recA"); err != nil {
		t.Fatal(err)
	}
	if got := clk.Waits(); !reflect.DeepEqual(got, []time.Duration{7 * time.Second}) {
		t.Errorf("waits %v, want [7s]", got)
	}
}

func TestRateLimitHoldsTheBase(t *testing.T) {
	APILimitOff(t)
	t.Run("no Retry-After: the 30 s penalty", func(t *testing.T) {
		tbl, fake, clk := newTestTable(t, failing(429, 1, nil))
		_, err := tbl.Get(bg, "recA")
		if !errors.Is(err, ErrRateLimited) && !strings.Contains(err.Error(), "429") {
			t.Fatalf("got %v", err)
		}
		start := clk.Now()
		// Another object of the same base waits for the penalty to end before sending.
		if _, err := tbl.Base().Table("Other").Get(bg, "recB"); err != nil {
			t.Fatal(err)
		}
		if waited := clk.Now().Sub(start); waited < 30*time.Second-time.Second {
			t.Errorf("the next request went out after %v, want the 30 s penalty", waited)
		}
		if n := len(fake.Requests()); n != 2 {
			t.Errorf("%d requests, want 2", n)
		}
	})
	t.Run("Retry-After", func(t *testing.T) {
		tbl, _, clk := newTestTable(t, failing(429, 1, http.Header{"Retry-After": {"3"}}), WithRetryStrategy(RetryStrategy()))
		start := clk.Now()
		if _, err := tbl.Get(bg, "recA"); err != nil {
			t.Fatal(err)
		}
		if waited := clk.Now().Sub(start); waited < 3*time.Second || waited > 4*time.Second {
			t.Errorf("retried after %v, want 3 s", waited)
		}
	})
	t.Run("monthly quota not retried", func(t *testing.T) {
		tbl, fake, _ := newTestTable(t, func(int, seenRequest) reply {
			return reply{status: 429, body: `{"error":{"type":"PUBLIC_API_BILLING_LIMIT_EXCEEDED","message":"API billing plan limit exceeded."}}`}
		}, WithRetryStrategy(RetryStrategy()))
		_, err := tbl.Get(bg, "recA")
		if err == nil || len(fake.Requests()) != 1 {
			t.Errorf("got %v after %d requests, want one request and the error", err, len(fake.Requests()))
		}
	})
}

func TestRetryWaitEndsWithContext(t *testing.T) {
	APILimitOff(t)
	ctx, cancel := context.WithCancel(bg)
	tbl, _, _ := newTestTable(t, func(n int, r seenRequest) reply {
		cancel() // the caller gives up while the request is answered
		return reply{status: 503, body: `{"error":{"type":"RETRIABLE_ERROR"}}`}
	}, WithRetryStrategy(RetryStrategy()))
	_, err := tbl.Get(ctx, "recA")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestRetryValidation(t *testing.T) {
	for _, r := range []*Retry{{Total: -1}, {BackoffFactor: -1}, {StatusForcelist: []int{200}}} {
		if _, err := NewAPI(testToken, WithRetryStrategy(r)); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("%v: got %v, want ErrInvalidOption", r, err)
		}
	}
	d := RetryStrategy()
	if d.Total != 5 || d.BackoffFactor != 300*time.Millisecond || !reflect.DeepEqual(d.StatusForcelist, []int{429, 500, 502, 503, 504}) {
		t.Errorf("RetryStrategy() = %v, want the seed's defaults", d)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		v    string
		want time.Duration
	}{
		{"", 0}, {"5", 5 * time.Second}, {"0.5", 500 * time.Millisecond}, {"-1", 0}, {"junk", 0},
		{"Wed, 01 Jan 2025 00:00:10 GMT", 10 * time.Second}, {"Tue, 31 Dec 2024 00:00:00 GMT", 0},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(http.Header{"Retry-After": {tt.v}}, now); got != tt.want {
			t.Errorf("%q: got %v, want %v", tt.v, got, tt.want)
		}
	}
}

// APILimitOff turns pacing off for one test, so that only the waits under test are recorded.
func APILimitOff(t *testing.T) {
	old := APILimit
	APILimit = 0
	t.Cleanup(func() { APILimit = old })
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"", "5", "0.25", "-3", "1e9", "NaN", "Wed, 01 Jan 2025 00:00:10 GMT", "junk"} {
		f.Add(s)
	}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d := parseRetryAfter(http.Header{"Retry-After": {v}}, now)
		if d < 0 || d > maxRetryAfter {
			t.Fatalf("Retry-After %q gave %v", v, d)
		}
	})
}

func TestHeldRequestEndsWithContext(t *testing.T) {
	APILimitOff(t)
	tbl, _, _ := newTestTable(t, failing(429, 1, nil))
	if _, err := tbl.Get(bg, "recA"); !errors.Is(err, &APIError{StatusCode: 429}) {
		t.Fatalf("got %v", err)
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	_, err := tbl.Get(ctx, "recB")
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "penalty") {
		t.Errorf("got %v, want the context's error saying the base is held", err)
	}
}

// TestWaitPastDeadlineFailsAtOnce: on the real clock, a wait that would outlast the context's
// deadline (a 429 penalty, a Retry-After, the pacing interval) fails at once, and nothing is sent.
func TestWaitPastDeadlineFailsAtOnce(t *testing.T) {
	newRealTable := func(t *testing.T, handler func(int, seenRequest) reply, opts ...Option) (*Table, *fakeService) {
		fake := newFake(handler)
		tbl, err := NewTable(testToken, testBase, "T", append([]Option{WithHTTPClient(&http.Client{Transport: fake}), WithEndpointURL("http://fake.test")}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return tbl, fake
	}
	tests := []struct {
		name    string
		setup   func(t *testing.T) (*Table, *fakeService)
		mention string
	}{
		{"429 penalty", func(t *testing.T) (*Table, *fakeService) {
			tbl, fake := newRealTable(t, failing(429, 1, nil))
			if _, err := tbl.Get(bg, "recA"); !errors.Is(err, ErrRateLimited) && !errors.Is(err, &APIError{StatusCode: 429}) {
				t.Fatalf("got %v, want the 429", err)
			}
			return tbl, fake
		}, "penalty"},
		{"Retry-After", func(t *testing.T) (*Table, *fakeService) {
			return newRealTable(t, failing(503, 1, http.Header{"Retry-After": {"60"}}), WithRetryStrategy(RetryStrategy()))
		}, "to retry"},
		{"pacing interval", func(t *testing.T) (*Table, *fakeService) {
			old := APILimit
			APILimit = time.Minute
			t.Cleanup(func() { APILimit = old })
			tbl, fake := newRealTable(t, echoWrites)
			for range windowStarts { // the window's whole burst: the next waits a span
				if _, err := tbl.Get(bg, "recA"); err != nil {
					t.Fatal(err)
				}
			}
			return tbl, fake
		}, "not enough to wait"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl, fake := tt.setup(t)
			sentBefore := len(fake.Requests())
			if tt.name == "Retry-After" {
				sentBefore = 1 // the one try before the wait
			}
			ctx, cancel := context.WithTimeout(bg, 20*time.Second)
			defer cancel()
			_, err := tbl.Get(ctx, "recB")
			if ctx.Err() != nil {
				t.Fatalf("Get returned only when the context ended: %v", err)
			}
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("got %v, want context.DeadlineExceeded mentioning %q", err, tt.mention)
			}
			if n := len(fake.Requests()); n != sentBefore {
				t.Errorf("%d requests, want %d", n, sentBefore)
			}
		})
	}
}
