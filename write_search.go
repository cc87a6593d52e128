package airsql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/engine"
	"github.com/airsql/airsql/translate"
)

// Writes whose rows a SELECT decides, planned by the planner of every SELECT and run by the engine,
// as the statement SELECT … would be, so any condition a SELECT accepts selects the rows:
// INSERT … SELECT, and the search of every UPDATE and DELETE (translate.Search: SELECT id[, the
// SET values] FROM … WHERE …), whose requests are that SELECT's — a plain UPDATE … WHERE
// Priority > 3 sends one filtered listing, then the PATCHes.

// planWrite plans an UPDATE or DELETE (plan: translate.Update or translate.Delete) against the
// schema of the tables it names, read through the catalog as a SELECT's is, so that its search
// reads what a SELECT can (information_schema in a subquery).
func planWrite[S sqlparser.Statement, P any](ctx context.Context, cn *conn, ast S, args translate.Args, plan func(S, translate.Schema, translate.Args) (P, error)) (P, *baseSchema, *engine.Catalog, error) {
	var zero P
	if err := commentsInside(ast); err != nil {
		return zero, nil, nil, err
	}
	args.LocalOnly = cn.c.localOnly
	tables := namedTables(ast)
	if cn.inInformationSchema() {
		tables = nil // bare names are information_schema's first: the catalog finds them
	}
	return plannedInCatalog(ctx, cn, ast, tables, func(catalog *engine.Catalog) (P, error) {
		return plan(ast, catalog, args)
	})
}

// eachSearched runs a write's search through the engine to the end, reading the service (not a
// replica: the write goes to the service), and calls f once per record written with its first row
// (a join may give a record several rows with different SET values: MySQL writes each row of a
// multi-table UPDATE once). A row without an id (the NULL side of an outer join) writes nothing.
func (cn *conn) eachSearched(ctx context.Context, search *translate.Search, catalog *engine.Catalog, f func(id string, row []any) error) error {
	op, err := engine.Build(search.Query, engine.Options{Source: scanSource{c: cn.c}, MaxRows: cn.c.cfg.MaxRows, Catalog: catalog})
	if err != nil {
		return err
	}
	defer op.Close()
	seen := map[string]bool{}
	for {
		r, err := op.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if id, ok := search.ID(r.Values); ok && !seen[id] {
			seen[id] = true
			if err := f(id, r.Values); err != nil {
				return err
			}
		}
	}
}

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
