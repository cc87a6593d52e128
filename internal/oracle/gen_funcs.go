package oracle

import (
	"slices"
	"strconv"
	"strings"
)

// The functions and small grammar of issue 22 (BI tools' queries and sqllogictest's), each over
// expressions of every column kind but JSON and over NULL, as select items or conditions. MariaDB
// runs MySQL's code for the date, time and week functions; where it differs from MySQL 8 the
// query avoids the case or adapts MariaDB's side (e.m), as noted at each.

// anyValueKind is a kind whose values every function here reads as text or a number (not JSON,
// whose text MariaDB writes with other spacing).
func (p *parts) anyValueKind() Kind {
	return []Kind{Text, Text, Int, Float, Bool, Date, DateTime}[p.r.IntN(7)]
}

// pick is one of the strings, at random.
func (p *parts) pick(s ...string) string { return s[p.r.IntN(len(s))] }

// call writes f(args…) on both sides; nullable when any argument is.
func call(f string, k Kind, args ...e) e {
	ds, ms := make([]string, len(args)), make([]string, len(args))
	nullable := false
	for i, a := range args {
		ds[i], ms[i] = a.d, a.m
		nullable = nullable || a.nullable || a.isNull
	}
	return e{d: f + "(" + strings.Join(ds, ", ") + ")", m: f + "(" + strings.Join(ms, ", ") + ")", k: k, nullable: nullable}
}

// lit is a literal written alike on both sides.
func lit(s string, k Kind) e { return e{d: s, m: s, k: k} }

// regexpPatterns mean the same in ICU (MySQL), PCRE (MariaDB) and RE2 (the driver), and none
// matches the empty string (REGEXP_REPLACE and REGEXP_SUBSTR treat empty matches differently in
// MariaDB).
var regexpPatterns = []string{"'^a'", "'e$'", "'[0-9]'", "'^[A-Z]'", "'x|y'", "'é'", "'[.]'", "'[[:digit:]]+'", "'[[:space:]]'",
	"'^-'", "'0{2,}'", "'(ab|ba)+'", "'[^a-z0-9 ]'", "'\\\\.'", "'T'", "'1'", "'%'", "'_'"}

// addStringFuncs selects (or filters by) SUBSTRING_INDEX, FIELD, ELT, FIND_IN_SET, the REGEXP
// family and <=>.
func addStringFuncs(g *Generator, p *parts) {
	r := p.r
	arg := func() e { return p.expr(p.anyValueKind(), 1) }
	var x e
	cond := false
	switch r.IntN(10) {
	case 0:
		x = call("SUBSTRING_INDEX", Text, arg(), lit(p.pick("'.'", "' '", "'a'", "'-'", "':'", "'ab'", "'0'", "''", "'é'", "','"), Text),
			lit(strconv.Itoa(r.IntN(7)-3), Int))
	case 1:
		k := p.anyValueKind()
		args := []e{p.expr(k, 1)}
		for range 1 + r.IntN(3) {
			if r.IntN(4) == 0 {
				args = append(args, p.constant(p.anyValueKind())) // a mix compares as DOUBLE
			} else {
				args = append(args, p.expr(k, 0))
			}
		}
		x = call("FIELD", Int, args...)
		x.nullable = false
	case 2:
		n := p.smallInt()
		if c := p.columnOf(Int); c != nil && r.IntN(2) == 0 {
			n = p.column(c)
		}
		args := []e{n}
		for range 1 + r.IntN(3) {
			args = append(args, arg())
		}
		x = call("ELT", Text, args...)
		x.nullable = true
	case 3:
		x = call("FIND_IN_SET", Int, arg(), p.pick2(lit("'a,b,c'", Text), arg()))
	case 4, 5:
		a := arg()
		op := p.pick(" REGEXP ", " NOT REGEXP ", " RLIKE ")
		pat := p.pick(regexpPatterns...)
		x = e{d: "(" + a.d + op + pat + ")", m: "(" + a.m + op + pat + ")", k: Bool, nullable: a.nullable || a.isNull}
		cond = r.IntN(2) == 0
	case 6:
		x = call("REGEXP_REPLACE", Text, arg(), lit(p.pick(regexpPatterns...), Text), lit(p.pick("'-'", "''", "'ÉÉ'", "'x y'"), Text))
	case 7:
		// MySQL 8: no match is NULL; MariaDB gives '' (no pattern here matches the empty string).
		a, pat := arg(), p.pick(regexpPatterns...)
		x = e{d: "REGEXP_SUBSTR(" + a.d + ", " + pat + ")", m: "NULLIF(REGEXP_SUBSTR(" + a.m + ", " + pat + "), '')", k: Text, nullable: true}
	case 8:
		x = call("REGEXP_INSTR", Int, arg(), lit(p.pick(regexpPatterns...), Text))
	default:
		// A column on one side: a condition of constants alone is folded by MySQL before it runs
		// the other conditions (a BIGINT overflow beside it is then never computed).
		c := p.anyColumn(true)
		for c.Kind == JSON {
			c = p.anyColumn(true)
		}
		k := c.Kind
		a, b := p.column(c), p.expr(k, 0)
		if r.IntN(4) == 0 {
			b = lit("NULL", k)
		}
		x = e{d: "(" + a.d + " <=> " + b.d + ")", m: "(" + a.m + " <=> " + b.m + ")", k: Bool}
		cond = r.IntN(2) == 0
	}
	p.addItemOrCond(x, cond)
}

// pick2 is a or b, at random.
func (p *parts) pick2(a, b e) e {
	if p.r.IntN(2) == 0 {
		return a
	}
	return b
}

// addItemOrCond adds x to the select list, or (a condition) to WHERE.
func (p *parts) addItemOrCond(x e, cond bool) {
	if cond {
		if p.where == nil {
			p.where = &x
		} else {
			w := e{d: "(" + p.where.d + ") AND " + x.d, m: "(" + p.where.m + ") AND " + x.m, k: Bool}
			p.where = &w
		}
		return
	}
	if p.groupBy != "" || slices.ContainsFunc(p.items, func(x e) bool { return x.agg }) {
		return // a grouped or aggregated query selects its keys and aggregates only
	}
	if p.star || p.count != nil {
		p.star, p.count = false, nil
	}
	p.items = append(p.items, x)
}

// timeLiterals are TIME values for ADDTIME, SUBTIME and TIMESTAMP(d, t). None has a fraction of a
// second: the fraction digits MariaDB writes for a result computed from text differ from MySQL 8's
// (README: deliberate differences).
var timeLiterals = []string{"'01:30:00'", "'-25:00:00'", "'00:00:01'", "'838:59:59'", "'1 02:03:04'", "'23:59:59'", "'-00:00:01'"}

// addTimeFuncs selects MAKEDATE, TIMESTAMP, the TIME functions, STR_TO_DATE of week dates and
// typed literals, over date and dateTime columns (and NULL).
func addTimeFuncs(g *Generator, p *parts) {
	r := p.r
	d := func() e {
		if c := p.columnOf([]Kind{Date, DateTime}[r.IntN(2)]); c != nil && r.IntN(6) != 0 {
			return p.column(c)
		}
		if r.IntN(6) == 0 {
			return lit("NULL", DateTime)
		}
		return lit(p.pick("'2024-02-29 10:05:03'", "'2023-12-31 23:59:59'", "'2000-01-01 00:00:00'"), DateTime)
	}
	small := func() e {
		if c := p.columnOf(Int); c != nil && r.IntN(3) == 0 {
			ref := p.column(c)
			// The fixture's integers reach ±1e12: % keeps them in the functions' range.
			return e{d: "(" + ref.d + " % 4000)", m: "(" + ref.m + " % 4000)", k: Int, nullable: ref.nullable}
		}
		return lit(strconv.Itoa(r.IntN(800)-40), Int)
	}
	var x e
	cond := false
	switch r.IntN(13) {
	case 0:
		year := call("YEAR", Int, d())
		if r.IntN(3) == 0 {
			year = small()
		}
		x = call("MAKEDATE", Date, year, small())
		x.nullable = true
	case 1:
		if r.IntN(2) == 0 {
			x = call("TIMESTAMP", DateTime, d())
		} else {
			x = call("TIMESTAMP", DateTime, d(), lit(p.pick(timeLiterals...), Text))
		}
	case 2:
		x = call("SEC_TO_TIME", Text, small())
	case 3:
		x = call("TIME_TO_SEC", Float, d())
	case 4:
		// A DATETIME with a DATETIME (a DATE with a DATETIME is NULL in both) less than 838 hours
		// apart: beyond, MySQL 8 clamps to 838:59:59.000 and MariaDB to 838:59:59.999.
		a := d()
		n := " INTERVAL " + strconv.Itoa(r.IntN(1600)-800) + " " + p.pick("HOUR", "MINUTE", "SECOND")
		if r.IntN(2) == 0 {
			x = e{d: "TIMEDIFF(" + a.d + ", " + a.d + " -" + n + ")", m: "TIMEDIFF(" + a.m + ", " + a.m + " -" + n + ")", k: Text, nullable: true}
		} else {
			x = e{d: "TIMEDIFF(" + a.d + " +" + n + ", " + a.d + ")", m: "TIMEDIFF(" + a.m + " +" + n + ", " + a.m + ")", k: Text, nullable: true}
		}
	case 5:
		x = call(p.pick("ADDTIME", "SUBTIME"), DateTime, d(), lit(p.pick(timeLiterals...), Text))
	case 6:
		x = call("TIME_FORMAT", Text, d(), lit(p.pick("'%H:%i:%s'", "'%h %p'", "'%r'", "'%T %f'", "'%k %l %I %S'", "'%H %Y'"), Text))
	case 7:
		x = call("MAKETIME", Text, small(), lit(strconv.Itoa(r.IntN(62)), Int), lit(strconv.Itoa(r.IntN(61)), Int))
	case 8:
		// Metabase's week bucket.
		a := d()
		x = e{d: "STR_TO_DATE(CONCAT(YEARWEEK(" + a.d + "), ' Sunday'), '%X%V %W')", m: "STR_TO_DATE(CONCAT(YEARWEEK(" + a.m + "), ' Sunday'), '%X%V %W')", k: Date, nullable: true}
	case 9:
		f := p.pick("'%X %V %W'", "'%x %v %a'", "'%Y %U %w'", "'%Y %u %W'", "'%X%V %w'", "'%Y-%j'", "'%x-%v-%W'")
		a := d()
		x = e{d: "STR_TO_DATE(DATE_FORMAT(" + a.d + ", " + f + "), " + f + ")", m: "STR_TO_DATE(DATE_FORMAT(" + a.m + ", " + f + "), " + f + ")", k: Date, nullable: true}
	case 10:
		a := d()
		l := p.pick("DATE '2024-01-01'", "TIMESTAMP '2023-12-31 12:00:00'", "DATE '2000-02-29'")
		p.q.tag(TagMySQLGrammar)
		x = e{d: "(" + a.d + " >= " + l + ")", m: "(" + a.m + " >= " + l + ")", k: Bool, nullable: true}
		cond = r.IntN(2) == 0
	case 11:
		a := d()
		iv := " INTERVAL " + strconv.Itoa(r.IntN(50)-10) + " " + p.pick("DAY", "WEEK", "MONTH", "QUARTER", "YEAR", "HOUR", "MINUTE")
		x = e{d: "(" + a.d + p.pick(" +", " -") + iv + ")", k: DateTime, nullable: true}
		x.m = strings.Replace(x.d, a.d, a.m, 1)
		if r.IntN(3) == 0 {
			x = e{d: "(" + strings.TrimSpace(iv) + " + " + a.d + ")", m: "(" + strings.TrimSpace(iv) + " + " + a.m + ")", k: DateTime, nullable: true}
		}
	default:
		x = e{d: "DATE_FORMAT(" + p.pick("DATE '2024-05-15'", "TIMESTAMP '2024-05-15 10:00:00'") + ", '%Y %j')", k: Text}
		p.q.tag(TagMySQLGrammar)
		x.m = x.d
	}
	p.addItemOrCond(x, cond)
}

// addStatAggregate selects one aggregate of the STD and VAR families or BIT_AND/OR/XOR, without
// GROUP BY (one row), over an integer, float or checkbox column.
func addStatAggregate(g *Generator, p *parts) {
	c := p.columnOf([]Kind{Int, Float, Bool}[p.r.IntN(3)])
	for _, k := range []Kind{Int, Float, Bool} {
		if c == nil {
			c = p.columnOf(k)
		}
	}
	if c == nil {
		// A WITH query's or derived table's columns of text and dates only (seeds 3795 of the
		// default mix, 9282 of a mixed run): nothing to aggregate.
		return
	}
	f := p.pick("STD", "STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP", "BIT_AND", "BIT_OR", "BIT_XOR")
	arg, argM := p.ref(c), p.ref(c)
	if !strings.HasPrefix(f, "BIT_") {
		// The running mean and variance of MySQL (and MariaDB) depend on the order of the rows in
		// their last digits, and the two read the rows in different orders: values below 1000
		// keep the answers equal to 12 digits (the fixture's reach ±1e12). MariaDB's STD and
		// VAR of integers are DECIMALs with 4 decimals; MySQL 8's are DOUBLEs.
		if c.Kind != Bool {
			arg, argM = "("+arg+" % 1000)", "("+argM+" % 1000)"
		}
		argM = "CAST(" + argM + " AS DOUBLE)"
	}
	if p.r.IntN(3) == 0 {
		arg, argM = "ALL "+arg, "ALL "+argM // MySQL's default quantifier
		p.q.tag(TagMySQLGrammar)
	}
	p.resetShape()
	p.star, p.count = false, nil
	p.items = []e{{d: f + "(" + arg + ")", m: f + "(" + argM + ")", k: Float}}
	p.orderBy, p.orderM, p.limit, p.union = nil, nil, "", ""
	p.q.Ordered = false
}

// addLiterals selects hexadecimal, bit and typed literals and unary minus on text, sometimes
// with SELECT ALL and a non-reserved keyword as alias.
func addLiterals(g *Generator, p *parts) {
	r := p.r
	var x e
	switch r.IntN(4) {
	case 0:
		x = lit(p.pick("x'41'", "X'c3a9'", "0x41", "0x4142", "b'1000001'", "x''"), Text)
	case 1:
		x = lit(p.pick("0x41 + 0", "b'11' + 1", "-0x10", "0xff * 2"), Int)
	case 2:
		a := p.expr(Text, 1)
		x = e{d: "-" + a.d, m: "-" + a.m, k: Float, nullable: a.nullable || a.isNull}
		if a.isNull || strings.HasPrefix(a.d, "-") {
			x = e{d: "-(" + a.d + ")", m: "-(" + a.m + ")", k: Float, nullable: true}
		}
	default:
		x = lit(p.pick("DATE '2024-05-15'", "TIME '10:05:03'", "TIMESTAMP '2024-02-29 23:59:59'", "TIME '-1 02:00:00'"), Text)
		p.q.tag(TagMySQLGrammar)
	}
	if p.groupBy != "" {
		return
	}
	if r.IntN(2) == 0 {
		alias := p.pick("offset", "end", "full", "tables")
		x.d += " AS " + alias
		x.m += " AS `" + alias + "`"
		x.raw = true
		p.q.tag(TagMySQLGrammar)
	}
	p.star, p.count = false, nil
	p.items = append(p.items, x)
	if !p.distinct && r.IntN(2) == 0 {
		p.selectAll = true
		p.q.tag(TagMySQLGrammar)
	}
}

// addRollup groups by one or two columns WITH ROLLUP, selecting the keys, COUNT(*) and exact
// aggregates, sometimes with HAVING. MariaDB refuses ROLLUP with ORDER BY (MySQL 8 takes it) and
// has no GROUPING(): the rows are compared as a multiset, and GROUPING is tested in the root
// package's TestRollup.
func addRollup(g *Generator, p *parts) {
	if p.rebuilt || len(p.sides) > 0 || p.with != "" || p.qualify {
		return
	}
	var keys []e
	for range 1 + p.r.IntN(2) {
		c := p.anyColumn(true)
		for c.Kind == JSON {
			c = p.anyColumn(true)
		}
		keys = append(keys, p.column(c))
	}
	if len(keys) == 2 && keys[0].col == keys[1].col {
		keys = keys[:1] // GROUP BY a, a WITH ROLLUP: MariaDB shows a's value in the row that rolls it up
	}
	aggs := []string{"COUNT(*)"}
	if n := p.columnOf(Int); n != nil {
		aggs = append(aggs, p.pick("SUM(", "MIN(", "MAX(", "COUNT(")+p.ref(n)+")")
	}
	if t := p.columnOf(Text); t != nil && p.r.IntN(2) == 0 {
		// Not COUNT(DISTINCT …): MariaDB's super-aggregate rows add up the groups' distinct counts.
		aggs = append(aggs, p.pick("MIN(", "MAX(", "COUNT(")+p.ref(t)+")")
	}
	p.resetShape()
	p.star, p.count, p.union, p.selectAll = false, nil, "", false
	p.items = nil
	var ds, ms []string
	for _, k := range keys {
		p.items = append(p.items, k)
		ds, ms = append(ds, k.d), append(ms, k.m)
	}
	for _, a := range aggs {
		p.items = append(p.items, e{d: a, m: a, k: Int})
	}
	if strings.Join(ds, ", ") != strings.Join(ms, ", ") {
		return
	}
	p.groupBy = strings.Join(ds, ", ") + " WITH ROLLUP"
	p.groupAggs = aggs
	if p.r.IntN(4) == 0 {
		p.having = "COUNT(*) > " + strconv.Itoa(p.r.IntN(4))
	}
	p.orderBy, p.orderM, p.limit = nil, nil, ""
	p.q.Ordered = false
	p.q.tag(TagMySQLGrammar)
}
