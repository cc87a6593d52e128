package emulator

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestRoutingAndPaths(t *testing.T) {
	f := smallFixture(t)
	f.Bases[0].Tables = append(f.Bases[0].Tables, FixtureTable{Name: "A/B Tests", Fields: []FixtureField{{Name: "Name", Type: "singleLineText"}},
		Records: []FixtureRecord{{Fields: map[string]any{"Name": "slash"}}}})
	s, _ := newTestServer(t, WithFixture(f))
	tests := []struct {
		method, path string
		status       int
	}{
		{"GET", testBase + "/Tasks", 200},
		{"GET", testBase + "/Tasks/", 200},                // trailing slash
		{"POST", testBase + "/Tasks/?", 200},              // airtable.js create: slash and empty query
		{"GET", testBase + "/tblTASKS000000001", 200},     // by id
		{"GET", testBase + "/A%2FB%20Tests", 200},         // "/" in a name arrives escaped
		{"GET", testBase + "/A/B%20Tests", 403},           // unescaped: a record "B Tests" of table "A"
		{"GET", "/v1/appTEST0000000001/Tasks", 404},       // not a route
		{"GET", testBase + "/Tasks/rec1/comments/x", 404}, // not a route
		{"POST", testBase + "/Tasks/listRecords", 200},
		{"GET", testBase + "/Nope", 403},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			var body any
			if tc.method == "POST" {
				body = map[string]any{"fields": map[string]any{"Name": "x"}}
				if strings.HasSuffix(tc.path, "listRecords") {
					body = map[string]any{}
				}
			}
			r := do(t, s, DefaultToken, tc.method, tc.path, body)
			mustStatus(t, r, tc.status)
			if tc.status == 404 && r.raw != `{"error":"NOT_FOUND"}` {
				t.Fatalf("404 body %s", r.raw)
			}
		})
	}
}

func TestAuthAndScopes(t *testing.T) {
	f := smallFixture(t)
	f.Tokens = []FixtureToken{
		{Token: "patREAD.secret", Bases: []string{"appTEST0000000001"}, Scopes: []string{"data.records:read"}},
		{Token: "patALL.secret", Bases: []string{"appTEST0000000001"}, Scopes: []string{"data.records:read", "data.records:write", "schema.bases:read"}},
		{Token: "patOTHER.secret", Bases: []string{"appOTHER000000001"}, Scopes: allScopes},
	}
	s, _ := newTestServer(t, WithFixture(f))
	tests := []struct {
		name, tok, method, path string
		status                  int
		typ                     string
	}{
		{"no token", "", "GET", testBase + "/Tasks", 401, "AUTHENTICATION_REQUIRED"},
		{"wrong token", "patNOPE", "GET", testBase + "/Tasks", 401, "AUTHENTICATION_REQUIRED"},
		{"read ok", "patREAD.secret", "GET", testBase + "/Tasks", 200, ""},
		{"read cannot write", "patREAD.secret", "DELETE", testBase + "/Tasks/recTASK0000000001", 403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND"},
		{"read cannot see schema", "patREAD.secret", "GET", "/v0/meta/bases/appTEST0000000001/tables", 403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND"},
		{"other base", "patOTHER.secret", "GET", testBase + "/Tasks", 403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND"},
		{"schema", "patALL.secret", "GET", "/v0/meta/bases/appTEST0000000001/tables", 200, ""},
		{"whoami", "patREAD.secret", "GET", "/v0/meta/whoami", 200, ""},
		{"bases without scope", "patREAD.secret", "GET", "/v0/meta/bases", 403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, s, tc.tok, tc.method, tc.path, nil)
			mustStatus(t, r, tc.status)
			if errType(r) != tc.typ {
				t.Fatalf("type %q, want %q: %s", errType(r), tc.typ, r.raw)
			}
			if strings.Contains(r.raw, "secret") {
				t.Fatalf("the token leaks into the answer: %s", r.raw)
			}
		})
	}
	r := do(t, s, "patALL.secret", "GET", "/v0/meta/bases", nil)
	if r.raw != `{"bases":[{"id":"appTEST0000000001","name":"Test","permissionLevel":"create"}]}` {
		t.Fatalf("bases %s", r.raw)
	}
}

func TestNotFoundModes(t *testing.T) {
	tests := []struct {
		mode NotFoundMode
		path string
		want string
		code int
	}{
		{NotFoundForbidden, testBase + "/Nope", `{"error":{"type":"INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND","message":"` + msgNotFound + `"}}`, 403},
		{NotFoundForbidden, testBase + "/Tasks/recNOPE0000000001", "", 403},
		{NotFoundForbidden, "/v0/appNOPE000000001x/Tasks", "", 403},
		{NotFoundLegacy, testBase + "/Unknown%20Table", `{"error":{"type":"TABLE_NOT_FOUND","message":"Could not find table Unknown Table in application appTEST0000000001"}}`, 404},
		{NotFoundLegacy, testBase + "/Tasks/recNOPE0000000001", `{"error":{"type":"MODEL_ID_NOT_FOUND","message":"Record not found"}}`, 404},
		{NotFoundLegacy, testBase + "/Tasks/junk", `{"error":"NOT_FOUND"}`, 404},
		{NotFoundLegacy, "/v0/meta/bases/junk/tables", `{"error":"NOT_FOUND"}`, 404},
		{NotFoundLegacy, "/v0/meta/bases/appNOPE0000000001/tables", `{"error":{"type":"NOT_FOUND"}}`, 404},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			s, _ := newTestServer(t, WithFixture(smallFixture(t)), WithNotFound(tc.mode))
			r := do(t, s, DefaultToken, "GET", tc.path, nil)
			mustStatus(t, r, tc.code)
			if tc.want != "" {
				assertSameJSON(t, r.raw, tc.want)
			}
		})
	}
}

func assertSameJSON(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("got is not JSON: %s", got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %s", want)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Fatalf("got  %s\nwant %s", gb, wb)
	}
}

func TestRateLimitPerBase(t *testing.T) {
	s, fc := newTestServer(t, WithFixture(smallFixture(t)), WithRate(5, 30*time.Second))
	get := func() response { return do(t, s, DefaultToken, "GET", testBase+"/Tasks?maxRecords=1", nil) }
	for i := range 5 {
		mustStatus(t, get(), 200)
		_ = i
	}
	r := get()
	mustStatus(t, r, 429)
	assertSameJSON(t, r.raw, `{"error":{"type":"RATE_LIMIT_REACHED","message":"Rate limit exceeded. Please try again later"}}`)
	// Other routes without a base (whoami) are not limited per base.
	mustStatus(t, do(t, s, DefaultToken, "GET", "/v0/meta/whoami", nil), 200)
	fc.Advance(29 * time.Second)
	mustStatus(t, get(), 429) // still in the penalty, although the window has long passed
	fc.Advance(time.Second)
	mustStatus(t, get(), 200) // penalty over
	// The window slides: 4 more fit in the same second, the 5th of this second does not.
	for range 4 {
		mustStatus(t, get(), 200)
	}
	mustStatus(t, get(), 429)
}

func TestRateLimitSlidingWindow(t *testing.T) {
	s, fc := newTestServer(t, WithFixture(smallFixture(t)), WithRate(5, time.Second))
	get := func() int { return do(t, s, DefaultToken, "GET", testBase+"/Tasks?maxRecords=1", nil).status }
	for range 5 {
		if get() != 200 {
			t.Fatal("within the rate")
		}
		fc.Advance(150 * time.Millisecond)
	}
	// 750 ms after the first: 5 requests are in the last second.
	if st := get(); st != 429 {
		t.Fatalf("6th request in a sliding second: %d", st)
	}
}

func TestTokenRateAndUnlimited(t *testing.T) {
	s, fc := newTestServer(t, WithFixture(smallFixture(t)), WithRate(0, 0), WithTokenRate(3))
	for range 3 {
		mustStatus(t, do(t, s, DefaultToken, "GET", "/v0/meta/whoami", nil), 200)
	}
	mustStatus(t, do(t, s, DefaultToken, "GET", "/v0/meta/whoami", nil), 429)
	fc.Advance(time.Second)
	mustStatus(t, do(t, s, DefaultToken, "GET", "/v0/meta/whoami", nil), 200) // no penalty per token

	t.Run("tokens of one user share the limit, other users do not", func(t *testing.T) {
		f := smallFixture(t)
		f.Tokens = []FixtureToken{
			{Token: "patA1.secret", UserID: "usrSAMEUSER000001", Bases: []string{"appTEST0000000001"}, Scopes: allScopes},
			{Token: "patA2.secret", UserID: "usrSAMEUSER000001", Bases: []string{"appTEST0000000001"}, Scopes: allScopes},
			{Token: "patB.secret", UserID: "usrOTHERUSER00001", Bases: []string{"appTEST0000000001"}, Scopes: allScopes},
		}
		s, _ := newTestServer(t, WithFixture(f), WithRate(0, 0), WithTokenRate(2))
		mustStatus(t, do(t, s, "patA1.secret", "GET", "/v0/meta/whoami", nil), 200)
		mustStatus(t, do(t, s, "patA2.secret", "GET", "/v0/meta/whoami", nil), 200)
		mustStatus(t, do(t, s, "patA2.secret", "GET", "/v0/meta/whoami", nil), 429) // the user's third
		mustStatus(t, do(t, s, "patB.secret", "GET", "/v0/meta/whoami", nil), 200)
	})

	u, _ := newTestServer(t, WithFixture(smallFixture(t)), WithRate(0, time.Hour), WithTokenRate(0))
	for range 200 {
		mustStatus(t, do(t, u, DefaultToken, "GET", testBase+"/Tasks?maxRecords=1", nil), 200)
	}
}

func TestFaults(t *testing.T) {
	s, fc := newTestServer(t, WithFixture(smallFixture(t)))
	s.InjectFault(Fault{Method: "GET", Path: testBase + "/Tasks", Status: 503, Body: `{"error":{"type":"RETRIABLE_ERROR"}}`, Times: 2})
	mustStatus(t, do(t, s, DefaultToken, "GET", testBase+"/Tasks", nil), 503)
	mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{}}), 200) // other method
	mustStatus(t, do(t, s, DefaultToken, "GET", testBase+"/Tasks", nil), 503)
	mustStatus(t, do(t, s, DefaultToken, "GET", testBase+"/Tasks", nil), 200) // Times used up

	t.Run("drop", func(t *testing.T) {
		s.InjectFault(Fault{Drop: true, Times: 1})
		_, err := s.Client().Get(InProcessURL + testBase + "/Tasks")
		if err == nil || !strings.Contains(err.Error(), "dropped") {
			t.Fatalf("err %v, want a dropped connection", err)
		}
	})
	t.Run("truncate", func(t *testing.T) {
		s.InjectFault(Fault{Truncate: true, Times: 1})
		req, _ := http.NewRequest("GET", InProcessURL+testBase+"/Tasks", nil)
		req.Header.Set("Authorization", "Bearer "+DefaultToken)
		res, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(res.Body)
		if err == nil {
			t.Fatal("a truncated body read without error")
		}
	})
	t.Run("delay on the fake clock", func(t *testing.T) {
		s.InjectFault(Fault{Delay: 10 * time.Second, Times: 1})
		done := make(chan int)
		go func() {
			req, _ := http.NewRequest("GET", InProcessURL+testBase+"/Tasks", nil)
			req.Header.Set("Authorization", "Bearer "+DefaultToken)
			res, err := s.Client().Do(req)
			if err != nil {
				done <- 0
				return
			}
			res.Body.Close()
			done <- res.StatusCode
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := fc.BlockUntil(ctx, 1); err != nil {
			t.Fatal(err)
		}
		select {
		case <-done:
			t.Fatal("answered before the delay")
		default:
		}
		fc.Advance(10 * time.Second)
		if st := <-done; st != 200 {
			t.Fatalf("status %d", st)
		}
	})
	t.Run("drop over real HTTP", func(t *testing.T) {
		hs := httptest.NewServer(s)
		defer hs.Close()
		s.InjectFault(Fault{Drop: true, Times: 1})
		res, err := http.Get(hs.URL + testBase + "/Tasks")
		if err == nil {
			res.Body.Close()
			t.Fatal("a dropped connection answered")
		}
	})
	t.Run("truncate over real HTTP: the status and part of the body arrive", func(t *testing.T) {
		hs := httptest.NewServer(s)
		defer hs.Close()
		s.InjectFault(Fault{Truncate: true, Times: 1})
		req, _ := http.NewRequest("GET", hs.URL+testBase+"/Tasks", nil)
		req.Header.Set("Authorization", "Bearer "+DefaultToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("no answer at all (that is a drop, not a truncation): %v", err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if res.StatusCode != 200 || err == nil || len(body) == 0 {
			t.Fatalf("status %d, %d bytes, err %v; want 200, part of the body, then an error", res.StatusCode, len(body), err)
		}
	})
	s.ClearFaults()
	mustStatus(t, do(t, s, DefaultToken, "GET", testBase+"/Tasks", nil), 200)
}

func TestLatency(t *testing.T) {
	s, fc := newTestServer(t, WithFixture(smallFixture(t)), WithLatency(2*time.Second))
	done := make(chan int)
	go func() {
		res, err := s.Client().Get(InProcessURL + testBase + "/Tasks")
		if err != nil {
			done <- 0
			return
		}
		res.Body.Close()
		done <- res.StatusCode
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := fc.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	fc.Advance(2 * time.Second)
	if st := <-done; st != 401 {
		t.Fatalf("status %d, want 401 (no token) after the latency", st)
	}
}

// TestRateCountedAtArrival: the rate limit counts a request when it arrives, not when its latency
// has passed. Two requests one window apart (1 per second, 1 s apart) both fit, even when their
// latencies end at the same moment (a loaded machine wakes sleepers late, together); counted
// after the latency, the second was refused for a spacing the client never sent.
func TestRateCountedAtArrival(t *testing.T) {
	s, fc := newTestServer(t, WithFixture(smallFixture(t)), WithRate(1, 30*time.Second), WithLatency(5*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	statuses := make(chan int, 2)
	send := func() {
		go func() {
			r, err := tryDo(s, DefaultToken, "GET", testBase+"/Tasks?maxRecords=1", nil)
			if err != nil {
				statuses <- 0
				return
			}
			statuses <- r.status
		}()
	}
	send()
	if err := fc.BlockUntil(ctx, 1); err != nil { // the first is in its latency
		t.Fatal(err)
	}
	fc.Advance(time.Second)
	send()
	if err := fc.BlockUntil(ctx, 2); err != nil {
		t.Fatal(err)
	}
	fc.Advance(10 * time.Second) // both latencies end at once
	for range 2 {
		if st := <-statuses; st != 200 {
			t.Errorf("status %d, want 200: two requests 1 s apart fit 1 per second", st)
		}
	}
	if got := s.CountStatus(429); got != 0 {
		t.Errorf("got %d × 429, want 0", got)
	}
}

func TestRequestsAndLog(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "requests.jsonl")
	s, _ := newTestServer(t, WithFixture(smallFixture(t)), WithRequestLog(logPath))
	do(t, s, DefaultToken, "GET", testBase+"/My%20Tasks?fields%5B%5D=Name", nil)
	do(t, s, DefaultToken, "POST", testBase+"/Tasks/", map[string]any{"fields": map[string]any{"Name": "x"}})
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if reqs[0].Path != testBase+"/My%20Tasks" || reqs[0].Query != "fields%5B%5D=Name" || reqs[0].Status != 403 {
		t.Fatalf("first request %+v", reqs[0])
	}
	if reqs[1].Method != "POST" || !strings.Contains(string(reqs[1].Body), `"Name":"x"`) || reqs[1].Header.Get("Authorization") == "" || reqs[1].Time != t0 {
		t.Fatalf("second request %+v", reqs[1])
	}
	s.ResetRequests()
	if len(s.Requests()) != 0 {
		t.Fatal("ResetRequests kept requests")
	}
	s.Close()
	raw, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 2 {
		t.Fatalf("log has %d lines", len(lines))
	}
	assertSameJSON(t, lines[0], `{"method":"GET","path":"/v0/appTEST0000000001/My%20Tasks","query":"fields%5B%5D=Name","status":403}`)
	if strings.Contains(string(raw), DefaultToken) {
		t.Fatal("the token is in the request log")
	}
}

func TestLimits(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	big := `{"fields":{"Name":"` + strings.Repeat("x", MaxBodyBytes) + `"}}`
	r := do(t, s, DefaultToken, "POST", testBase+"/Tasks", big)
	mustStatus(t, r, 413)
	r = do(t, s, DefaultToken, "DELETE", testBase+"/Tasks?"+strings.Repeat("records%5B%5D=recTASK0000000001&", 11), nil)
	mustStatus(t, r, 422)
	if !strings.Contains(r.raw, "can be deleted per request but you have provided 11") {
		t.Fatal(r.raw)
	}
}

func TestTransportHonoursContext(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)), WithLatency(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", InProcessURL+testBase+"/Tasks", nil)
	cancel()
	if _, err := s.Client().Do(req); err == nil {
		t.Fatal("a canceled request succeeded")
	}
}

func TestOptionValidation(t *testing.T) {
	for name, opt := range map[string]Option{
		"negative rate": WithRate(-1, 0), "negative token rate": WithTokenRate(-1), "negative latency": WithLatency(-1),
		"zero TTL": WithIteratorTTL(0), "no data file": WithDataFile(""), "bad mode": WithNotFound(7),
		"nil fixture": WithFixture(nil), "nil clock": WithClock(nil),
	} {
		if _, err := New(opt); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestGzipOverHTTP(t *testing.T) {
	s, _ := newTestServer(t, WithDemo())
	hs := httptest.NewServer(s)
	defer hs.Close()
	tests := []struct {
		path    string
		gzipped bool
	}{
		{"/v0/" + DemoBaseID + "/Tasks?maxRecords=20", true},                   // large: compressed
		{"/v0/" + DemoBaseID + "/Tasks?maxRecords=1&fields%5B%5D=Name", false}, // small: as is
	}
	for _, tc := range tests {
		req, _ := http.NewRequest("GET", hs.URL+tc.path, nil)
		req.Header.Set("Authorization", "Bearer "+DemoToken)
		res, err := http.DefaultClient.Do(req) // Go asks for gzip and decompresses transparently
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || !json.Valid(body) {
			t.Fatalf("%s: body %q, err %v", tc.path, body, err)
		}
		if res.Uncompressed != tc.gzipped {
			t.Errorf("%s: gzipped %v, want %v", tc.path, res.Uncompressed, tc.gzipped)
		}
		if tc.gzipped && res.Header.Get("Airtable-Uncompressed-Content-Length") != strconv.Itoa(len(body)) {
			t.Errorf("uncompressed length header %q for %d bytes", res.Header.Get("Airtable-Uncompressed-Content-Length"), len(body))
		}
	}
}

// TestRequestHistoryIsBounded: the history kept for Requests forgets the oldest requests beyond
// its bounds (a long-running emulator must not grow without end) and keeps the newest in order.
func TestRequestHistoryIsBounded(t *testing.T) {
	var rc recorder
	for i := range maxRecordedRequests + 10 {
		rc.add(Request{Method: "GET", Path: strconv.Itoa(i)})
	}
	if n := len(rc.reqs); n > maxRecordedRequests || n < maxRecordedRequests*9/10 {
		t.Fatalf("%d requests kept", n)
	}
	if last := rc.reqs[len(rc.reqs)-1].Path; last != strconv.Itoa(maxRecordedRequests+9) {
		t.Fatalf("newest request %s", last)
	}
	for i := 1; i < len(rc.reqs); i++ {
		a, _ := strconv.Atoi(rc.reqs[i-1].Path)
		b, _ := strconv.Atoi(rc.reqs[i].Path)
		if b != a+1 {
			t.Fatalf("out of order at %d: %d then %d", i, a, b)
		}
	}
	var big recorder
	body := make([]byte, 1<<20)
	for range maxRecordedBodyBytes>>20 + 5 {
		big.add(Request{Body: body})
	}
	if big.bytes > maxRecordedBodyBytes || big.bytes != len(big.reqs)<<20 {
		t.Fatalf("%d body bytes kept in %d requests", big.bytes, len(big.reqs))
	}
}
