package translate

import (
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/airsql/airsql/sqlvalue"
)

// GroupConcatMaxLen is the longest GROUP_CONCAT result in bytes; a longer one is cut there, as MySQL
// cuts at group_concat_max_len. MariaDB's default (1 MiB) rather than MySQL 8's 1,024 bytes: a
// report rarely wants its lists silently cut at 1 KB, and the bound still keeps one group's text
// from growing without limit.
const GroupConcatMaxLen = 1 << 20

// Aggregate is one aggregate call of a SELECT (COUNT, SUM, AVG, MIN, MAX, GROUP_CONCAT, ANY_VALUE),
// its arguments compiled on the rows the scan returns. NewAccumulator starts one group's state.
type Aggregate struct {
	Name     string // COUNT, SUM, AVG, MIN, MAX, GROUP_CONCAT, ANY_VALUE
	Distinct bool
	SQL      string // as written, for EXPLAIN and messages

	star      bool    // COUNT(*)
	args      []*expr // on scan rows
	order     []orderKey
	separator string
	typ       sqlType
}

// Accumulator is the state of one aggregate over one group. Add reads the aggregate's arguments from
// a row and returns how many values it now holds that it did not hold before (a new DISTINCT value,
// a GROUP_CONCAT item), so that the engine counts them against its row limit.
type Accumulator interface {
	Add(r *Row) (held int, err error)
	Result() any
}

// NewAccumulator returns the empty state of the aggregate for one group.
func (a *Aggregate) NewAccumulator() Accumulator {
	var acc Accumulator
	switch a.Name {
	case "COUNT":
		acc = &countAcc{a: a}
	case "SUM", "AVG":
		acc = &sumAcc{a: a}
	case "MIN", "MAX":
		acc = &extremeAcc{a: a, max: a.Name == "MAX"}
	case "GROUP_CONCAT":
		return &concatAcc{a: a, seen: distinctSet(a.Distinct)}
	case "JSON_ARRAYAGG":
		return &jsonArrayAcc{a: a}
	case "JSON_OBJECTAGG":
		return &jsonObjectAcc{a: a}
	case "STD", "STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP":
		acc = &varianceAcc{a: a}
	case "BIT_AND", "BIT_OR", "BIT_XOR":
		acc = &bitAcc{a: a}
		if a.Name == "BIT_AND" {
			acc = &bitAcc{a: a, bits: math.MaxUint64}
		}
	default: // ANY_VALUE
		acc = &anyAcc{a: a}
	}
	if a.Distinct {
		return &distinctAcc{a: a, inner: acc, seen: map[string]struct{}{}}
	}
	return acc
}

func distinctSet(on bool) map[string]struct{} {
	if on {
		return map[string]struct{}{}
	}
	return nil
}

// argValues evaluates the arguments; ok is false when one of them is NULL (aggregates skip the row).
func (a *Aggregate) argValues(r *Row, into []any) ([]any, bool, error) {
	into = into[:0]
	for _, x := range a.args {
		v, err := x.eval(r)
		if err != nil {
			return nil, false, err
		}
		if v == nil {
			return into, false, nil
		}
		into = append(into, v)
	}
	return into, true, nil
}

// distinctAcc passes each distinct tuple of argument values to the aggregate once.
type distinctAcc struct {
	a     *Aggregate
	inner Accumulator
	seen  map[string]struct{}
	buf   []any
	key   []byte
}

func (d *distinctAcc) Add(r *Row) (int, error) {
	vals, ok, err := d.a.argValues(r, d.buf)
	d.buf = vals
	if err != nil || !ok {
		return 0, err
	}
	d.key = d.key[:0]
	for _, v := range vals {
		d.key = sqlvalue.AppendKey(d.key, v)
	}
	if _, dup := d.seen[string(d.key)]; dup {
		return 0, nil
	}
	d.seen[string(d.key)] = struct{}{}
	if _, err := d.inner.Add(r); err != nil {
		return 0, err
	}
	return 1, nil
}

func (d *distinctAcc) Result() any { return d.inner.Result() }

type countAcc struct {
	a   *Aggregate
	n   int64
	buf []any
}

func (c *countAcc) Add(r *Row) (int, error) {
	if !c.a.star {
		vals, ok, err := c.a.argValues(r, c.buf)
		c.buf = vals
		if err != nil || !ok {
			return 0, err
		}
	}
	c.n++
	return 0, nil
}

func (c *countAcc) Result() any { return c.n }

// sumAcc is SUM and AVG: integers add as integers (a float once they overflow), with arith's rules.
type sumAcc struct {
	a   *Aggregate
	sum any
	n   int64
	// floating: the sum is a float, f; integral: an integer, i (sum is unset in both cases): a
	// number kept unboxed costs no allocation per row (BenchmarkDashboardReplicaQueries).
	floating, integral bool
	f                  float64
	i                  int64
}

func (s *sumAcc) Add(r *Row) (int, error) {
	v, err := s.a.args[0].eval(r)
	if err != nil || v == nil {
		return 0, err
	}
	if b, ok := v.(bool); ok {
		v = sqlvalue.BoolInt(b)
	}
	switch {
	case s.floating:
		s.f += sqlvalue.FloatOf(v) // arith's float + anything: once a float, always one
	case s.integral:
		if iv, ok := v.(int64); ok {
			if sum := s.i + iv; (sum > s.i) == (iv > 0) { // no overflow (as arith checks)
				s.i = sum
				break
			}
		}
		s.integral, s.sum = false, sqlvalue.Arith("+", s.i, v) // arith decides what else
	case s.sum == nil:
		s.sum = v
	default:
		s.sum = sqlvalue.Arith("+", s.sum, v)
	}
	switch sum := s.sum.(type) {
	case float64:
		s.floating, s.f, s.sum = true, sum, nil
	case int64:
		s.integral, s.i, s.sum = true, sum, nil
	}
	s.n++
	return 0, nil
}

// total is the sum so far.
func (s *sumAcc) total() any {
	switch {
	case s.floating:
		return s.f
	case s.integral:
		return s.i
	}
	return s.sum
}

func (s *sumAcc) Result() any {
	if s.n == 0 {
		return nil // SUM and AVG of no rows are NULL
	}
	if s.a.Name == "AVG" {
		return average(s.total(), s.n)
	}
	if s.a.typ == typeFloat {
		return sqlvalue.FloatOf(s.total())
	}
	return s.total()
}

// avgScale is the number of decimals of MySQL's AVG of integers: a DECIMAL with
// div_precision_increment (4) more digits than its argument's (0).
const avgScale = 4

// average is AVG's result over n values summing to sum. The average of integers is MySQL's: the
// exact quotient rounded half away from zero to avgScale decimals (AVG of 1, 2 and 2 is 1.6667),
// given as the FLOAT64 nearest that decimal; the average of FLOAT64 values is a FLOAT64 division.
func average(sum any, n int64) any {
	i, ok := sum.(int64)
	if !ok {
		return sqlvalue.FloatOf(sum) / float64(n)
	}
	unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(avgScale), nil)
	scaled := new(big.Int).Mul(big.NewInt(i), unit)
	q, r := new(big.Int).QuoRem(scaled, big.NewInt(n), new(big.Int))
	// |r|/n >= 1/2 rounds away from zero (QuoRem truncates toward zero; r has sum's sign).
	if new(big.Int).Mul(new(big.Int).Abs(r), big.NewInt(2)).Cmp(big.NewInt(n)) >= 0 {
		q.Add(q, big.NewInt(int64(scaled.Sign())))
	}
	f, _ := new(big.Rat).SetFrac(q, unit).Float64()
	return f
}

// varianceAcc is the STD and VAR families: MySQL's running mean and sum of squared differences
// over DOUBLE values (variance_fp_recurrence_next), then the population (STD, STDDEV, STDDEV_POP,
// VARIANCE, VAR_POP) or sample (STDDEV_SAMP, VAR_SAMP) variance, or its square root. NULL of no
// rows, and the sample forms of one row.
type varianceAcc struct {
	a       *Aggregate
	mean, s float64
	n       int64
}

func (x *varianceAcc) Add(r *Row) (int, error) {
	v, err := x.a.args[0].eval(r)
	if err != nil || v == nil {
		return 0, err
	}
	f, _ := sqlvalue.ToFloat(v)
	x.n++
	if x.n == 1 {
		x.mean, x.s = f, 0
		return 0, nil
	}
	prev := x.mean
	x.mean = prev + (f-prev)/float64(x.n)
	x.s += (f - prev) * (f - x.mean)
	return 0, nil
}

func (x *varianceAcc) Result() any {
	sample := strings.HasSuffix(x.a.Name, "_SAMP")
	if x.n == 0 || sample && x.n == 1 {
		return nil
	}
	d := float64(x.n)
	if sample {
		d--
	}
	v := x.s / d
	if strings.HasPrefix(x.a.Name, "STD") {
		return math.Sqrt(v)
	}
	return v
}

// bitAcc is BIT_AND, BIT_OR and BIT_XOR over 64-bit unsigned values (a negative number is its
// two's complement, a DOUBLE rounds half to even as C's rint), as MySQL. The result is an INT64, or a FLOAT64 above the
// int64 range, as CAST(… AS UNSIGNED).
type bitAcc struct {
	a    *Aggregate
	bits uint64
}

func (x *bitAcc) Add(r *Row) (int, error) {
	v, err := x.a.args[0].eval(r)
	if err != nil || v == nil {
		return 0, err
	}
	var u uint64
	switch f, isFloat := v.(float64); {
	case isFloat && f >= math.MaxInt64:
		u = uint64(math.Min(f, math.MaxUint64))
	case isFloat:
		u = uint64(sqlvalue.Saturate(math.RoundToEven(f))) // a DOUBLE's rint: 2.5 is 2
	default:
		u = uint64(sqlvalue.ToInt(v))
	}
	switch x.a.Name {
	case "BIT_AND":
		x.bits &= u
	case "BIT_OR":
		x.bits |= u
	default:
		x.bits ^= u
	}
	return 0, nil
}

func (x *bitAcc) Result() any {
	if x.bits > math.MaxInt64 {
		return float64(x.bits)
	}
	return int64(x.bits)
}

type extremeAcc struct {
	a   *Aggregate
	max bool
	v   any
}

func (m *extremeAcc) Add(r *Row) (int, error) {
	v, err := m.a.args[0].eval(r)
	if err != nil || v == nil {
		return 0, err
	}
	if m.v == nil {
		m.v = v
		return 0, nil
	}
	c := sqlvalue.Compare(v, m.v)
	if (m.max && c > 0) || (!m.max && c < 0) {
		m.v = v
	}
	return 0, nil
}

// Result is the value in the aggregate's type: a checkbox's or a condition's bool as the BIGINT
// MIN and MAX give (valueType), which JSON functions write as a number.
func (m *extremeAcc) Result() any { return sqlvalue.Convert(m.v, m.a.args[0].typ, m.a.typ) }

type anyAcc struct {
	a    *Aggregate
	v    any
	seen bool
}

func (x *anyAcc) Add(r *Row) (int, error) {
	if x.seen {
		return 0, nil
	}
	v, err := x.a.args[0].eval(r)
	if err != nil {
		return 0, err
	}
	x.v, x.seen = v, true
	return 0, nil
}

func (x *anyAcc) Result() any { return sqlvalue.Convert(x.v, x.a.args[0].typ, x.a.typ) }

// concatAcc is GROUP_CONCAT: the rows' texts in the ORDER BY given (else in arrival order), joined by
// the separator, cut at GroupConcatMaxLen.
type concatAcc struct {
	a     *Aggregate
	seen  map[string]struct{} // DISTINCT: the texts already held
	items []concatItem
	buf   []any
}

type concatItem struct {
	text string
	keys []any
}

func (c *concatAcc) Add(r *Row) (int, error) {
	vals, ok, err := c.a.argValues(r, c.buf)
	c.buf = vals
	if err != nil || !ok {
		return 0, err
	}
	var b strings.Builder
	for i, v := range vals {
		b.WriteString(valueText(c.a.args[i], v))
	}
	text := b.String()
	if c.seen != nil {
		key := string(sqlvalue.AppendKey(nil, text))
		if _, dup := c.seen[key]; dup {
			return 0, nil
		}
		c.seen[key] = struct{}{}
	}
	item := concatItem{text: text}
	if c.seen != nil && len(c.a.order) == 0 {
		// DISTINCT without ORDER BY comes out in the order of the values, as MySQL's and MariaDB's
		// (which keep the distinct values in a sorted tree) do.
		item.keys = slices.Clone(vals)
	}
	if len(c.a.order) > 0 {
		item.keys = make([]any, len(c.a.order))
		for i, k := range c.a.order {
			if item.keys[i], err = k.e.eval(r); err != nil {
				return 0, err
			}
		}
	}
	c.items = append(c.items, item)
	return 1, nil
}

func (c *concatAcc) Result() any {
	if len(c.items) == 0 {
		return nil
	}
	switch {
	case len(c.a.order) > 0:
		slices.SortStableFunc(c.items, func(x, y concatItem) int {
			for i, k := range c.a.order {
				if d := k.compare(x.keys[i], y.keys[i]); d != 0 {
					return d
				}
			}
			return 0
		})
	case c.seen != nil:
		slices.SortStableFunc(c.items, func(x, y concatItem) int {
			for i := range x.keys {
				if d := sqlvalue.CompareSQL(x.keys[i], y.keys[i]); d != 0 {
					return d
				}
			}
			return 0
		})
	}
	var b strings.Builder
	for i, it := range c.items {
		if i > 0 {
			b.WriteString(c.a.separator)
		}
		b.WriteString(it.text)
		if b.Len() >= GroupConcatMaxLen {
			break
		}
	}
	s := b.String()
	if len(s) > GroupConcatMaxLen {
		s = s[:GroupConcatMaxLen]
	}
	return s
}
