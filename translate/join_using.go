package translate

import (
	"fmt"
	"slices"
	"strings"
)

// USING and NATURAL: the columns they coalesce, for SELECT * and bare names, and the equalities they add.

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
	var entries []joinEntry
	for i, side := range jp.sides {
		right := s.sideEntries(i)
		if i == 0 || (!side.natural && len(side.using) == 0) {
			entries = append(entries, right...)
			continue
		}
		var err error
		if entries, err = s.coalesceStep(jp, i, entries, right); err != nil {
			return err
		}
	}
	jp.entries = entries
	return nil
}

// sideEntries is the columns of table i, each its own entry.
func (s *scope) sideEntries(i int) []joinEntry {
	var out []joinEntry
	for _, e := range s.sideStar(i) {
		out = append(out, joinEntry{name: e.sql, table: i, column: e.sql, tables: []int{i}})
	}
	return out
}

// coalesceStep merges the columns of table i (right), joined with USING or NATURAL, into the
// entries so far, and adds the equalities of its common columns to jp.usingConds.
func (s *scope) coalesceStep(jp *joinPlanner, i int, entries, right []joinEntry) ([]joinEntry, error) {
	side := jp.sides[i]
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
		cols = naturalColumns(left, right)
	}
	usedL, usedR := map[int]bool{}, map[int]bool{}
	var common []joinEntry
	var order []int // each common column's position on the side whose order it takes
	for _, c := range cols {
		li, err := findEntry(left, c, "the left side of the join")
		if err != nil {
			return nil, err
		}
		ri, err := findEntry(right, c, side.alias)
		if err != nil {
			return nil, err
		}
		if usedL[li] {
			return nil, fmt.Errorf("translate: duplicate column name '%s' in USING", c)
		}
		usedL[li], usedR[ri] = true, true
		l, r := left[li], right[ri]
		le, err := s.sideColumn(l.table, l.column)
		if err != nil {
			return nil, err
		}
		re, err := s.sideColumn(i, r.column)
		if err != nil {
			return nil, err
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
	common = inSideOrder(common, order)
	restL, restR := unused(left, usedL), unused(right, usedR)
	if side.join == "right" {
		// MySQL reads a RIGHT JOIN as the swapped LEFT JOIN: the common columns, the joined
		// table's other columns, then the left side's.
		return append(append(append(outside, common...), restR...), restL...), nil
	}
	return append(append(append(outside, common...), restL...), restR...), nil
}

// naturalColumns is what NATURAL joins on: the joined table's columns the left side also has.
func naturalColumns(left, right []joinEntry) []string {
	var cols []string
	for _, r := range right {
		for _, l := range left {
			if strings.EqualFold(l.name, r.name) {
				cols = append(cols, r.name)
				break
			}
		}
	}
	return cols
}

// findEntry is the one entry of list named name (where: the side, for the error).
func findEntry(list []joinEntry, name, where string) (int, error) {
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

// inSideOrder puts the common columns in the order of the side whose rows are all kept (MariaDB
// and MySQL: the left side's, the joined table's for a RIGHT JOIN), not USING's: order holds each
// one's position there.
func inSideOrder(common []joinEntry, order []int) []joinEntry {
	idx := make([]int, len(common))
	for j := range idx {
		idx[j] = j
	}
	slices.SortStableFunc(idx, func(a, b int) int { return order[a] - order[b] })
	out := make([]joinEntry, len(common))
	for j, k := range idx {
		out[j] = common[k]
	}
	return out
}

// unused is the entries not in used, in order.
func unused(list []joinEntry, used map[int]bool) []joinEntry {
	var out []joinEntry
	for j, e := range list {
		if !used[j] {
			out = append(out, e)
		}
	}
	return out
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
