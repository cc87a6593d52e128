package engine

import (
	"context"
	"io"
	"slices"

	"github.com/airsql/airsql/translate"
)

// derivedOp returns the rows of a derived table (FROM (SELECT …) AS d, a WITH query): the inner
// query's output rows, their Values copied so that an operator above may hold them.
type derivedOp struct {
	input Operator
	name  string
}

func (d *derivedOp) Next(ctx context.Context) (translate.Row, error) {
	r, err := d.input.Next(ctx)
	if err != nil {
		return r, err
	}
	return translate.Row{Values: slices.Clone(r.Values)}, nil
}

func (d *derivedOp) Close() { d.input.Close() }
func (d *derivedOp) Explain() Node {
	return Node{Op: "derived table", Detail: d.name, Inputs: []Node{d.input.Explain()}}
}

func derivedInput(t *translate.Table, opts Options) (Operator, error) {
	inner, err := Build(t.Derived, opts)
	if err != nil {
		return nil, err
	}
	return &derivedOp{input: inner, name: t.Name}, nil
}

// unionOp returns the rows of each branch in turn. The branches' scans start together at the first
// row, so that they are fetched at the same time under the base's shared pacing.
type unionOp struct {
	branches []Operator
	cur      int
	started  bool
}

func (u *unionOp) Next(ctx context.Context) (translate.Row, error) {
	if !u.started {
		u.started = true
		for _, b := range u.branches {
			Start(ctx, b)
		}
	}
	for u.cur < len(u.branches) {
		r, err := u.branches[u.cur].Next(ctx)
		if err == io.EOF {
			u.branches[u.cur].Close()
			u.cur++
			continue
		}
		return r, err
	}
	return translate.Row{}, io.EOF
}

func (u *unionOp) Close() {
	for _, b := range u.branches {
		b.Close()
	}
	u.cur = len(u.branches)
}

func (u *unionOp) Explain() Node {
	n := Node{Op: "union", Detail: "the rows of each SELECT in turn (their scans run at the same time)"}
	for _, b := range u.branches {
		n.Inputs = append(n.Inputs, b.Explain())
	}
	return n
}

// unionInput is the operator of a Union: UNION's, or INTERSECT's and EXCEPT's (setOp), whose
// held rows count against budget.
func unionInput(un *translate.Union, columns int, opts Options, budget *Budget) (Operator, error) {
	var branches []Operator
	for _, b := range un.Branches {
		op, err := Build(b, opts)
		if err != nil {
			for _, o := range branches {
				o.Close()
			}
			return nil, err
		}
		branches = append(branches, op)
	}
	if un.Op == translate.SetUnion {
		return &unionOp{branches: branches}, nil
	}
	return &setOp{op: un.Op, all: un.All, first: branches[0], second: branches[1], columns: columns, budget: budget}, nil
}
