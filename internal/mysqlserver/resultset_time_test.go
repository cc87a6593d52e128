package mysqlserver

import (
	"math/rand/v2"
	"testing"
	"time"
)

// appendTimeText writes what time.AppendFormat writes with the layouts of a DATE and a DATETIME
// column, for every year a MySQL date has and beyond it.
func TestAppendTimeText(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	times := []time.Time{
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(2024, 2, 29, 7, 5, 3, 40_000_000, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 3, 10, 2, 30, 0, 0, time.FixedZone("x", -5*3600)),
	}
	for range 2000 {
		times = append(times, time.Unix(rng.Int64N(400_000_000_000)-62_000_000_000, rng.Int64N(1e9)).UTC())
	}
	for _, tm := range times {
		for _, c := range []struct {
			dateOnly bool
			layout   string
		}{{true, time.DateOnly}, {false, "2006-01-02 15:04:05.000"}} {
			if got, want := string(appendTimeText(nil, tm, c.dateOnly)), tm.Format(c.layout); got != want {
				t.Errorf("appendTimeText(%v, %v): got %q, want %q", tm, c.dateOnly, got, want)
			}
		}
	}
}
