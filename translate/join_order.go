package translate

import (
	"fmt"
	"strings"
)

// The order in which the tables of a join are read (the left-deep list of steps).

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
