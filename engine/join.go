package engine

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/airsql/airsql/sqlvalue"
	"github.com/airsql/airsql/translate"
)

// Joins run left-deep: the first table's rows become joined rows (one record per table, in
// Row.Sides), and each step joins one more table. A step with equality keys holds the joined
// table's rows in a hash table keyed with sqlvalue.AppendKey (so that two keys are equal exactly
// when translate's comparison says so; NULL never matches) and probes it with each row so far; a
// step without keys (CROSS JOIN, a condition that is not an equality) holds the table's rows and
// pairs each row so far with every one. A LEFT JOIN step emits a row so far that matched nothing
// once, with a NULL record for the table.

// buildJoin builds the operators of a join: the rows so far, step by step.
func buildJoin(j *translate.Join, opts Options, budget *Budget) (Operator, error) {
	n := len(j.Tables)
	var op Operator
	var first *scanOp
	names := make([]string, 0, n)
	for i, st := range j.Steps {
		var input Operator
		var err error
		name := tableName(j, st.Table)
		if st.Group != nil {
			input, err = groupInput(j, st.Group, opts, budget)
			var group []string
			for _, g := range st.Group {
				group = append(group, tableName(j, g.Table))
			}
			name = "(" + strings.Join(group, ", ") + ")"
		} else if plan := j.Tables[st.Table].Plan; plan.Table.JSONTable != nil && plan.Table.JSONTable.Lateral && i > 0 {
			op = &lateralJoinOp{env: opts.env, outer: op, step: st, plan: plan, n: n, limit: rowLimit(budget), what: strings.Join(names, ", ")}
			names = append(names, name)
			continue
		} else {
			input, err = tableInput(plan, opts, budget)
		}
		if err != nil {
			return nil, err
		}
		if i == 0 {
			op = &sidesOp{input: input, n: n, side: st.Table}
			first = scanOf(input)
			names = append(names, name)
			continue
		}
		limit := budget.Limit
		if limit <= 0 {
			limit = DefaultMaxRows
		}
		h := &hashJoinOp{env: opts.env, outer: op, inner: input, step: st, n: n, budget: budget, limit: limit,
			what:      fmt.Sprintf("the join of %s with %s", strings.Join(names, ", "), name),
			innerName: name, outerName: strings.Join(names, ", ")}
		if i == 1 && opts.NoBind {
			h.firstScan = first
			h.noBind = true
		} else if i == 1 {
			h.firstScan = first
			h.sizer, _ = opts.Source.(Sizer)
		}
		if st.BindInner != nil && !opts.NoBind && st.Bind == nil {
			h.innerScan = scanOf(input)
			h.sizer, _ = opts.Source.(Sizer)
		}
		h.useIndex(input, opts.Source)
		op = h
		names = append(names, name)
	}
	return op, nil
}

func tableName(j *translate.Join, t int) string {
	name := j.Tables[t].Alias
	if name != j.Tables[t].Plan.Table.Name {
		name = j.Tables[t].Plan.Table.Name + " " + name
	}
	return name
}

// groupInput joins the tables of a parenthesised join (inner joins) into rows with Sides, which
// the step around it joins as one side.
func groupInput(j *translate.Join, group []translate.JoinStep, opts Options, budget *Budget) (Operator, error) {
	n := len(j.Tables)
	limit := budget.Limit
	if limit <= 0 {
		limit = DefaultMaxRows
	}
	var op Operator
	var names []string
	for i, st := range group {
		input, err := tableInput(j.Tables[st.Table].Plan, opts, budget)
		if err != nil {
			return nil, err
		}
		name := tableName(j, st.Table)
		if i == 0 {
			op = &sidesOp{input: input, n: n, side: st.Table}
			names = append(names, name)
			continue
		}
		op = &hashJoinOp{env: opts.env, outer: op, inner: input, step: st, n: n, budget: budget, limit: limit,
			what:      fmt.Sprintf("the join of %s with %s", strings.Join(names, ", "), name),
			innerName: name, outerName: strings.Join(names, ", ")}
		names = append(names, name)
	}
	return op, nil
}

// scanOf finds the scan under a table's input (through its re-check filter).
func scanOf(op Operator) *scanOp {
	switch o := op.(type) {
	case *scanOp:
		return o
	case *filterOp:
		return scanOf(o.input)
	}
	return nil
}

// tableInput is a table's scan with its local re-check.
func tableInput(plan *translate.Plan, opts Options, budget *Budget) (Operator, error) {
	var op Operator
	if plan.Table.JSONTable != nil {
		op = &jsonTableOp{env: opts.env, table: plan.Table, limit: rowLimit(budget)}
	} else if plan.Table.Derived != nil {
		d, err := derivedInput(plan.Table, opts)
		if err != nil {
			return nil, err
		}
		op = d
	} else if plan.Table.Local {
		rows, ok := opts.Catalog.Rows(plan.Table)
		if !ok {
			return nil, fmt.Errorf("engine: no rows for the in-memory table %s", plan.Table.Name)
		}
		op = &valuesOp{rows: rows, name: "in-memory table " + plan.Table.Name}
	} else {
		if opts.Source == nil {
			return nil, fmt.Errorf("engine: no source to scan %s", plan.Table.Name)
		}
		op = &scanOp{plan: plan, src: opts.Source}
	}
	if !plan.Exact {
		op = &filterOp{env: opts.env, input: op, cond: keepOf(plan), what: "WHERE on " + plan.Table.Name + " (the request selects a superset; every record is checked again)"}
	}
	return op, nil
}

// sidesOp turns the first table's rows into joined rows.
type sidesOp struct {
	input Operator
	n     int
	side  int
	alloc rowArena
	// shared: every row it returns has the same sides (shareSides), overwritten for the next.
	shared []*translate.Row
}

// shareSides tells the join under op, when op's consumer is done with each row before it reads
// the next (an aggregate), that its rows so far may share one sides slice: the joins and
// filters between pass each row on at once, and each join step sets its table's side in every
// row it emits (join). It stops at a step that keeps the rows so far (a bind join reading them
// first into buffered).
func shareSides(op Operator) {
	for {
		switch o := op.(type) {
		case *filterOp:
			op = o.input
		case *hashJoinOp:
			if o.innerScan != nil {
				return
			}
			op = o.outer
		case *sidesOp:
			o.shared = make([]*translate.Row, o.n)
			return
		default:
			return
		}
	}
}

func (s *sidesOp) Next(ctx context.Context) (translate.Row, error) {
	rec, err := nextKept(ctx, s.input, &s.alloc)
	if err != nil {
		return translate.Row{}, err
	}
	sides := s.shared
	if sides != nil {
		clear(sides) // nothing of the row before stays (each join step sets its side anyway)
	} else {
		sides = s.alloc.sides(s.n)
	}
	sides[s.side] = rec
	return translate.Row{Sides: sides}, nil
}

// rowArena hands out rows and sides slices from chunks: a join over thousands of rows makes one
// allocation per arenaChunk of them instead of one or two per row (BenchmarkDashboardReplicaQueries).
// What it hands out lives as long as any of its chunk is referenced; each sides slice is capped
// at its length, so an append to one never writes into the next.
type rowArena struct {
	rows  []translate.Row
	spare []*translate.Row
}

const arenaChunk = 256

func (a *rowArena) row() *translate.Row {
	if len(a.rows) == 0 {
		a.rows = make([]translate.Row, arenaChunk)
	}
	r := &a.rows[0]
	a.rows = a.rows[1:]
	return r
}

func (a *rowArena) sides(n int) []*translate.Row {
	if len(a.spare) < n {
		a.spare = make([]*translate.Row, n*arenaChunk)
	}
	out := a.spare[:n:n]
	a.spare = a.spare[n:]
	return out
}

func (s *sidesOp) Close()        { s.input.Close() }
func (s *sidesOp) Explain() Node { return s.input.Explain() }

// hashJoinOp joins the rows so far (outer) with one table's rows (inner).
type hashJoinOp struct {
	env          *translate.Env
	outer, inner Operator
	step         translate.JoinStep
	n            int
	budget       *Budget
	limit        int
	what         string

	firstScan *scanOp // step 1: the first table's scan, which a bind join may narrow
	noBind    bool
	sizer     Sizer
	innerName string
	outerName string
	bound     string // what the bind join did, for messages and tests

	built   bool
	table   map[string][]*translate.Row
	all     []*translate.Row // no keys: every inner row
	key     []byte
	cur     translate.Row
	has     bool // cur is a row so far being joined
	matches []*translate.Row
	pos     int
	matched bool
	out     translate.Row
	emitted int

	// innerScan: the step's table's scan, which the keys of the rows so far may narrow
	// (BindInner); then the rows so far are read first and kept in buffered.
	innerScan *scanOp
	buffered  *valuesOp

	// A RIGHT JOIN step keeps every row of its table: rows lists them in order, hit those that
	// matched a row so far, and after the last row so far the others are emitted with NULL for
	// every other table (tail: the next one to look at).
	rows []*translate.Row
	hit  map[*translate.Row]bool
	tail int

	alloc rowArena // the joined rows' sides

	// indexer, indexColumn: the table's rows are held by the source, which shares its index on
	// the step's key (Indexer) rather than the step building a hash table; indexFilter: the
	// table's own WHERE, which the index's rows have not passed, checked on each match instead.
	indexer     Indexer
	indexScan   *scanOp
	indexColumn string
	indexFilter *filterOp
}

// useIndex makes the step read the source's shared index of its table when the source holds
// one and the step would build a hash table of a scan's rows on one key: an inner or LEFT JOIN
// of a table (not a group), its own WHERE (a filter over the scan) then checked on each match
// (RIGHT JOIN's list of rows and a bind join's batches need the scan's rows themselves).
func (h *hashJoinOp) useIndex(input Operator, src Source) {
	ix, ok := src.(Indexer)
	filter, _ := input.(*filterOp)
	if filter != nil {
		input = filter.input
	}
	scan, isScan := input.(*scanOp)
	if !ok || !isScan || len(h.step.Keys) != 1 || h.step.Group != nil || (h.step.Kind != "inner" && h.step.Kind != "left") {
		return
	}
	column, ok := h.step.Keys[0].InnerColumn()
	if !ok {
		return
	}
	h.indexer, h.indexScan, h.indexColumn, h.indexFilter = ix, scan, column, filter
}

// buildFromIndex sets the step's hash table to the source's index of its table's version (ok
// false: the source cannot index this scan; build the hash table from the scan).
func (h *hashJoinOp) buildFromIndex(ctx context.Context) (bool, error) {
	key := h.step.Keys[0]
	idx, ok, err := h.indexer.Index(ctx, h.indexScan.plan, h.indexColumn, func(rows []translate.Row) (*HashIndex, error) {
		return BuildHashIndex(rows, key)
	})
	if err != nil || !ok {
		h.indexFilter = nil // the hash table is built from the filter's rows
		return false, err
	}
	// The index's rows count against the limit as the hash table's would: the statement
	// reads them all.
	if err := h.budget.Hold(idx.Rows(), h.what+" (the rows of its hash table)"); err != nil {
		return false, err
	}
	h.table = idx.byKey
	h.inner.Close() // not read: the index holds its rows
	return true, nil
}

// bindInner reads the rows so far, keeps them, and pushes their distinct keys into the step's
// table's request when that costs fewer requests than its scan.
func (h *hashJoinOp) bindInner(ctx context.Context) error {
	b := h.step.BindInner
	var rows []translate.Row
	vals, seen := []any{}, map[string]struct{}{}
	writable := true
	for {
		r, err := h.outer.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := h.budget.Hold(1, h.what+" (the rows so far, read first to push their keys into "+h.innerName+")"); err != nil {
			return err
		}
		rows = append(rows, r)
		if !writable {
			continue
		}
		vs, ok, err := b.Values(h.step, &rows[len(rows)-1])
		if err != nil {
			return err
		}
		if !ok {
			writable = false
			continue
		}
		for _, v := range vs {
			if v == nil {
				continue
			}
			k := string(sqlvalue.AppendKey(nil, v))
			if _, dup := seen[k]; !dup {
				seen[k] = struct{}{}
				vals = append(vals, v)
			}
		}
	}
	h.outer.Close()
	h.buffered = &valuesOp{rows: rows, name: "the rows so far"}
	switch {
	case len(rows) == 0:
		h.innerScan.bind(nil, false) // nothing to join: the table is not read
		h.bound = "no rows so far: " + h.innerName + " is not read"
	case !writable:
		h.bound = "not pushed: a key value cannot be written into a formula"
	default:
		var from *translate.Plan
		if h.firstScan != nil {
			from = h.firstScan.plan // the rows so far are the first table's
		}
		h.bound = pushKeys(b, vals, h.innerScan, h.sizer, from, len(rows), h.outerName, h.innerName)
	}
	return nil
}

func (h *hashJoinOp) sizerRequests() (int, bool) {
	if h.sizer == nil {
		return 0, false
	}
	return h.sizer.Requests(h.innerScan.plan)
}

// pushKeys replaces a scan's request with the batches of a bind join's keys when bindCost says
// so; it says what it did. The keys were read from rowsFrom rows of fromPlan's table (nil: of
// several tables).
func pushKeys(b *translate.Bind, vals []any, scan *scanOp, sizer Sizer, fromPlan *translate.Plan, rowsFrom int, from, into string) string {
	if len(vals) == 0 {
		scan.bind(nil, false) // an inner join with nothing on one side: no request at all
		return "no keys: " + into + " is not read"
	}
	if (sizer == nil || !sizeKnown(sizer, scan.plan)) && len(vals)*len("RECORD_ID()=''") > translate.BindBatchChars {
		// Several batches, whose formulas are not worth building: with the size unknown only one
		// is pushed.
		return fmt.Sprintf("not pushed: %d keys need several requests and the size of %s is not known", len(vals), into)
	}
	formulas, ok := b.Formulas(vals, translate.BindBatchChars)
	if !ok {
		return "not pushed: a key value cannot be written into a formula"
	}
	cost := estimateBind(sizer, b.Mode, len(vals), len(formulas), scan.plan, fromPlan, rowsFrom, into, from)
	if !cost.push() {
		return cost.String()
	}
	plans := make([]*translate.Plan, len(formulas))
	for i, f := range formulas {
		plans[i] = scan.plan.WithFormula(f)
	}
	scan.bind(plans, !b.Exact)
	return cost.String()
}

func sizeKnown(sizer Sizer, plan *translate.Plan) bool {
	_, ok := sizer.Requests(plan)
	return ok
}

func (h *hashJoinOp) build(ctx context.Context) error {
	h.built = true
	if h.indexer != nil {
		if ok, err := h.buildFromIndex(ctx); err != nil || ok {
			return err
		}
	}
	if h.innerScan != nil && h.step.BindInner != nil {
		if n, known := h.sizerRequests(); known && n <= 1 {
			// One request reads the whole table: pushing keys would not save one, and would
			// wait for the rows so far.
			h.bound = "not pushed: a scan of " + h.innerName + " takes one request"
		} else if err := h.bindInner(ctx); err != nil {
			return err
		}
	}
	if len(h.step.Keys) > 0 {
		h.table = map[string][]*translate.Row{}
	}
	var bindVals []any
	var bindSeen map[string]struct{}
	canBind := h.firstScan != nil && h.step.Bind != nil && h.table != nil && !h.noBind
	if canBind {
		bindVals, bindSeen = []any{}, map[string]struct{}{}
	} else if h.firstScan != nil {
		// Nothing to push: both tables are scanned, at the same time (each scan runs one page
		// ahead under the base's shared pacing).
		if err := h.firstScan.start(ctx); err != nil {
			return err
		}
	}
	innerRows := 0
	for {
		rec, err := nextKept(ctx, h.inner, &h.alloc)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		innerRows++
		if err := h.budget.Hold(1, h.what+" (the rows of its hash table)"); err != nil {
			return err
		}
		if h.step.Kind == "right" {
			h.rows = append(h.rows, rec)
		}
		if h.table == nil {
			h.all = append(h.all, rec)
			continue
		}
		if bindVals != nil {
			vals, ok, err := h.step.Bind.Values(h.step, rec)
			if err != nil {
				return err
			}
			if !ok {
				bindVals = nil // a value that cannot be written: scan instead
			}
			for _, v := range vals {
				if v == nil {
					continue
				}
				k := string(sqlvalue.AppendKey(nil, v))
				if _, dup := bindSeen[k]; !dup {
					bindSeen[k] = struct{}{}
					bindVals = append(bindVals, v)
				}
			}
		}
		if len(h.step.Keys) == 1 { // one key: each of its values, encoded in one buffer
			vals, err := h.step.Keys[0].InnerValues(rec)
			if err != nil {
				return err
			}
			for _, v := range vals {
				h.key = sqlvalue.AppendKey(h.key[:0], v)
				h.table[string(h.key)] = append(h.table[string(h.key)], rec)
			}
			continue
		}
		keys, err := h.keys(rec, false)
		if err != nil {
			return err
		}
		for _, k := range keys {
			h.table[string(k)] = append(h.table[string(k)], rec)
		}
	}
	h.inner.Close()
	if canBind {
		if bindVals == nil {
			h.bound = "not pushed: a key value cannot be written into a formula"
		} else {
			h.bindKeys(bindVals, innerRows)
		}
	}
	return nil
}

// bindKeys pushes the keys read from rowsFrom rows of the step's table into the first table's
// request, in batches, when that costs fewer requests than the scan planned.
func (h *hashJoinOp) bindKeys(vals []any, rowsFrom int) {
	var from *translate.Plan
	if inner := scanOf(h.inner); inner != nil {
		from = inner.plan
	}
	h.bound = pushKeys(h.step.Bind, vals, h.firstScan, h.sizer, from, rowsFrom, h.innerName, h.outerName)
}

// keys encodes a row's key tuples: one per combination of its key values (a link holds several);
// none when a key is NULL or an empty link.
func (h *hashJoinOp) keys(r *translate.Row, outer bool) ([][]byte, error) {
	out := [][]byte{nil}
	for _, k := range h.step.Keys {
		var vals []any
		var err error
		if outer {
			vals, err = k.OuterValues(r)
		} else {
			vals, err = k.InnerValues(r)
		}
		if err != nil || len(vals) == 0 {
			return nil, err
		}
		next := make([][]byte, 0, len(out)*len(vals))
		for _, prefix := range out {
			for _, v := range vals {
				next = append(next, sqlvalue.AppendKey(append([]byte(nil), prefix...), v))
			}
		}
		out = next
	}
	return out, nil
}

func (h *hashJoinOp) Next(ctx context.Context) (translate.Row, error) {
	if !h.built {
		if err := h.build(ctx); err != nil {
			return translate.Row{}, err
		}
	}
	for {
		for h.has && h.pos < len(h.matches) {
			m := h.matches[h.pos]
			h.pos++
			if h.indexFilter != nil {
				if keep, err := h.indexFilter.keeps(m); err != nil || !keep {
					if err != nil {
						return translate.Row{}, err
					}
					continue
				}
			}
			out := h.join(m, h.pos == len(h.matches))
			if h.step.On != nil {
				v, err := h.step.On.Eval(&out)
				if err != nil {
					return translate.Row{}, err
				}
				if v != true {
					continue
				}
			}
			h.matched = true
			if h.step.Kind == "right" {
				if h.hit == nil {
					h.hit = map[*translate.Row]bool{}
				}
				h.hit[m] = true
			}
			return h.emit(out)
		}
		if h.has && !h.matched && h.step.Kind == "left" {
			h.matched = true
			return h.emit(h.join(nil, true))
		}
		if r, done, err := h.advance(ctx); done {
			return r, err
		}
	}
}

// advance reads the next row of the outer side and finds its matches (done: false). At the end
// of the outer side a RIGHT join first emits, one per call, the inner rows nothing matched; then,
// as on an error, it is done with the outer side's answer.
func (h *hashJoinOp) advance(ctx context.Context) (out translate.Row, done bool, err error) {
	var r translate.Row
	if h.buffered != nil {
		r, err = h.buffered.Next(ctx)
	} else {
		r, err = h.outer.Next(ctx)
	}
	if err == io.EOF && h.step.Kind == "right" {
		h.has = false
		for h.tail < len(h.rows) {
			m := h.rows[h.tail]
			h.tail++
			if !h.hit[m] {
				sides := make([]*translate.Row, h.n)
				sides[h.step.Table] = m
				out, err := h.emit(translate.Row{Sides: sides})
				return out, true, err
			}
		}
		return r, true, err
	}
	if err != nil {
		h.has = false
		return r, true, err
	}
	h.cur, h.has, h.pos, h.matched = r, true, 0, false
	if err := h.findMatches(); err != nil {
		return translate.Row{}, true, err
	}
	return translate.Row{}, false, nil
}

// findMatches sets the inner rows the current outer row's keys find.
func (h *hashJoinOp) findMatches() error {
	if h.table == nil {
		h.matches = h.all
		return nil
	}
	if len(h.step.Keys) == 1 {
		// One key: look up each of its values (a link's ids) without building a list of keys.
		vals, err := h.step.Keys[0].OuterValues(&h.cur)
		if err != nil {
			return err
		}
		h.matches = nil
		for i, v := range vals {
			h.key = sqlvalue.AppendKey(h.key[:0], v)
			if i == 0 {
				h.matches = h.table[string(h.key)] // the common case: one value, no copy
			} else {
				h.matches = append(h.matches[:len(h.matches):len(h.matches)], h.table[string(h.key)]...)
			}
		}
		return nil
	}
	keys, err := h.keys(&h.cur, true)
	if err != nil {
		return err
	}
	h.matches = h.matches[:0:0]
	if len(keys) == 1 {
		h.matches = h.table[string(keys[0])]
	} else {
		for _, k := range keys {
			h.matches = append(h.matches, h.table[string(k)]...)
		}
	}
	return nil
}

// join is the row so far joined with m (nil: the NULL row). For its last candidate the row so far
// lends its own sides, which nothing else holds (every joined row has sides of its own, and the
// row so far is not read again): a join that matches each row once allocates nothing per row.
func (h *hashJoinOp) join(m *translate.Row, last bool) translate.Row {
	if last && h.step.Group == nil {
		h.cur.Sides[h.step.Table] = m
		return translate.Row{Sides: h.cur.Sides, Env: h.env}
	}
	sides := h.alloc.sides(h.n)
	copy(sides, h.cur.Sides)
	switch {
	case h.step.Group != nil && m != nil:
		for i, r := range m.Sides { // a group's row: its tables' records
			if r != nil {
				sides[i] = r
			}
		}
	case h.step.Group == nil:
		sides[h.step.Table] = m
	}
	return translate.Row{Sides: sides, Env: h.env}
}

// planCost is EXPLAIN's estimate before the keys are read: the scan's requests, and the records
// each pushed key is expected to match (bindCost), as far as the table sizes are known.
func (h *hashJoinOp) planCost(b *translate.Bind, into, from *scanOp, fromName, intoName string) string {
	if h.sizer == nil || into == nil {
		return ""
	}
	scan, ok := h.sizer.Requests(into.plan)
	if !ok {
		return fmt.Sprintf(" (the size of %s is not known: several batches are not pushed)", intoName)
	}
	var fromPlan *translate.Plan
	source := 0
	if from != nil {
		fromPlan = from.plan
		source, _, _ = h.sizer.Records(fromPlan)
	}
	// As if the keys were every record of the source table: its size is the keys' domain.
	c := estimateBind(h.sizer, b.Mode, max(1, source), 1, into.plan, fromPlan, max(1, source), intoName, fromName)
	if !c.perKeyOK {
		return fmt.Sprintf(" (estimates: a scan of %s takes %d request(s); how many of its records each key matches is not known until the size of %s is)", intoName, scan, fromName)
	}
	return fmt.Sprintf(" (estimates: a scan of %s takes %d request(s); each pushed key matches about %.3g of its records, and each batch costs the pages of its keys' matches)", intoName, scan, c.perKey)
}

func (h *hashJoinOp) emit(r translate.Row) (translate.Row, error) {
	h.emitted++
	if h.emitted > h.limit {
		return translate.Row{}, &RowLimitError{Limit: h.limit, Operator: h.what + " (its result)"}
	}
	return r, nil
}

func (h *hashJoinOp) Close() {
	h.outer.Close()
	h.inner.Close()
	h.table, h.all, h.matches, h.rows, h.hit = nil, nil, nil, nil, nil
}

func (h *hashJoinOp) Explain() Node {
	detail := h.step.Kind + ": " + h.step.SQL
	if len(h.step.Keys) > 0 {
		var ks []string
		for _, k := range h.step.Keys {
			ks = append(ks, k.Outer.String()+" = "+k.Inner.String())
		}
		detail += "; hash on " + strings.Join(ks, " AND ")
	} else {
		detail += "; every pair of rows"
	}
	if h.step.On != nil {
		detail += "; then " + h.step.On.String()
	}
	if h.indexer == nil {
		detail += "; reads " + h.innerName + " first"
	}
	if h.indexer != nil {
		detail += "; reads " + h.innerName + " through the source's hash index of its rows by " + h.step.Keys[0].Inner.String() +
			" (built once per version of the rows, shared by the statements that read it)"
		if h.indexFilter != nil {
			detail += ", checking its WHERE on each match"
		}
	} else if b := h.step.Bind; b != nil && !h.noBind {
		how := map[string]string{"id": "OR(RECORD_ID()='rec…', …)", "field": "OR(" + b.Field() + "='…', …)",
			"link": "OR(FIND('primary value', " + b.Field() + "&''), …) (a superset: a link reads as its records' primary values)"}[b.Mode]
		detail += fmt.Sprintf(", then pushes its distinct keys into %s's request as %s, in batches of up to %d characters, unless a scan takes fewer requests",
			h.outerName, how, translate.BindBatchChars)
		if h.bound == "" {
			detail += h.planCost(b, h.firstScan, scanOf(h.inner), h.innerName, h.outerName)
		}
	} else if b := h.step.BindInner; b != nil && h.innerScan != nil {
		how := map[string]string{"id": "OR(RECORD_ID()='rec…', …)", "field": "OR(" + b.Field() + "='…', …)",
			"link": "OR(FIND('primary value', " + b.Field() + "&''), …) (a superset: a link reads as its records' primary values)"}[b.Mode]
		detail = strings.Replace(detail, "; reads "+h.innerName+" first", "; reads "+h.outerName+" first", 1)
		detail += fmt.Sprintf(", then pushes their distinct keys into %s's request as %s, in batches of up to %d characters, unless a scan takes fewer requests",
			h.innerName, how, translate.BindBatchChars)
		if h.bound == "" {
			detail += h.planCost(b, h.innerScan, h.firstScan, h.outerName, h.innerName)
		}
	} else if h.firstScan != nil {
		detail += ", while " + h.outerName + " is scanned at the same time"
	}
	if h.bound != "" {
		detail += " (" + h.bound + ")"
	}
	return Node{Op: "join", Detail: detail, Inputs: []Node{h.outer.Explain(), h.inner.Explain()}}
}
