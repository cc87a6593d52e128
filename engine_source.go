package airsql

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/engine"
	"github.com/airsql/airsql/translate"
)

// scanSource is the engine's way to the service: it runs a scan's request with transport, one
// page ahead of the reader (recordSource).
type scanSource struct {
	c *Connector
}

func (s scanSource) Scan(ctx context.Context, plan *translate.Plan) (engine.Pages, error) {
	// The table's own base: its pacing, result cache and sizes, whichever base the statement's
	// other tables are in.
	c := s.c.connectorOf(plan.Table)
	table := c.base.Table(plan.Table.ID)
	pageSize := c.cfg.PageSize
	p := &scanPages{progress: newProgressTracker(ctx, plan.Table.Name)}
	if plan.RecordIDs == nil && plan.Request.Formula == "" && plan.Request.View == "" && plan.Request.MaxRecords == 0 {
		// A scan of the whole table: its count of records is the table's size.
		p.sizes, p.tableID = &c.tableSizes, plan.Table.ID
	}
	if plan.RecordIDs != nil {
		p.src = startGets(ctx, table, plan.RecordIDs)
	} else {
		p.src = startPlanList(p.progress.cacheContext(ctx), table, plan, pageSize)
	}
	return p, nil
}

// scanPages hands the records of a recordSource to the engine as rows.
type scanPages struct {
	src      *recordSource
	progress *progressTracker
	sizes    *sync.Map // non-nil: record the table's size at the end
	tableID  string
	records  int
}

func (p *scanPages) Next(ctx context.Context) ([]translate.Row, error) {
	if p.src == nil {
		return nil, io.EOF
	}
	pg, err := p.src.next(ctx)
	if err != nil {
		if err == io.EOF {
			if p.sizes != nil {
				p.sizes.Store(p.tableID, p.records)
			}
			p.Close()
		}
		return nil, err
	}
	p.records += len(pg.records)
	p.progress.page(len(pg.records))
	rows := make([]translate.Row, len(pg.records))
	for i := range pg.records {
		rows[i] = rowOf(&pg.records[i], pg.layout)
	}
	return rows, nil
}

func (p *scanPages) Close() {
	p.progress.end()
	if p.src != nil {
		p.src.close()
		p.src = nil
	}
}

// planQuery reads the schema the statement needs and plans it for the engine.
func (cn *conn) planQuery(ctx context.Context, stmt sqlparser.SelectStatement, args translate.Args) (*translate.Query, *engine.Catalog, error) {
	args.LocalOnly = cn.c.localOnly || cn.c.replica != nil // the replica's rows are all local
	ast, isSelect := stmt.(*sqlparser.Select)
	if isSelect {
		if name, base, ok := commentsTableOf(ast.From); ok {
			return cn.planComments(ctx, ast, name, base, args)
		}
	}
	if hasLoadFile(stmt) {
		return nil, nil, &UnsupportedError{Construct: "LOAD_FILE in a query",
			Hint: "LOAD_FILE('path') uploads a file as the value of an attachment column in INSERT … VALUES or UPDATE … SET; it does not read files into results"}
	}
	if err := commentsInside(stmt); err != nil {
		return nil, nil, err
	}
	if isSelect && isDual(ast.From) && !hasSubquery(ast) {
		// SELECT 1, SELECT … FROM DUAL: no table, so no schema to read (a pool's health check
		// costs no request).
		q, err := translate.NewQuery(ast, emptySchema{}, args)
		if err != nil {
			return nil, nil, fromTranslate(err)
		}
		return q, nil, nil
	}
	tables := statementTables(stmt)
	if cn.inInformationSchema() {
		tables = nil // bare names are information_schema's first: the catalog finds them
	}
	if err := cn.refuseOtherBasesOnReplica(cn.db(), stmt); err != nil {
		return nil, nil, err
	}
	q, _, catalog, err := plannedInCatalog(ctx, cn, stmt, tables, func(catalog *engine.Catalog) (*translate.Query, error) {
		return translate.NewQueryStatement(stmt, catalog, args)
	})
	if err != nil {
		return nil, nil, err
	}
	return q, catalog, nil
}

// plannedInCatalog plans a statement (plan) against the catalog its names are read in: the default
// database's schema (planned reads it, and reads it again when a name is missing from a cached
// one), the other served bases the statement names, and information_schema. A SELECT and the
// search of an UPDATE or DELETE are planned here alike.
func plannedInCatalog[P any](ctx context.Context, cn *conn, stmt sqlparser.SQLNode, tables []string, plan func(*engine.Catalog) (P, error)) (P, *baseSchema, *engine.Catalog, error) {
	var zero P
	def := cn.db()
	others, err := cn.otherDatabases(ctx, def, stmt, cn.inInformationSchema())
	if err != nil {
		return zero, nil, nil, err
	}
	var catalog *engine.Catalog
	planning := 0
	p, schema, err := planned(ctx, cn, tables, func(s translate.Schema) (P, error) {
		if planning++; planning > 1 {
			// planned plans once more against a fresh schema: the other bases' too.
			if err := refreshDatabases(ctx, others); err != nil {
				return zero, err
			}
		}
		catalog = cn.catalogOf(def, s.(*baseSchema), others)
		return plan(catalog)
	})
	if err != nil {
		return zero, nil, nil, err
	}
	return p, schema, catalog, nil
}

// commentsInside refuses a comments table that a statement names other than alone (a SELECT of
// Table$comments alone and the writes of comments are planned apart, comments.go).
func commentsInside(stmt sqlparser.SQLNode) error {
	if namesComments(stmt) {
		return &UnsupportedError{Construct: "a comments table in a join, a subquery or a UNION",
			Hint: "read Table$comments alone, WHERE record_id IN (…), and combine its rows in your program"}
	}
	return nil
}

// isDual reports a FROM that names no table: none written (sqlparser reads it as DUAL) or DUAL.
func isDual(from sqlparser.TableExprs) bool {
	if len(from) != 1 {
		return false
	}
	ate, ok := from[0].(*sqlparser.AliasedTableExpr)
	if !ok || !ate.As.IsEmpty() {
		return false
	}
	tn, ok := ate.Expr.(sqlparser.TableName)
	return ok && tn.Qualifier.IsEmpty() && strings.EqualFold(tn.Name.String(), "dual")
}

// emptySchema has no table.
type emptySchema struct{}

func (emptySchema) Table(string) (*translate.Table, bool) { return nil, false }

// selectTables is the base tables a SELECT names, so that one created since the schema was cached
// is found: information_schema tables and DUAL are not the base's.
func selectTables(from sqlparser.TableExprs) []string {
	if len(from) == 1 {
		if ate, ok := from[0].(*sqlparser.AliasedTableExpr); ok {
			if tn, ok := ate.Expr.(sqlparser.TableName); ok {
				if !tn.Qualifier.IsEmpty() || strings.EqualFold(tn.Name.String(), "dual") {
					return nil
				}
			}
		}
	}
	return tableOf(from)
}

// selectRows plans a SELECT and starts its operators: rows stream page by page when no step must
// hold them.
func (cn *conn) selectRows(ctx context.Context, ast sqlparser.SelectStatement, args translate.Args) (driver.Rows, error) {
	q, catalog, err := cn.planQuery(ctx, ast, args)
	if err != nil {
		return nil, err
	}
	// The rows outlive the call that made them: their fetching ends with Close, or with the
	// statement's context (database/sql closes the rows then).
	ctx, cancel := context.WithCancel(ctx)
	op, err := engine.Build(q, engine.Options{
		Source:  cn.c.source(),
		MaxRows: cn.c.cfg.MaxRows,
		Catalog: catalog,
		NoBind:  noBindJoins,
	})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("airsql: %w", err)
	}
	if err := cn.c.copyForReplica(ctx, op); err != nil {
		cancel()
		return nil, err
	}
	engine.Start(ctx, op) // the first page is requested now, not at the first Next
	return &engineRows{resultColumns: q.Columns, ctx: ctx, cancel: cancel, op: op}, nil
}

// engineRows returns the rows of the engine's root operator.
type engineRows struct {
	resultColumns
	ctx    context.Context
	cancel context.CancelFunc
	op     engine.Operator
	done   bool
}

var (
	_ driver.Rows                           = (*engineRows)(nil)
	_ driver.RowsColumnTypeScanType         = (*engineRows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*engineRows)(nil)
	_ driver.RowsColumnTypeNullable         = (*engineRows)(nil)
)

func (r *engineRows) Next(dest []driver.Value) error {
	if r.done {
		return io.EOF
	}
	row, err := r.op.Next(r.ctx)
	if err != nil {
		r.done = true
		r.op.Close()
		return err
	}
	for i := range dest {
		dest[i] = row.Values[i]
	}
	return nil
}

func (r *engineRows) Close() error {
	r.done = true
	r.op.Close()
	r.cancel()
	return nil
}

// Requests is the number of list requests a plan takes at most, from the table's size learnt by an
// earlier whole-table scan or COUNT(*) (engine.Sizer: a bind join compares it with its batches'
// pages).
func (s scanSource) Requests(plan *translate.Plan) (int, bool) {
	n, pageSize, ok := s.Records(plan)
	if !ok || plan.RecordIDs != nil {
		return 0, false
	}
	return max(1, (n+pageSize-1)/pageSize), true
}

// Records is the number of records of a plan's table, learnt by an earlier whole-table scan or
// COUNT(*), and the records one list request returns (engine.Sizer).
func (s scanSource) Records(plan *translate.Plan) (int, int, bool) {
	c := s.c.connectorOf(plan.Table)
	v, ok := c.tableSizes.Load(plan.Table.ID)
	if !ok {
		return 0, 0, false
	}
	pageSize := c.cfg.PageSize
	if pageSize <= 0 {
		pageSize = 100
	}
	return v.(int), pageSize, true
}

// hasSubquery reports a subquery anywhere in a statement (its tables need the base's schema).
func hasSubquery(node sqlparser.SQLNode) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if _, ok := n.(*sqlparser.Subquery); ok {
			found = true
		}
		return !found, nil
	}, node)
	return found
}

// statementTables is the base tables a SELECT, a UNION or a join names (subqueries included), so
// that one created since the schema was cached is found.
func statementTables(stmt sqlparser.SelectStatement) []string {
	if sel, ok := stmt.(*sqlparser.Select); ok && !isJoinFrom(sel.From) && !hasSubquery(sel) {
		return selectTables(sel.From)
	}
	return namedTables(stmt)
}

// namedTables is the base tables a statement's FROM clauses name, subqueries' included (not a
// DELETE's targets, which may be aliases).
func namedTables(stmt sqlparser.SQLNode) []string {
	var names []string
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if ate, ok := n.(*sqlparser.AliasedTableExpr); ok {
			if tn, ok := ate.Expr.(sqlparser.TableName); ok && tn.Qualifier.IsEmpty() && !strings.EqualFold(tn.Name.String(), "dual") {
				names = append(names, tn.Name.String())
			}
		}
		return true, nil
	}, stmt)
	return names
}

func isJoinFrom(from sqlparser.TableExprs) bool {
	if len(from) != 1 {
		return true
	}
	_, plain := from[0].(*sqlparser.AliasedTableExpr)
	return !plain
}

// noBindJoins turns the engine's key pushdown off (benchmarks comparing bind joins with scans).
var noBindJoins = false
