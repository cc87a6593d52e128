package engine

import (
	"container/heap"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/airsql/airsql/sqlvalue"
	"github.com/airsql/airsql/translate"
)

// scanOp runs one scan's request through the Source and returns its rows as the pages arrive.
type scanOp struct {
	plan     *translate.Plan
	src      Source
	pages    Pages
	page     []translate.Row
	pos      int
	done     bool
	startErr error
	// batches: the plans still to run after plan (a bind join's key batches); seen: the record
	// ids returned so far when a record may be selected by two batches.
	batches []*translate.Plan
	seen    map[string]struct{}
	shown   *translate.Plan // the plan EXPLAIN shows (the one planned, before binding)
}

// bind replaces the scan's request with a bind join's batches, run one after another.
func (s *scanOp) bind(plans []*translate.Plan, dedupe bool) {
	if s.shown == nil {
		s.shown = s.plan
	}
	if len(plans) == 0 {
		s.done = true
		return
	}
	s.plan, s.batches = plans[0], plans[1:]
	if dedupe && len(plans) > 1 {
		s.seen = map[string]struct{}{}
	}
}

func (s *scanOp) Next(ctx context.Context) (translate.Row, error) {
	r, err := s.next(ctx)
	if err != nil {
		return translate.Row{}, err
	}
	return *r, nil
}

// next returns the next row where its page holds it.
func (s *scanOp) next(ctx context.Context) (*translate.Row, error) {
	for {
		if s.pos < len(s.page) {
			s.pos++
			if s.seen != nil {
				id := s.page[s.pos-1].ID
				if _, dup := s.seen[id]; dup {
					continue
				}
				s.seen[id] = struct{}{}
			}
			return &s.page[s.pos-1], nil
		}
		if s.done {
			return nil, io.EOF
		}
		if s.pages == nil {
			if err := s.start(ctx); err != nil || s.pages == nil {
				s.done = true
				if err == nil {
					err = io.EOF
				}
				return nil, err
			}
		}
		page, err := s.pages.Next(ctx)
		if err == io.EOF && len(s.batches) > 0 {
			s.pages.Close()
			s.pages, s.page, s.pos = nil, nil, 0
			s.plan, s.batches = s.batches[0], s.batches[1:]
			continue
		}
		if err != nil {
			s.Close()
			return nil, err
		}
		s.page, s.pos = page, 0
	}
}

// rowRefs is an operator that hands out its rows by reference, so that a join keeps them
// without a copy when their source holds them.
type rowRefs interface {
	// nextRef is Next by reference: r stays as it is until the statement ends when held (its
	// source's pages are HeldPages), else only until the next call.
	nextRef(ctx context.Context) (r *translate.Row, held bool, err error)
}

var (
	_ rowRefs = (*scanOp)(nil)
	_ rowRefs = (*filterOp)(nil)
)

func (s *scanOp) nextRef(ctx context.Context) (*translate.Row, bool, error) {
	r, err := s.next(ctx)
	if err != nil {
		return nil, false, err
	}
	_, held := s.pages.(HeldPages)
	return r, held, nil
}

// nextKept is Next for an operator that keeps the rows it reads (a join): the row where its
// source holds it, else a copy from arena.
func nextKept(ctx context.Context, op Operator, arena *rowArena) (*translate.Row, error) {
	if in, ok := op.(rowRefs); ok {
		r, held, err := in.nextRef(ctx)
		if err != nil || held {
			return r, err
		}
		rec := arena.row()
		*rec = *r
		return rec, nil
	}
	r, err := op.Next(ctx)
	if err != nil {
		return nil, err
	}
	rec := arena.row()
	*rec = r
	return rec, nil
}

// start sends the scan's request (once); with NoRows there is none to send.
func (s *scanOp) start(ctx context.Context) error {
	if s.pages != nil || s.done || s.plan.NoRows {
		return s.startErr
	}
	p, err := s.src.Scan(ctx, s.plan)
	if err != nil {
		s.startErr = err
		return err
	}
	s.pages = p
	return nil
}

func (s *scanOp) Close() {
	s.done = true
	s.page = nil
	if s.pages != nil {
		s.pages.Close()
	}
}

func (s *scanOp) Explain() Node {
	if s.shown != nil {
		return Node{Op: "scan", Detail: s.shown.Table.Name, Plan: s.shown}
	}
	return Node{Op: "scan", Detail: s.plan.Table.Name, Plan: s.plan}
}

// valuesOp returns rows held in memory: the one row of a SELECT without a table, or an
// information_schema table.
type valuesOp struct {
	rows []translate.Row
	pos  int
	name string
}

func (v *valuesOp) Next(context.Context) (translate.Row, error) {
	if v.pos >= len(v.rows) {
		return translate.Row{}, io.EOF
	}
	v.pos++
	return v.rows[v.pos-1], nil
}

func (v *valuesOp) Close()        { v.pos = len(v.rows) }
func (v *valuesOp) Explain() Node { return Node{Op: "values", Detail: v.name} }

// filterOp passes the rows whose condition is TRUE (not FALSE, not UNKNOWN).
type filterOp struct {
	env   *translate.Env
	input Operator
	cond  Evaluator
	what  string
	row   translate.Row
}

func (f *filterOp) Next(ctx context.Context) (translate.Row, error) {
	for {
		r, err := f.input.Next(ctx)
		if err != nil {
			return r, err
		}
		if keep, err := f.keeps(&r); err != nil || keep {
			return r, err
		}
	}
}

// keeps says whether r passes the filter. r is not changed: the condition reads the run's Env,
// which a row held by the source must not be given (it is evaluated on a copy, in a field so
// that no row escapes to the heap).
func (f *filterOp) keeps(r *translate.Row) (bool, error) {
	f.row = *r
	f.row.Env = f.env
	v, err := f.cond.Eval(&f.row)
	return v == true, err
}

func (f *filterOp) nextRef(ctx context.Context) (*translate.Row, bool, error) {
	in, ok := f.input.(rowRefs)
	if !ok {
		r, err := f.Next(ctx)
		if err != nil {
			return nil, false, err
		}
		f.row = r
		return &f.row, false, nil
	}
	for {
		r, held, err := in.nextRef(ctx)
		if err != nil {
			return nil, false, err
		}
		if keep, err := f.keeps(r); err != nil || keep {
			return r, held, err
		}
	}
}

func (f *filterOp) Close() { f.input.Close() }
func (f *filterOp) Explain() Node {
	return Node{Op: "filter", Detail: f.what, Inputs: []Node{f.input.Explain()}}
}

// projectOp computes the output values of each row (and the hidden sort keys after them).
type projectOp struct {
	env     *translate.Env
	input   Operator
	outputs []Valuer
	names   []string
	// reuse: nothing above holds rows (no sort), so one slice serves every row; each row's values
	// are read before the next Next.
	reuse bool
	buf   []any
	row   translate.Row

	// admit, when set (a top-N above), is asked with the sort keys' values (keySlots, the rest
	// nil) whether a row can enter; the other outputs are computed only for rows it admits. Of
	// 100,000 rows under ORDER BY … LIMIT 10 a few dozen enter the heap: the others cost their
	// keys only, and no allocation (MySQL too computes the select list of the rows it sends).
	admit func(keys []any) (ok bool, spare []any)
	// beyond, asked after each sort key but the last, reports that the keys computed so far
	// (the first known of keySlots) already place the row after the heap's last: the next keys
	// are not computed (ORDER BY N, Name reads Name only for rows that tie on N).
	beyond   func(keys []any, known int) bool
	keySlots []int
	isKey    []bool
	keys     []any
}

func (p *projectOp) Next(ctx context.Context) (translate.Row, error) {
	for {
		r, err := p.input.Next(ctx)
		if err != nil {
			return r, err
		}
		p.row = r // the evaluators take a pointer: to a field, so that no row escapes to the heap
		p.row.Env = p.env
		if p.admit != nil {
			if p.keys == nil {
				p.keys = make([]any, len(p.outputs))
			}
			out := false
			for j, s := range p.keySlots {
				if p.keys[s], err = p.outputs[s].Value(&p.row); err != nil {
					return translate.Row{}, err
				}
				if j < len(p.keySlots)-1 && p.beyond(p.keys, j+1) {
					out = true
					break
				}
			}
			if out {
				continue
			}
			ok, spare := p.admit(p.keys)
			if !ok {
				continue
			}
			p.buf = spare
		}
		var vals []any
		if p.admit != nil && len(p.buf) == len(p.outputs) {
			vals = p.buf // the values of the row the new one replaces in the heap
		} else if p.reuse {
			if p.buf == nil {
				p.buf = make([]any, len(p.outputs))
			}
			vals = p.buf
		} else {
			vals = make([]any, len(p.outputs))
		}
		for i, o := range p.outputs {
			if p.admit != nil && p.isKey[i] {
				vals[i] = p.keys[i]
				continue
			}
			if vals[i], err = o.Value(&p.row); err != nil {
				return translate.Row{}, err
			}
		}
		return translate.Row{Values: vals}, nil
	}
}

// admitTop makes the projection under a top-N compute the sort keys first and the other outputs
// only for rows that enter its heap.
func (p *projectOp) admitTop(t *topNOp) {
	p.isKey = make([]bool, len(p.outputs))
	t.slotOrder = make([]int, len(t.keys))
	for i, k := range t.keys {
		if !p.isKey[k.Slot] {
			p.isKey[k.Slot] = true
			p.keySlots = append(p.keySlots, k.Slot)
		}
		t.slotOrder[i] = slices.Index(p.keySlots, k.Slot)
	}
	p.admit, p.beyond = t.admits, t.beyond
	t.admitted = true
}

func (p *projectOp) Close() { p.input.Close() }
func (p *projectOp) Explain() Node {
	return Node{Op: "project", Detail: strings.Join(p.names, ", "), Inputs: []Node{p.input.Explain()}}
}

// trimOp drops the hidden sort keys after the output columns.
type trimOp struct {
	input Operator
	n     int
}

func (t *trimOp) Next(ctx context.Context) (translate.Row, error) {
	r, err := t.input.Next(ctx)
	if err == nil && len(r.Values) > t.n {
		r.Values = r.Values[:t.n:t.n]
	}
	return r, err
}

func (t *trimOp) Close()        { t.input.Close() }
func (t *trimOp) Explain() Node { return t.input.Explain() }

// aggregateOp groups its input by the keys and computes the aggregates of each group. Its rows hold
// Values = the group's key values, then the aggregate results; the groups come out ordered by their
// keys (NULL first), so that a GROUP BY without ORDER BY is deterministic. With no keys there is one
// group, even over no rows.
//
// With rollup (GROUP BY … WITH ROLLUP) each row also counts in one group per prefix of the keys
// (the keys after it NULL): its super-aggregate row comes after the rows it sums up, the grand
// total last, and Values hold the keys, the rollup level (how many keys are not rolled up), then
// the aggregates.
type aggregateOp struct {
	env    *translate.Env
	input  Operator
	keys   []Evaluator
	aggs   []AggregateFunc
	rollup bool
	budget *Budget
	query  *translate.Query // described by Explain only: a correlated subquery builds its operators per run
	// grouping names what the groups are in a RowLimitError: "" is the query's GROUP BY; a
	// correlated subquery's keyed aggregate names its subquery and key.
	grouping string

	out  [][]any // the groups' values, in order
	pos  int
	done bool
	row  translate.Row

	// what newGroup cuts new groups from
	spareGroups []group
	spareValues []any
	spareAccs   []translate.Accumulator
}

type group struct {
	keys  []any
	level int // WITH ROLLUP: keys[level:] are rolled up (NULL)
	accs  []translate.Accumulator
}

func (a *aggregateOp) Next(ctx context.Context) (translate.Row, error) {
	if !a.done {
		if err := a.run(ctx); err != nil {
			a.Close()
			return translate.Row{}, err
		}
		a.done = true
	}
	if a.pos >= len(a.out) {
		return translate.Row{}, io.EOF
	}
	a.pos++
	return translate.Row{Values: a.out[a.pos-1]}, nil
}

// newGroup starts a group with a copy of keys. Groups and their slices are cut from chunks of
// groupChunk: over many groups (GROUP BY an id, a correlated subquery's keys) that is one
// allocation per chunk instead of three per group.
func (a *aggregateOp) newGroup(keys []any) *group {
	if len(a.spareGroups) == 0 {
		a.spareGroups = make([]group, groupChunk)
	}
	g := &a.spareGroups[0]
	a.spareGroups = a.spareGroups[1:]
	g.keys = a.cutValues(len(keys))
	copy(g.keys, keys)
	if len(a.spareAccs) < len(a.aggs) {
		a.spareAccs = make([]translate.Accumulator, groupChunk*len(a.aggs))
	}
	g.accs, a.spareAccs = a.spareAccs[:len(a.aggs):len(a.aggs)], a.spareAccs[len(a.aggs):]
	for i, f := range a.aggs {
		g.accs[i] = f.NewAccumulator()
	}
	return g
}

const groupChunk = 128

// groupingName is what the groups are, for a RowLimitError.
func (a *aggregateOp) groupingName() string {
	if a.grouping != "" {
		return a.grouping
	}
	return "GROUP BY"
}

func (a *aggregateOp) cutValues(n int) []any {
	if n == 0 {
		return nil
	}
	if len(a.spareValues) < n {
		a.spareValues = make([]any, groupChunk*n)
	}
	v := a.spareValues[:n:n]
	a.spareValues = a.spareValues[n:]
	return v
}

func (a *aggregateOp) run(ctx context.Context) error {
	_, order, err := a.collect(ctx)
	if err != nil {
		return err
	}
	a.list(order)
	return nil
}

// collect reads the input and adds each row to its group(s): groups by the AppendKey of their
// keys (a keyedAggregate looks them up there), order in the order they were first seen.
func (a *aggregateOp) collect(ctx context.Context) (groups map[string]*group, order []*group, err error) {
	groups = map[string]*group{}
	var single *group
	if len(a.keys) == 0 {
		single = a.newGroup(nil)
		order = append(order, single)
	}
	var buf []byte
	scratch := make([]any, len(a.keys)) // this row's keys; copied only for a new group
	r := &a.row                         // a field, so that no row escapes to the heap
	for {
		*r, err = a.input.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		r.Env = a.env
		if single != nil {
			if err := a.add(single, r); err != nil {
				return nil, nil, err
			}
			continue
		}
		for i, k := range a.keys {
			if scratch[i], err = k.Eval(r); err != nil {
				return nil, nil, err
			}
		}
		lowest := len(a.keys) // the groups of this row: its keys, and with rollup each prefix of them
		if a.rollup {
			lowest = 0
		}
		for level := len(a.keys); level >= lowest; level-- {
			buf = buf[:0]
			if a.rollup {
				buf = sqlvalue.AppendKey(buf, int64(level))
			}
			for _, v := range scratch[:level] {
				buf = sqlvalue.AppendKey(buf, v)
			}
			g := groups[string(buf)] // no allocation: the compiler looks up []byte keys as they are
			if g == nil {
				if err := a.budget.Hold(1, a.groupingName()); err != nil {
					return nil, nil, err
				}
				g = a.newGroup(scratch[:len(a.keys)])
				clear(g.keys[level:]) // rolled up
				g.level = level
				groups[string(buf)] = g
				order = append(order, g)
			}
			if err := a.add(g, r); err != nil {
				return nil, nil, err
			}
		}
	}
	a.input.Close()
	return groups, order, nil
}

// list makes the groups' rows, ordered by their keys.
func (a *aggregateOp) list(order []*group) {
	if len(a.keys) > 0 {
		slices.SortStableFunc(order, func(x, y *group) int {
			for i := range x.keys {
				xRolled, yRolled := a.rollup && i >= x.level, a.rollup && i >= y.level
				switch {
				case xRolled && yRolled:
					return 0
				case xRolled:
					return 1 // a super-aggregate row after the rows it sums up
				case yRolled:
					return -1
				}
				if c := sqlvalue.CompareSQL(x.keys[i], y.keys[i]); c != 0 {
					return c
				}
			}
			return 0
		})
	}
	// One allocation for every group's values (each row's capped at its own), and rows made as
	// they are read: 2,000 groups are 2,000 slices and 320 KB of rows less (q6 of
	// BenchmarkDashboardReplicaQueries).
	width := len(a.keys) + len(a.aggs)
	if a.rollup {
		width++
	}
	all := make([]any, 0, len(order)*width)
	a.out = make([][]any, len(order))
	for i, g := range order {
		start := len(all)
		all = append(all, g.keys...)
		if a.rollup {
			all = append(all, int64(g.level))
		}
		for _, acc := range g.accs {
			all = append(all, acc.Result())
		}
		a.out[i] = all[start:len(all):len(all)]
	}
}

// add counts the row in the group's aggregates.
func (a *aggregateOp) add(g *group, r *translate.Row) error {
	for _, acc := range g.accs {
		held, err := acc.Add(r)
		if err != nil {
			return err
		}
		if err := a.budget.Hold(held, "an aggregate's DISTINCT values or GROUP_CONCAT items"); err != nil {
			return err
		}
	}
	return nil
}

func (a *aggregateOp) Close() {
	a.input.Close()
	a.pos = len(a.out)
	a.done = true
}

func (a *aggregateOp) Explain() Node {
	return Node{Op: "aggregate", Detail: describeAggregate(a.query), Inputs: []Node{a.input.Explain()}}
}

func describeAggregate(q *translate.Query) string {
	var parts []string
	if len(q.GroupBy) > 0 {
		keys := make([]string, len(q.GroupBy))
		for i, k := range q.GroupBy {
			keys[i] = k.String()
		}
		by := "hash GROUP BY " + strings.Join(keys, ", ")
		if q.Rollup {
			by += " WITH ROLLUP (a row per prefix of the keys, then the grand total)"
		}
		parts = append(parts, by)
	} else {
		parts = append(parts, "one group (no GROUP BY)")
	}
	if len(q.Aggregates) > 0 {
		aggs := make([]string, len(q.Aggregates))
		for i, a := range q.Aggregates {
			aggs[i] = a.SQL
		}
		parts = append(parts, "computing "+strings.Join(aggs, ", "))
	}
	return strings.Join(parts, "; ")
}

// distinctOp passes the first row of each distinct tuple of the first columns values (NULLs equal).
type distinctOp struct {
	input   Operator
	columns int
	budget  *Budget
	seen    map[string]struct{}
	buf     []byte
}

func (d *distinctOp) Next(ctx context.Context) (translate.Row, error) {
	if d.seen == nil {
		d.seen = map[string]struct{}{}
	}
	for {
		r, err := d.input.Next(ctx)
		if err != nil {
			return r, err
		}
		d.buf = d.buf[:0]
		for _, v := range r.Values[:d.columns] {
			d.buf = sqlvalue.AppendKey(d.buf, v)
		}
		if _, dup := d.seen[string(d.buf)]; dup {
			continue
		}
		if err := d.budget.Hold(1, "DISTINCT"); err != nil {
			return translate.Row{}, err
		}
		d.seen[string(d.buf)] = struct{}{}
		return r, nil
	}
}

func (d *distinctOp) Close() { d.input.Close(); d.seen = nil }
func (d *distinctOp) Explain() Node {
	return Node{Op: "distinct", Detail: "drop repeated rows (NULLs equal), keeping the first", Inputs: []Node{d.input.Explain()}}
}

func compareRows(keys []SortKey, a, b *translate.Row) int {
	for _, k := range keys {
		if c := compareKey(k, a.Values[k.Slot], b.Values[k.Slot]); c != 0 {
			return c
		}
	}
	return 0
}

// compareKey orders two values of one sort key.
func compareKey(k SortKey, va, vb any) int {
	c := sqlvalue.CompareSQL(va, vb)
	if k.Names && va != nil && vb != nil {
		c = sqlvalue.CompareNames(va, vb)
	}
	if k.Desc {
		c = -c
	}
	return c
}

func describeKeys(keys []SortKey) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.SQL
		if k.Desc {
			parts[i] += " DESC"
		}
	}
	return strings.Join(parts, ", ")
}

// sortOp reads every row, sorts them stably by the keys (NULL first ascending) and returns them.
type sortOp struct {
	input  Operator
	keys   []SortKey
	budget *Budget
	rows   []translate.Row
	pos    int
	done   bool
}

func (s *sortOp) Next(ctx context.Context) (translate.Row, error) {
	if !s.done {
		for {
			r, err := s.input.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				s.Close()
				return r, err
			}
			if err := s.budget.Hold(1, "ORDER BY (a local sort)"); err != nil {
				s.Close()
				return translate.Row{}, err
			}
			s.rows = append(s.rows, r)
		}
		s.input.Close()
		slices.SortStableFunc(s.rows, func(a, b translate.Row) int { return compareRows(s.keys, &a, &b) })
		s.done = true
	}
	if s.pos >= len(s.rows) {
		return translate.Row{}, io.EOF
	}
	s.pos++
	return s.rows[s.pos-1], nil
}

func (s *sortOp) Close() { s.input.Close(); s.done = true; s.rows, s.pos = nil, 0 }
func (s *sortOp) Explain() Node {
	return Node{Op: "sort", Detail: "sort by " + describeKeys(s.keys) + " (every row held, then sorted in SQL's order)", Inputs: []Node{s.input.Explain()}}
}

// topNOp keeps only the first n rows in the keys' order (ties in arrival order, as a stable sort):
// a bounded heap of n rows whatever the size of its input.
type topNOp struct {
	input    Operator
	keys     []SortKey
	n        int
	budget   *Budget
	admitted bool // the projection below lets in only the rows that enter the heap (admits)
	// slotOrder: the position of each key's slot among the projection's keySlots (beyond)
	slotOrder []int
	h         topHeap
	out       []translate.Row
	pos       int
	done      bool
}

type seqRow struct {
	row translate.Row
	seq int
}

// topHeap is a max-heap: its root is the row that would come last, the first to give up its place.
type topHeap struct {
	keys []SortKey
	rows []seqRow
}

func (h *topHeap) Len() int { return len(h.rows) }
func (h *topHeap) Less(i, j int) bool {
	return h.after(&h.rows[i], &h.rows[j])
}
func (h *topHeap) Swap(i, j int) { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *topHeap) Push(x any)    { h.rows = append(h.rows, x.(seqRow)) }
func (h *topHeap) Pop() any {
	x := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return x
}

// after reports whether a comes after b in the output order.
func (h *topHeap) after(a, b *seqRow) bool {
	if c := compareRows(h.keys, &a.row, &b.row); c != 0 {
		return c > 0
	}
	return a.seq > b.seq
}

// admits reports whether a row with these sort keys would enter the heap now: it is not full,
// or its last row comes after this one (a tie stays out: the row already held came first). When
// it would replace that last row, spare is the last row's values, free for the new row's.
func (t *topNOp) admits(keys []any) (ok bool, spare []any) {
	if t.n <= 0 {
		return false, nil
	}
	if len(t.h.rows) < t.n {
		return true, nil
	}
	if compareRows(t.keys, &t.h.rows[0].row, &translate.Row{Values: keys}) > 0 {
		return true, t.h.rows[0].row.Values
	}
	return false, nil
}

// beyond reports that a row whose first known key slots (the projection's keySlots) hold these
// values comes after the heap's last row whatever its other keys: it cannot enter a full heap
// (admits would say no).
func (t *topNOp) beyond(keys []any, known int) bool {
	if t.n <= 0 || len(t.h.rows) < t.n {
		return false
	}
	last := &t.h.rows[0].row
	for i, k := range t.keys {
		if t.slotOrder[i] >= known {
			return false
		}
		if c := compareKey(k, last.Values[k.Slot], keys[k.Slot]); c != 0 {
			return c < 0
		}
	}
	return false
}

func (t *topNOp) Next(ctx context.Context) (translate.Row, error) {
	if !t.done {
		t.h.keys = t.keys
		seq := 0
		for {
			r, err := t.input.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Close()
				return r, err
			}
			if t.n <= 0 {
				continue
			}
			item := seqRow{row: r, seq: seq}
			seq++
			if len(t.h.rows) < t.n {
				if err := t.budget.Hold(1, "ORDER BY … LIMIT (the top-N heap)"); err != nil {
					t.Close()
					return translate.Row{}, err
				}
				heap.Push(&t.h, item)
				continue
			}
			// A row the projection admitted (admits) replaces the last one: its values were
			// written into the last row's, which no longer compares.
			if t.admitted || t.h.after(&t.h.rows[0], &item) {
				t.h.rows[0] = item
				heap.Fix(&t.h, 0)
			}
		}
		t.input.Close()
		t.out = make([]translate.Row, len(t.h.rows))
		for i := len(t.out) - 1; i >= 0; i-- {
			t.out[i] = heap.Pop(&t.h).(seqRow).row
		}
		t.done = true
	}
	if t.pos >= len(t.out) {
		return translate.Row{}, io.EOF
	}
	t.pos++
	return t.out[t.pos-1], nil
}

func (t *topNOp) Close() { t.input.Close(); t.done = true; t.out, t.pos, t.h.rows = nil, 0, nil }
func (t *topNOp) Explain() Node {
	return Node{Op: "top-N", Detail: fmt.Sprintf("sort by %s, keeping the first %d rows in a heap", describeKeys(t.keys), t.n),
		Inputs: []Node{t.input.Explain()}}
}

// limitOp skips offset rows, then returns at most limit (-1: all) and closes its input at once.
type limitOp struct {
	input         Operator
	offset, limit int
	skipped, sent int
}

func (l *limitOp) Next(ctx context.Context) (translate.Row, error) {
	for l.skipped < l.offset {
		if _, err := l.input.Next(ctx); err != nil {
			return translate.Row{}, err
		}
		l.skipped++
	}
	if l.limit >= 0 && l.sent >= l.limit {
		l.input.Close() // stop fetching pages nobody will read
		return translate.Row{}, io.EOF
	}
	r, err := l.input.Next(ctx)
	if err != nil {
		return r, err
	}
	l.sent++
	return r, nil
}

func (l *limitOp) Close() { l.input.Close() }
func (l *limitOp) Explain() Node {
	var d []string
	if l.offset > 0 {
		d = append(d, "skip "+strconv.Itoa(l.offset)+" rows (OFFSET)")
	}
	if l.limit >= 0 {
		d = append(d, "stop after "+strconv.Itoa(l.limit)+" rows (LIMIT)")
	}
	return Node{Op: "limit", Detail: strings.Join(d, ", then "), Inputs: []Node{l.input.Explain()}}
}

// Start sends the request of every scan in the tree now, rather than at the first Next, so that
// the first page is on its way while the caller does other work (database/sql returns from Query).
// A failure to start is returned by the first Next as well.
func Start(ctx context.Context, op Operator) {
	for op != nil {
		switch o := op.(type) {
		case *scanOp:
			o.start(ctx)
			return
		case *filterOp:
			op = o.input
		case *projectOp:
			op = o.input
		case *trimOp:
			op = o.input
		case *aggregateOp:
			op = o.input
		case *distinctOp:
			op = o.input
		case *sortOp:
			op = o.input
		case *topNOp:
			op = o.input
		case *limitOp:
			op = o.input
		case *derivedOp:
			op = o.input
		case *unionOp:
			for _, b := range o.branches {
				Start(ctx, b)
			}
			o.started = true
			return
		case *setOp:
			Start(ctx, o.first)
			Start(ctx, o.second)
			o.started = true
			return
		default:
			return
		}
	}
}
