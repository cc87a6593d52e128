package engine

import (
	"context"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/airsql/airsql/sqlvalue"
	"github.com/airsql/airsql/translate"
)

// windowOp computes a query's window functions (translate.WindowFunc) over its input: the rows
// after GROUP BY and HAVING. It holds every row (counted against the statement's row budget),
// sorts them once per window (partition keys, then order keys, with translate's comparison and
// NULL rules: NULL first ascending, NULLs one partition), and sets each row's Window to the
// functions' results. Its rows come out in the order of the last window's sort, as MySQL's do.
type windowOp struct {
	env    *translate.Env // the run's subquery results, which the window's expressions may read
	input  Operator
	funcs  []*translate.WindowFunc
	budget *Budget

	out  []translate.Row
	pos  int
	done bool
}

func (w *windowOp) Next(ctx context.Context) (translate.Row, error) {
	if !w.done {
		w.done = true
		if err := w.run(ctx); err != nil {
			w.Close()
			return translate.Row{}, err
		}
	}
	if w.pos >= len(w.out) {
		return translate.Row{}, io.EOF
	}
	w.pos++
	return w.out[w.pos-1], nil
}

func (w *windowOp) Close() {
	w.input.Close()
	w.done = true
	w.out, w.pos = nil, 0
}

func (w *windowOp) Explain() Node {
	var b strings.Builder
	for i, f := range w.funcs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.SQL)
	}
	return Node{Op: "window", Detail: b.String(), Inputs: []Node{w.input.Explain()}}
}

func (w *windowOp) run(ctx context.Context) error {
	var rows []translate.Row
	for {
		r, err := w.input.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		r.Env = w.env
		if err := w.budget.Hold(1, "a window function (OVER)"); err != nil {
			return err
		}
		r.Window = make([]any, len(w.funcs))
		rows = append(rows, r)
	}
	w.input.Close()
	order := make([]int, len(rows)) // the rows in the last window's order
	for i := range order {
		order[i] = i
	}
	// The functions of one window share its sort.
	var specs []*translate.WindowSpec
	for _, f := range w.funcs {
		if !slices.Contains(specs, f.Spec) {
			specs = append(specs, f.Spec)
		}
	}
	for _, spec := range specs {
		p, err := newPartitioning(spec, rows)
		if err != nil {
			return err
		}
		for slot, f := range w.funcs {
			if f.Spec != spec {
				continue
			}
			if err := p.compute(f, slot, w.budget); err != nil {
				return err
			}
		}
		order = p.order
	}
	w.out = make([]translate.Row, len(rows))
	for i, k := range order {
		w.out[i] = rows[k]
	}
	return nil
}

// partitioning is the rows of one window sorted by partition and order keys.
type partitioning struct {
	spec  *translate.WindowSpec
	rows  []translate.Row
	order []int   // row indexes in window order
	part  [][]any // per row: partition key values
	keys  [][]any // per row: order key values
}

func newPartitioning(spec *translate.WindowSpec, rows []translate.Row) (*partitioning, error) {
	p := &partitioning{spec: spec, rows: rows, order: make([]int, len(rows)),
		part: make([][]any, len(rows)), keys: make([][]any, len(rows))}
	np, nk := len(spec.Partition), len(spec.Order)
	vals := make([]any, len(rows)*(np+nk))
	for i := range rows {
		p.order[i] = i
		v := vals[i*(np+nk) : (i+1)*(np+nk) : (i+1)*(np+nk)]
		for j, e := range spec.Partition {
			x, err := e.Eval(&rows[i])
			if err != nil {
				return nil, err
			}
			v[j] = x
		}
		for j, k := range spec.Order {
			x, err := k.Key.Eval(&rows[i])
			if err != nil {
				return nil, err
			}
			v[np+j] = x
		}
		p.part[i], p.keys[i] = v[:np], v[np:]
	}
	// Stable by the input position: a plain sort with it as the last key is faster than a stable
	// sort's merging.
	slices.SortFunc(p.order, func(a, b int) int {
		if c := p.comparePartition(a, b); c != 0 {
			return c
		}
		if c := p.compareOrder(a, b); c != 0 {
			return c
		}
		return a - b
	})
	return p, nil
}

func (p *partitioning) comparePartition(a, b int) int {
	for j := range p.spec.Partition {
		if c := sqlvalue.CompareSQL(p.part[a][j], p.part[b][j]); c != 0 {
			return c
		}
	}
	return 0
}

func (p *partitioning) compareOrder(a, b int) int {
	for j, k := range p.spec.Order {
		c := sqlvalue.CompareSQL(p.keys[a][j], p.keys[b][j])
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// compute sets slot of every row's Window to f's result.
func (p *partitioning) compute(f *translate.WindowFunc, slot int, budget *Budget) error {
	for ps := 0; ps < len(p.order); {
		pe := ps + 1
		for pe < len(p.order) && p.comparePartition(p.order[ps], p.order[pe]) == 0 {
			pe++
		}
		if err := p.computePartition(f, slot, ps, pe, budget); err != nil {
			return err
		}
		ps = pe
	}
	return nil
}

// computePartition computes f over one partition, p.order[ps:pe].
func (p *partitioning) computePartition(f *translate.WindowFunc, slot, ps, pe int, budget *Budget) error {
	peerStart, peerEnd := p.peerGroups(ps, pe)
	switch f.Name {
	case "ROW_NUMBER", "RANK", "DENSE_RANK", "PERCENT_RANK", "CUME_DIST", "NTILE":
		p.rank(f, slot, ps, pe, peerStart, peerEnd)
		return nil
	case "LAG", "LEAD":
		return p.offsetValues(f, slot, ps, pe)
	}
	// The functions that read each row's frame.
	frame := p.frames(f.Spec.Frame, ps, pe, peerStart, peerEnd)
	if f.Aggregate != nil {
		return p.aggregateFrames(f, slot, ps, pe, frame, budget)
	}
	return p.frameValues(f, slot, ps, pe, frame)
}

// peerGroups gives each row of the partition p.order[ps:pe] its peer group p.order[start:end]:
// the rows with equal order keys (all rows, without ORDER BY). Indexed from ps.
func (p *partitioning) peerGroups(ps, pe int) (peerStart, peerEnd []int) {
	peerStart = make([]int, pe-ps)
	peerEnd = make([]int, pe-ps)
	for i := ps; i < pe; {
		j := i + 1
		for j < pe && p.compareOrder(p.order[i], p.order[j]) == 0 {
			j++
		}
		for k := i; k < j; k++ {
			peerStart[k-ps], peerEnd[k-ps] = i, j
		}
		i = j
	}
	return peerStart, peerEnd
}

// set stores the value of the window function in slot for the row p.order[i].
func (p *partitioning) set(slot, i int, v any) { p.rows[p.order[i]].Window[slot] = v }

// rank computes the numbering functions: ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST
// and NTILE.
func (p *partitioning) rank(f *translate.WindowFunc, slot, ps, pe int, peerStart, peerEnd []int) {
	n := pe - ps
	rank := int64(0) // DENSE_RANK
	size, extra := int64(0), int64(0)
	if f.Name == "NTILE" {
		size, extra = int64(n)/f.N, int64(n)%f.N
	}
	for i := ps; i < pe; i++ {
		var v any
		switch f.Name {
		case "ROW_NUMBER":
			v = int64(i - ps + 1)
		case "RANK":
			v = int64(peerStart[i-ps] - ps + 1)
		case "DENSE_RANK":
			if peerStart[i-ps] == i {
				rank++
			}
			v = rank
		case "PERCENT_RANK":
			pr := 0.0
			if n > 1 {
				pr = float64(peerStart[i-ps]-ps) / float64(n-1)
			}
			v = pr
		case "CUME_DIST":
			v = float64(peerEnd[i-ps]-ps) / float64(n)
		case "NTILE":
			k := int64(i - ps)
			if big := extra * (size + 1); k < big {
				v = k/(size+1) + 1
			} else {
				v = (k-big)/size + extra + 1
			}
		}
		p.set(slot, i, v)
	}
}

// offsetValues computes LAG and LEAD: the argument on the row N before or after, else the default.
func (p *partitioning) offsetValues(f *translate.WindowFunc, slot, ps, pe int) error {
	for i := ps; i < pe; i++ {
		j := i - int(f.N)
		if f.Name == "LEAD" {
			j = i + int(f.N)
		}
		var v any
		var err error
		switch {
		case j >= ps && j < pe:
			v, err = f.Args[0].Eval(&p.rows[p.order[j]])
		case f.Default != nil:
			v, err = f.Default.Eval(&p.rows[p.order[i]])
		}
		if err != nil {
			return err
		}
		p.set(slot, i, v)
	}
	return nil
}

// frameValues computes FIRST_VALUE, LAST_VALUE and NTH_VALUE: the argument on a row of each
// row's frame, NULL when the frame has no such row.
func (p *partitioning) frameValues(f *translate.WindowFunc, slot, ps, pe int, frame func(i int) (int, int)) error {
	for i := ps; i < pe; i++ {
		fs, fe := frame(i)
		at := -1
		switch f.Name {
		case "FIRST_VALUE":
			at = fs
		case "LAST_VALUE":
			at = fe - 1
		case "NTH_VALUE":
			at = fs + int(f.N) - 1
		}
		var v any
		if at >= fs && at < fe {
			var err error
			if v, err = f.Args[0].Eval(&p.rows[p.order[at]]); err != nil {
				return err
			}
		}
		p.set(slot, i, v)
	}
	return nil
}

// frames returns, for a row of the partition p.order[ps:pe], its frame p.order[fs:fe] (empty when
// fs >= fe).
func (p *partitioning) frames(fr translate.Frame, ps, pe int, peerStart, peerEnd []int) func(i int) (int, int) {
	var desc bool
	if len(p.spec.Order) > 0 {
		desc = p.spec.Order[0].Desc
	}
	// rangeAt is the first row of the partition whose order key is at or past limit (strictly
	// past when after): the rows are sorted by that key.
	rangeAt := func(limit any, after bool) int {
		return ps + sort.Search(pe-ps, func(k int) bool {
			c := sqlvalue.CompareSQL(p.keys[p.order[ps+k]][0], limit)
			if desc {
				c = -c
			}
			if after {
				return c > 0
			}
			return c >= 0
		})
	}
	bound := func(b translate.FrameBound, i int, end bool) int {
		switch b.Kind {
		case translate.UnboundedPreceding:
			return ps
		case translate.UnboundedFollowing:
			return pe
		case translate.CurrentRow:
			switch {
			case fr.Rows && end:
				return i + 1
			case fr.Rows:
				return i
			case end:
				return peerEnd[i-ps]
			default:
				return peerStart[i-ps]
			}
		}
		if fr.Rows {
			k := i - int(b.N)
			if b.Kind == translate.Following {
				k = i + int(b.N)
			}
			if end {
				k++
			}
			return min(max(k, ps), pe)
		}
		return rangeAt(b.RangeLimit(p.keys[p.order[i]][0], desc), end)
	}
	return func(i int) (int, int) {
		return bound(fr.Start, i, false), bound(fr.End, i, true)
	}
}

// aggregateFrames computes an aggregate over each row's frame: adding rows as the frame grows when
// it starts at the partition's first row, else afresh for each frame (a frame seen for the row
// before is not computed again).
func (p *partitioning) aggregateFrames(f *translate.WindowFunc, slot, ps, pe int, frame func(int) (int, int), budget *Budget) error {
	running := f.Spec.Frame.Start.Kind == translate.UnboundedPreceding
	var acc translate.Accumulator
	added := ps
	lastS, lastE := -1, -1
	var last any
	for i := ps; i < pe; i++ {
		fs, fe := frame(i)
		if fe < fs {
			fe = fs
		}
		if fs == lastS && fe == lastE {
			p.rows[p.order[i]].Window[slot] = last
			continue
		}
		if !running || acc == nil || fe < added {
			acc, added = f.Aggregate.NewAccumulator(), fs
		}
		for ; added < fe; added++ {
			held, err := acc.Add(&p.rows[p.order[added]])
			if err != nil {
				return err
			}
			if err := budget.Hold(held, "a window function's DISTINCT values"); err != nil {
				return err
			}
		}
		last, lastS, lastE = acc.Result(), fs, fe
		p.rows[p.order[i]].Window[slot] = last
	}
	return nil
}

// windowInput puts the window operator above op when the query has window functions.
func windowInput(op Operator, q *translate.Query, budget *Budget, env *translate.Env) Operator {
	if len(q.Windows) == 0 {
		return op
	}
	return &windowOp{env: env, input: op, funcs: q.Windows, budget: budget}
}
