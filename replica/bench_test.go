package replica

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/transport"
)

// BenchmarkCopyMemory copies a table of 20,000 records (text, number, select, checkbox, date) and
// reports the heap the copy holds per record next to the size of the record's JSON as listed.
func BenchmarkCopyMemory(b *testing.B) {
	const n = 20000
	tb := emulator.FixtureTable{ID: tasksID, Name: "Tasks", Fields: []emulator.FixtureField{
		{ID: fldName, Name: "Name", Type: "singleLineText"},
		{ID: fldN, Name: "N", Type: "number", Options: map[string]any{"precision": 0}},
		{ID: fldStatus, Name: "Status", Type: "singleSelect", Options: map[string]any{"choices": []any{map[string]any{"name": "Todo"}, map[string]any{"name": "Done"}}}},
		{ID: fldDone, Name: "Done", Type: "checkbox"},
		{ID: "fldDUE00000000001", Name: "Due", Type: "date", Options: map[string]any{"dateFormat": map[string]any{"name": "iso"}}},
	}}
	for i := range n {
		f := map[string]any{"Name": fmt.Sprintf("task number %d", i), "N": float64(i), "Status": []string{"Todo", "Done"}[i%2],
			"Due": time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%365).Format("2006-01-02")}
		if i%3 == 0 {
			f["Done"] = true
		}
		tb.Records = append(tb.Records, emulator.FixtureRecord{Fields: f})
	}
	clk := clock.NewJump(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC))
	s, err := emulator.New(emulator.WithFixture(&emulator.Fixture{Bases: []emulator.FixtureBase{{ID: repBase, Name: "R", Tables: []emulator.FixtureTable{tb}}}}),
		emulator.WithClock(clk), emulator.WithRate(0, 0))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	base, err := transport.NewBase(emulator.DefaultToken, repBase, transport.WithEndpointURL(emulator.InProcessURL), transport.WithHTTPClient(s.Client()), transport.WithClock(clk))
	if err != nil {
		b.Fatal(err)
	}
	recs, err := base.All(bg, tasksID, transport.ListOptions{ReturnFieldsByFieldID: true})
	if err != nil {
		b.Fatal(err)
	}
	jsonBytes := 0
	for _, r := range recs {
		raw, _ := json.Marshal(r)
		jsonBytes += len(raw)
	}
	recs = nil
	b.ReportAllocs()
	var held float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		rb, err := OpenBase(bg, base, Options{Clock: clk})
		if err != nil {
			b.Fatal(err)
		}
		tbl, err := rb.Table(bg, tasksID)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if len(tbl.rows) != n {
			b.Fatalf("copied %d records, want %d", len(tbl.rows), n)
		}
		held = float64(after.HeapAlloc-before.HeapAlloc) / n
		runtime.KeepAlive(tbl)
		if err := rb.Close(bg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(held, "heap-bytes/record")
	b.ReportMetric(float64(jsonBytes)/n, "json-bytes/record")
}
