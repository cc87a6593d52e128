package mysqlserver

import (
	"testing"
	"time"
)

// bigRow is a row of the Big table of the streaming benchmarks as the driver hands it over:
// text, an integer above 255, a fraction, a checkbox and a date.
func bigRow() ([]column, []any) {
	cols := []column{
		columnFor("Big", "Name", "TEXT", true), columnFor("Big", "N", "INT64", true), columnFor("Big", "X", "FLOAT64", true),
		columnFor("Big", "Done", "BOOL", false), columnFor("Big", "Day", "DATE", true),
	}
	vals := []any{"record 012345", int64(12345), 3086.25, true, time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)}
	return cols, vals
}

// encodeRow appends one row packet in the text or binary protocol, as streamRows does.
func encodeRow(p []byte, cols []column, vals []any, binaryRows bool) ([]byte, error) {
	p = p[:4]
	if binaryRows {
		return appendBinaryRow(p, cols, vals)
	}
	var err error
	for i := range cols {
		if p, err = appendText(p, &cols[i], vals[i]); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// TestRowEncodingAllocatesNothing: a row's packet is written into a reused buffer, in the text
// and the binary protocol, without one allocation per row.
func TestRowEncodingAllocatesNothing(t *testing.T) {
	cols, vals := bigRow()
	for _, binaryRows := range []bool{false, true} {
		p := make([]byte, 4, 256)
		var err error
		allocs := testing.AllocsPerRun(100, func() {
			if _, err = encodeRow(p, cols, vals, binaryRows); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("binary %v: got %v allocations per row, want 0", binaryRows, allocs)
		}
	}
}

// BenchmarkRowEncoding is the server's own cost of a row: its packet, text and binary.
func BenchmarkRowEncoding(b *testing.B) {
	cols, vals := bigRow()
	for _, mode := range []struct {
		name       string
		binaryRows bool
	}{{"text", false}, {"binary", true}} {
		b.Run(mode.name, func(b *testing.B) {
			b.ReportAllocs()
			p := make([]byte, 4, 256)
			for b.Loop() {
				var err error
				if p, err = encodeRow(p, cols, vals, mode.binaryRows); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
