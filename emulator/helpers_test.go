package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/internal/clock"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// newTestServer starts a server with a fake clock and no rate limit unless opts say otherwise.
func newTestServer(t *testing.T, opts ...Option) (*Server, *clock.Fake) {
	t.Helper()
	fc := clock.NewFake(t0)
	all := append([]Option{WithClock(fc), WithRate(0, 0), WithTokenRate(0)}, opts...)
	s, err := New(all...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, fc
}

type response struct {
	status int
	body   map[string]any
	raw    string
}

// do sends one request through the in-process transport. path is everything after the host.
func do(t *testing.T, s *Server, tok, method, path string, body any) response {
	t.Helper()
	r, err := tryDo(s, tok, method, path, body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// tryDo is do for goroutines other than the test's: it returns the error instead of failing.
func tryDo(s *Server, tok, method, path string, body any) (response, error) {
	var rd io.Reader
	if body != nil {
		switch b := body.(type) {
		case string:
			rd = strings.NewReader(b)
		default:
			raw, err := json.Marshal(b)
			if err != nil {
				return response{}, err
			}
			rd = bytes.NewReader(raw)
		}
	}
	req, err := http.NewRequest(method, InProcessURL+path, rd)
	if err != nil {
		return response{}, err
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := s.Client().Do(req)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: read body: %w", method, path, err)
	}
	out := response{status: res.StatusCode, raw: string(raw)}
	if err := json.Unmarshal(raw, &out.body); err != nil {
		var anyVal any
		if json.Unmarshal(raw, &anyVal) != nil {
			return response{}, fmt.Errorf("%s %s: body is not JSON: %q", method, path, raw)
		}
	}
	return out, nil
}

func mustStatus(t *testing.T, r response, want int) {
	t.Helper()
	if r.status != want {
		t.Fatalf("status %d, want %d; body %s", r.status, want, r.raw)
	}
}

func errType(r response) string {
	switch e := r.body["error"].(type) {
	case string:
		return e
	case map[string]any:
		s, _ := e["type"].(string)
		return s
	}
	return ""
}

func records(t *testing.T, r response) []map[string]any {
	t.Helper()
	list, ok := r.body["records"].([]any)
	if !ok {
		t.Fatalf("no records in %s", r.raw)
	}
	out := make([]map[string]any, len(list))
	for i, v := range list {
		out[i] = v.(map[string]any)
	}
	return out
}

func fieldsOf(rec map[string]any) map[string]any {
	f, _ := rec["fields"].(map[string]any)
	return f
}

// smallFixture is a two-table base used by most tests.
const smallFixtureJSON = `{
  "bases": [{
    "id": "appTEST0000000001", "name": "Test",
    "tables": [
      {"id": "tblPEOPLE00000001", "name": "People",
       "fields": [{"name": "Name", "type": "singleLineText"}, {"name": "Age", "type": "number", "options": {"precision": 0}}]},
      {"id": "tblTASKS000000001", "name": "Tasks", "primaryFieldId": "fldNAME0000000001",
       "fields": [
         {"id": "fldNAME0000000001", "name": "Name", "type": "singleLineText"},
         {"name": "Priority", "type": "number", "options": {"precision": 0}},
         {"name": "Status", "type": "singleSelect", "options": {"choices": [{"name": "Todo"}, {"name": "Done"}]}},
         {"name": "Tags", "type": "multipleSelects", "options": {"choices": [{"name": "a"}, {"name": "b"}]}},
         {"name": "Done", "type": "checkbox"},
         {"name": "Due", "type": "date"},
         {"name": "Owner", "type": "multipleRecordLinks", "options": {"linkedTableId": "tblPEOPLE00000001"}},
         {"name": "Owner Age", "type": "multipleLookupValues", "options": {"recordLinkFieldId": "Owner", "fieldIdInLinkedTable": "Age"}},
         {"name": "Score", "type": "formula", "options": {"formula": "{Priority} * 2"}},
         {"name": "Num", "type": "autoNumber"}
       ],
       "views": [{"name": "Open", "type": "grid", "filterByFormula": "NOT({Done})",
                  "sort": [{"field": "Priority", "direction": "desc"}]}],
       "records": [
         {"id": "recTASK0000000001", "fields": {"Name": "Write spec", "Priority": 3, "Status": "Todo"}},
         {"id": "recTASK0000000002", "fields": {"Name": "Review", "Priority": 1, "Status": "Done", "Done": true}},
         {"id": "recTASK0000000003", "fields": {"Name": "Ship", "Priority": 5}}
       ]}
    ]
  }]
}`

func smallFixture(t *testing.T) *Fixture {
	t.Helper()
	f, err := ParseFixture([]byte(smallFixtureJSON))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

const testBase = "/v0/appTEST0000000001"
