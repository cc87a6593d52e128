package translate

import (
	"math"
	"reflect"
	"slices"
	"time"

	"github.com/airsql/airsql/sqlvalue"
)

// Plan is one table's scan: the one request the service answers, and what is left to do locally
// (a Query's Scan, a join's table, the search of an UPDATE or DELETE).
//
// Running it (the engine's scan operator): if NoRows or Limit == 0, send nothing. If
// RecordIDs is non-nil, GET each id (an id the service does not know is no row, not an error);
// otherwise list with Request (MaxRecords 0 means none). Call Keep on every row (always true when
// Exact). If SortLocally, collect the kept rows and SortRows them. Then stop after Limit rows (-1:
// all).
//
// A Plan is not modified after the planner returns it, and its methods are safe for concurrent use.
type Plan struct {
	Table     *Table
	Columns   []Column // output columns, known before any request
	Request   Request  // the one list request
	RecordIDs []string // non-nil: fetch these records by id instead of listing
	Exact     bool     // the request selects exactly the SQL rows; otherwise Keep re-checks locally
	Limit     int      // -1: none; applied locally after Keep

	Split       *Split  // not nil: a second request, for the rows whose first ORDER BY key is NULL (nullsplit.go)
	Order       []Order // the SQL ORDER BY
	SortLocally bool    // the service's order may differ from SQL's: sort the kept rows with SortRows
	NoRows      bool    // the WHERE clause is never TRUE: no request is needed

	where   *expr   // nil: no WHERE
	outputs []*expr // what is evaluated on the scan's rows: their fields are requested (neededFields)
	order   []orderKey
}

// Request is the list request: view, filterByFormula, fields[], sort and maxRecords (0: none).
type Request struct {
	View, Formula string
	Fields        []string
	Sort          []Sort
	MaxRecords    int
}

// Sort is one sort key of the request, by field name.
type Sort struct {
	Field string
	Desc  bool
}

// Order is one key of the SQL ORDER BY, by the column's SQL name.
type Order struct {
	Column string
	Desc   bool
}

type orderKey struct {
	e    *expr
	desc bool
}

// Row is one record as the service returns it, fields keyed by name in the API's JSON form (float64
// or json.Number, string, bool, []any, map[string]any).
//
// Values holds the values of a row the engine computed rather than read (group keys and aggregates
// after GROUP BY, output columns before a local sort); expressions compiled for such rows read them
// by position.
type Row struct {
	ID          string
	CreatedTime time.Time
	Fields      map[string]any
	// Cells, when Layout is set, are the record's cells by Layout's column, read before Fields (which
	// then holds only what the layout lacks, or nil, or the same cells again): a record read many
	// times (the replica's) has its cells read from one small map shared by every row of its table
	// and a slice, rather than from a map of its own per row (BenchmarkDashboardReplicaQueries), and
	// a scan's records are decoded straight into cells (transport's IterateCells), with no map at
	// all. Read cells through cell, or FieldMap where a map is needed; code that changes Fields
	// must clear Layout.
	Cells  []any
	Layout *Layout
	Values []any
	// Sides: a joined row holds one record per table of the join, in FROM's order (nil: the NULL
	// row of an outer join). A scan's row has none.
	Sides []*Row
	// Window: the results of the query's window functions for this row (Query.Windows), set by
	// the engine's window operator.
	Window []any
	// Env is the run the row belongs to, where its expressions read what subqueries found (the
	// engine sets it on the rows it evaluates); nil outside a run.
	Env *Env
}

// Column describes one output column.
type Column struct {
	Name         string
	DatabaseType string // "TEXT", "INT64", "FLOAT64", "BOOL", "DATE", "DATETIME", "JSON"
	ScanType     reflect.Type
	Nullable     bool
	Field        *Field // nil for id, createdTime and expressions
}

// Keep reports whether the row satisfies the WHERE clause with SQL semantics (UNKNOWN is not kept).
// For an exact plan every returned row is kept without looking at it: its request may not even fetch
// the fields the WHERE clause reads.
func (p *Plan) Keep(r Row) (bool, error) {
	if p.where == nil || p.Exact {
		return true, nil
	}
	v, err := p.where.eval(&r)
	if err != nil {
		return false, err
	}
	return v == true, nil
}

// driverValue fits a value to its column's type.
func driverValue(t sqlType, v any) any {
	switch t {
	case typeInt, typeCond:
		if f, ok := v.(float64); ok {
			// A fraction in a precision-0 number: the service shows it rounded, and so do we.
			r := math.Round(f)
			if math.Abs(r) < 1<<63 {
				return int64(r)
			}
			return f
		}
		if b, ok := v.(bool); ok {
			return sqlvalue.BoolInt(b)
		}
	case typeFloat:
		if n, ok := v.(int64); ok {
			return float64(n)
		}
	case typeText:
		if v != nil {
			if _, ok := v.(string); !ok {
				return sqlvalue.TextOf(v)
			}
		}
	}
	return v
}

// Compare compares two rows by the SQL ORDER BY: NULL first when ascending, numbers numerically, text
// by code point, times chronologically.
func (p *Plan) Compare(a, b Row) int {
	for _, k := range p.order {
		va, _ := k.e.eval(&a)
		vb, _ := k.e.eval(&b)
		if c := k.compare(va, vb); c != 0 {
			return c
		}
	}
	return 0
}

// SortRows sorts rows by the SQL ORDER BY, stably, as Compare orders them. Each row's keys are
// evaluated once, not at each of the n·log n comparisons: evaluating a date cell parses its text, a
// list cell is written out as JSON.
func (p *Plan) SortRows(rows []Row) {
	n := len(p.order)
	if n == 0 || len(rows) < 2 {
		return
	}
	type keyedRow struct {
		row  Row
		keys []any // one value for each of p.order
	}
	keyed := make([]keyedRow, len(rows))
	keys := make([]any, len(rows)*n)
	for i := range rows {
		rk := keys[i*n : (i+1)*n : (i+1)*n]
		for j, k := range p.order {
			rk[j], _ = k.e.eval(&rows[i])
		}
		keyed[i] = keyedRow{row: rows[i], keys: rk}
	}
	slices.SortStableFunc(keyed, func(a, b keyedRow) int {
		for j, k := range p.order {
			if c := k.compare(a.keys[j], b.keys[j]); c != 0 {
				return c
			}
		}
		return 0
	})
	for i := range keyed {
		rows[i] = keyed[i].row
	}
}

// compare orders two values of the key: NULL first when ascending (last when descending), the rest
// by sqlvalue.Compare, or CompareNames for a case-insensitive field.
func (k orderKey) compare(va, vb any) int {
	var c int
	if va != nil && vb != nil && k.e != nil && caseInsensitive(k.e) {
		c = sqlvalue.CompareNames(va, vb)
	} else {
		c = sqlvalue.CompareSQL(va, vb)
	}
	if k.desc {
		c = -c
	}
	return c
}

// columnFor describes an output expression.
func columnFor(name string, e *expr) Column {
	nullable := e.nullable || e.typ == typeNull
	c := Column{Name: name, DatabaseType: e.typ.String(), ScanType: scanType(e.typ, nullable), Nullable: nullable}
	if e.kind == exField {
		c.Field = e.field
	}
	return c
}

// Layout is the columns of Row.Cells by field name, shared by the rows of one table.
type Layout struct{ cols map[string]int }

// NewLayout is the layout of cells in the order of names.
func NewLayout(names []string) *Layout {
	l := &Layout{cols: make(map[string]int, len(names))}
	for i, n := range names {
		l.cols[n] = i
	}
	return l
}

// ReturnedFields is the fields a list request of the table returns, in an order to lay their cells
// out in: its Fields, or every field of the table when it names none (the service then returns
// them all); then the fields it sorts by that are not among them (a sorted listing read as
// partitions asks for those too, to merge them).
func (t *Table) ReturnedFields(r Request) []string {
	names := slices.Clone(r.Fields)
	if len(names) == 0 {
		for _, f := range t.Fields {
			names = append(names, f.Name)
		}
	}
	for _, s := range r.Sort {
		if !slices.Contains(names, s.Field) {
			names = append(names, s.Field)
		}
	}
	return names
}

// Cells lays out a record's cells by name.
func (l *Layout) Cells(fields map[string]any) []any {
	out := make([]any, len(l.cols))
	for name, c := range l.cols {
		out[c] = fields[name]
	}
	return out
}

// FieldMap is the record's fields as one map, however it holds them (Cells by Layout, Fields, or
// both): for code that must have a map, such as a copy that renames fields. Empty cells are left
// out, as the service leaves them out.
func (r *Row) FieldMap() map[string]any {
	if r.Layout == nil {
		return r.Fields
	}
	m := make(map[string]any, len(r.Layout.cols)+len(r.Fields))
	for name, c := range r.Layout.cols {
		if c < len(r.Cells) && r.Cells[c] != nil {
			m[name] = r.Cells[c]
		}
	}
	for name, v := range r.Fields {
		if _, laid := r.Layout.cols[name]; !laid {
			m[name] = v
		}
	}
	return m
}

// cell is the record's cell of a field, by name.
func (r *Row) cell(name string) any {
	if r.Layout != nil {
		if c, ok := r.Layout.cols[name]; ok && c < len(r.Cells) {
			return r.Cells[c]
		}
	}
	return r.Fields[name]
}
