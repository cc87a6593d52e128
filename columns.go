package airsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/frontend"
	"github.com/airsql/airsql/translate"
)

// ResultColumns returns the columns a statement's result will have — names, types and
// nullability, as the rows' ColumnTypes will report them — without running it: a query is
// planned (the base schema is read, as for the statement itself; no records are listed) with
// NULL for each placeholder. A MySQL server announces a prepared statement's columns this way
// (COM_STMT_PREPARE), and JDBC's PreparedStatement.getMetaData reads them before execution.
//
// known is false when the columns are known only once the statement runs: a plan that needs the
// placeholders' values (LIMIT ?), a write with RETURNING. A statement that returns no rows
// (INSERT, UPDATE, DELETE, SET, DDL, BEGIN) has none: known, empty. err is a syntax error or a
// table or column the base does not have (MySQL refuses those at prepare too).
//
// c must be a connection of this driver (db.Conn(ctx) on a *sql.DB opened with it).
func ResultColumns(ctx context.Context, c *sql.Conn, query string) (cols []translate.Column, known bool, err error) {
	rawErr := c.Raw(func(dc any) error {
		cn, ok := dc.(*conn)
		if !ok {
			return fmt.Errorf("airsql: ResultColumns needs a connection of the airsql driver, not %T", dc)
		}
		cols, known, err = cn.resultColumns(ctx, query)
		return nil
	})
	if rawErr != nil {
		return nil, false, rawErr
	}
	return cols, known, err
}

func (cn *conn) resultColumns(ctx context.Context, query string) ([]translate.Column, bool, error) {
	if cn.c.closed.Load() {
		return nil, false, ErrConnectorClosed
	}
	st := cn.lastPrepared.st
	if query != cn.lastPrepared.query || query == "" {
		var err error
		if st, err = parseStatement(query); err != nil {
			return nil, false, err
		}
	}
	return cn.statementColumns(ctx, st)
}

func (cn *conn) statementColumns(ctx context.Context, st statement) ([]translate.Column, bool, error) {
	switch {
	case st.prepared != nil && st.prepared.Kind == frontend.Execute && !st.explain:
		// EXECUTE name: the prepared statement's columns.
		p, ok := cn.prepared[st.prepared.Name]
		if !ok {
			return nil, false, &UnknownPreparedError{Name: st.prepared.Name, Op: "EXECUTE"}
		}
		return cn.statementColumns(ctx, p.st)
	case st.prepared != nil:
		return nil, !st.explain, nil
	case st.explain:
		return explainColumns, true, nil
	case st.ddl != nil:
		return nil, true, nil
	case st.variables != nil:
		return columnsOfRows(cn.showVariables(st.variables)), true, nil
	case st.describe != nil:
		// Reads only the schema; the table must exist, as at execution.
		rows, err := cn.describe(ctx, st.describe)
		if err != nil {
			return nil, false, err
		}
		return columnsOfRows(rows), true, nil
	}
	switch ast := st.ast.(type) {
	case *sqlparser.Select, *sqlparser.Union:
		sel := ast.(sqlparser.SelectStatement)
		var args translate.Args
		args.Positional, args.Named = placeholderNulls(sel)
		args.Now = cn.c.clock.Now()
		args.Session = cn.session
		args.Labels = st.labels
		// Planned with NULLs, the statement may fail where its real values would not (a function
		// refusing NULL): the schema is then not fetched again, as it is for a statement that
		// fails to plan, since the failure says nothing about the schema; the columns are known
		// at execution.
		q, _, err := cn.planQuery(context.WithValue(ctx, noSchemaRecheck{}, true), sel, args)
		if err != nil && unknownName(err) {
			// A column added since the schema was cached: plan as the execution would.
			q, _, err = cn.planQuery(ctx, sel, args)
			if err != nil && unknownName(err) {
				return nil, false, err
			}
		}
		if err != nil {
			return nil, false, nil
		}
		return q.Columns, true, nil
	case *sqlparser.Show:
		rows, err := cn.show(ctx, ast) // the schema's table list: no records
		if err != nil {
			return nil, false, err
		}
		return columnsOfRows(rows), true, nil
	case *sqlparser.Insert, *sqlparser.Update, *sqlparser.Delete:
		return nil, st.returning == nil, nil
	case *sqlparser.Set, *sqlparser.Begin, *sqlparser.Commit, *sqlparser.Rollback:
		return nil, true, nil
	}
	return nil, false, nil
}

// unknownName reports a table or column the base does not have.
func unknownName(err error) bool {
	var col *translate.UnknownColumnError
	var tab *translate.UnknownTableError
	var noTable *NoTableError
	return errors.As(err, &col) || errors.As(err, &tab) || errors.As(err, &noTable)
}

// columnsOfRows is the columns of a result the driver built itself.
func columnsOfRows(rows driver.Rows) []translate.Column {
	if r, ok := rows.(*staticRows); ok {
		return r.resultColumns
	}
	return nil
}

// noSchemaRecheck, in a context, tells planned not to fetch the schema again when a plan fails.
type noSchemaRecheck struct{}

// placeholderNulls binds NULL to every placeholder of a statement — ? (sqlparser names them :v1,
// :v2, …) and :name — except those of LIMIT and OFFSET, bound to 1: a row count cannot be NULL.
func placeholderNulls(node sqlparser.SQLNode) ([]any, map[string]any) {
	var positional []any
	var named map[string]any
	index := func(e sqlparser.Expr) (int, bool) {
		v, ok := e.(*sqlparser.SQLVal)
		if !ok || v.Type != sqlparser.ValArg {
			return 0, false
		}
		if rest, ok := strings.CutPrefix(string(v.Val), ":v"); ok {
			if i, err := strconv.Atoi(rest); err == nil && i > 0 {
				return i, true
			}
		}
		return 0, false
	}
	var counts []int
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.Limit:
			if x == nil {
				break
			}
			for _, e := range []sqlparser.Expr{x.Offset, x.Rowcount} {
				if i, ok := index(e); ok {
					counts = append(counts, i)
				}
			}
		case *sqlparser.SQLVal:
			if x.Type != sqlparser.ValArg {
				break
			}
			if i, ok := index(x); ok {
				for len(positional) < i {
					positional = append(positional, nil)
				}
				break
			}
			if named == nil {
				named = map[string]any{}
			}
			named[strings.TrimPrefix(string(x.Val), ":")] = nil
		}
		return true, nil
	}, node)
	for _, i := range counts {
		positional[i-1] = int64(1)
	}
	return positional, named
}
