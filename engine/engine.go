// Package engine runs a SELECT planned by translate as a tree of small operators pulling rows from
// one another: scans at the leaves (the request translate planned, run by the driver through Source),
// then filter, hash aggregate, project, distinct, sort or top-N, and offset/limit. It knows no HTTP:
// every operator works on translate.Row values and is tested on in-memory rows.
//
// Every comparison, NULL rule and type rule comes from translate's compiled expressions and
// aggregates and from package sqlvalue (sqlvalue.AppendKey, sqlvalue.CompareSQL): there is one
// implementation of SQL's semantics.
//
// Operators that hold rows (aggregate groups, DISTINCT sets, sorts) count them against one row
// budget per statement and fail with a *RowLimitError past it. See docs/engine.md.
package engine

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/airsql/airsql/translate"
)

// Source runs the request(s) of a scan as translate's Plan contract says: it returns the plan's
// rows page by page (the service's pages, or one record per page for a plan of record ids), and
// for a plan split on a nullable ORDER BY key (Plan.Split) the blank-key rows before or after the
// others, in SQL's order. The driver implements it with transport.
type Source interface {
	Scan(ctx context.Context, plan *translate.Plan) (Pages, error)
}

// Pages is a scan under way. Next returns the next page, io.EOF after the last; Close stops what is
// in flight and may be called at any time, more than once.
type Pages interface {
	Next(ctx context.Context) ([]translate.Row, error)
	Close()
}

// HeldPages is Pages whose rows stay unchanged where they are for as long as the statement runs
// (a source that holds its rows in memory, as the replica does): a join keeps pointers to them
// instead of a copy of each (BenchmarkDashboardReplicaQueries).
type HeldPages interface {
	Pages
	// HeldRows marks Pages as HeldPages.
	HeldRows()
}

// Operator is one step of a statement: Next returns the next row, io.EOF after the last. Close
// releases what the operator and its inputs hold; it may be called before the end, more than once.
type Operator interface {
	Next(ctx context.Context) (translate.Row, error)
	Close()
	// Explain describes the operator for EXPLAIN; its inputs are Inputs.
	Explain() Node
}

// Node is one operator as EXPLAIN shows it.
type Node struct {
	Op     string          // "scan", "filter", "aggregate", …
	Detail string          // what it does
	Plan   *translate.Plan // scans: the request
	Inputs []Node
}

// DefaultMaxRows is the default row budget of a statement.
const DefaultMaxRows = 1_000_000

// RowLimitError is returned when the operators of a statement would hold more rows in memory than
// the budget allows.
type RowLimitError struct {
	Limit    int
	Operator string // which step passed it
}

func (e *RowLimitError) Error() string {
	return fmt.Sprintf("engine: %s would hold more than %d rows in memory (the DSN's maxRows limit): narrow the query with WHERE, "+
		"add LIMIT, or raise maxRows in the DSN", e.Operator, e.Limit)
}

// Budget counts the rows a statement's operators hold. One Budget serves one statement.
type Budget struct {
	Limit int // <= 0: DefaultMaxRows
	held  int
}

// Hold counts n more rows held by op; past the limit it returns a *RowLimitError.
func (b *Budget) Hold(n int, op string) error {
	if b == nil || n == 0 {
		return nil
	}
	limit := b.Limit
	if limit <= 0 {
		limit = DefaultMaxRows
	}
	b.held += n
	if b.held > limit {
		return &RowLimitError{Limit: limit, Operator: op}
	}
	return nil
}

// rowLimit is the budget's limit (DefaultMaxRows when unset).
func rowLimit(b *Budget) int {
	if b == nil || b.Limit <= 0 {
		return DefaultMaxRows
	}
	return b.Limit
}

// Options are what Build needs beside the query.
type Options struct {
	Source  Source
	MaxRows int      // the row budget; <= 0: DefaultMaxRows
	Catalog *Catalog // the in-memory tables (information_schema); nil: none
	// NoBind turns key pushdown off: joins scan both tables and IN (SELECT …) scans the table
	// (for benchmarks and differential tests that compare the two).
	NoBind bool

	// env is the run's environment (what its subqueries found), made by the outermost Build and
	// shared by the operators of its subqueries and derived tables: the plan holds no run state.
	env *translate.Env
}

// Build turns a planned query into its operator tree. The rows of the root hold the output columns
// in Values (driver values: nil, int64, float64, bool, string, time.Time); a row's Values are valid
// until the next call of Next (copy them to keep them).
func Build(q *translate.Query, opts Options) (Operator, error) {
	if opts.env == nil {
		opts.env = translate.NewEnv()
	}
	budget := &Budget{Limit: opts.MaxRows}
	if q.Limit == 0 {
		// LIMIT 0: nothing to read, nothing to return.
		return withSubqueries(&valuesOp{name: "LIMIT 0: no rows and no request"}, q, opts)
	}
	op, err := queryInput(q, opts, budget)
	if err != nil {
		return nil, err
	}
	return withSubqueries(above(op, q, opts, budget, false), q, opts)
}

// above builds the steps of q above its rows (op): aggregate, HAVING, windows, project, DISTINCT,
// sort or top-N, offset/limit. With aggregated, op's rows are already q's aggregate rows (a
// correlated subquery aggregated per key, keyedAggregate).
func above(op Operator, q *translate.Query, opts Options, budget *Budget, aggregated bool) Operator {
	if q.Grouped && !aggregated {
		keys := make([]Evaluator, len(q.GroupBy))
		for i, k := range q.GroupBy {
			keys[i] = k
		}
		aggs := make([]AggregateFunc, len(q.Aggregates))
		for i, a := range q.Aggregates {
			aggs[i] = a
		}
		shareSides(op) // an aggregate is done with each row before it reads the next
		op = &aggregateOp{env: opts.env, input: op, keys: keys, aggs: aggs, rollup: q.Rollup, budget: budget, query: q}
	}
	if q.Having != nil {
		op = &filterOp{env: opts.env, input: op, cond: q.Having, what: "HAVING " + q.Having.String()}
	}
	op = windowInput(op, q, budget, opts.env)
	outs := make([]Valuer, len(q.Outputs))
	names := make([]string, len(q.Outputs))
	for i, o := range q.Outputs {
		outs[i] = o
		names[i] = o.String()
	}
	sorted := q.SortLocally && len(q.Order) > 0
	project := &projectOp{env: opts.env, input: op, outputs: outs, names: names, reuse: !sorted}
	op = project
	if q.Distinct {
		op = &distinctOp{input: op, columns: len(q.Columns), budget: budget}
	}
	if sorted {
		keys := make([]SortKey, len(q.Order))
		for i, k := range q.Order {
			keys[i] = SortKey{Slot: k.Slot, Desc: k.Desc, SQL: k.SQL, Names: k.Names}
		}
		if q.Limit >= 0 {
			top := &topNOp{input: op, keys: keys, n: q.Offset + q.Limit, budget: budget}
			if op == Operator(project) {
				project.admitTop(top)
			}
			op = top
		} else {
			op = &sortOp{input: op, keys: keys, budget: budget}
		}
	}
	if q.Offset > 0 || q.Limit >= 0 {
		op = &limitOp{input: op, offset: q.Offset, limit: q.Limit}
	}
	if len(q.Outputs) > len(q.Columns) {
		op = &trimOp{input: op, n: len(q.Columns)}
	}
	return op
}

// queryInput is the operator the query's rows come from: its union, derived table, join, one
// row without a table, in-memory table or scan, with the WHERE re-check the source needs.
func queryInput(q *translate.Query, opts Options, budget *Budget) (Operator, error) {
	var op Operator
	switch {
	case q.Union != nil:
		u, err := unionInput(q.Union, len(q.Columns), opts, budget)
		if err != nil {
			return nil, err
		}
		op = u
	case q.Scan != nil && q.Scan.Table.JSONTable != nil:
		op = &jsonTableOp{env: opts.env, table: q.Scan.Table, limit: rowLimit(budget)}
		if !q.Scan.Exact {
			op = &filterOp{env: opts.env, input: op, cond: keepOf(q.Scan), what: "WHERE (checked on every row)"}
		}
	case q.Scan != nil && q.Scan.Table.Derived != nil:
		d, err := derivedInput(q.Scan.Table, opts)
		if err != nil {
			return nil, err
		}
		op = d
		if !q.Scan.Exact {
			op = &filterOp{env: opts.env, input: op, cond: keepOf(q.Scan), what: "WHERE (checked on every row)"}
		}
	case q.Join != nil:
		j, err := buildJoin(q.Join, opts, budget)
		if err != nil {
			return nil, err
		}
		op = j
		if q.Where != nil {
			op = &filterOp{env: opts.env, input: op, cond: q.Where, what: "WHERE " + q.Where.String() + " (on the joined rows)"}
		}
	case q.Scan == nil:
		op = &valuesOp{rows: []translate.Row{{}}, name: "one row without columns (no table)"}
		if q.Where != nil {
			op = &filterOp{env: opts.env, input: op, cond: q.Where, what: "WHERE " + q.Where.String()}
		}
	case q.Scan.Table.Local:
		rows, ok := opts.Catalog.Rows(q.Scan.Table)
		if !ok {
			return nil, fmt.Errorf("engine: no rows for the in-memory table %s", q.Scan.Table.Name)
		}
		op = &valuesOp{rows: rows, name: "in-memory table " + q.Scan.Table.Name}
		if !q.Scan.Exact {
			op = &filterOp{env: opts.env, input: op, cond: keepOf(q.Scan), what: "WHERE (checked on every row)"}
		}
	default:
		if opts.Source == nil {
			return nil, fmt.Errorf("engine: no source to scan %s", q.Scan.Table.Name)
		}
		op = &scanOp{plan: q.Scan, src: opts.Source}
		if !q.Scan.Exact {
			op = &filterOp{env: opts.env, input: op, cond: keepOf(q.Scan), what: "WHERE (the request selects a superset; every record is checked again)"}
		}
	}
	return op, nil
}

// Evaluator computes a value of a row (a *translate.Expr).
type Evaluator interface {
	Eval(r *translate.Row) (any, error)
}

// Valuer computes an output value of a row, fitted to its column's type (a *translate.Expr).
type Valuer interface {
	Value(r *translate.Row) (any, error)
}

// AggregateFunc starts one group's state of an aggregate (a *translate.Aggregate).
type AggregateFunc interface {
	NewAccumulator() translate.Accumulator
}

// SortKey is one ORDER BY key: a position in the rows' Values.
type SortKey struct {
	Slot int
	Desc bool
	SQL  string
	// Names: a column of names ordered regardless of case (sqlvalue.CompareNames).
	Names bool
}

// keyCond adapts a scan plan's Keep to an Evaluator.
type keyCond struct{ plan *translate.Plan }

func (k keyCond) Eval(r *translate.Row) (any, error) {
	ok, err := k.plan.Keep(*r)
	return ok, err
}

func keepOf(p *translate.Plan) Evaluator { return keyCond{p} }

// Drain reads every row of an operator (copying each row's Values) and closes it.
func Drain(ctx context.Context, op Operator) ([]translate.Row, error) {
	defer op.Close()
	var out []translate.Row
	for {
		r, err := op.Next(ctx)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		r.Values = slices.Clone(r.Values)
		out = append(out, r)
	}
}
