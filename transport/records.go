package transport

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// Record is one record of a table (seed §2).
type Record struct {
	ID          string         `json:"id,omitempty"`
	CreatedTime time.Time      `json:"createdTime,omitzero"`
	Fields      map[string]any `json:"fields"` // keyed by field name, or by id with ReturnFieldsByFieldID; never nil once decoded, but see Cells
	// Cells, from IterateCells only, are the record's cells in the order of the names it was
	// given, with no map per record: a field the record's JSON leaves out is a nil cell (the
	// service leaves empty cells out). Fields is then nil, or holds the fields the service returned
	// that the names do not hold (every field comes back when ListOptions.Fields is empty: one
	// added since the names were read), so that none is lost.
	Cells []any `json:"-"`
}

// DeleteResult is the answer to a deletion.
type DeleteResult struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// ListOptions are the fetching options of Iterate, All and First (seed §4.3). Zero values are
// left out of the request, so the service's defaults apply.
type ListOptions struct {
	View, Formula                    string   // view name or id; filterByFormula
	Fields, Sort                     []string // Sort: "-Name" is descending
	MaxRecords, PageSize             int      // 0: the service's default (all records; 100 per page)
	CellFormat, TimeZone, UserLocale string   // CellFormat "string" needs TimeZone and UserLocale
	ReturnFieldsByFieldID            bool

	layout *cellLayout // IterateCells: records are decoded into cells in this order
}

// WriteOptions are the options of the write operations (seed §4.2). Replace makes Update and
// BatchUpdate/BatchUpsert send PUT (fields left out are cleared) instead of PATCH.
type WriteOptions struct{ Typecast, Replace, ReturnFieldsByFieldID bool }

// GetOption are the options of Get. Several are merged: set fields of later ones win.
type GetOption struct {
	ReturnFieldsByFieldID            bool
	CellFormat, TimeZone, UserLocale string
}

// page is one response of a list request.
type page struct {
	Records []wireRecord `json:"records"`
	Offset  string       `json:"offset"`
	// layout, when not nil, is the order of cells the records are decoded into (IterateCells);
	// laidOut tells that decodeFast did so (encoding/json decodes maps, which records lays out).
	layout  *cellLayout
	laidOut bool
}

// wireRecord is a record as the service sends it. Fields is decoded as an interface value, for
// which encoding/json builds the map[string]any itself; decoding straight into Record's map goes
// through reflection for every key, which costs 9 more allocations per record of 8 fields
// (BenchmarkDecodePage: 39 allocations per record before, 30 after).
type wireRecord struct {
	ID          string    `json:"id"`
	CreatedTime time.Time `json:"createdTime"`
	Fields      any       `json:"fields"`
	cells       []any     // decodeFast with a layout: the cells; Fields holds the fields the layout lacks, or nil
}

// record returns the record, with an empty map when the service left "fields" out (it does for
// records whose cells are all empty).
func (w *wireRecord) record() (Record, error) {
	switch f := w.Fields.(type) {
	case map[string]any:
		return Record{ID: w.ID, CreatedTime: w.CreatedTime, Fields: f}, nil
	case nil:
		return Record{ID: w.ID, CreatedTime: w.CreatedTime, Fields: map[string]any{}}, nil
	default:
		return Record{}, fmt.Errorf("the service answered record %q with \"fields\" of JSON type %s, not an object", w.ID, jsonType(f))
	}
}

// records returns the page's records: with maps, or with cells when it has a layout.
func (pg *page) records() ([]Record, error) {
	out := make([]Record, len(pg.Records))
	if pg.layout == nil {
		for i := range pg.Records {
			r, err := pg.Records[i].record()
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	var cells cellBuffer
	for i := range pg.Records {
		w := &pg.Records[i]
		if pg.laidOut {
			out[i] = Record{ID: w.ID, CreatedTime: w.CreatedTime, Cells: w.cells}
			if w.Fields != nil {
				out[i].Fields = w.Fields.(map[string]any)
			}
			continue
		}
		r, err := w.record()
		if err != nil {
			return nil, err
		}
		out[i] = pg.layout.lay(r, cells.next(len(pg.layout.names)))
	}
	return out, nil
}

// cellLayout is the order of a listing's cells (IterateCells): the names, and each one's index.
type cellLayout struct {
	names []string
	index map[string]int
}

func newCellLayout(names []string) (*cellLayout, error) {
	l := &cellLayout{names: slices.Clone(names), index: make(map[string]int, len(names))}
	for i, n := range names {
		if _, twice := l.index[n]; twice {
			return nil, invalidf("cell names[%d] %q is given twice: each field has one cell", i, n)
		}
		l.index[n] = i
	}
	return l, nil
}

// lay returns r with its cells in the layout's order (in cells, len(l.names) long): Fields
// keeps only the fields the layout lacks, nil when there is none.
func (l *cellLayout) lay(r Record, cells []any) Record {
	var rest map[string]any
	for name, v := range r.Fields {
		if i, ok := l.index[name]; ok {
			cells[i] = v
			continue
		}
		if rest == nil {
			rest = map[string]any{}
		}
		rest[name] = v
	}
	r.Fields, r.Cells = rest, cells
	return r
}

// fields returns r's fields as one map, whatever its form (l nil: a record with Fields only).
func (l *cellLayout) fields(r Record) map[string]any {
	if l == nil || r.Cells == nil {
		return r.Fields
	}
	m := make(map[string]any, len(r.Cells)+len(r.Fields))
	for i, v := range r.Cells {
		if v != nil {
			m[l.names[i]] = v
		}
	}
	maps.Copy(m, r.Fields)
	return m
}

// cellBuffer hands out the cells of a page's records from a few allocations, each twice the
// last (8, 16, 32, 64 records: 4 for a page of 100), rather than one per record.
type cellBuffer struct {
	free  []any
	chunk int // records the last allocation held
}

// next returns n nil cells.
func (b *cellBuffer) next(n int) []any {
	if len(b.free) < n {
		b.chunk = min(max(2*b.chunk, 8), maxPageSize)
		b.free = make([]any, n*b.chunk)
	}
	c := b.free[:n:n]
	b.free = b.free[n:]
	return c
}

// toRecords returns records with maps (write answers).
func toRecords(ws []wireRecord) ([]Record, error) {
	pg := page{Records: ws}
	return pg.records()
}

// jsonType names the JSON type of a value decoded into an interface.
func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// relaid returns a copy of a page of records in one form (from; nil: maps) in another (to).
func relaid(recs []Record, from, to *cellLayout) []Record {
	if from == to || from != nil && to != nil && slices.Equal(from.names, to.names) {
		return append([]Record(nil), recs...)
	}
	out := make([]Record, len(recs))
	var cells cellBuffer
	for i, r := range recs {
		r.Fields, r.Cells = from.fields(r), nil
		if to != nil {
			r = to.lay(r, cells.next(len(to.names)))
		} else if r.Fields == nil {
			r.Fields = map[string]any{}
		}
		out[i] = r
	}
	return out
}
