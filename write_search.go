package airsql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strconv"

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

// searchedIDs runs SELECT DISTINCT RECORD_ID() FROM <the statement's table> WHERE <its condition>
// through the planner and the engine: the records an UPDATE or DELETE whose search the
// single-table planner refused touches.
func (cn *conn) searchedIDs(ctx context.Context, from sqlparser.TableExprs, where *sqlparser.Where, args translate.Args, what string) ([]string, error) {
	sel := &sqlparser.Select{
		Distinct:    sqlparser.DistinctStr,
		SelectExprs: sqlparser.SelectExprs{&sqlparser.AliasedExpr{Expr: recordID()}},
		From:        from,
		Where:       where,
	}
	rows, err := cn.selectedRows(ctx, sel, args, what)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(rows))
	for _, r := range rows {
		if id, ok := r[0].(string); ok {
			ids = append(ids, id)
		}
	}
	return ids, nil
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

// searchRefused reports a refusal of the single-table search that a SELECT may accept: the WHERE
// holds a subquery.
func searchRefused(err error, where *sqlparser.Where) bool {
	var ue *UnsupportedError
	return errors.As(err, &ue) && where != nil && hasSubquery(where)
}
