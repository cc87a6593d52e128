package airsql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/frontend"
	"github.com/airsql/airsql/translate"
)

// conn is one database/sql connection. It holds no network state: every statement is one or
// more HTTP requests through the connector's client, so a conn never goes bad and database/sql
// never needs to retry on another one (the driver never returns driver.ErrBadConn after a
// request may have reached the service). Its one piece of state is the open transaction.
type conn struct {
	c       *Connector
	session *translate.Session // DATABASE(), CONNECTION_ID() and what SET set (session.go)
	// prepared are the statements of PREPARE (session.go), by lower-case name; preparedBytes
	// the length of their text.
	prepared      map[string]*sqlPrepared
	preparedBytes int
	lastPrepared  lastPrepared // columns.go
	tx            *transaction // nil: none open (tx.go)
}

// conn implements these driver interfaces.
var (
	_ driver.Conn               = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.NamedValueChecker  = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
	_ driver.Validator          = (*conn)(nil)
	_ driver.ConnBeginTx        = (*conn)(nil)
)

func (cn *conn) Prepare(query string) (driver.Stmt, error) {
	return cn.PrepareContext(context.Background(), query)
}

// PrepareContext parses the statement now, so that a typo fails at Prepare; the statement is
// planned again at each execution against the schema of that moment.
func (cn *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := parseStatement(query)
	if err != nil {
		return nil, err
	}
	cn.lastPrepared = lastPrepared{query: query, st: st}
	return &stmt{cn: cn, st: st}, nil
}

// lastPrepared is the statement last prepared on a connection, kept so that ResultColumns on the
// same text right after (a MySQL server prepares, then announces the columns) reuses its parse:
// the AST is only read, never changed.
type lastPrepared struct {
	query string
	st    statement
}

func (cn *conn) Close() error { return nil }

// Ping fetches the base schema, which checks the host, the token, its scopes and the base id,
// and refreshes the cache.
func (cn *conn) Ping(ctx context.Context) error {
	_, err := cn.c.loadSchema(ctx, true)
	return err
}

// ResetSession keeps the session's variables: as with a MySQL connection, what SET set lasts as
// long as the connection. It discards a transaction begun with a BEGIN statement and never ended:
// as in MySQL, a session that ends inside a transaction rolls it back (its queued writes were
// never sent).
func (cn *conn) ResetSession(ctx context.Context) error {
	if cn.c.closed.Load() {
		return driver.ErrBadConn // nothing was sent; database/sql discards the connection
	}
	cn.tx = nil
	return nil
}

// IsValid is false once the connector is closed.
func (cn *conn) IsValid() bool { return !cn.c.closed.Load() }

// CheckNamedValue accepts the argument types of bindArg.
func (cn *conn) CheckNamedValue(nv *driver.NamedValue) error {
	v, err := bindArg(nv.Value)
	if err != nil {
		if nv.Name != "" {
			return fmt.Errorf("argument :%s: %w", nv.Name, err)
		}
		return fmt.Errorf("argument %d: %w", nv.Ordinal, err)
	}
	if n := valueBytes(v); n > maxValueBytes {
		what := fmt.Sprintf("argument %d", nv.Ordinal)
		if nv.Name != "" {
			what = "argument :" + nv.Name
		}
		return &ValueTooLargeError{What: what, Bytes: n}
	}
	nv.Value = v
	return nil
}

// QueryContext runs a SELECT, SHOW TABLES, SHOW COLUMNS or DESCRIBE; an INSERT, UPDATE or
// DELETE run here returns the records it wrote.
func (cn *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	st, err := parseStatement(query)
	if err != nil {
		return nil, err
	}
	return cn.query(ctx, st, args)
}

// ExecContext runs an INSERT, UPDATE or DELETE.
func (cn *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	st, err := parseStatement(query)
	if err != nil {
		return nil, err
	}
	return cn.exec(ctx, st, args)
}

// statement is a statement as the front end read it (frontend.Read decides what it is), in the
// form the execution below dispatches on.
type statement struct {
	describe  *frontend.ShowColumns   // SHOW [FULL] COLUMNS, DESCRIBE t (describe.go)
	variables *frontend.ShowVariables // SHOW [GLOBAL] VARIABLES [LIKE …] (session.go)
	ddl       *frontend.DDL           // CREATE TABLE, ALTER TABLE, CREATE INDEX (ddl.go)
	// returning is the RETURNING list of an INSERT or DELETE (returning.go), nil when none;
	// returningLabels its labels.
	returning       sqlparser.SelectExprs
	returningLabels frontend.Labels
	ast             sqlparser.Statement
	// labels are the column labels of a SELECT's list, as MySQL gives them (frontend/labels.go).
	labels  frontend.Labels
	explain bool // EXPLAIN <statement>: describe the work, do none of it
	// prepared is PREPARE, EXECUTE or DEALLOCATE PREPARE (session.go).
	prepared *frontend.PreparedCommand
	// show is a SHOW statement answered by a SELECT over information_schema (ast holds the
	// SELECT): the table and database it names are checked before it runs.
	show *frontend.ShowQuery
	// refused is a statement the front end read that a driver connection does not run (KILL):
	// the error its execution returns.
	refused error
	// use is USE db (use.go).
	use *frontend.Use
}

// parseStatement reads a statement with the front end and gives it its place in statement.
func parseStatement(query string) (statement, error) {
	fe, err := frontend.Read(query)
	if err != nil {
		return statement{}, fromFrontend(err)
	}
	return fromStatement(fe)
}

// fromFrontend gives the front end's errors the driver's types.
func fromFrontend(err error) error {
	var se *SyntaxError
	if errors.As(err, &se) {
		return se
	}
	return fromTranslate(err)
}

func fromStatement(fe frontend.Statement) (statement, error) {
	switch s := fe.(type) {
	case *frontend.Explain:
		st, err := fromStatement(s.Inner)
		if err != nil {
			return statement{}, err
		}
		st.explain = true
		return st, nil
	case *frontend.PreparedCommand:
		return statement{prepared: s}, nil
	case *frontend.DDL:
		return statement{ddl: s}, nil
	case *frontend.ShowColumns:
		return statement{describe: s}, nil
	case *frontend.ShowVariables:
		return statement{variables: s}, nil
	case *frontend.ShowQuery:
		return statement{ast: s.AST, show: s}, nil
	case *frontend.Use:
		return statement{use: s}, nil
	case *frontend.Kill:
		return statement{refused: &UnsupportedError{Construct: "KILL",
			Hint: "airsql serve answers KILL for its connections; a driver connection cancels a statement through its context"}}, nil
	case *frontend.Select:
		return statement{ast: s.AST, labels: s.Labels}, checkLiteralSizes(s.AST)
	case *frontend.Insert:
		return statement{ast: s.AST, returning: s.Returning, returningLabels: s.ReturningLabels}, checkLiteralSizes(s.AST)
	case *frontend.Delete:
		return statement{ast: s.AST, returning: s.Returning, returningLabels: s.ReturningLabels}, checkLiteralSizes(s.AST)
	case *frontend.Update:
		return statement{ast: s.AST}, checkLiteralSizes(s.AST)
	case *frontend.Set:
		return statement{ast: s.AST}, checkLiteralSizes(s.AST)
	case *frontend.Show:
		return statement{ast: s.AST}, nil
	case *frontend.Begin:
		return statement{ast: &sqlparser.Begin{}}, nil
	case *frontend.Commit:
		return statement{ast: &sqlparser.Commit{}}, nil
	case *frontend.Rollback:
		return statement{ast: &sqlparser.Rollback{}}, nil
	case *frontend.Other:
		return statement{ast: s.AST}, nil
	}
	return statement{}, fmt.Errorf("airsql: the statement kind %T has no execution", fe)
}

func (cn *conn) query(ctx context.Context, st statement, nvs []driver.NamedValue) (driver.Rows, error) {
	if cn.c.closed.Load() {
		return nil, ErrConnectorClosed
	}
	if st.explain {
		return cn.explain(ctx, st, nvs)
	}
	if st.refused != nil {
		return nil, st.refused
	}
	if st.use != nil {
		return nil, &UnsupportedError{Construct: "USE with Query", Hint: "run it with Exec: it returns no rows"}
	}
	if st.prepared != nil {
		rows, _, err := cn.preparedCommand(ctx, st.prepared, nvs, true)
		return rows, err
	}
	if st.describe != nil {
		return cn.describe(ctx, st.describe)
	}
	if st.variables != nil {
		return cn.showVariables(st.variables), nil
	}
	if st.ddl != nil {
		if _, err := cn.execDDL(ctx, st.ddl); err != nil {
			return nil, err
		}
		return noRows(), nil
	}
	args, err := cn.statementArgs(nvs)
	if err != nil {
		return nil, err
	}
	args.Labels = st.labels
	if st.returning != nil {
		args.Labels = st.returningLabels
	}
	if err := checkLikeSizes(st.ast, args); err != nil {
		return nil, err
	}
	if st.show != nil {
		if err := cn.checkShow(ctx, st.show); err != nil {
			return nil, err
		}
	}
	switch ast := st.ast.(type) {
	case *sqlparser.Select:
		if err := cn.flushBefore(ctx, ast); err != nil {
			return nil, err
		}
		return cn.selectRows(ctx, ast, args)
	case *sqlparser.Union:
		if err := cn.flushBefore(ctx, ast); err != nil {
			return nil, err
		}
		return cn.selectRows(ctx, ast, args)
	case *sqlparser.Show:
		return cn.show(ctx, ast)
	case *sqlparser.Insert, *sqlparser.Update, *sqlparser.Delete:
		if _, _, ok := commentsWriteTarget(ast); ok && st.returning != nil {
			return nil, &UnsupportedError{Construct: "RETURNING on a comments table", Hint: "SELECT the comments after writing them"}
		}
		if _, ok, err := cn.writeComments(ctx, ast, args); ok {
			if err != nil {
				return nil, err
			}
			return noRows(), nil
		}
		if hasLoadFile(ast) && st.returning != nil {
			return nil, &UnsupportedError{Construct: "RETURNING with LOAD_FILE", Hint: "SELECT the records after writing them"}
		}
		if _, ok, err := cn.writeWithFiles(ctx, ast, args); ok {
			if err != nil {
				return nil, err
			}
			return noRows(), nil
		}
		return cn.writeRows(ctx, ast, args, st.returning)
	case *sqlparser.Begin, *sqlparser.Commit, *sqlparser.Rollback:
		if _, err := cn.exec(ctx, st, nvs); err != nil {
			return nil, err
		}
		return noRows(), nil
	case *sqlparser.Set:
		if err := cn.set(ast, args); err != nil {
			return nil, err
		}
		return noRows(), nil
	}
	return nil, unsupportedStatement(st.ast)
}

func (cn *conn) exec(ctx context.Context, st statement, nvs []driver.NamedValue) (driver.Result, error) {
	if cn.c.closed.Load() {
		return nil, ErrConnectorClosed
	}
	if st.explain {
		return nil, &UnsupportedError{Construct: "EXPLAIN with Exec", Hint: "run it with Query, which returns its rows"}
	}
	if st.refused != nil {
		return nil, st.refused
	}
	if st.use != nil {
		return result{}, cn.useDatabase(st.use.Database)
	}
	if st.prepared != nil {
		_, res, err := cn.preparedCommand(ctx, st.prepared, nvs, false)
		return res, err
	}
	if st.describe != nil || st.variables != nil {
		return nil, &UnsupportedError{Construct: "SHOW or DESCRIBE with Exec", Hint: "run it with Query, which returns its rows"}
	}
	if st.ddl != nil {
		return cn.execDDL(ctx, st.ddl)
	}
	args, err := cn.statementArgs(nvs)
	if err != nil {
		return nil, err
	}
	if err := checkLikeSizes(st.ast, args); err != nil {
		return nil, err
	}
	switch ast := st.ast.(type) {
	case *sqlparser.Insert, *sqlparser.Update, *sqlparser.Delete:
		if n, ok, err := cn.writeComments(ctx, ast, args); ok {
			if err != nil {
				return nil, err
			}
			return result{affected: n}, nil
		}
		if n, ok, err := cn.writeWithFiles(ctx, ast, args); ok {
			if err != nil {
				return nil, err
			}
			return result{affected: n}, nil
		}
		n, err := cn.execWrite(ctx, st.ast, args)
		if err != nil {
			return nil, err
		}
		return result{affected: n}, nil
	case *sqlparser.Begin:
		return result{}, cn.beginStatement(ctx)
	case *sqlparser.Commit:
		return result{}, cn.commit()
	case *sqlparser.Rollback:
		return result{}, cn.rollback()
	case *sqlparser.Set:
		if err := cn.set(ast, args); err != nil {
			return nil, err
		}
		return result{}, nil
	case *sqlparser.Select, *sqlparser.Union, *sqlparser.Show:
		return nil, &UnsupportedError{Construct: "a query with Exec", Hint: "run it with Query, which returns its rows"}
	}
	return nil, unsupportedStatement(st.ast)
}

// unsupportedStatement names a statement the driver does not run.
func unsupportedStatement(ast sqlparser.Statement) error {
	switch s := ast.(type) {
	case *sqlparser.Union:
		return &UnsupportedError{Construct: "UNION", Hint: "run each SELECT on its own"}
	case *sqlparser.DDL:
		switch s.Action {
		case sqlparser.DropStr, sqlparser.TruncateStr:
			return &UnsupportedError{Construct: strings.ToUpper(s.Action) + " TABLE",
				Hint: "the Airtable API cannot delete tables: delete it in Airtable itself (DELETE FROM t removes its records)"}
		}
		return &UnsupportedError{Construct: strings.ToUpper(s.Action) + " " + sqlparser.String(s.Table),
			Hint: "the driver runs CREATE TABLE, ALTER TABLE, RENAME TABLE and CREATE INDEX; change anything else in Airtable itself"}
	case *sqlparser.DBDDL:
		return &UnsupportedError{Construct: strings.ToUpper(s.Action) + " DATABASE",
			Hint: "a database is an Airtable base: create it in Airtable and name its id in the DSN"}
	case *sqlparser.Show:
		return &UnsupportedError{Construct: "SHOW " + strings.ToUpper(s.Type),
			Hint: "the driver answers SHOW DATABASES, TABLES, COLUMNS, TABLE STATUS, CREATE TABLE, INDEX, VARIABLES, ENGINES, CHARACTER SET and COLLATION, and DESCRIBE t"}
	case *sqlparser.Set:
		return &UnsupportedError{Construct: "EXPLAIN SET", Hint: "SET sends no request: run it with Exec"}
	case *sqlparser.Use:
		return &UnsupportedError{Construct: "USE", Hint: "a connection reaches the one base named in its DSN"}
	case *sqlparser.Stream:
		return &UnsupportedError{Construct: "STREAM"}
	case *sqlparser.OtherRead:
		return &UnsupportedError{Construct: "this statement (sqlparser reads it as an opaque read)",
			Hint: "EXPLAIN takes SELECT, INSERT, UPDATE, DELETE, SHOW or DESCRIBE"}
	case *sqlparser.OtherAdmin:
		return &UnsupportedError{Construct: "administrative statements (REPAIR, TRUNCATE, OPTIMIZE, ...)",
			Hint: "use DELETE FROM t to remove records"}
	}
	return &UnsupportedError{Construct: fmt.Sprintf("the statement %q", sqlparser.String(ast))}
}

// translateArgs splits database/sql's arguments into ? (in order) and :name ones.
func translateArgs(nvs []driver.NamedValue) (translate.Args, error) {
	var args translate.Args
	sorted := append([]driver.NamedValue(nil), nvs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Ordinal < sorted[j].Ordinal })
	for _, nv := range sorted {
		if nv.Name == "" {
			args.Positional = append(args.Positional, nv.Value)
			continue
		}
		if args.Named == nil {
			args.Named = map[string]any{}
		}
		if _, dup := args.Named[nv.Name]; dup {
			return args, fmt.Errorf("airsql: argument :%s is given twice", nv.Name)
		}
		args.Named[nv.Name] = nv.Value
	}
	return args, nil
}

// schemaRecheckAfter is how old a cached schema must be before a statement it cannot plan makes
// the driver fetch the schema again (at most once per statement).
const schemaRecheckAfter = 10 * time.Second

// planned reads the schema (making sure it has the tables a statement names) and runs one of
// translate's planners on it; its refusals come back as *UnsupportedError.
func planned[P any](ctx context.Context, cn *conn, tables []string, plan func(translate.Schema) (P, error)) (P, *baseSchema, error) {
	var zero P
	db := cn.db() // the default database's: bare table names are its tables
	schema, err := db.schemaFor(ctx, tables...)
	if err != nil {
		return zero, nil, err
	}
	p, err := plan(schema)
	var refused *translate.UnsupportedError
	if err != nil && !errors.As(err, &refused) && db.schemaAge() > schemaRecheckAfter && ctx.Value(noSchemaRecheck{}) == nil {
		// The statement may name a column added since the schema was cached: plan once more
		// against a fresh schema before refusing (not for a construct refused whatever the names).
		if fresh, ferr := db.loadSchema(ctx, true); ferr == nil {
			schema = fresh
			p, err = plan(schema)
		}
	}
	if err != nil {
		return zero, nil, fromTranslate(err)
	}
	return p, schema, nil
}

// tableOf returns the table named by a plain FROM (or UPDATE/DELETE target), so that a table
// created since the schema was cached is found; other forms are left to translate, which
// refuses them by name.
func tableOf(expr sqlparser.TableExprs) []string {
	if len(expr) != 1 {
		return nil
	}
	if ate, ok := expr[0].(*sqlparser.AliasedTableExpr); ok {
		if tn, ok := ate.Expr.(sqlparser.TableName); ok {
			return []string{tn.Name.String()}
		}
	}
	return nil
}
