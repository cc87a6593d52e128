package oracle

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Mode says what the generator does with a construct.
type Mode int

const (
	// Off: never generated.
	Off Mode = iota
	// Refused: generated in a few queries, and the driver must refuse each with an error naming
	// the construct (Query.Refusal); MariaDB runs it, which proves the SQL itself is valid.
	Refused
	// Run: generated, and the three answers are compared.
	Run
)

// Construct is a piece of SQL the driver runs or refuses, with how to add it to a query.
//
// This is the extension point: when a helper teaches the driver a construct, its entry's Mode
// goes from Refused to Run (DefaultConstructs), and from then on every test run compares its
// answers with MariaDB's. A new construct is a new entry whose add builds it into the query
// parts; add must keep the query valid MySQL with a deterministic answer (ONLY_FULL_GROUP_BY,
// ORDER BY with a unique tie-breaker when LIMIT is used).
type Construct struct {
	Name string // as the driver's refusal names it (UnsupportedError.Construct contains it)
	Mode Mode
	// Weight: out of 1000 queries, about how many use it.
	Weight int
	add    func(g *Generator, q *parts)
	// rebuild: add writes the whole query anew (a join, a derived table): after one such
	// construct the others are left out.
	rebuild bool
}

// DefaultConstructs is what the driver runs or refuses today (before the engine issues land).
func DefaultConstructs() []Construct {
	return []Construct{
		{Name: "OFFSET", Mode: Run, Weight: 10, add: addOffset},
		{Name: "GROUP BY", Mode: Run, Weight: 30, add: addGroupBy},
		{Name: "DISTINCT", Mode: Run, Weight: 10, add: addDistinct},
		{Name: "CASE", Mode: Run, Weight: 8, add: addCase},
		{Name: "CAST", Mode: Run, Weight: 8, add: addCast},
		{Name: "date functions", Mode: Run, Weight: 30, add: addDateFunc},
		{Name: "JOIN", Mode: Run, Weight: 8, add: addJoin},
		{Name: "subquery", Mode: Run, Weight: 8, add: addSubquery},
		{Name: "ORDER BY on an expression", Mode: Run, Weight: 8, add: addOrderByExpr},
		{Name: "aggregate", Mode: Run, Weight: 8, add: addAggregate},
		{Name: "UNION", Mode: Run, Weight: 8, add: addUnion},
		// Joins, subqueries and derived tables of issue 10 (gen_join.go). Each rebuilds the
		// query around its FROM; the subqueries after them add to any query, joins included.
		{Name: "3-table JOIN", Mode: Run, Weight: 10, add: addJoin3, rebuild: true},
		{Name: "self-join", Mode: Run, Weight: 6, add: addSelfJoin, rebuild: true},
		{Name: "JOIN on fields", Mode: Run, Weight: 7, add: addFieldJoin, rebuild: true},
		{Name: "RIGHT JOIN", Mode: Run, Weight: 5, add: addRightJoin, rebuild: true},
		{Name: "CROSS JOIN", Mode: Run, Weight: 5, add: addCrossJoin, rebuild: true},
		{Name: "USING", Mode: Run, Weight: 5, add: addUsingJoin, rebuild: true},
		{Name: "GROUP BY over a join", Mode: Run, Weight: 6, add: addGroupJoin, rebuild: true},
		{Name: "derived table", Mode: Run, Weight: 6, add: addDerived, rebuild: true},
		{Name: "WITH", Mode: Run, Weight: 5, add: addWith, rebuild: true},
		{Name: "EXISTS", Mode: Run, Weight: 9, add: addExists},
		{Name: "NOT IN", Mode: Run, Weight: 8, add: addNotIn},
		{Name: "scalar subquery", Mode: Run, Weight: 8, add: addScalar},
		{Name: "RIGHT JOIN after other joins", Mode: Run, Weight: 2, add: addRightJoinAfter, rebuild: true},
		{Name: "NATURAL", Mode: Run, Weight: 3, add: addNaturalJoin, rebuild: true}, // NATURAL [LEFT|RIGHT] JOIN
		{Name: "a correlated subquery", Mode: Run, Weight: 4, add: addCorrelated},
		// The functions and grammar of issue 22 (gen_funcs.go).
		{Name: "string functions of BI tools", Mode: Run, Weight: 25, add: addStringFuncs},
		{Name: "time functions of BI tools", Mode: Run, Weight: 25, add: addTimeFuncs},
		{Name: "literals and SELECT ALL", Mode: Run, Weight: 8, add: addLiterals},
		{Name: "window functions", Mode: Run, Weight: 20, add: addWindow}, // gen_window.go
		// Last: it replaces the select list with one aggregate.
		{Name: "STD VAR BIT aggregates", Mode: Run, Weight: 8, add: addStatAggregate},
		{Name: "WITH ROLLUP", Mode: Run, Weight: 8, add: addRollup},
		// MariaDB's side spelled so that MariaDB 10.11 answers as MySQL (gen_setops.go).
		{Name: "INTERSECT EXCEPT", Mode: Run, Weight: 8, add: addSetOps, rebuild: true},
	}
}

// Tags mark the constructs of a query that the pendingFixes of a test may recognise.
const (
	// TagTimeInOrNot: a comparison or function of a nullable date or dateTime under OR or NOT.
	TagTimeInOrNot = "time-in-or-not"
	// TagFormulaSort: ORDER BY a formula field.
	TagFormulaSort = "formula-sort"
	// TagSubstrExpr: SUBSTRING/SUBSTR/MID whose first argument is not a column.
	TagSubstrExpr = "substr-expr"
	// TagCheckboxNumber: a checkbox compared with a number other than 0 or 1.
	TagCheckboxNumber = "checkbox-number"
	// TagFloatText: a FLOAT64 expression written as text (CONCAT).
	TagFloatText = "float-text"
	// TagTimeText: a DATE or DATETIME expression written as text (CONCAT).
	TagTimeText = "time-text"
	// TagRound: ROUND.
	TagRound = "round"
	// TagTextNumber: text compared with a number.
	TagTextNumber = "text-number"
	// TagLength: LENGTH (bytes in MySQL).
	TagLength = "length"
	// TagLikeInvalidUTF8: LIKE with a bound pattern that is not valid UTF-8.
	TagLikeInvalidUTF8 = "like-invalid-utf8"
	// TagScalarRows: a scalar subquery that may return several rows.
	TagScalarRows = "scalar-rows"
	// TagGroupByID: GROUP BY id, the primary key: the other columns depend on it.
	TagGroupByID = "group-by-id"
	// TagMySQLGrammar: MySQL 8 grammar the pinned sqlparser reads only after the driver's
	// rewrites (SELECT ALL, COUNT(ALL x), DATE '…', AS offset, INTERSECT and EXCEPT).
	TagMySQLGrammar = "mysql-grammar"
)

// Query is one generated statement, written for the driver and for MariaDB.
type Query struct {
	Seed    uint64
	Driver  string // the SQL the driver runs
	MariaDB string // the same query for MariaDB, adapted for the deliberate differences
	Args    []any  // bound to the ? of both, in order
	Ordered bool   // ORDER BY fixes the order of every row: compare in order
	Refusal string // non-empty: the driver must refuse with an error naming this construct
	Tags    map[string]bool
	// Constructs names the constructs of Generator.Constructs the query carries (Refusal's too).
	Constructs []string
}

// Generator writes random SELECTs over a fixture's schema. The same seed gives the same query.
type Generator struct {
	Schema     *Schema
	Constructs []Construct
}

// NewGenerator is a generator over schema with DefaultConstructs.
func NewGenerator(schema *Schema) *Generator {
	return &Generator{Schema: schema, Constructs: DefaultConstructs()}
}

// e is an expression written twice: for the driver (d) and for MariaDB (m).
type e struct {
	d, m     string
	k        Kind
	col      *Column // a plain column
	nullable bool
	isNull   bool // the NULL literal
	raw      bool // a select item written without AS (t.*)
}

// parts is a SELECT being built.
type parts struct {
	g       *Generator
	r       *rand.Rand
	q       *Query
	t       *Table
	alias   string // table alias, "" for none
	items   []e    // select list (empty: *)
	star    bool
	count   *e // SELECT COUNT(...) alone
	where   *e
	orderBy []string // pairs rendered alike on both sides
	orderM  []string
	limit   string
	// What later constructs change:
	distinct        bool
	groupBy, having string
	groupAggs       []string // the aggregates a grouped query selects
	offset          string
	union           string // appended: " UNION [ALL] SELECT …"
	from, fromM     string
	underOrNot      int
	with            string // "WITH … " before SELECT, the same on both sides (withM: MariaDB's, or the parentheses that group a chain of set operations: gen_setops.go)
	withM           string
	qualify         bool // every column reference is alias.column (a join, a subquery's scope)
	rebuilt         bool // a construct wrote the query anew (Construct.rebuild)
	sides           []*side
	aliases         int   // aliases handed out (nextAlias)
	bound           []any // the values of bindMarker(i)
	fullTimes       int   // > 0: time literals with their time of day
	selectAll       bool  // SELECT ALL (MySQL's default quantifier, written)
	nullableTimes   int   // how many nullable date or dateTime columns were written
}

// bind returns a marker that render turns into ? with v bound to it: a construct may drop the
// part of the query that held it, and the arguments must follow the ? that are left.
func (p *parts) bind(v any) string {
	p.bound = append(p.bound, v)
	return fmt.Sprintf("\x00%d\x00", len(p.bound)-1)
}

// placeholders replaces the markers of bind with ? and returns the arguments in their order. On
// MariaDB's side (collate) a text argument is (? COLLATE utf8mb4_nopad_bin): MariaDB gives a
// bound text the collation of the client's handshake (utf8mb4_general_ci, which folds case and
// orders 'ı' with 'i'), not collation_connection; a text literal has the connection's.
func (p *parts) placeholders(sql string, collate bool) (string, []any) {
	var out strings.Builder
	var args []any
	for {
		i := strings.IndexByte(sql, 0)
		if i < 0 {
			out.WriteString(sql)
			return out.String(), args
		}
		j := strings.IndexByte(sql[i+1:], 0) + i + 1
		n, _ := strconv.Atoi(sql[i+1 : j])
		args = append(args, p.bound[n])
		mark := "?"
		if _, text := p.bound[n].(string); text && collate {
			mark = "(? COLLATE " + TextCollation + ")"
		}
		out.WriteString(sql[:i] + mark)
		sql = sql[j+1:]
	}
}

func (q *Query) tag(t string) {
	if q.Tags == nil {
		q.Tags = map[string]bool{}
	}
	q.Tags[t] = true
}

// Query generates the query of seed.
func (g *Generator) Query(seed uint64) *Query {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	q := &Query{Seed: seed}
	p := &parts{g: g, r: r, q: q, t: g.Schema.Tables[r.IntN(len(g.Schema.Tables))]}
	if r.IntN(8) == 0 {
		p.alias = "t"
	}
	p.from = quoteName(p.t.Name)
	if p.alias != "" {
		p.from += " AS " + p.alias
	}
	p.fromM = p.from

	// Select list.
	switch n := r.IntN(20); {
	case n < 2:
		p.star = true
	case n < 4:
		c := e{d: "*", m: "*"}
		if r.IntN(2) == 0 {
			c = p.column(p.anyColumn(false))
		}
		p.count = &c
	default:
		for range 1 + r.IntN(4) {
			if r.IntN(3) == 0 {
				p.items = append(p.items, p.column(p.anyColumn(false)))
			} else {
				p.items = append(p.items, p.expr(p.anyKind(), 2))
			}
		}
	}
	if r.IntN(6) != 0 {
		w := p.cond(3)
		p.where = &w
	}
	if p.count == nil && r.IntN(3) != 0 {
		p.order()
		if r.IntN(2) == 0 {
			switch r.IntN(6) {
			case 0:
				p.limit = "0"
			case 1:
				p.limit = strconv.Itoa(r.IntN(5)) + " OFFSET 0"
			case 2:
				p.limit = "0, " + strconv.Itoa(1+r.IntN(20))
			case 3:
				p.limit = p.bind(int64(r.IntN(30)))
			default:
				p.limit = strconv.Itoa(1 + r.IntN(40))
			}
		}
	}
	// At most one construct of the Refused ones, applied after those that Run (any number): it
	// rewrites the query around itself (resetRefused), so that MariaDB runs it.
	var refused *Construct
	for i, c := range g.Constructs {
		if c.Mode == Off || r.IntN(1000) >= c.Weight {
			continue
		}
		if c.Mode == Refused {
			if refused == nil {
				refused = &g.Constructs[i]
				q.Refusal = c.Name
			}
			continue
		}
		if c.rebuild && p.rebuilt {
			continue
		}
		c.add(g, p)
		q.Constructs = append(q.Constructs, c.Name)
	}
	if refused != nil {
		refused.add(g, p)
		q.Constructs = append(q.Constructs, refused.Name)
	}
	p.render()
	return q
}

func (p *parts) render() {
	var d, m strings.Builder
	d.WriteString(p.with + "SELECT ")
	m.WriteString(p.withM + "SELECT ")
	if p.distinct {
		d.WriteString("DISTINCT ")
		m.WriteString("DISTINCT ")
	} else if p.selectAll {
		d.WriteString("ALL ")
		m.WriteString("ALL ")
	}
	switch {
	case p.star:
		d.WriteString("*")
		m.WriteString("*")
	case p.count != nil:
		d.WriteString("COUNT(" + p.count.d + ")")
		m.WriteString("COUNT(" + p.count.m + ")")
	default:
		for i, it := range p.items {
			if i > 0 {
				d.WriteString(", ")
				m.WriteString(", ")
			}
			d.WriteString(it.d)
			widened := p.distinct && it.k == Text && it.col == nil && !it.raw && p.q.Tags[TagFloatText]
			if widened {
				// MariaDB's DISTINCT holds a text expression in a column as wide as it computes
				// the expression can be, too narrow for a DOUBLE written in full
				// (-0.000000000232830643762289852024-11-12 came back cut after …85202: seeds
				// 39722, 40360): give it room.
				m.WriteString("CAST(" + it.m + " AS CHAR(1000))")
			} else {
				m.WriteString(it.m)
			}
			// An expression written the same on both sides is left without an alias every
			// other item (unless it binds a value, which MariaDB reads with a COLLATE): its
			// label is then its text as written, on both sides (MySQL's rule, compared by Diff).
			if it.col == nil && !it.raw && (it.d != it.m || widened || i%2 == 0 || strings.IndexByte(it.d, 0) >= 0) {
				fmt.Fprintf(&d, " AS e%d", i+1)
				fmt.Fprintf(&m, " AS e%d", i+1)
			}
		}
	}
	d.WriteString(" FROM " + p.from)
	m.WriteString(" FROM " + p.fromM)
	if p.where != nil {
		d.WriteString(" WHERE " + p.where.d)
		m.WriteString(" WHERE " + p.where.m)
	}
	if p.groupBy != "" {
		d.WriteString(" GROUP BY " + p.groupBy)
		m.WriteString(" GROUP BY " + p.groupBy)
	}
	if p.having != "" {
		d.WriteString(" HAVING " + p.having)
		m.WriteString(" HAVING " + p.having)
	}
	if p.distinct && p.q.Ordered {
		// Items added after DISTINCT ordered by position: the order covers them too.
		for i := len(p.orderBy); i < len(p.items); i++ {
			p.orderBy = append(p.orderBy, strconv.Itoa(i+1))
			p.orderM = append(p.orderM, strconv.Itoa(i+1))
		}
	}
	if len(p.orderBy) > 0 {
		d.WriteString(" ORDER BY " + strings.Join(p.orderBy, ", "))
		m.WriteString(" ORDER BY " + strings.Join(p.orderM, ", "))
	}
	if p.limit != "" {
		d.WriteString(" LIMIT " + p.limit)
		m.WriteString(" LIMIT " + p.limit)
	}
	if p.offset != "" {
		if p.limit == "" {
			// A construct dropped the LIMIT that OFFSET needs: one above every table's size.
			d.WriteString(" LIMIT 1000")
			m.WriteString(" LIMIT 1000")
		}
		d.WriteString(" OFFSET " + p.offset)
		m.WriteString(" OFFSET " + p.offset)
	}
	d.WriteString(p.union)
	m.WriteString(p.union)
	var argsM []any
	p.q.Driver, p.q.Args = p.placeholders(d.String(), false)
	p.q.MariaDB, argsM = p.placeholders(m.String(), true)
	if !slices.Equal(p.q.Args, argsM) {
		panic(fmt.Sprintf("oracle: the MariaDB form of seed %d binds its arguments in another order", p.q.Seed))
	}
}

// order writes ORDER BY one to three columns, then id: the tie-breaker that fixes the order.
func (p *parts) order() {
	n := 1 + p.r.IntN(2)
	for i := range n {
		if i == 0 && p.r.IntN(5) == 0 {
			// By position: the first output column that is a column.
			for j, it := range p.items {
				if it.col != nil && it.col.Name != "id" {
					pos := strconv.Itoa(j + 1)
					if it.col.Computed {
						p.q.tag(TagFormulaSort)
					}
					p.orderBy = append(p.orderBy, pos)
					p.orderM = append(p.orderM, pos)
					break
				}
			}
			if len(p.orderBy) > 0 {
				continue
			}
		}
		c := p.anyColumn(true)
		if c.Name == "id" {
			continue
		}
		dir := ""
		if p.r.IntN(2) == 0 {
			dir = " DESC"
		}
		name := p.ref(c)
		if c.Computed {
			p.q.tag(TagFormulaSort)
			if p.r.IntN(2) == 0 {
				// Rejecting NULL at the top lets the driver push the sort (issue 17's second
				// class: the service's order of NaN and Infinity).
				nn := e{d: name + " IS NOT NULL", m: name + " IS NOT NULL", k: Bool}
				if p.where != nil {
					nn = e{d: "(" + p.where.d + ") AND " + nn.d, m: "(" + p.where.m + ") AND " + nn.m, k: Bool}
				}
				p.where = &nn
			}
		}
		p.orderBy = append(p.orderBy, name+dir)
		p.orderM = append(p.orderM, name+dir)
	}
	dir := ""
	if p.r.IntN(3) == 0 {
		dir = " DESC"
	}
	// The tie-breaker: id, or the autoNumber (unique too, and a number the driver can push a
	// sort on, where ORDER BY id always sorts locally).
	last := p.t.Column("id")
	if p.r.IntN(3) != 0 {
		for _, c := range p.t.Columns {
			if c.AirType == "autoNumber" {
				last = c
			}
		}
	}
	p.orderBy = append(p.orderBy, p.ref(last)+dir)
	p.orderM = append(p.orderM, p.ref(last)+dir)
	p.q.Ordered = true
}

func (p *parts) ref(c *Column) string {
	if p.qualify {
		return p.alias + "." + quoteName(c.Name)
	}
	if p.alias != "" && p.r.IntN(2) == 0 {
		return p.alias + "." + quoteName(c.Name)
	}
	if strings.ContainsAny(c.Name, " `") || p.r.IntN(4) == 0 {
		return quoteName(c.Name)
	}
	return c.Name
}

func (p *parts) column(c *Column) e {
	if (c.Kind == Date || c.Kind == DateTime) && c.Nullable {
		p.nullableTimes++
	}
	n := p.ref(c)
	return e{d: n, m: n, k: c.Kind, col: c, nullable: c.Nullable || c.Computed}
}

// anyColumn picks a column; sortable excludes JSON (compared as text, but rarely useful).
func (p *parts) anyColumn(sortable bool) *Column {
	for {
		c := p.t.Columns[p.r.IntN(len(p.t.Columns))]
		if sortable && c.Kind == JSON && p.r.IntN(4) != 0 {
			continue
		}
		return c
	}
}

func (p *parts) columnOf(k Kind) *Column {
	var cs []*Column
	for _, c := range p.t.Columns {
		if c.Kind == k {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return nil
	}
	return cs[p.r.IntN(len(cs))]
}

func (p *parts) anyKind() Kind {
	return []Kind{Text, Text, Int, Int, Float, Bool, Date, DateTime, JSON}[p.r.IntN(9)]
}

// constant writes a literal of kind k, sometimes as a bound ? argument.
func (p *parts) constant(k Kind) e {
	r := p.r
	if r.IntN(25) == 0 {
		return e{d: "NULL", m: "NULL", k: k, nullable: true, isNull: true}
	}
	bind := r.IntN(6) == 0
	var v any
	var lit string
	switch k {
	case Text, JSON:
		s := pickText(r)
		if c := p.columnOf(Text); c != nil && r.IntN(3) == 0 {
			s = trickyText[r.IntN(len(trickyText))]
		}
		v, lit = s, quoteString(s)
	case Int:
		n := trickyInts[r.IntN(len(trickyInts))]
		if r.IntN(2) == 0 {
			n = int64(r.IntN(120) - 20)
		}
		v, lit = n, strconv.FormatInt(n, 10)
	case Float:
		f := trickyFloats[r.IntN(len(trickyFloats))]
		if r.IntN(2) == 0 {
			f = float64(r.IntN(2000)-500) / 4
		}
		v, lit = f, strconv.FormatFloat(f, 'f', -1, 64)
	case Bool:
		switch r.IntN(4) {
		case 0:
			v, lit = true, "TRUE"
		case 1:
			v, lit = false, "FALSE"
		case 2:
			v, lit = int64(1), "1"
		default:
			v, lit = int64(0), "0"
		}
	case Date:
		s := genDate(0)(r, 0).(string)
		v, lit = s, quoteString(s)
	case DateTime:
		s := genDateTime(0)(r, 0).(string)
		t, _ := time.Parse(time.RFC3339Nano, s)
		s = t.Format("2006-01-02 15:04:05.000")
		if r.IntN(3) == 0 && p.fullTimes == 0 {
			s = t.Format(time.DateOnly)
		}
		v, lit = s, quoteString(s)
	}
	if bind {
		lit = p.bind(v)
	} else if k == Float && strings.Contains(lit, ".") {
		// A decimal literal is a FLOAT64 in the driver, a DECIMAL in MySQL (the README's table):
		// MariaDB gets it as a DOUBLE.
		return e{d: lit, m: lit + "e0", k: k}
	}
	return e{d: lit, m: lit, k: k}
}

// quoteString writes a MySQL string literal: a backslash doubled, a quote doubled.
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''") + "'"
}

// expr writes an expression of kind k, nesting at most depth.
func (p *parts) expr(k Kind, depth int) e {
	r := p.r
	if depth <= 0 || r.IntN(3) == 0 {
		if r.IntN(30) == 0 && !p.qualify {
			// The record's own id and created time: functions of the driver, columns in MariaDB
			// (in a join or a subquery, ambiguous there).
			switch k {
			case Text:
				return e{d: "RECORD_ID()", m: "id", k: Text}
			case DateTime:
				return e{d: "CREATED_TIME()", m: "createdTime", k: DateTime}
			}
		}
		if c := p.columnOf(k); c != nil && r.IntN(5) != 0 {
			return p.column(c)
		}
		return p.constant(k)
	}
	switch k {
	case Int:
		return p.intExpr(depth)
	case Float:
		return p.floatExpr(depth)
	case Text:
		return p.textExpr(depth)
	}
	if c := p.columnOf(k); c != nil {
		return p.column(c)
	}
	return p.constant(k)
}

// unary is f(a), of kind k.
func unary(f string, a e, k Kind) e {
	return e{d: f + "(" + a.d + ")", m: f + "(" + a.m + ")", k: k, nullable: a.nullable || a.isNull}
}

// binary is (a op b), of kind k.
func binary(op string, a, b e, k Kind) e {
	bm := b.m
	if op == "/" {
		// The driver's / is a FLOAT64 division; MySQL's / of integers is a DECIMAL with
		// div_precision_increment more digits (7/2 is 3.5000): a deliberate difference.
		bm = "CAST(" + bm + " AS DOUBLE)"
	}
	return e{d: "(" + a.d + " " + op + " " + b.d + ")", m: "(" + a.m + " " + op + " " + bm + ")", k: k,
		nullable: a.nullable || b.nullable || a.isNull || b.isNull || op == "/" || op == "DIV" || op == "%"}
}

// intExpr writes an integer expression: arithmetic, ABS, lengths, parts of a time, COALESCE.
func (p *parts) intExpr(depth int) e {
	r := p.r
	switch r.IntN(9) {
	case 0, 1:
		ops := []string{"+", "-", "*"}
		a := p.expr(Int, depth-1)
		if r.IntN(6) == 0 {
			a = p.expr(Bool, 0) // TRUE + 1 is 2
		}
		return binary(ops[r.IntN(3)], a, p.smallInt(), Int)
	case 2:
		return binary([]string{"DIV", "%"}[r.IntN(2)], p.expr(Int, depth-1), p.smallInt(), Int)
	case 3:
		return unary("ABS", p.expr(Int, depth-1), Int)
	case 4:
		f := []string{"LENGTH", "CHAR_LENGTH", "CHARACTER_LENGTH"}[r.IntN(3)]
		if f == "LENGTH" {
			p.q.tag(TagLength)
		}
		return unary(f, p.expr(Text, depth-1), Int)
	case 5, 6:
		f := []string{"YEAR", "MONTH", "DAY", "DAYOFMONTH", "HOUR", "MINUTE", "SECOND"}[r.IntN(7)]
		if f[0] == 'H' || f[0] == 'M' && f != "MONTH" || f[0] == 'S' {
			// MySQL reads the argument of HOUR, MINUTE and SECOND as a TIME: a date-only
			// literal ('2024-01-05') is no time there. Columns of both kinds are fine.
			p.fullTimes++
			a := p.timeExpr(depth - 1)
			p.fullTimes--
			return unary(f, a, Int)
		}
		return unary(f, p.timeExpr(depth-1), Int)
	case 7:
		return unary("-", p.expr(Int, depth-1), Int)
	default:
		a := p.expr(Int, depth-1)
		return e{d: "COALESCE(" + a.d + ", 0)", m: "COALESCE(" + a.m + ", 0)", k: Int}
	}
}

// floatExpr writes a float expression: arithmetic, division, ABS or minus, ROUND.
func (p *parts) floatExpr(depth int) e {
	r := p.r
	switch r.IntN(6) {
	case 0, 1:
		ops := []string{"+", "-", "*", "/"}
		a, b := p.expr(Float, depth-1), p.numeric(depth-1)
		if r.IntN(2) == 0 {
			a, b = b, a
		}
		return binary(ops[r.IntN(4)], a, b, Float)
	case 2:
		return binary("/", p.expr(Int, depth-1), p.smallInt(), Float)
	case 3:
		if r.IntN(3) == 0 {
			return unary("-", p.expr(Float, depth-1), Float)
		}
		return unary("ABS", p.expr(Float, depth-1), Float)
	default:
		// The driver's ROUND works on the number's shortest decimal form and rounds halves
		// away from zero, as MySQL does for exact values; MySQL rounds a DOUBLE's halves to
		// even (a deliberate difference): MariaDB rounds the same decimal.
		a := p.expr(Float, depth-1)
		p.q.tag(TagRound)
		n := ""
		if r.IntN(2) == 0 {
			n = ", " + strconv.Itoa(r.IntN(4)-1)
		}
		if _, err := strconv.ParseInt(a.d, 10, 64); err == nil && a.d == a.m {
			// An integer literal (1e12 is written 1000000000000): ROUND of it is a BIGINT
			// in MySQL as in the driver (seed 45387: times Budget * 100 it overflows).
			return e{d: "ROUND(" + a.d + n + ")", m: "ROUND(" + a.m + n + ")", k: Int}
		}
		return e{d: "ROUND(" + a.d + n + ")", m: "CAST(ROUND(CAST(CAST(" + a.m + " AS CHAR) AS DECIMAL(65,30))" + n + ") AS DOUBLE)", k: Float, nullable: a.nullable || a.isNull}
	}
}

// textExpr writes a text expression: case, trimming, CONCAT, substrings, COALESCE.
func (p *parts) textExpr(depth int) e {
	r := p.r
	switch r.IntN(7) {
	case 0:
		return unary([]string{"LOWER", "UPPER", "LCASE", "UCASE"}[r.IntN(4)], p.expr(Text, depth-1), Text)
	case 1:
		return unary([]string{"TRIM", "LTRIM", "RTRIM"}[r.IntN(3)], p.expr(Text, depth-1), Text)
	case 2, 3:
		n := 2 + r.IntN(2)
		var ds, ms []string
		nullable := false
		for range n {
			ak := []Kind{Text, Text, Text, Int, Float, Date, DateTime}[r.IntN(7)]
			a := p.expr(ak, depth-1)
			switch ak {
			case Float:
				p.q.tag(TagFloatText)
			case Date, DateTime:
				p.q.tag(TagTimeText)
			}
			ds, ms = append(ds, a.d), append(ms, a.m)
			nullable = nullable || a.nullable || a.isNull
		}
		return e{d: "CONCAT(" + strings.Join(ds, ", ") + ")", m: "CONCAT(" + strings.Join(ms, ", ") + ")", k: Text, nullable: nullable}
	case 4:
		a := p.expr(Text, depth-1)
		if a.col == nil {
			p.q.tag(TagSubstrExpr)
		}
		f := []string{"SUBSTRING", "SUBSTR", "MID"}[r.IntN(3)]
		pos := strconv.Itoa(r.IntN(7) - 2)
		args := a.d + ", " + pos
		argsM := a.m + ", " + pos
		if f == "MID" || r.IntN(2) == 0 {
			n := strconv.Itoa(r.IntN(6) - 1)
			args, argsM = args+", "+n, argsM+", "+n
		}
		return e{d: f + "(" + args + ")", m: f + "(" + argsM + ")", k: Text, nullable: a.nullable || a.isNull}
	default:
		a, b := p.expr(Text, depth-1), p.constant(Text)
		f := []string{"COALESCE", "IFNULL"}[r.IntN(2)]
		return e{d: f + "(" + a.d + ", " + b.d + ")", m: f + "(" + a.m + ", " + b.m + ")", k: Text, nullable: b.isNull}
	}
}

func (p *parts) smallInt() e {
	n := strconv.Itoa(p.r.IntN(9) - 2)
	return e{d: n, m: n, k: Int}
}

func (p *parts) numeric(depth int) e {
	if p.r.IntN(2) == 0 {
		return p.expr(Int, depth)
	}
	return p.expr(Float, depth)
}

func (p *parts) timeExpr(depth int) e {
	k := Date
	if p.r.IntN(2) == 0 || p.fullTimes > 0 {
		k = DateTime
	}
	return p.expr(k, depth)
}

// cond writes a condition, nesting AND/OR/NOT at most depth.
func (p *parts) cond(depth int) e {
	r := p.r
	if depth > 0 && r.IntN(3) == 0 {
		switch r.IntN(5) {
		case 0, 1:
			a := p.cond(depth - 1)
			b := p.cond(depth - 1)
			return e{d: "(" + a.d + " AND " + b.d + ")", m: "(" + a.m + " AND " + b.m + ")", k: Bool}
		case 2, 3:
			p.underOrNot++
			a := p.cond(depth - 1)
			b := p.cond(depth - 1)
			p.underOrNot--
			op := []string{"OR", "OR", "||"}[r.IntN(3)]
			if op == "||" {
				op = "OR" // || is OR in MySQL but CONCAT under PIPES_AS_CONCAT: stay unambiguous
			}
			return e{d: "(" + a.d + " " + op + " " + b.d + ")", m: "(" + a.m + " " + op + " " + b.m + ")", k: Bool}
		default:
			p.underOrNot++
			a := p.cond(depth - 1)
			p.underOrNot--
			if r.IntN(3) == 0 {
				is := []string{"IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE"}[r.IntN(4)]
				return e{d: "(" + a.d + ") " + is, m: "(" + a.m + ") " + is, k: Bool}
			}
			return e{d: "NOT (" + a.d + ")", m: "NOT (" + a.m + ")", k: Bool}
		}
	}
	return p.predicate()
}

// predicate writes one comparison, IN, BETWEEN, LIKE, IS NULL or a bare column.
func (p *parts) predicate() e {
	before := p.nullableTimes
	x, or := p.predicate1()
	if p.nullableTimes > before && (p.underOrNot > 0 || or) {
		// A blank date read by a pushed formula is an error, and an OR (IN is one) or a NOT
		// passes it on: issue 17's first class.
		p.q.tag(TagTimeInOrNot)
	}
	return x
}

// predicate1 writes the predicate and reports whether it is an OR in disguise (IN, NOT BETWEEN).
func (p *parts) predicate1() (e, bool) {
	r := p.r
	k := p.anyKind()
	a := p.expr(k, 1)
	if k == JSON {
		// JSON text: IS NULL, LIKE, = and <> (compared as text).
		switch r.IntN(3) {
		case 0:
			is := []string{"IS NULL", "IS NOT NULL"}[r.IntN(2)]
			return e{d: a.d + " " + is, m: a.m + " " + is, k: Bool}, false
		case 1:
			return p.like(a), false
		}
		op := []string{"=", "<>"}[r.IntN(2)]
		b := p.constant(Text)
		if r.IntN(2) == 0 {
			b = e{d: quoteString(`["red"]`), m: quoteString(`["red"]`), k: Text}
		}
		return e{d: a.d + " " + op + " " + b.d, m: a.m + " " + op + " " + b.m, k: Bool}, false
	}
	switch r.IntN(12) {
	case 0:
		is := []string{"IS NULL", "IS NOT NULL"}[r.IntN(2)]
		if a.col == nil && r.IntN(2) == 0 {
			a = p.column(p.anyColumn(false))
		}
		return e{d: a.d + " " + is, m: a.m + " " + is, k: Bool}, false
	case 1, 2:
		if k == Text {
			return p.like(a), false
		}
	case 3:
		not := []string{"", "NOT "}[r.IntN(2)]
		var ds, ms []string
		for range 1 + r.IntN(4) {
			c := p.compareOperand(k, a)
			ds, ms = append(ds, c.d), append(ms, c.m)
		}
		return e{d: a.d + " " + not + "IN (" + strings.Join(ds, ", ") + ")", m: a.m + " " + not + "IN (" + strings.Join(ms, ", ") + ")", k: Bool}, true
	case 4:
		not := []string{"", "NOT "}[r.IntN(2)]
		lo, hi := p.compareOperand(k, a), p.compareOperand(k, a)
		// NOT BETWEEN is an OR of two comparisons.
		return e{d: a.d + " " + not + "BETWEEN " + lo.d + " AND " + hi.d, m: a.m + " " + not + "BETWEEN " + lo.m + " AND " + hi.m, k: Bool}, not != ""
	case 5:
		if k == Int || k == Float || k == Bool {
			if r.IntN(2) == 0 {
				// Pushed as a test of the value's TRUE or FALSE formula, a NOT in disguise.
				is := []string{"IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE"}[r.IntN(4)]
				return e{d: a.d + " " + is, m: a.m + " " + is, k: Bool}, true
			}
			return a, false // a number or checkbox alone: non-zero
		}
	}
	op := []string{"=", "<>", "!=", "<", "<=", ">", ">="}[r.IntN(7)]
	b := p.compareOperand(k, a)
	if k == Text && r.IntN(40) == 0 {
		// Text against a number: MySQL compares them as numbers ('00' = 0, 'abc' = 0).
		b = p.constant(Int)
		p.q.tag(TagTextNumber)
	}
	if r.IntN(2) == 0 {
		return e{d: b.d + " " + op + " " + a.d, m: b.m + " " + op + " " + a.m, k: Bool}, false
	}
	return e{d: a.d + " " + op + " " + b.d, m: a.m + " " + op + " " + b.m, k: Bool}, false
}

// compareOperand is what a is compared with: a constant mostly, or an expression of its kind (a
// date with a dateTime, a checkbox with any number).
func (p *parts) compareOperand(k Kind, a e) e {
	r := p.r
	if k == Bool && r.IntN(4) == 0 {
		n := []int64{2, -1, 5}[r.IntN(3)]
		p.q.tag(TagCheckboxNumber)
		s := strconv.FormatInt(n, 10)
		return e{d: s, m: s, k: Int}
	}
	if (k == Date || k == DateTime) && r.IntN(20) == 0 {
		// The fixture's times are far from now: the statement's NOW and MariaDB's agree here.
		f := []string{"NOW()", "CURRENT_TIMESTAMP()", "CURRENT_TIMESTAMP"}[r.IntN(3)]
		return e{d: f, m: f, k: DateTime}
	}
	if r.IntN(4) == 0 {
		switch k {
		case Date:
			k = DateTime
		case DateTime:
			k = Date
		}
		return p.expr(k, 1)
	}
	return p.constant(k)
}

// like writes [NOT] LIKE with a pattern made of fixture text, wildcards and escapes. The driver's
// LIKE ignores ASCII case (a deliberate difference): MariaDB compares ascii_lower of both sides.
func (p *parts) like(a e) e {
	r := p.r
	not := []string{"", "NOT "}[r.IntN(2)]
	var pat string
	switch r.IntN(5) {
	case 0:
		pat = trickyText[r.IntN(len(trickyText))]
	case 1:
		s := []rune(pickText(r))
		n := r.IntN(len(s) + 1)
		pat = string(s[:n]) + "%"
	case 2:
		s := []rune(pickText(r))
		var b strings.Builder
		for _, c := range s {
			switch r.IntN(5) {
			case 0:
				b.WriteString("_")
			case 1:
				b.WriteString("%")
			default:
				b.WriteRune(c)
			}
		}
		pat = b.String()
	case 3:
		pat = []string{`%\%%`, `%\_%`, `%\\%`, `a\_b`, `50\%`, `%'%`, `%{%`, `_`, `__`, `%`, `%é%`, `%É%`, `%😀%`, `%a b%`}[r.IntN(14)]
	default:
		pat = "%" + words[r.IntN(len(words))][:2] + "%"
	}
	esc := ""
	if r.IntN(6) == 0 {
		pat = strings.NewReplacer(`\%`, `!%`, `\_`, `!_`).Replace(pat)
		esc = " ESCAPE '!'"
	}
	var pd, pm string
	if r.IntN(5) == 0 {
		pd = p.bind(pat)
		pm = pd
	} else {
		pd, pm = quoteString(pat), quoteString(pat)
	}
	if r.IntN(25) == 0 {
		// Invalid UTF-8 can only arrive bound (a literal in the SQL text is UTF-8).
		pd = p.bind([]string{"\xff%", "%\xff%", "%\xff", "\xffga%", "\xff" + pat[:min(len(pat), 2)] + "%"}[r.IntN(5)])
		p.q.tag(TagLikeInvalidUTF8)
		// No text matches the byte \xff, whatever the case: ascii_lower, which would refuse
		// the argument as an incorrect string, is left out on that side.
		return e{d: a.d + " " + not + "LIKE " + pd + esc, m: "ascii_lower(" + a.m + ") " + not + "LIKE " + pd + esc, k: Bool}
	}
	return e{d: a.d + " " + not + "LIKE " + pd + esc, m: "ascii_lower(" + a.m + ") " + not + "LIKE ascii_lower(" + pm + ")" + esc, k: Bool}
}

// The constructs of DefaultConstructs.

func addOffset(g *Generator, p *parts) {
	if p.count != nil {
		p.count, p.star = nil, true
	}
	if len(p.orderBy) == 0 {
		p.order()
	}
	if p.limit == "" {
		p.limit = strconv.Itoa(1 + p.r.IntN(30))
	}
	p.limit = strings.TrimSuffix(p.limit, " OFFSET 0")
	if strings.HasPrefix(p.limit, "0, ") {
		p.limit = strings.TrimPrefix(p.limit, "0, ")
	}
	p.offset = strconv.Itoa(1 + p.r.IntN(50))
}

// addGroupBy groups by one column, selecting it with aggregates (valid under ONLY_FULL_GROUP_BY):
// COUNT(*), SUM/AVG/MIN/MAX/COUNT of a number, COUNT(DISTINCT …), GROUP_CONCAT with ORDER BY and
// SEPARATOR; HAVING on an aggregate or on the key. The rows are ordered by the key (unique per
// group); addOrderByExpr may put an aggregate first.
func addGroupBy(g *Generator, p *parts) {
	c := p.anyColumn(true)
	key := p.column(c)
	if c.Name == "id" {
		p.q.tag(TagGroupByID)
	}
	aggs := []string{"COUNT(*)"}
	if n := p.columnOf([]Kind{Int, Float}[p.r.IntN(2)]); n != nil {
		ref := p.ref(n)
		fs := []string{"SUM(", "MIN(", "MAX(", "COUNT(", "AVG("}
		if n.Kind == Float {
			// A DOUBLE sum depends on the order it adds in (±1e12 beside 0.01: seed 27477): both
			// orders are right, so only the exact aggregates of a FLOAT64 column.
			fs = []string{"MIN(", "MAX(", "COUNT("}
		}
		aggs = append(aggs, fs[p.r.IntN(len(fs))]+ref+")")
	}
	if p.r.IntN(3) == 0 {
		aggs = append(aggs, "COUNT(DISTINCT "+p.ref(p.anyColumn(true))+")")
	}
	if t := p.columnOf(Text); t != nil && p.r.IntN(3) == 0 {
		ref := p.ref(t)
		gc := "GROUP_CONCAT("
		if p.r.IntN(3) == 0 {
			gc += "DISTINCT "
		}
		gc += ref + " ORDER BY " + ref + []string{"", " DESC"}[p.r.IntN(2)]
		if p.r.IntN(2) == 0 {
			gc += " SEPARATOR '|'"
		}
		aggs = append(aggs, gc+")")
	}
	p.star, p.count = false, nil
	p.items = []e{key}
	for _, a := range aggs {
		p.items = append(p.items, e{d: a, m: a, k: Int})
	}
	p.groupBy = key.d
	p.groupAggs = aggs
	switch p.r.IntN(5) {
	case 0:
		p.having = "COUNT(*) > " + strconv.Itoa(p.r.IntN(3))
	case 1:
		p.having = aggs[len(aggs)-1] + " IS NOT NULL"
	case 2:
		p.having = key.d + " IS NOT NULL"
	}
	p.orderBy, p.orderM, p.limit = nil, nil, ""
	p.orderBy = []string{key.d}
	p.orderM = []string{key.m}
	p.q.Ordered = true
}

func addDistinct(g *Generator, p *parts) {
	p.distinct = true
	if p.count != nil || p.star {
		p.star, p.count = false, nil
		p.items = []e{p.column(p.anyColumn(true))}
	}
	// ORDER BY must name selected columns (MySQL 8 refuses another under DISTINCT, MariaDB
	// accepts it), and id would make DISTINCT a no-op: order by them all, by position, or not at all.
	p.orderBy, p.orderM, p.limit = nil, nil, ""
	p.q.Ordered = false
	orderable := !slices.ContainsFunc(p.items, func(x e) bool { return x.k == JSON })
	if p.offset != "" && (p.groupBy != "" || !orderable) {
		p.offset = "" // OFFSET needs the order fixed
	}
	if p.groupBy == "" && orderable && (p.offset != "" || p.r.IntN(2) == 0) {
		for i := range p.items {
			pos := strconv.Itoa(i+1) + []string{"", " DESC"}[p.r.IntN(2)]
			p.orderBy = append(p.orderBy, pos)
			p.orderM = append(p.orderM, pos)
		}
		p.q.Ordered = true
		if p.r.IntN(2) == 0 {
			p.limit = strconv.Itoa(1 + p.r.IntN(20))
		}
	}
}

func addCase(g *Generator, p *parts) {
	c := p.cond(1)
	a, b := p.constant(Text), p.constant(Text)
	x := e{d: "CASE WHEN " + c.d + " THEN " + a.d + " ELSE " + b.d + " END", m: "CASE WHEN " + c.m + " THEN " + a.m + " ELSE " + b.m + " END", k: Text}
	if n := p.columnOf(Int); n != nil && p.r.IntN(2) == 0 {
		// The simple form: CASE x WHEN v THEN … [ELSE …] END.
		v1, v2 := p.constant(Int), p.constant(Int)
		ref := p.ref(n)
		x = e{d: "CASE " + ref + " WHEN " + v1.d + " THEN " + a.d + " WHEN " + v2.d + " THEN " + b.d + " END",
			m: "CASE " + ref + " WHEN " + v1.m + " THEN " + a.m + " WHEN " + v2.m + " THEN " + b.m + " END", k: Text}
	}
	if p.star || p.count != nil {
		p.star, p.count = false, nil
	}
	p.items = append(p.items, x)
}

func addCast(g *Generator, p *parts) {
	a := p.expr(Int, 1)
	x := e{d: "CAST(" + a.d + " AS CHAR)", m: "CAST(" + a.m + " AS CHAR)", k: Text}
	switch p.r.IntN(4) {
	case 1:
		x = e{d: "CAST(" + a.d + " AS SIGNED)", m: "CAST(" + a.m + " AS SIGNED)", k: Int}
	case 2:
		if d := p.columnOf(Date); d != nil {
			ref := p.ref(d)
			x = e{d: "CAST(" + ref + " AS DATETIME)", m: "CAST(" + ref + " AS DATETIME)", k: DateTime}
		}
	case 3:
		if d := p.columnOf(DateTime); d != nil {
			ref := p.ref(d)
			x = e{d: "CAST(" + ref + " AS DATE)", m: "CAST(" + ref + " AS DATE)", k: Date}
		}
	}
	p.star, p.count = false, nil
	p.items = append(p.items, x)
}

// resetShape drops what a construct that replaces the select list and FROM cannot keep: grouping,
// DISTINCT, OFFSET.
func (p *parts) resetShape() {
	p.groupBy, p.having, p.groupAggs, p.distinct, p.offset = "", "", nil, false, ""
}

// addDateFunc selects DATEDIFF, TIMESTAMPDIFF, DATE_FORMAT or DATE_ADD/DATE_SUB with INTERVAL of a
// date or dateTime column.
func addDateFunc(g *Generator, p *parts) {
	c := p.columnOf([]Kind{Date, DateTime}[p.r.IntN(2)])
	if c == nil {
		return
	}
	ref := p.ref(c)
	lit := "'" + []string{"2024-02-29", "2023-12-31", "2000-01-01 12:30:00"}[p.r.IntN(3)] + "'"
	var x string
	var k Kind
	switch p.r.IntN(4) {
	case 0:
		x, k = "DATEDIFF("+ref+", "+lit+")", Int
	case 1:
		x, k = "TIMESTAMPDIFF("+[]string{"DAY", "MONTH", "HOUR", "YEAR", "MINUTE"}[p.r.IntN(5)]+", "+lit+", "+ref+")", Int
	case 2:
		x, k = "DATE_FORMAT("+ref+", '"+[]string{"%Y-%m-%d", "%W %M %e %Y", "%H:%i:%s", "%j %U %a %b", "%y%c%d %p"}[p.r.IntN(5)]+"')", Text
	default:
		x, k = []string{"DATE_ADD(", "DATE_SUB("}[p.r.IntN(2)]+ref+", INTERVAL "+strconv.Itoa(p.r.IntN(40)-5)+" "+[]string{"DAY", "MONTH", "YEAR", "HOUR", "MINUTE"}[p.r.IntN(5)]+")", DateTime
	}
	if p.groupBy != "" {
		return
	}
	if p.star || p.count != nil {
		p.star, p.count = false, nil
	}
	p.items = append(p.items, e{d: x, m: x, k: k})
}

func addSubquery(g *Generator, p *parts) {
	sub := e{d: "id IN (SELECT id FROM " + quoteName(p.t.Name) + ")", m: "id IN (SELECT id FROM " + quoteName(p.t.Name) + ")", k: Bool}
	if p.alias != "" {
		sub.d = p.alias + "." + sub.d
		sub.m = p.alias + "." + sub.m
	}
	if p.where == nil {
		p.where = &sub
	} else {
		w := e{d: "(" + p.where.d + ") AND " + sub.d, m: "(" + p.where.m + ") AND " + sub.m, k: Bool}
		p.where = &w
	}
}

func addOrderByExpr(g *Generator, p *parts) {
	if p.count != nil {
		p.count = nil
		p.star = true
	}
	if p.distinct || len(p.sides) > 0 {
		// Under DISTINCT only selected expressions may order (addDistinct); a join orders by
		// every side's id (joinOrder).
		return
	}
	if p.groupBy != "" {
		// Under ONLY_FULL_GROUP_BY a grouped query is ordered by its keys and aggregates only (MySQL
		// 8 refuses any other column; MariaDB accepts it): an expression of an aggregate, then the
		// key (unique per group).
		a := p.groupAggs[p.r.IntN(len(p.groupAggs))]
		if strings.HasPrefix(a, "GROUP_CONCAT") {
			a = "COUNT(*)"
		}
		x := "(" + a + " + 1)"
		if p.r.IntN(2) == 0 {
			x += " DESC"
		}
		p.orderBy = append([]string{x}, p.orderBy...)
		p.orderM = append([]string{x}, p.orderM...)
		return
	}
	x := p.expr(Int, 1)
	// Never a bare column or number (ORDER BY 2 is a position).
	x = e{d: "(" + x.d + " + 1)", m: "(" + x.m + " + 1)", k: Int}
	p.orderBy = append([]string{x.d}, p.orderBy...)
	p.orderM = append([]string{x.m}, p.orderM...)
	// The tie-breaker, unless the order had one: an expression alone never has (CHAR_LENGTH(id)
	// is the same for every record: seed 39088).
	if len(p.orderBy) == 1 || !slices.ContainsFunc(p.orderBy, func(s string) bool { return strings.Contains(s, "id") }) {
		p.orderBy = append(p.orderBy, "id")
		p.orderM = append(p.orderM, "id")
	}
	p.q.Ordered = true
}

// addAggregate selects one aggregate other than COUNT, without GROUP BY: one row.
func addAggregate(g *Generator, p *parts) {
	c := p.columnOf([]Kind{Int, Float, Text, Date}[p.r.IntN(4)])
	if c == nil {
		c = p.columnOf(Int) // Projects has no FLOAT64 column
	}
	f := []string{"SUM", "AVG", "MIN", "MAX"}[p.r.IntN(4)]
	if c.Kind == Text || c.Kind == Date {
		f = []string{"MIN", "MAX"}[p.r.IntN(2)]
	}
	ref := p.ref(c)
	p.star, p.count = false, nil
	p.items = []e{{d: f + "(" + ref + ")", m: f + "(" + ref + ")", k: c.Kind}}
	p.orderBy, p.orderM, p.limit = nil, nil, ""
	p.q.Ordered = false
}

// addUnion selects the ids of the table's rows and UNION [ALL] the ids of another query.
func addUnion(g *Generator, p *parts) {
	p.resetShape()
	p.star, p.count = false, nil
	p.items = []e{p.column(p.t.Column("id"))}
	p.orderBy, p.orderM, p.limit = nil, nil, ""
	all := []string{"", " ALL"}[p.r.IntN(2)]
	p.union = " UNION" + all + " SELECT id FROM " + quoteName(p.t.Name) + " WHERE id < 'recM'"
	p.q.Ordered = false
}
