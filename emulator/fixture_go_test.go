package emulator

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestFixtureWithGoValues: a fixture built in Go may use Go values where a file has JSON ones.
func TestFixtureWithGoValues(t *testing.T) {
	f := &Fixture{Bases: []FixtureBase{{ID: "appAAAAAAAAAAAAAA", Name: "A", Tables: []FixtureTable{{
		Name: "T",
		Fields: []FixtureField{
			{Name: "Name", Type: "singleLineText"},
			{Name: "N", Type: "number", Options: map[string]any{"precision": 0}},
			{Name: "Tags", Type: "multipleSelects", Options: map[string]any{"choices": []map[string]any{{"name": "a"}, {"name": "b"}}}},
			{Name: "When", Type: "date"},
		},
		Records: []FixtureRecord{{Fields: map[string]any{
			"Name": "a", "N": 3, "Tags": []string{"a", "b"}, "When": "2024-05-06",
		}}},
	}}}}}
	srv, err := New(WithFixture(f))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", InProcessURL+"/v0/appAAAAAAAAAAAAAA/T", nil)
	req.Header.Set("Authorization", "Bearer "+DefaultToken)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{`"N":3`, `"Tags":["a","b"]`, `"When":"2024-05-06"`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("body %s lacks %s", body, want)
		}
	}
}
