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
	names := func(i int) []string {
		var out []string
		for _, e := range s.sideStar(i) {
			out = append(out, e.sql)
		}
		return out
	}
	single := func(i int) []joinEntry {
		var out []joinEntry
		for _, n := range names(i) {
			out = append(out, joinEntry{name: n, table: i, column: n, tables: []int{i}})
		}
		return out
	}
	var entries []joinEntry
	for i, side := range jp.sides {
		right := single(i)
		if i == 0 || (!side.natural && len(side.using) == 0) {
			entries = append(entries, right...)
			continue
		}
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
			cols = nil
			for _, r := range right {
				for _, l := range left {
					if strings.EqualFold(l.name, r.name) {
						cols = append(cols, r.name)
						break
					}
				}
			}
		}
		find := func(list []joinEntry, name, where string) (int, error) {
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
		usedL, usedR := map[int]bool{}, map[int]bool{}
		var common []joinEntry
		var order []int // each common column's position on the side whose order it takes
		for _, c := range cols {
			li, err := find(left, c, "the left side of the join")
			if err != nil {
				return err
			}
			ri, err := find(right, c, side.alias)
			if err != nil {
				return err
			}
			if usedL[li] {
				return fmt.Errorf("translate: duplicate column name '%s' in USING", c)
			}
			usedL[li], usedR[ri] = true, true
			l, r := left[li], right[ri]
			le, err := s.sideColumn(l.table, l.column)
			if err != nil {
				return err
			}
			re, err := s.sideColumn(i, r.column)
			if err != nil {
				return err
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
		// The common columns come in the order of the side whose rows are all kept (MariaDB and
		// MySQL: the left side's, the joined table's for a RIGHT JOIN), not USING's.
		idx := make([]int, len(common))
		for j := range idx {
			idx[j] = j
		}
		slices.SortStableFunc(idx, func(a, b int) int { return order[a] - order[b] })
		sortedCommon := make([]joinEntry, len(common))
		for j, k := range idx {
			sortedCommon[j] = common[k]
		}
		common = sortedCommon
		var restL, restR []joinEntry
		for j, e := range left {
			if !usedL[j] {
				restL = append(restL, e)
			}
		}
		for j, e := range right {
			if !usedR[j] {
				restR = append(restR, e)
			}
		}
		if side.join == "right" {
			// MySQL reads a RIGHT JOIN as the swapped LEFT JOIN: the common columns, the joined
			// table's other columns, then the left side's.
			entries = append(append(append(outside, common...), restR...), restL...)
		} else {
			entries = append(append(append(outside, common...), restL...), restR...)
		}
	}
	jp.entries = entries
	return nil
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
