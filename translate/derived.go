package translate

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Derived tables. FROM (SELECT …) AS d — and each reference to a WITH query, and the rows of a
// UNION — is a table whose rows are another Query's: a Local Table with Derived set. Its columns
// are the query's output columns, read from the rows' Values (exDerived); nothing is pushed into a
// request across it (the inner query pushes its own conditions into its own scans).

// derivedTable plans FROM (SELECT …) AS alias; ps is the statement's planning scope (arguments and
// subqueries are shared).
func (ps *scope) derivedTable(ate *sqlparser.AliasedTableExpr) (*Table, string, error) {
	sub, ok := ate.Expr.(*sqlparser.Subquery)
	if !ok {
		return nil, "", fmt.Errorf("translate: not a derived table: %s", sqlparser.String(ate))
	}
	if jt, isJSONTable, err := jsonTableOf(ate); isJSONTable {
		if err != nil {
			return nil, "", err
		}
		return &Table{Name: jt.alias, Local: true, JSONTable: jt}, jt.alias, nil
	}
	if ate.As.IsEmpty() {
		return nil, "", fmt.Errorf("translate: every derived table must have its own alias: write (%s) AS d", sqlparser.String(sub.Select))
	}
	q, err := ps.childStatement(sub.Select)
	if err != nil {
		return nil, "", err
	}
	alias := ate.As.String()
	return derivedOf(q, alias)
}

// derivedOf makes a table of a query's rows, refusing duplicate column names as MySQL does.
func derivedOf(q *Query, name string) (*Table, string, error) {
	seen := map[string]bool{}
	for _, c := range q.Columns {
		k := strings.ToLower(c.Name)
		if seen[k] {
			return nil, "", fmt.Errorf("translate: duplicate column name '%s' in the derived table %s: give the columns distinct aliases", c.Name, name)
		}
		seen[k] = true
	}
	return &Table{Name: name, Local: true, Derived: q}, name, nil
}

// childStatement plans a SELECT, a UNION or a parenthesised SELECT inside the statement.
func (s *scope) childStatement(sel sqlparser.SelectStatement) (*Query, error) {
	switch st := sel.(type) {
	case *sqlparser.Select:
		return s.childQuery(st, nil)
	case *sqlparser.ParenSelect:
		return s.childStatement(st.Select)
	case *sqlparser.Union:
		return s.union(st)
	}
	return nil, unsupported("the statement "+sqlparser.String(sel), "", "write a SELECT")
}

func derivedColumn(t *Table, alias, name string) (*expr, error) {
	cols := t.Derived.Columns
	for i, c := range cols {
		if c.Name == name {
			return derivedExpr(t, i), nil
		}
	}
	for i, c := range cols {
		if strings.EqualFold(c.Name, name) {
			return derivedExpr(t, i), nil
		}
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return nil, unknownColumnf("%q in %q (its columns: %s)", name, alias, strings.Join(names, ", "))
}

func derivedExpr(t *Table, i int) *expr {
	o := t.Derived.Outputs[i].e
	e := &expr{kind: exDerived, slot: i, typ: o.typ, nullable: o.nullable || o.typ == typeNull, sql: t.Derived.Columns[i].Name}
	src := o
	if d := t.Derived; o.kind == exSlot && d.Grouped && o.slot < len(d.GroupBy) {
		src = d.GroupBy[o.slot].e // a GROUP BY key
	}
	if isLinkField(src) {
		e.field = src.field // a linked-record column keeps its meaning: = with an id is membership
	}
	e.fsp = datetimeFsp(src) // createdTime read through d is DATETIME(3) still
	return e
}

func derivedStar(t *Table) []*expr {
	out := make([]*expr, len(t.Derived.Columns))
	for i := range out {
		out[i] = derivedExpr(t, i)
	}
	return out
}

// adopt takes over what a planning scope read: its arguments and subqueries.
func (s *scope) adopt(ps *scope) {
	if s.usedPositional == nil {
		s.usedPositional = map[int]bool{}
	}
	if s.usedNamed == nil {
		s.usedNamed = map[string]bool{}
	}
	for k := range ps.usedPositional {
		s.usedPositional[k] = true
	}
	for k := range ps.usedNamed {
		s.usedNamed[k] = true
	}
	s.subqueries = append(s.subqueries, ps.subqueries...)
}
