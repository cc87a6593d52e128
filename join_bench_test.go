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
// scanned at the same time, then hash-joined). It reports requests per query and wall time. Run
// it with -benchtime=3x.
func BenchmarkJoinAtServiceRate(b *testing.B) {
	const query = "SELECT t.Name, p.Name FROM Tasks t JOIN People p ON p.id = t.Assignee WHERE p.Role = 'QA'"
	for _, tc := range []struct {
		name string
		bind bool
	}{{"bind", true}, {"scans", false}} {
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
			rowsRead := 0
			for b.Loop() {
				rowsRead += len(rowTexts(b, db, query))
			}
			reqs := dataRequests(srv)
			b.ReportMetric(float64(len(reqs))/float64(b.N), "requests/op")
			b.ReportMetric(float64(srv.CountStatus(429)), "429s")
			b.ReportMetric(float64(rowsRead)/float64(b.N), "rows/op")
		})
	}
}
