package engine

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/airsql/airsql/translate"
)

// JSON_TABLE. A JSON table whose document reads no table (a constant, an argument, a column of
// the outer query) is a leaf: jsonTableOp makes its rows once. One whose document reads the
// tables to its left in FROM is joined by lateralJoinOp, which makes its rows again for each row
// so far — no request, no hash table: the rows of one document are all it holds, and each count
// against the row limit.

// jsonTableOp returns the rows of a JSON table that reads no table.
type jsonTableOp struct {
	env   *translate.Env
	table *translate.Table
	limit int

	made bool
	rows []translate.Row
	pos  int
}

var _ Operator = (*jsonTableOp)(nil)

func (j *jsonTableOp) Next(ctx context.Context) (translate.Row, error) {
	if !j.made {
		j.made = true
		jt := j.table.JSONTable
		err := jt.Rows(&translate.Row{Env: j.env}, func(vals []any) error {
			if len(j.rows) >= j.limit {
				return &RowLimitError{Limit: j.limit, Operator: "the rows of " + jt.SQL}
			}
			j.rows = append(j.rows, translate.Row{Values: slices.Clone(vals), Env: j.env})
			return nil
		})
		if err != nil {
			return translate.Row{}, err
		}
	}
	if err := ctx.Err(); err != nil {
		return translate.Row{}, err
	}
	if j.pos >= len(j.rows) {
		return translate.Row{}, io.EOF
	}
	j.pos++
	return j.rows[j.pos-1], nil
}

func (j *jsonTableOp) Close() { j.rows, j.pos, j.made = nil, 0, true }

func (j *jsonTableOp) Explain() Node {
	return Node{Op: "json table", Detail: j.table.JSONTable.SQL + ": its rows are made from the document once (no request)"}
}

// lateralJoinOp joins each row so far with the rows of a JSON table made from that row's
// document: "inner" and "cross" keep the pairs that satisfy the step's ON, "left" keeps a row so
// far that has none once, with NULL for the JSON table's columns.
type lateralJoinOp struct {
	env   *translate.Env
	outer Operator
	step  translate.JoinStep
	plan  *translate.Plan // the JSON table's own conditions (Keep)
	n     int
	limit int
	what  string

	cur     translate.Row
	has     bool
	rows    []translate.Row
	pos     int
	matched bool
	emitted int
}

var _ Operator = (*lateralJoinOp)(nil)

func (l *lateralJoinOp) Next(ctx context.Context) (translate.Row, error) {
	jt := l.plan.Table.JSONTable
	for {
		for l.has && l.pos < len(l.rows) {
			rec := &l.rows[l.pos]
			l.pos++
			out := l.join(rec)
			if l.step.On != nil {
				v, err := l.step.On.Eval(&out)
				if err != nil {
					return translate.Row{}, err
				}
				if v != true {
					continue
				}
			}
			l.matched = true
			return l.emit(out)
		}
		if l.has && !l.matched && l.step.Kind == "left" {
			l.matched = true
			return l.emit(l.join(nil))
		}
		r, err := l.outer.Next(ctx)
		if err != nil {
			l.has = false
			return r, err
		}
		l.cur, l.has, l.pos, l.matched = r, true, 0, false
		l.rows = nil // a new slice: the joined rows already returned point into the last one
		in := translate.Row{Sides: r.Sides, Env: l.env}
		err = jt.Rows(&in, func(vals []any) error {
			if len(l.rows) >= l.limit {
				return &RowLimitError{Limit: l.limit, Operator: "the rows of " + jt.SQL + " for one row of " + l.what}
			}
			rec := translate.Row{Values: slices.Clone(vals), Env: l.env}
			keep, err := l.plan.Keep(rec)
			if err != nil || !keep {
				return err
			}
			l.rows = append(l.rows, rec)
			return nil
		})
		if err != nil {
			return translate.Row{}, err
		}
	}
}

func (l *lateralJoinOp) join(rec *translate.Row) translate.Row {
	sides := make([]*translate.Row, l.n)
	copy(sides, l.cur.Sides)
	if rec != nil {
		sides[l.step.Table] = rec
	}
	return translate.Row{Sides: sides, Env: l.env}
}

func (l *lateralJoinOp) emit(r translate.Row) (translate.Row, error) {
	l.emitted++
	if l.emitted > l.limit {
		return translate.Row{}, &RowLimitError{Limit: l.limit, Operator: "the join of " + l.what + " with " + l.plan.Table.JSONTable.SQL + " (its result)"}
	}
	return r, nil
}

func (l *lateralJoinOp) Close() {
	l.outer.Close()
	l.rows, l.has = nil, false
}

func (l *lateralJoinOp) Explain() Node {
	detail := fmt.Sprintf("%s: %s; for each row of %s, its rows are made from the document read in that row (no request)",
		l.step.Kind, l.step.SQL, l.what)
	if !l.plan.Exact {
		detail += "; each checked with its own conditions"
	}
	if l.step.On != nil {
		detail += "; then " + l.step.On.String()
	}
	return Node{Op: "lateral join", Detail: detail, Inputs: []Node{l.outer.Explain()}}
}
