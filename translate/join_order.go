package translate

import (
	"fmt"
	"slices"
	"strings"
)

// The order in which the tables of a join are read: the left-deep list of steps. FROM's order is
// kept unless it would join a table that no condition connects to the tables before it while a
// later table of the same run of inner and comma joins is connected (orderInnerRuns), and the
// first two tables of an inner join are swapped when only the first is filtered, so that its keys
// narrow the other's request (orderFirstTwo). The rows' Sides keep FROM's order whatever the
// order of the steps, so the result is the same (row order aside, which only ORDER BY fixes).

// innerRunStep reports a step that a run of inner and comma joins may move: one table joined by
// an inner, cross or comma join (or the first).
func innerRunStep(st pendingStep) bool {
	return st.group == nil && (st.kind == "first" || st.kind == "inner" || st.kind == "cross")
}

// orderInnerRuns reorders each run of consecutive inner and comma joins so that each table, when
// one can, is joined by an equality with the tables so far (a hash join), else by some condition
// on them, rather than as a cross product: FROM t1, t2, t3 WHERE t1.a = t3.a AND t2.a = t3.b
// joins t1, t3, t2. Within a class FROM's order wins, so a FROM already connected keeps its order
// (and its bind join). The first table stays first. Joins of one run commute, LEFT and RIGHT JOIN
// steps keep their places; nothing moves when a RIGHT JOIN follows (a WHERE condition on the
// tables before it is checked after it, so it cannot connect them) or STRAIGHT_JOIN asks for
// FROM's order.
func (p *joinPlacement) orderInnerRuns(where *expr) {
	jp := p.jp
	if jp.straight || slices.ContainsFunc(jp.steps, func(st pendingStep) bool { return st.kind == "right" }) {
		return
	}
	if slices.ContainsFunc(jp.sides, func(s joinSide) bool { return s.table.JSONTable != nil }) {
		return // a JSON table reads the tables to its left in FROM: FROM's order stays
	}
	joined := uint64(0)
	for start := 0; start < len(jp.steps); {
		end := start
		for end < len(jp.steps) && innerRunStep(jp.steps[end]) {
			end++
		}
		if end-start > 1 {
			conds := conjuncts(where)
			for i := start; i < end; i++ {
				conds = append(conds, conjuncts(p.ons[i])...)
			}
			p.orderRun(start, end, joined, conds)
		}
		end = max(end, start+1)
		for i := start; i < end; i++ {
			joined |= p.stepMask(i)
		}
		start = end
	}
}

// orderRun orders the steps start..end-1 (a run of inner and comma joins after the tables of
// joined), choosing each time the first step in FROM's order that an equality joins to the tables
// so far, else the first that a condition on them both joins, else the next as written.
func (p *joinPlacement) orderRun(start, end int, joined uint64, conds []*expr) {
	jp := p.jp
	left := make([]int, 0, end-start)
	for i := start; i < end; i++ {
		left = append(left, i)
	}
	var order []int
	why := map[int]string{} // a step taken before others: what joins it to the tables so far
	take := func(k int, reason string) {
		why[left[k]] = reason
		order = append(order, left[k])
		joined |= p.stepMask(left[k])
		left = slices.Delete(left, k, k+1)
	}
	if start == 0 {
		take(0, "")
	}
	for len(left) > 0 {
		keyed, linked := -1, -1
		for k, i := range left {
			t := p.stepMask(i)
			for _, c := range conds {
				if _, ok := keyOf(c, t, joined); ok && keyed < 0 {
					keyed = k
				}
				if m := c.tabs(); m&t != 0 && m&joined != 0 && m&^(t|joined) == 0 && linked < 0 {
					linked = k
				}
			}
		}
		switch {
		case keyed >= 0:
			take(keyed, "an equality")
		case linked >= 0:
			take(linked, "a condition")
		default:
			take(0, "")
		}
	}
	steps := slices.Clone(jp.steps)
	ons := slices.Clone(p.ons)
	gons := slices.Clone(p.gons)
	for k, i := range order {
		at := start + k
		steps[at], ons[at], gons[at] = jp.steps[i], p.ons[i], p.gons[i]
		if i != at && at > 0 && i > at {
			// moved ahead of the tables it skipped: say why in EXPLAIN
			var skipped []string
			for _, j := range order[k+1:] {
				if j < i {
					skipped = append(skipped, jp.sides[jp.steps[j].table].alias)
				}
			}
			if len(skipped) > 0 {
				steps[at].sql = fmt.Sprintf("%s (joined before %s: %s joins it to the tables so far)",
					strings.TrimSpace(steps[at].sql), strings.Join(skipped, ", "), why[i])
			}
		}
		if at == 0 {
			steps[at].kind = "first"
		} else if steps[at].kind == "first" {
			steps[at].kind = "cross" // joinOf makes it inner when a condition joins it
		}
	}
	jp.steps, p.ons, p.gons = steps, ons, gons
}

// orderFirstTwo chooses which of the first two tables of an inner join is read first: the joined
// table (step 1) is read first and its keys are pushed into the other's request, so when only the
// first table has conditions of its own (a filtered, likely smaller read), the two are swapped.
func (p *joinPlacement) orderFirstTwo(where *expr) {
	jp := p.jp
	if len(jp.steps) < 2 || (jp.steps[1].kind != "inner" && jp.steps[1].kind != "cross") {
		return
	}
	a, b := jp.steps[0].table, jp.steps[1].table
	if jp.sides[a].table.JSONTable != nil || jp.sides[b].table.JSONTable != nil {
		return // a JSON table's rows are made, not read: nothing to push either way
	}
	filtered := func(t int) bool {
		for _, c := range append(append(conjuncts(where), conjuncts(p.ons[0])...), conjuncts(p.ons[1])...) {
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
	p.ons[0], p.ons[1] = p.ons[1], p.ons[0]
}
