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
	Kind  string // "first" (Steps[0]), "inner", "left", "right" (every row of the table is kept) or "cross"
	// Keys: equality conditions between the rows so far (Outer) and the table's rows (Inner). The
	// engine hashes the table's rows by Inner and probes with Outer.
	Keys []JoinKey
	On   *Expr  // the rest of the join condition, on the joined row; nil: none
	SQL  string // the join as written, for EXPLAIN and messages
	// Bind, when set, pushes this step's keys into the first table's request (Steps[1] only).
	Bind *Bind
	// BindInner, when set (and Bind is not), pushes the keys of the rows so far into this step's
	// table's request: the rows so far are read first (inner and LEFT JOIN steps).
	BindInner *Bind
	// Group: the step joins the rows of a parenthesised join (its steps, inner joins, the first
	// "first") rather than one table's; Table is its first table. Its rows hold Sides.
	Group []JoinStep
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
		if cell, ok := x.e.linkCell(r); ok {
			return cell, nil // the ids as the cell holds them: no copy per row of a join
		}
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

	// How the table joins the tables before it, as written: "first", "inner", "left", "right" or
	// "cross"; its USING columns (NATURAL: the columns in common, found by coalesce); item: the
	// first table of its FROM item (a comma-separated one, or a parenthesised join), which USING
	// and NATURAL look into.
	join    string
	using   []string
	natural bool
	item    int
	// database: the table was named db.table without an alias; its alias becomes db.table when
	// another base's table of the same name joins it (MySQL tells them apart by database).
	database bool
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
	var ownerIdx []int
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
		ownerIdx = append(ownerIdx, i)
	}
	if len(owners) > 1 {
		if x, ok := s.coalescedColumn(name, ownerIdx); ok {
			return x, nil
		}
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
	// entries: the columns of SELECT * over the join, USING and NATURAL columns coalesced;
	// usingConds: the equalities USING and NATURAL add (both set by coalesce).
	entries    []joinEntry
	usingConds []usingCond
	// itemStart: the first table of the comma-separated FROM item being read. A RIGHT JOIN keeps
	// its own table's rows against the tables of its item only (a, b RIGHT JOIN c is a CROSS JOIN
	// of a with b RIGHT JOIN c), which a left-deep plan can give only for the first item.
	itemStart int
}

type pendingStep struct {
	table int
	kind  string
	on    sqlparser.Expr // nil: none
	sql   string
	// group: a parenthesised join of inner joins on the right of a LEFT JOIN (a LEFT JOIN (b JOIN
	// c ON x) ON y): its own steps, joined first; table is its first table.
	group []pendingStep
}

// flatten lists the tables and join steps of FROM, left-deep.
func (jp *joinPlanner) flatten(from sqlparser.TableExprs) error {
	for i, te := range from {
		kind := "cross"
		if i == 0 {
			kind = "first"
		}
		jp.itemStart = len(jp.sides)
		if err := jp.tableExpr(te, kind, nil, nil, sqlparser.String(te)); err != nil {
			return err
		}
	}
	return nil
}

func (jp *joinPlanner) tableExpr(te sqlparser.TableExpr, kind string, on sqlparser.Expr, using sqlparser.Columns, text string) error {
	switch t := te.(type) {
	case *sqlparser.AliasedTableExpr:
		return jp.aliasedTable(t, kind, on, using, text)
	case *sqlparser.ParenTableExpr:
		return jp.parenTable(t, kind, on, using, text)
	case *sqlparser.JoinTableExpr:
		return jp.joinTable(t, kind, on, using)
	}
	return unsupported("the FROM clause", sqlparser.String(te), "name tables joined with JOIN … ON")
}

// aliasedTable adds one table (or derived table) of FROM as a side, joined by a step of kind.
func (jp *joinPlanner) aliasedTable(t *sqlparser.AliasedTableExpr, kind string, on sqlparser.Expr, using sqlparser.Columns, text string) error {
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
	if table.JSONTable != nil { // the call as written, not the derived table the front end made of it
		text = strings.Replace(text, sqlparser.String(t), table.JSONTable.SQL, 1)
	}
	tn, named := t.Expr.(sqlparser.TableName)
	byDatabase := named && t.As.IsEmpty() && !tn.Qualifier.IsEmpty() && table.Database != ""
	for i, side := range jp.sides {
		if side.alias != alias {
			continue
		}
		if byDatabase && side.database && !strings.EqualFold(side.table.Database, table.Database) {
			// appA.T JOIN appB.T: each is its database's T, named appA.T.col and appB.T.col.
			jp.sides[i].alias = side.table.Database + "." + side.alias
			alias = table.Database + "." + alias
			continue
		}
		return fmt.Errorf("translate: not unique table/alias: '%s': give each table of the join its own alias (FROM %s a JOIN %s b …)", alias, table.Name, table.Name)
	}
	side := joinSide{table: table, alias: alias, view: view, nullable: kind == "left", join: kind, item: jp.itemStart, database: byDatabase}
	for _, c := range using {
		side.using = append(side.using, c.String())
	}
	jp.sides = append(jp.sides, side)
	jp.steps = append(jp.steps, pendingStep{table: len(jp.sides) - 1, kind: kind, on: on, sql: text})
	return nil
}

// parenTable reads a parenthesised table or join: a lone table, inner joins that continue the
// left-deep list, or a LEFT JOIN of a group of inner joins.
func (jp *joinPlanner) parenTable(t *sqlparser.ParenTableExpr, kind string, on sqlparser.Expr, using sqlparser.Columns, text string) error {
	if len(t.Exprs) != 1 {
		return unsupported("a parenthesised list of tables", sqlparser.String(t), "write the tables with JOIN … ON")
	}
	if _, isJoin := t.Exprs[0].(*sqlparser.JoinTableExpr); !isJoin || kind == "first" || kind == "cross" && on == nil && len(using) == 0 {
		return jp.tableExpr(t.Exprs[0], kind, on, using, text)
	}
	// a JOIN (b JOIN c ON x) ON y: with inner joins only, the same rows as a JOIN b JOIN c ON
	// x AND y, so the nested joins continue the left-deep list and y joins the condition of
	// its last step.
	if kind == "left" && len(using) == 0 && on != nil && innerOnly(t.Exprs[0]) {
		// a LEFT JOIN (b JOIN c ON x) ON y: the parenthesised inner joins are joined first,
		// as a group, and their rows LEFT JOINed as one side.
		mark, saved := len(jp.steps), jp.itemStart
		first := len(jp.sides)
		jp.itemStart = first
		err := jp.tableExpr(t.Exprs[0], "first", nil, nil, sqlparser.String(t.Exprs[0]))
		jp.itemStart = saved
		if err != nil {
			return err
		}
		group := slices.Clone(jp.steps[mark:])
		jp.steps = jp.steps[:mark]
		for i := first; i < len(jp.sides); i++ {
			jp.sides[i].nullable, jp.sides[i].join = true, "left"
		}
		jp.steps = append(jp.steps, pendingStep{table: group[0].table, kind: "left", on: on, sql: text, group: group})
		return nil
	}
	if (kind != "inner" && kind != "cross") || len(using) > 0 || !innerOnly(t.Exprs[0]) {
		return unsupported("an outer join or USING around a parenthesised join", sqlparser.String(t),
			"write the joins one after another (a LEFT JOIN b ON … LEFT JOIN c ON …), or join the parenthesised tables in a derived table; a LEFT JOIN of parenthesised inner joins with ON runs")
	}
	saved := jp.itemStart
	jp.itemStart = len(jp.sides)
	err := jp.tableExpr(t.Exprs[0], "cross", nil, nil, sqlparser.String(t.Exprs[0]))
	jp.itemStart = saved
	if err != nil {
		return err
	}
	last := &jp.steps[len(jp.steps)-1]
	if on != nil {
		if last.on == nil {
			last.on = on
		} else {
			last.on = &sqlparser.AndExpr{Left: last.on, Right: on}
		}
		if last.kind == "cross" {
			last.kind = "inner"
		}
	}
	return nil
}

// joinTable reads a JOIN: its left side, then its right side joined by the join's kind.
func (jp *joinPlanner) joinTable(t *sqlparser.JoinTableExpr, kind string, on sqlparser.Expr, using sqlparser.Columns) error {
	if kind != "first" && kind != "cross" || on != nil || len(using) > 0 {
		return unsupported("a join nested on the right of a join", sqlparser.String(t), "write the joins one after another: a JOIN b ON … JOIN c ON …")
	}
	if err := jp.tableExpr(t.LeftExpr, kind, nil, nil, sqlparser.String(t.LeftExpr)); err != nil {
		return err
	}
	var k string
	natural := false
	switch t.Join {
	case sqlparser.NaturalJoinStr, sqlparser.NaturalLeftJoinStr, sqlparser.NaturalRightJoinStr:
		// NATURAL: USING the columns the two sides have in common (found when the columns
		// are known, by coalesce).
		natural = true
	}
	switch t.Join {
	case sqlparser.JoinStr, sqlparser.StraightJoinStr, sqlparser.NaturalJoinStr:
		k = "inner"
		if t.Condition.On == nil && len(t.Condition.Using) == 0 && !natural {
			k = "cross"
		}
	case sqlparser.LeftJoinStr, sqlparser.NaturalLeftJoinStr:
		k = "left"
		if t.Condition.On == nil && len(t.Condition.Using) == 0 && !natural {
			return fmt.Errorf("translate: LEFT JOIN needs ON or USING: %s", sqlparser.String(t))
		}
	case sqlparser.RightJoinStr, sqlparser.NaturalRightJoinStr:
		return jp.rightJoin(t, natural)
	default:
		return unsupported(strings.ToUpper(t.Join), sqlparser.String(t), "write [INNER] JOIN … ON, LEFT JOIN … ON or CROSS JOIN")
	}
	if _, isJoin := t.RightExpr.(*sqlparser.JoinTableExpr); isJoin {
		return unsupported("a join nested on the right of a join", sqlparser.String(t), "write the joins one after another: a JOIN b ON … JOIN c ON …")
	}
	if natural {
		if _, isParen := t.RightExpr.(*sqlparser.ParenTableExpr); isParen {
			return unsupported("NATURAL JOIN of a parenthesised join", sqlparser.String(t), "write the joins one after another, or join with ON")
		}
	}
	if err := jp.tableExpr(t.RightExpr, k, t.Condition.On, t.Condition.Using, t.Join+" "+sqlparser.String(t.RightExpr)); err != nil {
		return err
	}
	if natural {
		jp.sides[len(jp.sides)-1].natural = true
	}
	return nil
}

// rightJoin reads a RIGHT JOIN b, which is b LEFT JOIN a: b is read first and a's columns may be
// NULL; the tables keep FROM's order for SELECT *.
func (jp *joinPlanner) rightJoin(t *sqlparser.JoinTableExpr, natural bool) error {
	if t.Condition.On == nil && len(t.Condition.Using) == 0 && !natural {
		return fmt.Errorf("translate: RIGHT JOIN needs ON or USING: %s", sqlparser.String(t))
	}
	if jp.itemStart > 0 {
		return unsupported("RIGHT JOIN after a comma join", sqlparser.String(t), "write the comma as CROSS JOIN (or JOIN … ON) so that the RIGHT JOIN applies to every table before it, or swap it into a LEFT JOIN")
	}
	if len(jp.sides) != 1 {
		// (the joins so far) RIGHT JOIN c: every row of c is kept, and the tables so far
		// may be NULL (a "right" step, engine/join.go).
		if _, isJoin := t.RightExpr.(*sqlparser.JoinTableExpr); isJoin {
			return unsupported("a join nested on the right of a join", sqlparser.String(t), "write the joins one after another: a JOIN b ON … JOIN c ON …")
		}
		for i := range jp.sides {
			jp.sides[i].nullable = true
		}
		if err := jp.tableExpr(t.RightExpr, "right", t.Condition.On, t.Condition.Using, t.Join+" "+sqlparser.String(t.RightExpr)); err != nil {
			return err
		}
		jp.sides[len(jp.sides)-1].natural = natural
		return nil
	}
	if _, isJoin := t.RightExpr.(*sqlparser.JoinTableExpr); isJoin {
		return unsupported("a join nested on the right of a join", sqlparser.String(t), "write the joins one after another: a JOIN b ON … JOIN c ON …")
	}
	if err := jp.tableExpr(t.RightExpr, "first", nil, t.Condition.Using, sqlparser.String(t.RightExpr)); err != nil {
		return err
	}
	right := &jp.sides[len(jp.sides)-1]
	right.join, right.natural = "right", natural
	left := jp.steps[0]
	jp.sides[left.table].nullable = true
	jp.steps = []pendingStep{jp.steps[1], {table: left.table, kind: "left", on: t.Condition.On,
		sql: "right join " + sqlparser.String(t.RightExpr) + " (as " + sqlparser.String(t.RightExpr) + " left join " + left.sql + ")"}}
	return nil
}

// innerOnly reports a join of inner and cross joins only (which may be reassociated).
func innerOnly(te sqlparser.TableExpr) bool {
	switch t := te.(type) {
	case *sqlparser.AliasedTableExpr:
		return true
	case *sqlparser.ParenTableExpr:
		return len(t.Exprs) == 1 && innerOnly(t.Exprs[0])
	case *sqlparser.JoinTableExpr:
		switch t.Join {
		case sqlparser.JoinStr, sqlparser.StraightJoinStr:
			return len(t.Condition.Using) == 0 && innerOnly(t.LeftExpr) && innerOnly(t.RightExpr)
		}
	}
	return false
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
	jp := qp.join
	p := &joinPlacement{
		qp: qp, jp: jp, n: len(jp.sides),
		own:    make([][]*expr, len(jp.sides)),
		stepOn: make([][]*expr, len(jp.steps)),
		keys:   make([][]JoinKey, len(jp.steps)),
	}
	if err := p.compileOns(); err != nil {
		return err
	}
	jp.orderFirstTwo(where, p.ons)
	p.pos = make([]int, p.n)
	for i, st := range jp.steps {
		p.pos[st.table] = i
		for _, g := range st.group {
			p.pos[g.table] = i
		}
	}
	for _, st := range jp.steps {
		for _, g := range st.group {
			if jt := jp.sides[g.table].table.JSONTable; jt != nil && jt.Lateral {
				return unsupported("a JSON_TABLE that reads another table inside a parenthesised join", st.sql,
					"write the JSON_TABLE after the parentheses (… LEFT JOIN (a JOIN b ON …) ON … JOIN JSON_TABLE(b.col, …) jt ON TRUE)")
			}
		}
	}
	if err := p.placeOns(); err != nil {
		return err
	}
	for _, c := range conjuncts(where) {
		p.place(c, -1)
	}
	if err := p.placeGroups(); err != nil {
		return err
	}
	join := p.joinOf()
	q := qp.q
	q.Join = join
	q.Where = wrap(andOf(p.rest))
	q.SortLocally = len(q.Order) > 0
	p.requestFields(join)
	return nil
}

// joinPlacement is where planJoin puts each condition of a join: a table's own scan, a step's
// equality keys, a step's residual ON, or the check on the joined rows.
type joinPlacement struct {
	qp *queryPlanner
	jp *joinPlanner
	n  int // tables

	ons  []*expr   // each step's ON (USING included), compiled once
	gons [][]*expr // the ON conditions inside parenthesised groups
	pos  []int     // table → its step

	own     [][]*expr   // conditions pushed into table i's scan
	stepOn  [][]*expr   // residual conditions of each step
	keys    [][]JoinKey // equality keys of each step
	gkeys   [][][]JoinKey
	gstepOn [][][]*expr
	rest    []*expr // WHERE conditions checked on the final rows
}

// compileOns compiles the ON conditions (of the steps and inside groups) and those USING and
// NATURAL imply.
func (p *joinPlacement) compileOns() error {
	s, jp := p.qp.s, p.jp
	p.ons = make([]*expr, len(jp.steps))
	for i, st := range jp.steps {
		if st.on != nil {
			c, err := s.condition(st.on)
			if err != nil {
				return err
			}
			p.ons[i] = c
		}
	}
	p.gons = make([][]*expr, len(jp.steps))
	for i, st := range jp.steps {
		for j, g := range st.group {
			if p.gons[i] == nil {
				p.gons[i] = make([]*expr, len(st.group))
			}
			if g.on != nil {
				c, err := s.condition(g.on)
				if err != nil {
					return err
				}
				p.gons[i][j] = c
			}
		}
	}
	// USING and NATURAL: each joins the step that brings its table in (for a RIGHT JOIN of two
	// tables, read as the swapped LEFT JOIN, the step of the other table).
	for _, u := range jp.usingConds {
		at := 0
		for i, st := range jp.steps {
			if st.table == u.right {
				at = i
			}
		}
		if at == 0 {
			at = 1
		}
		c, err := s.compare("=", u.left, u.rightCol)
		if err != nil {
			return err
		}
		p.ons[at] = andOf(append(conjuncts(p.ons[at]), c))
	}
	return nil
}

// stepMask is the tables step i joins (several for a group).
func (p *joinPlacement) stepMask(i int) uint64 {
	m := uint64(1) << p.jp.steps[i].table
	for _, g := range p.jp.steps[i].group {
		m |= 1 << g.table
	}
	return m
}

// joinedBy is the step after which every table of mask is joined.
func (p *joinPlacement) joinedBy(mask uint64) int {
	last := 0
	for i := 0; i < p.n; i++ {
		if mask&(1<<i) != 0 && p.pos[i] > last {
			last = p.pos[i]
		}
	}
	return last
}

// key finds an equality usable as a hash key of step i: one side on the step's table alone, the
// other on tables joined before it.
func (p *joinPlacement) key(c *expr, i int) (JoinKey, bool) {
	if jt := p.jp.sides[p.jp.steps[i].table].table.JSONTable; jt != nil && jt.Lateral {
		return JoinKey{}, false // its rows are made per row so far: no hash table to probe
	}
	t := p.stepMask(i)
	before := uint64(0)
	for j := 0; j < i; j++ {
		before |= p.stepMask(j)
	}
	return keyOf(c, t, before)
}

// nulledBy is the last RIGHT JOIN step that may make a table of mask NULL: a WHERE condition on
// such a table is checked after it.
func (p *joinPlacement) nulledBy(mask uint64) int {
	last := 0
	for i, st := range p.jp.steps {
		if st.kind != "right" {
			continue
		}
		for t := 0; t < p.n; t++ {
			if mask&(1<<t) != 0 && p.pos[t] < i {
				last = i
			}
		}
	}
	return last
}

// place puts a condition of an inner join's ON (of step from) or of WHERE (from -1) where it is
// cheapest: a table's own scan, a step's keys, or the first inner step after which all its
// tables are joined (and, for a table an outer join may make NULL, not before that join).
func (p *joinPlacement) place(c *expr, from int) {
	jp := p.jp
	m := c.tabs()
	if m != 0 && m&(m-1) == 0 {
		i := 0
		for m>>i != 1 {
			i++
		}
		if !jp.sides[i].nullable {
			p.own[i] = append(p.own[i], c)
			return
		}
	}
	at := p.joinedBy(m)
	nullable := false
	for t := 0; t < p.n; t++ {
		nullable = nullable || m&(1<<t) != 0 && jp.sides[t].nullable
	}
	switch {
	case from < 0 && m == 0:
		// A WHERE condition on no table (2 >= 93, LTRIM('x') < NULL) holds for every row or
		// none: it must also see the rows a RIGHT JOIN adds unmatched (the oracle's seeds
		// 10316, 12414 kept them).
		at = max(at, p.nulledBy(^uint64(0)))
	case from < 0:
		at = max(at, p.nulledBy(m))
	case nullable:
		at = max(at, from)
	}
	for j := at; j < len(jp.steps); j++ {
		if jp.steps[j].kind == "left" || jp.steps[j].kind == "right" {
			continue // a WHERE condition is not part of an outer join's ON
		}
		if k, ok := p.key(c, j); ok && j == at {
			p.keys[j] = append(p.keys[j], k)
			return
		}
		if j > 0 {
			p.stepOn[j] = append(p.stepOn[j], c)
			return
		}
	}
	p.rest = append(p.rest, c)
}

// placeOns places the conditions of each step's ON: an inner join's where they are cheapest, an
// outer join's on the joined table's scan (LEFT JOIN, on that table alone), as keys or as the
// step's residual ON.
func (p *joinPlacement) placeOns() error {
	for i, st := range p.jp.steps {
		visible := uint64(0)
		for j := 0; j <= i; j++ {
			visible |= p.stepMask(j)
		}
		for _, c := range conjuncts(p.ons[i]) {
			if m := c.tabs(); m&^visible != 0 {
				return unknownColumnf("in 'on clause' of %s: the ON condition of a join can name only the tables joined so far", st.sql)
			}
			if st.kind != "left" && st.kind != "right" {
				p.place(c, i)
				continue
			}
			m := c.tabs()
			switch {
			case m != 0 && m&(m-1) == 0 && m&^p.stepMask(i) == 0 && st.kind == "left":
				t := 0
				for m>>t != 1 {
					t++
				}
				p.own[t] = append(p.own[t], c) // filters the joined table's rows before the match
			default:
				if k, ok := p.key(c, i); ok {
					p.keys[i] = append(p.keys[i], k)
				} else {
					p.stepOn[i] = append(p.stepOn[i], c)
				}
			}
		}
	}
	return nil
}

// placeGroups places the conditions inside a group: its tables' own conditions go into their
// scans, equalities become the keys of its steps, the rest their residual ON; an ON there names
// only the group's tables.
func (p *joinPlacement) placeGroups() error {
	jp := p.jp
	p.gkeys = make([][][]JoinKey, len(jp.steps))
	p.gstepOn = make([][][]*expr, len(jp.steps))
	for i, st := range jp.steps {
		if st.group == nil {
			continue
		}
		p.gkeys[i] = make([][]JoinKey, len(st.group))
		p.gstepOn[i] = make([][]*expr, len(st.group))
		before := uint64(0)
		for j, g := range st.group {
			t := uint64(1) << g.table
			for _, c := range conjuncts(p.gons[i][j]) {
				m := c.tabs()
				if m&^(before|t) != 0 {
					return unknownColumnf("in 'on clause' of %s: the ON condition of a join can name only the tables joined so far", g.sql)
				}
				switch {
				case m != 0 && m&(m-1) == 0:
					k := 0
					for m>>k != 1 {
						k++
					}
					p.own[k] = append(p.own[k], c)
				default:
					if jk, ok := keyOf(c, t, before); ok {
						p.gkeys[i][j] = append(p.gkeys[i][j], jk)
					} else {
						p.gstepOn[i][j] = append(p.gstepOn[i][j], c)
					}
				}
			}
			before |= t
		}
	}
	return nil
}

// joinOf builds the join: each table's scan with its own conditions pushed, each step with its
// kind, keys and residual ON, and the bind joins that may narrow a scan.
func (p *joinPlacement) joinOf() *Join {
	qp, jp := p.qp, p.jp
	join := &Join{}
	for i, side := range jp.sides {
		plan := &Plan{Table: side.table, Limit: -1, Request: Request{View: side.view}}
		plan.where = andOf(p.own[i])
		if side.table.Local || qp.localOnly {
			plan.Exact = plan.where == nil
		} else {
			plan.pushWhere(&pusher{})
		}
		join.Tables = append(join.Tables, JoinTable{Alias: side.alias, Plan: plan})
	}
	for i, st := range jp.steps {
		kind := st.kind
		if kind == "inner" && len(p.keys[i]) == 0 && len(p.stepOn[i]) == 0 {
			kind = "cross"
		}
		if kind == "cross" && (len(p.keys[i]) > 0 || len(p.stepOn[i]) > 0) {
			kind = "inner"
		}
		step := JoinStep{Table: st.table, Kind: kind, Keys: p.keys[i], On: wrap(andOf(p.stepOn[i])), SQL: st.sql}
		for j, g := range st.group {
			gk := "first"
			if j > 0 {
				gk = "cross"
				if len(p.gkeys[i][j]) > 0 || len(p.gstepOn[i][j]) > 0 {
					gk = "inner"
				}
			}
			step.Group = append(step.Group, JoinStep{Table: g.table, Kind: gk, Keys: p.gkeys[i][j], On: wrap(andOf(p.gstepOn[i][j])), SQL: g.sql})
		}
		join.Steps = append(join.Steps, step)
	}
	if len(join.Steps) > 1 {
		join.Steps[1].Bind = qp.bindFor(join, 1)
	}
	for i := 1; i < len(join.Steps); i++ {
		if join.Steps[i].Bind == nil {
			join.Steps[i].BindInner = qp.bindInnerFor(join, i)
		}
	}
	return join
}

// requestFields sets the fields each table's scan must return: whatever any step reads from it.
func (p *joinPlacement) requestFields(join *Join) {
	qp := p.qp
	var all []*expr
	all = append(all, qp.outputs...)
	all = append(all, qp.windowInputs()...)
	all = append(all, qp.groupKeys...)
	for _, a := range qp.aggs {
		all = append(all, a.args...)
		for _, k := range a.order {
			all = append(all, k.e)
		}
	}
	if qp.q.Having != nil {
		all = append(all, qp.q.Having.e)
	}
	all = append(all, p.rest...)
	for _, side := range p.jp.sides {
		if jt := side.table.JSONTable; jt != nil && jt.Doc != nil {
			all = append(all, jt.Doc.e) // the fields a JSON table's document reads
		}
	}
	for i := range p.stepOn {
		all = append(all, p.stepOn[i]...)
		for _, k := range p.keys[i] {
			all = append(all, k.Outer.e, k.Inner.e)
		}
		for j := range p.gkeys[i] {
			all = append(all, p.gstepOn[i][j]...)
			for _, k := range p.gkeys[i][j] {
				all = append(all, k.Outer.e, k.Inner.e)
			}
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
			if b := st.BindInner; b != nil && b.primary != nil && b.primary.tab == i+1 {
				need[b.primary.field.Name] = true
			}
		}
		jt.Plan.Request.Fields = fieldList(jt.Plan.Table, need)
	}
}

// keyOf finds an equality usable as a hash key of a step joining the tables t to the tables
// before: one side on t alone, the other on before alone.
func keyOf(c *expr, t, before uint64) (JoinKey, bool) {
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
	case ta != 0 && ta&^t == 0 && tb != 0 && tb&^before == 0:
		return JoinKey{Inner: wrap(a), Outer: wrap(b), InnerLink: c.kind == exLinkHas}, true
	case tb != 0 && tb&^t == 0 && ta != 0 && ta&^before == 0:
		return JoinKey{Inner: wrap(b), Outer: wrap(a), OuterLink: c.kind == exLinkHas}, true
	}
	return JoinKey{}, false
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
	outer   *expr  // the key of the table whose request is narrowed (the first table's; reverse: the step's)
	primary *expr  // Mode link: the primary field of the table the values come from
	// reverse: the values come from the rows so far and narrow the step's table (BindInner).
	reverse bool
	// plan: an IN subquery's Bind narrows this scan (a subquery's subqueries are run by the
	// statement, whose own scan is another).
	plan *Plan
}

// Narrows reports whether an IN subquery's Bind is for this scan.
func (b *Bind) Narrows(plan *Plan) bool { return b.plan == plan }

// Values are what a row of the step's table (reverse: a row so far) contributes to the pushed
// formula (none for NULL); ok
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
	if b.reverse {
		vals, err = step.Keys[b.Key].OuterValues(inner)
	} else {
		vals, err = step.Keys[b.Key].InnerValues(inner)
	}
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

// bindInnerFor decides whether the keys of the rows so far can be pushed into step i's table's
// request: its key is its record id, a stored text or number field, or a link to the table whose
// id the rows so far hold (pushed as their primary values, a superset).
func (qp *queryPlanner) bindInnerFor(j *Join, i int) *Bind {
	st := j.Steps[i]
	plan := j.Tables[st.Table].Plan
	if st.Group != nil || st.Kind != "inner" && st.Kind != "left" || plan.Table.Local || qp.localOnly || plan.RecordIDs != nil || plan.NoRows {
		return nil
	}
	for ki, k := range st.Keys {
		in, o := k.Inner.e, k.Outer.e
		switch {
		case k.InnerLink:
			if o.kind != exRecordID || o.tab == 0 || k.OuterLink {
				continue
			}
			from := j.Tables[o.tab-1].Plan.Table
			linked, _ := in.field.Options["linkedTableId"].(string)
			if linked == "" || linked != from.ID || from.PrimaryFieldID == "" || from.Local {
				continue
			}
			for fi := range from.Fields {
				f := &from.Fields[fi]
				if f.ID == from.PrimaryFieldID && fieldInfoOf(f).typ == typeText {
					primary := (&scope{table: from}).fieldExpr(f)
					primary.tab = o.tab
					return &Bind{Key: ki, Mode: "link", outer: in, primary: primary, reverse: true}
				}
			}
		case in.kind == exRecordID:
			return &Bind{Key: ki, Mode: "id", Exact: true, outer: in, reverse: true}
		case in.kind == exField && (in.typ == typeText || in.typ == typeInt || in.typ == typeFloat) && !in.info.computed:
			return &Bind{Key: ki, Mode: "field", Exact: true, outer: in, reverse: true}
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
	if jp.sides[a].table.JSONTable != nil || jp.sides[b].table.JSONTable != nil {
		return // a JSON table's rows are made, not read: nothing to push either way
	}
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

// joinEntry is a column of SELECT * over a join: a column of one table, or the one column USING or
// NATURAL makes of the same-named columns of the tables it joins (tables: their indexes). As
// MySQL's COALESCE of them, its value is the column of the table whose rows are all kept: the left
// side's for an inner or LEFT JOIN, the right table's for a RIGHT JOIN (table, column).
type joinEntry struct {
	name   string
	table  int
	column string
	tables []int
}

// usingCond is the equality a USING or NATURAL column adds: the column so far (left) = the joined
// table's (rightCol, of table right).
type usingCond struct {
	left, rightCol *expr
	right          int
}

// coalesce lists the columns of SELECT * over the join in MySQL's order — for a step with USING or
// NATURAL, the common columns first (once), then the other columns of the left side, then those of
// the joined table; for a RIGHT JOIN the joined table's before the left side's — and the
// equalities USING and NATURAL add.
func (s *scope) coalesce(jp *joinPlanner) error {
	names := func(i int) []string {
		var out []string
		for _, e := range s.sideStar(i) {
			out = append(out, e.sql)
		}
		return out
	}
	single := func(i int) []joinEntry {
		var out []joinEntry
		for _, n := range names(i) {
			out = append(out, joinEntry{name: n, table: i, column: n, tables: []int{i}})
		}
		return out
	}
	var entries []joinEntry
	for i, side := range jp.sides {
		right := single(i)
		if i == 0 || (!side.natural && len(side.using) == 0) {
			entries = append(entries, right...)
			continue
		}
		// The left side: the entries of the tables of this FROM item.
		var left, outside []joinEntry
		for _, e := range entries {
			if e.tables[0] >= side.item {
				left = append(left, e)
			} else {
				outside = append(outside, e)
			}
		}
		cols := side.using
		if side.natural {
			cols = nil
			for _, r := range right {
				for _, l := range left {
					if strings.EqualFold(l.name, r.name) {
						cols = append(cols, r.name)
						break
					}
				}
			}
		}
		find := func(list []joinEntry, name, where string) (int, error) {
			at := -1
			for j, e := range list {
				if strings.EqualFold(e.name, name) {
					if at >= 0 {
						return -1, fmt.Errorf("translate: column '%s' in from clause is ambiguous: %s has it twice; join with ON", name, where)
					}
					at = j
				}
			}
			if at < 0 {
				return -1, unknownColumnf("'%s' in 'from clause': USING names a column of both sides, and %s has none", name, where)
			}
			return at, nil
		}
		usedL, usedR := map[int]bool{}, map[int]bool{}
		var common []joinEntry
		var order []int // each common column's position on the side whose order it takes
		for _, c := range cols {
			li, err := find(left, c, "the left side of the join")
			if err != nil {
				return err
			}
			ri, err := find(right, c, side.alias)
			if err != nil {
				return err
			}
			if usedL[li] {
				return fmt.Errorf("translate: duplicate column name '%s' in USING", c)
			}
			usedL[li], usedR[ri] = true, true
			l, r := left[li], right[ri]
			le, err := s.sideColumn(l.table, l.column)
			if err != nil {
				return err
			}
			re, err := s.sideColumn(i, r.column)
			if err != nil {
				return err
			}
			jp.usingConds = append(jp.usingConds, usingCond{left: le, rightCol: re, right: i})
			e := joinEntry{name: l.name, table: l.table, column: l.column, tables: append(slices.Clone(l.tables), i)}
			at := li
			if side.join == "right" {
				e.name, e.table, e.column, at = r.name, i, r.column, ri
			}
			common = append(common, e)
			order = append(order, at)
		}
		// The common columns come in the order of the side whose rows are all kept (MariaDB and
		// MySQL: the left side's, the joined table's for a RIGHT JOIN), not USING's.
		idx := make([]int, len(common))
		for j := range idx {
			idx[j] = j
		}
		slices.SortStableFunc(idx, func(a, b int) int { return order[a] - order[b] })
		sortedCommon := make([]joinEntry, len(common))
		for j, k := range idx {
			sortedCommon[j] = common[k]
		}
		common = sortedCommon
		var restL, restR []joinEntry
		for j, e := range left {
			if !usedL[j] {
				restL = append(restL, e)
			}
		}
		for j, e := range right {
			if !usedR[j] {
				restR = append(restR, e)
			}
		}
		if side.join == "right" {
			// MySQL reads a RIGHT JOIN as the swapped LEFT JOIN: the common columns, the joined
			// table's other columns, then the left side's.
			entries = append(append(append(outside, common...), restR...), restL...)
		} else {
			entries = append(append(append(outside, common...), restL...), restR...)
		}
	}
	jp.entries = entries
	return nil
}

// coalescedColumn resolves a bare name that several tables of the join have when USING or NATURAL
// made them one column: the entry's column.
func (s *scope) coalescedColumn(name string, owners []int) (*expr, bool) {
	for _, e := range s.joinEntries {
		if len(e.tables) < 2 || !strings.EqualFold(e.name, name) {
			continue
		}
		all := true
		for _, o := range owners {
			all = all && slices.Contains(e.tables, o)
		}
		if !all {
			continue
		}
		x, err := s.sideColumn(e.table, e.column)
		if err != nil {
			return nil, false
		}
		x.sql = e.name
		return x, true
	}
	return nil, false
}
