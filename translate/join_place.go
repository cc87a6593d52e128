package translate

// Placing the conditions of a join: each table's own conditions pushed into its scan, the
// equalities of each step as hash keys, the rest as residual ON or checked on the joined rows.

// conjuncts splits a condition at its top-level ANDs.
func conjuncts(e *expr) []*expr {
	if e == nil {
		return nil
	}
	if e.kind == exAnd && e.op == "" { // a BETWEEN stays whole: it evaluates all its operands
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
	// The conjuncts of a WHERE or ON: their AND is topLevel as theirs was.
	return &expr{kind: exAnd, typ: typeCond, nullable: nullable, args: cs, topLevel: true}
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
	if err := p.checkOns(); err != nil {
		return err
	}
	p.orderInnerRuns(where)
	p.orderFirstTwo(where)
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
	p.placeOns()
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
			c, err := s.topCondition(st.on)
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
				c, err := s.topCondition(g.on)
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
func (p *joinPlacement) placeOns() {
	for i, st := range p.jp.steps {
		for _, c := range conjuncts(p.ons[i]) {
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
}

// checkOns refuses an ON condition that names a table joined after it (in FROM's order, before
// the steps are reordered).
func (p *joinPlacement) checkOns() error {
	visible := uint64(0)
	for i, st := range p.jp.steps {
		visible |= p.stepMask(i)
		for _, c := range conjuncts(p.ons[i]) {
			if c.tabs()&^visible != 0 {
				return unknownColumnf("in 'on clause' of %s: the ON condition of a join can name only the tables joined so far", st.sql)
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
