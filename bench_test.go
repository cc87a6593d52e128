package airsql

import (
	"database/sql"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
)

const benchBase = "appBENCH000000001"

// benchFixture is one table of n records with a text, two numbers, a checkbox and a date.
func benchFixture(n int) *emulator.Fixture {
	tbl := emulator.FixtureTable{
		ID: "tblBIG00000000001", Name: "Big",
		Fields: []emulator.FixtureField{
			{Name: "Name", Type: "singleLineText"},
			{Name: "N", Type: "number", Options: map[string]any{"precision": 0}},
			{Name: "X", Type: "number", Options: map[string]any{"precision": 2}},
			{Name: "Done", Type: "checkbox", Options: map[string]any{"icon": "check", "color": "greenBright"}},
			{Name: "Day", Type: "date", Options: map[string]any{"dateFormat": map[string]any{"name": "iso", "format": "YYYY-MM-DD"}}},
		},
	}
	day0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		tbl.Records = append(tbl.Records, emulator.FixtureRecord{Fields: map[string]any{
			"Name": fmt.Sprintf("record %05d", i),
			"N":    float64(i), // fixtures hold cells in their JSON form
			"X":    float64(i) / 4,
			"Done": i%3 == 0,
			"Day":  day0.AddDate(0, 0, i%365).Format("2006-01-02"),
		}})
	}
	return &emulator.Fixture{Bases: []emulator.FixtureBase{{ID: benchBase, Name: "Bench", Tables: []emulator.FixtureTable{tbl}}}}
}

func openBenchDB(b *testing.B, srv *emulator.Server) *sql.DB {
	db, _ := openDSN(b, "airtable://"+emulator.DefaultToken+"@localhost/"+benchBase+"?tls=false", srv.Client())
	if err := db.Ping(); err != nil { // the schema is cached before timing starts
		b.Fatal(err)
	}
	return db
}

// scanTable reads every record of Big through database/sql and returns how many it read.
func scanTable(b *testing.B, db *sql.DB) int {
	rows, err := db.Query("SELECT id, Name, N, X, Done, Day FROM Big")
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var (
		id, name string
		n        int64
		x        float64
		done     bool
		day      time.Time
		count    int
	)
	for rows.Next() {
		if err := rows.Scan(&id, &name, &n, &x, &done, &day); err != nil {
			b.Fatal(err)
		}
		count++
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return count
}

// BenchmarkScan10000 scans 10,000 records (100 pages) from the in-process emulator with no
// latency, no rate limit and no pacing. The allocations per row include the emulator's own work
// (evaluating the request and encoding the JSON), since it runs in the same process.
func BenchmarkScan10000(b *testing.B) {
	const records = 10000
	srv, err := emulator.New(emulator.WithFixture(benchFixture(records)), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	db := openBenchDB(b, srv)
	b.ReportAllocs()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	start := time.Now()
	rowsRead := 0
	for b.Loop() {
		if n := scanTable(b, db); n != records {
			b.Fatalf("read %d rows, want %d", n, records)
		}
		rowsRead += records
	}
	elapsed := time.Since(start)
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(rowsRead)/elapsed.Seconds(), "rows/s")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(rowsRead), "allocs/row")
}

// BenchmarkScanAtServiceRate scans 5,000 records (50 pages) from an emulator that allows 5
// requests per second per base and answers after 100 ms, with the client pacing at its default
// (transport.APILimit, 200 ms). The figure is the ratio to 500 rows/s, the best a sequential
// reader of 100-record pages could do at 5 requests per second. Run it with -benchtime=1x.
func BenchmarkScanAtServiceRate(b *testing.B) {
	const records = 5000
	srv, db := serviceRateDB(b, records, 100*time.Millisecond)
	b.ReportAllocs()
	start := time.Now()
	rowsRead := 0
	for b.Loop() {
		if n := scanTable(b, db); n != records {
			b.Fatalf("read %d rows, want %d", n, records)
		}
		rowsRead += records
	}
	rate := float64(rowsRead) / time.Since(start).Seconds()
	// A 429 costs the 30 s penalty: the pacing keeps 10 ms of slack per second, which scheduling
	// delays on a loaded machine can eat. Report how many there were rather than hide them.
	b.ReportMetric(float64(srv.CountStatus(429)), "429s")
	b.ReportMetric(rate, "rows/s")
	b.ReportMetric(rate/500, "ratio-to-500rows/s")
}

// BenchmarkTxOneRowInsertsAtServiceRate runs 1,000 one-row INSERT statements inside one
// transaction against an emulator that allows 5 requests per second and answers after 300 ms:
// COMMIT sends them as 100 chunks of 10, pipelined. The figure is the ratio to 50 records/s, the
// service's ceiling for writes. Run it with -benchtime=1x.
func BenchmarkTxOneRowInsertsAtServiceRate(b *testing.B) {
	const records = 1000
	srv, db := serviceRateDB(b, 0, 300*time.Millisecond)
	b.ReportAllocs()
	start := time.Now()
	written := 0
	for b.Loop() {
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		for i := range records {
			if _, err := tx.Exec("INSERT INTO Big (Name, N) VALUES (?, ?)", fmt.Sprintf("tx %d", i), i); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		written += records
	}
	rate := float64(written) / time.Since(start).Seconds()
	b.ReportMetric(float64(srv.CountStatus(429)), "429s")
	b.ReportMetric(rate, "records/s")
	b.ReportMetric(rate/50, "ratio-to-50records/s")
}

// BenchmarkAutocommitOneRowInsertsAtServiceRate is BenchmarkTxOneRowInsertsAtServiceRate without
// the transaction: 200 one-row INSERT statements in autocommit, each sent when it runs as its own
// request (one round trip of 300 ms each, the next waiting for it). The figure is the ratio to 50
// records/s; side by side with the transaction's it is the difference README and the shell's
// notice state. Run it with -benchtime=1x (about a minute).
func BenchmarkAutocommitOneRowInsertsAtServiceRate(b *testing.B) {
	const records = 200
	srv, db := serviceRateDB(b, 0, 300*time.Millisecond)
	b.ReportAllocs()
	start := time.Now()
	written := 0
	for b.Loop() {
		for i := range records {
			if _, err := db.Exec("INSERT INTO Big (Name, N) VALUES (?, ?)", fmt.Sprintf("auto %d", i), i); err != nil {
				b.Fatal(err)
			}
		}
		written += records
	}
	elapsed := time.Since(start)
	rate := float64(written) / elapsed.Seconds()
	b.ReportMetric(float64(srv.CountStatus(429)), "429s")
	b.ReportMetric(rate, "records/s")
	b.ReportMetric(rate/50, "ratio-to-50records/s")
	b.ReportMetric(elapsed.Seconds()/float64(written)*1000, "s-per-1000-rows")
}

// BenchmarkGroupByAtServiceRate runs a GROUP BY over 5,000 records (50 pages) at the service's
// rate, as BenchmarkScanAtServiceRate scans them: the aggregate must not slow the scan, so its
// ratio to 500 rows/s should match the plain scan's. Run it with -benchtime=1x.
func BenchmarkGroupByAtServiceRate(b *testing.B) {
	const records = 5000
	srv, db := serviceRateDB(b, records, 100*time.Millisecond)
	b.ReportAllocs()
	start := time.Now()
	rowsRead := 0
	for b.Loop() {
		rows, err := db.Query("SELECT Done, COUNT(*), SUM(N), AVG(X), MIN(Day), MAX(Name) FROM Big GROUP BY Done")
		if err != nil {
			b.Fatal(err)
		}
		var total int64
		for rows.Next() {
			var (
				done   bool
				n, sum int64
				avg    float64
				day    time.Time
				name   string
			)
			if err := rows.Scan(&done, &n, &sum, &avg, &day, &name); err != nil {
				b.Fatal(err)
			}
			total += n
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		rows.Close()
		if total != records {
			b.Fatalf("counted %d rows, want %d", total, records)
		}
		rowsRead += records
	}
	rate := float64(rowsRead) / time.Since(start).Seconds()
	b.ReportMetric(float64(srv.CountStatus(429)), "429s")
	b.ReportMetric(rate, "rows/s")
	b.ReportMetric(rate/500, "ratio-to-500rows/s")
}

// serviceRateDB opens the driver on an emulator of records rows that allows 5 requests per
// second per base (a 30 s penalty after a 429) and answers after latency, with the client pacing
// at the service's 200 ms for the benchmark's duration (atServiceRate).
func serviceRateDB(b *testing.B, records int, latency time.Duration) (*emulator.Server, *sql.DB) {
	b.Helper()
	atServiceRate(b)
	srv, err := emulator.New(emulator.WithFixture(benchFixture(records)),
		emulator.WithRate(5, 30*time.Second), emulator.WithTokenRate(0), emulator.WithLatency(latency))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	return srv, openBenchDB(b, srv)
}
