package sqlvalue

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestAppendKeyMatchesCompare: two values share a GROUP BY / DISTINCT key exactly when ORDER BY's
// comparison takes them as equal — one semantics for grouping, DISTINCT and sorting.
func TestAppendKeyMatchesCompare(t *testing.T) {
	t0 := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	values := []any{nil, true, false, int64(0), int64(1), int64(-1), 0.0, math.Copysign(0, -1), 1.0, 1.5, -1.5,
		float64(1 << 53), int64(1 << 53), math.MaxInt64, float64(math.MaxInt64), 1e300, "", "a", "A", "1", "a\x00",
		t0, t0.Add(time.Millisecond), t0.In(time.FixedZone("x", 3600))}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		values = append(values, int64(rng.IntN(5)), float64(rng.IntN(5))/2, string(rune('a'+rng.IntN(3))))
	}
	for _, a := range values {
		for _, b := range values {
			sameKey := bytes.Equal(AppendKey(nil, a), AppendKey(nil, b))
			equal := CompareSQL(a, b) == 0
			if sameKey != equal {
				t.Fatalf("%#v and %#v: same key %v, compare equal %v", a, b, sameKey, equal)
			}
		}
	}
}
