package translate

import (
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Search is how an UPDATE or DELETE finds its records: a SELECT over the statement's tables and
// WHERE whose first column is the id of the record written (then, for UPDATE, one column per SET
// value), planned by NewQuery as every SELECT is and run by the engine. So any WHERE a SELECT
// accepts selects the records (subqueries, joins), with the pushdown of that SELECT: a plain
// UPDATE … WHERE Priority > 3 sends one filtered listing, as SELECT id FROM … WHERE … does.
type Search struct {
	Select *sqlparser.Select // the SELECT, as EXPLAIN shows it
	Query  *Query
}

// written is the table a write changes, as FROM names it.
type written struct {
	table *Table
	alias string
	from  sqlparser.TableExprs
	id    sqlparser.Expr // its record id in the SELECT
	join  bool
}

// findWritten finds the table a write changes: the lone table of FROM, or in a join (UPDATE t
// JOIN … SET t.c = …, DELETE t FROM t JOIN …) the one target names.
func findWritten(from sqlparser.TableExprs, target string, schema Schema, what string) (*written, error) {
	if len(from) == 1 {
		if _, lone := from[0].(*sqlparser.AliasedTableExpr); lone {
			table, alias, _, err := fromClause(from, schema)
			if err != nil {
				return nil, err
			}
			if target != "" && target != alias && target != table.Name {
				return nil, unsupported("multi-table DELETE", target, "delete from one table at a time")
			}
			// RECORD_ID() is the record's own id, even where a field is named id.
			w := &written{table: table, alias: alias, from: from, id: &sqlparser.FuncExpr{Name: sqlparser.NewColIdent("RECORD_ID")}}
			return w, w.writable()
		}
	}
	if target == "" {
		return nil, unsupported(what+" of a join without one table written", sqlparser.String(from),
			"name the one table written: UPDATE t JOIN u … SET t.c = … (every SET column qualified by t), DELETE t FROM t JOIN u …")
	}
	var found *sqlparser.AliasedTableExpr
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		ate, ok := n.(*sqlparser.AliasedTableExpr)
		if !ok {
			return true, nil
		}
		tn, isTable := ate.Expr.(sqlparser.TableName)
		if isTable && (strings.EqualFold(ate.As.String(), target) || ate.As.IsEmpty() && strings.EqualFold(tn.Name.String(), target)) {
			found = ate
		}
		return false, nil // a subquery's tables are not the statement's
	}, from)
	if found == nil {
		return nil, unknownTablef("%q: the %s writes no table of that name in its FROM (%s)", target, what, sqlparser.String(from))
	}
	table, err := lookupTable(found.Expr.(sqlparser.TableName), schema)
	if err != nil {
		return nil, err
	}
	for _, f := range table.Fields {
		if strings.EqualFold(f.Name, "id") {
			// In a join the written table's id is alias.id, which a field named id hides.
			return nil, unsupported(what+" with a join of a table that has a field named id", "",
				"write the join as a subquery: WHERE id IN (SELECT …)")
		}
	}
	id := &sqlparser.ColName{Name: sqlparser.NewColIdent("id"), Qualifier: sqlparser.TableName{Name: sqlparser.NewTableIdent(target)}}
	w := &written{table: table, alias: target, from: from, id: id, join: true}
	return w, w.writable()
}

// writable refuses a table that holds no records of the base (information_schema's, a derived table).
func (w *written) writable() error {
	if w.table.Local || w.table.Derived != nil {
		return unsupported("writing "+w.table.Name, "", "only the base's tables can be written: information_schema and derived tables are read-only")
	}
	return nil
}

// search plans SELECT <id>, values… FROM … WHERE …: DISTINCT in a join, which may match a record
// several times (it is written once, as MySQL writes each row of a multi-table UPDATE once).
func (w *written) search(where *sqlparser.Where, values sqlparser.SelectExprs, schema Schema, args Args) (*Search, error) {
	sel := &sqlparser.Select{
		SelectExprs: append(sqlparser.SelectExprs{&sqlparser.AliasedExpr{Expr: w.id}}, values...),
		From:        w.from,
		Where:       where,
	}
	if w.join {
		sel.Distinct = sqlparser.DistinctStr
	}
	args.Labels = nil // the statement's labels are not this SELECT's
	q, err := NewQuery(sel, schema, args)
	if err != nil {
		return nil, err
	}
	return &Search{Select: sel, Query: q}, nil
}

// ID is the id of the record a row of the search writes; ok is false for a row without one (the
// NULL side of an outer join).
func (s *Search) ID(row []any) (id string, ok bool) {
	id, ok = row[0].(string)
	return id, ok
}

// updateTarget is the table an UPDATE of a join writes: the one alias that qualifies every SET
// column ("" for a lone table, or when they do not name one).
func updateTarget(stmt *sqlparser.Update) string {
	if len(stmt.TableExprs) == 1 {
		if _, lone := stmt.TableExprs[0].(*sqlparser.AliasedTableExpr); lone {
			return ""
		}
	}
	target := ""
	for _, e := range stmt.Exprs {
		q := e.Name.Qualifier.Name.String()
		if q == "" || target != "" && !strings.EqualFold(q, target) {
			return ""
		}
		target = q
	}
	return target
}
