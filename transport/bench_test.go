package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
)

// BenchmarkIterateEmulator is figure (a): Iterate over 10,000 records from the emulator at 5
// requests/s with 100 ms latency. It reports requests/s ÷ 5 (goal ≥ 0.95) and the 429s drawn
// (goal 0). It takes about 20 s of real time per iteration: run it with -benchtime=1x.
func BenchmarkIterateEmulator(b *testing.B) {
	const n = 10000
	s, err := emulator.New(emulator.WithFixture(emuFixture(n)), emulator.WithRate(5, 30*time.Second), emulator.WithLatency(100*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	tbl, err := NewTable(emulator.DefaultToken, emuBase, "My Tasks", WithEndpointURL(emulator.InProcessURL), WithHTTPClient(s.Client()))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var requests int
	var elapsed time.Duration
	for b.Loop() {
		s.ResetRequests()
		start := time.Now()
		got := 0
		for recs, err := range tbl.Iterate(bg, ListOptions{}) {
			if err != nil {
				b.Fatal(err)
			}
			got += len(recs)
		}
		elapsed += time.Since(start)
		if got != n {
			b.Fatalf("got %d records, want %d", got, n)
		}
		requests += len(s.Requests())
		b.ReportMetric(float64(s.CountStatus(429)), "429s")
	}
	// Requests over the time between the first start and the last answer: n requests take
	// n-1 intervals plus one latency at the ideal pace.
	perSecond := float64(requests) / elapsed.Seconds()
	b.ReportMetric(perSecond/5, "ratio_of_5req/s")
	b.ReportMetric(perSecond, "req/s")
}

// BenchmarkBatchCreateEmulator is figure (b): BatchCreate of 1,000 records at 5 requests/s with
// 300 ms latency. It reports records/s ÷ 50 (goal ≥ 0.95). About 20 s per iteration: -benchtime=1x.
func BenchmarkBatchCreateEmulator(b *testing.B) {
	s, err := emulator.New(emulator.WithFixture(emuFixture(0)), emulator.WithRate(5, 30*time.Second), emulator.WithLatency(300*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	tbl, err := NewTable(emulator.DefaultToken, emuBase, "My Tasks", WithEndpointURL(emulator.InProcessURL), WithHTTPClient(s.Client()))
	if err != nil {
		b.Fatal(err)
	}
	in := make([]map[string]any, 1000)
	for i := range in {
		in[i] = map[string]any{"Name": fmt.Sprintf("bench %d", i), "N": i}
	}
	b.ReportAllocs()
	var records int
	var elapsed time.Duration
	for b.Loop() {
		s.ResetRequests()
		start := time.Now()
		recs, err := tbl.BatchCreate(bg, in, WriteOptions{})
		elapsed += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		records += len(recs)
		b.ReportMetric(float64(s.CountStatus(429)), "429s")
	}
	perSecond := float64(records) / elapsed.Seconds()
	b.ReportMetric(perSecond/50, "ratio_of_50rec/s")
	b.ReportMetric(perSecond, "rec/s")
}

// BenchmarkDecodePage is figure (c): decoding one page of 100 records as the service sends them.
func BenchmarkDecodePage(b *testing.B) {
	var parts []string
	for i := range 100 {
		parts = append(parts, fmt.Sprintf(`{"id":"rec%014d","createdTime":"2024-01-01T00:00:%02d.000Z","fields":{"Name":"task %d","Priority":%d,"Status":"Todo","Done":true,"Tags":["a","b"],"Owner":["recPEOPLE0000001"],"Score":%d.5,"Notes":"some longer text, with punctuation; and \"quotes\"\nover two lines"}}`, i, i%60, i, i%5, i))
	}
	body := []byte(`{"records":[` + strings.Join(parts, ",") + `],"offset":"itrAAAAAAAAAAAAAA/rec00000000000099"}`)
	// IterateCells' layout: the fields asked for, as the driver's scans ask.
	layout, err := newCellLayout([]string{"Name", "Priority", "Status", "Done", "Tags", "Owner", "Score", "Notes"})
	if err != nil {
		b.Fatal(err)
	}
	decoders := []struct {
		name   string
		layout *cellLayout
		decode func(*page) error
	}{
		{"fast-cells", layout, func(pg *page) error { // as IterateCells decodes a usual page
			if !pg.decodeFast(body) {
				return errors.New("the fast decoder gave up on a usual page")
			}
			return nil
		}},
		{"fast", nil, func(pg *page) error { // as Iterate decodes a usual page
			if !pg.decodeFast(body) {
				return errors.New("the fast decoder gave up on a usual page")
			}
			return nil
		}},
		{"encoding-json", nil, func(pg *page) error { return json.Unmarshal(body, pg) }}, // their fallback
	}
	for _, dec := range decoders {
		b.Run(dec.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				pg := page{layout: dec.layout}
				if err := dec.decode(&pg); err != nil {
					b.Fatal(err)
				}
				recs, err := pg.records()
				if err != nil || len(recs) != 100 {
					b.Fatal("short page", err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100, "ns/record")
		})
	}
}
