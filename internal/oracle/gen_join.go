package oracle

import (
	"slices"
	"strconv"
	"strings"
)

// The constructs of issue 10: joins of two and three tables (through link fields and ordinary
// fields, inner, left, right and cross, ON and USING), self-joins, derived tables and WITH,
// GROUP BY over joins, and subqueries ([NOT] EXISTS, [NOT] IN, scalar) added to any query.
//
// MariaDB holds a link field as a JSON column plus a junction table Table__Field(id, linked_id):
// a join through a link is written there through the junction table, a link condition inside a
// WHERE or a subquery as JSON_CONTAINS(link, JSON_QUOTE(id)) — MySQL's explicit form of the
// driver's membership rule (README, Joins and linked records).

// side is one table of a generated FROM: a base table, or a derived table or CTE whose columns
// are those it selects.
type side struct {
	t     *Table
	alias string // what column references are qualified with: an alias or the quoted table name
	decl  string // the FROM item for the driver: "`People` AS b", "`People`", "(SELECT …) AS d"
	declM string // MariaDB's
	base  *Table // the base table whose junction tables hold its links (derived: the inner table)
	key   bool   // its id is selected and unique: it can break ties in ORDER BY
}

// within runs f with column references made to s (qualified with its alias).
func (p *parts) within(s *side, f func()) {
	t, a, q := p.t, p.alias, p.qualify
	p.t, p.alias, p.qualify = s.t, s.alias, true
	defer func() { p.t, p.alias, p.qualify = t, a, q }()
	f()
}

// nextAlias hands out a, b, c, … once per query.
func (p *parts) nextAlias() string {
	p.aliases++
	return string(rune('a' + p.aliases - 1))
}

// tableSide is a base table of the FROM: aliased mostly, sometimes by its name (when the query
// has no other side of that table).
func (p *parts) tableSide(t *Table, forceAlias bool) *side {
	s := &side{t: t, base: t, key: true}
	if !forceAlias && p.r.IntN(4) == 0 && !slices.ContainsFunc(p.sides, func(o *side) bool { return o.t == t }) {
		s.alias = quoteName(t.Name)
		s.decl = s.alias
	} else {
		s.alias = p.nextAlias()
		s.decl = quoteName(t.Name) + []string{" AS ", " "}[p.r.IntN(2)] + s.alias
	}
	s.declM = s.decl
	p.sides = append(p.sides, s)
	return s
}

func (g *Generator) table(name string) *Table { return g.Schema.Table(name) }

// linkRel: from's link field col holds ids of to's records.
type linkRel struct {
	from *side
	col  *Column
	to   *side
}

// links lists the link fields between x and y, both ways.
func links(x, y *side) []linkRel {
	var out []linkRel
	for _, pair := range [][2]*side{{x, y}, {y, x}} {
		for _, c := range pair[0].t.Columns {
			if c.Link != "" && pair[1].base != nil && c.Link == pair[1].base.Name && pair[1].t.Column("id") != nil {
				out = append(out, linkRel{from: pair[0], col: c, to: pair[1]})
			}
		}
	}
	return out
}

// partners are the tables linked with t (either way).
func (g *Generator) partners(t *Table) []*Table {
	var out []*Table
	for _, o := range g.Schema.Tables {
		for _, c := range t.Columns {
			if c.Link == o.Name && !slices.Contains(out, o) {
				out = append(out, o)
			}
		}
		for _, c := range o.Columns {
			if c.Link == t.Name && !slices.Contains(out, o) {
				out = append(out, o)
			}
		}
	}
	return out
}

// linkCond writes the driver's condition "rel.to's id is in rel.from's link" and MariaDB's
// JSON_CONTAINS of it.
func (p *parts) linkCond(rel linkRel) e {
	id := rel.to.alias + ".id"
	l := rel.from.alias + "." + quoteName(rel.col.Name)
	m := "JSON_CONTAINS(" + l + ", JSON_QUOTE(" + id + "))"
	switch p.r.IntN(5) {
	case 0:
		return e{d: m, m: m, k: Bool}
	case 1, 2:
		return e{d: l + " = " + id, m: m, k: Bool}
	}
	return e{d: id + " = " + l, m: m, k: Bool}
}

// step is one join of the FROM being written.
type joinStep struct {
	kind  string // "JOIN", "INNER JOIN", "LEFT JOIN", "LEFT OUTER JOIN", "RIGHT JOIN", "CROSS JOIN", ","
	x     *side  // the side it joins
	rel   *linkRel
	on    []e    // conditions (ANDed) besides the link
	using string // a column name: USING (…) instead of ON
}

// fromJoin writes the FROM of sides[0] and steps, both ways. A link step goes through the
// junction table on MariaDB's side (or JSON_CONTAINS when the driver's form is that).
func (p *parts) fromJoin(first *side, steps []joinStep) (d, m string) {
	d, m = first.decl, first.declM
	for _, st := range steps {
		var ds, ms []string
		for _, c := range st.on {
			ds, ms = append(ds, c.d), append(ms, c.m)
		}
		if st.using != "" {
			d += " " + st.kind + " " + st.x.decl + " USING (" + quoteName(st.using) + ")"
			m += " " + st.kind + " " + st.x.declM + " USING (" + quoteName(st.using) + ")"
			continue
		}
		if st.rel == nil || p.r.IntN(6) == 0 && st.kind != "RIGHT JOIN" {
			// Written as JSON_CONTAINS on both sides.
			if st.rel != nil {
				lc := p.linkCond(*st.rel)
				lc.d = lc.m
				ds, ms = append([]string{lc.d}, ds...), append([]string{lc.m}, ms...)
			}
			d += " " + st.kind + " " + st.x.decl
			m += " " + st.kind + " " + st.x.declM
			if len(ds) > 0 {
				d += " ON " + strings.Join(ds, " AND ")
				m += " ON " + strings.Join(ms, " AND ")
			}
			continue
		}
		lc := p.linkCond(*st.rel)
		d += " " + st.kind + " " + st.x.decl + " ON " + strings.Join(append([]string{lc.d}, ds...), " AND ")
		if lc.d == lc.m {
			// The driver's condition is JSON_CONTAINS itself: MariaDB runs the same.
			m += " " + st.kind + " " + st.x.declM + " ON " + strings.Join(append([]string{lc.m}, ms...), " AND ")
			continue
		}
		// Through the junction table: its id is the record holding the link, linked_id the
		// record linked. y is the side already in the FROM.
		y := st.rel.from
		xcol, ycol := "linked_id", "id"
		if st.rel.from == st.x {
			y = st.rel.to
			xcol, ycol = "id", "linked_id"
		}
		jt := quoteName(st.rel.from.base.Name + "__" + st.rel.col.Name)
		p.aliases++
		j := "j" + strconv.Itoa(p.aliases)
		extra := ""
		if len(ms) > 0 {
			extra = " AND " + strings.Join(ms, " AND ")
		}
		if st.kind == "RIGHT JOIN" {
			m = "(" + m + " JOIN " + jt + " AS " + j + " ON " + j + "." + ycol + " = " + y.alias + ".id) RIGHT JOIN " + st.x.declM +
				" ON " + st.x.alias + ".id = " + j + "." + xcol + extra
			continue
		}
		kind := "JOIN"
		if strings.HasPrefix(st.kind, "LEFT") {
			kind = "LEFT JOIN"
		}
		m += " " + kind + " (" + jt + " AS " + j + " JOIN " + st.x.declM + " ON " + st.x.alias + ".id = " + j + "." + xcol +
			") ON " + j + "." + ycol + " = " + y.alias + ".id" + extra
	}
	return d, m
}

func (p *parts) joinKind(outer bool) string {
	if outer && p.r.IntN(2) == 0 {
		return []string{"LEFT JOIN", "LEFT JOIN", "LEFT OUTER JOIN"}[p.r.IntN(3)]
	}
	return []string{"JOIN", "JOIN", "INNER JOIN"}[p.r.IntN(3)]
}

// fieldCond compares a column of x with a column of y of a kind both have: equality mostly
// (eq reports it), or <, <=, >, >=, <>. nil when they share no kind.
func (p *parts) fieldCond(x, y *side, eqOnly bool) (*e, bool) {
	kinds := []Kind{Text, Int, Float, Date, Int, Text}
	for _, i := range p.r.Perm(len(kinds)) {
		k := kinds[i]
		cx, cy := fieldOf(p, x.t, k), fieldOf(p, y.t, k)
		if k == Int && p.r.IntN(3) == 0 {
			cy = fieldOf(p, y.t, Float) // a BIGINT with a DOUBLE
		}
		if k == Date && p.r.IntN(4) == 0 {
			cy = fieldOf(p, y.t, DateTime) // a DATE with a DATETIME
		}
		if cx == nil || cy == nil || x == y && cx == cy {
			continue
		}
		op := "="
		if !eqOnly && p.r.IntN(3) == 0 {
			op = []string{"<", "<=", ">", ">=", "<>"}[p.r.IntN(5)]
		}
		a, b := x.alias+"."+quoteName(cx.Name), y.alias+"."+quoteName(cy.Name)
		if p.r.IntN(2) == 0 {
			a, b = b, a
		}
		return &e{d: a + " " + op + " " + b, m: a + " " + op + " " + b, k: Bool}, op == "="
	}
	return nil, false
}

// fieldOf picks a stored column of kind k of t (not id, not a link).
func fieldOf(p *parts, t *Table, k Kind) *Column {
	var cs []*Column
	for _, c := range t.Columns {
		if c.Kind == k && c.Name != "id" && c.Link == "" {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return nil
	}
	return cs[p.r.IntN(len(cs))]
}

// startRebuild drops the query's parts: the construct writes them anew.
func (p *parts) startRebuild() {
	p.resetShape()
	p.rebuilt = true
	p.union, p.where, p.limit, p.items, p.star, p.count = "", nil, "", nil, false, nil
	p.with, p.withM = "", ""
	p.orderBy, p.orderM = nil, nil
	p.q.Ordered = false
	p.sides = nil
}

// joinBody writes the select list, WHERE, GROUP BY, ORDER BY and LIMIT over sides. small: the
// join has no equality, so its rows are many: only aggregates are selected. junction: MariaDB's
// FROM holds junction tables, so * is spelled out as the sides' t.*.
func (p *parts) joinBody(first *side, small bool, junction bool) {
	p.t, p.alias, p.qualify = first.t, first.alias, true
	p.joinWhere(p.sides)
	if p.joinItems(p.sides, small, junction) {
		p.joinOrder(p.sides)
	}
}

// joinWhere writes the WHERE of a join: each side's own conditions, sometimes one across sides,
// an OR across two.
func (p *parts) joinWhere(sides []*side) {
	r := p.r
	var conds []e
	for _, s := range sides {
		if r.IntN(5) < 2 {
			p.within(s, func() { conds = append(conds, p.cond(2)) })
		}
	}
	if len(sides) > 1 && r.IntN(6) == 0 {
		i, j := r.IntN(len(sides)), r.IntN(len(sides))
		if c, _ := p.fieldCond(sides[i], sides[j], false); c != nil && i != j {
			conds = append(conds, *c)
		}
	}
	if len(sides) > 1 && r.IntN(10) == 0 {
		s := sides[1+r.IntN(len(sides)-1)]
		if s.key {
			is := []string{" IS NULL", " IS NOT NULL"}[r.IntN(2)]
			conds = append(conds, e{d: s.alias + ".id" + is, m: s.alias + ".id" + is, k: Bool})
		}
	}
	if len(conds) >= 2 && r.IntN(4) == 0 {
		a, b := conds[0], conds[1]
		conds = append([]e{{d: "(" + a.d + " OR " + b.d + ")", m: "(" + a.m + " OR " + b.m + ")", k: Bool}}, conds[2:]...)
	}
	if len(conds) > 0 {
		w := conds[0]
		for _, c := range conds[1:] {
			w = e{d: w.d + " AND " + c.d, m: w.m + " AND " + c.m, k: Bool}
		}
		p.where = &w
	}
}

// joinItems writes the select list of a join: *, t.*, columns and expressions of the sides, an
// aggregate, GROUP BY or DISTINCT. It reports whether the rows are to be ordered by joinOrder
// (not for an aggregate, GROUP BY or DISTINCT, which order their own).
func (p *parts) joinItems(sides []*side, small, junction bool) bool {
	r := p.r
	shape := r.IntN(12)
	if small && shape > 3 {
		shape = r.IntN(2) + 2
	}
	switch shape {
	case 0:
		star := e{d: "*", m: "*", raw: true}
		if junction {
			var ms []string
			for _, s := range sides {
				ms = append(ms, s.alias+".*")
			}
			star.m = strings.Join(ms, ", ")
		}
		p.items = []e{star}
	case 1:
		s := sides[r.IntN(len(sides))]
		p.items = []e{{d: s.alias + ".*", m: s.alias + ".*", raw: true}}
		if r.IntN(2) == 0 {
			p.within(sides[r.IntN(len(sides))], func() { p.items = append(p.items, p.column(p.anyColumn(false))) })
		}
	case 2:
		c := e{d: "COUNT(*)", m: "COUNT(*)", k: Int}
		if r.IntN(2) == 0 {
			p.within(sides[r.IntN(len(sides))], func() {
				col := p.column(p.anyColumn(true))
				c = e{d: "COUNT(" + col.d + ")", m: "COUNT(" + col.m + ")", k: Int}
			})
		}
		c.agg = true
		p.items = []e{c}
		return false
	case 3:
		p.groupOver(sides)
		return false
	case 4:
		p.distinct = true
		for range 1 + r.IntN(2) {
			p.within(sides[r.IntN(len(sides))], func() { p.items = append(p.items, p.column(p.anyColumn(true))) })
		}
		if !slices.ContainsFunc(p.items, func(x e) bool { return x.k == JSON }) && r.IntN(2) == 0 {
			for i := range p.items {
				pos := strconv.Itoa(i + 1)
				p.orderBy, p.orderM = append(p.orderBy, pos), append(p.orderM, pos)
			}
			p.q.Ordered = true
		}
		return false
	default:
		for range 1 + r.IntN(4) {
			s := sides[r.IntN(len(sides))]
			p.within(s, func() {
				if r.IntN(2) == 0 {
					p.items = append(p.items, p.column(p.anyColumn(false)))
				} else {
					p.items = append(p.items, p.expr(p.anyKind(), 2))
				}
			})
		}
		if len(sides) > 1 && r.IntN(4) == 0 {
			// An expression across two sides.
			var a, b e
			p.within(sides[0], func() { a = p.expr(Text, 1) })
			p.within(sides[1], func() { b = p.expr(Text, 1) })
			p.items = append(p.items, e{d: "CONCAT(" + a.d + ", '|', " + b.d + ")", m: "CONCAT(" + a.m + ", '|', " + b.m + ")", k: Text})
		}
	}
	return true
}

// joinOrder orders by a few columns, then every side's id: unique for a join row (a junction
// table holds each pair once). Sides without a key leave the rows unordered.
func (p *parts) joinOrder(sides []*side) {
	r := p.r
	if r.IntN(4) == 0 {
		return
	}
	for _, s := range sides {
		if !s.key {
			return
		}
	}
	for range r.IntN(3) {
		s := sides[r.IntN(len(sides))]
		p.within(s, func() {
			c := p.anyColumn(true)
			if c.Kind == JSON {
				return
			}
			dir := []string{"", " DESC"}[r.IntN(2)]
			p.orderBy, p.orderM = append(p.orderBy, p.ref(c)+dir), append(p.orderM, p.ref(c)+dir)
		})
	}
	for _, i := range r.Perm(len(sides)) {
		dir := []string{"", "", " DESC"}[r.IntN(3)]
		o := sides[i].alias + ".id" + dir
		p.orderBy, p.orderM = append(p.orderBy, o), append(p.orderM, o)
	}
	p.q.Ordered = true
	if r.IntN(3) == 0 {
		p.limit = strconv.Itoa(1 + r.IntN(40))
		if r.IntN(4) == 0 {
			p.offset = strconv.Itoa(r.IntN(20))
		}
	}
}

// groupOver groups by a column of one side, with aggregates of any side; ordered by the key.
func (p *parts) groupOver(sides []*side) {
	r := p.r
	var key e
	for {
		ok := true
		p.within(sides[r.IntN(len(sides))], func() {
			c := p.anyColumn(true)
			if c.Kind == JSON || c.Kind == Float && c.Computed {
				ok = false
				return
			}
			key = p.column(c)
		})
		if ok {
			break
		}
	}
	aggs := []string{"COUNT(*)"}
	for range 1 + r.IntN(3) {
		p.within(sides[r.IntN(len(sides))], func() {
			c := p.anyColumn(true)
			ref := p.ref(c)
			switch {
			case c.Kind == Int:
				aggs = append(aggs, []string{"SUM(", "MIN(", "MAX(", "COUNT(", "AVG(", "COUNT(DISTINCT "}[r.IntN(6)]+ref+")")
			case c.Kind == JSON:
				aggs = append(aggs, "COUNT("+ref+")")
			case c.Kind == Text && r.IntN(3) == 0:
				aggs = append(aggs, "GROUP_CONCAT(DISTINCT "+ref+" ORDER BY "+ref+" SEPARATOR '|')")
			default:
				aggs = append(aggs, []string{"MIN(", "MAX(", "COUNT(", "COUNT(DISTINCT "}[r.IntN(4)]+ref+")")
			}
		})
	}
	p.items = []e{key}
	for _, a := range aggs {
		p.items = append(p.items, e{d: a, m: a, k: Int})
	}
	p.groupBy = key.d
	p.groupAggs = aggs
	switch r.IntN(4) {
	case 0:
		p.having = "COUNT(*) > " + strconv.Itoa(r.IntN(3))
	case 1:
		p.having = aggs[len(aggs)-1] + " IS NOT NULL"
	}
	dir := []string{"", " DESC"}[r.IntN(2)]
	p.orderBy, p.orderM = []string{key.d + dir}, []string{key.m + dir}
	p.q.Ordered = true
	if r.IntN(3) == 0 {
		p.limit = strconv.Itoa(1 + r.IntN(20))
	}
}

// linkedPair picks a table with a partner through a link and returns both (x first in FROM).
func (g *Generator) linkedPair(p *parts) (*Table, *Table) {
	for {
		t := g.Schema.Tables[p.r.IntN(len(g.Schema.Tables))]
		ps := g.partners(t)
		if len(ps) > 0 {
			return t, ps[p.r.IntN(len(ps))]
		}
	}
}

// addJoin joins two tables through a link field, inner or left.
func addJoin(g *Generator, p *parts) {
	p.startRebuild()
	p.rebuilt = false // the other joins may still rewrite it
	ta, tb := g.linkedPair(p)
	a := p.tableSide(ta, false)
	b := p.tableSide(tb, ta == tb)
	rels := links(a, b)
	rel := rels[p.r.IntN(len(rels))]
	st := joinStep{kind: p.joinKind(true), x: b, rel: &rel}
	if p.r.IntN(4) == 0 {
		p.within(b, func() { st.on = append(st.on, p.cond(1)) })
	}
	p.from, p.fromM = p.fromJoin(a, []joinStep{st})
	p.joinBody(a, false, true)
}

// addJoin3 joins three tables: a link from the first pair, then a third table through a link
// of either (Items → People → People as manager, Items → Projects → People as lead, …) or,
// sometimes, an ordinary field.
func addJoin3(g *Generator, p *parts) {
	p.startRebuild()
	ta, tb := g.linkedPair(p)
	a := p.tableSide(ta, false)
	b := p.tableSide(tb, ta == tb)
	rels := links(a, b)
	rel := rels[p.r.IntN(len(rels))]
	steps := []joinStep{{kind: p.joinKind(true), x: b, rel: &rel}}
	// The third: a partner of a or b.
	var cands [][2]any
	for _, y := range []*side{a, b} {
		for _, t := range g.partners(y.t) {
			cands = append(cands, [2]any{y, t})
		}
	}
	pick := cands[p.r.IntN(len(cands))]
	y, tc := pick[0].(*side), pick[1].(*Table)
	c := p.tableSide(tc, true)
	st := joinStep{kind: p.joinKind(true), x: c}
	if p.r.IntN(5) == 0 {
		if fc, _ := p.fieldCond(c, y, true); fc != nil {
			st.on = []e{*fc}
		}
	}
	if st.on == nil {
		rels := links(y, c)
		rel := rels[p.r.IntN(len(rels))]
		st.rel = &rel
	}
	if p.r.IntN(4) == 0 {
		p.within(c, func() { st.on = append(st.on, p.cond(1)) })
	}
	steps = append(steps, st)
	p.from, p.fromM = p.fromJoin(a, steps)
	p.joinBody(a, false, true)
}

// addSelfJoin joins a table with itself under two aliases: through People's Manager link, or on
// an ordinary field (a.Age = b.Age AND a.id < b.id).
func addSelfJoin(g *Generator, p *parts) {
	p.startRebuild()
	if p.r.IntN(2) == 0 {
		people := g.table("People")
		a, b := p.tableSide(people, true), p.tableSide(people, true)
		rels := links(a, b)
		rel := rels[p.r.IntN(len(rels))]
		p.from, p.fromM = p.fromJoin(a, []joinStep{{kind: p.joinKind(true), x: b, rel: &rel}})
		p.joinBody(a, false, true)
		return
	}
	t := g.Schema.Tables[p.r.IntN(len(g.Schema.Tables))]
	a, b := p.tableSide(t, true), p.tableSide(t, true)
	st := joinStep{kind: p.joinKind(true), x: b}
	fc, _ := p.fieldCond(a, b, true)
	st.on = append(st.on, *fc)
	if p.r.IntN(2) == 0 {
		op := []string{"<", "<>", ">"}[p.r.IntN(3)]
		st.on = append(st.on, e{d: a.alias + ".id " + op + " " + b.alias + ".id", m: a.alias + ".id " + op + " " + b.alias + ".id"})
	}
	p.from, p.fromM = p.fromJoin(a, []joinStep{st})
	p.joinBody(a, false, false)
}

// addFieldJoin joins two tables on ordinary fields: equality (text = text, numbers, dates),
// sometimes with a non-equality too, or a non-equality alone (then aggregates only).
func addFieldJoin(g *Generator, p *parts) {
	p.startRebuild()
	ta := g.Schema.Tables[p.r.IntN(len(g.Schema.Tables))]
	tb := g.Schema.Tables[p.r.IntN(len(g.Schema.Tables))]
	a, b := p.tableSide(ta, ta == tb), p.tableSide(tb, ta == tb)
	st := joinStep{kind: p.joinKind(true), x: b}
	fc, eq := p.fieldCond(a, b, false)
	st.on = append(st.on, *fc)
	if p.r.IntN(3) == 0 {
		fc2, eq2 := p.fieldCond(a, b, false)
		st.on = append(st.on, *fc2)
		eq = eq || eq2
	}
	p.from, p.fromM = p.fromJoin(a, []joinStep{st})
	p.joinBody(a, !eq, false)
}

// addRightJoin: a RIGHT JOIN b, through a link or a field.
func addRightJoin(g *Generator, p *parts) {
	p.startRebuild()
	ta, tb := g.linkedPair(p)
	a := p.tableSide(ta, false)
	b := p.tableSide(tb, ta == tb)
	st := joinStep{kind: []string{"RIGHT JOIN", "RIGHT OUTER JOIN"}[p.r.IntN(2)], x: b}
	if p.r.IntN(3) == 0 {
		fc, _ := p.fieldCond(a, b, true)
		st.on = append(st.on, *fc)
	} else {
		rels := links(a, b)
		rel := rels[p.r.IntN(len(rels))]
		st.rel = &rel
		st.kind = "RIGHT JOIN"
	}
	if p.r.IntN(4) == 0 {
		p.within(a, func() { st.on = append(st.on, p.cond(1)) })
	}
	p.from, p.fromM = p.fromJoin(a, []joinStep{st})
	p.joinBody(a, false, true)
}

// addCrossJoin: FROM a CROSS JOIN b (or a, b, or a JOIN b without ON) with the join's condition
// in WHERE: a link (JSON_CONTAINS on MariaDB's side) or a field equality.
func addCrossJoin(g *Generator, p *parts) {
	p.startRebuild()
	ta, tb := g.linkedPair(p)
	if p.r.IntN(3) == 0 {
		tb = g.Schema.Tables[p.r.IntN(len(g.Schema.Tables))]
	}
	a := p.tableSide(ta, false)
	b := p.tableSide(tb, ta == tb)
	var cond *e
	if rels := links(a, b); len(rels) > 0 && p.r.IntN(3) != 0 {
		c := p.linkCond(rels[p.r.IntN(len(rels))])
		cond = &c
	} else {
		cond, _ = p.fieldCond(a, b, true)
	}
	kind := []string{"CROSS JOIN", ",", "JOIN"}[p.r.IntN(3)]
	sep := map[bool]string{true: ", ", false: " " + kind + " "}[kind == ","]
	p.from = a.decl + sep + b.decl
	p.fromM = a.declM + sep + b.declM
	if p.r.IntN(3) == 0 {
		// A third table, crossed too, tied by a link in WHERE; written between a and b half of
		// the time (FROM a, c, b: a and c have no condition, so the driver chooses the order).
		for _, t := range g.partners(tb) {
			c := p.tableSide(t, true)
			rels := links(b, c)
			lc := p.linkCond(rels[p.r.IntN(len(rels))])
			cond = &e{d: cond.d + " AND " + lc.d, m: cond.m + " AND " + lc.m, k: Bool}
			if p.r.IntN(2) == 0 {
				p.from = a.decl + sep + c.decl + ", " + b.decl
				p.fromM = a.declM + sep + c.declM + ", " + b.declM
				break
			}
			p.from += ", " + c.decl
			p.fromM += ", " + c.declM
			break
		}
	}
	p.joinBody(a, false, false)
	w := *cond
	if p.where != nil {
		w = e{d: "(" + p.where.d + ") AND " + cond.d, m: "(" + p.where.m + ") AND " + cond.m, k: Bool}
	}
	p.where = &w
}

// addUsingJoin: a JOIN b USING (a column both have: Name, Active, createdTime).
func addUsingJoin(g *Generator, p *parts) {
	p.startRebuild()
	ta := g.Schema.Tables[p.r.IntN(len(g.Schema.Tables))]
	tb := g.Schema.Tables[p.r.IntN(len(g.Schema.Tables))]
	a, b := p.tableSide(ta, ta == tb), p.tableSide(tb, ta == tb)
	var common []string
	for _, c := range ta.Columns {
		if oc := tb.Column(c.Name); oc != nil && oc.Kind == c.Kind && c.Kind != JSON && c.Name != "id" {
			common = append(common, c.Name)
		}
	}
	st := joinStep{kind: p.joinKind(true), x: b, using: common[p.r.IntN(len(common))]}
	p.from, p.fromM = p.fromJoin(a, []joinStep{st})
	// Few rows match on free text, times and autoNumbers; a checkbox, a select or a small
	// number matches many: then aggregates only.
	c := ta.Column(st.using)
	many := !(c.Kind == Text && c.AirType != "singleSelect" || c.Kind == DateTime || c.AirType == "autoNumber")
	p.joinBody(a, many, false)
}

// addGroupJoin: a join (two or three tables through links) grouped by a column of one side.
func addGroupJoin(g *Generator, p *parts) {
	if p.r.IntN(2) == 0 {
		addJoin3(g, p)
	} else {
		addJoin(g, p)
		p.rebuilt = true
	}
	if p.groupBy != "" {
		return
	}
	p.items, p.orderBy, p.orderM, p.limit, p.offset, p.distinct = nil, nil, nil, "", "", false
	p.q.Ordered = false
	p.groupOver(p.sides)
}

// derivedSide writes SELECT … FROM t WHERE … as a derived table: id and a few columns (their
// names kept, so links keep their meaning), or a grouped form without id.
func (p *parts) derivedSide(t *Table, name string) (*side, string, string) {
	r := p.r
	inner := &side{t: t, alias: quoteName(t.Name), base: t}
	dt := &Table{Name: name}
	var sel, selM []string
	var where *e
	grouped := r.IntN(4) == 0
	p.within(inner, func() {
		if grouped {
			var key *Column
			for key == nil || key.Kind == JSON || key.Name == "id" {
				key = p.anyColumn(true)
			}
			n := fieldOf(p, t, Int)
			// Aliases no table has as a column (Items has N: names are case-insensitive).
			sel = []string{quoteName(key.Name), "COUNT(*) AS cnt"}
			dt.Columns = []*Column{key, {Name: "cnt", Kind: Int}}
			if n != nil {
				sel = append(sel, "MAX("+quoteName(n.Name)+") AS mx")
				dt.Columns = append(dt.Columns, &Column{Name: "mx", Kind: Int, Nullable: true})
			}
			selM = sel
			return
		}
		dt.Columns = []*Column{t.Column("id")}
		sel = []string{"id"}
		for _, i := range r.Perm(len(t.Columns))[:2+r.IntN(3)] {
			c := t.Columns[i]
			if c.Name == "id" {
				continue
			}
			dt.Columns = append(dt.Columns, c)
			sel = append(sel, quoteName(c.Name))
		}
		selM = slices.Clone(sel)
		if r.IntN(3) == 0 {
			// Not a date: '2024-07-06' AS x1 is a TEXT column, which the driver refuses to compare
			// with a DATETIME where MySQL converts it (seed 78183; see the report of oracle3).
			p.qualify = false
			x := p.expr([]Kind{Text, Int, Float, Bool}[p.r.IntN(4)], 1)
			p.qualify = true
			sel, selM = append(sel, x.d+" AS x1"), append(selM, x.m+" AS x1")
			dt.Columns = append(dt.Columns, &Column{Name: "x1", Kind: x.k, Nullable: true})
		}
		if r.IntN(2) == 0 {
			p.qualify = false
			c := p.cond(1)
			p.qualify = true
			where = &c
		}
	})
	d := "SELECT " + strings.Join(sel, ", ") + " FROM " + quoteName(t.Name)
	m := "SELECT " + strings.Join(selM, ", ") + " FROM " + quoteName(t.Name)
	if where != nil {
		d += " WHERE " + where.d
		m += " WHERE " + where.m
	}
	if grouped {
		d += " GROUP BY " + sel[0]
		m += " GROUP BY " + sel[0]
	}
	s := &side{t: dt, alias: name, base: t, key: !grouped}
	return s, d, m
}

// addDerived: FROM (SELECT …) AS d alone, or joined with a table through a link or a field.
func addDerived(g *Generator, p *parts) {
	p.startRebuild()
	t := g.Schema.Tables[p.r.IntN(len(g.Schema.Tables))]
	d, sd, sm := p.derivedSide(t, "d")
	d.decl, d.declM = "("+sd+") AS d", "("+sm+") AS d"
	p.derivedJoin(g, d)
}

// derivedJoin puts the derived side d (a derived table or a CTE) in the FROM, alone or joined
// with a base table.
func (p *parts) derivedJoin(g *Generator, d *side) {
	p.sides = append(p.sides, d)
	if p.r.IntN(2) == 0 {
		p.from, p.fromM = d.decl, d.declM
		p.joinBody(d, false, false)
		return
	}
	o := p.tableSide(g.Schema.Tables[p.r.IntN(len(g.Schema.Tables))], true)
	st := joinStep{kind: p.joinKind(true), x: o}
	if rels := links(d, o); len(rels) > 0 && p.r.IntN(3) != 0 {
		rel := rels[p.r.IntN(len(rels))]
		st.rel = &rel
	} else if fc, _ := p.fieldCond(d, o, true); fc != nil {
		st.on = []e{*fc}
	} else {
		st.kind = "CROSS JOIN"
	}
	p.from, p.fromM = p.fromJoin(d, []joinStep{st})
	p.joinBody(d, st.kind == "CROSS JOIN", true)
}

// addWith: WITH d AS (SELECT …) SELECT … FROM d …, the CTE sometimes read twice.
func addWith(g *Generator, p *parts) {
	p.startRebuild()
	t := g.Schema.Tables[p.r.IntN(len(g.Schema.Tables))]
	d, sd, sm := p.derivedSide(t, "d")
	p.with, p.withM = "WITH d AS ("+sd+") ", "WITH d AS ("+sm+") "
	d.decl, d.declM = "d", "d"
	if p.r.IntN(3) == 0 && d.key {
		// Read twice: d AS x JOIN d AS y on a field (or People's Manager link).
		x := &side{t: d.t, alias: "x", decl: "d AS x", declM: "d AS x", base: t, key: true}
		y := &side{t: d.t, alias: "y", decl: "d AS y", declM: "d AS y", base: t, key: true}
		p.sides = []*side{x, y}
		st := joinStep{kind: p.joinKind(true), x: y}
		if rels := links(x, y); len(rels) > 0 {
			st.rel = &rels[0]
		} else if fc, _ := p.fieldCond(x, y, true); fc != nil {
			st.on = []e{*fc}
		} else {
			st.on = []e{{d: "x.id = y.id", m: "x.id = y.id"}}
		}
		p.from, p.fromM = p.fromJoin(x, []joinStep{st})
		p.joinBody(x, false, true)
		return
	}
	p.derivedJoin(g, d)
}

// outerSide is the side a subquery correlates with: the query's first side, or its table.
func (p *parts) outerSide() *side {
	if len(p.sides) > 0 {
		return p.sides[0]
	}
	a := p.alias
	if a == "" {
		a = quoteName(p.t.Name)
	}
	return &side{t: p.t, alias: a, base: p.t, key: true}
}

// andWhere adds c to the WHERE (under OR sometimes).
func (p *parts) andWhere(c e) {
	if p.where == nil {
		p.where = &c
		return
	}
	op := " AND "
	if p.r.IntN(5) == 0 {
		op = " OR "
	}
	w := e{d: "(" + p.where.d + ")" + op + c.d, m: "(" + p.where.m + ")" + op + c.m, k: Bool}
	p.where = &w
}

// subSide is a table of a subquery, aliased s (or s2…) so that it never hides the outer one.
func (p *parts) subSide(t *Table) *side {
	p.aliases++
	a := "s" + strconv.Itoa(p.aliases)
	return &side{t: t, alias: a, decl: quoteName(t.Name) + " AS " + a, declM: quoteName(t.Name) + " AS " + a, base: t, key: true}
}

// addExists: [NOT] EXISTS (SELECT … FROM t s WHERE s.col = outer.col AND …), correlated by
// one equality — a link (s.id = o.Owner; JSON_CONTAINS on MariaDB's side) or a field.
func addExists(g *Generator, p *parts) {
	o := p.outerSide()
	var corr *e
	var s *side
	if p.r.IntN(2) == 0 {
		for _, t := range p.r.Perm(len(g.Schema.Tables)) {
			cand := p.subSide(g.Schema.Tables[t])
			if rs := links(o, cand); len(rs) > 0 {
				rel := rs[p.r.IntN(len(rs))]
				lc := p.linkCond(rel)
				if lc.d == lc.m {
					lc.d = rel.to.alias + ".id = " + rel.from.alias + "." + quoteName(rel.col.Name)
				}
				corr, s = &lc, cand
				break
			}
		}
	}
	if corr == nil {
		s = p.subSide(g.Schema.Tables[p.r.IntN(len(g.Schema.Tables))])
		for _, k := range []Kind{Text, Int, Date, Float} {
			ci, co := fieldOf(p, s.t, k), fieldOf(p, o.t, k)
			if ci != nil && co != nil {
				a, b := s.alias+"."+quoteName(ci.Name), o.alias+"."+quoteName(co.Name)
				if p.r.IntN(2) == 0 {
					a, b = b, a
				}
				corr = &e{d: a + " = " + b, m: a + " = " + b, k: Bool}
				break
			}
		}
		if corr == nil {
			return
		}
	}
	w := *corr
	if p.r.IntN(2) == 0 {
		p.within(s, func() {
			c := p.cond(1)
			w = e{d: w.d + " AND " + c.d, m: w.m + " AND " + c.m, k: Bool}
		})
	}
	sel := []string{"*", "1", s.alias + ".id"}[p.r.IntN(3)]
	not := []string{"", "NOT "}[p.r.IntN(2)]
	x := e{d: not + "EXISTS (SELECT " + sel + " FROM " + s.decl + " WHERE " + w.d + ")",
		m: not + "EXISTS (SELECT " + sel + " FROM " + s.declM + " WHERE " + w.m + ")", k: Bool}
	p.andWhere(x)
}

// addNotIn: x [NOT] IN (SELECT s.col FROM t s WHERE …) over nullable columns (SQL's NULL rules:
// NOT IN over a set holding NULL is never true), or o.id [NOT] IN the ids a link holds (through
// the junction table on MariaDB's side).
func addNotIn(g *Generator, p *parts) {
	o := p.outerSide()
	not := []string{"", "NOT "}[p.r.IntN(3)%2]
	s := p.subSide(g.Schema.Tables[p.r.IntN(len(g.Schema.Tables))])
	var left e
	var selD, selM, fromM string
	fromM = s.declM
	// A link of s to o's table: o.id IN (SELECT s.Link …).
	var rel *linkRel
	for _, c := range s.t.Columns {
		if c.Link == o.base.Name && o.t.Column("id") != nil && p.r.IntN(2) == 0 {
			rel = &linkRel{from: s, col: c, to: o}
		}
	}
	if rel != nil {
		left = e{d: o.alias + ".id", m: o.alias + ".id", k: Text}
		jt := quoteName(s.base.Name + "__" + rel.col.Name)
		selD = s.alias + "." + quoteName(rel.col.Name)
		// A blank link is NULL compared with an id (as JSON_CONTAINS of NULL is): in the set
		// it is a NULL, so the junction table is joined LEFT.
		selM = "jx.linked_id"
		fromM = s.declM + " LEFT JOIN " + jt + " AS jx ON jx.id = " + s.alias + ".id"
	} else {
		var ci, co *Column
		for _, i := range p.r.Perm(4) {
			k := []Kind{Text, Int, Date, Float}[i]
			ci, co = fieldOf(p, s.t, k), fieldOf(p, o.t, k)
			if ci != nil && co != nil {
				break
			}
		}
		if ci == nil || co == nil {
			return
		}
		left = e{d: o.alias + "." + quoteName(co.Name), m: o.alias + "." + quoteName(co.Name)}
		if p.r.IntN(12) == 0 {
			left = e{d: "NULL", m: "NULL"}
		}
		selD = s.alias + "." + quoteName(ci.Name)
		selM = selD
		if p.r.IntN(4) == 0 && ci.Kind != Date {
			// A set without NULL (a date with a text default would be TEXT for the driver,
			// which refuses to compare it with a DATE).
			selD = "COALESCE(" + selD + ", " + coalesceZero(ci.Kind) + ")"
			selM = selD
		}
	}
	d := left.d + " " + not + "IN (SELECT " + selD + " FROM " + s.decl
	m := left.m + " " + not + "IN (SELECT " + selM + " FROM " + fromM
	if p.r.IntN(2) == 0 {
		p.within(s, func() {
			c := p.cond(1)
			d += " WHERE " + c.d
			m += " WHERE " + c.m
		})
	}
	x := e{d: d + ")", m: m + ")", k: Bool}
	switch p.r.IntN(5) {
	case 0:
		x = e{d: "NOT (" + x.d + ")", m: "NOT (" + x.m + ")", k: Bool}
	case 1:
		is := []string{" IS TRUE", " IS NOT TRUE", " IS FALSE", " IS NOT FALSE"}[p.r.IntN(4)]
		x = e{d: "(" + x.d + ")" + is, m: "(" + x.m + ")" + is, k: Bool}
	}
	p.andWhere(x)
}

func coalesceZero(k Kind) string {
	switch k {
	case Text:
		return "''"
	case Date:
		return "'2000-01-01'"
	}
	return "0"
}

// addScalar: an uncorrelated scalar subquery in the select list or compared in WHERE: an
// aggregate, one record's value, the first by id, or several rows (MySQL's error, both ways).
func addScalar(g *Generator, p *parts) {
	o := p.outerSide()
	s := p.subSide(g.Schema.Tables[p.r.IntN(len(g.Schema.Tables))])
	var sel string
	var k Kind
	tail := ""
	p.within(s, func() {
		c := p.anyColumn(true)
		for c.Kind == JSON || c.Computed {
			c = p.anyColumn(true)
		}
		ref := p.ref(c)
		k = c.Kind
		switch p.r.IntN(7) {
		case 0:
			sel, k = "COUNT(*)", Int
		case 1, 2:
			sel = []string{"MIN(", "MAX("}[p.r.IntN(2)] + ref + ")"
		case 3:
			if c.Kind == Int {
				sel, k = []string{"SUM(", "AVG("}[p.r.IntN(2)]+ref+")", Float
			} else {
				sel, k = "COUNT("+ref+")", Int
			}
		case 4:
			sel = ref
			tail = " WHERE " + s.alias + ".id = '" + recordID(s.t.Name, p.r.IntN(s.t.rows+2)) + "'"
		case 5:
			sel = ref
			tail = " ORDER BY " + s.alias + ".id" + []string{"", " DESC"}[p.r.IntN(2)] + " LIMIT 1"
		default:
			sel = ref // up to two rows: MySQL's error with two, when a row evaluates it
			p.q.tag(TagScalarRows)
			tail = " WHERE " + ref + " IS NOT NULL AND " + s.alias + ".id < '" + recordID(s.t.Name, p.r.IntN(3)) + "'"
		}
		if tail == "" && p.r.IntN(2) == 0 {
			c := p.cond(1)
			tail = " WHERE " + c.d
			if c.d != c.m {
				// The MariaDB form differs: keep it simple, no WHERE.
				tail = ""
			}
		}
	})
	sub := "(SELECT " + sel + " FROM " + s.decl + tail + ")"
	if p.r.IntN(2) == 0 && !p.star && p.count == nil && p.union == "" && len(p.items) > 0 && p.items[0].d != "*" {
		p.items = append(p.items, e{d: sub, m: sub, k: k})
		return
	}
	var col *Column
	p.within(o, func() {
		col = p.columnOf(k)
		if col == nil && (k == Float || k == Int) {
			col = p.columnOf([]Kind{Int, Float}[p.r.IntN(2)])
		}
	})
	if col == nil {
		return
	}
	op := []string{"=", "<", ">", "<=", ">=", "<>"}[p.r.IntN(6)]
	ref := o.alias + "." + quoteName(col.Name)
	p.andWhere(e{d: ref + " " + op + " " + sub, m: ref + " " + op + " " + sub, k: Bool})
}

// addRightJoinAfter: a JOIN b … RIGHT JOIN c (refused today: "RIGHT JOIN after other joins").
func addRightJoinAfter(g *Generator, p *parts) {
	p.startRebuild()
	ta, tb := g.linkedPair(p)
	a := p.tableSide(ta, true)
	b := p.tableSide(tb, true)
	rels := links(a, b)
	rel := rels[p.r.IntN(len(rels))]
	steps := []joinStep{{kind: p.joinKind(true), x: b, rel: &rel}}
	y := []*side{a, b}[p.r.IntN(2)]
	ps := g.partners(y.t)
	c := p.tableSide(ps[p.r.IntN(len(ps))], true)
	rels = links(y, c)
	rel2 := rels[p.r.IntN(len(rels))]
	steps = append(steps, joinStep{kind: "RIGHT JOIN", x: c, rel: &rel2})
	p.from, p.fromM = p.fromJoin(a, steps)
	p.joinBody(a, false, true)
}

// addNaturalJoin: t NATURAL [LEFT] JOIN (SELECT columns of the same names …) AS d (refused
// today). The derived table selects columns that t has too, so that the join has keys other
// than id.
func addNaturalJoin(g *Generator, p *parts) {
	p.startRebuild()
	ta := g.Schema.Tables[p.r.IntN(len(g.Schema.Tables))]
	tb := g.Schema.Tables[p.r.IntN(len(g.Schema.Tables))]
	a := p.tableSide(ta, true)
	d := p.nextAlias() // the derived table's alias: never one of the tables' (seed 14745 gave both d)
	var common []string
	for _, c := range tb.Columns {
		if oc := ta.Column(c.Name); oc != nil && oc.Kind == c.Kind && c.Kind != JSON && c.Name != "id" && c.Name != "createdTime" {
			common = append(common, quoteName(c.Name))
		}
	}
	if len(common) > 2 {
		common = common[:1+p.r.IntN(2)]
	}
	sub := "(SELECT " + strings.Join(common, ", ") + ", COUNT(*) AS n FROM " + quoteName(tb.Name) + " GROUP BY " + strings.Join(common, ", ") + ") AS " + d
	kind := []string{"NATURAL JOIN", "NATURAL LEFT JOIN", "NATURAL RIGHT JOIN"}[p.r.IntN(3)]
	p.from = a.decl + " " + kind + " " + sub
	p.fromM = p.from
	p.t, p.alias, p.qualify = a.t, a.alias, true
	p.items = []e{{d: a.alias + ".id", m: a.alias + ".id", k: Text}, {d: d + ".n", m: d + ".n", k: Int}}
	p.orderBy, p.orderM = []string{a.alias + ".id", d + ".n"}, []string{a.alias + ".id", d + ".n"}
	p.q.Ordered = true
}

// addCorrelated: a scalar subquery or IN reading a column of the outer query (refused today:
// only [NOT] EXISTS with inner.col = outer.col is decorrelated).
func addCorrelated(g *Generator, p *parts) {
	// The select list is written anew (grouping and DISTINCT dropped); FROM and WHERE stay.
	p.resetShape()
	p.union, p.limit, p.orderBy, p.orderM, p.star, p.count = "", "", nil, nil, false, nil
	p.q.Ordered = false
	o := p.outerSide()
	s := p.subSide(g.Schema.Tables[p.r.IntN(len(g.Schema.Tables))])
	var ci, co *Column
	for _, k := range []Kind{Text, Int, Date} {
		ci, co = fieldOf(p, s.t, k), fieldOf(p, o.t, k)
		if ci != nil && co != nil {
			break
		}
	}
	if ci == nil || co == nil {
		// A derived table without a column to correlate: the outer query becomes Items alone.
		p.startRebuild()
		p.t, p.alias, p.qualify = g.table("Items"), "o", true
		p.from, p.fromM = "`Items` AS o", "`Items` AS o"
		o = p.outerSide()
		ci, co = fieldOf(p, s.t, Text), o.t.Column("Name")
	}
	p.items = []e{{d: o.alias + "." + quoteName(o.t.Columns[0].Name), m: o.alias + "." + quoteName(o.t.Columns[0].Name), k: o.t.Columns[0].Kind}}
	corr := s.alias + "." + quoteName(ci.Name) + " = " + o.alias + "." + quoteName(co.Name)
	switch p.r.IntN(3) {
	case 0:
		x := "(SELECT COUNT(*) FROM " + s.decl + " WHERE " + corr + ")"
		p.items = append(p.items, e{d: x, m: x, k: Int})
	case 1:
		x := o.alias + "." + quoteName(co.Name) + " IN (SELECT " + s.alias + "." + quoteName(ci.Name) + " FROM " + s.decl +
			" WHERE " + s.alias + ".id <> " + o.alias + ".id)"
		if o.t.Column("id") == nil {
			x = o.alias + "." + quoteName(co.Name) + " IN (SELECT " + s.alias + "." + quoteName(ci.Name) + " FROM " + s.decl + " WHERE " + corr + ")"
		}
		p.andWhere(e{d: x, m: x, k: Bool})
	default:
		x := "EXISTS (SELECT 1 FROM " + s.decl + " WHERE " + s.alias + "." + quoteName(ci.Name) + " > " + o.alias + "." + quoteName(co.Name) + ")"
		p.andWhere(e{d: x, m: x, k: Bool})
	}
}
