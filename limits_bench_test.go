package airsql

import (
	"fmt"
	"strings"
	"testing"

	"github.com/airsql/airsql/emulator"
)

// wideFixture is one table of 500 text columns (the service's most per table) and 20 records.
func wideFixture() *emulator.Fixture {
	tbl := emulator.FixtureTable{ID: "tblWIDE0000000001", Name: "Wide"}
	for i := range 500 {
		tbl.Fields = append(tbl.Fields, emulator.FixtureField{Name: fmt.Sprintf("c%03d", i), Type: "singleLineText"})
	}
	for r := range 20 {
		f := map[string]any{}
		for i := 0; i < 500; i += 7 {
			f[fmt.Sprintf("c%03d", i)] = fmt.Sprintf("v%d.%d", r, i)
		}
		tbl.Records = append(tbl.Records, emulator.FixtureRecord{Fields: f})
	}
	return &emulator.Fixture{Bases: []emulator.FixtureBase{{ID: benchBase, Name: "Bench", Tables: []emulator.FixtureTable{tbl}}}}
}

// concatQuery is a SELECT whose WHERE compares a CONCAT of n columns (cycling through the 500).
func concatQuery(n int) string {
	cols := make([]string, n)
	for i := range cols {
		cols[i] = fmt.Sprintf("c%03d", i%500)
	}
	return "SELECT id FROM Wide WHERE CONCAT(" + strings.Join(cols, ", ") + ") = 'x'"
}

// BenchmarkConcat5000Columns runs a WHERE on CONCAT of 5,000 columns through the driver and the
// in-process emulator: translating it, and the emulator evaluating the pushed & chain.
func BenchmarkConcat5000Columns(b *testing.B) {
	srv, err := emulator.New(emulator.WithFixture(wideFixture()), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	db := openBenchDB(b, srv)
	q := concatQuery(5000)
	b.ReportAllocs()
	for b.Loop() {
		rows, err := db.Query(q)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		rows.Close()
	}
}

// benchLike runs SELECT … WHERE Name LIKE ? with an argument of n bytes; refused tells whether
// the driver is expected to refuse it (over the 5 MiB a request can carry).
func benchLike(b *testing.B, n int, refused bool) {
	srv, err := emulator.New(emulator.WithFixture(benchFixture(100)), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	db := openBenchDB(b, srv)
	arg := strings.Repeat("ab%_", n/4)
	b.ReportAllocs()
	for b.Loop() {
		rows, err := db.Query("SELECT id FROM Big WHERE Name LIKE ?", arg)
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		if (err != nil) != refused {
			b.Fatalf("err = %.200v", err)
		}
	}
}

// BenchmarkLikeArgument10MB: a 10 MB LIKE argument, refused before anything is built from it.
func BenchmarkLikeArgument10MB(b *testing.B) { benchLike(b, 10<<20, true) }

// BenchmarkLikeArgument1MB: a 1 MB LIKE argument, pushed as a formula by POST listRecords.
func BenchmarkLikeArgument1MB(b *testing.B) { benchLike(b, 1<<20, false) }
