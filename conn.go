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

	"github.com/airsql/airsql/translate"
)

// conn is one database/sql connection. It holds no network state: every statement is one or
// more HTTP requests through the connector's client, so a conn never goes bad and database/sql
// never needs to retry on another one (the driver never returns driver.ErrBadConn after a
// request may have reached the service).
type conn struct {
	c *Connector
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
	return &stmt{cn: cn, st: st}, nil
}

func (cn *conn) Close() error { return nil }

// Begin fails: Airtable has no transactions.
func (cn *conn) Begin() (driver.Tx, error) { return nil, ErrNoTransactions }

// BeginTx fails: Airtable has no transactions.
func (cn *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return nil, ErrNoTransactions
}

// Ping fetches the base schema, which checks the host, the token, its scopes and the base id,
// and refreshes the cache.
func (cn *conn) Ping(ctx context.Context) error {
	_, err := cn.c.loadSchema(ctx, true)
	return err
}

// ResetSession has nothing to reset: connections keep no session state.
func (cn *conn) ResetSession(ctx context.Context) error {
	if cn.c.closed.Load() {
		return driver.ErrBadConn // nothing was sent; database/sql discards the connection
	}
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

// statement is a parsed statement: a schema statement sqlparser cannot read, or sqlparser's AST.
type statement struct {
	describe *schemaStatement
	ast      sqlparser.Statement
	explain  bool // EXPLAIN <statement>: describe the work, do none of it
}

func parseStatement(query string) (statement, error) {
	if inner, ok := cutExplain(query); ok {
		st, err := parseStatement(inner)
		if err != nil || st.explain {
			if err == nil {
				err = &UnsupportedError{Construct: "EXPLAIN EXPLAIN"}
			}
			return statement{}, err
		}
		st.explain = true
		return st, nil
	}
	desc, ok, err := parseSchemaStatement(query)
	if err != nil {
		return statement{}, err
	}
	if ok {
		return statement{describe: &desc}, nil
	}
	ast, err := translate.Parse(query) // sqlparser itself, with its panics turned into errors
	if err != nil {
		return statement{}, fmt.Errorf("airsql: %w (SQL is read in the MySQL dialect: quote names with spaces in backquotes, strings in single quotes)", err)
	}
	return statement{ast: ast}, nil
}

func (cn *conn) query(ctx context.Context, st statement, nvs []driver.NamedValue) (driver.Rows, error) {
	if cn.c.closed.Load() {
		return nil, ErrConnectorClosed
	}
	if st.explain {
		return cn.explain(ctx, st, nvs)
	}
	if st.describe != nil {
		return cn.describe(ctx, st.describe.table)
	}
	args, err := translateArgs(nvs)
	if err != nil {
		return nil, err
	}
	switch ast := st.ast.(type) {
	case *sqlparser.Select:
		return cn.selectRows(ctx, ast, args)
	case *sqlparser.Show:
		return cn.show(ctx, ast)
	case *sqlparser.Insert:
		return cn.insert(ctx, ast, args)
	case *sqlparser.Update:
		return cn.update(ctx, ast, args)
	case *sqlparser.Delete:
		return cn.delete(ctx, ast, args)
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
	if st.describe != nil {
		return nil, &UnsupportedError{Construct: "DESCRIBE with Exec", Hint: "run it with Query, which returns its rows"}
	}
	args, err := translateArgs(nvs)
	if err != nil {
		return nil, err
	}
	var w writeOutcome
	switch ast := st.ast.(type) {
	case *sqlparser.Insert:
		w, err = cn.insertRecords(ctx, ast, args)
	case *sqlparser.Update:
		w, err = cn.updateRecords(ctx, ast, args)
	case *sqlparser.Delete:
		w, err = cn.deleteRecords(ctx, ast, args)
	case *sqlparser.Select, *sqlparser.Union, *sqlparser.Show:
		return nil, &UnsupportedError{Construct: "a query with Exec", Hint: "run it with Query, which returns its rows"}
	default:
		return nil, unsupportedStatement(st.ast)
	}
	if err != nil {
		return nil, err
	}
	return result{affected: int64(w.affected())}, nil
}

// unsupportedStatement names a statement the driver does not run.
func unsupportedStatement(ast sqlparser.Statement) error {
	switch s := ast.(type) {
	case *sqlparser.Begin, *sqlparser.Commit, *sqlparser.Rollback:
		return ErrNoTransactions
	case *sqlparser.Union:
		return &UnsupportedError{Construct: "UNION", Hint: "run each SELECT on its own"}
	case *sqlparser.DDL:
		return &UnsupportedError{Construct: strings.ToUpper(s.Action) + " TABLE",
			Hint: "tables and fields are created and changed in Airtable itself (or its metadata API)"}
	case *sqlparser.DBDDL:
		return &UnsupportedError{Construct: strings.ToUpper(s.Action) + " DATABASE",
			Hint: "a database is an Airtable base: create it in Airtable and name its id in the DSN"}
	case *sqlparser.Show:
		return &UnsupportedError{Construct: "SHOW " + strings.ToUpper(s.Type),
			Hint: "the driver answers SHOW DATABASES, SHOW TABLES, SHOW COLUMNS FROM t and DESCRIBE t"}
	case *sqlparser.Set:
		return &UnsupportedError{Construct: "SET", Hint: "the driver has no session variables; settings go in the DSN"}
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

// selectRows plans a SELECT and starts fetching its records.
func (cn *conn) selectRows(ctx context.Context, ast *sqlparser.Select, args translate.Args) (driver.Rows, error) {
	plan, _, err := planned(ctx, cn, tableOf(ast.From), func(s translate.Schema) (*translate.Plan, error) {
		return translate.Select(ast, s, args)
	})
	if err != nil {
		return nil, err
	}
	return newQueryRows(ctx, cn.c.base, plan, cn.c.cfg.PageSize), nil
}

// schemaRecheckAfter is how old a cached schema must be before a statement it cannot plan makes
// the driver fetch the schema again (at most once per statement).
const schemaRecheckAfter = 10 * time.Second

// planned reads the schema (making sure it has the tables a statement names) and runs one of
// translate's planners on it; its refusals come back as *UnsupportedError.
func planned[P any](ctx context.Context, cn *conn, tables []string, plan func(translate.Schema) (P, error)) (P, *baseSchema, error) {
	var zero P
	schema, err := cn.c.schemaFor(ctx, tables...)
	if err != nil {
		return zero, nil, err
	}
	p, err := plan(schema)
	var refused *translate.UnsupportedError
	if err != nil && !errors.As(err, &refused) && cn.c.schemaAge() > schemaRecheckAfter {
		// The statement may name a column added since the schema was cached: plan once more
		// against a fresh schema before refusing (not for a construct refused whatever the names).
		if fresh, ferr := cn.c.loadSchema(ctx, true); ferr == nil {
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
