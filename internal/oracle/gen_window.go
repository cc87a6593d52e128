package oracle

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Window functions (issue 22): every function, frame and partition shape, over a table, over
// grouped rows, in ORDER BY, in derived tables and WITH (top-N per group), with named windows.
//
// Every answer is deterministic: a function whose result depends on the order of rows that tie
// (ROW_NUMBER, NTILE, LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE, and any function over a ROWS
// frame) has id as its window's last ORDER BY key; RANK and its kin, and aggregates over RANGE
// frames, which see peers together, are ordered by any keys.
//
// Where MariaDB 10.11 differs from MySQL 8, its side is adapted:
//   - LAG and LEAD take no default in MariaDB: LAG(x, n, d) is written
//     CASE WHEN ROW_NUMBER() OVER w > n THEN LAG(x, n) OVER w ELSE d END (LEAD counts the rows after).
//   - NTH_VALUE's FROM FIRST and RESPECT NULLS (MySQL's defaults) are not read by MariaDB: left out.
//   - RANGE frames take no INTERVAL in MariaDB: a DATE key's INTERVAL n DAY is TO_DAYS(key) with n.

// TagWindow: a window function (OVER), which the driver reads before its parser does.
const TagWindow = "window"

// addWindow is the construct of the ordinary generator: one or two window functions added to a
// plain query's select list.
func addWindow(g *Generator, p *parts) {
	if p.star || p.count != nil || p.groupBy != "" || p.distinct || p.union != "" || p.rebuilt || p.qualify {
		return
	}
	w := &windowGen{p: p, r: p.r, t: p.t, inline: true} // the ordinary query has no WINDOW clause
	d, m := w.call(w.spec(false))
	p.items = append(p.items, e{d: d, m: m, k: Float})
	p.q.tag(TagWindow)
}

// WindowQuery generates a query whose subject is window functions (the seed alone reproduces it).
func (g *Generator) WindowQuery(seed uint64) *Query {
	r := rand.New(rand.NewPCG(seed, 0x3171d0))
	q := &Query{Seed: seed, Constructs: []string{"window functions"}, Tags: map[string]bool{TagWindow: true}}
	p := &parts{g: g, r: r, q: q, t: g.Schema.Tables[r.IntN(len(g.Schema.Tables))]}
	w := &windowGen{p: p, r: r, t: p.t}
	var d, m string
	q.Ordered = true
	switch n := r.IntN(20); {
	case n < 9:
		d, m = w.plain()
	case n < 12:
		d, m = w.grouped()
	case n < 15:
		d, m = w.topN(false)
	case n < 17:
		d, m = w.topN(true)
	default:
		d, m = w.inOrderBy()
	}
	var argsM []any
	q.Driver, q.Args = p.placeholders(d, false)
	q.MariaDB, argsM = p.placeholders(m, true)
	if fmt.Sprint(q.Args) != fmt.Sprint(argsM) {
		panic(fmt.Sprintf("oracle: the MariaDB form of window seed %d binds its arguments in another order", seed))
	}
	return q
}

type windowGen struct {
	p      *parts
	r      *rand.Rand
	t      *Table
	named  []string // WINDOW clause definitions, rendered alike on both sides
	inline bool     // no named windows
}

// winSpec is one window as written on each side.
type winSpec struct {
	partition []string
	order     []string // with ASC/DESC
	orderM    []string
	frame     string // "" or ROWS/RANGE …
	frameM    string
	unique    bool // the order ends with id: ties are impossible
	numeric   *Column
	ref       string // a named window it is written as (OVER w)
}

func (s winSpec) text(mariadb bool) string {
	var parts []string
	if len(s.partition) > 0 {
		parts = append(parts, "PARTITION BY "+strings.Join(s.partition, ", "))
	}
	order := s.order
	if mariadb {
		order = s.orderM
	}
	if len(order) > 0 {
		parts = append(parts, "ORDER BY "+strings.Join(order, ", "))
	}
	f := s.frame
	if mariadb {
		f = s.frameM
	}
	if f != "" {
		parts = append(parts, f)
	}
	return strings.Join(parts, " ")
}

// keyColumn picks a column a window may partition or order by.
func (w *windowGen) keyColumn(kinds ...Kind) *Column {
	var cs []*Column
	for _, c := range w.t.Columns {
		if c.Link != "" || c.Computed || c.Kind == JSON || c.AirType == "multipleSelects" {
			continue
		}
		for _, k := range kinds {
			if c.Kind == k {
				cs = append(cs, c)
				break
			}
		}
	}
	if len(cs) == 0 {
		return nil
	}
	return cs[w.r.IntN(len(cs))]
}

func (w *windowGen) anyKey() *Column { return w.keyColumn(Text, Int, Float, Bool, Date, DateTime) }

func (w *windowGen) ref(c *Column) string { return w.p.ref(c) }

// spec writes a window; total: its order must be total (ends with id).
func (w *windowGen) spec(total bool) winSpec {
	r := w.r
	var s winSpec
	for range r.IntN(3) {
		if c := w.keyColumn(Text, Int, Bool, Date); c != nil {
			s.partition = append(s.partition, w.ref(c))
		}
	}
	nOrder := r.IntN(3)
	if total && nOrder == 0 && r.IntN(2) == 0 {
		nOrder = 1
	}
	for range nOrder {
		c := w.anyKey()
		dir := ""
		if r.IntN(2) == 0 {
			dir = " DESC"
		}
		s.order = append(s.order, w.ref(c)+dir)
	}
	if total || r.IntN(3) == 0 {
		dir := ""
		if r.IntN(3) == 0 {
			dir = " DESC"
		}
		s.order = append(s.order, w.ref(w.t.Column("id"))+dir)
		s.unique = true
	}
	s.orderM = append([]string(nil), s.order...)
	return s
}

// frameFor gives an aggregate or a value function a frame: ROWS over a total order, RANGE (with
// offsets over one numeric key) or none (MySQL's default).
func (w *windowGen) frameFor(s *winSpec) {
	r := w.r
	switch r.IntN(5) {
	case 0: // the default
		return
	case 1, 2: // ROWS over a total order
		if !s.unique {
			s.order = append(s.order, w.ref(w.t.Column("id")))
			s.orderM = append(s.orderM, w.ref(w.t.Column("id")))
			s.unique = true
		}
		s.frame = "ROWS " + w.bounds(func() string { return strconv.Itoa(r.IntN(4)) })
		s.frameM = s.frame
	case 3: // RANGE with offsets, over one numeric or date key
		c := w.keyColumn(Int, Float, Date)
		if c == nil {
			return
		}
		dir := ""
		if r.IntN(2) == 0 {
			dir = " DESC"
		}
		s.order, s.orderM, s.unique = []string{w.ref(c) + dir}, []string{w.ref(c) + dir}, false
		if c.Kind == Date {
			s.orderM = []string{"TO_DAYS(" + w.ref(c) + ")" + dir}
			var days []int
			b := w.bounds(func() string {
				n := r.IntN(40)
				days = append(days, n)
				return "INTERVAL " + strconv.Itoa(n) + " DAY"
			})
			s.frame = "RANGE " + b
			bm := b
			for _, n := range days {
				bm = strings.Replace(bm, "INTERVAL "+strconv.Itoa(n)+" DAY", "#"+strconv.Itoa(n), 1)
			}
			s.frameM = "RANGE " + strings.ReplaceAll(bm, "#", "")
			return
		}
		s.frame = "RANGE " + w.bounds(func() string {
			if c.Kind == Float && r.IntN(2) == 0 {
				return strconv.Itoa(r.IntN(50)) + ".5"
			}
			return strconv.Itoa(r.IntN(30))
		})
		s.frameM = s.frame
	default: // RANGE without offsets: peers together
		if len(s.order) == 0 {
			return
		}
		s.frame = "RANGE " + w.bounds(nil)
		s.frameM = s.frame
	}
}

// bounds writes a frame's extent: "BETWEEN a AND b" or a lone start. offset gives an N (nil: no
// N PRECEDING/FOLLOWING).
func (w *windowGen) bounds(offset func() string) string {
	r := w.r
	// Kinds in order: 0 UNBOUNDED PRECEDING, 1 N PRECEDING, 2 CURRENT ROW, 3 N FOLLOWING,
	// 4 UNBOUNDED FOLLOWING; the start is at most the end, and two offsets of one side are
	// written so that the frame is not empty by construction (MySQL and MariaDB agree on those).
	kinds := []int{0, 2, 4}
	if offset != nil {
		kinds = []int{0, 1, 2, 3, 4}
	}
	start := kinds[r.IntN(len(kinds)-1)] // never UNBOUNDED FOLLOWING
	var ends []int
	for _, k := range kinds {
		if k >= start && k != 0 {
			ends = append(ends, k)
		}
	}
	end := ends[r.IntN(len(ends))]
	var so, eo string
	if start == 1 || start == 3 {
		so = offset()
	}
	if end == 1 || end == 3 {
		eo = offset()
	}
	if start == end && (start == 1 || start == 3) {
		// n PRECEDING AND m PRECEDING: n ≥ m; n FOLLOWING AND m FOLLOWING: n ≤ m.
		a, _ := strconv.ParseFloat(strings.Fields(strings.TrimPrefix(so, "INTERVAL "))[0], 64)
		b, _ := strconv.ParseFloat(strings.Fields(strings.TrimPrefix(eo, "INTERVAL "))[0], 64)
		if (start == 1) == (a < b) {
			so, eo = eo, so
		}
	}
	bound := func(k int, off string) string {
		return []string{"UNBOUNDED PRECEDING", off + " PRECEDING", "CURRENT ROW", off + " FOLLOWING", "UNBOUNDED FOLLOWING"}[k]
	}
	if end == 2 && start != 3 && r.IntN(3) == 0 {
		return bound(start, so) // the short form: ROWS 2 PRECEDING
	}
	return "BETWEEN " + bound(start, so) + " AND " + bound(end, eo)
}

// over writes OVER (spec), sometimes through a named window.
func (w *windowGen) over(s winSpec) (string, string) {
	// MariaDB gets the window written out: it mis-computes some calls over a window that
	// another names (CUME_DIST() OVER (w ORDER BY id DESC) with WINDOW w AS () came out as if
	// unordered).
	d, m := "OVER ("+s.text(false)+")", "OVER ("+s.text(true)+")"
	if !w.inline && w.r.IntN(5) == 0 && d == m {
		name := "nw" + strconv.Itoa(len(w.named)+1)
		if w.r.IntN(2) == 0 || len(s.order) == 0 || s.frame != "" {
			w.named = append(w.named, name+" AS ("+s.text(false)+")")
			return "OVER " + name, m
		}
		// OVER (w ORDER BY …): the named window partitions, the call orders.
		base := winSpec{partition: s.partition}
		w.named = append(w.named, name+" AS ("+base.text(false)+")")
		return "OVER (" + name + " ORDER BY " + strings.Join(s.order, ", ") + ")", m
	}
	return d, m
}

// call writes one window function call over a window built from s.
func (w *windowGen) call(s winSpec) (string, string) {
	r := w.r
	value := func() *Column { return w.anyKey() }
	total := func() {
		if !s.unique {
			id := w.ref(w.t.Column("id"))
			s.order, s.orderM, s.unique = append(s.order, id), append(s.orderM, id), true
		}
	}
	switch r.IntN(14) {
	case 0:
		total()
		o, om := w.over(s)
		return "ROW_NUMBER() " + o, "ROW_NUMBER() " + om
	case 1, 2:
		fn := []string{"RANK()", "DENSE_RANK()", "PERCENT_RANK()", "CUME_DIST()"}[r.IntN(4)]
		o, om := w.over(s)
		return fn + " " + o, w.rankMariaDB(fn, s, om)
	case 3:
		total()
		n := strconv.Itoa(1 + r.IntN(6))
		o, om := w.over(s)
		return "NTILE(" + n + ") " + o, "NTILE(" + n + ") " + om
	case 4, 5:
		total()
		fn := []string{"LAG", "LEAD"}[r.IntN(2)]
		c := value()
		x := w.ref(c)
		o, om := w.over(s)
		switch r.IntN(3) {
		case 0:
			return fn + "(" + x + ") " + o, fn + "(" + x + ") " + om
		case 1:
			n := strconv.Itoa(r.IntN(4))
			return fn + "(" + x + ", " + n + ") " + o, fn + "(" + x + ", " + n + ") " + om
		}
		n := r.IntN(4)
		def := w.p.constant(c.Kind)
		d := fmt.Sprintf("%s(%s, %d, %s) %s", fn, x, n, def.d, o)
		// MariaDB: the default where no row is n before (after).
		has := fmt.Sprintf("ROW_NUMBER() %s > %d", om, n)
		if fn == "LEAD" {
			has = fmt.Sprintf("COUNT(*) OVER (%s) - ROW_NUMBER() %s >= %d", winSpec{partition: s.partition}.text(true), om, n)
		}
		m := fmt.Sprintf("CASE WHEN %s THEN %s(%s, %d) %s ELSE %s END", has, fn, x, n, om, def.m)
		return d, m
	case 6, 7:
		total()
		w.frameFor(&s)
		if strings.HasPrefix(s.frame, "RANGE") && !s.unique {
			// The first or last row of a RANGE frame is one of its peers, any of them: a value
			// function's frame is ROWS, or RANGE over a total order.
			s.frame, s.frameM = "", ""
			s.orderM = append([]string(nil), s.order...)
			total()
		}
		c := value()
		x := w.ref(c)
		o, om := w.over(s)
		switch r.IntN(3) {
		case 0:
			return "FIRST_VALUE(" + x + ") " + o, "FIRST_VALUE(" + x + ") " + om
		case 1:
			return "LAST_VALUE(" + x + ") " + o, "LAST_VALUE(" + x + ") " + om
		}
		n := strconv.Itoa(1 + r.IntN(3))
		mod := ""
		if r.IntN(3) == 0 {
			mod = " FROM FIRST RESPECT NULLS"
		}
		return "NTH_VALUE(" + x + ", " + n + ")" + mod + " " + o, "NTH_VALUE(" + x + ", " + n + ") " + om
	}
	// An aggregate.
	w.frameFor(&s)
	var arg string
	fn := []string{"COUNT", "COUNT", "SUM", "AVG", "MIN", "MAX"}[r.IntN(6)]
	switch {
	case fn == "COUNT" && r.IntN(2) == 0:
		arg = "*"
	case fn == "SUM" || fn == "AVG":
		c := w.keyColumn(Int, Float)
		running := s.unique && (s.frame == "" || strings.HasPrefix(s.frame, "ROWS UNBOUNDED PRECEDING") || strings.HasPrefix(s.frame, "ROWS BETWEEN UNBOUNDED PRECEDING"))
		if c.Kind == Float && !running {
			// A DOUBLE sum depends on the order of its terms (the fixture has ±1e12 beside
			// fractions), and MariaDB slides a frame by subtracting the rows that leave it, which
			// moves the sum off the one MySQL 8 (windowing_use_high_precision, on by default) and
			// the driver compute: DOUBLEs are summed over running frames of a total order only.
			c = w.keyColumn(Int)
		}
		arg = w.ref(c)
	default:
		arg = w.ref(w.anyKey())
	}
	o, om := w.over(s)
	return fn + "(" + arg + ") " + o, fn + "(" + arg + ") " + om
}

// where writes a WHERE clause (sometimes none): a simple filter on a number, a text or a NULL
// test, so that the windows see part of the table (the conditions themselves are the ordinary
// generator's subject).
func (w *windowGen) where() (string, string) {
	r := w.r
	switch r.IntN(4) {
	case 0:
		return "", ""
	case 1:
		c := w.anyKey()
		not := ""
		if r.IntN(2) == 0 {
			not = "NOT "
		}
		return " WHERE " + w.ref(c) + " IS " + not + "NULL", " WHERE " + w.ref(c) + " IS " + not + "NULL"
	case 2:
		if c := w.keyColumn(Text); c != nil {
			v := w.p.constant(Text)
			op := []string{"<", ">=", "<>"}[r.IntN(3)]
			return " WHERE " + w.ref(c) + " " + op + " " + v.d, " WHERE " + w.ref(c) + " " + op + " " + v.m
		}
	}
	c := w.keyColumn(Int)
	v := w.p.constant(Int)
	op := []string{"<", ">", "<>", "="}[r.IntN(4)]
	return " WHERE " + w.ref(c) + " " + op + " " + v.d, " WHERE " + w.ref(c) + " " + op + " " + v.m
}

func (w *windowGen) windowClause() string {
	if len(w.named) == 0 {
		return ""
	}
	return " WINDOW " + strings.Join(w.named, ", ")
}

// plain: SELECT columns, window functions FROM t [WHERE] [WINDOW] ORDER BY … id [LIMIT].
func (w *windowGen) plain() (string, string) {
	id := w.ref(w.t.Column("id"))
	cols := []string{id}
	for range w.r.IntN(3) {
		cols = append(cols, w.ref(w.anyKey()))
	}
	d, m := "SELECT "+strings.Join(cols, ", "), "SELECT "+strings.Join(cols, ", ")
	var calls [][2]string
	for range 1 + w.r.IntN(3) {
		cd, cm := w.call(w.spec(false))
		if composite(cd, cm) {
			// MariaDB computes a window function inside an expression wrongly when the query
			// has windows of other orders (LEAD's CASE beside an NTILE came out shifted): a call
			// MariaDB reads as an expression is the query's only one.
			calls = [][2]string{{cd, cm}}
			break
		}
		calls = append(calls, [2]string{cd, cm})
	}
	for i, c := range calls {
		d += fmt.Sprintf(", %s AS w%d", c[0], i+1)
		m += fmt.Sprintf(", %s AS w%d", c[1], i+1)
	}
	wd, wm := w.where()
	from := " FROM " + quoteName(w.t.Name)
	order := " ORDER BY "
	if w.r.IntN(2) == 0 {
		order += "w1, "
	}
	order += id
	if w.r.IntN(3) == 0 {
		order += " LIMIT " + strconv.Itoa(1+w.r.IntN(20))
	}
	if len(calls) == 1 {
		return d + from + wd + w.windowClause() + order, m + from + wm + order
	}
	// MariaDB computes some windows of a query wrongly when it has three or more of different
	// orders (COUNT(N) OVER (ORDER BY Code DESC, id ROWS …) gave 47 rows where it gives 82 alone
	// or beside one other window): each window is computed in its own query block over the
	// filtered rows, joined by id.
	var b strings.Builder
	b.WriteString("WITH f AS (SELECT *" + from + wm + ") SELECT a.id")
	for i := 1; i < len(cols); i++ {
		fmt.Fprintf(&b, ", a.c%d AS %s", i, cols[i])
	}
	for i := range calls {
		fmt.Fprintf(&b, ", x%d.w%d", i+1, i+1)
	}
	b.WriteString(" FROM (SELECT id")
	for i := 1; i < len(cols); i++ {
		fmt.Fprintf(&b, ", %s AS c%d", cols[i], i)
	}
	b.WriteString(" FROM f) AS a")
	for i, c := range calls {
		fmt.Fprintf(&b, " JOIN (SELECT id, %s AS w%d FROM f) AS x%d ON x%d.id = a.id", c[1], i+1, i+1, i+1)
	}
	return d + from + wd + w.windowClause() + order, b.String() + strings.Replace(order, id, "a.id", 1)
}

// grouped: window functions over the groups of GROUP BY (a running total of groups, a rank of
// their counts).
func (w *windowGen) grouped() (string, string) {
	g := w.ref(w.keyColumn(Text, Int, Bool, Date))
	num := w.keyColumn(Int, Float)
	agg := []string{"COUNT(*)", "SUM(" + w.ref(num) + ")", "MIN(" + w.ref(num) + ")", "MAX(" + w.ref(num) + ")"}[w.r.IntN(4)]
	var calls []string
	switch w.r.IntN(5) {
	case 0:
		calls = append(calls, "SUM("+agg+") OVER (ORDER BY "+g+")")
	case 1:
		calls = append(calls, "RANK() OVER (ORDER BY "+agg+" DESC)")
	case 2:
		calls = append(calls, "ROW_NUMBER() OVER (ORDER BY "+agg+", "+g+")")
	case 3:
		calls = append(calls, "LAG("+g+") OVER (ORDER BY "+g+")")
	default:
		if num.Kind == Float {
			agg = "COUNT(*)" // a sliding DOUBLE sum: see call
		}
		calls = append(calls, "COUNT(*) OVER ()", "AVG("+agg+") OVER (ORDER BY "+g+" ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)")
	}
	sel := "SELECT " + g + ", " + agg + " AS a"
	for i, c := range calls {
		sel += fmt.Sprintf(", %s AS w%d", c, i+1)
	}
	wd, wm := w.where()
	tail := " GROUP BY " + g
	if w.r.IntN(4) == 0 {
		tail += " HAVING COUNT(*) > 1"
	}
	tail += " ORDER BY " + g
	// MariaDB returns grouped rows in the order of the last window rather than ORDER BY's
	// (seen with RANK() OVER (ORDER BY MIN(Qty) DESC) … GROUP BY id ORDER BY id): one row per
	// group, compared as a set.
	w.p.q.Ordered = false
	from := " FROM " + quoteName(w.t.Name)
	return sel + from + wd + tail, sel + from + wm + tail
}

// topN: the first rows of each group, in a derived table or a WITH query.
func (w *windowGen) topN(with bool) (string, string) {
	id := w.ref(w.t.Column("id"))
	s := w.spec(true)
	if len(s.partition) == 0 {
		if c := w.keyColumn(Text, Int, Bool, Date); c != nil {
			s.partition = []string{w.ref(c)}
		}
	}
	fn := []string{"ROW_NUMBER()", "RANK()", "DENSE_RANK()"}[w.r.IntN(3)]
	od, om := w.over(s)
	cols := id
	if len(s.partition) > 0 {
		cols += ", " + s.partition[0] + " AS g"
	}
	innerD := "SELECT " + cols + ", " + fn + " " + od + " AS rn FROM " + quoteName(w.t.Name)
	innerM := "SELECT " + cols + ", " + fn + " " + om + " AS rn FROM " + quoteName(w.t.Name)
	wd, wm := w.where()
	innerD += wd + w.windowClause()
	innerM += wm + w.windowClause()
	k := strconv.Itoa(1 + w.r.IntN(3))
	outer := " WHERE rn <= " + k + " ORDER BY id"
	if with {
		return "WITH d AS (" + innerD + ") SELECT * FROM d" + outer, "WITH d AS (" + innerM + ") SELECT * FROM d" + outer
	}
	return "SELECT * FROM (" + innerD + ") AS d" + outer, "SELECT * FROM (" + innerM + ") AS d" + outer
}

// inOrderBy: a window function as the ORDER BY key (made total by id).
func (w *windowGen) inOrderBy() (string, string) {
	id := w.ref(w.t.Column("id"))
	s := w.spec(false)
	cd, cm := w.call(s)
	sel := "SELECT " + id + ", " + w.ref(w.anyKey()) + " FROM " + quoteName(w.t.Name)
	wd, wm := w.where()
	tail := w.windowClause() + " ORDER BY "
	dir := ""
	if w.r.IntN(2) == 0 {
		dir = " DESC"
	}
	lim := ""
	if w.r.IntN(2) == 0 {
		lim = " LIMIT " + strconv.Itoa(1+w.r.IntN(10))
	}
	return sel + wd + tail + cd + dir + ", " + id + lim, sel + wm + tail + cm + dir + ", " + id + lim
}

// composite reports a call that MariaDB gets as an expression of several window functions.
func composite(d, m string) bool {
	return strings.HasPrefix(m, "CASE") || strings.HasPrefix(m, "COALESCE") || strings.HasPrefix(m, "((COUNT")
}

// rankMariaDB writes a rank function for MariaDB, which refuses RANK and its kin without ORDER BY
// (error 4018; MySQL ranks every row first: they are all peers) and gives PERCENT_RANK and
// CUME_DIST as a DECIMAL of 10 digits where MySQL gives a DOUBLE: those two are computed from
// counts in DOUBLE, as MySQL computes them.
func (w *windowGen) rankMariaDB(fn string, s winSpec, om string) string {
	part := "OVER (" + winSpec{partition: s.partition}.text(true) + ")"
	switch {
	case fn == "CUME_DIST()":
		// The rows up to the current row's last peer (the default frame), over the partition's.
		return "((COUNT(*) " + om + ") + 0e0) / (COUNT(*) " + part + ")"
	case len(s.order) == 0 && fn == "PERCENT_RANK()":
		return "(0e0 + 0)" // an expression, not ORDER BY's position
	case len(s.order) == 0:
		return "(0 + 1)"
	case fn == "PERCENT_RANK()":
		return "COALESCE((RANK() " + om + " - 1e0) / NULLIF(COUNT(*) " + part + " - 1, 0), 0e0)"
	}
	return fn + " " + om
}
