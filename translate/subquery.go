package translate

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/sqlvalue"
)

// Subqueries. A subquery that reads nothing of the outer query (uncorrelated) is planned as a Query
// of its own; the engine runs it once, before the statement's first row, and hands its rows to
// SetRows. Its expression then reads the result: x [NOT] IN (SELECT …) a set of keys (AppendKey:
// translate's equality; NULL never matches, and NOT IN over a set holding NULL is never TRUE),
// EXISTS whether there is a row, a scalar subquery its one value (NULL for no row, MySQL's error
// for several).
//
// A correlated [NOT] EXISTS whose WHERE holds inner.col = outer.col (ANDed with the rest, which
// reads only the subquery's tables) is decorrelated into a semi-join (anti-join): the inner query
// without that equality is run once, its values of inner.col form a set, and EXISTS is "outer.col
// is in the set". Any other subquery that reads the outer query is correlated: a name its tables
// lack resolves in the outer scope and is read through an exOuter node; the engine runs it per
// distinct value of the outer columns (see Subquery and docs/engine.md).

// Subquery is a subquery of a statement: the engine runs Query and calls Env.SetRows with its rows
// — once, before the statement's first row, when it is uncorrelated; or, when it reads columns of
// the outer query (Correlated), through the runner the engine gives Env.SetRunner, once per
// distinct value of those columns, with a cache. It is part of the plan and holds no run state:
// what a run found lives in that run's Env.
type Subquery struct {
	Query *Query
	SQL   string
	mode  string // "in", "exists", "scalar"
	link  bool   // the subquery's column is a linked-record field: each id it holds is a value

	// Bind: the statement's scan may push this IN subquery's values into its formula (set by the
	// planner for x IN (SELECT …) ANDed into WHERE, x the record id or a field).
	Bind *Bind

	// primary: an IN subquery on a link field that selects the ids of the linked table also
	// selects their primary values (its second column), which a formula can match the link with.
	// bindOnly: a lookup added for a lone link = 'rec…' only to narrow the statement's request;
	// no expression reads it, and the engine runs it only when that saves requests.
	primary  bool
	bindOnly bool

	// A correlated subquery: refs are the outer query's columns it reads, compiled in the outer
	// scope (they end the args of its expression, so that the outer query fetches them and a join
	// places the condition after their tables). Their values for the outer row being evaluated are
	// in the run's Env, where the subquery's exOuter nodes read them.
	refs  []*expr
	names []string // the refs as the outer query names them (alias.column), for EXPLAIN
	alias string   // the subquery's table's alias (one table)
	index []CorrelationKey
}

// Env is one run of a plan: what its subqueries found and, while a correlated subquery runs, the
// values of the outer row it reads. The plan (Query, Subquery, expressions) holds none of it, so
// one plan can be run by several goroutines at once, each with its own Env. The engine makes one
// per run and sets it on the rows it evaluates (Row.Env); an Env serves one goroutine.
type Env struct {
	subs map[*Subquery]*subRun
}

// NewEnv is the Env of a new run.
func NewEnv() *Env { return &Env{subs: map[*Subquery]*subRun{}} }

// subRun is what one run knows of a subquery.
type subRun struct {
	done    bool      // an uncorrelated subquery's rows were given (SetRows)
	res     subResult // what they say
	cur     []any     // a correlated subquery: the outer values being evaluated
	run     func() ([]Row, error)
	cache   map[string]*subResult // results by outer values
	held    int                   // values held by cache
	maxHeld int
	last    subResult // the result of the last run when nothing is cached (maxHeld < 0)
	keyBuf  []byte    // the cache key of the outer values, reused (copied only into the cache)
	outer   [1]any    // OuterValues of a key that is not a link
}

// state is the run's state of sq; nil when the run has none (or there is no run).
func (env *Env) state(sq *Subquery) *subRun {
	if env == nil {
		return nil
	}
	return env.subs[sq]
}

// stateFor is the run's state of sq, made on first use.
func (env *Env) stateFor(sq *Subquery) *subRun {
	st := env.subs[sq]
	if st == nil {
		st = &subRun{}
		env.subs[sq] = st
	}
	return st
}

// subResult is what a subquery's rows say: its distinct non-NULL values (IN and a decorrelated
// EXISTS), how many rows it returned, its one value (a scalar subquery).
type subResult struct {
	values []any // the distinct non-NULL values, in their order
	// primaries: the distinct primary values of the rows (Subquery.primary); noPrimary: one is
	// not text, or empty, so they cannot be written into a formula.
	primaries []any
	noPrimary bool
	set       map[string]struct{}
	hasNull   bool
	rows      int
	scalar    any
}

// SubqueryError is MySQL's error 1242 for a scalar subquery that returns several rows.
type SubqueryError struct{ SQL string }

func (e *SubqueryError) Error() string {
	return "translate: subquery returns more than 1 row: " + e.SQL + " is used as one value; add LIMIT 1, an aggregate, or use IN"
}

// SetRows takes an uncorrelated subquery's result for this run: each row's Values are its columns.
func (env *Env) SetRows(sq *Subquery, rows []Row) error {
	res, err := sq.result(rows)
	if err != nil {
		return err
	}
	st := env.stateFor(sq)
	st.done, st.res = true, *res
	return nil
}

func (sq *Subquery) result(rows []Row) (*subResult, error) {
	res := &subResult{}
	if err := sq.fill(res, rows); err != nil {
		return nil, err
	}
	return res, nil
}

// fill sets res to what rows say (res is empty).
func (sq *Subquery) fill(res *subResult, rows []Row) error {
	res.rows = len(rows)
	switch sq.mode {
	case "scalar":
		if len(rows) > 1 {
			return &SubqueryError{SQL: sq.SQL}
		}
		if len(rows) == 1 {
			res.scalar = rows[0].Values[0]
		}
	case "in", "exists":
		if sq.mode == "exists" && sq.Query != nil && len(sq.refs) > 0 {
			break // a correlated EXISTS reads only whether there are rows
		}
		res.set = make(map[string]struct{}, len(rows))
		seenPrimary := map[string]bool{}
		for _, r := range rows {
			if sq.primary && len(r.Values) > 1 {
				p, ok := r.Values[1].(string)
				switch {
				case !ok || p == "":
					res.noPrimary = true
				case !seenPrimary[p]:
					seenPrimary[p] = true
					res.primaries = append(res.primaries, p)
				}
			}
			v := r.Values[0]
			if v == nil {
				res.hasNull = true
				continue
			}
			if sq.link {
				var ids []string
				if s, ok := v.(string); ok && json.Unmarshal([]byte(s), &ids) == nil {
					for _, id := range ids {
						res.add(id)
					}
				}
				continue
			}
			res.add(v)
		}
	}
	return nil
}

func (res *subResult) add(v any) {
	k := string(sqlvalue.AppendKey(nil, v))
	if _, dup := res.set[k]; !dup {
		res.set[k] = struct{}{}
		res.values = append(res.values, v)
	}
}

// BindValues are the values sq's Bind writes into the statement's formula in this run (after
// SetRows): its distinct non-NULL values, or for a link the primary values of the records (ok
// false when one cannot be written).
func (env *Env) BindValues(sq *Subquery) ([]any, bool) {
	var res subResult
	if st := env.state(sq); st != nil {
		res = st.res
	}
	if sq.Bind != nil && sq.Bind.Mode == "link" {
		return res.primaries, !res.noPrimary
	}
	return res.values, true
}

// BindOnly reports a lookup that only narrows the statement's request (a lone link = 'rec…'):
// nothing reads its result, so it may be left unrun.
func (sq *Subquery) BindOnly() bool { return sq.bindOnly }

func (res *subResult) has(v any) bool {
	_, ok := res.set[string(sqlvalue.AppendKey(nil, v))]
	return ok
}

// Correlated reports a subquery that reads columns of the outer query: the engine gives it a
// runner (Env.SetRunner) instead of running it once.
func (sq *Subquery) Correlated() bool { return len(sq.refs) > 0 }

// SetRunner gives a correlated subquery the function that returns its rows for the outer values
// being evaluated (OuterValues; the rows are read before the next run, so the runner may reuse
// them); the results are cached per distinct outer values, the cache
// dropped whenever it holds more than maxHeld values (it is a cache: dropping it costs time, not
// correctness). With maxHeld < 0 nothing is cached: the runner answers from what it holds
// already (the engine's keyed aggregates), and a second cache would only copy it.
func (env *Env) SetRunner(sq *Subquery, run func() ([]Row, error), maxHeld int) {
	st := env.stateFor(sq)
	st.run, st.maxHeld, st.cache, st.held = run, maxHeld, nil, 0
}

// OuterColumns names the outer query's columns a correlated subquery reads, for EXPLAIN.
func (sq *Subquery) OuterColumns() string {
	return strings.Join(sq.names, ", ")
}

// CorrelationKey is an equality of a correlated subquery's WHERE between an expression of its one
// table (on the rows of Query.Scan) and a column of the outer query: the engine indexes the table's
// rows by it, so that each outer value is matched by a lookup instead of a pass over the rows. A
// link on either side stands for each record id it holds. The WHERE is still checked on the rows
// found, so the index only has to find a superset.
type CorrelationKey struct {
	inner     *expr
	innerLink bool
	ref       int
	outerLink bool
	SQL       string
	cond      *expr // the equality itself, a conjunct of the WHERE
}

// Index is the equalities a correlated subquery's table may be indexed by (nil: none).
func (sq *Subquery) Index() []CorrelationKey { return sq.index }

// InnerValues are the key values of a row of the subquery's table (NULL gives none).
func (k CorrelationKey) InnerValues(r *Row) ([]any, error) {
	return keyValues(wrap(k.inner), k.innerLink, r)
}

// OuterValues are the key values of the outer row sq is being run for in this run (NULL gives
// none), valid until the next call.
func (env *Env) OuterValues(sq *Subquery, k CorrelationKey) []any {
	st := env.state(sq)
	if st == nil || st.cur == nil {
		return nil
	}
	v := st.cur[k.ref]
	if v == nil {
		return nil
	}
	if !k.outerLink {
		st.outer[0] = v // no allocation per run
		return st.outer[:]
	}
	var ids []string
	if s, ok := v.(string); ok && json.Unmarshal([]byte(s), &ids) == nil {
		out := make([]any, len(ids))
		for i, id := range ids {
			out[i] = id
		}
		return out
	}
	return nil
}

// findIndex lists the equalities inner = outer among the top-level AND terms of the subquery's
// WHERE (one table, read by a scan).
func (sq *Subquery) findIndex() {
	q := sq.Query
	if q.Scan == nil || q.Join != nil || q.Union != nil || q.Scan.Table.Local {
		return
	}
	for _, c := range conjuncts(q.Scan.where) {
		if c.negated || len(c.args) != 2 {
			continue
		}
		a, b := c.args[0], c.args[1]
		switch {
		case c.kind == exCompare && c.op == "=":
			if a.kind == exOuter && a.sub == sq && !b.readsOuter(sq) {
				a, b = b, a
			}
			if b.kind == exOuter && b.sub == sq && !a.readsOuter(sq) && !isLinkField(b) && !isLinkField(a) {
				sq.index = append(sq.index, CorrelationKey{inner: a, ref: b.slot, SQL: sq.innerName(a) + " = " + sq.names[b.slot], cond: c})
			}
		case c.kind == exLinkHas && c.op == "":
			// a (a link) holds the id b.
			switch {
			case a.kind == exOuter && a.sub == sq && !b.readsOuter(sq):
				sq.index = append(sq.index, CorrelationKey{inner: b, ref: a.slot, outerLink: true, SQL: sq.names[a.slot] + " holds " + sq.innerName(b), cond: c})
			case b.kind == exOuter && b.sub == sq && !a.readsOuter(sq):
				sq.index = append(sq.index, CorrelationKey{inner: a, innerLink: true, ref: b.slot, SQL: sq.innerName(a) + " holds " + sq.names[b.slot], cond: c})
			}
		}
	}
}

// KeyedAggregate reports a correlated subquery that is one aggregate row (aggregates without GROUP
// BY; no window, DISTINCT, local ORDER BY or LIMIT, which could change one row only by dropping
// it) over the rows of its table matching key, where nothing but that equality reads the outer
// query. Its result for an outer row is then a function of the key's value alone, so the engine
// aggregates the kept rows of every key in one pass (as GROUP BY the key) instead of once per
// outer value, and runs HAVING and the select list on the one aggregate row of the key asked for.
// rest is the rest of the WHERE, which reads only the table (nil: none). key compares with = (not
// a link): equal AppendKey values are equal in SQL, and each row has one key, so a row counts in
// exactly the group of the outer values it matches.
func (sq *Subquery) KeyedAggregate() (key CorrelationKey, rest *Expr, ok bool) {
	q := sq.Query
	if !q.Grouped || len(q.GroupBy) > 0 || q.Rollup || len(q.Windows) > 0 || q.Distinct || q.SortLocally && len(q.Order) > 0 ||
		q.Offset > 0 || q.Limit >= 0 || q.Scan == nil {
		return CorrelationKey{}, nil, false
	}
	for _, k := range sq.index {
		if k.innerLink || k.outerLink {
			continue
		}
		var others []*expr
		for _, c := range conjuncts(q.Scan.where) {
			if c != k.cond {
				others = append(others, c)
			}
		}
		restExpr := andOf(others)
		if restExpr.readsOuter(sq) || q.Having != nil && q.Having.e.readsOuter(sq) {
			return CorrelationKey{}, nil, false
		}
		for _, o := range q.Outputs {
			if o.e.readsOuter(sq) {
				return CorrelationKey{}, nil, false
			}
		}
		for _, a := range q.Aggregates {
			for _, x := range a.args {
				if x.readsOuter(sq) {
					return CorrelationKey{}, nil, false
				}
			}
			for _, o := range a.order {
				if o.e.readsOuter(sq) {
					return CorrelationKey{}, nil, false
				}
			}
		}
		return k, wrap(restExpr), true
	}
	return CorrelationKey{}, nil, false
}

// GroupValue is a value of r to group the subquery's rows by the key: one whose AppendKey is that
// of the key's inner value (nil for NULL). A number field's cell is returned as read (a float64
// already in an interface), which reading it as the column's type would box again, one
// allocation per row (an integer above 255).
func (k CorrelationKey) GroupValue(r *Row) (any, error) {
	if e := k.inner; e.kind == exField && (e.tab == 0 || r.Sides == nil) && (e.info.typ == typeInt || e.info.typ == typeFloat) {
		cell := r.cell(e.field.Name)
		if f, ok := cell.(float64); ok && !math.IsNaN(f) {
			return cell, nil // AppendKey(f) is AppendKey(cellValue(e.info, cell)): int64(f) when whole, else f
		}
	}
	return k.inner.eval(r)
}

// innerName names an expression of the subquery's table as alias.column.
func (sq *Subquery) innerName(e *expr) string {
	name := describe(e)
	if sq.alias != "" && (e.kind == exField || e.kind == exRecordID) {
		name = sq.alias + "." + name
	}
	return name
}

// readsOuter reports an expression that reads a column of sq's outer query.
func (e *expr) readsOuter(sq *Subquery) bool {
	if e == nil {
		return false
	}
	if e.kind == exOuter {
		return true
	}
	if e.kind == exSubquery && e.sub != nil && len(e.sub.refs) > 0 {
		for _, r := range e.sub.refs {
			if r.readsOuter(sq) {
				return true
			}
		}
	}
	for _, a := range e.args {
		if a.readsOuter(sq) {
			return true
		}
	}
	return false
}

// outerScope is the outer query of a subquery being planned.
type outerScope struct {
	parent *scope
	sq     *Subquery
}

// correlatedColumn resolves a column in a subquery: a column of the subquery's own tables (an
// unqualified name its tables have, or one qualified with their names), else the outer query's,
// as MySQL resolves names from the innermost query outwards.
func (s *scope) correlatedColumn(c *sqlparser.ColName) (*expr, error) {
	local := true
	if q := c.Qualifier; !q.IsEmpty() {
		switch {
		case !q.Qualifier.IsEmpty():
			local = false
		case len(s.sides) > 0:
			local = s.sideIndex(q.Name.String()) >= 0
		case s.noTable:
			local = false
		default:
			// An alias hides the table's name (as in localColumn): inside FROM Tasks AS s,
			// Tasks.x is the outer query's.
			local = q.Name.String() == s.alias || strings.EqualFold(s.alias, s.table.Name) && q.Name.String() == s.table.Name
		}
	}
	if local {
		e, err := s.localColumn(c)
		var uc *UnknownColumnError
		if err == nil || !c.Qualifier.IsEmpty() || !errors.As(err, &uc) {
			return e, err
		}
		x, perr := s.outer.parent.compile(c)
		if perr != nil {
			if errors.As(perr, &uc) {
				return nil, err // unknown in both: the subquery's own error
			}
			return nil, perr
		}
		return s.outer.ref(x), nil
	}
	x, err := s.outer.parent.compile(c)
	if err != nil {
		return nil, err
	}
	return s.outer.ref(x), nil
}

// ref registers a column of the outer query read by the subquery and returns the node that reads
// its value.
func (o *outerScope) ref(x *expr) *expr {
	sq := o.sq
	slot := -1
	for i, r := range sq.refs {
		if r.kind == x.kind && r.tab == x.tab && r.field == x.field && r.slot == x.slot && r.sub == x.sub && r.sql == x.sql {
			slot = i
			break
		}
	}
	if slot < 0 {
		slot = len(sq.refs)
		sq.refs = append(sq.refs, x)
		name := describe(x)
		if p := o.parent; len(p.sides) == 0 && p.alias != "" && !p.noTable && !strings.Contains(name, ".") {
			name = p.alias + "." + name
		}
		sq.names = append(sq.names, name)
	}
	e := &expr{kind: exOuter, typ: x.typ, nullable: true, slot: slot, sub: sq, sql: x.sql, info: x.info}
	if isLinkField(x) {
		e.field = x.field
	}
	return e
}

// attach ends a subquery expression's args with the outer columns it reads.
func (sq *Subquery) attach(e *expr) *expr {
	e.args = append(e.args, sq.refs...)
	return e
}

// resultFor is the subquery's result for a row: the one result of an uncorrelated subquery, else
// the result for the row's values of the outer columns (run, or from the cache).
func (e *expr) resultFor(r *Row) (*subResult, error) {
	sq := e.sub
	st := r.Env.state(sq)
	if len(sq.refs) == 0 {
		if st == nil || !st.done {
			return nil, fmt.Errorf("translate: the subquery %s has not been run", sq.SQL)
		}
		return &st.res, nil
	}
	if st == nil || st.run == nil {
		return nil, fmt.Errorf("translate: the correlated subquery %s has no runner", sq.SQL)
	}
	refs := e.args[len(e.args)-len(sq.refs):]
	vals := make([]any, len(refs))
	key := st.keyBuf[:0]
	for i, a := range refs {
		v, err := a.eval(r)
		if err != nil {
			return nil, err
		}
		vals[i] = v
		key = sqlvalue.AppendKey(key, v)
	}
	st.keyBuf = key
	if res, ok := st.cache[string(key)]; ok {
		return res, nil
	}
	var cacheKey string
	if st.maxHeld >= 0 {
		cacheKey = string(key) // before the run, which may reuse keyBuf
	}
	saved := st.cur
	st.cur = vals
	rows, err := st.run()
	st.cur = saved
	if err != nil {
		return nil, err
	}
	if st.maxHeld < 0 {
		st.last = subResult{}
		if err := sq.fill(&st.last, rows); err != nil {
			return nil, err
		}
		return &st.last, nil
	}
	res, err := sq.result(rows)
	if err != nil {
		return nil, err
	}
	if st.cache == nil || st.held > st.maxHeld {
		st.cache, st.held = map[string]*subResult{}, 0
	}
	st.cache[cacheKey] = res
	st.held += 1 + len(res.values)
	return res, nil
}

// exSubquery: mode "in": args[0] [NOT] IN the subquery; "exists": [NOT] EXISTS (args[0], when
// set, is the outer key of a decorrelated EXISTS); "scalar": the one value. A correlated
// subquery's outer columns follow.
func (e *expr) evalSubquery(r *Row) (any, error) {
	sq := e.sub
	res, err := e.resultFor(r)
	if err != nil {
		return nil, err
	}
	switch sq.mode {
	case "scalar":
		return res.scalar, nil
	case "exists":
		if len(e.args) == len(sq.refs) {
			return (res.rows > 0) != e.negated, nil
		}
		found := false
		for _, v := range e.keyValues(r) {
			if res.has(v) {
				found = true
				break
			}
		}
		return found != e.negated, nil
	}
	// IN: TRUE when a value matches; else NULL when the value is NULL (and the set is not empty)
	// or the set holds a NULL; else FALSE. NOT IN is its negation.
	vals := e.keyValues(r)
	isNull := len(vals) == 0 && !isLinkField(e.args[0])
	if !isNull {
		for _, v := range vals {
			if res.has(v) {
				return !e.negated, nil
			}
		}
	}
	if res.rows == 0 {
		return e.negated, nil
	}
	if isNull || res.hasNull {
		return nil, nil
	}
	return e.negated, nil
}

// keyValues is the outer value(s) of a subquery test: the ids of a link, else its one value (none
// for NULL).
func (e *expr) keyValues(r *Row) []any {
	k := e.args[0]
	if isLinkField(k) {
		ids, _ := k.linkIDs(r)
		out := make([]any, len(ids))
		for i, id := range ids {
			out[i] = id
		}
		return out
	}
	v, err := k.eval(r)
	if err != nil || v == nil {
		return nil
	}
	return []any{v}
}

// planSubquery plans a subquery of the statement s compiles, sharing its arguments.
func (s *scope) planSubquery(sel sqlparser.SelectStatement, mode string) (*Subquery, error) {
	return s.planSubqueryCols(sel, mode, 1)
}

// planSubqueryCols plans a subquery of cols columns (IN and scalar; EXISTS takes any).
func (s *scope) planSubqueryCols(sel sqlparser.SelectStatement, mode string, cols int) (*Subquery, error) {
	if s.schema == nil {
		return nil, unsupported("a subquery", sqlparser.String(sel), hintSubquery)
	}
	stmt, ok := sel.(*sqlparser.Select)
	var union *sqlparser.Union
	switch st := sel.(type) {
	case *sqlparser.ParenSelect:
		return s.planSubqueryCols(st.Select, mode, cols)
	case *sqlparser.Union:
		stmt, ok, union = unionAsSelect(st), true, st
	}
	if !ok {
		return nil, unsupported("the subquery", sqlparser.String(sel), "write a SELECT in the subquery")
	}
	sq := &Subquery{SQL: "(" + sqlparser.String(sel) + ")", mode: mode}
	q, err := s.childQuery(stmt, sq)
	if err != nil {
		var uc *UnknownColumnError
		var ue *UnsupportedError
		if union != nil && (errors.As(err, &uc) || errors.As(err, &ue) && ue.Construct == "JOIN") {
			op, _ := setOpOf(union.Type)
			name := map[SetOp]string{SetUnion: "a UNION", SetIntersect: "an INTERSECT", SetExcept: "an EXCEPT"}[op]
			return nil, unsupported(name+" inside a subquery that reads the outer query's columns", sq.SQL,
				name+" in a subquery runs as a derived table, which cannot read the outer query: write the subquery as one SELECT, or join")
		}
		return nil, err
	}
	if mode != "exists" && len(q.Columns) != cols {
		return nil, fmt.Errorf("translate: operand should contain 1 column(s): the subquery %s returns %d columns", sqlparser.String(sel), len(q.Columns))
	}
	sq.Query = q
	if len(sq.refs) > 0 {
		sq.findIndex()
	}
	s.subqueries = append(s.subqueries, sq)
	return sq, nil
}

// unionAsSelect is SELECT * FROM (u) AS union_subquery: a UNION inside a subquery runs as the derived
// table it is equivalent to (derived tables already run UNIONs), so it needs no plan of its own.
// Like any derived table it cannot read the outer query (MySQL's derived tables are not LATERAL).
func unionAsSelect(u *sqlparser.Union) *sqlparser.Select {
	return &sqlparser.Select{
		SelectExprs: sqlparser.SelectExprs{&sqlparser.StarExpr{}},
		From: sqlparser.TableExprs{&sqlparser.AliasedTableExpr{
			Expr: &sqlparser.Subquery{Select: u}, As: sqlparser.NewTableIdent("union_subquery")}},
	}
}

// childQuery plans a SELECT inside the statement: it reads the same arguments (their use is
// counted for the statement) and its own subqueries are the statement's. With sq, it is that
// subquery's SELECT, whose names may resolve in s (a correlated subquery); without, a derived table,
// which cannot read the outer query (MySQL's derived tables are not LATERAL).
func (s *scope) childQuery(stmt *sqlparser.Select, sq *Subquery) (*Query, error) {
	qp := &queryPlanner{stmt: stmt, q: &Query{Limit: -1}, outputIndex: map[string]int{}, localOnly: s.args.LocalOnly}
	if sq != nil {
		qp.outer = &outerScope{parent: s, sq: sq}
	}
	q, child, err := qp.planStatement(stmt, s.schema, s.args)
	if err != nil {
		return nil, err
	}
	if sq != nil && len(child.sides) == 0 && !child.noTable {
		sq.alias = child.alias
	}
	if s.usedPositional == nil {
		s.usedPositional = map[int]bool{}
	}
	if s.usedNamed == nil {
		s.usedNamed = map[string]bool{}
	}
	for k := range child.usedPositional {
		s.usedPositional[k] = true
	}
	for k := range child.usedNamed {
		s.usedNamed[k] = true
	}
	s.subqueries = append(s.subqueries, q.Subqueries...)
	q.Subqueries = nil
	return q, nil
}

// inSubquery compiles x [NOT] IN (SELECT …).
func (s *scope) inSubquery(left *expr, sub *sqlparser.Subquery, negated bool) (*expr, error) {
	if !negated && left.kind == exField && isLinkField(left) {
		if x, ok := s.inLinkSubquery(left, sub); ok {
			return x, nil
		}
	}
	sq, err := s.planSubquery(sub.Select, "in")
	if err != nil {
		return nil, err
	}
	col := sq.Query.Outputs[0].e
	if f := sq.Query.Columns[0].Field; f != nil && f.Type == "multipleRecordLinks" && col.kind == exField {
		sq.link = true
	}
	lt, rt := left.typ, col.typ
	if isLinkField(left) {
		lt = typeText
	}
	if sq.link {
		rt = typeText
	}
	if err := sameClass(lt, rt, describe(left), sq.SQL); err != nil {
		return nil, err
	}
	return sq.attach(&expr{kind: exSubquery, typ: typeCond, nullable: true, negated: negated, args: []*expr{left}, sub: sq,
		sql: describe(left) + " IN " + sq.SQL}), nil
}

// inLinkSubquery plans link IN (SELECT id FROM Linked …), the linked table's ids, with the records'
// primary values as a second column, so that the statement's request can be narrowed to the links
// that read as one of them (a superset; the IN is checked again by id). ok is false when the
// subquery is not of that shape: then it is planned as any IN subquery.
func (s *scope) inLinkSubquery(left *expr, sub *sqlparser.Subquery) (*expr, bool) {
	sel, ok := sub.Select.(*sqlparser.Select)
	if !ok || len(sel.SelectExprs) != 1 || len(sel.GroupBy) > 0 || sel.Having != nil || sel.Distinct != "" ||
		hasAggregate(sel.SelectExprs) || len(sel.From) != 1 {
		return nil, false
	}
	ate, ok := sel.From[0].(*sqlparser.AliasedTableExpr)
	if !ok {
		return nil, false
	}
	tn, ok := ate.Expr.(sqlparser.TableName)
	if !ok || !tn.Qualifier.IsEmpty() {
		return nil, false
	}
	primary := linkedPrimary(s.schema, left.field, tn.Name.String())
	if primary == nil {
		return nil, false
	}
	alias := tn.Name
	if !ate.As.IsEmpty() {
		alias = sqlparser.NewTableIdent(ate.As.String())
	}
	alt := *sel
	alt.SelectExprs = append(slices.Clone(sel.SelectExprs), &sqlparser.AliasedExpr{
		Expr: &sqlparser.ColName{Name: sqlparser.NewColIdent(primary.Name), Qualifier: sqlparser.TableName{Name: alias}}})
	mark, used, named := len(s.subqueries), maps.Clone(s.usedPositional), maps.Clone(s.usedNamed)
	sq, err := s.planSubqueryCols(&alt, "in", 2)
	undo := func() {
		s.subqueries, s.usedPositional, s.usedNamed = s.subqueries[:mark], used, named
	}
	if err != nil {
		undo()
		return nil, false
	}
	if sq.Correlated() || sq.Query.Outputs[0].e.kind != exRecordID || sq.Query.Outputs[1].e.kind != exField || sq.Query.Union != nil {
		undo()
		return nil, false
	}
	sq.SQL, sq.primary = "("+sqlparser.String(sel)+")", true
	return sq.attach(&expr{kind: exSubquery, typ: typeCond, nullable: true, args: []*expr{left}, sub: sq,
		sql: describe(left) + " IN " + sq.SQL}), true
}

// lookupLink adds, for a lone link = 'rec…' ANDed into a table's WHERE (when no IN subquery
// narrows the request already), a lookup of that record's primary value in the linked table
// (SELECT id, primary FROM Linked WHERE id = 'rec…', one GET), so that the request can be narrowed
// to FIND('primary value', {Link}&”) — a superset, the condition being checked again by id. A
// formula reads a link as its records' primary values, never their ids, so without the lookup
// the table is scanned whole. The engine runs it only when the table's scan may take more than
// two requests.
func (s *scope) lookupLink(where *expr, plan *Plan) {
	for _, c := range conjuncts(where) {
		if c.kind == exSubquery && c.sub.Bind != nil {
			return
		}
	}
	for _, c := range conjuncts(where) {
		if c.kind != exLinkHas || c.negated || c.op != "" || c.args[0].kind != exField || c.args[0].tab != 0 || c.args[1].kind != exConst {
			continue
		}
		id, ok := c.args[1].val.(string)
		linked, _ := c.args[0].field.Options["linkedTableId"].(string)
		if !ok || !strings.HasPrefix(id, "rec") || linked == "" {
			continue
		}
		t, ok := s.schema.Table(linked)
		if !ok || t == nil {
			continue
		}
		primary := linkedPrimary(s.schema, c.args[0].field, t.Name)
		if primary == nil {
			continue
		}
		for _, f := range t.Fields {
			if strings.EqualFold(f.Name, "id") {
				primary = nil // id names a field there, not the record id
			}
		}
		if primary == nil {
			continue
		}
		idCol := &sqlparser.ColName{Name: sqlparser.NewColIdent("id")}
		sel := &sqlparser.Select{
			SelectExprs: sqlparser.SelectExprs{&sqlparser.AliasedExpr{Expr: idCol},
				&sqlparser.AliasedExpr{Expr: &sqlparser.ColName{Name: sqlparser.NewColIdent(primary.Name)}}},
			From:  sqlparser.TableExprs{&sqlparser.AliasedTableExpr{Expr: sqlparser.TableName{Name: sqlparser.NewTableIdent(t.Name)}}},
			Where: sqlparser.NewWhere(sqlparser.WhereStr, &sqlparser.ComparisonExpr{Operator: sqlparser.EqualStr, Left: idCol, Right: sqlparser.NewStrVal([]byte(id))}),
		}
		mark := len(s.subqueries)
		sq, err := s.planSubqueryCols(sel, "in", 2)
		if err != nil || sq.Correlated() {
			s.subqueries = s.subqueries[:mark]
			continue
		}
		sq.primary, sq.bindOnly = true, true
		sq.Bind = &Bind{Mode: "link", outer: c.args[0], plan: plan}
		return
	}
}

// linkedPrimary is the text primary field of the table a link field links to, when that table is
// the one named (nil otherwise).
func linkedPrimary(schema Schema, link *Field, name string) *Field {
	if schema == nil {
		return nil
	}
	linked, _ := link.Options["linkedTableId"].(string)
	t, ok := schema.Table(name)
	if !ok || t == nil || linked == "" || t.ID != linked || t.PrimaryFieldID == "" || t.Local {
		return nil
	}
	for i := range t.Fields {
		if f := &t.Fields[i]; f.ID == t.PrimaryFieldID && fieldInfoOf(f).typ == typeText {
			return f
		}
	}
	return nil
}

// sameClass refuses an IN or EXISTS key whose two sides do not compare by the same rule (text with
// numbers, times with text): the set is matched by equality of keys.
func sameClass(a, b sqlType, left, right string) error {
	class := func(t sqlType) int {
		switch {
		case t == typeNull:
			return -1
		case t.Numeric():
			return 0
		case t.Temporal():
			return 1
		}
		return 2
	}
	ca, cb := class(a), class(b)
	if ca >= 0 && cb >= 0 && ca != cb {
		return fmt.Errorf("translate: cannot compare %s (%s) with the values of %s (%s): convert one side with CAST", left, a, right, b)
	}
	return nil
}

// scalarSubquery compiles (SELECT …) used as a value.
func (s *scope) scalarSubquery(sub *sqlparser.Subquery) (*expr, error) {
	sq, err := s.planSubquery(sub.Select, "scalar")
	if err != nil {
		return nil, err
	}
	col := sq.Query.Outputs[0].e
	return sq.attach(&expr{kind: exSubquery, typ: col.typ, nullable: true, sub: sq, sql: sq.SQL}), nil
}

// exists compiles [NOT] EXISTS (SELECT …): decorrelated into a semi-join when the subquery reads the
// outer query only through inner.col = outer.col and has no GROUP BY, HAVING, LIMIT or aggregates;
// otherwise a correlated subquery (run per distinct outer value) or an uncorrelated one.
func (s *scope) exists(e *sqlparser.ExistsExpr, negated bool) (*expr, error) {
	sel, ok := e.Subquery.Select.(*sqlparser.Select)
	if !ok {
		sq, err := s.planSubquery(e.Subquery.Select, "exists")
		if err != nil {
			return nil, err
		}
		return sq.attach(&expr{kind: exSubquery, typ: typeCond, negated: negated, sub: sq, sql: "EXISTS " + sq.SQL}), nil
	}
	inner, outer, rest, found := s.correlation(sel)
	if found && len(sel.GroupBy) == 0 && sel.Having == nil && sel.Limit == nil && !hasAggregate(sel.SelectExprs) {
		x, ok, err := s.semiJoin(e, sel, inner, outer, rest, negated)
		if ok || err != nil {
			return x, err
		}
	}
	sq, err := s.planSubquery(sel, "exists")
	if err != nil {
		return nil, err
	}
	return sq.attach(&expr{kind: exSubquery, typ: typeCond, negated: negated, sub: sq, sql: "EXISTS " + sq.SQL}), nil
}

// semiJoin plans EXISTS (SELECT … WHERE inner = outer AND rest) as "outer is among the values of
// inner over the rows of rest", run once. ok is false when rest reads the outer query too.
func (s *scope) semiJoin(e *sqlparser.ExistsExpr, sel *sqlparser.Select, inner, outer *sqlparser.ColName, rest sqlparser.Expr, negated bool) (*expr, bool, error) {
	outerKey, err := s.compile(outer)
	if err != nil {
		return nil, false, err
	}
	semi := *sel
	semi.SelectExprs = sqlparser.SelectExprs{&sqlparser.AliasedExpr{Expr: inner}}
	semi.Where = nil
	if rest != nil {
		semi.Where = &sqlparser.Where{Type: sqlparser.WhereStr, Expr: rest}
	}
	semi.Distinct = ""
	mark := len(s.subqueries)
	sq, err := s.planSubquery(&semi, "exists")
	if err != nil {
		return nil, false, err
	}
	if sq.Correlated() {
		s.subqueries = s.subqueries[:mark]
		return nil, false, nil
	}
	col := sq.Query.Outputs[0].e
	if f := sq.Query.Columns[0].Field; f != nil && f.Type == "multipleRecordLinks" && col.kind == exField {
		sq.link = true
	}
	lt, rt := outerKey.typ, col.typ
	if isLinkField(outerKey) {
		lt = typeText
	}
	if sq.link {
		rt = typeText
	}
	if err := sameClass(lt, rt, describe(outerKey), sq.SQL); err != nil {
		return nil, false, err
	}
	return &expr{kind: exSubquery, typ: typeCond, negated: negated, args: []*expr{outerKey}, sub: sq,
		sql: "EXISTS " + sqlparser.String(e.Subquery)}, true, nil
}

// correlation finds, among the top-level AND terms of a subquery's WHERE, one equality between a
// column of the subquery's own tables and a column qualified with a table of the outer query.
func (s *scope) correlation(sel *sqlparser.Select) (inner, outer *sqlparser.ColName, rest sqlparser.Expr, found bool) {
	if sel.Where == nil {
		return nil, nil, nil, false
	}
	own := map[string]bool{}
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if ate, ok := n.(*sqlparser.AliasedTableExpr); ok {
			// An aliased table is named by its alias only: Items.x inside FROM Items AS s reads
			// the outer query's Items.
			if tn, ok := ate.Expr.(sqlparser.TableName); ok && ate.As.IsEmpty() {
				own[strings.ToLower(tn.Name.String())] = true
			}
			if !ate.As.IsEmpty() {
				own[strings.ToLower(ate.As.String())] = true
			}
		}
		return true, nil
	}, sel.From)
	isOuter := func(c *sqlparser.ColName) bool {
		q := strings.ToLower(c.Qualifier.Name.String())
		if q == "" || own[q] {
			return false
		}
		if len(s.sides) > 0 {
			return s.sideIndex(c.Qualifier.Name.String()) >= 0
		}
		return strings.EqualFold(q, s.alias) || (s.table != nil && strings.EqualFold(q, s.table.Name))
	}
	var terms []sqlparser.Expr
	var split func(e sqlparser.Expr)
	split = func(e sqlparser.Expr) {
		if a, ok := e.(*sqlparser.AndExpr); ok {
			split(a.Left)
			split(a.Right)
			return
		}
		if p, ok := e.(*sqlparser.ParenExpr); ok {
			if _, isAnd := p.Expr.(*sqlparser.AndExpr); isAnd {
				split(p.Expr)
				return
			}
		}
		terms = append(terms, e)
	}
	split(sel.Where.Expr)
	for i, t := range terms {
		c, ok := t.(*sqlparser.ComparisonExpr)
		if !ok || c.Operator != sqlparser.EqualStr {
			continue
		}
		l, lok := c.Left.(*sqlparser.ColName)
		r, rok := c.Right.(*sqlparser.ColName)
		if !lok || !rok {
			continue
		}
		switch {
		case isOuter(r) && !isOuter(l):
			inner, outer = l, r
		case isOuter(l) && !isOuter(r):
			inner, outer = r, l
		default:
			continue
		}
		for j, o := range terms {
			if j == i {
				continue
			}
			if rest == nil {
				rest = o
			} else {
				rest = &sqlparser.AndExpr{Left: rest, Right: o}
			}
		}
		return inner, outer, rest, true
	}
	return nil, nil, nil, false
}

// bindSubqueries marks the IN subqueries ANDed into a table's WHERE whose values can be pushed into
// its request (plan: the subquery may be run by an enclosing statement, which narrows this scan only): x IN (SELECT …) with x the record id or a stored text or number field.
func bindSubqueries(where *expr, plan *Plan) {
	for _, c := range conjuncts(where) {
		if c.kind != exSubquery || c.negated || c.sub.mode != "in" || len(c.args) != 1 || c.sub.Correlated() {
			continue
		}
		o := c.args[0]
		switch {
		case o.kind == exRecordID:
			c.sub.Bind = &Bind{Mode: "id", Exact: true, outer: o, plan: plan}
			return
		case o.kind == exField && (o.typ == typeText || o.typ == typeInt || o.typ == typeFloat) && !o.info.computed && !isLinkField(o):
			c.sub.Bind = &Bind{Mode: "field", Exact: true, outer: o, plan: plan}
			return
		case o.kind == exField && isLinkField(o) && c.sub.primary:
			c.sub.Bind = &Bind{Mode: "link", outer: o, plan: plan}
			return
		}
	}
}
