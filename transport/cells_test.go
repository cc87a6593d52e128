package transport

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestIterateCells: a listing decoded into cells sends the request Iterate sends, and gives each
// record's fields in the order of the names, nil for a field left out; a field the names lack
// stays in Fields.
func TestIterateCells(t *testing.T) {
	pages := []string{
		`{"records":[{"id":"recA","fields":{"N":1,"Name":"a"}},{"id":"recB"}],"offset":"itrAAAAAAAAAAAAAA/recB"}`,
		`{"records":[{"id":"recC","fields":{"Name":"c","New":true}}]}`,
	}
	tbl, fake, _ := newTestTable(t, func(n int, r seenRequest) reply { return ok(pages[n]) })
	var got []Record
	for recs, err := range tbl.IterateCells(bg, ListOptions{PageSize: 2}, []string{"Name", "N"}, nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, recs...)
	}
	want := []Record{
		{ID: "recA", Cells: []any{"a", 1.0}},
		{ID: "recB", Cells: []any{nil, nil}},
		{ID: "recC", Cells: []any{"c", nil}, Fields: map[string]any{"New": true}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
	diffLines(t, fake.Lines(), []string{
		"GET /v0/appTEST0000000001/My%20Tasks?pageSize=2",
		"GET /v0/appTEST0000000001/My%20Tasks?pageSize=2&offset=itrAAAAAAAAAAAAAA%2FrecB",
	})

	t.Run("a name twice", func(t *testing.T) {
		tbl, fake, _ := newTestTable(t, func(n int, r seenRequest) reply { return ok(pages[n]) })
		for _, err := range tbl.IterateCells(bg, ListOptions{}, []string{"N", "N"}, nil) {
			if err == nil || !strings.Contains(err.Error(), `"N" is given twice`) {
				t.Errorf("got %v, want an error naming the name given twice", err)
			}
		}
		if n := len(fake.Requests()); n != 0 {
			t.Errorf("%d requests, want 0", n)
		}
	})
}

// TestResultCacheAcrossForms: a listing read with maps answers the same listing read into cells
// from memory, and the reverse, each in its own form.
func TestResultCacheAcrossForms(t *testing.T) {
	s, tbl, _ := cachedEmu(t, 150, 30*time.Second, 0)
	opts := ListOptions{Fields: []string{"Name", "Done"}}
	names := []string{"Done", "Name"}
	read := func(cells bool) []Record {
		var out []Record
		seq := tbl.Iterate(bg, opts)
		if cells {
			seq = tbl.IterateCells(bg, opts, names, nil)
		}
		for recs, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, recs...)
		}
		return out
	}
	for _, first := range []bool{false, true} {
		s.ResetRequests()
		tbl.c.cache.invalidate(tbl.base, tbl.name)
		stored := read(first)
		sent := len(s.Requests())
		again := read(!first)
		if n := len(s.Requests()); n != sent || sent != 2 {
			t.Fatalf("read with cells=%v, then cells=%v: %d requests, then %d more; want 2, then 0", first, !first, sent, n-sent)
		}
		asMaps, asCells := stored, again
		if first {
			asMaps, asCells = again, stored
		}
		if len(asMaps) != 150 || len(asCells) != 150 {
			t.Fatalf("got %d and %d records, want 150", len(asMaps), len(asCells))
		}
		for i, m := range asMaps {
			c := asCells[i]
			if c.ID != m.ID || c.Fields != nil || m.Cells != nil || !reflect.DeepEqual(c.Cells, []any{m.Fields["Done"], m.Fields["Name"]}) {
				t.Fatalf("record %d: got cells %#v (Fields %v), want those of %#v", i, c.Cells, c.Fields, m)
			}
		}
	}
}
