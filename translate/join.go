package translate

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Joins. A FROM with several tables (JOIN … ON/USING, LEFT JOIN, CROSS JOIN, commas) is planned as
// one scan per table — each with the conditions that concern that table alone pushed into its own
// request — and a left-deep list of join steps that the engine runs as hash joins on the equality
// keys (a linked-record field joins on each id it holds). Rows of a join hold one record per table
// (Row.Sides); a column compiled in a join reads its table's record (expr.tab).

// Join is the tables of a FROM clause and how the engine joins them.
type Join struct {
	Tables []JoinTable // in FROM's order: Row.Sides[i] is Tables[i]'s record
	Steps  []JoinStep  // Steps[0] reads the first table; each later step joins one more
}

// JoinTable is one table of a join: its scan (request and local re-check, as for a lone table).
type JoinTable struct {
	Alias string
	Plan  *Plan
}

// JoinStep joins the rows so far with the rows of one table.
type JoinStep struct {
	Table int    // index in Join.Tables
	Kind  string // "first" (Steps[0]), "inner", "left", "right" (every row of the table is kept) or "cross"
	// Keys: equality conditions between the rows so far (Outer) and the table's rows (Inner). The
	// engine hashes the table's rows by Inner and probes with Outer.
	Keys []JoinKey
	On   *Expr  // the rest of the join condition, on the joined row; nil: none
	SQL  string // the join as written, for EXPLAIN and messages
	// Bind, when set, pushes this step's keys into the first table's request (Steps[1] only).
	Bind *Bind
	// BindInner, when set (and Bind is not), pushes the keys of the rows so far into this step's
	// table's request: the rows so far are read first (inner and LEFT JOIN steps).
	BindInner *Bind
	// Group: the step joins the rows of a parenthesised join (its steps, inner joins, the first
	// "first") rather than one table's; Table is its first table. Its rows hold Sides.
	Group []JoinStep
}

// JoinKey is one equality of a join: Outer on the rows so far, Inner on the joined table's rows.
// A side that is a linked-record field stands for each record id it holds.
type JoinKey struct {
	Outer, Inner         *Expr
	OuterLink, InnerLink bool
}

// OuterValues are the key values of a joined row (several for a link; NULLs left out).
func (k JoinKey) OuterValues(r *Row) ([]any, error) { return keyValues(k.Outer, k.OuterLink, r) }

// InnerValues are the key values of a row of the joined table.
func (k JoinKey) InnerValues(r *Row) ([]any, error) { return keyValues(k.Inner, k.InnerLink, r) }

// InnerColumn names the table column Inner reads, when it reads one and nothing else (the
// record id, or a field, as a link or as a value): two keys with the same name give every record
// the same InnerValues, so an index of a table's rows by one serves the other (a source that
// holds a table's rows shares it between statements: engine.Indexer). ok is false for any other
// expression.
func (k JoinKey) InnerColumn() (name string, ok bool) {
	e := k.Inner.e
	switch {
	case e.kind == exRecordID:
		return "id", true
	case e.kind == exField && e.field != nil:
		// The field's id, name, type and how the key reads it decide its values.
		return fmt.Sprintf("field %s %q %s link=%t %+v", e.field.ID, e.field.Name, e.field.Type, k.InnerLink, e.info), true
	}
	return "", false
}

func keyValues(x *Expr, link bool, r *Row) ([]any, error) {
	if link {
		if cell, ok := x.e.linkCell(r); ok {
			return cell, nil // the ids as the cell holds them: no copy per row of a join
		}
		ids, _ := x.e.linkIDs(r)
		out := make([]any, len(ids))
		for i, id := range ids {
			out[i] = id
		}
		return out, nil
	}
	v, err := x.e.eval(r)
	if err != nil || v == nil {
		return nil, err
	}
	return []any{v}, nil
}

// joinSide is one table of a join as names resolve in it.
type joinSide struct {
	table    *Table
	alias    string
	view     string
	nullable bool // the right side of a LEFT JOIN: its columns may be NULL

	// How the table joins the tables before it, as written: "first", "inner", "left", "right" or
	// "cross"; its USING columns (NATURAL: the columns in common, found by coalesce); item: the
	// first table of its FROM item (a comma-separated one, or a parenthesised join), which USING
	// and NATURAL look into.
	join    string
	using   []string
	natural bool
	item    int
	// database: the table was named db.table without an alias; its alias becomes db.table when
	// another base's table of the same name joins it (MySQL tells them apart by database).
	database bool
}

// joinColumn resolves a column in a join: alias.column names one table; a bare name must belong to
// exactly one of them (MySQL's "ambiguous" error otherwise).
func (s *scope) joinColumn(c *sqlparser.ColName) (*expr, error) {
	name := c.Name.String()
	if q := c.Qualifier; !q.IsEmpty() {
		if !q.Qualifier.IsEmpty() {
			return nil, unknownColumnf("'%s': name a column as alias.column in a join", sqlparser.String(c))
		}
		i := s.sideIndex(q.Name.String())
		if i < 0 {
			return nil, unknownColumnf("'%s': no table or alias %q in FROM (%s)", sqlparser.String(c), q.Name.String(), s.sideNames())
		}
		return s.sideColumn(i, name)
	}
	var found *expr
	var owners []string
	var ownerIdx []int
	var firstErr error
	for i := range s.sides {
		e, err := s.sideColumn(i, name)
		if err != nil {
			if firstErr == nil && strings.Contains(err.Error(), "ambiguous") {
				firstErr = err
			}
			continue
		}
		if found == nil {
			found = e
		}
		owners = append(owners, s.sides[i].alias)
		ownerIdx = append(ownerIdx, i)
	}
	if len(owners) > 1 {
		if x, ok := s.coalescedColumn(name, ownerIdx); ok {
			return x, nil
		}
	}
	switch {
	case len(owners) > 1:
		return nil, fmt.Errorf("translate: column '%s' is ambiguous: tables %s all have it; qualify it (%s.%s)",
			name, strings.Join(owners, " and "), owners[0], name)
	case found == nil && firstErr != nil:
		return nil, firstErr
	case found == nil:
		return nil, unknownColumnf("'%s': none of the tables in FROM (%s) has it", name, s.sideNames())
	}
	return found, nil
}

func (s *scope) sideIndex(alias string) int {
	for i, side := range s.sides {
		if side.alias == alias {
			return i
		}
	}
	for i, side := range s.sides {
		if strings.EqualFold(side.alias, alias) {
			return i
		}
	}
	return -1
}

func (s *scope) sideNames() string {
	var names []string
	for _, side := range s.sides {
		if side.alias != side.table.Name {
			names = append(names, side.table.Name+" AS "+side.alias)
		} else {
			names = append(names, side.table.Name)
		}
	}
	return strings.Join(names, ", ")
}

// sideColumn resolves a column of table i of the join.
func (s *scope) sideColumn(i int, name string) (*expr, error) {
	side := s.sides[i]
	sub := &scope{table: side.table, alias: side.alias}
	e, err := sub.lookupColumn(name)
	if err != nil {
		return nil, err
	}
	return s.onSide(i, e), nil
}

func (s *scope) onSide(i int, e *expr) *expr {
	e.tab = i + 1
	if s.sides[i].nullable {
		e.nullable = true
	}
	if e.sql != "" {
		e.sql = s.sides[i].alias + "." + e.sql
	}
	return e
}

// sideStar is the columns of table i, for * and alias.*.
func (s *scope) sideStar(i int) []*expr {
	sub := &scope{table: s.sides[i].table, alias: s.sides[i].alias}
	cols := sub.star()
	for _, e := range cols {
		name := e.sql
		s.onSide(i, e)
		e.sql = name // the output column is named as the field, as MySQL names t.* columns
	}
	return cols
}

// isJoin reports a FROM clause with more than one table.
func isJoin(from sqlparser.TableExprs) bool {
	if len(from) > 1 {
		return true
	}
	if len(from) == 1 {
		switch from[0].(type) {
		case *sqlparser.JoinTableExpr, *sqlparser.ParenTableExpr:
			return true
		}
	}
	return false
}
