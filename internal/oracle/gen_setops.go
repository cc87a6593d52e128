package oracle

import (
	"strconv"
	"strings"
)

// addSetOps writes the query anew as two to four SELECTs of the same columns of one table, each
// with its own WHERE, combined by UNION, INTERSECT and EXCEPT, each [ALL|DISTINCT], sometimes an
// operand in parentheses (a chain of its own), sometimes ORDER BY every column (by position) and
// LIMIT on the whole: MySQL 8.0.31's precedence (INTERSECT before UNION and EXCEPT, left to
// right), which MariaDB 10.11 shares.
//
// Not yet in the default mix: MariaDB 10.11 never answers some chains of INTERSECT ALL and EXCEPT
// ALL (seed 136 of -oracle.only='INTERSECT EXCEPT'; 14 of 51 chunks of 100 seeds from 1 hung),
// and in 3,700 answered queries 3 differ (seeds 396, 4042, 4539: MariaDB returns more rows, for
// chains mixing INTERSECT ALL/EXCEPT ALL with DISTINCT operators), not yet explained.
func addSetOps(g *Generator, p *parts) {
	p.startRebuild()
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
	var ud, um strings.Builder
	if r.IntN(5) != 0 {
		w := p.cond(2)
		ud.WriteString(" WHERE " + w.d)
		um.WriteString(" WHERE " + w.m)
	}
	for range 1 + r.IntN(3) {
		op := setOp()
		ud.WriteString(op)
		um.WriteString(op)
		if r.IntN(4) == 0 { // a parenthesized chain of two
			ad, am := operand()
			bd, bm := operand()
			op2 := setOp()
			ud.WriteString("(" + ad + op2 + bd + ")")
			um.WriteString("(" + am + op2 + bm + ")")
			continue
		}
		od, om := operand()
		ud.WriteString(od)
		um.WriteString(om)
	}
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
