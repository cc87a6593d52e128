package translate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Reading FROM: the tables of a join and its steps, left-deep, as written (joinPlanner).

// joinPlanner reads a FROM clause with joins.
type joinPlanner struct {
	schema Schema
	ps     *scope // plans derived tables
	sides  []joinSide
	steps  []pendingStep
	// entries: the columns of SELECT * over the join, USING and NATURAL columns coalesced;
	// usingConds: the equalities USING and NATURAL add (both set by coalesce).
	entries    []joinEntry
	usingConds []usingCond
	// itemStart: the first table of the comma-separated FROM item being read. A RIGHT JOIN keeps
	// its own table's rows against the tables of its item only (a, b RIGHT JOIN c is a CROSS JOIN
	// of a with b RIGHT JOIN c), which a left-deep plan can give only for the first item.
	itemStart int
	// straight: a STRAIGHT_JOIN asks for FROM's order (orderInnerRuns moves nothing).
	straight bool
}

type pendingStep struct {
	table int
	kind  string
	on    sqlparser.Expr // nil: none
	sql   string
	// group: a parenthesised join of inner joins on the right of a LEFT JOIN (a LEFT JOIN (b JOIN
	// c ON x) ON y): its own steps, joined first; table is its first table.
	group []pendingStep
}

// flatten lists the tables and join steps of FROM, left-deep.
func (jp *joinPlanner) flatten(from sqlparser.TableExprs) error {
	for i, te := range from {
		kind := "cross"
		if i == 0 {
			kind = "first"
		}
		jp.itemStart = len(jp.sides)
		if err := jp.tableExpr(te, kind, nil, nil, sqlparser.String(te)); err != nil {
			return err
		}
	}
	return nil
}

func (jp *joinPlanner) tableExpr(te sqlparser.TableExpr, kind string, on sqlparser.Expr, using sqlparser.Columns, text string) error {
	switch t := te.(type) {
	case *sqlparser.AliasedTableExpr:
		return jp.aliasedTable(t, kind, on, using, text)
	case *sqlparser.ParenTableExpr:
		return jp.parenTable(t, kind, on, using, text)
	case *sqlparser.JoinTableExpr:
		return jp.joinTable(t, kind, on, using)
	}
	return unsupported("the FROM clause", sqlparser.String(te), "name tables joined with JOIN … ON")
}

// aliasedTable adds one table (or derived table) of FROM as a side, joined by a step of kind.
func (jp *joinPlanner) aliasedTable(t *sqlparser.AliasedTableExpr, kind string, on sqlparser.Expr, using sqlparser.Columns, text string) error {
	var table *Table
	var alias, view string
	var err error
	if _, isSub := t.Expr.(*sqlparser.Subquery); isSub {
		table, alias, err = jp.ps.derivedTable(t)
	} else {
		table, alias, view, err = queryFrom(sqlparser.TableExprs{t}, jp.schema)
	}
	if err != nil {
		return err
	}
	if table == nil {
		return unsupported("DUAL in a join", sqlparser.String(t), "leave DUAL out")
	}
	if table.JSONTable != nil { // the call as written, not the derived table the front end made of it
		text = strings.Replace(text, sqlparser.String(t), table.JSONTable.SQL, 1)
	}
	tn, named := t.Expr.(sqlparser.TableName)
	byDatabase := named && t.As.IsEmpty() && !tn.Qualifier.IsEmpty() && table.Database != ""
	for i, side := range jp.sides {
		if side.alias != alias {
			continue
		}
		if byDatabase && side.database && !strings.EqualFold(side.table.Database, table.Database) {
			// appA.T JOIN appB.T: each is its database's T, named appA.T.col and appB.T.col.
			jp.sides[i].alias = side.table.Database + "." + side.alias
			alias = table.Database + "." + alias
			continue
		}
		return fmt.Errorf("translate: not unique table/alias: '%s': give each table of the join its own alias (FROM %s a JOIN %s b …)", alias, table.Name, table.Name)
	}
	side := joinSide{table: table, alias: alias, view: view, nullable: kind == "left", join: kind, item: jp.itemStart, database: byDatabase}
	for _, c := range using {
		side.using = append(side.using, c.String())
	}
	jp.sides = append(jp.sides, side)
	jp.steps = append(jp.steps, pendingStep{table: len(jp.sides) - 1, kind: kind, on: on, sql: text})
	return nil
}

// parenTable reads a parenthesised table or join: a lone table, inner joins that continue the
// left-deep list, or a LEFT JOIN of a group of inner joins.
func (jp *joinPlanner) parenTable(t *sqlparser.ParenTableExpr, kind string, on sqlparser.Expr, using sqlparser.Columns, text string) error {
	if len(t.Exprs) != 1 {
		return unsupported("a parenthesised list of tables", sqlparser.String(t), "write the tables with JOIN … ON")
	}
	if _, isJoin := t.Exprs[0].(*sqlparser.JoinTableExpr); !isJoin || kind == "first" || kind == "cross" && on == nil && len(using) == 0 {
		return jp.tableExpr(t.Exprs[0], kind, on, using, text)
	}
	// a JOIN (b JOIN c ON x) ON y: with inner joins only, the same rows as a JOIN b JOIN c ON
	// x AND y, so the nested joins continue the left-deep list and y joins the condition of
	// its last step.
	if kind == "left" && len(using) == 0 && on != nil && innerOnly(t.Exprs[0]) {
		// a LEFT JOIN (b JOIN c ON x) ON y: the parenthesised inner joins are joined first,
		// as a group, and their rows LEFT JOINed as one side.
		mark, saved := len(jp.steps), jp.itemStart
		first := len(jp.sides)
		jp.itemStart = first
		err := jp.tableExpr(t.Exprs[0], "first", nil, nil, sqlparser.String(t.Exprs[0]))
		jp.itemStart = saved
		if err != nil {
			return err
		}
		group := slices.Clone(jp.steps[mark:])
		jp.steps = jp.steps[:mark]
		for i := first; i < len(jp.sides); i++ {
			jp.sides[i].nullable, jp.sides[i].join = true, "left"
		}
		jp.steps = append(jp.steps, pendingStep{table: group[0].table, kind: "left", on: on, sql: text, group: group})
		return nil
	}
	if (kind != "inner" && kind != "cross") || len(using) > 0 || !innerOnly(t.Exprs[0]) {
		return unsupported("an outer join or USING around a parenthesised join", sqlparser.String(t),
			"write the joins one after another (a LEFT JOIN b ON … LEFT JOIN c ON …), or join the parenthesised tables in a derived table; a LEFT JOIN of parenthesised inner joins with ON runs")
	}
	saved := jp.itemStart
	jp.itemStart = len(jp.sides)
	err := jp.tableExpr(t.Exprs[0], "cross", nil, nil, sqlparser.String(t.Exprs[0]))
	jp.itemStart = saved
	if err != nil {
		return err
	}
	last := &jp.steps[len(jp.steps)-1]
	if on != nil {
		if last.on == nil {
			last.on = on
		} else {
			last.on = &sqlparser.AndExpr{Left: last.on, Right: on}
		}
		if last.kind == "cross" {
			last.kind = "inner"
		}
	}
	return nil
}

// joinTable reads a JOIN: its left side, then its right side joined by the join's kind.
func (jp *joinPlanner) joinTable(t *sqlparser.JoinTableExpr, kind string, on sqlparser.Expr, using sqlparser.Columns) error {
	if kind != "first" && kind != "cross" || on != nil || len(using) > 0 {
		return unsupported("a join nested on the right of a join", sqlparser.String(t), "write the joins one after another: a JOIN b ON … JOIN c ON …")
	}
	if err := jp.tableExpr(t.LeftExpr, kind, nil, nil, sqlparser.String(t.LeftExpr)); err != nil {
		return err
	}
	var k string
	natural := false
	switch t.Join {
	case sqlparser.NaturalJoinStr, sqlparser.NaturalLeftJoinStr, sqlparser.NaturalRightJoinStr:
		// NATURAL: USING the columns the two sides have in common (found when the columns
		// are known, by coalesce).
		natural = true
	}
	jp.straight = jp.straight || t.Join == sqlparser.StraightJoinStr
	switch t.Join {
	case sqlparser.JoinStr, sqlparser.StraightJoinStr, sqlparser.NaturalJoinStr:
		k = "inner"
		if t.Condition.On == nil && len(t.Condition.Using) == 0 && !natural {
			k = "cross"
		}
	case sqlparser.LeftJoinStr, sqlparser.NaturalLeftJoinStr:
		k = "left"
		if t.Condition.On == nil && len(t.Condition.Using) == 0 && !natural {
			return fmt.Errorf("translate: LEFT JOIN needs ON or USING: %s", sqlparser.String(t))
		}
	case sqlparser.RightJoinStr, sqlparser.NaturalRightJoinStr:
		return jp.rightJoin(t, natural)
	default:
		return unsupported(strings.ToUpper(t.Join), sqlparser.String(t), "write [INNER] JOIN … ON, LEFT JOIN … ON or CROSS JOIN")
	}
	if _, isJoin := t.RightExpr.(*sqlparser.JoinTableExpr); isJoin {
		return unsupported("a join nested on the right of a join", sqlparser.String(t), "write the joins one after another: a JOIN b ON … JOIN c ON …")
	}
	if natural {
		if _, isParen := t.RightExpr.(*sqlparser.ParenTableExpr); isParen {
			return unsupported("NATURAL JOIN of a parenthesised join", sqlparser.String(t), "write the joins one after another, or join with ON")
		}
	}
	if err := jp.tableExpr(t.RightExpr, k, t.Condition.On, t.Condition.Using, t.Join+" "+sqlparser.String(t.RightExpr)); err != nil {
		return err
	}
	if natural {
		jp.sides[len(jp.sides)-1].natural = true
	}
	return nil
}

// rightJoin reads a RIGHT JOIN b, which is b LEFT JOIN a: b is read first and a's columns may be
// NULL; the tables keep FROM's order for SELECT *.
func (jp *joinPlanner) rightJoin(t *sqlparser.JoinTableExpr, natural bool) error {
	if t.Condition.On == nil && len(t.Condition.Using) == 0 && !natural {
		return fmt.Errorf("translate: RIGHT JOIN needs ON or USING: %s", sqlparser.String(t))
	}
	if jp.itemStart > 0 {
		return unsupported("RIGHT JOIN after a comma join", sqlparser.String(t), "write the comma as CROSS JOIN (or JOIN … ON) so that the RIGHT JOIN applies to every table before it, or swap it into a LEFT JOIN")
	}
	if len(jp.sides) != 1 {
		// (the joins so far) RIGHT JOIN c: every row of c is kept, and the tables so far
		// may be NULL (a "right" step, engine/join.go).
		if _, isJoin := t.RightExpr.(*sqlparser.JoinTableExpr); isJoin {
			return unsupported("a join nested on the right of a join", sqlparser.String(t), "write the joins one after another: a JOIN b ON … JOIN c ON …")
		}
		for i := range jp.sides {
			jp.sides[i].nullable = true
		}
		if err := jp.tableExpr(t.RightExpr, "right", t.Condition.On, t.Condition.Using, t.Join+" "+sqlparser.String(t.RightExpr)); err != nil {
			return err
		}
		jp.sides[len(jp.sides)-1].natural = natural
		return nil
	}
	if _, isJoin := t.RightExpr.(*sqlparser.JoinTableExpr); isJoin {
		return unsupported("a join nested on the right of a join", sqlparser.String(t), "write the joins one after another: a JOIN b ON … JOIN c ON …")
	}
	if err := jp.tableExpr(t.RightExpr, "first", nil, t.Condition.Using, sqlparser.String(t.RightExpr)); err != nil {
		return err
	}
	right := &jp.sides[len(jp.sides)-1]
	right.join, right.natural = "right", natural
	left := jp.steps[0]
	jp.sides[left.table].nullable = true
	jp.steps = []pendingStep{jp.steps[1], {table: left.table, kind: "left", on: t.Condition.On,
		sql: "right join " + sqlparser.String(t.RightExpr) + " (as " + sqlparser.String(t.RightExpr) + " left join " + left.sql + ")"}}
	return nil
}

// innerOnly reports a join of inner and cross joins only (which may be reassociated).
func innerOnly(te sqlparser.TableExpr) bool {
	switch t := te.(type) {
	case *sqlparser.AliasedTableExpr:
		return true
	case *sqlparser.ParenTableExpr:
		return len(t.Exprs) == 1 && innerOnly(t.Exprs[0])
	case *sqlparser.JoinTableExpr:
		switch t.Join {
		case sqlparser.JoinStr, sqlparser.StraightJoinStr:
			return len(t.Condition.Using) == 0 && innerOnly(t.LeftExpr) && innerOnly(t.RightExpr)
		}
	}
	return false
}
