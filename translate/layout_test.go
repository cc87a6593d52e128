package translate

import "testing"

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
