package translate

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/airsql/airsql/formula"
	"github.com/xwb1989/sqlparser"
)

// Joins. A FROM with several tables (JOIN … ON/USING, LEFT JOIN, CROSS JOIN, commas) is planned as
// one scan per table — each with the conditions that concern that table alone pushed into its own
// request — and a left-deep list of join steps that the engine runs as hash joins on the equality
// keys (a linked-record field joins on each id it holds). Rows of a join hold one record per table
// (Row.Sides); a column compiled in a join reads its table's record (expr.tab).

// Join is the tables of a FROM clause and how the engine joins them.
type Join struct {
	Tables []JoinTable // in FROM's order: Row.Sides[i] is Tables[i]'s record
	Steps  []JoinStep  // Steps[0] reads the first table; each later step joins one more
}

// JoinTable is one table of a join: its scan (request and local re-check, as for a lone table).
type JoinTable struct {
	Alias string
	Plan  *Plan
}

// JoinStep joins the rows so far with the rows of one table.
type JoinStep struct {
	Table int    // index in Join.Tables
	Kind  string // "first" (Steps[0]), "inner", "left" or "cross"
	// Keys: equality conditions between the rows so far (Outer) and the table's rows (Inner). The
	// engine hashes the table's rows by Inner and probes with Outer.
	Keys []JoinKey
	On   *Expr  // the rest of the join condition, on the joined row; nil: none
	SQL  string // the join as written, for EXPLAIN and messages
	// Bind, when set, pushes this step's keys into the first table's request (Steps[1] only).
	Bind *Bind
}

// JoinKey is one equality of a join: Outer on the rows so far, Inner on the joined table's rows.
// A side that is a linked-record field stands for each record id it holds.
type JoinKey struct {
	Outer, Inner         *Expr
	OuterLink, InnerLink bool
}

// OuterValues are the key values of a joined row (several for a link; NULLs left out).
func (k JoinKey) OuterValues(r *Row) ([]any, error) { return keyValues(k.Outer, k.OuterLink, r) }

// InnerValues are the key values of a row of the joined table.
func (k JoinKey) InnerValues(r *Row) ([]any, error) { return keyValues(k.Inner, k.InnerLink, r) }

func keyValues(x *Expr, link bool, r *Row) ([]any, error) {
	if link {
		ids, _ := x.e.linkIDs(r)
		out := make([]any, len(ids))
		for i, id := range ids {
			out[i] = id
		}
		return out, nil
	}
	v, err := x.e.eval(r)
	if err != nil || v == nil {
		return nil, err
	}
	return []any{v}, nil
}

// joinSide is one table of a join as names resolve in it.
type joinSide struct {
	table    *Table
	alias    string
	view     string
	nullable bool // the right side of a LEFT JOIN: its columns may be NULL
}

// joinColumn resolves a column in a join: alias.column names one table; a bare name must belong to
// exactly one of them (MySQL's "ambiguous" error otherwise).
func (s *scope) joinColumn(c *sqlparser.ColName) (*expr, error) {
	name := c.Name.String()
	if q := c.Qualifier; !q.IsEmpty() {
		if !q.Qualifier.IsEmpty() {
			return nil, unknownColumnf("'%s': name a column as alias.column in a join", sqlparser.String(c))
		}
		i := s.sideIndex(q.Name.String())
		if i < 0 {
			return nil, unknownColumnf("'%s': no table or alias %q in FROM (%s)", sqlparser.String(c), q.Name.String(), s.sideNames())
		}
		return s.sideColumn(i, name)
	}
	var found *expr
	var owners []string
	var firstErr error
	for i := range s.sides {
		e, err := s.sideColumn(i, name)
		if err != nil {
			if firstErr == nil && strings.Contains(err.Error(), "ambiguous") {
				firstErr = err
			}
			continue
		}
		if found == nil {
			found = e
		}
		owners = append(owners, s.sides[i].alias)
	}
	switch {
	case len(owners) > 1:
		return nil, fmt.Errorf("translate: column '%s' is ambiguous: tables %s all have it; qualify it (%s.%s)",
			name, strings.Join(owners, " and "), owners[0], name)
	case found == nil && firstErr != nil:
		return nil, firstErr
	case found == nil:
		return nil, unknownColumnf("'%s': none of the tables in FROM (%s) has it", name, s.sideNames())
	}
	return found, nil
}

func (s *scope) sideIndex(alias string) int {
	for i, side := range s.sides {
		if side.alias == alias {
			return i
		}
	}
	for i, side := range s.sides {
		if strings.EqualFold(side.alias, alias) {
			return i
		}
	}
	return -1
}

func (s *scope) sideNames() string {
	var names []string
	for _, side := range s.sides {
		if side.alias != side.table.Name {
			names = append(names, side.table.Name+" AS "+side.alias)
		} else {
			names = append(names, side.table.Name)
		}
	}
	return strings.Join(names, ", ")
}

// sideColumn resolves a column of table i of the join.
func (s *scope) sideColumn(i int, name string) (*expr, error) {
	side := s.sides[i]
	sub := &scope{table: side.table, alias: side.alias}
	e, err := sub.lookupColumn(name)
	if err != nil {
		return nil, err
	}
	return s.onSide(i, e), nil
}

func (s *scope) onSide(i int, e *expr) *expr {
	e.tab = i + 1
	if s.sides[i].nullable {
		e.nullable = true
	}
	if e.sql != "" {
		e.sql = s.sides[i].alias + "." + e.sql
	}
	return e
}

// sideStar is the columns of table i, for * and alias.*.
func (s *scope) sideStar(i int) []*expr {
	sub := &scope{table: s.sides[i].table, alias: s.sides[i].alias}
	cols := sub.star()
	for _, e := range cols {
		name := e.sql
		s.onSide(i, e)
		e.sql = name // the output column is named as the field, as MySQL names t.* columns
	}
	return cols
}

// joinStar is SELECT * over a join: every table's columns in FROM's order — unless a step joins
// with USING, where MySQL's order is the USING columns once (the value of the table before, which
// a match equals and a missing match leaves NULL on both sides), then the other columns of the
// tables before, then those of the joined table; a RIGHT JOIN's right table counts as the one
// before (MySQL runs it as the LEFT JOIN with the tables swapped).
func (qp *queryPlanner) joinStar() []*expr {
	s, jp := qp.s, qp.join
	var cols []*expr
	if !slices.ContainsFunc(jp.steps, func(st pendingStep) bool { return len(st.using) > 0 }) {
		for i := range jp.sides {
			cols = append(cols, s.sideStar(i)...)
		}
		return cols
	}
	for k, st := range jp.steps {
		right := s.sideStar(st.table)
		if k == 0 || len(st.using) == 0 {
			cols = append(cols, right...)
			continue
		}
		using := map[string]bool{}
		for _, u := range st.using {
			using[strings.ToLower(u.String())] = true
		}
		var common, before, after []*expr
		for _, c := range cols {
			if using[strings.ToLower(c.sql)] {
				common = append(common, c)
			} else {
				before = append(before, c)
			}
		}
		for _, c := range right {
			if !using[strings.ToLower(c.sql)] {
				after = append(after, c)
			}
		}
		cols = append(append(common, before...), after...)
	}
	return cols
}

// isJoin reports a FROM clause with more than one table.
func isJoin(from sqlparser.TableExprs) bool {
	if len(from) > 1 {
		return true
	}
	if len(from) == 1 {
		switch from[0].(type) {
		case *sqlparser.JoinTableExpr, *sqlparser.ParenTableExpr:
			return true
		}
	}
	return false
}

// joinPlanner reads a FROM clause with joins.
type joinPlanner struct {
	schema Schema
	ps     *scope // plans derived tables
	sides  []joinSide
	steps  []pendingStep
}

type pendingStep struct {
	table int
	kind  string
	on    sqlparser.Expr // nil: none
	using sqlparser.Columns
	sql   string
}

// flatten lists the tables and join steps of FROM, left-deep.
func (jp *joinPlanner) flatten(from sqlparser.TableExprs) error {
	for i, te := range from {
		kind := "cross"
		if i == 0 {
			kind = "first"
		}
		if err := jp.tableExpr(te, kind, nil, nil, sqlparser.String(te)); err != nil {
			return err
		}
	}
	return nil
}

func (jp *joinPlanner) tableExpr(te sqlparser.TableExpr, kind string, on sqlparser.Expr, using sqlparser.Columns, text string) error {
	switch t := te.(type) {
	case *sqlparser.AliasedTableExpr:
		var table *Table
		var alias, view string
		var err error
		if _, isSub := t.Expr.(*sqlparser.Subquery); isSub {
			table, alias, err = jp.ps.derivedTable(t)
		} else {
			table, alias, view, err = queryFrom(sqlparser.TableExprs{t}, jp.schema)
		}
		if err != nil {
			return err
		}
		if table == nil {
			return unsupported("DUAL in a join", sqlparser.String(t), "leave DUAL out")
		}
		for _, side := range jp.sides {
			if side.alias == alias {
				return fmt.Errorf("translate: not unique table/alias: '%s': give each table of the join its own alias (FROM %s a JOIN %s b …)", alias, table.Name, table.Name)
			}
		}
		jp.sides = append(jp.sides, joinSide{table: table, alias: alias, view: view, nullable: kind == "left"})
		jp.steps = append(jp.steps, pendingStep{table: len(jp.sides) - 1, kind: kind, on: on, using: using, sql: text})
		return nil
	case *sqlparser.ParenTableExpr:
		if len(t.Exprs) == 1 && kind != "left" {
			return jp.tableExpr(t.Exprs[0], kind, on, using, text)
		}
		return unsupported("a parenthesised join on the right of a join", sqlparser.String(t), "write the joins one after another: a JOIN b ON … JOIN c ON …")
	case *sqlparser.JoinTableExpr:
		if kind != "first" && kind != "cross" || on != nil {
			return unsupported("a join nested on the right of a join", sqlparser.String(t), "write the joins one after another: a JOIN b ON … JOIN c ON …")
		}
		if err := jp.tableExpr(t.LeftExpr, kind, nil, nil, sqlparser.String(t.LeftExpr)); err != nil {
			return err
		}
		var k string
		switch t.Join {
		case sqlparser.JoinStr, sqlparser.StraightJoinStr:
			k = "inner"
			if t.Condition.On == nil && len(t.Condition.Using) == 0 {
				k = "cross"
			}
		case sqlparser.LeftJoinStr:
			k = "left"
			if t.Condition.On == nil && len(t.Condition.Using) == 0 {
				return fmt.Errorf("translate: LEFT JOIN needs ON or USING: %s", sqlparser.String(t))
			}
		case sqlparser.RightJoinStr:
			// a RIGHT JOIN b is b LEFT JOIN a: b is read first and a's columns may be NULL. The
			// tables keep FROM's order for SELECT *.
			if len(jp.sides) != 1 {
				return unsupported("RIGHT JOIN after other joins", sqlparser.String(t), "write it as a LEFT JOIN with the tables swapped")
			}
			if t.Condition.On == nil && len(t.Condition.Using) == 0 {
				return fmt.Errorf("translate: RIGHT JOIN needs ON or USING: %s", sqlparser.String(t))
			}
			if err := jp.tableExpr(t.RightExpr, "first", nil, nil, sqlparser.String(t.RightExpr)); err != nil {
				return err
			}
			left := jp.steps[0]
			jp.sides[left.table].nullable = true
			jp.steps = []pendingStep{jp.steps[1], {table: left.table, kind: "left", on: t.Condition.On, using: t.Condition.Using,
				sql: "right join " + sqlparser.String(t.RightExpr) + " (as " + sqlparser.String(t.RightExpr) + " left join " + left.sql + ")"}}
			return nil
		default:
			return unsupported(strings.ToUpper(t.Join), sqlparser.String(t), "write [INNER] JOIN … ON, LEFT JOIN … ON or CROSS JOIN")
		}
		if _, isJoin := t.RightExpr.(*sqlparser.JoinTableExpr); isJoin {
			return unsupported("a join nested on the right of a join", sqlparser.String(t), "write the joins one after another: a JOIN b ON … JOIN c ON …")
		}
		return jp.tableExpr(t.RightExpr, k, t.Condition.On, t.Condition.Using, t.Join+" "+sqlparser.String(t.RightExpr))
	}
	return unsupported("the FROM clause", sqlparser.String(te), "name tables joined with JOIN … ON")
}

// conjuncts splits a condition at its top-level ANDs.
func conjuncts(e *expr) []*expr {
	if e == nil {
		return nil
	}
	if e.kind == exAnd {
		var out []*expr
		for _, a := range e.args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []*expr{e}
}

func andOf(cs []*expr) *expr {
	switch len(cs) {
	case 0:
		return nil
	case 1:
		return cs[0]
	}
	nullable := false
	for _, c := range cs {
		nullable = nullable || c.nullable
	}
	return &expr{kind: exAnd, typ: typeBool, nullable: nullable, args: cs}
}

// tabs is the set of join tables (bit i for table i) an expression reads.
func (e *expr) tabs() uint64 {
	if e == nil {
		return 0
	}
	var m uint64
	switch e.kind {
	case exField, exRecordID, exCreatedTime, exDerived:
		if e.tab > 0 {
			m |= 1 << (e.tab - 1)
		}
	}
	for _, a := range e.args {
		m |= a.tabs()
	}
	return m
}

// planJoin compiles the join conditions, gives each table the conditions on it alone, finds the
// equality keys of each step and leaves the rest to be checked on the joined rows.
func (qp *queryPlanner) planJoin(where *expr) error {
	s, q, jp := qp.s, qp.q, qp.join
	n := len(jp.sides)
	own := make([][]*expr, n)                // conditions pushed into table i's scan
	stepOn := make([][]*expr, len(jp.steps)) // residual conditions of each step
	keys := make([][]JoinKey, len(jp.steps)) // equality keys of each step
	// The ON conditions (USING included), compiled once.
	ons := make([]*expr, len(jp.steps))
	for i, st := range jp.steps {
		if st.on != nil {
			c, err := s.condition(st.on)
			if err != nil {
				return err
			}
			ons[i] = c
		}
		for _, col := range st.using {
			c, err := qp.usingCondition(i, col)
			if err != nil {
				return err
			}
			ons[i] = andOf(append(conjuncts(ons[i]), c))
		}
	}
	jp.orderFirstTwo(where, ons)
	pos := make([]int, n) // table → its step
	for i, st := range jp.steps {
		pos[st.table] = i
	}
	var rest []*expr                    // WHERE conditions checked on the final rows
	joinedBy := func(mask uint64) int { // the step after which every table of mask is joined
		last := 0
		for i := 0; i < n; i++ {
			if mask&(1<<i) != 0 && pos[i] > last {
				last = pos[i]
			}
		}
		return last
	}
	// key finds an equality usable as a hash key of step i: one side on the step's table alone, the
	// other on tables joined before it.
	key := func(c *expr, i int) (JoinKey, bool) {
		t := uint64(1) << jp.steps[i].table
		before := uint64(0)
		for j := 0; j < i; j++ {
			before |= 1 << jp.steps[j].table
		}
		var a, b *expr
		switch {
		case c.kind == exCompare && c.op == "=" && !c.negated:
			a, b = c.args[0], c.args[1]
		case c.kind == exLinkHas && !c.negated && c.op == "":
			a, b = c.args[0], c.args[1]
		default:
			return JoinKey{}, false
		}
		ta, tb := a.tabs(), b.tabs()
		switch {
		case ta == t && tb != 0 && tb&^before == 0:
			return JoinKey{Inner: wrap(a), Outer: wrap(b), InnerLink: c.kind == exLinkHas}, true
		case tb == t && ta != 0 && ta&^before == 0:
			return JoinKey{Inner: wrap(b), Outer: wrap(a), OuterLink: c.kind == exLinkHas}, true
		}
		return JoinKey{}, false
	}
	// place puts a condition of an inner join (or of WHERE) where it is cheapest: a table's own
	// scan, a step's keys, or the first inner step after which all its tables are joined.
	place := func(c *expr) {
		m := c.tabs()
		if m != 0 && m&(m-1) == 0 {
			i := 0
			for m>>i != 1 {
				i++
			}
			if !jp.sides[i].nullable {
				own[i] = append(own[i], c)
				return
			}
		}
		at := joinedBy(m)
		for j := at; j < len(jp.steps); j++ {
			if jp.steps[j].kind == "left" {
				continue // a WHERE condition is not part of an outer join's ON
			}
			if k, ok := key(c, j); ok && j == at {
				keys[j] = append(keys[j], k)
				return
			}
			if j > 0 {
				stepOn[j] = append(stepOn[j], c)
				return
			}
		}
		rest = append(rest, c)
	}
	for i, st := range jp.steps {
		on := ons[i]
		visible := uint64(0)
		for j := 0; j <= i; j++ {
			visible |= 1 << jp.steps[j].table
		}
		for _, c := range conjuncts(on) {
			if m := c.tabs(); m&^visible != 0 {
				return unknownColumnf("in 'on clause' of %s: the ON condition of a join can name only the tables joined so far", st.sql)
			}
			if st.kind != "left" {
				place(c)
				continue
			}
			m := c.tabs()
			switch {
			case m == 1<<st.table:
				own[st.table] = append(own[st.table], c) // filters the joined table's rows before the match
			default:
				if k, ok := key(c, i); ok {
					keys[i] = append(keys[i], k)
				} else {
					stepOn[i] = append(stepOn[i], c)
				}
			}
		}
	}
	for _, c := range conjuncts(where) {
		place(c)
	}

	// The tables' scans.
	join := &Join{}
	for i, side := range jp.sides {
		plan := &Plan{Table: side.table, Limit: -1, Request: Request{View: side.view}}
		plan.where = andOf(own[i])
		if side.table.Local || qp.localOnly {
			plan.Exact = plan.where == nil
		} else {
			plan.pushWhere(&pusher{})
		}
		join.Tables = append(join.Tables, JoinTable{Alias: side.alias, Plan: plan})
	}
	for i, st := range jp.steps {
		kind := st.kind
		if kind == "inner" && len(keys[i]) == 0 && len(stepOn[i]) == 0 {
			kind = "cross"
		}
		if kind == "cross" && (len(keys[i]) > 0 || len(stepOn[i]) > 0) {
			kind = "inner"
		}
		join.Steps = append(join.Steps, JoinStep{Table: st.table, Kind: kind, Keys: keys[i], On: wrap(andOf(stepOn[i])), SQL: st.sql})
	}
	if len(join.Steps) > 1 {
		join.Steps[1].Bind = qp.bindFor(join, 1)
	}
	q.Join = join
	q.Where = wrap(andOf(rest))
	q.SortLocally = len(q.Order) > 0

	// The fields each table's scan must return: whatever any step reads from it.
	var all []*expr
	all = append(all, qp.outputs...)
	all = append(all, qp.groupKeys...)
	for _, a := range qp.aggs {
		all = append(all, a.args...)
		for _, k := range a.order {
			all = append(all, k.e)
		}
	}
	if q.Having != nil {
		all = append(all, q.Having.e)
	}
	all = append(all, rest...)
	for i := range stepOn {
		all = append(all, stepOn[i]...)
		for _, k := range keys[i] {
			all = append(all, k.Outer.e, k.Inner.e)
		}
	}
	for i, jt := range join.Tables {
		need := map[string]bool{}
		for _, e := range all {
			e.fieldsOf(i+1, need)
		}
		if !jt.Plan.Exact {
			jt.Plan.where.fields(need)
		}
		for _, st := range join.Steps {
			if st.Bind != nil && st.Bind.primary != nil && st.Table == i {
				need[st.Bind.primary.field.Name] = true
			}
		}
		jt.Plan.Request.Fields = fieldList(jt.Plan.Table, need)
	}
	return nil
}

// fieldList lists the needed fields in the table's order: nil for all of them, the smallest field
// when none is needed (the service returns every field when fields[] is empty).
func fieldList(t *Table, need map[string]bool) []string {
	var out []string
	for _, f := range t.Fields {
		if need[f.Name] {
			out = append(out, f.Name)
		}
	}
	if len(out) == len(t.Fields) && len(out) > 0 {
		return nil
	}
	if len(out) == 0 {
		if f := smallestField(t); f != "" {
			return []string{f}
		}
	}
	return out
}

// usingCondition is JOIN … USING (col): the column of the joined table equals the column of the
// one table before it that has it.
func (qp *queryPlanner) usingCondition(step int, col sqlparser.ColIdent) (*expr, error) {
	s, jp := qp.s, qp.join
	right := jp.steps[step].table
	r, err := s.sideColumn(right, col.String())
	if err != nil {
		return nil, unknownColumnf("'%s' in 'from clause': USING names a column of both tables", col.String())
	}
	var l *expr
	for j := 0; j < step; j++ {
		e, err := s.sideColumn(jp.steps[j].table, col.String())
		if err != nil {
			continue
		}
		if l != nil {
			return nil, fmt.Errorf("translate: column '%s' in from clause is ambiguous: several tables before %s have it; join with ON", col.String(), jp.steps[step].sql)
		}
		l = e
	}
	if l == nil {
		return nil, unknownColumnf("'%s' in 'from clause': no table before %s has it", col.String(), jp.steps[step].sql)
	}
	return s.compare("=", l, r)
}

// BindBatchChars is the most characters of key conditions written into one request's formula in a
// bind join. A list request whose URL passes 16,000 characters goes as POST …/listRecords (the
// transport does that by itself), so a batch never fails for its length; keeping each batch near
// that size keeps the request a plain GET when its text is mostly ids.
const BindBatchChars = 12000

// Bind is how a step pushes keys into the first table's request (a "bind join"): the step's table
// is read first, its distinct non-NULL key values are written into the first table's formula as
// OR(RECORD_ID()='rec…', …) for ids or OR({Email}='…', …) for fields, and only the matching records
// are read. A linked-record field reads in a formula as its linked records' primary values, not
// their ids, so a link key is pushed as OR(FIND('primary value', {Link}&”), …): a superset (a name
// may be part of another) that the join checks again by id.
type Bind struct {
	Key     int    // the step's key pushed
	Mode    string // "id", "field" or "link"
	Exact   bool   // the formula selects exactly the matching records
	outer   *expr  // the first table's key
	primary *expr  // Mode link: the step table's primary field
}

// Values are what a row of the step's table contributes to the pushed formula (none for NULL); ok
// is false when the row's value cannot be written (a link to a record whose primary value is not
// text): then nothing is pushed.
func (b *Bind) Values(step JoinStep, inner *Row) (vals []any, ok bool, err error) {
	if b.Mode == "link" {
		v, err := b.primary.eval(inner)
		if err != nil {
			return nil, false, err
		}
		s, isText := v.(string)
		if !isText || s == "" {
			return nil, false, nil
		}
		return []any{s}, true, nil
	}
	vals, err = step.Keys[b.Key].InnerValues(inner)
	return vals, err == nil, err
}

// Formulas writes distinct values as formulas, each at most about maxChars characters; ok is false
// when a value cannot be written (then the table is scanned instead).
func (b *Bind) Formulas(vals []any, maxChars int) (formulas []string, ok bool) {
	var batch []string
	size := 0
	flush := func() {
		if len(batch) > 0 {
			formulas = append(formulas, fOr(batch...))
			batch, size = nil, 0
		}
	}
	p := &pusher{}
	for _, v := range vals {
		var cond string
		switch b.Mode {
		case "id":
			s, isText := v.(string)
			if !isText || !utf8.ValidString(s) {
				return nil, false
			}
			cond = "RECORD_ID()=" + formula.Quote(s)
		case "link":
			s := v.(string)
			if !utf8.ValidString(s) {
				return nil, false
			}
			cond = "FIND(" + formula.Quote(s) + "," + p.ref(b.outer.field) + "&'')"
		default:
			c := constOf(v)
			if c == nil {
				return nil, false
			}
			pr := p.compare("=", b.outer, c)
			if pr.t == formulaAll || pr.t == "" || !pr.tExact {
				return nil, false
			}
			cond = pr.t
		}
		if size+len(cond) > maxChars {
			flush()
		}
		batch = append(batch, cond)
		size += len(cond) + 1
	}
	flush()
	return formulas, true
}

func constOf(v any) *expr {
	switch x := v.(type) {
	case string:
		return &expr{kind: exConst, typ: typeText, val: x}
	case int64:
		return &expr{kind: exConst, typ: typeInt, val: x}
	case float64:
		return &expr{kind: exConst, typ: typeFloat, val: x}
	}
	return nil
}

// WithFormula is the plan with one more condition ANDed into its formula (a bind join's batch).
func (plan *Plan) WithFormula(f string) *Plan {
	c := *plan
	c.Request.Formula = fAnd(plan.Request.Formula, f)
	if plan.Request.Formula == "" {
		c.Request.Formula = f
	}
	c.Request.MaxRecords = 0
	c.Limit = -1
	return &c
}

// bindFor decides whether step i's keys can be pushed into the first table's request.
func (qp *queryPlanner) bindFor(j *Join, i int) *Bind {
	st := j.Steps[i]
	first := j.Tables[j.Steps[0].Table].Plan
	if i != 1 || st.Kind != "inner" || first.Table.Local || qp.localOnly || first.RecordIDs != nil || first.NoRows {
		return nil
	}
	inner := j.Tables[st.Table].Plan.Table
	for ki, k := range st.Keys {
		o := k.Outer.e
		switch {
		case k.OuterLink:
			linked, _ := o.field.Options["linkedTableId"].(string)
			if linked == "" || linked != inner.ID || k.Inner.e.kind != exRecordID || inner.PrimaryFieldID == "" {
				continue
			}
			for fi := range inner.Fields {
				f := &inner.Fields[fi]
				if f.ID == inner.PrimaryFieldID && fieldInfoOf(f).typ == typeText {
					primary := (&scope{table: inner}).fieldExpr(f)
					primary.tab = st.Table + 1
					return &Bind{Key: ki, Mode: "link", outer: o, primary: primary}
				}
			}
		case o.kind == exRecordID:
			return &Bind{Key: ki, Mode: "id", Exact: true, outer: o}
		case o.kind == exField && (o.typ == typeText || o.typ == typeInt || o.typ == typeFloat) && !o.info.computed:
			return &Bind{Key: ki, Mode: "field", Exact: true, outer: o}
		}
	}
	return nil
}

// Field is the formula reference of the first table's key ({Email}, {Assignee}, RECORD_ID()).
func (b *Bind) Field() string {
	if b.outer.kind == exRecordID {
		return "RECORD_ID()"
	}
	return (&pusher{}).ref(b.outer.field)
}

// orderFirstTwo chooses which of the first two tables of an inner join is read first: the joined
// table (step 1) is read first and its keys are pushed into the other's request, so when only the
// first table has conditions of its own (a filtered, likely smaller read), the two are swapped.
// The rows' Sides keep FROM's order, so the result is the same.
func (jp *joinPlanner) orderFirstTwo(where *expr, ons []*expr) {
	if len(jp.steps) < 2 || (jp.steps[1].kind != "inner" && jp.steps[1].kind != "cross") {
		return
	}
	a, b := jp.steps[0].table, jp.steps[1].table
	filtered := func(t int) bool {
		for _, c := range append(conjuncts(where), conjuncts(ons[1])...) {
			if c.tabs() == 1<<t {
				return true
			}
		}
		return false
	}
	if !filtered(a) || filtered(b) {
		return
	}
	first, second := jp.steps[0], jp.steps[1]
	jp.steps[0] = pendingStep{table: b, kind: "first", sql: second.sql}
	jp.steps[1] = pendingStep{table: a, kind: second.kind,
		sql: fmt.Sprintf("%s (the filtered %s read first)", strings.TrimSpace(first.sql), jp.sides[a].alias)}
}
