package mysqlserver

import (
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"log"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
)

const bigBase = "appBIG00000000001"

// bigFixture is one table, Big, of n records: a text, two numbers, a checkbox and a date.
func bigFixture(n int) *emulator.Fixture {
	tbl := emulator.FixtureTable{
		ID: "tblBIG00000000001", Name: "Big",
		Fields: []emulator.FixtureField{
			{Name: "Name", Type: "singleLineText"},
			{Name: "N", Type: "number", Options: map[string]any{"precision": 0}},
			{Name: "X", Type: "number", Options: map[string]any{"precision": 2}},
			{Name: "Done", Type: "checkbox", Options: map[string]any{"icon": "check", "color": "greenBright"}},
			{Name: "Day", Type: "date", Options: map[string]any{"dateFormat": map[string]any{"name": "iso", "format": "YYYY-MM-DD"}}},
		},
	}
	day0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	tbl.Records = make([]emulator.FixtureRecord, n)
	for i := range n {
		tbl.Records[i] = emulator.FixtureRecord{Fields: map[string]any{
			"Name": fmt.Sprintf("record %06d", i),
			"N":    float64(i),
			"X":    float64(i) / 4,
			"Done": i%3 == 0,
			"Day":  day0.AddDate(0, 0, i%365).Format("2006-01-02"),
		}}
	}
	return &emulator.Fixture{
		Tokens: []emulator.FixtureToken{{Token: "patBIG.secret", Bases: []string{bigBase},
			Scopes: []string{"data.records:read", "data.records:write", "schema.bases:read"}}},
		Bases: []emulator.FixtureBase{{ID: bigBase, Name: "Big", Tables: []emulator.FixtureTable{tbl}}},
	}
}

// gate holds every request for a later page (one with an offset) until open is closed.
type gate struct {
	inner http.RoundTripper
	open  chan struct{}
	held  chan struct{}
	once  sync.Once
}

func (g *gate) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Query().Get("offset") != "" {
		g.once.Do(func() { close(g.held) })
		select {
		case <-g.open:
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
	return g.inner.RoundTrip(r)
}

// startBig serves the Big base of n records through rt(emulator transport).
func startBig(t testing.TB, n int, rt func(http.RoundTripper) http.RoundTripper) (*env, *sql.DB) {
	t.Helper()
	emu, err := emulator.New(emulator.WithFixture(bigFixture(n)), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emu.Close() })
	var transport http.RoundTripper = emu.Transport()
	if rt != nil {
		transport = rt(transport)
	}
	db := openDriver(t, emu, bigBase, "patBIG.secret", transport)
	if err := db.Ping(); err != nil { // the schema is cached before anything is measured
		t.Fatal(err)
	}
	e := &env{emu: emu, db: db, log: newLogBuffer()}
	e.start(t, Config{Databases: []Database{{Name: bigBase, DB: db}}, User: testUser, Password: testPass,
		Logger: log.New(e.log, "", 0)})
	return e, db
}

func (e *env) bigClient(t testing.TB, params string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/%s?%s", testUser, testPass, e.addr, bigBase, params))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestRowsStream: the client receives the first rows while the driver has not yet fetched the
// second page: the server sends rows as the driver yields them, it does not collect the result
// first.
func TestRowsStream(t *testing.T) {
	for _, mode := range []struct{ name, query string }{
		{"text", "SELECT Name, N, X, Done, Day FROM Big"},
		{"binary", "SELECT Name, N, X, Done, Day FROM Big WHERE N >= ?"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			g := &gate{open: make(chan struct{}), held: make(chan struct{})}
			e, _ := startBig(t, 1000, func(rt http.RoundTripper) http.RoundTripper { g.inner = rt; return g })
			client := e.bigClient(t, "")
			var args []any
			if mode.name == "binary" {
				args = []any{0}
			}
			rows, err := client.Query(mode.query, args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			if !rows.Next() {
				t.Fatalf("no first row: %v", rows.Err())
			}
			wait(t, g.held, "the driver to ask for the second page")
			close(g.open)
			n := 1
			for rows.Next() {
				n++
			}
			if err := rows.Err(); err != nil || n != 1000 {
				t.Fatalf("%d rows, %v; want 1000", n, err)
			}
		})
	}
}

// readBig reads every row of a SELECT over Big, calling each every 10,000 rows.
func readBig(t testing.TB, db *sql.DB, query string, args []any, each func()) int {
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var (
		name string
		n    int64
		x    float64
		done bool
		day  []byte
	)
	count := 0
	for rows.Next() {
		if err := rows.Scan(&name, &n, &x, &done, &day); err != nil {
			t.Fatal(err)
		}
		count++
		if each != nil && count%10000 == 0 {
			each()
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return count
}

// heapSample is the live heap after a collection: all of it, and the part not allocated by the
// emulator (which runs in this process and whose in-flight requests are not the server's).
type heapSample struct{ all, notEmulator int64 }

func sampleHeap() heapSample {
	runtime.GC()
	runtime.GC() // the memory profile describes the heap as of the last completed collection
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var recs []runtime.MemProfileRecord
	n, _ := runtime.MemProfile(nil, false)
	for {
		recs = make([]runtime.MemProfileRecord, n+64)
		var ok bool
		if n, ok = runtime.MemProfile(recs, false); ok {
			recs = recs[:n]
			break
		}
	}
	var emu int64
	for _, r := range recs {
		frames := runtime.CallersFrames(r.Stack())
		for {
			f, more := frames.Next()
			if strings.Contains(f.Function, "airsql/emulator.") {
				emu += r.InUseBytes()
				break
			}
			if !more {
				break
			}
		}
	}
	var profiled int64
	for _, r := range recs {
		profiled += r.InUseBytes()
	}
	return heapSample{all: int64(ms.HeapAlloc), notEmulator: profiled - emu}
}

// peakLiveHeap reads a query's rows and returns the largest growth of the live heap, sampled
// every 10,000 rows, over the heap before the query: all of it, and all but the emulator's.
func peakLiveHeap(t testing.TB, db *sql.DB, query string, rows int) (all, notEmulator int64) {
	// The connection is made and every cache is warm before the baseline.
	if n := readBig(t, db, query+" LIMIT 1", nil, nil); n != 1 {
		t.Fatalf("warm-up read %d rows", n)
	}
	saved := runtime.MemProfileRate
	runtime.MemProfileRate = 4096
	defer func() { runtime.MemProfileRate = saved }()
	base := sampleHeap()
	n := readBig(t, db, query, nil, func() {
		s := sampleHeap()
		all = max(all, s.all-base.all)
		notEmulator = max(notEmulator, s.notEmulator-base.notEmulator)
	})
	if n != rows {
		t.Fatalf("read %d rows, want %d", n, rows)
	}
	return all, notEmulator
}

// TestStreamingMemoryBounded: 100,000 rows through the server keep the live heap within a
// few MiB of where it started (the result itself is over 10 MB of row data).
func TestStreamingMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 rows: run without -short")
	}
	const rows = 100000
	e, _ := startBig(t, rows, nil)
	all, server := peakLiveHeap(t, e.bigClient(t, ""), "SELECT Name, N, X, Done, Day FROM Big", rows)
	t.Logf("peak live heap growth while streaming %d rows: %.2f MiB in all, %.2f MiB outside the emulator", rows, mib(all), mib(server))
	// Measured: 1–6 MiB (the driver's page being decoded, the client's buffers, the server's
	// 64-row queue). Holding the result would take well over 15 MiB outside the emulator.
	if server > 12<<20 {
		t.Errorf("the live heap outside the emulator grew by %.1f MiB while streaming: the rows are being held", mib(server))
	}
}

// BenchmarkSelect10000 compares a 10,000-row SELECT read with database/sql through the driver
// directly and through the server (go-sql-driver/mysql; text rows, and binary rows of a
// prepared statement), over the in-process emulator without latency or rate limit.
func BenchmarkSelect10000(b *testing.B) {
	const records = 10000
	e, direct := startBig(b, records, nil)
	run := func(b *testing.B, db *sql.DB, query string, args ...any) {
		b.ReportAllocs()
		start := time.Now()
		total := 0
		for b.Loop() {
			if n := readBig(b, db, query, args, nil); n != records {
				b.Fatalf("%d rows", n)
			}
			total += records
		}
		b.ReportMetric(float64(total)/time.Since(start).Seconds(), "rows/s")
	}
	const q = "SELECT Name, N, X, Done, Day FROM Big"
	b.Run("driver", func(b *testing.B) { run(b, direct, q) })
	b.Run("server-text", func(b *testing.B) { run(b, e.bigClient(b, ""), q) })
	b.Run("server-binary", func(b *testing.B) { run(b, e.bigClient(b, ""), q+" WHERE N >= ?", 0) })
}

// BenchmarkPeakHeap100000 reports the live heap's growth while 100,000 rows stream through
// the server. Run it with -benchtime=1x.
func BenchmarkPeakHeap100000(b *testing.B) {
	const rows = 100000
	e, _ := startBig(b, rows, nil)
	client := e.bigClient(b, "")
	b.ReportAllocs()
	var all, server int64
	for b.Loop() {
		a, s := peakLiveHeap(b, client, "SELECT Name, N, X, Done, Day FROM Big", rows)
		all, server = max(all, a), max(server, s)
	}
	b.ReportMetric(mib(all), "peak-heap-MiB")
	b.ReportMetric(mib(server), "peak-heap-not-emulator-MiB")
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// BenchmarkPointQuery is a one-row query with a parameter through the server: go-sql-driver
// prepares it (COM_STMT_PREPARE, where the server plans it to announce its columns), executes
// and closes it each time; with interpolateParams it sends the text alone. The difference is what
// announcing the columns at prepare costs.
func BenchmarkPointQuery(b *testing.B) {
	e := startServer(b)
	for _, mode := range []struct{ name, params string }{{"prepared", ""}, {"interpolated", "interpolateParams=true"}} {
		b.Run(mode.name, func(b *testing.B) {
			db := e.client(b, mode.params)
			var name string
			for b.Loop() {
				if err := db.QueryRow("SELECT Name FROM People WHERE Name = ?", "Ada Lovelace").Scan(&name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// replay answers each request it has seen before with the response recorded the first time
// (status, header and body bytes), so that a benchmark's later runs cost the emulator nothing:
// what they measure is the driver, the server and the client. A run sends the same requests as
// the one before it (the offsets it follows are the recorded ones).
type replay struct {
	inner http.RoundTripper
	mu    sync.Mutex
	seen  map[string]recordedResponse
}

type recordedResponse struct {
	status int
	header http.Header
	body   []byte
}

func (p *replay) RoundTrip(r *http.Request) (*http.Response, error) {
	key := r.Method + " " + r.URL.String()
	if r.Body != nil {
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		key += "\n" + string(body)
	}
	p.mu.Lock()
	rec, ok := p.seen[key]
	p.mu.Unlock()
	if !ok {
		resp, err := p.inner.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		rec = recordedResponse{status: resp.StatusCode, header: resp.Header, body: body}
		if resp.StatusCode == http.StatusOK {
			p.mu.Lock()
			if p.seen == nil {
				p.seen = map[string]recordedResponse{}
			}
			p.seen[key] = rec
			p.mu.Unlock()
		}
	}
	return &http.Response{StatusCode: rec.status, Status: http.StatusText(rec.status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: rec.header.Clone(), Body: io.NopCloser(bytes.NewReader(rec.body)), ContentLength: int64(len(rec.body)), Request: r}, nil
}

// BenchmarkCPUPerRow100000 reports the process's CPU time per row while 100,000 rows are read
// through the driver directly and through the server (text and binary rows), emulator,
// driver, server and client all in this process: the difference is what the server (and the
// go-sql-driver/mysql client reading its answer) add per row. The replayed runs answer the
// driver's requests with the emulator's recorded response bytes (replay): they leave out the
// emulator's own CPU (selecting records and encoding JSON), which the difference between a run
// and its replayed run is. Run it with -benchtime=3x.
func BenchmarkCPUPerRow100000(b *testing.B) {
	const records = 100000
	e, direct := startBig(b, records, nil)
	replayed, replayedDirect := startBig(b, records, func(rt http.RoundTripper) http.RoundTripper { return &replay{inner: rt} })
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	run := func(b *testing.B, db *sql.DB, query string, args ...any) {
		b.ReportAllocs()
		readBig(b, db, query+" LIMIT 1", args, nil) // connection and caches warm
		start, startCPU, total := time.Now(), cpu(), 0
		for b.Loop() {
			if n := readBig(b, db, query, args, nil); n != records {
				b.Fatalf("%d rows", n)
			}
			total += records
		}
		b.ReportMetric(float64(total)/time.Since(start).Seconds(), "rows/s")
		b.ReportMetric(float64(cpu()-startCPU)/float64(time.Microsecond)/float64(total), "cpu-µs/row")
	}
	const q = "SELECT Name, N, X, Done, Day FROM Big"
	b.Run("driver", func(b *testing.B) { run(b, direct, q) })
	b.Run("server-text", func(b *testing.B) { run(b, e.bigClient(b, ""), q) })
	b.Run("server-binary", func(b *testing.B) { run(b, e.bigClient(b, ""), q+" WHERE N >= ?", 0) })
	replayedServer := replayed.bigClient(b, "")
	readBig(b, replayedDirect, q, nil, nil) // record the pages of both queries
	readBig(b, replayedServer, q+" WHERE N >= ?", []any{0}, nil)
	b.Run("replayed/driver", func(b *testing.B) { run(b, replayedDirect, q) })
	b.Run("replayed/server-text", func(b *testing.B) { run(b, replayedServer, q) })
	b.Run("replayed/server-binary", func(b *testing.B) { run(b, replayedServer, q+" WHERE N >= ?", 0) })
}
