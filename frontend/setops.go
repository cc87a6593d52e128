package frontend

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// INTERSECT and EXCEPT (MySQL 8.0.31). The pinned grammar reads UNION only, so a statement with
// INTERSECT or EXCEPT at its top level is read here: its tokens are split at the set operators
// (UNION, INTERSECT, EXCEPT, each [ALL|DISTINCT]) outside parentheses, each operand is parsed on its
// own (parseAST: a parenthesized operand may hold set operators, ORDER BY and LIMIT of its own),
// and the operands are combined with MySQL's precedence: INTERSECT binds tighter than UNION and
// EXCEPT, which bind left to right. An ORDER BY or LIMIT after the last unparenthesized operand is
// on the whole, as for UNION. The result is a *sqlparser.Union whose Type is one of the SetOp
// constants; translate plans each.

// The Type of a *sqlparser.Union made here. UNION keeps sqlparser's own spellings.
const (
	SetIntersect    = "intersect"
	SetIntersectAll = "intersect all"
	SetExcept       = "except"
	SetExceptAll    = "except all"
)

// hasSetOps reports whether the statement holds INTERSECT or EXCEPT and a set operator stands at
// its top level (outside parentheses), where parseSetOps splits it: a parenthesized operand may
// hold the INTERSECT (a UNION (b INTERSECT c)). One inside a subquery is left to the grammar.
func (s *source) hasSetOps() bool {
	depth, any, top := 0, false, false
	for i, t := range s.toks {
		switch t.typ {
		case '(':
			depth++
		case ')':
			depth--
		case sqlparser.UNION:
			top = top || depth == 0
		default:
			if s.word(i, "intersect") || s.word(i, "except") {
				any = true
				top = top || depth == 0
			}
		}
	}
	return any && top
}

// setOperand is one operand of a chain of set operators and the operator before it ("" for the
// first).
type setOperand struct {
	op  string // "union", "union all", or a Set constant
	sel sqlparser.SelectStatement
}

// parseSetOps parses a statement with INTERSECT or EXCEPT at its top level.
func (s *source) parseSetOps() (sqlparser.Statement, error) {
	var operands []setOperand
	op, start, depth, tail := "", 0, 0, len(s.toks)
	for i := 0; i < len(s.toks); i++ {
		switch s.toks[i].typ {
		case '(':
			depth++
			continue
		case ')':
			depth--
			continue
		}
		if depth != 0 {
			continue
		}
		var next string
		switch {
		case s.toks[i].typ == sqlparser.UNION:
			next = "union"
		case s.word(i, "intersect"):
			next = SetIntersect
		case s.word(i, "except"):
			next = SetExcept
		case s.toks[i].typ == sqlparser.ORDER || s.toks[i].typ == sqlparser.LIMIT:
			// ORDER BY or LIMIT of the last operand, unless parenthesized, is on the whole: the
			// operand ends here (one inside a parenthesized operand is at depth 1).
			if tail == len(s.toks) {
				tail = i
			}
			continue
		default:
			continue
		}
		if tail != len(s.toks) {
			return nil, fmt.Errorf("translate: ORDER BY or LIMIT before %s belongs to an operand: put that SELECT in parentheses", strings.ToUpper(next))
		}
		o, err := s.setOperand(op, start, i)
		if err != nil {
			return nil, err
		}
		operands = append(operands, o)
		op, start = next, i+1
		switch {
		case start < len(s.toks) && s.toks[start].typ == sqlparser.ALL:
			op += " all"
			start++
		case start < len(s.toks) && s.toks[start].typ == sqlparser.DISTINCT:
			start++
		}
	}
	o, err := s.setOperand(op, start, tail)
	if err != nil {
		return nil, err
	}
	whole := combineSetOps(append(operands, o))
	if tail == len(s.toks) {
		return whole, nil
	}
	return s.orderAndLimitOfWhole(whole, tail)
}

// part is the statement's tokens from to to, as a statement of its own.
func (s *source) part(from, to int) *source {
	return &source{text: s.text, orig: s.orig, toks: s.toks[from:to], from: s.toks[from].start}
}

// setOperand parses the operand toks[from:to] that follows the set operator op ("" for the first).
func (s *source) setOperand(op string, from, to int) (setOperand, error) {
	if from >= to {
		return setOperand{}, fmt.Errorf("translate: a SELECT is expected %s", strings.ToUpper(op))
	}
	// A parenthesized operand is parsed without its parentheses: it may itself hold set
	// operators, and its own ORDER BY and LIMIT.
	if s.toks[from].typ == '(' && s.closing(from) == to-1 {
		from, to = from+1, to-1
	}
	st, err := s.part(from, to).parseAST()
	if err != nil {
		return setOperand{}, err
	}
	sel, ok := st.(sqlparser.SelectStatement)
	if !ok {
		return setOperand{}, fmt.Errorf("translate: %s combines SELECT statements only, not %s", strings.ToUpper(op), sqlparser.String(st))
	}
	return setOperand{op: op, sel: sel}, nil
}

// combineSetOps combines a chain of operands as MySQL does: INTERSECT first, then UNION and
// EXCEPT from left to right.
func combineSetOps(operands []setOperand) sqlparser.SelectStatement {
	var chain []setOperand
	for _, o := range operands {
		if n := len(chain); n > 0 && strings.HasPrefix(o.op, SetIntersect) {
			chain[n-1].sel = &sqlparser.Union{Type: o.op, Left: chain[n-1].sel, Right: o.sel}
			continue
		}
		chain = append(chain, o)
	}
	whole := chain[0].sel
	for _, o := range chain[1:] {
		whole = &sqlparser.Union{Type: o.op, Left: whole, Right: o.sel}
	}
	return whole
}

// orderAndLimitOfWhole puts the ORDER BY / LIMIT at toks[tail:] on the whole, read by the
// grammar after a SELECT of its own.
func (s *source) orderAndLimitOfWhole(whole sqlparser.SelectStatement, tail int) (sqlparser.Statement, error) {
	st, err := sqlparser.Parse("select 1 from dual " + s.part(tail, len(s.toks)).rewritten())
	if err != nil {
		return nil, err
	}
	sel, ok := st.(*sqlparser.Select)
	if !ok {
		return nil, fmt.Errorf("translate: ORDER BY and LIMIT are expected after the last SELECT")
	}
	u, ok := whole.(*sqlparser.Union)
	if !ok {
		return nil, fmt.Errorf("translate: ORDER BY and LIMIT are expected after the last SELECT")
	}
	u.OrderBy, u.Limit = sel.OrderBy, sel.Limit
	return u, nil
}
