package engine

import (
	"context"
	"fmt"

	"github.com/airsql/airsql/translate"
)

// subqueryOp runs a statement's uncorrelated subqueries (and decorrelated EXISTS) once, before its
// first row, and hands their rows to translate, whose expressions then read them.
type subqueryOp struct {
	input Operator
	subs  []*translate.Subquery
	ops   []Operator
	ran   bool
	scan  *scanOp // the statement's scan, which an IN subquery's values may narrow
	sizer Sizer
	bound string
}

func (s *subqueryOp) Next(ctx context.Context) (translate.Row, error) {
	if !s.ran {
		s.ran = true
		for i, op := range s.ops {
			rows, err := Drain(ctx, op)
			if err != nil {
				return translate.Row{}, err
			}
			if err := s.subs[i].SetRows(rows); err != nil {
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
		if sq.Bind != nil {
			detail += "; the values of " + sq.SQL + " are pushed into the table's request as OR(" + sq.Bind.Field() + "=…, …) in batches when that takes fewer requests than a scan"
			break
		}
	}
	if s.bound != "" {
		detail += " (" + s.bound + ")"
	}
	n := Node{Op: "subqueries", Detail: detail, Inputs: []Node{s.input.Explain()}}
	for i, op := range s.ops {
		sub := op.Explain()
		sub.Detail = s.subs[i].SQL + ": " + sub.Detail
		n.Inputs = append(n.Inputs, sub)
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
		if sq.Bind == nil {
			continue
		}
		vals := sq.Values()
		if len(vals) == 0 {
			s.scan.bind(nil, false) // x IN (an empty set) is never true: no request
			s.bound = "no values: the table is not read"
			return
		}
		formulas, ok := sq.Bind.Formulas(vals, translate.BindBatchChars)
		if !ok {
			continue
		}
		if len(formulas) > 1 {
			n, known := 0, false
			if s.sizer != nil {
				n, known = s.sizer.Requests(s.scan.plan)
			}
			if !known || len(formulas) >= n {
				continue
			}
		}
		plans := make([]*translate.Plan, len(formulas))
		for i, f := range formulas {
			plans[i] = s.scan.plan.WithFormula(f)
		}
		s.scan.bind(plans, false)
		s.bound = fmt.Sprintf("%d values of %s pushed into the formula in %d batch(es)", len(vals), sq.SQL, len(formulas))
		return
	}
}

// withSubqueries builds the subqueries' operators around the statement's.
func withSubqueries(op Operator, q *translate.Query, opts Options) (Operator, error) {
	if len(q.Subqueries) == 0 {
		return op, nil
	}
	s := &subqueryOp{input: op, subs: q.Subqueries}
	if q.Scan != nil && opts.Source != nil && !opts.NoBind {
		s.scan = findScan(op, q.Scan)
		s.sizer, _ = opts.Source.(Sizer)
	}
	for _, sq := range q.Subqueries {
		sub, err := Build(sq.Query, opts)
		if err != nil {
			return nil, err
		}
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
