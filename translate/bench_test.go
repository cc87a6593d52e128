package translate

import (
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
		if _, err := Select(sel, schema, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRow is the per-row local work of an inexact plan: Keep and Values on one record.
func BenchmarkRow(b *testing.B) {
	schema := loadSchema(b)
	sel := parseSelect(b, "SELECT id, Name, Priority, Estimate, Done, Due, `Updated At`, Tags FROM Tasks WHERE Score > 1 AND Name <> 'x'")
	plan, err := Select(sel, schema, Args{})
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
