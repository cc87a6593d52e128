package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/airsql/airsql/translate"
)

// benchRows are n records of the test table: 4 statuses, numbers and dates.
func benchRows(n int) []translate.Row {
	rows := make([]translate.Row, n)
	statuses := []any{"a", "b", "c", nil}
	day0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range rows {
		rows[i] = row(fmt.Sprintf("rec%014d", i), "Name", fmt.Sprintf("name %06d", (i*7919)%n), "N", float64(i%1000),
			"X", float64(i)/4, "Done", i%3 == 0, "Day", day0.AddDate(0, 0, i%365).Format("2006-01-02"), "Status", statuses[i%4])
	}
	return rows
}

// benchQuery runs a query over rows b.N times and reports ns and allocations per input row.
func benchQuery(b *testing.B, rows []translate.Row, maxRows int, query string, wantRows int) {
	q := plan(b, query)
	src := &memSource{rows: rows, pageSize: 100}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		op, err := Build(q, Options{Source: src, MaxRows: maxRows})
		if err != nil {
			b.Fatal(err)
		}
		out, err := Drain(context.Background(), op)
		if err != nil {
			b.Fatal(err)
		}
		if len(out) != wantRows {
			b.Fatalf("%d rows, want %d", len(out), wantRows)
		}
	}
	b.StopTimer()
	perRow := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(len(rows))
	b.ReportMetric(perRow, "ns/row")
}

// BenchmarkGroupBy100k groups 100,000 in-memory rows into 4 groups with five aggregates. The
// allocs/op figure divided by 100,000 is the allocations per row.
func BenchmarkGroupBy100k(b *testing.B) {
	benchQuery(b, benchRows(100_000), 0,
		"SELECT Status, COUNT(*), SUM(N), AVG(X), MIN(Day), MAX(Name) FROM T GROUP BY Status", 4)
}

// BenchmarkGroupBy100kManyGroups groups 100,000 rows into 1,000 groups (the hash table's cost).
func BenchmarkGroupBy100kManyGroups(b *testing.B) {
	benchQuery(b, benchRows(100_000), 0, "SELECT N, COUNT(*), SUM(X) FROM T GROUP BY N", 1000)
}

// BenchmarkTopN100k keeps the first 10 of 100,000 rows by a computed key: it runs with a row
// budget of 10, so it fails if it ever holds more than LIMIT rows.
func BenchmarkTopN100k(b *testing.B) {
	benchQuery(b, benchRows(100_000), 10, "SELECT Name, X FROM T ORDER BY X * -1, Name LIMIT 10", 10)
}

// BenchmarkTopN100kFewEnter is a top-N whose heap few rows enter (N cycles through 0..999, so
// after the first thousand rows only the N = 0 ones can): the rows that do not enter cost their
// sort keys only, not the select list.
func BenchmarkTopN100kFewEnter(b *testing.B) {
	benchQuery(b, benchRows(100_000), 10, "SELECT Name, X, Day, Status FROM T ORDER BY N, Name LIMIT 10", 10)
}
