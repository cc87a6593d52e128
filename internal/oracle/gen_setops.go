package oracle

import (
	"strconv"
	"strings"
)

// addSetOps writes the query anew as two to four SELECTs of the same columns of one table, each
// with its own WHERE, combined by UNION, INTERSECT and EXCEPT, each [ALL|DISTINCT], sometimes an
// operand in parentheses (a chain of its own), sometimes ORDER BY every column (by position) and
// LIMIT on the whole: MySQL 8.0.31's precedence (INTERSECT before UNION and EXCEPT, left to
// right), which the driver's side leaves to the driver to read.
//
// MariaDB's side spells the precedence out, every operation in parentheses, and reads the chain
// from a derived table: SELECT * FROM (((a INTERSECT ALL b) EXCEPT ALL c) UNION d) AS chain.
// MariaDB 10.11 answers some chains written as MySQL reads them wrongly, in two ways:
//
//   - without the parentheses, a chain holding INTERSECT ALL, then EXCEPT ALL, then a DISTINCT
//     operator keeps rows the INTERSECT ALL removed: SELECT 1 FROM People INTERSECT ALL SELECT 1
//     FROM People WHERE 1=0 EXCEPT ALL SELECT 3 UNION DISTINCT SELECT 2 is {1, 2} there, {2} in
//     MySQL (seeds 396, 4042 and 4539 of -oracle.only='INTERSECT EXCEPT'); in parentheses it is {2};
//   - at the statement's top level, (a INTERSECT ALL b) EXCEPT ALL c loses a row that the same
//     query in a derived table keeps (seed 136: a value 14 times in a, 12 in b and 11 in c is
//     once in MySQL's answer, in the derived table's, and the driver's, and missing from
//     MariaDB's); written without the parentheses, MariaDB never answers that query.
//
// The test skips a query MariaDB does not answer within its timeout (Server.Answer) and lists
// its seed.
func addSetOps(g *Generator, p *parts) {
	p.startRebuild()
	p.q.tag(TagMySQLGrammar) // INTERSECT and EXCEPT
	r := p.r
	var cols []e
	seen := map[*Column]bool{}
	for range 1 + r.IntN(3) {
		// Each column once: MariaDB refuses a set operation over two columns of one name.
		if c := p.anyColumn(true); !seen[c] {
			seen[c] = true
			cols = append(cols, p.column(c))
		}
	}
	list := func(side func(e) string) string {
		var b strings.Builder
		for i, c := range cols {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(side(c))
		}
		return b.String()
	}
	d, m := list(func(x e) string { return x.d }), list(func(x e) string { return x.m })
	// operand is one SELECT (its WHERE, sometimes none); the first is the query's own parts.
	operand := func() (string, string) {
		sd, sm := "SELECT "+d+" FROM "+p.from, "SELECT "+m+" FROM "+p.fromM
		if r.IntN(5) != 0 {
			w := p.cond(2)
			sd += " WHERE " + w.d
			sm += " WHERE " + w.m
		}
		return sd, sm
	}
	setOp := func() string {
		op := []string{" UNION", " INTERSECT", " EXCEPT"}[r.IntN(3)]
		return op + []string{"", " ALL", " DISTINCT"}[r.IntN(3)] + " "
	}
	p.items = cols
	var ud strings.Builder
	var firstM string // the first SELECT's WHERE on MariaDB's side
	if r.IntN(5) != 0 {
		w := p.cond(2)
		ud.WriteString(" WHERE " + w.d)
		firstM = " WHERE " + w.m
	}
	var ops, restM []string // the chain's operators and, on MariaDB's side, its later operands
	for range 1 + r.IntN(3) {
		op := setOp()
		ud.WriteString(op)
		ops = append(ops, op)
		if r.IntN(4) == 0 { // a parenthesized chain of two
			ad, am := operand()
			bd, bm := operand()
			op2 := setOp()
			ud.WriteString("(" + ad + op2 + bd + ")")
			restM = append(restM, "("+am+op2+bm+")")
			continue
		}
		od, om := operand()
		ud.WriteString(od)
		restM = append(restM, om)
	}
	// MariaDB's side: the chain in a derived table (SELECT * FROM (chain) AS chain). The first
	// SELECT is render's (SELECT … FROM p.fromM), so what opens before it goes before its SELECT
	// (p.withM) and the rest after its FROM.
	open, rest := groupedChain(firstM, ops, restM)
	p.withM = "SELECT * FROM (" + open
	um := strings.Builder{}
	um.WriteString(rest + ") AS chain")
	orderable := true
	for _, c := range cols {
		orderable = orderable && c.k != JSON
	}
	if orderable && r.IntN(2) == 0 {
		var order []string
		for i := range cols {
			order = append(order, strconv.Itoa(i+1)+[]string{"", " DESC"}[r.IntN(2)])
		}
		tail := " ORDER BY " + strings.Join(order, ", ")
		if r.IntN(2) == 0 {
			tail += " LIMIT " + strconv.Itoa(1+r.IntN(20))
		}
		ud.WriteString(tail)
		um.WriteString(tail)
		p.q.Ordered = true
	}
	// The first SELECT's WHERE and the rest follow its FROM (render writes nothing after it: no
	// WHERE, ORDER BY or LIMIT of its own), each side in its own form.
	p.from += ud.String()
	p.fromM += um.String()
}

// groupedChain writes a chain of set operations, its first operand (first: the text after that
// SELECT's FROM table) followed by ops[i] rest[i], with every operation in parentheses in MySQL
// 8.0.31's precedence — INTERSECT first, then UNION and EXCEPT from left to right — as the
// parentheses that open before the first operand and the text after its table.
func groupedChain(first string, ops, rest []string) (open, after string) {
	const mark = "\x00"
	term, whole, pending := mark+first, "", ""
	for i, op := range ops {
		if strings.HasPrefix(op, " INTERSECT") {
			term = "(" + term + op + rest[i] + ")"
			continue
		}
		if whole == "" {
			whole = term
		} else {
			whole = "(" + whole + pending + term + ")"
		}
		pending, term = op, rest[i]
	}
	if whole == "" {
		whole = term
	} else {
		whole = whole + pending + term // the outermost operation needs no parentheses
	}
	open, after, _ = strings.Cut(whole, mark)
	return open, after
}
