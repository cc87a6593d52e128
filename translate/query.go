package translate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// InformationSchema is the database name of the tables that describe the base (TABLES, COLUMNS, …).
// A Schema answers them under the name "information_schema.<TABLE>" (upper case), as in-memory
// tables (Table.Local).
const InformationSchema = "information_schema"

// QualifiedSchema is a Schema that also resolves database-qualified names (db.table): a Schema
// that implements it lets FROM, write targets and three-part column names name any database it
// serves (the driver's catalog: the connection's bases).
type QualifiedSchema interface {
	Schema
	TableIn(database, name string) (*Table, bool)
}

// Query is a SELECT planned for the engine: the scan of its table (today's Plan: the request and
// the local re-check of WHERE), then the local steps, each described by expressions compiled here so
// that every step uses this package's comparison, NULL and type rules.
//
// The engine runs it as: Scan (or, when Scan is nil, one row with no columns) → Where re-check
// (Scan.Keep) → when Grouped, group by GroupBy and compute Aggregates (rows then hold
// Values = group keys, then aggregate results) → Having → Outputs (rows then hold Values = the
// output columns, then hidden sort keys) → Distinct (over the output columns) → sort by Order when
// SortLocally → skip Offset rows → stop after Limit rows → the first len(Columns) values.
type Query struct {
	Scan *Plan // nil: no table (SELECT 1, FROM DUAL), or a join
	Join *Join // several tables (then Scan is nil): the rows are the join's
	// Union: a UNION (then Scan and Join are nil): the rows are its branches'; Outputs read them.
	Union *Union
	// Subqueries: run before the statement's first row (each Query's rows go to the run's Env.SetRows), in
	// this order (a subquery's own subqueries come before it).
	Subqueries []*Subquery
	Where      *Expr    // when Scan is nil: the WHERE clause, checked on the one row or on the joined rows
	Columns    []Column // the output columns

	Grouped bool    // GROUP BY, or aggregates without it (then one group, even over no rows)
	GroupBy []*Expr // on scan rows
	// Rollup: GROUP BY … WITH ROLLUP. The grouped rows also hold the super-aggregate rows of each
	// prefix of GroupBy (the keys after it NULL), each after the rows it sums up, and the grand
	// total last; their Values are the keys, the rollup level (how many keys are not rolled up),
	// then the aggregates.
	Rollup     bool
	Aggregates []*Aggregate
	Having     *Expr // on grouped rows when Grouped, else on scan rows; nil: none

	// Windows: the window functions, computed on the rows after HAVING (Row.Window holds their
	// results, in this order) before Outputs (window.go).
	Windows []*WindowFunc

	Outputs     []*Expr   // the output columns, then hidden sort keys
	Distinct    bool      // SELECT DISTINCT
	Order       []SortKey // positions in Outputs
	SortLocally bool      // the rows must be sorted by Order here (the scan's order is not SQL's)
	Offset      int
	Limit       int // -1: none
}

// SortKey is one ORDER BY key: a position in Query.Outputs.
type SortKey struct {
	Slot int
	Desc bool
	SQL  string
	// Names: the key is a column of names compared regardless of case (information_schema's
	// TABLE_NAME, COLUMN_NAME, …), ordered by CompareNames.
	Names bool
}

// Expr is a compiled expression, evaluated on one row with SQL semantics (nil is NULL).
type Expr struct{ e *expr }

// Eval computes the expression for a row; a condition gives true, false or nil (UNKNOWN).
func (x *Expr) Eval(r *Row) (any, error) { return x.e.eval(r) }

// Value computes the expression for a row as a driver value of its column's type.
func (x *Expr) Value(r *Row) (any, error) {
	v, err := x.e.eval(r)
	if err != nil {
		return nil, err
	}
	return driverValue(x.e.typ, v), nil
}

// String is the expression's SQL text, as far as it is known.
func (x *Expr) String() string { return describe(x.e) }

func wrap(e *expr) *Expr {
	if e == nil {
		return nil
	}
	return &Expr{e: e}
}

// Streams reports whether rows can be returned as the scan's pages arrive: no aggregate and no
// local sort. (DISTINCT streams: it passes each new row on, holding only what it has seen.)
func (q *Query) Streams() bool { return !q.Grouped && !q.SortLocally && len(q.Windows) == 0 }

// NewQuery plans a SELECT for the engine. What it cannot run it refuses with an error naming the
// construct; an unknown column names itself and the table.
func NewQuery(stmt *sqlparser.Select, schema Schema, args Args) (q *Query, err error) {
	return newQuery(stmt, schema, args, args.LocalOnly)
}

// newQuery is NewQuery; localOnly pushes nothing into the request (for differential tests).
func newQuery(stmt *sqlparser.Select, schema Schema, args Args, localOnly bool) (*Query, error) {
	if stmt == nil {
		return nil, fmt.Errorf("translate: no SELECT statement")
	}
	qp := &queryPlanner{stmt: stmt, q: &Query{Limit: -1}, outputIndex: map[string]int{}, localOnly: localOnly}
	q, s, err := qp.planStatement(stmt, schema, args)
	if err != nil {
		return nil, err
	}
	if err := s.unusedArgs(); err != nil {
		return nil, err
	}
	return q, nil
}

// plan plans the statement (a whole statement or a subquery) and returns its scope, whose
// arguments read the caller checks.
func (qp *queryPlanner) planStatement(stmt *sqlparser.Select, schema Schema, args Args) (*Query, *scope, error) {
	if stmt.Lock != "" {
		return nil, nil, unsupported("locking reads ("+strings.TrimSpace(stmt.Lock)+")", "", "Airtable has no transactions or locks: leave the lock clause out")
	}
	ps := newScope(nil, "", args) // plans derived tables before the statement's scope exists
	ps.schema = schema
	if isJoin(stmt.From) {
		jp := &joinPlanner{schema: schema, ps: ps}
		if err := jp.flatten(stmt.From); err != nil {
			return nil, nil, err
		}
		if len(jp.sides) > 64 {
			return nil, nil, fmt.Errorf("translate: a join of %d tables: at most 64", len(jp.sides))
		}
		qp.join = jp
		qp.s = newScope(jp.sides[0].table, jp.sides[0].alias, args)
		qp.s.sides = jp.sides
		if err := qp.s.coalesce(jp); err != nil {
			return nil, nil, err
		}
		qp.s.joinEntries = jp.entries
	} else {
		var table *Table
		var alias, view string
		var err error
		if ate, ok := stmt.From[0].(*sqlparser.AliasedTableExpr); ok && len(stmt.From) == 1 {
			if _, isSub := ate.Expr.(*sqlparser.Subquery); isSub {
				table, alias, err = ps.derivedTable(ate)
				if err != nil {
					return nil, nil, err
				}
			}
		}
		if table == nil {
			table, alias, view, err = queryFrom(stmt.From, schema)
			if err != nil {
				return nil, nil, err
			}
		}
		if table == nil {
			qp.s = newScope(&Table{Name: "dual"}, "dual", args)
			qp.s.noTable = true
			qp.dual = true
		} else {
			qp.s = newScope(table, alias, args)
			qp.plan = &Plan{Table: table, Limit: -1, Request: Request{View: view}}
		}
	}
	qp.s.schema = schema
	qp.s.outer = qp.outer
	qp.s.adopt(ps)
	if err := qp.compileJSONTableDocs(); err != nil {
		return nil, nil, err
	}
	if err := qp.run(); err != nil {
		return nil, nil, err
	}
	qp.q.Subqueries = qp.s.subqueries
	return qp.q, qp.s, nil
}

// queryFrom resolves FROM for a Query: nil table for no table or DUAL, an information_schema table,
// or a table of the base as Select resolves it.
func queryFrom(from sqlparser.TableExprs, schema Schema) (*Table, string, string, error) {
	if len(from) == 1 {
		if ate, ok := from[0].(*sqlparser.AliasedTableExpr); ok {
			if tn, ok := ate.Expr.(sqlparser.TableName); ok {
				name := tn.Name.String()
				if tn.Qualifier.IsEmpty() && strings.EqualFold(name, "dual") && ate.As.IsEmpty() {
					// DUAL is MySQL's reserved name for no table (a base table named dual is
					// reached with an alias or its tbl… id).
					return nil, "", "", nil
				}
				if strings.EqualFold(tn.Qualifier.String(), InformationSchema) {
					t, ok := schema.Table(InformationSchema + "." + strings.ToUpper(name))
					if !ok || t == nil {
						return nil, "", "", unknownTablef("%s.%s (information_schema has TABLES, COLUMNS, SCHEMATA, KEY_COLUMN_USAGE, STATISTICS, and REFERENTIAL_CONSTRAINTS and ROUTINES, empty)", InformationSchema, name)
					}
					alias := name
					if !ate.As.IsEmpty() {
						alias = ate.As.String()
					}
					if ate.Hints != nil || len(ate.Partitions) > 0 {
						return nil, "", "", unsupported("USE INDEX or PARTITION on information_schema", sqlparser.String(ate), "name the table alone")
					}
					return t, alias, "", nil
				}
			}
		}
	}
	return fromClause(from, schema)
}

type queryPlanner struct {
	stmt  *sqlparser.Select
	s     *scope
	q     *Query
	plan  *Plan // nil when dual or a join
	dual  bool
	join  *joinPlanner // several tables in FROM
	outer *outerScope  // a subquery's: names its tables lack resolve in the outer query

	outputs     []*expr
	outputAST   []sqlparser.Expr // nil for the columns of *
	outputIndex map[string]int   // lower-cased output names and aliases

	// Grouping.
	groupKeys []*expr
	groupText []string // the SQL text of each GROUP BY expression (exactly: a literal's case matters)
	byID      bool     // GROUP BY includes the record id: every column is functionally dependent
	rollup    bool     // WITH ROLLUP: groupKeys ends with the rollup level's slot (rollupLevel)
	aggText   map[string]int
	aggs      []*Aggregate
	// localOnly pushes nothing into the request (a differential test's switch: set it from
	// Args.LocalOnly where that exists).
	localOnly bool
	clause    string // the clause being compiled, for ONLY_FULL_GROUP_BY messages
	item      int    // its item number (1-based)
	names     []string

	// Window functions (window.go).
	windows         []*WindowFunc
	windowTypes     []windowType
	windowText      map[string]int
	windowSpecDepth int    // > 0 while a window's specification is compiled
	windowName      string // that window's name, for messages
}

func (qp *queryPlanner) run() error {
	stmt, q, s := qp.stmt, qp.q, qp.s
	s.hook = qp.scanHook
	var where *expr
	if stmt.Where != nil {
		w, err := s.topCondition(stmt.Where.Expr)
		if err != nil {
			return err
		}
		where = w
	}
	q.Grouped = len(stmt.GroupBy) > 0 || hasAggregate(stmt.SelectExprs) ||
		(stmt.Having != nil && hasAggregate(stmt.Having)) || hasAggregate(stmt.OrderBy)
	if q.Grouped {
		if err := qp.groupBy(); err != nil {
			return err
		}
		s.hook = qp.groupedHook
	}
	if err := qp.selectList(); err != nil {
		return err
	}
	nColumns := len(qp.outputs)
	if err := qp.havingAndOrder(nColumns); err != nil {
		return err
	}
	s.hook = nil
	if err := qp.limitOffset(); err != nil {
		return err
	}
	return qp.finish(where, nColumns)
}

// selectList compiles the select list into the outputs.
func (qp *queryPlanner) selectList() error {
	stmt, s := qp.stmt, qp.s
	for i, se := range stmt.SelectExprs {
		qp.clause, qp.item = "SELECT list", i+1
		switch se := se.(type) {
		case *sqlparser.StarExpr:
			if err := qp.starColumns(se); err != nil {
				return err
			}
		case *sqlparser.AliasedExpr:
			e, err := s.compile(se.Expr)
			if err != nil {
				return err
			}
			name := columnName(se.Expr, e)
			if !se.As.IsEmpty() {
				name = se.As.String()
			}
			qp.addOutput(name, e, se.Expr)
			if label, ok := s.args.Labels[se]; ok {
				qp.names[len(qp.names)-1] = label
			}
			if _, bare := withoutParens(se.Expr).(*sqlparser.ColName); bare && se.As.IsEmpty() && e.kind == exField && e.tab == 0 &&
				s.table != nil && strings.HasPrefix(s.table.ID, InformationSchema+".") {
				// MySQL 8's information_schema tables are views whose columns are named in
				// capitals: a column selected without an alias is labelled with the view's name,
				// whatever case the query writes (SELECT column_name … is labelled COLUMN_NAME).
				qp.names[len(qp.names)-1] = e.field.Name
			}
		default:
			return unsupported(sqlparser.String(se)+" in the select list", "", "select *, columns or expressions")
		}
	}
	return nil
}

// starColumns adds the columns of * or t.* to the outputs.
func (qp *queryPlanner) starColumns(se *sqlparser.StarExpr) error {
	q := qp.q
	if qp.dual {
		return fmt.Errorf("translate: SELECT * with no table: no tables used")
	}
	cols, err := qp.starOf(se)
	if err != nil {
		return err
	}
	for _, e := range cols {
		if q.Grouped {
			ge, err := qp.groupedColumn(e, e.sql)
			if err != nil {
				return err
			}
			e = ge
		}
		qp.addOutput(e.sql, e, nil)
	}
	return nil
}

// starOf is the columns * or t.* stands for: the table's, or the join's (USING and NATURAL
// columns coalesced) or one side's.
func (qp *queryPlanner) starOf(se *sqlparser.StarExpr) ([]*expr, error) {
	s := qp.s
	if qp.join != nil {
		if tq := se.TableName; !tq.IsEmpty() {
			i := s.sideIndex(tq.Name.String())
			if i < 0 || !tq.Qualifier.IsEmpty() {
				return nil, fmt.Errorf("translate: unknown table '%s' in %s: no table or alias of that name in FROM (%s)", tq.Name.String(), sqlparser.String(se), s.sideNames())
			}
			return s.sideStar(i), nil
		}
		var cols []*expr
		for _, e := range qp.join.entries {
			x, err := s.sideColumn(e.table, e.column)
			if err != nil {
				return nil, err
			}
			x.sql = e.name // named as the field, as MySQL names t.* columns
			cols = append(cols, x)
		}
		return cols, nil
	}
	if tq := se.TableName; !tq.IsEmpty() && tq.Name.String() != s.alias {
		if !strings.EqualFold(s.alias, s.table.Name) && tq.Name.String() == s.table.Name {
			// An alias hides the table's name, as in MySQL (error 1051).
			return nil, unknownTablef("%q in %s: FROM names it %q, so write %s.*", tq.Name.String(), sqlparser.String(se), s.alias, s.alias)
		}
		if tq.Name.String() != s.table.Name {
			return nil, &UnsupportedError{Construct: "JOIN", SQL: sqlparser.String(se),
				Hint: fmt.Sprintf("it names a table other than %q; %s", s.alias, hintJoin)}
		}
	}
	return s.star(), nil
}

// havingAndOrder compiles HAVING and ORDER BY (whose keys may be outputs, by alias or position).
func (qp *queryPlanner) havingAndOrder(nColumns int) error {
	stmt, q, s := qp.stmt, qp.q, qp.s
	// HAVING.
	if stmt.Having != nil {
		qp.clause, qp.item = "HAVING clause", 1
		h, err := s.topCondition(stmt.Having.Expr)
		if err != nil {
			return err
		}
		if h.sql == "" {
			c := *h // a copy: h may be a shared output or slot expression
			c.sql = sqlparser.String(stmt.Having.Expr)
			h = &c
		}
		q.Having = wrap(h)
	}

	// ORDER BY.
	for i, o := range stmt.OrderBy {
		qp.clause, qp.item = "ORDER BY clause", i+1
		slot, err := qp.orderSlot(o.Expr, nColumns)
		if err != nil {
			return err
		}
		q.Order = append(q.Order, SortKey{Slot: slot, Desc: o.Direction == sqlparser.DescScr, SQL: sqlparser.String(o.Expr),
			Names: caseInsensitive(qp.outputs[slot])})
	}
	q.Distinct = stmt.Distinct != ""

	return nil
}

// limitOffset reads LIMIT and OFFSET.
func (qp *queryPlanner) limitOffset() error {
	stmt, q, s := qp.stmt, qp.q, qp.s
	if stmt.Limit != nil {
		if stmt.Limit.Offset != nil {
			n, err := s.limit(stmt.Limit.Offset)
			if err != nil {
				return fmt.Errorf("translate: OFFSET needs a non-negative integer, got %s", sqlparser.String(stmt.Limit.Offset))
			}
			q.Offset = n
		}
		if unbounded(stmt.Limit.Rowcount) {
			// LIMIT 18446744073709551615 OFFSET m: MySQL's documented way to write an OFFSET
			// alone; no query returns that many rows.
			q.Limit = -1
		} else {
			n, err := s.limit(stmt.Limit.Rowcount)
			if err != nil {
				return err
			}
			q.Limit = n
		}
	}

	return nil
}

// finish fills the plan's columns, outputs, aggregates, windows and group keys, then plans the
// rows' source: no table, a join, or one table's scan with what is pushed into its request.
func (qp *queryPlanner) finish(where *expr, nColumns int) error {
	q := qp.q
	for i, e := range qp.outputs {
		if i < nColumns {
			q.Columns = append(q.Columns, columnFor(qp.columnName(i), e))
		}
		q.Outputs = append(q.Outputs, wrap(e))
	}
	q.Aggregates = qp.aggs
	q.Windows = qp.windows
	for _, k := range qp.groupKeys {
		if k != rollupLevel {
			q.GroupBy = append(q.GroupBy, wrap(k))
		}
	}
	if qp.dual {
		q.Where = wrap(where)
		q.SortLocally = len(q.Order) > 0
		return nil
	}
	if qp.join != nil {
		return qp.planJoin(where)
	}
	qp.pushdown(where)
	return nil
}

// pushdown fills the scan's request: the WHERE clause (exact or a superset re-checked by Keep), the
// sort and maxRecords only when no local step changes which rows come out or their order, and the
// fields every step reads.
func (qp *queryPlanner) pushdown(where *expr) {
	q, plan := qp.q, qp.plan
	if q.Grouped && len(qp.groupKeys) == 0 && len(qp.aggs) == 1 {
		// A lone COUNT(x): the rows where x is NULL count for nothing, so the service need not send them.
		if a := qp.aggs[0]; a.Name == "COUNT" && !a.star && len(a.args) == 1 && a.args[0].kind != exConst {
			notNull := &expr{kind: exIsNull, typ: typeCond, negated: true, args: []*expr{a.args[0]}}
			if where == nil {
				where = notNull
			} else {
				where = &expr{kind: exAnd, typ: typeCond, nullable: true, args: []*expr{where, notNull}}
			}
		}
	}
	plan.where = where
	pushNothing := plan.Table.Local || qp.localOnly
	if !pushNothing {
		bindSubqueries(where, plan)
	}
	if pushNothing {
		// An in-memory table, or a differential test's run without pushdown: no formula, sort,
		// maxRecords or fetch by id; Keep checks everything.
		plan.Exact = where == nil
	} else {
		plan.pushWhere(&pusher{})
		if plan.RecordIDs == nil && !plan.NoRows && qp.s.schema != nil {
			qp.s.lookupLink(where, plan)
		}
	}
	rowsChange := q.Grouped || q.Distinct || q.Having != nil || len(q.Windows) > 0
	if len(q.Order) > 0 {
		if rowsChange || pushNothing {
			q.SortLocally = true
		} else {
			for _, k := range q.Order {
				plan.order = append(plan.order, orderKey{e: qp.outputs[k.Slot], desc: k.Desc})
				plan.Order = append(plan.Order, Order{Column: qp.outputs[k.Slot].sql, Desc: k.Desc})
			}
			// With a LIMIT, a nullable first key splits the scan into two requests (nullsplit.go),
			// which the driver's scan source runs in SQL's order.
			plan.Limit = -1
			if q.Limit >= 0 {
				plan.Limit = q.Offset + q.Limit
			}
			plan.pushOrder()
			q.SortLocally = plan.SortLocally
		}
	}
	if q.Limit >= 0 && !rowsChange && !q.SortLocally && plan.Exact && plan.RecordIDs == nil && !pushNothing {
		if n := q.Offset + q.Limit; n > 0 && n <= 1<<31 {
			plan.Request.MaxRecords = n
		}
	}
	// What the scan must return: every expression evaluated on scan rows.
	if q.Grouped {
		plan.outputs = append(plan.outputs, qp.groupKeys...)
		for _, a := range qp.aggs {
			plan.outputs = append(plan.outputs, a.args...)
			for _, k := range a.order {
				plan.outputs = append(plan.outputs, k.e)
			}
		}
	} else {
		plan.outputs = append(plan.outputs, qp.outputs...)
		if q.Having != nil {
			plan.outputs = append(plan.outputs, q.Having.e)
		}
		plan.outputs = append(plan.outputs, qp.windowInputs()...)
	}
	// The scan's own Limit: the rows the engine can use at most, when that is known (the request's
	// maxRecords); a plan's runner may stop early with it. The engine applies LIMIT itself.
	plan.Limit = -1
	if plan.Request.MaxRecords > 0 {
		plan.Limit = plan.Request.MaxRecords
	}
	plan.Request.Fields = plan.neededFields()
	plan.finishSplit()
	plan.outputs = nil // the fields are requested; the Query's expressions read the rows
	plan.Columns = nil
	q.Scan = plan
}

func (qp *queryPlanner) addOutput(name string, e *expr, ast sqlparser.Expr) {
	qp.outputs = append(qp.outputs, e)
	qp.outputAST = append(qp.outputAST, ast)
	key := strings.ToLower(name)
	if _, dup := qp.outputIndex[key]; !dup {
		qp.outputIndex[key] = len(qp.outputs) - 1
	}
	qp.names = append(qp.names, name)
}

func (qp *queryPlanner) columnName(i int) string { return qp.names[i] }

// scanHook refuses aggregates where rows are not yet grouped: WHERE, GROUP BY, aggregate arguments.
func (qp *queryPlanner) scanHook(e sqlparser.Expr) (*expr, error) {
	if isWindowNode(e) {
		return qp.window(e.(*sqlparser.FuncExpr))
	}
	if isAggregateNode(e) {
		where := "WHERE"
		switch {
		case qp.clause == "GROUP BY":
			return nil, fmt.Errorf("translate: can't group on %s: an aggregate cannot be a GROUP BY key", sqlparser.String(e))
		case qp.clause == "aggregate":
			return nil, fmt.Errorf("translate: invalid use of group function %s: aggregates cannot be nested", sqlparser.String(e))
		case qp.clause != "":
			where = qp.clause
		}
		return nil, fmt.Errorf("translate: invalid use of group function %s in %s: aggregates are computed after WHERE; filter on them with HAVING", sqlparser.String(e), where)
	}
	if f, ok := e.(*sqlparser.FuncExpr); ok && strings.EqualFold(f.Name.String(), "any_value") {
		return nil, fmt.Errorf("translate: invalid use of group function %s in %s", sqlparser.String(e), qp.clauseOr("WHERE"))
	}
	// HAVING (without grouping) and ORDER BY may name a select-list alias: ORDER BY prefers it to
	// a column, HAVING a column to it.
	if col, ok := e.(*sqlparser.ColName); ok && col.Qualifier.IsEmpty() && (qp.clause == "HAVING clause" || qp.clause == "ORDER BY clause") {
		if i, ok := qp.outputIndex[strings.ToLower(col.Name.String())]; ok && qp.outputAST[i] != nil {
			if _, err := qp.s.lookupColumn(col.Name.String()); err != nil || qp.clause == "ORDER BY clause" {
				return qp.outputs[i], nil
			}
		}
	}
	// HAVING without grouping reads the select list only, as in MySQL: a column that is not selected
	// is unknown there.
	if col, ok := e.(*sqlparser.ColName); ok && qp.clause == "HAVING clause" && !qp.q.Grouped {
		hook := qp.s.hook
		qp.s.hook = nil
		c, err := qp.s.compile(col)
		qp.s.hook = hook
		if err != nil {
			return nil, err
		}
		for _, o := range qp.outputs {
			if sameColumn(o, c) {
				return c, nil
			}
		}
		return nil, unknownColumnf("'%s' in 'having clause': HAVING without GROUP BY reads the select list; select %s, or filter with WHERE", sqlparser.String(col), sqlparser.String(col))
	}
	return nil, nil
}

func (qp *queryPlanner) clauseOr(def string) string {
	if qp.clause == "" {
		return def
	}
	return qp.clause
}

// groupBy compiles the GROUP BY keys: columns of the table first, then select-list aliases, and
// positions in the select list (MySQL's order of resolution for GROUP BY).
func (qp *queryPlanner) groupBy() error {
	s := qp.s
	qp.aggText = map[string]int{}
	keys := qp.stmt.GroupBy
	if n := len(keys); n > 0 {
		if f, ok := keys[n-1].(*sqlparser.FuncExpr); ok && f.Name.String() == rollupMark {
			keys, qp.rollup, qp.q.Rollup = keys[:n-1], true, true
		}
	}
	defer func() {
		if qp.rollup {
			// The level is read from the slot after the keys; it is no key of the request.
			qp.groupKeys = append(qp.groupKeys, rollupLevel)
			qp.groupText = append(qp.groupText, "")
		}
	}()
	for i, g := range keys {
		qp.clause, qp.item = "GROUP BY", i+1
		src := g
		switch k := g.(type) {
		case *sqlparser.SQLVal:
			if k.Type == sqlparser.IntVal {
				n, err := strconv.Atoi(string(k.Val))
				if err != nil || n < 1 || n > len(qp.stmt.SelectExprs) {
					return unknownColumnf("'%s' in 'group statement': GROUP BY %s names no column of the select list", k.Val, k.Val)
				}
				ae, ok := qp.stmt.SelectExprs[n-1].(*sqlparser.AliasedExpr)
				if !ok {
					return unsupported("GROUP BY a position of *", sqlparser.String(g), "name the column")
				}
				src = ae.Expr
			}
		case *sqlparser.ColName:
			if k.Qualifier.IsEmpty() && !qp.dual {
				if _, err := s.lookupColumn(k.Name.String()); err != nil {
					if ae := qp.selectAlias(k.Name.String()); ae != nil {
						src = ae.Expr
					}
				}
			}
		}
		if hasAggregate(src) {
			return fmt.Errorf("translate: can't group on %s: an aggregate cannot be a GROUP BY key", sqlparser.String(src))
		}
		e, err := s.compile(src)
		if err != nil {
			return err
		}
		qp.groupKeys = append(qp.groupKeys, e)
		qp.groupText = append(qp.groupText, exprText(src))
		if e.kind == exRecordID {
			qp.byID = true
		}
	}
	qp.clause = ""
	return nil
}

// selectAlias returns the select-list expression with that alias, if any.
func (qp *queryPlanner) selectAlias(name string) *sqlparser.AliasedExpr {
	for _, se := range qp.stmt.SelectExprs {
		if ae, ok := se.(*sqlparser.AliasedExpr); ok && !ae.As.IsEmpty() && strings.EqualFold(ae.As.String(), name) {
			return ae
		}
	}
	return nil
}

// groupedHook compiles expressions over grouped rows: an aggregate reads its slot, a GROUP BY
// expression reads its key's slot, and a column that is neither is refused as MySQL refuses it
// with ONLY_FULL_GROUP_BY (unless the rows are grouped by id, on which every column depends).
func (qp *queryPlanner) groupedHook(e sqlparser.Expr) (*expr, error) {
	if isWindowNode(e) {
		return qp.window(e.(*sqlparser.FuncExpr))
	}
	if isAggregateNode(e) {
		return qp.aggregate(e)
	}
	if f, ok := e.(*sqlparser.FuncExpr); ok && strings.EqualFold(f.Name.String(), "grouping") && f.Qualifier.IsEmpty() {
		return qp.grouping(f)
	}
	col, ok := e.(*sqlparser.ColName)
	if !ok {
		// An expression written as a GROUP BY key reads the key. (A column is matched below by
		// the field it resolves to, not by its text: fields may differ only in case.)
		text := exprText(e)
		for i, g := range qp.groupText {
			if g == text {
				return qp.keySlot(i), nil
			}
		}
		if f, isFunc := e.(*sqlparser.FuncExpr); isFunc && strings.EqualFold(f.Name.String(), "any_value") {
			return qp.aggregate(e)
		}
		return nil, nil
	}
	// HAVING and ORDER BY may name a select-list alias. As in MySQL, ORDER BY prefers the alias to
	// a column of the same name; HAVING prefers a GROUP BY column, then the alias.
	alias := -1
	if col.Qualifier.IsEmpty() && qp.clause != "SELECT list" {
		if i, ok := qp.outputIndex[strings.ToLower(col.Name.String())]; ok && qp.outputAST[i] != nil {
			alias = i
		}
	}
	if alias >= 0 && qp.clause == "ORDER BY clause" {
		return qp.outputs[alias], nil
	}
	hook := qp.s.hook
	qp.s.hook = qp.scanHook
	c, err := qp.s.compile(col)
	qp.s.hook = hook
	if err != nil {
		if alias >= 0 {
			return qp.outputs[alias], nil
		}
		return nil, err
	}
	if c.kind == exOuter {
		return c, nil // a column of the outer query: one value for every group of a run
	}
	for i, k := range qp.groupKeys {
		if sameColumn(k, c) {
			return qp.keySlot(i), nil
		}
	}
	if alias >= 0 {
		return qp.outputs[alias], nil
	}
	return qp.groupedColumn(c, sqlparser.String(col))
}

// groupedColumn maps a column read on scan rows to grouped rows: its GROUP BY key, or ANY_VALUE when
// the rows are grouped by id, else MySQL's ONLY_FULL_GROUP_BY refusal.
func (qp *queryPlanner) groupedColumn(c *expr, text string) (*expr, error) {
	for i, k := range qp.groupKeys {
		if sameColumn(k, c) {
			return qp.keySlot(i), nil
		}
	}
	if qp.byID || c.kind == exConst || !qp.onlyFullGroupBy() {
		// Functionally dependent on the key, a constant, or the session turned ONLY_FULL_GROUP_BY
		// off (SET sql_mode = …): MySQL then takes the value of any row of the group.
		return qp.addAggregate(&Aggregate{Name: "ANY_VALUE", SQL: "ANY_VALUE(" + text + ")", args: []*expr{c}, typ: c.typ}, c.nullable), nil
	}
	table := qp.s.table.Name
	if len(qp.groupKeys) == 0 {
		return nil, fmt.Errorf("translate: in aggregated query without GROUP BY, expression #%d of %s contains nonaggregated column '%s.%s'; this is incompatible with sql_mode=only_full_group_by (airsql runs with it on): aggregate it (MIN, MAX, ANY_VALUE) or add GROUP BY",
			qp.item, qp.clause, table, c.sql)
	}
	return nil, fmt.Errorf("translate: expression #%d of %s is not in GROUP BY clause and contains nonaggregated column '%s.%s' which is not functionally dependent on columns in GROUP BY clause; this is incompatible with sql_mode=only_full_group_by (airsql runs with it on): add it to GROUP BY or wrap it in ANY_VALUE()",
		qp.item, qp.clause, table, c.sql)
}

func sameColumn(a, b *expr) bool {
	switch {
	case a.tab != b.tab:
		return false // a self-join reads the same field of two tables
	case a.kind == exField && b.kind == exField:
		return a.field == b.field
	case a.kind == exDerived:
		return b.kind == exDerived && a.slot == b.slot
	case a.kind == exRecordID || a.kind == exCreatedTime:
		return a.kind == b.kind
	}
	return false
}

func (qp *queryPlanner) keySlot(i int) *expr {
	k := qp.groupKeys[i]
	// WITH ROLLUP: a key is NULL in the rows that sum it up.
	return &expr{kind: exSlot, slot: i, typ: k.typ, nullable: k.nullable || k.typ == typeNull || qp.rollup && k != rollupLevel, sql: k.sql}
}

// aggregate compiles an aggregate call into a slot of the grouped rows; the same call written twice
// is computed once.
func (qp *queryPlanner) aggregate(node sqlparser.Expr) (*expr, error) {
	text := exprText(node)
	if i, ok := qp.aggText[text]; ok {
		a := qp.aggs[i]
		return &expr{kind: exSlot, slot: len(qp.groupKeys) + i, typ: a.typ, nullable: a.Name != "COUNT", sql: a.SQL}, nil
	}
	clause := qp.clause
	qp.clause = "aggregate"
	defer func() { qp.clause = clause }()
	a, nullable, err := qp.newAggregate(node, qp.scanHook)
	if err != nil {
		return nil, err
	}
	qp.aggText[text] = len(qp.aggs)
	return qp.addAggregate(a, nullable), nil
}

// newAggregate compiles an aggregate call, its arguments with argHook (on the scan's rows for a
// GROUP BY's aggregate, on the window's rows for an aggregate OVER (…)); nullable: its result
// can be NULL.
func (qp *queryPlanner) newAggregate(node sqlparser.Expr, argHook func(sqlparser.Expr) (*expr, error)) (*Aggregate, bool, error) {
	s := qp.s
	hook := s.hook
	s.hook = argHook
	defer func() { s.hook = hook }()
	a := &Aggregate{SQL: sqlparser.String(node)}
	var argExprs sqlparser.SelectExprs
	switch n := node.(type) {
	case *sqlparser.GroupConcatExpr:
		a.Name, a.Distinct, argExprs = "GROUP_CONCAT", n.Distinct != "", n.Exprs
		a.separator = ","
		if n.Separator != "" {
			sep := strings.TrimPrefix(n.Separator, " separator '")
			a.separator = strings.TrimSuffix(sep, "'")
		}
		for _, o := range n.OrderBy {
			if v, ok := o.Expr.(*sqlparser.SQLVal); ok && v.Type == sqlparser.IntVal {
				return nil, false, unsupported("GROUP_CONCAT … ORDER BY a position", sqlparser.String(o), "order by the expression itself")
			}
			k, err := s.compile(o.Expr)
			if err != nil {
				return nil, false, err
			}
			a.order = append(a.order, orderKey{e: k, desc: o.Direction == sqlparser.DescScr})
		}
		a.typ = typeText
	case *sqlparser.FuncExpr:
		a.Name, a.Distinct, argExprs = strings.ToUpper(n.Name.String()), n.Distinct, n.Exprs
		if !n.Qualifier.IsEmpty() {
			return nil, false, unsupported("qualified function names", a.SQL, "call the function by its name alone")
		}
	}
	if err := a.compileArgs(s, argExprs); err != nil {
		return nil, false, err
	}
	nullable, err := a.check()
	if err != nil {
		return nil, false, err
	}
	return a, nullable, nil
}

// compileArgs compiles the aggregate's arguments (* only in COUNT(*)).
func (a *Aggregate) compileArgs(s *scope, argExprs sqlparser.SelectExprs) error {
	for _, se := range argExprs {
		switch x := se.(type) {
		case *sqlparser.StarExpr:
			if a.Name != "COUNT" || len(argExprs) != 1 || a.Distinct || !x.TableName.IsEmpty() {
				return fmt.Errorf("translate: %s: * is an argument of COUNT(*) only", a.SQL)
			}
			a.star = true
		case *sqlparser.AliasedExpr:
			c, err := s.compile(x.Expr)
			if err != nil {
				return err
			}
			a.args = append(a.args, c)
		default:
			return fmt.Errorf("translate: %s: cannot read the argument %s", a.SQL, sqlparser.String(se))
		}
	}
	return nil
}

// check checks the aggregate's arguments and gives its type; nullable: its result can be NULL.
func (a *Aggregate) check() (nullable bool, err error) {
	nullable = true
	switch a.Name {
	case "COUNT":
		if !a.star && len(a.args) == 0 {
			return false, fmt.Errorf("translate: %s: COUNT takes an argument, or *", a.SQL)
		}
		if len(a.args) > 1 && !a.Distinct {
			return false, fmt.Errorf("translate: %s: COUNT takes one argument (COUNT(DISTINCT a, b) takes several)", a.SQL)
		}
		if len(a.args) == 1 && a.args[0].kind == exConst && a.args[0].val != nil && !a.Distinct {
			a.star, a.args = true, nil // COUNT(1) counts rows
		}
		a.typ, nullable = typeInt, false
	case "SUM", "AVG":
		if len(a.args) != 1 {
			return false, fmt.Errorf("translate: %s: %s takes one argument", a.SQL, a.Name)
		}
		t := a.args[0].typ
		if !t.Numeric() && t != typeNull {
			return false, fmt.Errorf("translate: %s needs numbers, but %s is %s", a.SQL, describe(a.args[0]), t)
		}
		a.typ = typeFloat
		if a.Name == "SUM" && t.Integer() {
			a.typ = typeInt
		}
	case "MIN", "MAX", "ANY_VALUE":
		if len(a.args) != 1 {
			return false, fmt.Errorf("translate: %s: %s takes one argument", a.SQL, a.Name)
		}
		if a.Name == "ANY_VALUE" && a.Distinct {
			return false, fmt.Errorf("translate: %s: ANY_VALUE takes no DISTINCT", a.SQL)
		}
		a.typ = valueType(a.args[0].typ)
	case "GROUP_CONCAT":
		if len(a.args) == 0 {
			return false, fmt.Errorf("translate: %s: GROUP_CONCAT takes an argument", a.SQL)
		}
	case "STD", "STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP", "BIT_AND", "BIT_OR", "BIT_XOR":
		if len(a.args) != 1 {
			return false, fmt.Errorf("translate: %s: %s takes one argument", a.SQL, a.Name)
		}
		if t := a.args[0].typ; !t.Numeric() && t != typeNull {
			return false, fmt.Errorf("translate: %s needs numbers, but %s is %s", a.SQL, describe(a.args[0]), t)
		}
		if a.Distinct {
			return false, fmt.Errorf("translate: %s: %s takes no DISTINCT, as in MySQL", a.SQL, a.Name)
		}
		a.typ = typeFloat
		if strings.HasPrefix(a.Name, "BIT_") {
			a.typ, nullable = typeInt, false // of no rows: BIT_AND all ones, BIT_OR and BIT_XOR 0
		}
	case "JSON_ARRAYAGG", "JSON_OBJECTAGG":
		if want := len(a.Name) - len("JSON_ARRAYAGG") + 1; len(a.args) != want { // 1 and 2
			return false, &JSONError{Code: 1582, Msg: fmt.Sprintf("incorrect parameter count in the call to native function '%s': %s takes %d (%s)", a.Name, a.Name, want, a.SQL)}
		}
		if a.Distinct {
			return false, unsupported("DISTINCT in "+a.Name, a.SQL, "MySQL's grammar has no DISTINCT here either: select the DISTINCT values in a derived table first")
		}
		a.typ = typeJSON
	default:
		return false, unsupported("the aggregate "+a.Name, a.SQL, "supported: COUNT, SUM, AVG, MIN, MAX, GROUP_CONCAT, ANY_VALUE, the STD and VAR families, BIT_AND, BIT_OR, BIT_XOR, JSON_ARRAYAGG, JSON_OBJECTAGG")
	}
	return nullable, nil
}

func (qp *queryPlanner) addAggregate(a *Aggregate, nullable bool) *expr {
	if qp.aggText == nil {
		qp.aggText = map[string]int{}
	}
	qp.aggs = append(qp.aggs, a)
	return &expr{kind: exSlot, slot: len(qp.groupKeys) + len(qp.aggs) - 1, typ: a.typ, nullable: nullable, sql: a.SQL}
}

// orderSlot resolves an ORDER BY key to a position in the outputs: a select-list alias or output
// name first, a position, an expression written in the select list; else a hidden output is added.
func (qp *queryPlanner) orderSlot(key sqlparser.Expr, nColumns int) (int, error) {
	switch k := key.(type) {
	case *sqlparser.ColName:
		if k.Qualifier.IsEmpty() {
			if i, ok := qp.outputIndex[strings.ToLower(k.Name.String())]; ok && i < nColumns {
				return i, nil
			}
		}
	case *sqlparser.SQLVal:
		if k.Type == sqlparser.IntVal {
			n, err := strconv.Atoi(string(k.Val))
			if err != nil || n < 1 || n > nColumns {
				return 0, unknownColumnf("'%s' in 'order clause': ORDER BY %s names no column of the select list (%d columns)", k.Val, k.Val, nColumns)
			}
			return n - 1, nil
		}
	}
	if _, isCol := key.(*sqlparser.ColName); !isCol { // a column matches by its field, below
		text := exprText(key)
		for i := 0; i < nColumns; i++ {
			if ast := qp.outputAST[i]; ast != nil && exprText(ast) == text {
				return i, nil
			}
		}
	}
	e, err := qp.s.compile(key)
	if err != nil {
		return 0, err
	}
	for i := 0; i < nColumns; i++ {
		if sameColumn(qp.outputs[i], e) || (e.kind == exSlot && qp.outputs[i].kind == exSlot && e.slot == qp.outputs[i].slot) {
			return i, nil
		}
	}
	if qp.stmt.Distinct != "" {
		return 0, fmt.Errorf("translate: expression #%d of ORDER BY clause (%s) is not in SELECT list; this is incompatible with DISTINCT: select it too",
			qp.item, sqlparser.String(key))
	}
	qp.outputs = append(qp.outputs, e)
	qp.outputAST = append(qp.outputAST, key)
	return len(qp.outputs) - 1, nil
}

// isAggregateNode reports an aggregate call: COUNT, SUM, … or GROUP_CONCAT.
func isAggregateNode(e sqlparser.SQLNode) bool {
	switch n := e.(type) {
	case *sqlparser.FuncExpr:
		return isAggregateFunc(n)
	case *sqlparser.GroupConcatExpr:
		return true
	}
	return false
}

// isAggregateFunc reports an aggregate function: the grammar's list (COUNT, SUM, …) and the JSON
// aggregates it does not know.
func isAggregateFunc(f *sqlparser.FuncExpr) bool {
	return f.IsAggregate() || jsonAggregates[f.Name.Lowered()]
}

// hasAggregate reports whether a node contains an aggregate call (not looking into subqueries).
func hasAggregate(node sqlparser.SQLNode) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if found {
			return false, nil
		}
		switch n.(type) {
		case *sqlparser.Subquery:
			return false, nil
		}
		if isWindowNode(n) {
			// An aggregate OVER (…) is a window function; an aggregate in its arguments or its
			// window is one of the query's own (SUM(SUM(x)) OVER ()).
			fn, spec, ok := windowCallParts(n.(*sqlparser.FuncExpr))
			if ok {
				if f, isFunc := fn.(*sqlparser.FuncExpr); isFunc {
					found = found || hasAggregate(f.Exprs)
				}
				found = found || hasAggregate(spec)
			}
			return false, nil
		}
		if isAggregateNode(n) {
			found = true
			return false, nil
		}
		if f, ok := n.(*sqlparser.FuncExpr); ok && strings.EqualFold(f.Name.String(), "any_value") {
			found = true
			return false, nil
		}
		return true, nil
	}, node)
	return found
}

// exprText is an expression's SQL text for matching one written twice (a GROUP BY key in the select
// list, an aggregate in HAVING): names and keywords compare regardless of case, as MySQL's do, but
// string literals exactly ('A' is not 'a').
func exprText(e sqlparser.SQLNode) string {
	text := sqlparser.String(e)
	b := []byte(text)
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString && c == '\\':
			i++ // the escaped character stays as it is
		case c == '\'':
			inString = !inString
		case !inString && c >= 'A' && c <= 'Z':
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// unbounded reports a LIMIT written as an integer literal of 2^32 or more.
func unbounded(e sqlparser.Expr) bool {
	v, ok := e.(*sqlparser.SQLVal)
	if !ok || v.Type != sqlparser.IntVal {
		return false
	}
	digits := strings.TrimLeft(string(v.Val), "0")
	return len(digits) > 10 || (len(digits) == 10 && digits >= "4294967296")
}

// onlyFullGroupBy reports whether the session's sql_mode has ONLY_FULL_GROUP_BY (the default).
func (qp *queryPlanner) onlyFullGroupBy() bool {
	mode, err := qp.s.session().Variable("sql_mode", false)
	text, _ := mode.(string)
	return err != nil || strings.Contains(strings.ToUpper(text), "ONLY_FULL_GROUP_BY")
}

// withoutParens is e without the parentheses around it.
func withoutParens(e sqlparser.Expr) sqlparser.Expr {
	for {
		p, ok := e.(*sqlparser.ParenExpr)
		if !ok {
			return e
		}
		e = p.Expr
	}
}
