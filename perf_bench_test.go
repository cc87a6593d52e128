package airsql

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/transport"
)

// atServiceRate turns the client's pacing on (TestMain turns it off) for one benchmark.
func atServiceRate(b *testing.B) {
	saved := transport.APILimit
	transport.APILimit = 200 * time.Millisecond
	b.Cleanup(func() { transport.APILimit = saved })
}

// BenchmarkTimeToFirstRow is issue 14's figure: the time from opening a connector (a new
// process) to the first row of SELECT … LIMIT 5, against transport's Table.First, at 5
// requests/s and 100 ms of latency. "cold" has no schema cache: the schema request and the list
// go one after the other (no pacing gap between them any more). "schemaCache" has the schema in
// its file from an earlier process: one round trip. Run with -benchtime=5x.
func BenchmarkTimeToFirstRow(b *testing.B) {
	atServiceRate(b)
	dir := b.TempDir()
	saved := schemaCacheDir
	schemaCacheDir = func() string { return dir }
	b.Cleanup(func() { schemaCacheDir = saved })
	srv, err := emulator.New(emulator.WithFixture(benchFixture(1000)),
		emulator.WithRate(5, 30*time.Second), emulator.WithTokenRate(0), emulator.WithLatency(100*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	firstRow := func(b *testing.B, params string) {
		dsn := "airtable://" + emulator.DefaultToken + "@localhost/" + benchBase + "?tls=false"
		if params != "" {
			dsn += "&" + params
		}
		db, _ := openDSN(b, dsn, srv.Client())
		rows, err := db.Query("SELECT Name, N FROM Big LIMIT 5")
		if err != nil {
			b.Fatal(err)
		}
		if !rows.Next() {
			b.Fatal("no row", rows.Err())
		}
		rows.Close()
		db.Close()
	}
	var first time.Duration
	b.Run("Table.First", func(b *testing.B) {
		tbl, err := transport.NewTable(emulator.DefaultToken, benchBase, "Big", transport.WithEndpointURL(emulator.InProcessURL), transport.WithHTTPClient(srv.Client()))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		start := time.Now()
		for b.Loop() {
			if _, err := tbl.First(context.Background(), transport.ListOptions{}); err != nil {
				b.Fatal(err)
			}
			time.Sleep(1100 * time.Millisecond) // each call on an idle window, as a new process would be
		}
		first = (time.Since(start) - time.Duration(b.N)*1100*time.Millisecond) / time.Duration(b.N)
		b.ReportMetric(float64(first.Microseconds())/1000, "ms/first-row")
	})
	for _, tc := range []struct{ name, params string }{{"driver-cold", ""}, {"driver-schemaCache", "schemaCache=1h"}} {
		b.Run(tc.name, func(b *testing.B) {
			if tc.params != "" {
				firstRow(b, tc.params) // an earlier process filled the file
				time.Sleep(1100 * time.Millisecond)
			}
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				firstRow(b, tc.params)
				time.Sleep(1100 * time.Millisecond)
			}
			d := (time.Since(start) - time.Duration(b.N)*1100*time.Millisecond) / time.Duration(b.N)
			b.ReportMetric(float64(d.Microseconds())/1000, "ms/first-row")
			if first > 0 {
				b.ReportMetric(float64(d)/float64(first), "x-Table.First")
			}
		})
	}
}

// BenchmarkDashboardCache is issue 14's cache figure: the requests of a dashboard of 10 queries
// run twice within the TTL, with cache=30s and without, at 5 requests/s and 100 ms latency.
// -benchtime=1x.
func BenchmarkDashboardCache(b *testing.B) {
	atServiceRate(b)
	for _, params := range []string{"", "cache=30s"} {
		name := "no-cache"
		if params != "" {
			name = params
		}
		b.Run(name, func(b *testing.B) {
			srv := serveFixtureFile(b, "testdata/base.json", emulator.WithRate(5, 30*time.Second), emulator.WithLatency(100*time.Millisecond))
			b.ReportAllocs()
			for b.Loop() {
				db, _ := openDB(b, srv, params)
				warmSchema(b, db, srv)
				start := time.Now()
				runDashboard(b, context.Background(), db)
				firstTime := time.Since(start)
				first := len(dataRequests(srv))
				srv.ResetRequests()
				start = time.Now()
				runDashboard(b, context.Background(), db)
				b.ReportMetric(float64(first), "requests_run1")
				b.ReportMetric(float64(len(dataRequests(srv))), "requests_run2")
				b.ReportMetric(firstTime.Seconds(), "s_run1")
				b.ReportMetric(time.Since(start).Seconds(), "s_run2")
				db.Close()
			}
		})
	}
}

// BenchmarkDriverScanAtLatency is issue 23's figure: SELECT * FROM Big over 10,000 records through
// database/sql at 100, 300, 500 and 1000 ms of latency against the emulator at 5 requests/s
// (30 s penalty), and in the same run transport's Table.All over the same table. Reported: each
// one's ratio to 500 records/s (the service's ceiling for reads), the driver's ratio to the
// transport's (goal: driver ≥ 0.9 and ≥ 0.97 × transport), and the 429s each drew (goal 0),
// counted by the emulator. Both have talked to the base before (the driver read the schema, the
// table its first record), so both know the round trip and partition from the first request.
// Each run starts on an idle window. About 45 s per latency: -benchtime=1x.
func BenchmarkDriverScanAtLatency(b *testing.B) {
	atServiceRate(b)
	const n = 10000
	for _, latency := range []time.Duration{100, 300, 500, 1000} {
		latency *= time.Millisecond
		b.Run(latency.String(), func(b *testing.B) {
			srv, err := emulator.New(emulator.WithFixture(benchFixture(n)),
				emulator.WithRate(5, 30*time.Second), emulator.WithTokenRate(0), emulator.WithLatency(latency))
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			db := openBenchDB(b, srv)
			tbl, err := transport.NewTable(emulator.DefaultToken, benchBase, "Big", transport.WithEndpointURL(emulator.InProcessURL),
				transport.WithHTTPClient(srv.Client()), transport.WithRetryStrategy(transport.RetryStrategy()))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tbl.First(context.Background(), transport.ListOptions{}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var driverTime, transportTime time.Duration
			var driver429, transport429 int
			for b.Loop() {
				time.Sleep(1100 * time.Millisecond) // an idle window
				srv.ResetRequests()
				start := time.Now()
				recs, err := tbl.All(context.Background(), transport.ListOptions{})
				if err != nil {
					b.Fatal(err)
				}
				transportTime += time.Since(start)
				transport429 += srv.CountStatus(429)
				if len(recs) != n {
					b.Fatalf("transport read %d records, want %d", len(recs), n)
				}

				time.Sleep(1100 * time.Millisecond)
				srv.ResetRequests()
				start = time.Now()
				if got := selectStar(b, db, "SELECT * FROM Big"); got != n {
					b.Fatalf("driver read %d rows, want %d", got, n)
				}
				driverTime += time.Since(start)
				driver429 += srv.CountStatus(429)
			}
			driverRatio := float64(b.N*n) / driverTime.Seconds() / 500
			transportRatio := float64(b.N*n) / transportTime.Seconds() / 500
			b.ReportMetric(driverRatio, "driver_ratio_of_500rec/s")
			b.ReportMetric(transportRatio, "transport_ratio_of_500rec/s")
			b.ReportMetric(driverRatio/transportRatio, "driver/transport")
			b.ReportMetric(float64(driver429), "driver_429s")
			b.ReportMetric(float64(transport429), "transport_429s")
		})
	}
}

// selectStar runs query through database/sql, scanning every column of every row, and returns
// the number of rows.
func selectStar(b *testing.B, db *sql.DB, query string) int {
	n, err := scanRows(db, query)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// scanRows runs query, scans every column of every row, and returns the number of rows.
func scanRows(db *sql.DB, query string) (int, error) {
	rows, err := db.Query(query)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	count := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return count, err
		}
		count++
	}
	if err := rows.Err(); err != nil {
		return count, fmt.Errorf("after %d rows: %w", count, err)
	}
	return count, nil
}
