package airsql

import (
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/transport"
)

// BenchmarkJoinAtServiceRate joins the demo base's 300 tasks with its 40 people (the tasks of QA
// people) against an emulator that allows 5 requests per second and answers after 300 ms, with
// the bind join (People read first, the tasks of their keys only) and without it (both tables
// scanned at the same time, then hash-joined). It reports requests per query and wall time. Also,
// at the same rate: a correlated count per project (Tasks read once, the count per project
// in memory) against the same answer as a LEFT JOIN with GROUP BY, and a three-table join whose
// third table gets the keys of the rows so far (bind) against scans. Run it with -benchtime=3x.
func BenchmarkJoinAtServiceRate(b *testing.B) {
	const qaTasks = "SELECT t.Name, p.Name FROM Tasks t JOIN People p ON p.id = t.Assignee WHERE p.Role = 'QA'"
	for _, tc := range []struct {
		name, query string
		bind        bool
	}{
		{"bind", qaTasks, true},
		{"scans", qaTasks, false},
		{"correlated", "SELECT p.Name, (SELECT COUNT(*) FROM Tasks t WHERE t.Project = p.id) FROM Projects p", true},
		{"leftjoin-groupby", "SELECT p.Name, COUNT(t.id) FROM Projects p LEFT JOIN Tasks t ON t.Project = p.id GROUP BY p.id, p.Name", true},
		{"three-bind", "SELECT t.Name, p.Name, pr.Name FROM Tasks t JOIN People p ON p.id = t.Assignee JOIN Projects pr ON pr.id = t.Project WHERE p.Role = 'QA'", true},
		{"three-scans", "SELECT t.Name, p.Name, pr.Name FROM Tasks t JOIN People p ON p.id = t.Assignee JOIN Projects pr ON pr.id = t.Project WHERE p.Role = 'QA'", false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			saved := transport.APILimit
			transport.APILimit = 200 * time.Millisecond
			defer func() { transport.APILimit = saved }()
			noBindJoins = !tc.bind
			defer func() { noBindJoins = false }()
			db, srv := openDemo(b, "", emulator.WithRate(5, 30*time.Second), emulator.WithLatency(300*time.Millisecond))
			if err := db.Ping(); err != nil {
				b.Fatal(err)
			}
			srv.ResetRequests()
			b.ReportAllocs()
			rowsRead, runs := 0, 0
			for b.Loop() {
				rowsRead += len(rowTexts(b, db, tc.query))
				runs++
			}
			b.ReportMetric(float64(len(dataRequests(srv)))/float64(runs), "requests/op")
			b.ReportMetric(float64(srv.CountStatus(429)), "429s")
			b.ReportMetric(float64(rowsRead)/float64(runs), "rows/op")
		})
	}
}

// BenchmarkBindJoinAfterCount is issue 23's join (scaled: Big 14,000 records, Small 1,500 keys
// that take three formulas) at the service's rate, 100 ms latency, on a fresh connector and on
// one that SELECT COUNT(*) FROM Big has taught Big's size. The plan must not get worse with what
// the connector knows: it reports the join's requests and seconds (the COUNT(*) not counted).
// Run it with -benchtime=1x (about a minute).
func BenchmarkBindJoinAfterCount(b *testing.B) {
	const query = "SELECT s.Label, COUNT(*), SUM(b.X), SUM(s.W) FROM Big b JOIN Small s ON b.G = s.G GROUP BY s.Label"
	atServiceRate(b)
	for _, afterCount := range []bool{false, true} {
		name := "fresh"
		if afterCount {
			name = "after-COUNT"
		}
		b.Run(name, func(b *testing.B) {
			srv, err := emulator.New(emulator.WithFixture(joinCostFixture()), emulator.WithRate(5, 30*time.Second),
				emulator.WithTokenRate(0), emulator.WithLatency(100*time.Millisecond))
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			b.ReportAllocs()
			var took time.Duration
			requests := 0
			for b.Loop() {
				db := openBenchDB(b, srv)
				if afterCount {
					rowTexts(b, db, "SELECT COUNT(*) FROM Big")
				}
				time.Sleep(1100 * time.Millisecond) // an idle window
				srv.ResetRequests()
				start := time.Now()
				if got := rowTexts(b, db, query); len(got) != 7 {
					b.Fatalf("%d groups, want 7", len(got))
				}
				took += time.Since(start)
				requests += len(srv.Requests())
				if n := srv.CountStatus(429); n != 0 {
					b.Errorf("%d × 429", n)
				}
				db.Close()
			}
			b.ReportMetric(float64(requests)/float64(b.N), "requests")
			b.ReportMetric(took.Seconds()/float64(b.N), "s")
		})
	}
}
