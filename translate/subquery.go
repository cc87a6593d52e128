package translate

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Subqueries. A subquery that reads nothing of the outer query (uncorrelated) is planned as a Query
// of its own; the engine runs it once, before the statement's first row, and hands its rows to
// SetRows. Its expression then reads the result: x [NOT] IN (SELECT …) a set of keys (AppendKey:
// translate's equality; NULL never matches, and NOT IN over a set holding NULL is never TRUE),
// EXISTS whether there is a row, a scalar subquery its one value (NULL for no row, MySQL's error
// for several).
//
// A correlated [NOT] EXISTS whose WHERE holds inner.col = outer.col (ANDed with the rest) is
// decorrelated into a semi-join (anti-join): the inner query without that equality is run once,
// its values of inner.col form a set, and EXISTS is "outer.col is in the set". Other correlated
// subqueries are refused by name.

// Subquery is a subquery of a statement: the engine runs Query and calls SetRows with its rows.
type Subquery struct {
	Query *Query
	SQL   string
	mode  string // "in", "exists", "scalar"
	link  bool   // the subquery's column is a linked-record field: each id it holds is a value

	// Bind: the statement's scan may push this IN subquery's values into its formula (set by the
	// planner for x IN (SELECT …) ANDed into WHERE, x the record id or a field).
	Bind *Bind

	done    bool
	values  []any // the distinct non-NULL values, in their order
	set     map[string]struct{}
	hasNull bool
	rows    int
	scalar  any
}

// SubqueryError is MySQL's error 1242 for a scalar subquery that returns several rows.
type SubqueryError struct{ SQL string }

func (e *SubqueryError) Error() string {
	return "translate: subquery returns more than 1 row: " + e.SQL + " is used as one value; add LIMIT 1, an aggregate, or use IN"
}

// SetRows takes the subquery's result: each row's Values are its columns.
func (sq *Subquery) SetRows(rows []Row) error {
	sq.done, sq.rows = true, len(rows)
	switch sq.mode {
	case "scalar":
		if len(rows) > 1 {
			return &SubqueryError{SQL: sq.SQL}
		}
		if len(rows) == 1 {
			sq.scalar = rows[0].Values[0]
		}
	case "in", "exists":
		sq.set = make(map[string]struct{}, len(rows))
		for _, r := range rows {
			v := r.Values[0]
			if v == nil {
				sq.hasNull = true
				continue
			}
			if sq.link {
				var ids []string
				if s, ok := v.(string); ok && json.Unmarshal([]byte(s), &ids) == nil {
					for _, id := range ids {
						sq.add(id)
					}
				}
				continue
			}
			sq.add(v)
		}
	}
	return nil
}

func (sq *Subquery) add(v any) {
	k := string(AppendKey(nil, v))
	if _, dup := sq.set[k]; !dup {
		sq.set[k] = struct{}{}
		sq.values = append(sq.values, v)
	}
}

// Values are the subquery's distinct non-NULL values (after SetRows).
func (sq *Subquery) Values() []any { return sq.values }

func (sq *Subquery) has(v any) bool {
	_, ok := sq.set[string(AppendKey(nil, v))]
	return ok
}

// exSubquery: mode "in": args[0] [NOT] IN the subquery; "exists": [NOT] EXISTS (args[0], when
// set, is the outer key of a decorrelated EXISTS); "scalar": the one value.
func (e *expr) evalSubquery(r *Row) (any, error) {
	sq := e.sub
	if !sq.done {
		return nil, fmt.Errorf("translate: the subquery %s has not been run", sq.SQL)
	}
	switch sq.mode {
	case "scalar":
		return sq.scalar, nil
	case "exists":
		if len(e.args) == 0 {
			return (sq.rows > 0) != e.negated, nil
		}
		found := false
		for _, v := range e.keyValues(r) {
			if sq.has(v) {
				found = true
				break
			}
		}
		return found != e.negated, nil
	}
	// IN: TRUE when a value matches; else NULL when the value is NULL (and the set is not empty)
	// or the set holds a NULL; else FALSE. NOT IN is its negation.
	vals := e.keyValues(r)
	isNull := len(vals) == 0 && !isLinkField(e.args[0])
	if !isNull {
		for _, v := range vals {
			if sq.has(v) {
				return !e.negated, nil
			}
		}
	}
	if sq.rows == 0 {
		return e.negated, nil
	}
	if isNull || sq.hasNull {
		return nil, nil
	}
	return e.negated, nil
}

// keyValues is the outer value(s) of a subquery test: the ids of a link, else its one value (none
// for NULL).
func (e *expr) keyValues(r *Row) []any {
	k := e.args[0]
	if isLinkField(k) {
		ids, _ := k.linkIDs(r)
		out := make([]any, len(ids))
		for i, id := range ids {
			out[i] = id
		}
		return out
	}
	v, err := k.eval(r)
	if err != nil || v == nil {
		return nil
	}
	return []any{v}
}

// planSubquery plans a subquery of the statement s compiles, sharing its arguments.
func (s *scope) planSubquery(sel sqlparser.SelectStatement, mode string) (*Subquery, error) {
	if s.schema == nil {
		return nil, unsupported("a subquery", sqlparser.String(sel), hintSubquery)
	}
	stmt, ok := sel.(*sqlparser.Select)
	if !ok {
		if p, isParen := sel.(*sqlparser.ParenSelect); isParen {
			return s.planSubquery(p.Select, mode)
		}
		return nil, unsupported("UNION in a subquery", sqlparser.String(sel), "write one SELECT in the subquery")
	}
	q, err := s.childQuery(stmt)
	if err != nil {
		return nil, err
	}
	if mode != "exists" && len(q.Columns) != 1 {
		return nil, fmt.Errorf("translate: operand should contain 1 column(s): the subquery %s returns %d columns", sqlparser.String(sel), len(q.Columns))
	}
	sq := &Subquery{Query: q, SQL: "(" + sqlparser.String(sel) + ")", mode: mode}
	s.subqueries = append(s.subqueries, sq)
	return sq, nil
}

// childQuery plans a SELECT inside the statement: it reads the same arguments (their use is
// counted for the statement) and its own subqueries are the statement's.
func (s *scope) childQuery(stmt *sqlparser.Select) (*Query, error) {
	qp := &queryPlanner{stmt: stmt, q: &Query{Limit: -1}, outputIndex: map[string]int{}}
	q, child, err := qp.planStatement(stmt, s.schema, s.args)
	if err != nil {
		var ue *UnsupportedError
		if errors.As(err, &ue) && ue.Construct == "JOIN" || strings.Contains(err.Error(), "no table or alias") {
			return nil, unsupported("a correlated subquery", sqlparser.String(stmt),
				"a subquery that reads a column of the outer query runs as [NOT] EXISTS (SELECT … WHERE inner.column = outer.column …) only; or write a JOIN")
		}
		if uc := (*UnknownColumnError)(nil); errors.As(err, &uc) {
			return nil, fmt.Errorf("%w (a subquery that reads a column of the outer query is supported as [NOT] EXISTS (SELECT … WHERE inner.column = outer.column …) only)", err)
		}
		return nil, err
	}
	if s.usedPositional == nil {
		s.usedPositional = map[int]bool{}
	}
	if s.usedNamed == nil {
		s.usedNamed = map[string]bool{}
	}
	for k := range child.usedPositional {
		s.usedPositional[k] = true
	}
	for k := range child.usedNamed {
		s.usedNamed[k] = true
	}
	s.subqueries = append(s.subqueries, q.Subqueries...)
	q.Subqueries = nil
	return q, nil
}

// inSubquery compiles x [NOT] IN (SELECT …).
func (s *scope) inSubquery(left *expr, sub *sqlparser.Subquery, negated bool) (*expr, error) {
	sq, err := s.planSubquery(sub.Select, "in")
	if err != nil {
		return nil, err
	}
	col := sq.Query.Outputs[0].e
	if f := sq.Query.Columns[0].Field; f != nil && f.Type == "multipleRecordLinks" && col.kind == exField {
		sq.link = true
	}
	lt, rt := left.typ, col.typ
	if isLinkField(left) {
		lt = typeText
	}
	if sq.link {
		rt = typeText
	}
	if err := sameClass(lt, rt, describe(left), sq.SQL); err != nil {
		return nil, err
	}
	return &expr{kind: exSubquery, typ: typeBool, nullable: true, negated: negated, args: []*expr{left}, sub: sq,
		sql: describe(left) + " IN " + sq.SQL}, nil
}

// sameClass refuses an IN or EXISTS key whose two sides do not compare by the same rule (text with
// numbers, times with text): the set is matched by equality of keys.
func sameClass(a, b sqlType, left, right string) error {
	class := func(t sqlType) int {
		switch {
		case t == typeNull:
			return -1
		case t.numeric():
			return 0
		case t.temporal():
			return 1
		}
		return 2
	}
	ca, cb := class(a), class(b)
	if ca >= 0 && cb >= 0 && ca != cb {
		return fmt.Errorf("translate: cannot compare %s (%s) with the values of %s (%s): convert one side with CAST", left, a, right, b)
	}
	return nil
}

// scalarSubquery compiles (SELECT …) used as a value.
func (s *scope) scalarSubquery(sub *sqlparser.Subquery) (*expr, error) {
	sq, err := s.planSubquery(sub.Select, "scalar")
	if err != nil {
		return nil, err
	}
	col := sq.Query.Outputs[0].e
	return &expr{kind: exSubquery, typ: col.typ, nullable: true, sub: sq, sql: sq.SQL}, nil
}

// exists compiles [NOT] EXISTS (SELECT …), decorrelating inner.col = outer.col.
func (s *scope) exists(e *sqlparser.ExistsExpr, negated bool) (*expr, error) {
	sel, ok := e.Subquery.Select.(*sqlparser.Select)
	if !ok {
		return nil, unsupported("UNION in EXISTS", sqlparser.String(e), "write one SELECT in the subquery")
	}
	inner, outer, rest, found := s.correlation(sel)
	if !found {
		sq, err := s.planSubquery(sel, "exists")
		if err != nil {
			return nil, err
		}
		return &expr{kind: exSubquery, typ: typeBool, negated: negated, sub: sq, sql: "EXISTS " + sq.SQL}, nil
	}
	if len(sel.GroupBy) > 0 || sel.Having != nil || sel.Limit != nil || hasAggregate(sel.SelectExprs) {
		return nil, unsupported("a correlated EXISTS with GROUP BY, HAVING, LIMIT or aggregates", sqlparser.String(e), "filter the inner rows with WHERE only")
	}
	outerKey, err := s.compile(outer)
	if err != nil {
		return nil, err
	}
	semi := *sel
	semi.SelectExprs = sqlparser.SelectExprs{&sqlparser.AliasedExpr{Expr: inner}}
	semi.Where = nil
	if rest != nil {
		semi.Where = &sqlparser.Where{Type: sqlparser.WhereStr, Expr: rest}
	}
	semi.Distinct = ""
	sq, err := s.planSubquery(&semi, "exists")
	if err != nil {
		return nil, err
	}
	col := sq.Query.Outputs[0].e
	if f := sq.Query.Columns[0].Field; f != nil && f.Type == "multipleRecordLinks" && col.kind == exField {
		sq.link = true
	}
	lt, rt := outerKey.typ, col.typ
	if isLinkField(outerKey) {
		lt = typeText
	}
	if sq.link {
		rt = typeText
	}
	if err := sameClass(lt, rt, describe(outerKey), sq.SQL); err != nil {
		return nil, err
	}
	return &expr{kind: exSubquery, typ: typeBool, negated: negated, args: []*expr{outerKey}, sub: sq,
		sql: "EXISTS " + sqlparser.String(e.Subquery)}, nil
}

// correlation finds, among the top-level AND terms of a subquery's WHERE, one equality between a
// column of the subquery's own tables and a column qualified with a table of the outer query.
func (s *scope) correlation(sel *sqlparser.Select) (inner, outer *sqlparser.ColName, rest sqlparser.Expr, found bool) {
	if sel.Where == nil {
		return nil, nil, nil, false
	}
	own := map[string]bool{}
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if ate, ok := n.(*sqlparser.AliasedTableExpr); ok {
			// An aliased table is named by its alias only: Items.x inside FROM Items AS s reads
			// the outer query's Items.
			if tn, ok := ate.Expr.(sqlparser.TableName); ok && ate.As.IsEmpty() {
				own[strings.ToLower(tn.Name.String())] = true
			}
			if !ate.As.IsEmpty() {
				own[strings.ToLower(ate.As.String())] = true
			}
		}
		return true, nil
	}, sel.From)
	isOuter := func(c *sqlparser.ColName) bool {
		q := strings.ToLower(c.Qualifier.Name.String())
		if q == "" || own[q] {
			return false
		}
		if len(s.sides) > 0 {
			return s.sideIndex(c.Qualifier.Name.String()) >= 0
		}
		return strings.EqualFold(q, s.alias) || (s.table != nil && strings.EqualFold(q, s.table.Name))
	}
	var terms []sqlparser.Expr
	var split func(e sqlparser.Expr)
	split = func(e sqlparser.Expr) {
		if a, ok := e.(*sqlparser.AndExpr); ok {
			split(a.Left)
			split(a.Right)
			return
		}
		if p, ok := e.(*sqlparser.ParenExpr); ok {
			if _, isAnd := p.Expr.(*sqlparser.AndExpr); isAnd {
				split(p.Expr)
				return
			}
		}
		terms = append(terms, e)
	}
	split(sel.Where.Expr)
	for i, t := range terms {
		c, ok := t.(*sqlparser.ComparisonExpr)
		if !ok || c.Operator != sqlparser.EqualStr {
			continue
		}
		l, lok := c.Left.(*sqlparser.ColName)
		r, rok := c.Right.(*sqlparser.ColName)
		if !lok || !rok {
			continue
		}
		switch {
		case isOuter(r) && !isOuter(l):
			inner, outer = l, r
		case isOuter(l) && !isOuter(r):
			inner, outer = r, l
		default:
			continue
		}
		for j, o := range terms {
			if j == i {
				continue
			}
			if rest == nil {
				rest = o
			} else {
				rest = &sqlparser.AndExpr{Left: rest, Right: o}
			}
		}
		return inner, outer, rest, true
	}
	return nil, nil, nil, false
}

// bindSubqueries marks the IN subqueries ANDed into a table's WHERE whose values can be pushed into
// its request: x IN (SELECT …) with x the record id or a stored text or number field.
func bindSubqueries(where *expr) {
	for _, c := range conjuncts(where) {
		if c.kind != exSubquery || c.negated || c.sub.mode != "in" || len(c.args) != 1 {
			continue
		}
		o := c.args[0]
		switch {
		case o.kind == exRecordID:
			c.sub.Bind = &Bind{Mode: "id", Exact: true, outer: o}
			return
		case o.kind == exField && (o.typ == typeText || o.typ == typeInt || o.typ == typeFloat) && !o.info.computed && !isLinkField(o):
			c.sub.Bind = &Bind{Mode: "field", Exact: true, outer: o}
			return
		}
	}
}
