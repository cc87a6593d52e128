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
	if t := s.toks[0].typ; t == sqlparser.INSERT || t == sqlparser.REPLACE {
		return s.parseInsertSetOps()
	}
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
		return setOperand{}, fmt.Errorf("translate: UNION, INTERSECT and EXCEPT combine SELECT statements only, not %s", sqlparser.String(st))
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

// A subquery holding INTERSECT or EXCEPT (IN, NOT IN, EXISTS, a scalar subquery, a derived table;
// a WITH query is parsed on its own already) is more than the grammar reads: parseSetOpSubqueries
// parses each such parenthesized query on its own (parseAST, which splits its set operators),
// puts a marker query the grammar reads in its place, parses the statement, and puts each parsed
// query back where its marker is.

// setOpMarker names the table of the marker query that stands for subquery i while the statement
// is parsed: a name no statement of a client's holds (backquoted, with a NUL byte).
func setOpMarker(i int) string { return fmt.Sprintf("airsql\x00setop%d", i) }

// topSetOp reports whether tokens [from, to) are a query (SELECT or a parenthesized one) with a
// set operator outside parentheses, at least one of them INTERSECT or EXCEPT anywhere in it.
func (s *source) topSetOp(from, to int) bool {
	if from >= to || s.toks[from].typ != sqlparser.SELECT && s.toks[from].typ != '(' {
		return false
	}
	part := &source{text: s.text, orig: s.orig, toks: s.toks[from:to], from: s.toks[from].start}
	return part.hasSetOps()
}

// parseSetOpSubqueries parses a statement whose parenthesized queries hold INTERSECT or EXCEPT
// (ok is false when it has none). A ? keeps its number in the whole statement.
func (s *source) parseSetOpSubqueries() (stmt sqlparser.Statement, ok bool, err error) {
	var spans [][2]int // each subquery's '(' and ')'
	for i := 0; i < len(s.toks); i++ {
		if s.toks[i].typ != '(' {
			continue
		}
		end := s.closing(i)
		if end >= len(s.toks) {
			break // the parser says what is wrong
		}
		if s.topSetOp(i+1, end) {
			spans = append(spans, [2]int{i, end})
			i = end
		}
	}
	if len(spans) == 0 {
		return nil, false, nil
	}
	if spans[0][0] == 0 && spans[0][1] == len(s.toks)-1 {
		// The whole statement in parentheses: (SELECT … INTERSECT SELECT …) is that query.
		part := &source{text: s.text, orig: s.orig, toks: s.toks[1 : len(s.toks)-1], from: s.toks[1].start}
		stmt, err = part.parseAST()
		return stmt, true, err
	}
	queries := make([]sqlparser.SelectStatement, len(spans))
	var edits []textEdit
	k := 0
	for i, t := range s.toks {
		if k < len(spans) && i > spans[k][0] && i < spans[k][1] {
			continue
		}
		if k < len(spans) && i == spans[k][1] {
			part := &source{text: s.text, orig: s.orig, toks: s.toks[spans[k][0]+1 : i], from: s.toks[spans[k][0]+1].start}
			st, err := part.parseAST()
			if err != nil {
				return nil, true, err
			}
			sel, isSel := st.(sqlparser.SelectStatement)
			if !isSel {
				return nil, true, fmt.Errorf("translate: a subquery must be a SELECT, not %s", sqlparser.String(st))
			}
			queries[k] = sel
			edits = append(edits, textEdit{start: part.toks[0].start, end: part.toks[len(part.toks)-1].end,
				text: "select * from `" + setOpMarker(k) + "`"})
			k++
			continue
		}
		if t.typ == sqlparser.VALUE_ARG && s.text[t.start:t.end] == "?" {
			edits = append(edits, textEdit{start: t.start, end: t.end, text: t.val})
		}
	}
	outer, err := lex(s.applyEdits(edits))
	if err != nil {
		return nil, true, fmt.Errorf("translate: cannot parse the statement (%v)", err)
	}
	if stmt, err = outer.parseAST(); err != nil {
		return nil, true, err
	}
	placed := 0
	err = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		sq, isSub := n.(*sqlparser.Subquery)
		if !isSub {
			return true, nil
		}
		sel, isSel := sq.Select.(*sqlparser.Select)
		if !isSel || len(sel.From) != 1 {
			return true, nil
		}
		at, isTable := sel.From[0].(*sqlparser.AliasedTableExpr)
		if !isTable {
			return true, nil
		}
		if tn, isName := at.Expr.(sqlparser.TableName); isName {
			for i := range queries {
				if tn.Name.String() == setOpMarker(i) {
					sq.Select = queries[i]
					placed++
					return false, nil
				}
			}
		}
		return true, nil
	}, stmt)
	if err == nil && placed != len(queries) {
		err = unsupported("INTERSECT or EXCEPT in this place", s.rest(0), "use it in a subquery (IN, EXISTS, a scalar subquery, FROM (…) AS d) or at the top of the statement")
	}
	return stmt, true, err
}

// parseInsertSetOps parses INSERT INTO t (columns) SELECT … INTERSECT|EXCEPT …: the chain from
// the first SELECT outside parentheses to the end is parsed on its own (parseAST), the INSERT
// with a marker query in its place, and the chain becomes the INSERT's rows. A ? keeps its number
// in the whole statement.
func (s *source) parseInsertSetOps() (sqlparser.Statement, error) {
	depth, at := 0, -1
	for i, t := range s.toks {
		switch {
		case t.typ == '(':
			depth++
		case t.typ == ')':
			depth--
		case depth != 0 || at >= 0:
		case t.typ == sqlparser.SELECT:
			at = i
		case t.typ == sqlparser.UNION || s.word(i, "intersect") || s.word(i, "except"):
			at = len(s.toks) // a set operator before the SELECT: INSERT … VALUES … EXCEPT …
		}
	}
	if at < 0 || at == len(s.toks) {
		return nil, fmt.Errorf("translate: INTERSECT and EXCEPT combine SELECT statements: write INSERT INTO t (columns) SELECT … INTERSECT SELECT …")
	}
	chain := &source{text: s.text, orig: s.orig, toks: s.toks[at:], from: s.toks[at].start}
	st, err := chain.parseAST()
	if err != nil {
		return nil, err
	}
	sel, ok := st.(sqlparser.SelectStatement)
	if !ok {
		return nil, fmt.Errorf("translate: UNION, INTERSECT and EXCEPT combine SELECT statements only, not %s", sqlparser.String(st))
	}
	var edits []textEdit
	for _, t := range s.toks[:at] {
		if t.typ == sqlparser.VALUE_ARG && s.text[t.start:t.end] == "?" {
			edits = append(edits, textEdit{start: t.start, end: t.end, text: t.val})
		}
	}
	edits = append(edits, textEdit{start: s.toks[at].start, end: s.toks[len(s.toks)-1].end, text: "select * from `" + setOpMarker(0) + "`"})
	outer, err := lex(s.applyEdits(edits))
	if err != nil {
		return nil, fmt.Errorf("translate: cannot parse the statement (%v)", err)
	}
	if st, err = outer.parseAST(); err != nil {
		return nil, err
	}
	ins, ok := st.(*sqlparser.Insert)
	if !ok {
		return nil, fmt.Errorf("translate: INTERSECT and EXCEPT combine SELECT statements only, not %s", sqlparser.String(st))
	}
	ins.Rows = sel
	return ins, nil
}
