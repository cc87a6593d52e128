package translate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/airsql/airsql/sqlvalue"
)

// TestAccumulators: the aggregates' rules on a column of values.
func TestAccumulators(t *testing.T) {
	col := &expr{kind: exSlot, slot: 0, typ: typeInt}
	rows := func(vals ...any) []Row {
		out := make([]Row, len(vals))
		for i, v := range vals {
			out[i] = Row{Values: []any{v}}
		}
		return out
	}
	run := func(a *Aggregate, rs []Row) any {
		acc := a.NewAccumulator()
		for i := range rs {
			if _, err := acc.Add(&rs[i]); err != nil {
				t.Fatal(err)
			}
		}
		return acc.Result()
	}
	in := rows(int64(3), nil, int64(1), int64(3), int64(math.MaxInt64))
	for _, tc := range []struct {
		a    *Aggregate
		want any
	}{
		{&Aggregate{Name: "COUNT", star: true}, int64(5)},
		{&Aggregate{Name: "COUNT", args: []*expr{col}}, int64(4)},
		{&Aggregate{Name: "COUNT", Distinct: true, args: []*expr{col}}, int64(3)},
		{&Aggregate{Name: "SUM", args: []*expr{col}, typ: typeInt}, float64(math.MaxInt64) + 7},
		{&Aggregate{Name: "SUM", Distinct: true, args: []*expr{col}, typ: typeInt}, float64(math.MaxInt64) + 4},
		{&Aggregate{Name: "MIN", args: []*expr{col}}, int64(1)},
		{&Aggregate{Name: "MAX", args: []*expr{col}}, int64(math.MaxInt64)},
		{&Aggregate{Name: "GROUP_CONCAT", args: []*expr{col}, separator: ";"}, "3;1;3;9223372036854775807"},
		{&Aggregate{Name: "GROUP_CONCAT", Distinct: true, args: []*expr{col}, separator: ",",
			order: []orderKey{{e: col, desc: true}}}, "9223372036854775807,3,1"},
		{&Aggregate{Name: "ANY_VALUE", args: []*expr{col}}, int64(3)},
	} {
		if got := run(tc.a, in); got != tc.want {
			t.Errorf("%s (distinct %v): %#v, want %#v", tc.a.Name, tc.a.Distinct, got, tc.want)
		}
	}
	// Over no rows (or only NULLs): COUNT 0, the others NULL.
	for _, name := range []string{"SUM", "AVG", "MIN", "MAX", "GROUP_CONCAT"} {
		if got := run(&Aggregate{Name: name, args: []*expr{col}, separator: ","}, rows(nil, nil)); got != nil {
			t.Errorf("%s of NULLs: %#v, want NULL", name, got)
		}
	}
	if got := run(&Aggregate{Name: "AVG", args: []*expr{col}}, rows(int64(1), int64(2))); got != 1.5 {
		t.Errorf("AVG(1, 2) = %#v, want 1.5", got)
	}
}

// TestOracleAvgOfIntegers (found by the MariaDB oracle, issue 11): MySQL's AVG of integers is a
// DECIMAL with div_precision_increment (4) decimals, rounded half away from zero — AVG over 94
// values summing to 12919 is 137.4362, not 137.436170213; a FLOAT64 argument keeps the division.
func TestOracleAvgOfIntegers(t *testing.T) {
	for _, tc := range []struct {
		sum  any
		n    int64
		want float64
	}{
		{int64(12919), 94, 137.4362},
		{int64(5), 3, 1.6667},
		{int64(-5), 3, -1.6667},
		{int64(1), 8, 0.125},
		{int64(1), 20000, 0.0001},   // 0.00005 rounds away from zero
		{int64(-1), 20000, -0.0001}, // on both sides
		{int64(1), 20001, 0},        // below the half
		{int64(math.MaxInt64), 1, float64(math.MaxInt64)},
		{float64(5), 3, 5.0 / 3},
	} {
		if got := average(tc.sum, tc.n); got != tc.want {
			t.Errorf("AVG of %d values summing to %v: %#v, want %#v", tc.n, tc.sum, got, tc.want)
		}
	}
}

// TestVarianceAndBitAggregates: the STD and VAR families and BIT_AND/OR/XOR, with MySQL's answers
// (MariaDB 10.11 gives the same) over 2, 4, 4, 4, 5, 5, 7, 9 and NULL, and over no rows.
func TestVarianceAndBitAggregates(t *testing.T) {
	col := &expr{kind: exSlot, slot: 0, typ: typeInt}
	run := func(name string, vals ...any) any {
		acc := (&Aggregate{Name: name, args: []*expr{col}}).NewAccumulator()
		for _, v := range vals {
			if _, err := acc.Add(&Row{Values: []any{v}}); err != nil {
				t.Fatal(err)
			}
		}
		return acc.Result()
	}
	data := []any{int64(2), int64(4), int64(4), nil, int64(4), int64(5), int64(5), int64(7), int64(9)}
	for _, tt := range []struct {
		name       string
		vals       []any
		want       any
		tolerateUs bool
	}{
		{"STD", data, 2.0, true},
		{"STDDEV", data, 2.0, true},
		{"STDDEV_POP", data, 2.0, true},
		{"VARIANCE", data, 4.0, true},
		{"VAR_POP", data, 4.0, true},
		{"VAR_SAMP", data, 32.0 / 7, true},
		{"STDDEV_SAMP", data, math.Sqrt(32.0 / 7), true},
		{"STD", []any{int64(3)}, 0.0, false},
		{"VAR_SAMP", []any{int64(3)}, nil, false}, // a sample of one row has no variance
		{"VARIANCE", []any{nil}, nil, false},
		{"BIT_AND", []any{int64(7), int64(5), nil, int64(13)}, int64(5), false},
		{"BIT_OR", []any{int64(1), int64(4), nil}, int64(5), false},
		{"BIT_XOR", []any{int64(3), int64(5), 1.6}, int64(4), false},
		{"BIT_OR", []any{2.5, 0.5}, int64(2), false},     // rint: halves to even
		{"BIT_AND", nil, float64(math.MaxUint64), false}, // of no rows: every bit set
		{"BIT_OR", nil, int64(0), false},
		{"BIT_XOR", []any{nil}, int64(0), false},
		{"BIT_OR", []any{int64(-1)}, float64(math.MaxUint64), false}, // two's complement, unsigned
	} {
		got := run(tt.name, tt.vals...)
		if f, ok := got.(float64); ok && tt.tolerateUs {
			if w := tt.want.(float64); math.Abs(f-w) > 1e-12 {
				t.Errorf("%s(%v) = %v, want %v", tt.name, tt.vals, got, tt.want)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("%s(%v) = %#v, want %#v", tt.name, tt.vals, got, tt.want)
		}
	}
}

// TestSumIsArith: SUM, which keeps its sum unboxed, adds as sqlvalue.Arith("+") folded over the
// values does (integers as integers until they overflow, then floats; floats stay floats), on
// seeded random columns of integers near the limits, floats, booleans and NULLs.
func TestSumIsArith(t *testing.T) {
	col := &expr{kind: exSlot, slot: 0, typ: typeInt}
	rng := rand.New(rand.NewPCG(25, 20))
	value := func() any {
		switch rng.IntN(6) {
		case 0:
			return nil
		case 1:
			return rng.Float64()*100 - 50
		case 2:
			return rng.IntN(2) == 0
		case 3:
			return int64(math.MaxInt64 - rng.Int64N(3))
		case 4:
			return int64(math.MinInt64 + rng.Int64N(3))
		}
		return rng.Int64N(1000) - 500
	}
	for i := range 2000 {
		var rows []Row
		var want any
		for range rng.IntN(6) {
			v := value()
			rows = append(rows, Row{Values: []any{v}})
			if b, ok := v.(bool); ok {
				v = sqlvalue.BoolInt(b)
			}
			switch {
			case v == nil:
			case want == nil:
				want = v
			default:
				want = sqlvalue.Arith("+", want, v)
			}
		}
		acc := (&Aggregate{Name: "SUM", args: []*expr{col}, typ: typeInt}).NewAccumulator()
		for j := range rows {
			if _, err := acc.Add(&rows[j]); err != nil {
				t.Fatal(err)
			}
		}
		if got := acc.Result(); got != want {
			var vals []any
			for _, r := range rows {
				vals = append(vals, r.Values[0])
			}
			t.Fatalf("case %d: SUM of %v: got %#v, want %#v", i, vals, got, want)
		}
	}
}
