package ormtest

import (
	"fmt"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/transport"
)

// atServiceRate opens GORM (defaults) on a base whose products table exists, served at the
// service's 5 requests per second with 300 ms latency, with the driver's pacing on.
func atServiceRate(b *testing.B) (*gorm.DB, *emulator.Server) {
	b.Helper()
	saved := transport.APILimit
	transport.APILimit = 200 * time.Millisecond
	b.Cleanup(func() { transport.APILimit = saved })
	srv, db := newBase(b, emulator.WithRate(5, 30*time.Second), emulator.WithLatency(300*time.Millisecond))
	g := openGorm(b, db)
	if err := g.AutoMigrate(&Product{}); err != nil {
		b.Fatal(err)
	}
	return g, srv
}

func report(b *testing.B, srv *emulator.Server, written int, elapsed time.Duration) {
	refused := srv.CountStatus(429)
	rate := float64(written) / elapsed.Seconds()
	b.ReportMetric(float64(refused), "429s")
	b.ReportMetric(rate, "records/s")
	b.ReportMetric(rate/50, "ratio-to-50records/s")
}

// BenchmarkGormCreateInBatches: CreateInBatches(1,000 products, 100) with GORM's defaults — one
// transaction, ten INSERT … RETURNING of 100 rows, each sent at once (it must return the ids) in
// 10 pipelined requests. Run it with -benchtime=1x.
func BenchmarkGormCreateInBatches(b *testing.B) {
	const records = 1000
	g, srv := atServiceRate(b)
	b.ReportAllocs()
	written := 0
	start := time.Now()
	for b.Loop() {
		ps := make([]Product, records)
		for i := range ps {
			ps[i] = Product{Code: fmt.Sprintf("P%04d", i), Name: "bench", Price: float64(i), Stock: int64(i)}
		}
		if err := g.CreateInBatches(&ps, 100).Error; err != nil {
			b.Fatal(err)
		}
		if ps[records-1].ID == "" {
			b.Fatal("the last record has no id")
		}
		written += records
	}
	report(b, srv, written, time.Since(start))
}

// BenchmarkGormSingleCreates: N single Creates, each in GORM's default transaction of its own:
// each must return its id, so each is one request and one round trip, one after the other.
// Run it with -benchtime=1x.
func BenchmarkGormSingleCreates(b *testing.B) {
	const records = 20
	g, srv := atServiceRate(b)
	b.ReportAllocs()
	written := 0
	start := time.Now()
	for b.Loop() {
		for i := range records {
			p := Product{Code: fmt.Sprintf("S%04d", i), Name: "bench"}
			if err := g.Create(&p).Error; err != nil {
				b.Fatal(err)
			}
		}
		written += records
	}
	report(b, srv, written, time.Since(start))
}
