package replica

import (
	"slices"
	"testing"
	"time"
	"unsafe"
)

// TestCellRowsNeverChange: CellRows hands out the copy's own cells, so a change never writes
// into cells handed out before: a changed record is a new row, and a deleted field's cells are
// cleared in copies of the rows that held one. Rows come in the records API's order, with the
// field name of each column ("" once its field is deleted).
func TestCellRowsNeverChange(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	fields := map[string]Field{"fldA": {ID: "fldA", Name: "A", Type: "singleLineText"}, "fldB": {ID: "fldB", Name: "B", Type: "number"}}
	tbl := &Table{tableID: "tblT", fields: fields, order: []string{"fldA", "fldB"},
		cols: map[string]int{"fldA": 0, "fldB": 1}, colIDs: []string{"fldA", "fldB"},
		rows: map[string]*row{
			"recY": {id: "recY", created: t0, vals: []any{"y", 2.0}},
			"recX": {id: "recX", created: t0, vals: []any{"x", 1.0}},
			"recW": {id: "recW", created: t0.Add(-time.Hour), vals: []any{nil, 3.0}},
		}}
	before, columns, gen := tbl.CellRows()
	var ids []string
	for _, r := range before {
		ids = append(ids, r.ID)
	}
	if want := []string{"recW", "recX", "recY"}; !slices.Equal(ids, want) {
		t.Fatalf("order: got %v, want %v", ids, want)
	}
	if want := []string{"A", "B"}; !slices.Equal(columns, want) {
		t.Fatalf("columns: got %v, want %v", columns, want)
	}

	tbl.commit(&Change{Fields: map[string]Field{"fldB": fields["fldB"]}, Order: []string{"fldB"}, DestroyedFields: []string{"fldA"},
		Changed: map[string]map[string]any{"recW": {"fldB": 4.0}}})

	if got := [][]any{before[0].Cells, before[1].Cells, before[2].Cells}; !slices.EqualFunc(got, [][]any{{nil, 3.0}, {"x", 1.0}, {"y", 2.0}}, slices.Equal) {
		t.Errorf("cells handed out before the change: got %v, want them unchanged", got)
	}
	after, columns, genAfter := tbl.CellRows()
	if genAfter == gen {
		t.Errorf("generation: got %d after a change, want another than %d", genAfter, gen)
	}
	if want := []string{"", "B"}; !slices.Equal(columns, want) {
		t.Errorf("columns after deleting A: got %q, want %q", columns, want)
	}
	if got := [][]any{after[0].Cells, after[1].Cells, after[2].Cells}; !slices.EqualFunc(got, [][]any{{nil, 4.0}, {nil, 1.0}, {nil, 2.0}}, slices.Equal) {
		t.Errorf("cells after the change: got %v", got)
	}
}

// TestInternerShares: equal lists of linked ids, dates and select names decoded for different
// records come out as one shared value; a list it cannot key (an id with a comma, not ids) is
// left as it is.
func TestInternerShares(t *testing.T) {
	in := interner{}
	a := in.value("multipleRecordLinks", []any{"recA", "recB"})
	b := in.value("multipleRecordLinks", []any{"recA", "recB"})
	if &a.([]any)[0] != &b.([]any)[0] {
		t.Errorf("equal link lists: got two lists, want one shared")
	}
	if c := in.value("multipleRecordLinks", []any{"recB", "recA"}); &c.([]any)[0] == &a.([]any)[0] {
		t.Errorf("link lists in another order: got the shared list, want its own")
	}
	odd := []any{"rec,A"}
	if got := in.value("multipleRecordLinks", odd); &got.([]any)[0] != &odd[0] {
		t.Errorf("an id with a comma: got another list, want it as it is")
	}
	d1, d2 := string([]byte("2025-01-02")), string([]byte("2025-01-02"))
	if x, y := in.value("date", d1).(string), in.value("date", d2).(string); unsafe.StringData(x) != unsafe.StringData(y) {
		t.Errorf("equal dates: got two strings, want one shared")
	}
}
