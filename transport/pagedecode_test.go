package transport

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

var pageSeeds = []string{
	`{"records":[{"id":"rec1","createdTime":"2024-01-01T00:00:00.000Z","fields":{"Name":"a","N":1.5,"Done":true,"Tags":["x","y"],"Att":[{"id":"att1","size":3}],"Empty":[]}}],"offset":"itr1/rec1"}`,
	`{"records":[]}`,
	` { "records" : [ { "id" : "rec2" , "fields" : { } } ] } `,
	`{"records":[{"id":"rec3","createdTime":"2024-01-01T00:00:00Z","fields":{"Notes":"two\nlines \"quoted\" \\ \/ \t","N":-0.5e+3,"Z":0,"Nil":null,"F":false}}]}`,
	`{"records":[{"id":"rec4","fields":{"Name":"caf\u00e9"}}]}`,
	`{"records":[{"id":"rec5","fields":{"Name":"café ✓"}}]}`,
	`{"records":[{"id":"rec6","fields":null}]}`,
	`{"records":[{"id":"rec7","fields":{"a":1,"a":2}}],"records":[{"id":"rec8"}]}`,
	`{"records":[{"ID":"rec9"}]}`,
	`{"records":[{"id":"rec10","fields":{"N":1e999}}]}`,
	`{"records":[{"id":"rec11","fields":{"N":01}}]}`,
	`{"records":[{"id":"rec12","fields":{"N":1.}}]}`,
	`{"records":[{"id":"rec13","fields":{"s":"\x"}}]}`,
	`{"records":[{"id":"rec14","fields":{"N":1}}]} x`,
	`{"records":[{"id":"rec15","createdTime":"yesterday","fields":{}}]}`,
	`{"offset":"itr"}`,
	`{}`,
	`{"records":[{"id":"rec16","fields":{"s":"` + "\xff" + `"}}]}`,
	`{"records":[{"id":"rec17","fields":{"Name":"a","Other":1,"N\/":2}},{"id":"rec18"},{"id":"rec19","fields":{"Tags":[],"Tags":["z"]}}]}`,
	`{"records":[{"id":"rec20","fields":{"Name":"a"},"fields":{"N":1}}]}`,
	`{"records":[{"id":"rec21","fields":{"Name":"a\/b","N":1}},{"id":"rec22","fields":{"Name":"a/b","N":1.0}},{"id":"rec23","fields":{"Name":"a\/b","N":1,"Tags":["a/b"]}},{"id":"rec24","fields":{"Name":"1","N":-0}}]}`,
	`{"records":[{"id":"rec25","fields":{"q\"":1,"q\\\"":2}}]}`,
	`{"records":[{"id":"rec\/26","id":"rec27"},{"id":"rec28","id":"rec\/29"},{"id":""},{"fields":{"N":1}},{"id":"rec30"}]}`,
}

// cellNames is the layout the cells decoder is checked with: names of the seeds' fields, one
// written with an escape in a seed ("N/"), one no seed has, and one that is another name's JSON
// text (q\" is how the name q" is written, not the name q\").
var cellNames = []string{"Name", "N", "Tags", "a", "N/", "Missing", `q\"`}

// TestDecodeFast: the usual pages are decoded by the fast decoder, and to what encoding/json
// makes of them; what it gives up on is left to encoding/json.
func TestDecodeFast(t *testing.T) {
	for i, body := range pageSeeds {
		t.Run(body, func(t *testing.T) {
			var fast page
			took := fast.decodeFast([]byte(body))
			wantTaken := i < 4 || i == 5 || i >= 18 // the usual forms; \u, null fields, a second "records" and errors are not
			if took != wantTaken {
				t.Fatalf("decodeFast took it: got %v, want %v", took, wantTaken)
			}
			checkSamePage(t, []byte(body))
			cells := page{layout: mustLayout(t, cellNames)}
			// A second "fields" in a record is left to encoding/json when decoding into cells.
			if took := cells.decodeFast([]byte(body)); took != (wantTaken && i != 19) {
				t.Fatalf("decodeFast into cells took it: got %v, want %v", took, wantTaken && i != 19)
			}
			checkSameCells(t, []byte(body))
		})
	}
}

// checkSamePage fails when the fast decoder takes a body encoding/json refuses or decodes to
// another page.
func checkSamePage(t *testing.T, body []byte) {
	t.Helper()
	var fast page
	if !fast.decodeFast(body) {
		return
	}
	var want page
	if err := json.Unmarshal(body, &want); err != nil {
		t.Fatalf("decodeFast took %q, which encoding/json refuses: %v", body, err)
	}
	if !reflect.DeepEqual(fast, want) {
		t.Fatalf("decoding %q: got %#v, want %#v", body, fast, want)
	}
}

func mustLayout(t testing.TB, names []string) *cellLayout {
	t.Helper()
	l, err := newCellLayout(names)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// checkSameCells fails when the fast decoder, decoding into cells by cellNames, takes a body
// encoding/json refuses, or gives other records than encoding/json's maps laid out (records).
func checkSameCells(t *testing.T, body []byte) {
	t.Helper()
	layout := mustLayout(t, cellNames)
	fast := page{layout: layout}
	if !fast.decodeFast(body) {
		return
	}
	want := page{layout: layout}
	if err := json.Unmarshal(body, &want); err != nil {
		t.Fatalf("decodeFast into cells took %q, which encoding/json refuses: %v", body, err)
	}
	got, err := fast.records()
	if err != nil {
		t.Fatalf("decodeFast into cells took %q, whose records fail: %v", body, err)
	}
	wantRecs, err := want.records()
	if err != nil {
		t.Fatalf("decodeFast into cells took %q, which encoding/json's records refuse: %v", body, err)
	}
	if !reflect.DeepEqual(got, wantRecs) {
		t.Fatalf("decoding %q into cells: got %#v, want %#v", body, got, wantRecs)
	}
	for _, r := range got {
		if len(r.Cells) != len(cellNames) {
			t.Fatalf("record %q has %d cells, want %d", r.ID, len(r.Cells), len(cellNames))
		}
	}
}

func FuzzDecodePage(f *testing.F) {
	for _, s := range pageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkSamePage(t, body)
		checkSameCells(t, body)
	})
}

// TestCellsLaidOut: records decoded into cells hold each field in its name's cell, nil for a
// field the record leaves out, and keep the fields the layout lacks in Fields, in both decoders.
func TestCellsLaidOut(t *testing.T) {
	body := []byte(`{"records":[{"id":"recA","fields":{"Name":"a","N":1,"Extra":true}},{"id":"recB"},{"id":"recC","fields":{"N":2}}]}`)
	want := []Record{
		{ID: "recA", Cells: []any{"a", 1.0, nil}, Fields: map[string]any{"Extra": true}},
		{ID: "recB", Cells: []any{nil, nil, nil}},
		{ID: "recC", Cells: []any{nil, 2.0, nil}},
	}
	layout := mustLayout(t, []string{"Name", "N", "Tags"})
	decoders := []struct {
		name   string
		decode func(*page) error
	}{
		{"fast", func(pg *page) error {
			if !pg.decodeFast(body) {
				return errors.New("the fast decoder gave up")
			}
			return nil
		}},
		{"encoding-json", func(pg *page) error { return json.Unmarshal(body, pg) }},
	}
	for _, dec := range decoders {
		t.Run(dec.name, func(t *testing.T) {
			pg := page{layout: layout}
			if err := dec.decode(&pg); err != nil {
				t.Fatal(err)
			}
			got, err := pg.records()
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("got %#v, %v; want %#v", got, err, want)
			}
		})
	}
	if _, err := newCellLayout([]string{"A", "B", "A"}); err == nil || !strings.Contains(err.Error(), `names[2] "A" is given twice`) {
		t.Errorf("a name given twice: got %v, want an error naming it", err)
	}
}

// TestRepeatedCellsShared: a string or number repeated down a column is boxed once per page,
// not once per record (strings and numbers are immutable); the values read the same.
func TestRepeatedCellsShared(t *testing.T) {
	body := func(value func(i int) string) []byte {
		parts := make([]string, 100)
		for i := range parts {
			parts[i] = `{"id":"rec` + strings.Repeat("0", 13) + string(rune('a'+i%26)) + `","fields":{` + value(i) + `}}`
		}
		return []byte(`{"records":[` + strings.Join(parts, ",") + `]}`)
	}
	layout := mustLayout(t, []string{"Status", "N"})
	allocs := func(body []byte) float64 {
		return testing.AllocsPerRun(20, func() {
			pg := page{layout: layout}
			if !pg.decodeFast(body) {
				t.Fatal("the fast decoder gave up")
			}
		})
	}
	same := body(func(int) string { return `"Status":"Todo","N":7.5` })
	distinct := body(func(i int) string {
		return `"Status":"Todo ` + strings.Repeat("x", i) + `","N":` + strings.Repeat("7", i+1)
	})
	if a, b := allocs(same), allocs(distinct); a+250 > b {
		t.Errorf("a page whose 100 records share a string and a number: %v allocations; with distinct ones %v; want at least 250 fewer (3 per record)", a, b)
	}
	pg := page{layout: layout}
	if !pg.decodeFast(same) {
		t.Fatal("the fast decoder gave up")
	}
	recs, err := pg.records()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if !reflect.DeepEqual(r.Cells, []any{"Todo", 7.5}) {
			t.Fatalf("record %s: got %#v, want [Todo 7.5]", r.ID, r.Cells)
		}
	}
}

// TestRelaid: a page in one form reads the same in another (the result cache answers a listing
// in the form it asks for).
func TestRelaid(t *testing.T) {
	ab, ba := mustLayout(t, []string{"A", "B"}), mustLayout(t, []string{"B", "C"})
	maps := []Record{{ID: "rec1", Fields: map[string]any{"A": 1.0, "B": "x"}}, {ID: "rec2", Fields: map[string]any{}}}
	cellsAB := []Record{{ID: "rec1", Cells: []any{1.0, "x"}}, {ID: "rec2", Cells: []any{nil, nil}}}
	cellsBC := []Record{{ID: "rec1", Cells: []any{"x", nil}, Fields: map[string]any{"A": 1.0}}, {ID: "rec2", Cells: []any{nil, nil}}}
	tests := []struct {
		name     string
		in       []Record
		from, to *cellLayout
		want     []Record
	}{
		{"maps to cells", maps, nil, ab, cellsAB},
		{"cells to maps", cellsAB, ab, nil, maps},
		{"cells to other cells", cellsAB, ab, ba, cellsBC},
		{"cells back", cellsBC, ba, ab, cellsAB},
		{"same names", cellsAB, ab, mustLayout(t, []string{"A", "B"}), cellsAB},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := relaid(tt.in, tt.from, tt.to); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}
