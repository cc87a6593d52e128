package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airsql/airsql/internal/clock"
)

func TestAPIErrorKeepsWhatTheServiceSent(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   APIError
	}{
		{"object", 422, `{"error":{"type":"INVALID_FILTER_BY_FORMULA","message":"The formula for filtering records is invalid: Unknown field names: x"}}`,
			APIError{422, "INVALID_FILTER_BY_FORMULA", "The formula for filtering records is invalid: Unknown field names: x"}},
		{"no message", 422, `{"error":{"type":"LIST_RECORDS_ITERATOR_NOT_AVAILABLE"}}`, APIError{422, "LIST_RECORDS_ITERATOR_NOT_AVAILABLE", ""}},
		{"legacy string", 404, `{"error":"NOT_FOUND"}`, APIError{404, "NOT_FOUND", ""}},
		{"not JSON", 502, `<html>Bad Gateway</html>`, APIError{502, "", "<html>Bad Gateway</html>"}},
		{"empty body", 500, ``, APIError{500, "", ""}},
		{"no error member", 400, `{"message":"x"}`, APIError{400, "", `{"message":"x"}`}},
		{"error of another shape", 400, `{"error":42}`, APIError{400, "", `{"error":42}`}},
		{"extra members", 403, `{"error":{"type":"INVALID_PERMISSIONS","message":"no","details":{}}}`, APIError{403, "INVALID_PERMISSIONS", "no"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl, _, _ := newTestTable(t, func(int, seenRequest) reply { return reply{status: tt.status, body: tt.body} })
			_, err := tbl.Get(bg, "recA")
			var got *APIError
			if !errors.As(err, &got) {
				t.Fatalf("got %v, want an *APIError", err)
			}
			if *got != tt.want {
				t.Errorf("got %+v, want %+v", *got, tt.want)
			}
			if !strings.Contains(err.Error(), "get record") || !strings.Contains(err.Error(), `"My Tasks"`) {
				t.Errorf("%q should name the operation and table", err)
			}
		})
	}
}

func TestAPIErrorIsComparesType(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", &APIError{StatusCode: 404, Type: "MODEL_ID_NOT_FOUND", Message: "Record not found"})
	if !errors.Is(err, ErrModelNotFound) {
		t.Error("want Is(ErrModelNotFound)")
	}
	if errors.Is(err, ErrNotFound) {
		t.Error("MODEL_ID_NOT_FOUND is not NOT_FOUND")
	}
	if !errors.Is(err, &APIError{StatusCode: 404}) {
		t.Error("a target without Type compares the status")
	}
	if (&APIError{StatusCode: 503}).Error() != "airtable: HTTP 503" {
		t.Errorf("got %q", (&APIError{StatusCode: 503}).Error())
	}
}

func FuzzParseAPIError(f *testing.F) {
	for _, s := range []string{`{"error":{"type":"A","message":"b"}}`, `{"error":"NOT_FOUND"}`, `<html>`, ``, `{"error":null}`, `{"error":[1]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		e := parseAPIError(422, []byte(body))
		if e.StatusCode != 422 || len(e.Message) > maxErrorBodyInMessage+len("…") {
			t.Fatalf("got %+v", e)
		}
		_ = e.Error()
	})
}

// TestTokenNeverInErrorText drives every kind of failure and formats every object.
func TestTokenNeverInErrorText(t *testing.T) {
	echoHeader := func(_ int, r seenRequest) reply {
		return reply{status: 401, body: fmt.Sprintf(`{"error":{"type":"AUTHENTICATION_REQUIRED","message":"bad token %s"}}`, r.Header.Get("Authorization"))}
	}
	tbl, _, _ := newTestTable(t, echoHeader)
	var errs []error
	_, err := tbl.Get(bg, "recA")
	errs = append(errs, err)
	_, err = tbl.BatchCreate(bg, []map[string]any{{"a": 1}}, WriteOptions{})
	errs = append(errs, err)
	_, err = tbl.All(bg, ListOptions{PageSize: 1000})
	errs = append(errs, err)

	// A server that is not there.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	gone, _ := NewTable(testToken, testBase, "T", WithEndpointURL("http://"+addr))
	_, err = gone.Get(bg, "recA")
	errs = append(errs, err)
	if err == nil || !strings.Contains(err.Error(), `get record on table "T" of base `+testBase) {
		t.Errorf("network error %v: want it wrapped with the operation and table", err)
	}

	// A bad endpoint and an empty token at construction.
	_, err = NewAPI(testToken, WithEndpointURL("http://user:"+testToken+"@host"))
	errs = append(errs, err)
	_, err = NewAPI(testToken, WithEndpointURL("::"+testToken))
	errs = append(errs, err)

	for i, err := range errs {
		if err == nil {
			t.Errorf("case %d: no error", i)
			continue
		}
		for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
			if strings.Contains(s, testToken) || strings.Contains(s, "secret-0123456789") {
				t.Errorf("case %d: the token appears in %q", i, s)
			}
		}
	}
	for _, v := range []any{tbl, tbl.Base(), &API{c: tbl.c}, *tbl, *tbl.c} {
		for _, s := range []string{fmt.Sprint(v), fmt.Sprintf("%+v", v), fmt.Sprintf("%#v", v)} {
			if strings.Contains(s, "secret-0123456789") {
				t.Errorf("the token appears in %q", s)
			}
		}
	}
}

func TestConstructorsRefuseBadArguments(t *testing.T) {
	tests := []struct {
		name    string
		make    func() error
		mention string
	}{
		{"empty token", func() error { _, err := NewAPI(""); return err }, "empty API key"},
		{"empty base", func() error { _, err := NewBase(testToken, ""); return err }, "empty base id"},
		{"empty table", func() error { _, err := NewTable(testToken, testBase, ""); return err }, "empty table name"},
		{"relative endpoint", func() error { _, err := NewAPI(testToken, WithEndpointURL("api.airtable.com")); return err }, "absolute http or https"},
		{"endpoint with query", func() error { _, err := NewAPI(testToken, WithEndpointURL("https://x/?a=b")); return err }, "query"},
		{"negative timeout", func() error { _, err := NewAPI(testToken, WithTimeout(-1, 0)); return err }, "timeouts"},
		{"nil clock", func() error { _, err := NewAPI(testToken, WithClock(nil)); return err }, "WithClock"},
	}
	for _, tt := range tests {
		err := tt.make()
		if !errors.Is(err, ErrInvalidOption) || !strings.Contains(err.Error(), tt.mention) {
			t.Errorf("%s: got %v, want ErrInvalidOption mentioning %q", tt.name, err, tt.mention)
		}
	}
	api, err := NewAPI(testToken, WithEndpointURL("http://proxy.local/prefix/"))
	if err != nil {
		t.Fatal(err)
	}
	if got := api.Table(testBase, "T").URL(); got != "http://proxy.local/prefix/v0/appTEST0000000001/T" {
		t.Errorf("URL behind a proxy prefix: %s", got)
	}
	if _, err := api.Get(bg, "", "T", "rec1"); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("empty base id on a call: got %v", err)
	}
}

func TestReadTimeout(t *testing.T) {
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done()
	}))
	defer srv.Close()
	clk := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	tbl, err := NewTable(testToken, testBase, "T", WithEndpointURL(srv.URL), WithClock(clk), WithTimeout(time.Second, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := tbl.Get(bg, "recA"); done <- err }()
	<-arrived
	// The connect limit's timer and, once the connection is made, the read limit's.
	if err := clk.BlockUntil(bg, 2); err != nil {
		t.Fatal(err)
	}
	clk.Advance(5 * time.Second)
	err = <-done
	if !errors.Is(err, ErrReadTimeout) || !strings.Contains(err.Error(), "get record") || !strings.Contains(err.Error(), `"T"`) {
		t.Errorf("got %v, want ErrReadTimeout naming the operation and table", err)
	}
}

func TestConnectTimeout(t *testing.T) {
	dialing := make(chan struct{}, 1)
	transport := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialing <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	clk := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	tbl, err := NewTable(testToken, testBase, "T", WithEndpointURL("http://unreachable.test"), WithHTTPClient(&http.Client{Transport: transport}),
		WithClock(clk), WithTimeout(2*time.Second, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := tbl.Create(bg, map[string]any{"a": 1}, WriteOptions{}); done <- err }()
	<-dialing
	if err := clk.BlockUntil(bg, 1); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Second)
	if err := <-done; !errors.Is(err, ErrConnectTimeout) || !strings.Contains(err.Error(), "create record") {
		t.Errorf("got %v, want ErrConnectTimeout", err)
	}
}

// TestCreateRetriedWhenNeverSent: a create whose connection failed never reached the service,
// so repeating it cannot duplicate the record.
func TestCreateRetriedWhenNeverSent(t *testing.T) {
	var created atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		created.Add(1)
		fmt.Fprint(w, recordJSON("recNEW", `{"a":1}`))
	}))
	defer srv.Close()
	var dials atomic.Int32
	transport := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) == 1 {
			return nil, errors.New("connection refused")
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	tbl, err := NewTable(testToken, testBase, "T", WithEndpointURL(srv.URL), WithHTTPClient(&http.Client{Transport: transport}),
		WithClock(newJumpClock()), WithRetryStrategy(RetryStrategy()))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := tbl.Create(bg, map[string]any{"a": 1}, WriteOptions{})
	if err != nil || rec.ID != "recNEW" || created.Load() != 1 || dials.Load() != 2 {
		t.Errorf("got %v, %v after %d dials, %d creates", rec, err, dials.Load(), created.Load())
	}

	// Once sent, a failed create is not repeated.
	var calls atomic.Int32
	hijack := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		c, _, _ := w.(http.Hijacker).Hijack()
		c.Close() // the connection drops after the request was written
	}))
	defer hijack.Close()
	tbl, _ = NewTable(testToken, testBase, "T", WithEndpointURL(hijack.URL), WithClock(newJumpClock()), WithRetryStrategy(RetryStrategy()))
	if _, err := tbl.Create(bg, map[string]any{"a": 1}, WriteOptions{}); err == nil || calls.Load() != 1 {
		t.Errorf("got %v after %d requests, want an error after exactly one", err, calls.Load())
	}
	if _, err := tbl.Get(bg, "recA"); err == nil || calls.Load() != 7 {
		t.Errorf("a GET is retried: got %v after %d requests in all, want 1 + 6", err, calls.Load())
	}
}
