package airsql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/translate"
)

// Writes whose rows a SELECT decides: INSERT … SELECT, and UPDATE or DELETE whose WHERE the
// single-table search of translate.Update and translate.Delete refuses (a subquery: WHERE id IN
// (SELECT …), EXISTS, a comparison with a scalar subquery). Their SELECT is planned by the planner
// of every SELECT and run by the engine, as the statement SELECT … would be, so any condition a
// SELECT accepts selects the rows. A plain UPDATE … WHERE keeps its single-table search: its
// requests do not change.

// selectedRows runs a SELECT through the planner and the engine and returns its rows, at most
// maxRows of them (they are held until the write is sent).
func (cn *conn) selectedRows(ctx context.Context, sel sqlparser.SelectStatement, args translate.Args, what string) ([][]driver.Value, error) {
	if err := cn.flushBefore(ctx, sel); err != nil {
		return nil, err
	}
	args.Labels = nil
	rows, err := cn.selectRows(ctx, sel, args)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]driver.Value
	for {
		row := make([]driver.Value, len(rows.Columns()))
		err := rows.Next(row)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(out) == cn.c.cfg.MaxRows {
			return nil, fmt.Errorf("airsql: %s: the SELECT gives more than %d rows, the DSN's maxRows limit on rows held in memory: "+
				"narrow it with WHERE, or raise maxRows", what, cn.c.cfg.MaxRows)
		}
		out = append(out, row)
	}
}

// insertSelect turns INSERT INTO t (columns) SELECT … into INSERT INTO t (columns) VALUES with one
// row per row of the SELECT, its values bound as arguments: translate.Insert then checks and
// converts them as it does a client's arguments, and send writes them in chunks of 10 with the
// usual failure report (*WriteError names the rows written).
func (cn *conn) insertSelect(ctx context.Context, ast *sqlparser.Insert, sel sqlparser.SelectStatement, args translate.Args) (*sqlparser.Insert, translate.Args, error) {
	rows, err := cn.selectedRows(ctx, sel, args, "INSERT … SELECT")
	if err != nil {
		return nil, args, err
	}
	values := make(sqlparser.Values, len(rows))
	bound := translate.Args{Now: args.Now, Session: args.Session, LocalOnly: args.LocalOnly}
	for i, row := range rows {
		if len(row) != len(ast.Columns) {
			return nil, args, fmt.Errorf("airsql: INSERT … SELECT: the SELECT gives %d columns for %d in the column list", len(row), len(ast.Columns))
		}
		tuple := make(sqlparser.ValTuple, len(row))
		for k, v := range row {
			bound.Positional = append(bound.Positional, v)
			tuple[k] = sqlparser.NewValArg([]byte(":v" + strconv.Itoa(len(bound.Positional))))
		}
		values[i] = tuple
	}
	if len(values) == 0 {
		// No row: nothing to insert, but the columns are still checked.
		values = nil
	}
	ins := *ast
	ins.Rows = values
	return &ins, bound, nil
}

// recordID is RECORD_ID(): the record's own id, even where a field is named id.
func recordID() sqlparser.Expr { return &sqlparser.FuncExpr{Name: sqlparser.NewColIdent("RECORD_ID")} }

// search is how an UPDATE or DELETE that the single-table planner refused finds its records: a
// SELECT of the written table's record ids over the statement's tables and condition.
type search struct {
	from   sqlparser.TableExprs
	where  *sqlparser.Where
	target *sqlparser.AliasedTableExpr // the table written, as FROM names it
	alias  string                      // its name in a join; "" for a lone table
}

// searchFor returns the search of a write refused with err when a SELECT can find its records: a
// lone table whose WHERE holds a subquery, or a join (UPDATE t JOIN … SET t.c = …, DELETE t FROM
// t JOIN …) that writes the one table named target.
func searchFor(err error, from sqlparser.TableExprs, where *sqlparser.Where, target string) (*search, bool) {
	var ue *UnsupportedError
	if !errors.As(err, &ue) {
		return nil, false
	}
	if len(from) == 1 && target == "" {
		ate, ok := from[0].(*sqlparser.AliasedTableExpr)
		if !ok || where == nil || !hasSubquery(where) {
			return nil, false
		}
		return &search{from: from, where: where, target: ate}, true
	}
	if target == "" {
		return nil, false
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
		return nil, false
	}
	return &search{from: from, where: where, target: found, alias: target}, true
}

// table is the name of the table written.
func (sr *search) table() string { return sr.target.Expr.(sqlparser.TableName).Name.String() }

// idSelect is SELECT DISTINCT <the written table's record id> FROM <the statement's tables> WHERE
// <its condition>: what finds the records, planned and run as any SELECT.
func (cn *conn) idSelect(ctx context.Context, sr *search, what string) (*sqlparser.Select, *baseSchema, *translate.Table, error) {
	db, err := cn.namedDatabase(sr.target.Expr.(sqlparser.TableName).Qualifier.String(), what) // the written table's base
	if err != nil {
		return nil, nil, nil, err
	}
	schema, err := db.schemaFor(ctx, sr.table())
	if err != nil {
		return nil, nil, nil, err
	}
	table, _ := schema.Table(sr.table())
	id := recordID()
	if sr.alias != "" {
		// In a join the written table's id is alias.id, which a field named id would hide.
		for _, f := range table.Fields {
			if strings.EqualFold(f.Name, "id") {
				return nil, nil, nil, &UnsupportedError{Construct: what + " with a join of a table that has a field named id",
					Hint: "write the join as a subquery: WHERE id IN (SELECT …)"}
			}
		}
		id = &sqlparser.ColName{Name: sqlparser.NewColIdent("id"), Qualifier: sqlparser.TableName{Name: sqlparser.NewTableIdent(sr.alias)}}
	}
	sel := &sqlparser.Select{
		Distinct:    sqlparser.DistinctStr,
		SelectExprs: sqlparser.SelectExprs{&sqlparser.AliasedExpr{Expr: id}},
		From:        sr.from,
		Where:       sr.where,
	}
	return sel, schema, table, nil
}

// searchedIDs runs the search's idSelect through the planner and the engine.
func (cn *conn) searchedIDs(ctx context.Context, sr *search, args translate.Args, what string) ([]string, *baseSchema, *translate.Table, error) {
	sel, schema, table, err := cn.idSelect(ctx, sr, what)
	if err != nil {
		return nil, nil, nil, err
	}
	rows, err := cn.selectedRows(ctx, sel, args, what)
	if err != nil {
		return nil, nil, nil, err
	}
	ids := make([]string, 0, len(rows))
	for _, r := range rows {
		if id, ok := r[0].(string); ok {
			ids = append(ids, id)
		}
	}
	return ids, schema, table, nil
}

// updateTarget is the table an UPDATE of a join writes: the one alias that qualifies every SET
// column ("" when they do not name one).
func updateTarget(ast *sqlparser.Update) string {
	if len(ast.TableExprs) == 1 {
		if _, lone := ast.TableExprs[0].(*sqlparser.AliasedTableExpr); lone {
			return ""
		}
	}
	target := ""
	for _, e := range ast.Exprs {
		q := e.Name.Qualifier.Name.String()
		if q == "" || target != "" && !strings.EqualFold(q, target) {
			return ""
		}
		target = q
	}
	return target
}

// idList is WHERE RECORD_ID() IN ('rec…', …) for the records found, or a WHERE that keeps none.
func idList(ids []string) *sqlparser.Where {
	if len(ids) == 0 {
		return sqlparser.NewWhere(sqlparser.WhereStr, &sqlparser.ComparisonExpr{Operator: sqlparser.EqualStr,
			Left: sqlparser.NewIntVal([]byte("1")), Right: sqlparser.NewIntVal([]byte("0"))})
	}
	list := make(sqlparser.ValTuple, len(ids))
	for i, id := range ids {
		list[i] = sqlparser.NewStrVal([]byte(id))
	}
	return sqlparser.NewWhere(sqlparser.WhereStr, &sqlparser.ComparisonExpr{Operator: sqlparser.InStr, Left: recordID(), Right: list})
}
