package airsql

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkParseStatement measures reading a statement (the front end and the grammar): a typical
// query behind a comment, and an INSERT of 1000 rows.
func BenchmarkParseStatement(b *testing.B) {
	var ins strings.Builder
	ins.WriteString("INSERT INTO Tasks (Name, Priority, Notes) VALUES ")
	for i := range 1000 {
		if i > 0 {
			ins.WriteString(", ")
		}
		fmt.Fprintf(&ins, "('task %d', %d, 'some notes about it')", i, i%5)
	}
	for _, c := range []struct{ name, sql string }{
		{"select", "/* app:report */ SELECT t.Name, COUNT(*) AS n, ROUND(AVG(t.Priority), 1) FROM Tasks t JOIN People p ON p.id = t.Owner WHERE t.Priority >= ? AND t.Name LIKE 'a%' GROUP BY t.Name ORDER BY n DESC LIMIT 10"},
		{"insert1000", ins.String()},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.sql)))
			for b.Loop() {
				if _, err := parseStatement(c.sql); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
