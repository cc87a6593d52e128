package translate

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkSelect is the cost of translating a typical query (parse excluded).
func BenchmarkSelect(b *testing.B) {
	schema := loadSchema(b)
	sel := parseSelect(b, "SELECT Name, Priority, Due FROM Tasks WHERE Priority >= ? AND Status <> 'Done' AND Name LIKE 'a%' ORDER BY Priority DESC LIMIT 10")
	args := Args{Positional: []any{2}, Now: testNow}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := selectPlan(sel, schema, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRow is the per-row local work of an inexact plan: Keep and Values on one record.
func BenchmarkRow(b *testing.B) {
	schema := loadSchema(b)
	sel := parseSelect(b, "SELECT id, Name, Priority, Estimate, Done, Due, `Updated At`, Tags FROM Tasks WHERE Score > 1 AND Name <> 'x'")
	plan, err := selectPlan(sel, schema, Args{})
	if err != nil {
		b.Fatal(err)
	}
	row := Row{ID: "recAAAAAAAAAAAAAA", CreatedTime: time.Now(), Fields: map[string]any{
		"Name": "Write spec", "Priority": 3.0, "Estimate": 1.5, "Done": true, "Due": "2024-01-05",
		"Updated At": "2024-01-05T10:00:00.000Z", "Tags": []any{"x", "y"}, "Score": 6.0,
	}}
	dest := make([]any, len(plan.Columns))
	b.ReportAllocs()
	for b.Loop() {
		ok, err := plan.Keep(row)
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
		if err := plan.Values(row, dest); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSortRows is a local sort of 1000 rows on a date and a text column (ORDER BY on text is
// never left to the service).
func BenchmarkSortRows(b *testing.B) {
	schema := loadSchema(b)
	plan, err := selectPlan(parseSelect(b, "SELECT Name FROM Tasks ORDER BY Due, Name DESC"), schema, Args{})
	if err != nil {
		b.Fatal(err)
	}
	if !plan.SortLocally {
		b.Fatal("the plan does not sort locally")
	}
	day0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]Row, 1000)
	for i := range rows {
		rows[i] = Row{ID: fmt.Sprintf("rec%014d", i), Fields: map[string]any{
			"Name": fmt.Sprintf("task %d", i*7919%1000),
			"Due":  day0.AddDate(0, 0, i*31%97).Format("2006-01-02"),
		}}
	}
	work := make([]Row, len(rows))
	b.ReportAllocs()
	for b.Loop() {
		copy(work, rows)
		plan.SortRows(work)
	}
}
