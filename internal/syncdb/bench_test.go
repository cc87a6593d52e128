package syncdb

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/replica"
	"github.com/airsql/airsql/transport"
)

// BenchmarkCopy10000 copies a generated table of 10,000 records (text, number, select, checkbox,
// date) from the emulator at the service's pace (5 requests/s per base, 300 ms per answer) into
// each target. The scan ceiling is 100 records per page at 5 pages per second: 500 records/s;
// records/s and ceiling-% say how near the copy comes (goal: within 5%); the scan sub-benchmark
// lists the same table without a target, for reference.
//
//	go test ./internal/syncdb -run '^$' -bench Copy10000 -benchtime 1x
func BenchmarkCopy10000(b *testing.B) { benchmarkCopy(b, 10000) }

// BenchmarkCopy20000 is BenchmarkCopy10000 with 20,000 records.
//
//	go test ./internal/syncdb -run '^$' -bench Copy20000 -benchtime 1x
func BenchmarkCopy20000(b *testing.B) { benchmarkCopy(b, 20000) }

func benchmarkCopy(b *testing.B, n int) {
	recs := make([]emulator.FixtureRecord, n)
	for i := range recs {
		recs[i] = emulator.FixtureRecord{Fields: map[string]any{"Name": fmt.Sprintf("item %d", i), "N": float64(i % 977),
			"Status": []string{"Todo", "Done"}[i%2], "Done": i%3 == 0, "Due": fmt.Sprintf("2025-%02d-%02d", 1+i%12, 1+i%28)}}
	}
	fx := &emulator.Fixture{Bases: []emulator.FixtureBase{{ID: syncBase, Name: "Bench", Tables: []emulator.FixtureTable{{
		ID: tasksID, Name: "Items", Fields: []emulator.FixtureField{
			{Name: "Name", Type: "singleLineText"},
			{Name: "N", Type: "number", Options: map[string]any{"precision": 0}},
			{Name: "Status", Type: "singleSelect", Options: map[string]any{"choices": []any{map[string]any{"name": "Todo"}, map[string]any{"name": "Done"}}}},
			{Name: "Done", Type: "checkbox", Options: map[string]any{"icon": "check", "color": "greenBright"}},
			{Name: "Due", Type: "date", Options: map[string]any{"dateFormat": map[string]any{"name": "iso"}}},
		}, Records: recs}}}}}
	// The reference: the same table listed by a plain scan (transport, as SELECT * does), no target.
	b.Run("scan", func(b *testing.B) {
		s, base := pacedBase(b, fx)
		b.ReportAllocs()
		var elapsed time.Duration
		scans := 0
		for b.Loop() {
			s.ResetRequests()
			start := time.Now()
			recs, err := base.All(bg, tasksID, transport.ListOptions{ReturnFieldsByFieldID: true})
			if err != nil || len(recs) != n {
				b.Fatalf("listed %d records (%v), want %d", len(recs), err, n)
			}
			elapsed += time.Since(start)
			scans++
			b.ReportMetric(float64(len(s.Requests())), "requests/op")
		}
		perSec := float64(n*scans) / elapsed.Seconds()
		b.ReportMetric(perSec, "records/s")
		b.ReportMetric(100*perSec/500, "ceiling-%")
	})
	for _, target := range []string{"sqlite", "postgres", "mariadb"} {
		b.Run(target, func(b *testing.B) {
			s, base := pacedBase(b, fx)
			url := ""
			switch target {
			case "postgres":
				url = startPostgres(b)
			case "mariadb":
				url = startMariaDB(b)
			}
			b.ReportAllocs()
			var elapsed time.Duration
			copies := 0
			for b.Loop() {
				u := url
				if target == "sqlite" {
					u = "sqlite:" + filepath.Join(b.TempDir(), "copy.db")
				}
				tg, err := OpenTarget(u)
				if err != nil {
					b.Fatal(err)
				}
				if target != "sqlite" { // the server's database is the same in each round
					for _, q := range []string{`DROP TABLE IF EXISTS "Items"`, `DROP TABLE IF EXISTS ` + syncTable, `DROP TABLE IF EXISTS ` + fieldsTable} {
						if _, err := tg.db.Exec(q); err != nil {
							b.Fatal(err)
						}
					}
				}
				sy, err := New(bg, base, tg, Options{})
				if err != nil {
					b.Fatal(err)
				}
				s.ResetRequests()
				start := time.Now()
				if err := sy.CatchUp(bg); err != nil {
					b.Fatal(err)
				}
				elapsed += time.Since(start)
				copies++
				if got := sy.Stats().RecordsCopied; got != n {
					b.Fatalf("copied %d records, want %d", got, n)
				}
				b.ReportMetric(float64(len(s.Requests())), "requests/op")
				if err := base.DeleteWebhook(bg, sy.Webhook()); err != nil { // the base allows ten
					b.Fatal(err)
				}
				tg.Close()
			}
			perSec := float64(n*copies) / elapsed.Seconds()
			b.ReportMetric(perSec, "records/s")
			b.ReportMetric(100*perSec/500, "ceiling-%")
		})
	}
}

// pacedBase serves a fixture at the service's pace (5 requests/s, 300 ms per answer) on the wall
// clock, and a client of it.
func pacedBase(b *testing.B, fx *emulator.Fixture) (*emulator.Server, *transport.Base) {
	b.Helper()
	s, err := emulator.New(emulator.WithFixture(fx), emulator.WithRate(5, 30*time.Second), emulator.WithLatency(300*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	base, err := transport.NewBase(emulator.DefaultToken, syncBase, transport.WithEndpointURL(emulator.InProcessURL), transport.WithHTTPClient(s.Client()))
	if err != nil {
		b.Fatal(err)
	}
	return s, base
}

// BenchmarkWrite5000 writes 5,000 records of two fields (text, number) into a new table of each
// target in one transaction, one upsert each, as a copy writes them: how much faster than the
// service's 500 records/s a target takes them.
//
//	go test ./internal/syncdb -run '^$' -bench Write5000 -benchtime 3x
func BenchmarkWrite5000(b *testing.B) {
	const n = 5000
	for _, target := range []string{"sqlite", "postgres", "mariadb"} {
		b.Run(target, func(b *testing.B) {
			url := "sqlite:" + filepath.Join(b.TempDir(), "copy.db")
			switch target {
			case "postgres":
				url = startPostgres(b)
			case "mariadb":
				url = startMariaDB(b)
			}
			tg, err := OpenTarget(url)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { tg.Close() })
			ts := &tableState{ID: tasksID, Name: "Items", SQLName: "Items", Fields: map[string]fieldState{
				fldName: {Field: replica.Field{ID: fldName, Name: "Name", Type: "singleLineText"}, SQLName: "Name"},
				fldN:    {Field: replica.Field{ID: fldN, Name: "N", Type: "number"}, Options: map[string]any{"precision": 0}, SQLName: "N"}},
				Order: []string{fldName, fldN}}
			if err := ts.reshape(); err != nil {
				b.Fatal(err)
			}
			created := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
			b.ReportAllocs()
			var elapsed time.Duration
			rounds := 0
			for b.Loop() {
				start := time.Now()
				tx, err := tg.db.Begin()
				if err != nil {
					b.Fatal(err)
				}
				if err := tg.createTable(bg, tx, ts); err != nil {
					b.Fatal(err)
				}
				for i := range n {
					if err := tg.upsertRow(bg, tx, ts, fmt.Sprintf("rec%014d", i), created, map[string]any{fldName: fmt.Sprintf("item %d", i), fldN: float64(i)}); err != nil {
						b.Fatal(err)
					}
				}
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
				elapsed += time.Since(start)
				rounds++
				if _, err := tg.db.Exec(`DROP TABLE "Items"`); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*rounds)/elapsed.Seconds(), "records/s")
		})
	}
}
