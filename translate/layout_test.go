package translate

import (
	"reflect"
	"testing"
)

// A row with a Layout reads its cells from Cells, by the layout's column; a name the layout
// lacks, or a row without one, reads Fields.
func TestRowCellLayout(t *testing.T) {
	layout := NewLayout([]string{"Name", "Qty", "Tags"})
	fields := map[string]any{"Name": "a", "Tags": []any{"x"}}
	cells := layout.Cells(fields)
	if len(cells) != 3 || cells[0] != "a" || cells[1] != nil {
		t.Fatalf("Cells: got %#v, want [a <nil> [x]]", cells)
	}
	laid := &Row{Fields: map[string]any{"Name": "stale", "Extra": 1.0}, Cells: cells, Layout: layout}
	plain := &Row{Fields: fields}
	cases := []struct {
		name string
		row  *Row
		want any
	}{
		{"Name", laid, "a"},     // from Cells, not Fields
		{"Qty", laid, nil},      // an empty cell
		{"Extra", laid, 1.0},    // not in the layout: Fields
		{"Name", plain, "a"},    // no layout
		{"Missing", plain, nil}, // no such field
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.row.cell(c.name); got != c.want {
				t.Errorf("cell(%q): got %#v, want %#v", c.name, got, c.want)
			}
		})
	}
}

// FieldMap gives a row's fields as one map however the row holds them: laid-out cells (empty
// ones left out) and the fields the layout lacks.
func TestRowFieldMap(t *testing.T) {
	layout := NewLayout([]string{"Name", "Qty", "Tags"})
	cases := []struct {
		name string
		row  Row
		want map[string]any
	}{
		{"cells only", Row{Cells: []any{"a", nil, []any{"x"}}, Layout: layout}, map[string]any{"Name": "a", "Tags": []any{"x"}}},
		{"cells and fields the layout lacks", Row{Cells: []any{"a", 2.0, nil}, Fields: map[string]any{"Extra": true}, Layout: layout},
			map[string]any{"Name": "a", "Qty": 2.0, "Extra": true}},
		{"a stale field under a laid-out name", Row{Cells: []any{"a", nil, nil}, Fields: map[string]any{"Name": "stale"}, Layout: layout},
			map[string]any{"Name": "a"}},
		{"no layout", Row{Fields: map[string]any{"Name": "b"}}, map[string]any{"Name": "b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.row.FieldMap(); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %#v, want %#v", got, c.want)
			}
		})
	}
}

// ReturnedFields: the fields a request returns (all of them when it names none), then the sort
// fields it does not name.
func TestReturnedFields(t *testing.T) {
	table := &Table{Fields: []Field{{Name: "A"}, {Name: "B"}, {Name: "C"}}}
	cases := []struct {
		name string
		req  Request
		want []string
	}{
		{"every field", Request{}, []string{"A", "B", "C"}},
		{"every field, sorted", Request{Sort: []Sort{{Field: "B"}}}, []string{"A", "B", "C"}},
		{"some fields", Request{Fields: []string{"C"}}, []string{"C"}},
		{"some fields, sorted by others", Request{Fields: []string{"C"}, Sort: []Sort{{Field: "A", Desc: true}, {Field: "C"}}}, []string{"C", "A"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := table.ReturnedFields(c.req); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
