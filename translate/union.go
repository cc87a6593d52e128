package translate

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/frontend"
)

// Union is the rows of several queries one after another (UNION ALL); the Query that holds it is
// Distinct for UNION [DISTINCT]. Its rows hold Values = the columns; the Query reads them with
// exDerived. ORDER BY and LIMIT on the whole are a query over the union as a derived table.
//
// With Op SetIntersect or SetExcept it has two branches and is the rows of the first that are
// (INTERSECT) or are not (EXCEPT) among the second's, compared as GROUP BY and DISTINCT compare
// them (AppendKey: NULLs equal): with All, a row of the first pairs off with at most one equal
// row of the second (INTERSECT ALL keeps min(m, n) copies, EXCEPT ALL max(m-n, 0)); without,
// the Query is Distinct.
type Union struct {
	Branches []*Query
	All      bool
	Op       SetOp
}

// SetOp is what a Union does with its branches' rows.
type SetOp int

const (
	SetUnion     SetOp = iota // the rows of each
	SetIntersect              // the first's rows found in the second
	SetExcept                 // the first's rows not found in the second
)

func (o SetOp) String() string {
	return [...]string{"UNION", "INTERSECT", "EXCEPT"}[o]
}

// setOpOf reads the Type of a *sqlparser.Union (the front end writes INTERSECT and EXCEPT there).
func setOpOf(typ string) (op SetOp, all bool) {
	switch typ {
	case frontend.SetIntersect, frontend.SetIntersectAll:
		op = SetIntersect
	case frontend.SetExcept, frontend.SetExceptAll:
		op = SetExcept
	}
	return op, strings.HasSuffix(typ, " all")
}

// NewQueryStatement plans a SELECT or a UNION (with ORDER BY and LIMIT on the whole) for the engine.
func NewQueryStatement(stmt sqlparser.SelectStatement, schema Schema, args Args) (*Query, error) {
	switch st := stmt.(type) {
	case *sqlparser.Select:
		return NewQuery(st, schema, args)
	case *sqlparser.ParenSelect:
		return NewQueryStatement(st.Select, schema, args)
	case *sqlparser.Union:
		ps := newScope(nil, "", args)
		ps.schema = schema
		q, err := ps.union(st)
		if err != nil {
			return nil, err
		}
		if err := ps.unusedArgs(); err != nil {
			return nil, err
		}
		q.Subqueries = append(ps.subqueries, q.Subqueries...)
		return q, nil
	}
	return nil, fmt.Errorf("translate: not a SELECT: %s", sqlparser.String(stmt))
}

// union plans a UNION: the branches, their column count and types, and ORDER BY/LIMIT on the whole.
func (s *scope) union(u *sqlparser.Union) (*Query, error) {
	left, err := s.childStatement(u.Left)
	if err != nil {
		return nil, err
	}
	right, err := s.childStatement(u.Right)
	if err != nil {
		return nil, err
	}
	if len(left.Columns) != len(right.Columns) {
		return nil, fmt.Errorf("translate: the used SELECT statements have a different number of columns (%d and %d) in %s", len(left.Columns), len(right.Columns), sqlparser.String(u))
	}
	op, all := setOpOf(u.Type)
	uq := &Query{Union: &Union{Branches: []*Query{left, right}, All: all, Op: op}, Limit: -1, Distinct: !all}
	for i, c := range left.Columns {
		a, b := left.Outputs[i].e, right.Outputs[i].e
		typ, err := unionType(a.typ, b.typ)
		if err != nil {
			return nil, fmt.Errorf("translate: column %d of %s is %s in one SELECT and %s in the other: %v", i+1, sqlparser.String(u), a.typ, b.typ, err)
		}
		out := &expr{kind: exDerived, slot: i, typ: typ, nullable: a.nullable || b.nullable || typ == typeNull || a.typ == typeNull || b.typ == typeNull, sql: c.Name}
		uq.Outputs = append(uq.Outputs, wrap(out))
		uq.Columns = append(uq.Columns, columnFor(c.Name, out))
	}
	if len(u.OrderBy) == 0 && u.Limit == nil {
		return uq, nil
	}
	// ORDER BY / LIMIT on the whole: SELECT * FROM (the union) ORDER BY … LIMIT ….
	t, _, err := derivedOf(uq, "union")
	if err != nil {
		return nil, err
	}
	stmt := &sqlparser.Select{SelectExprs: sqlparser.SelectExprs{&sqlparser.StarExpr{}}, OrderBy: u.OrderBy, Limit: u.Limit}
	qp := &queryPlanner{stmt: stmt, q: &Query{Limit: -1}, outputIndex: map[string]int{}}
	qp.s = newScope(t, "union", s.args)
	qp.s.schema = s.schema
	qp.plan = &Plan{Table: t, Limit: -1}
	for _, o := range u.OrderBy {
		if c, ok := o.Expr.(*sqlparser.ColName); ok && !c.Qualifier.IsEmpty() {
			return nil, fmt.Errorf("translate: table '%s' from one of the SELECTs cannot be used in the ORDER BY of a UNION: order by the column's name or position", c.Qualifier.Name.String())
		}
	}
	if err := qp.run(); err != nil {
		return nil, err
	}
	s.adopt(qp.s)
	return qp.q, nil
}

// unionType is the type of a UNION's column from its branches' types: the same type, numbers of
// both kinds as a float, NULL with anything; other mixes are refused (MySQL would turn both into
// text).
func unionType(a, b sqlType) (sqlType, error) {
	switch {
	case a == b:
		return a, nil
	case a == typeNull:
		return b, nil
	case b == typeNull:
		return a, nil
	case a.Numeric() && b.Numeric():
		if a == typeFloat || b == typeFloat {
			return typeFloat, nil
		}
		return typeInt, nil
	case a.Temporal() && b.Temporal():
		return typeDateTime, nil
	case (a == typeText || a == typeJSON) && (b == typeText || b == typeJSON):
		return typeText, nil
	}
	return 0, fmt.Errorf("CAST one of them so that both have the same type")
}
