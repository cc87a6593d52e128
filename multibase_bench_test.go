package airsql

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
)

// BenchmarkTwoBasesAtServiceRate scans a table of each of two bases at once, through one
// connector serving both (bases=), from an emulator that allows 5 requests per second per base
// and answers after 100 ms. Each base has its own budget, so the two scans together should send
// close to 10 requests per second, not 5: the figure is the combined rate over 10 requests/s.
// Run it with -benchtime=3x.
func BenchmarkTwoBasesAtServiceRate(b *testing.B) {
	const records = 1000 // 10 pages of 100 per base
	atServiceRate(b)
	fixture := &emulator.Fixture{}
	for _, base := range []string{mbOrders, mbCustomers} {
		t := emulator.FixtureTable{Name: "Items", Fields: []emulator.FixtureField{{Name: "Name", Type: "singleLineText"}}}
		for i := range records {
			t.Records = append(t.Records, emulator.FixtureRecord{Fields: map[string]any{"Name": fmt.Sprintf("item %d", i)}})
		}
		fixture.Bases = append(fixture.Bases, emulator.FixtureBase{ID: base, Name: base, Tables: []emulator.FixtureTable{t}})
	}
	srv, err := emulator.New(emulator.WithFixture(fixture), emulator.WithRate(5, 30*time.Second), emulator.WithTokenRate(0),
		emulator.WithLatency(100*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	db, _ := openDSN(b, "airtable://"+emulator.DefaultToken+"@localhost/"+mbOrders+"?tls=false&bases="+mbCustomers, srv.Client())
	for _, q := range []string{"SELECT COUNT(*) FROM Items", "SELECT COUNT(*) FROM " + mbCustomers + ".Items"} {
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil || n != records { // the schemas, off the clock
			b.Fatalf("%s: %d, %v", q, n, err)
		}
	}
	b.ReportAllocs()
	srv.ResetRequests()
	start := time.Now()
	for b.Loop() {
		var wg sync.WaitGroup
		for _, q := range []string{"SELECT Name FROM Items", "SELECT Name FROM " + mbCustomers + ".Items"} {
			wg.Go(func() {
				if n, err := countRows(context.Background(), db, q); err != nil || n != records {
					b.Errorf("%s: %d rows, %v", q, n, err)
				}
			})
		}
		wg.Wait()
	}
	rate := float64(len(srv.Requests())) / time.Since(start).Seconds()
	b.ReportMetric(float64(srv.CountStatus(429)), "429s")
	b.ReportMetric(rate, "requests/s")
	b.ReportMetric(rate/10, "ratio-to-10req/s")
}
