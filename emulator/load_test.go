package emulator

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// loadFigures is what one round of mixed load measured.
type loadFigures struct {
	createP50, createP99, createMax time.Duration
	listP50, listP99                time.Duration
	creates, lists, failed          int
	heapBefore, heapPeak            uint64
}

// runMixedLoad runs clients goroutines against the handler in-process (no network), each making
// perClient requests: 70% lists of the 10,000-record table (first page, a filter and a sort, so
// that each computes over every record), 30% creates. It is bounded by clients·perClient requests.
func runMixedLoad(tb testing.TB, s *Server, clients, perClient int) loadFigures {
	const base = "/v0/appBIG00000000001/Big"
	list := base + "?pageSize=100&filterByFormula=" + "%7BN%7D%20%3E%3D%200" + "&sort%5B0%5D%5Bfield%5D=Name&sort%5B0%5D%5Bdirection%5D=desc"
	var (
		mu             sync.Mutex
		creates, lists []time.Duration
		failed         atomic.Int64
		peak           atomic.Uint64
	)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fig := loadFigures{heapBefore: ms.HeapAlloc}
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // peak heap, sampled every 20 ms
		defer close(sampled)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for c := range clients {
		wg.Go(func() {
			<-start
			for i := range perClient {
				create := (c*perClient+i)%10 < 3
				var req *http.Request
				if create {
					body := fmt.Sprintf(`{"fields":{"Name":"load %d-%d","N":%d}}`, c, i, i)
					req = httptest.NewRequest("POST", base, bytes.NewReader([]byte(body)))
					req.Header.Set("Content-Type", "application/json")
				} else {
					req = httptest.NewRequest("GET", list, nil)
				}
				req.Header.Set("Authorization", "Bearer "+DefaultToken)
				w := httptest.NewRecorder()
				t0 := time.Now()
				s.ServeHTTP(w, req)
				d := time.Since(t0)
				if w.Code != 200 {
					failed.Add(1)
					continue
				}
				mu.Lock()
				if create {
					creates = append(creates, d)
				} else {
					lists = append(lists, d)
				}
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	close(done)
	<-sampled
	slices.Sort(creates)
	slices.Sort(lists)
	pct := func(d []time.Duration, p float64) time.Duration {
		if len(d) == 0 {
			return 0
		}
		return d[min(len(d)-1, int(float64(len(d))*p))]
	}
	fig.createP50, fig.createP99, fig.createMax = pct(creates, 0.5), pct(creates, 0.99), pct(creates, 1)
	fig.listP50, fig.listP99 = pct(lists, 0.5), pct(lists, 0.99)
	fig.creates, fig.lists, fig.failed = len(creates), len(lists), int(failed.Load())
	fig.heapPeak = peak.Load()
	return fig
}

func newLoadServer(tb testing.TB) *Server {
	s, err := New(WithFixture(bigFixture(10000)), WithRate(0, 0), WithTokenRate(0))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkMixedLoad1000Clients: 1,000 concurrent clients, 70% lists / 30% creates, on a
// 10,000-record table, 2 requests each per round. Figures: create p50/p99 and list p99 in ms,
// heap before and at its peak in MB. Run with -benchtime=1x.
func BenchmarkMixedLoad1000Clients(b *testing.B) {
	s := newLoadServer(b)
	defer s.Close()
	var fig loadFigures
	for b.Loop() {
		fig = runMixedLoad(b, s, 1000, 2)
	}
	if fig.failed > 0 {
		b.Fatalf("%d requests failed", fig.failed)
	}
	b.ReportMetric(float64(fig.createP50.Milliseconds()), "create-p50-ms")
	b.ReportMetric(float64(fig.createP99.Milliseconds()), "create-p99-ms")
	b.ReportMetric(float64(fig.createMax.Milliseconds()), "create-max-ms")
	b.ReportMetric(float64(fig.listP99.Milliseconds()), "list-p99-ms")
	b.ReportMetric(float64(fig.heapBefore)/(1<<20), "heap-before-MB")
	b.ReportMetric(float64(fig.heapPeak)/(1<<20), "heap-peak-MB")
	b.ReportMetric(0, "ns/op")
}
