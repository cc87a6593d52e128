package engine

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/airsql/airsql/sqlvalue"
	"github.com/airsql/airsql/translate"
)

// subqueryOp runs a statement's uncorrelated subqueries (and decorrelated EXISTS) once, before its
// first row, and hands their rows to translate, whose expressions then read them.
type subqueryOp struct {
	env   *translate.Env
	input Operator
	subs  []*translate.Subquery
	ops   []Operator
	ran   bool
	scan  *scanOp // the statement's scan, which an IN subquery's values may narrow
	sizer Sizer
	bound string

	correlated []*correlated
	skipped    string          // a lookup left unrun, for EXPLAIN
	ctx        context.Context // the context of the statement's current Next, for the correlated runs
}

func (s *subqueryOp) Next(ctx context.Context) (translate.Row, error) {
	s.ctx = ctx
	if !s.ran {
		s.ran = true
		for i, op := range s.ops {
			rows, err := Drain(ctx, op)
			if err != nil {
				return translate.Row{}, err
			}
			if err := s.env.SetRows(s.subs[i], rows); err != nil {
				return translate.Row{}, err
			}
		}
		s.bind()
	}
	return s.input.Next(ctx)
}

func (s *subqueryOp) Close() {
	s.input.Close()
	for _, op := range s.ops {
		op.Close()
	}
}

func (s *subqueryOp) Explain() Node {
	detail := "run first, once each"
	for _, sq := range s.subs {
		if sq.Bind == nil || s.scan == nil || !sq.Bind.Narrows(s.scan.plan) {
			continue
		}
		if sq.Bind.Mode == "link" {
			detail += "; the primary values of the records of " + sq.SQL + " are pushed into the table's request as OR(FIND('primary value', " +
				sq.Bind.Field() + "&''), …) (a superset: a link reads as its records' primary values) in batches when that takes fewer requests than a scan"
		} else {
			detail += "; the values of " + sq.SQL + " are pushed into the table's request as OR(" + sq.Bind.Field() + "=…, …) in batches when that takes fewer requests than a scan"
		}
		break
	}
	if s.bound != "" {
		detail += " (" + s.bound + ")"
	}
	if s.skipped != "" {
		detail += " (" + s.skipped + ")"
	}
	n := Node{Op: "subqueries", Detail: detail, Inputs: []Node{s.input.Explain()}}
	for i, op := range s.ops {
		sub := op.Explain()
		sub.Detail = s.subs[i].SQL + ": " + sub.Detail
		n.Inputs = append(n.Inputs, sub)
	}
	for _, c := range s.correlated {
		n.Inputs = append(n.Inputs, c.explain())
	}
	if len(s.ops) == 0 && len(s.correlated) > 0 {
		n.Detail = "correlated: run per distinct value of the outer columns they read, with a cache"
	}
	return n
}

// bind pushes the values of the first IN subquery marked for it into the statement's scan, in
// batches, when that takes fewer requests than the scan (or the values fit in one request).
func (s *subqueryOp) bind() {
	if s.scan == nil || s.scan.pages != nil {
		return
	}
	for _, sq := range s.subs {
		if sq.Bind == nil || !sq.Bind.Narrows(s.scan.plan) {
			continue
		}
		vals, writable := s.env.BindValues(sq)
		if !writable {
			continue
		}
		if len(vals) == 0 {
			s.scan.bind(nil, false) // x IN (an empty set) is never true: no request
			s.bound = "no values: the table is not read"
			return
		}
		formulas, ok := sq.Bind.Formulas(vals, translate.BindBatchChars)
		if !ok {
			continue
		}
		// The values are distinct: taken as read from as many rows of the subquery's table, a
		// key's domain is that table (a foreign key into it).
		cost := estimateBind(s.sizer, sq.Bind.Mode, len(vals), len(formulas), s.scan.plan, sq.Query.Scan, len(vals), s.scan.plan.Table.Name, sq.SQL)
		if !cost.push() {
			s.bound = cost.String()
			continue
		}
		plans := make([]*translate.Plan, len(formulas))
		for i, f := range formulas {
			plans[i] = s.scan.plan.WithFormula(f)
		}
		s.scan.bind(plans, !sq.Bind.Exact)
		s.bound = cost.String()
		return
	}
}

// withSubqueries builds the subqueries' operators around the statement's: the uncorrelated ones
// run first, the correlated ones get their runner.
func withSubqueries(op Operator, q *translate.Query, opts Options) (Operator, error) {
	if len(q.Subqueries) == 0 {
		return op, nil
	}
	s := &subqueryOp{env: opts.env, input: op}
	if q.Scan != nil && opts.Source != nil && !opts.NoBind {
		s.scan = findScan(op, q.Scan)
		s.sizer, _ = opts.Source.(Sizer)
	}
	var kept *sharedKept
	for _, sq := range q.Subqueries {
		if sq.Correlated() {
			if kept == nil {
				kept = newSharedKept(q.Subqueries, opts)
			}
			c, err := newCorrelated(sq, opts, s, kept)
			if err != nil {
				return nil, err
			}
			s.correlated = append(s.correlated, c)
			continue
		}
		if sq.BindOnly() {
			// A lookup that only narrows the scan: worth its request when the scan may take
			// more than two (its size unknown, or known to be larger). A subquery's lookup
			// (another scan) is not run: subqueries run once, before their scans are known.
			if s.scan == nil || !sq.Bind.Narrows(s.scan.plan) {
				continue
			}
			if s.sizer != nil {
				if n, known := s.sizer.Requests(s.scan.plan); known && n <= 2 {
					s.skipped = fmt.Sprintf("%s not run: a scan of %s takes %d request(s)", sq.SQL, s.scan.plan.Table.Name, n)
					continue
				}
			}
		}
		sub, err := Build(sq.Query, opts)
		if err != nil {
			return nil, err
		}
		s.subs = append(s.subs, sq)
		s.ops = append(s.ops, sub)
	}
	return s, nil
}

// findScan finds the scan of plan under op.
func findScan(op Operator, plan *translate.Plan) *scanOp {
	switch o := op.(type) {
	case *scanOp:
		if o.plan == plan {
			return o
		}
	case *filterOp:
		return findScan(o.input, plan)
	case *projectOp:
		return findScan(o.input, plan)
	case *aggregateOp:
		return findScan(o.input, plan)
	case *distinctOp:
		return findScan(o.input, plan)
	case *sortOp:
		return findScan(o.input, plan)
	case *topNOp:
		return findScan(o.input, plan)
	case *limitOp:
		return findScan(o.input, plan)
	case *trimOp:
		return findScan(o.input, plan)
	}
	return nil
}

// correlated runs a correlated subquery for the outer values translate sets. Each table it reads is
// requested once, with the conditions that do not read the outer query pushed, and its rows kept
// (counted against maxRows); each run evaluates the rest of the subquery — the correlated
// conditions, aggregates, ORDER BY, LIMIT — on the kept rows in memory. When the subquery's WHERE
// holds inner = outer, the rows are indexed by inner once and a run reads only the rows of its
// outer value. translate caches the result per distinct outer values.
type correlated struct {
	sq    *translate.Subquery
	opts  Options
	memo  *memoSource
	stmt  *subqueryOp
	keyed *keyedAggregate // an aggregate over the rows of one key: computed for every key at once
	runs  int
}

func newCorrelated(sq *translate.Subquery, opts Options, stmt *subqueryOp, kept *sharedKept) (*correlated, error) {
	if opts.Source == nil && (sq.Query.Scan != nil && !sq.Query.Scan.Table.Local || sq.Query.Join != nil) {
		return nil, fmt.Errorf("engine: no source to run the correlated subquery %s", sq.SQL)
	}
	limit := kept.budget.Limit
	m := &memoSource{env: opts.env, src: opts.Source, sq: sq, kept: kept, what: "the rows kept for the correlated subquery " + sq.SQL}
	c := &correlated{sq: sq, opts: opts, memo: m, stmt: stmt}
	if key, rest, ok := sq.KeyedAggregate(); ok {
		c.keyed = &keyedAggregate{key: key, rest: rest}
	} else if idx := sq.Index(); len(idx) > 0 && sq.Query.Scan != nil {
		m.indexed, m.key = sq.Query.Scan, &idx[0]
	}
	c.opts.Source, c.opts.NoBind = m, true
	if c.keyed != nil {
		limit = -1 // its groups are the cache
	}
	opts.env.SetRunner(sq, c.run, limit)
	return c, nil
}

// run is the subquery's rows for the outer values being evaluated.
func (c *correlated) run() ([]translate.Row, error) {
	ctx := c.stmt.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	c.runs++
	if c.keyed != nil {
		return c.keyed.run(ctx, c)
	}
	op, err := Build(c.sq.Query, c.opts)
	if err != nil {
		return nil, err
	}
	return Drain(ctx, op)
}

// keyedAggregate runs a correlated aggregate subquery whose result depends on the outer row only
// through one key (translate's KeyedAggregate): its kept rows are aggregated per value of the key
// in one pass — GROUP BY the key — the first time it runs; then each outer value takes its group's
// aggregate row (the aggregates over no rows when it has none) through the rest of the subquery,
// HAVING and the select list, built once: those steps go row by row and hold nothing between
// rows, so the tail is re-run by handing its feed the next row. Per outer value nothing reads the
// kept rows again and no operator is built.
type keyedAggregate struct {
	key    translate.CorrelationKey
	rest   *translate.Expr   // the rest of the WHERE, checked once per kept row; nil: none
	groups map[string]*group // by the AppendKey of a key value (aggregateOp.collect): its rows' aggregates
	none   *group            // the aggregates over no rows (COUNT 0, the others NULL)
	feed   *valuesOp         // the tail's input: the one aggregate row of a run
	tail   Operator
	keyBuf []byte          // a lookup's key, reused
	aggs   []any           // the aggregate row of a run, reused
	out    []translate.Row // the rows of a run, reused
}

func (k *keyedAggregate) run(ctx context.Context, c *correlated) ([]translate.Row, error) {
	if k.groups == nil {
		if err := k.aggregate(ctx, c); err != nil {
			return nil, err
		}
	}
	g := k.none
	if outer := c.opts.env.OuterValues(c.sq, k.key); len(outer) == 1 { // NULL matches no row
		k.keyBuf = sqlvalue.AppendKey(k.keyBuf[:0], outer[0])
		if found := k.groups[string(k.keyBuf)]; found != nil {
			g = found
		}
	}
	// The rows of a run are read before the next (Env.SetRunner): its buffers are reused.
	k.aggs = k.aggs[:0]
	for _, acc := range g.accs {
		k.aggs = append(k.aggs, acc.Result())
	}
	k.feed.rows[0], k.feed.pos = translate.Row{Values: k.aggs}, 0
	k.out = k.out[:0]
	for {
		r, err := k.tail.Next(ctx)
		if err == io.EOF {
			return k.out, nil
		}
		if err != nil {
			return nil, err
		}
		r.Values = slices.Clone(r.Values)
		k.out = append(k.out, r)
	}
}

// aggregate groups the kept rows that pass the rest of the WHERE by the key, each group counted
// against the statement's budget of kept rows, and builds the tail.
func (k *keyedAggregate) aggregate(ctx context.Context, c *correlated) error {
	q := c.sq.Query
	var in Operator = &scanOp{plan: q.Scan, src: c.memo}
	if k.rest != nil {
		in = &filterOp{env: c.opts.env, input: in, cond: k.rest, what: "WHERE " + k.rest.String()}
	}
	aggs := make([]AggregateFunc, len(q.Aggregates))
	for i, a := range q.Aggregates {
		aggs[i] = a
	}
	byKey := &aggregateOp{env: c.opts.env, input: in, keys: []Evaluator{groupValue{k.key}}, aggs: aggs, budget: c.memo.kept.budget, query: q,
		grouping: "the groups of the correlated subquery " + c.sq.SQL + " (grouped by " + k.key.SQL + ")"}
	defer byKey.Close()
	groups, _, err := byKey.collect(ctx)
	if err != nil {
		return err
	}
	k.feed = &valuesOp{rows: make([]translate.Row, 1), name: "the aggregates of the rows of the outer value's key"}
	k.tail = above(k.feed, q, c.opts, c.memo.kept.budget, true)
	k.groups, k.none = groups, byKey.newGroup(nil)
	return nil
}

// groupValue groups the kept rows by a correlation key (translate.CorrelationKey.GroupValue).
type groupValue struct{ key translate.CorrelationKey }

func (g groupValue) Eval(r *translate.Row) (any, error) { return g.key.GroupValue(r) }

func (c *correlated) explain() Node {
	detail := c.sq.SQL + ": correlated (reads " + c.sq.OuterColumns() + " of the outer query): its table is read once, " +
		"without the conditions on the outer query, and kept; "
	if c.keyed != nil {
		detail += "nothing but " + c.keyed.key.SQL + " reads the outer query, so the kept rows are aggregated per value of its " +
			"inner side in one pass (as GROUP BY), and each distinct value of " + c.sq.OuterColumns() + " takes its group's aggregates"
	} else {
		detail += "the rest runs in memory per distinct value of " + c.sq.OuterColumns() + ", cached"
	}
	if c.memo.key != nil {
		detail += "; the kept rows are indexed by " + c.memo.key.SQL
	}
	n := Node{Op: "correlated subquery", Detail: detail}
	if op, err := Build(c.sq.Query, c.opts); err == nil {
		n.Inputs = []Node{op.Explain()}
	}
	return n
}

// sharedKept holds the rows kept for the correlated subqueries of one statement, by request: two
// subqueries that send the same request (their fields made the same, newSharedKept) share one
// read, and every kept row counts once against maxRows.
type sharedKept struct {
	budget *Budget
	pages  map[string][][]translate.Row // the pages as read: kept without copying a row
}

// newSharedKept widens the fields of the correlated subqueries' requests that differ only in
// their fields to the union of them, so that one read serves them all.
func newSharedKept(subs []*translate.Subquery, opts Options) *sharedKept {
	limit := opts.MaxRows
	if limit <= 0 {
		limit = DefaultMaxRows
	}
	groups := map[string][]*translate.Plan{}
	var order []string
	for _, sq := range subs {
		if !sq.Correlated() {
			continue
		}
		var plans []*translate.Plan
		if q := sq.Query; q.Scan != nil && q.Scan.Table.Derived == nil && !q.Scan.Table.Local {
			plans = append(plans, q.Scan)
		} else if q.Join != nil {
			for _, jt := range q.Join.Tables {
				if jt.Plan.Table.Derived == nil && !jt.Plan.Table.Local {
					plans = append(plans, jt.Plan)
				}
			}
		}
		for _, p := range plans {
			k := requestKey(p, false)
			if _, seen := groups[k]; !seen {
				order = append(order, k)
			}
			groups[k] = append(groups[k], p)
		}
	}
	for _, k := range order {
		plans := groups[k]
		if len(plans) < 2 {
			continue
		}
		need, all := map[string]bool{}, false
		for _, p := range plans {
			all = all || p.Request.Fields == nil
			for _, f := range p.Request.Fields {
				need[f] = true
			}
		}
		var fields []string
		if !all {
			for _, f := range plans[0].Table.Fields {
				if need[f.Name] {
					fields = append(fields, f.Name)
				}
			}
		}
		for _, p := range plans {
			p.Request.Fields = fields
		}
	}
	return &sharedKept{budget: &Budget{Limit: limit}, pages: map[string][][]translate.Row{}}
}

// requestKey identifies a plan's request: its table, view, formula, sort, maxRecords, record ids
// and (withFields) fields; a plan split on a NULL sort key is its own.
func requestKey(p *translate.Plan, withFields bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%q\x00%q\x00%v\x00%d\x00%q\x00%v", p.Table.ID+"/"+p.Table.Name, p.Request.View, p.Request.Formula,
		p.Request.Sort, p.Request.MaxRecords, p.RecordIDs, p.NoRows)
	if withFields {
		fmt.Fprintf(&b, "\x00%q\x00%v", p.Request.Fields, p.Request.Fields == nil)
	}
	if p.Split != nil {
		fmt.Fprintf(&b, "\x00%p", p)
	}
	return b.String()
}

// memoSource answers each plan of a correlated subquery from the rows of its one request, read
// the first time (shared by the statement's correlated subqueries); the indexed plan answers with
// the rows of the outer value only.
type memoSource struct {
	env  *translate.Env
	src  Source
	sq   *translate.Subquery
	kept *sharedKept
	what string

	indexed *translate.Plan
	key     *translate.CorrelationKey
	index   map[string][2]int32 // key value → its rows in grouped, from and to
	grouped []translate.Row     // the rows of indexed grouped by key value, in their order within a key
	origin  []int32             // the position among the rows of indexed of each row of grouped
	keyBuf  []byte              // a lookup's key, reused

	keys map[*translate.Plan]string // requestKey of each plan the runs scan: the same plans every run
}

func (m *memoSource) Scan(ctx context.Context, plan *translate.Plan) (Pages, error) {
	key, ok := m.keys[plan]
	if !ok {
		if m.keys == nil {
			m.keys = map[*translate.Plan]string{}
		}
		key = requestKey(plan, true)
		m.keys[plan] = key
	}
	pages, ok := m.kept.pages[key]
	if !ok {
		var err error
		if pages, err = m.read(ctx, plan); err != nil {
			return nil, err
		}
		m.kept.pages[key] = pages
	}
	if plan == m.indexed {
		rows, err := m.lookup(pages)
		if err != nil {
			return nil, err
		}
		pages = [][]translate.Row{rows}
	}
	return &keptPages{pages: pages}, nil
}

// Requests: the requests of a plan, as the source knows them (none once its rows are kept).
func (m *memoSource) Requests(plan *translate.Plan) (int, bool) {
	if _, ok := m.kept.pages[requestKey(plan, true)]; ok {
		return 0, true
	}
	if sz, ok := m.src.(Sizer); ok {
		return sz.Requests(plan)
	}
	return 0, false
}

// Records: the size of plan's table, as the source knows it.
func (m *memoSource) Records(plan *translate.Plan) (int, int, bool) {
	if sz, ok := m.src.(Sizer); ok {
		return sz.Records(plan)
	}
	return 0, 0, false
}

func (m *memoSource) read(ctx context.Context, plan *translate.Plan) ([][]translate.Row, error) {
	if m.src == nil {
		return nil, fmt.Errorf("engine: no source to scan %s", plan.Table.Name)
	}
	pages, err := m.src.Scan(ctx, plan)
	if err != nil {
		return nil, err
	}
	defer pages.Close()
	var read [][]translate.Row
	for {
		page, err := pages.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := m.kept.budget.Hold(len(page), m.what+" (the rows of "+plan.Table.Name+")"); err != nil {
			return nil, err
		}
		read = append(read, page)
	}
	return read, nil
}

// lookup is the kept rows whose key matches the outer value, in their order. The index holds the
// kept rows grouped by key, in their order within a key, so that one outer value's rows are a
// slice of it, handed out without copying.
func (m *memoSource) lookup(pages [][]translate.Row) ([]translate.Row, error) {
	if m.index == nil {
		if err := m.buildIndex(pages); err != nil {
			return nil, err
		}
	}
	vals := m.env.OuterValues(m.sq, *m.key)
	if len(vals) == 1 {
		m.keyBuf = sqlvalue.AppendKey(m.keyBuf[:0], vals[0])
		r := m.index[string(m.keyBuf)]
		return m.grouped[r[0]:r[1]:r[1]], nil // capped: an append by the reader cannot reach the next key's rows
	}
	var at []int32 // positions in grouped
	for _, v := range vals {
		r := m.index[string(sqlvalue.AppendKey(nil, v))]
		for i := r[0]; i < r[1]; i++ {
			at = append(at, i)
		}
	}
	// In the rows' order, each once (a row may hold several of the outer ids).
	slices.SortFunc(at, func(a, b int32) int { return cmp.Compare(m.origin[a], m.origin[b]) })
	at = slices.CompactFunc(at, func(a, b int32) bool { return m.origin[a] == m.origin[b] })
	out := make([]translate.Row, len(at))
	for i, g := range at {
		out[i] = m.grouped[g]
	}
	return out, nil
}

// buildIndex groups the kept rows by their key's values (a link's row once under each record it
// holds).
func (m *memoSource) buildIndex(pages [][]translate.Row) error {
	var rows []*translate.Row
	for _, page := range pages {
		for i := range page {
			rows = append(rows, &page[i])
		}
	}
	byKey := map[string][]int32{}
	var order []string
	total := 0
	for i := range rows {
		vals, err := m.key.InnerValues(rows[i])
		if err != nil {
			return err
		}
		for j, v := range vals {
			if slices.ContainsFunc(vals[:j], func(w any) bool { return sqlvalue.CompareSQL(v, w) == 0 }) {
				continue // a link holding the same id twice
			}
			m.keyBuf = sqlvalue.AppendKey(m.keyBuf[:0], v)
			pos, seen := byKey[string(m.keyBuf)]
			if !seen {
				order = append(order, string(m.keyBuf))
			}
			byKey[string(m.keyBuf)] = append(pos, int32(i))
			total++
		}
	}
	m.index = make(map[string][2]int32, len(byKey))
	m.grouped, m.origin = make([]translate.Row, 0, total), make([]int32, 0, total)
	for _, k := range order {
		start := int32(len(m.grouped))
		for _, p := range byKey[k] {
			m.grouped, m.origin = append(m.grouped, *rows[p]), append(m.origin, p)
		}
		m.index[k] = [2]int32{start, int32(len(m.grouped))}
	}
	return nil
}

// keptPages returns kept pages.
type keptPages struct {
	pages [][]translate.Row
}

func (p *keptPages) Next(context.Context) ([]translate.Row, error) {
	for len(p.pages) > 0 {
		page := p.pages[0]
		p.pages = p.pages[1:]
		if len(page) > 0 {
			return page, nil
		}
	}
	return nil, io.EOF
}

func (p *keptPages) Close() { p.pages = nil }
