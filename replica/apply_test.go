package replica

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/transport"
)

func TestRestValue(t *testing.T) {
	cases := []struct {
		typ  string
		in   any
		want any
	}{
		{"singleSelect", map[string]any{"id": "selA", "name": "Done", "color": "redBright"}, "Done"},
		{"multipleSelects", []any{map[string]any{"id": "selA", "name": "a"}, map[string]any{"id": "selB", "name": "b"}}, []any{"a", "b"}},
		{"multipleRecordLinks", []any{map[string]any{"id": "recA", "name": "Ann"}, map[string]any{"id": "recB", "name": ""}}, []any{"recA", "recB"}},
		{"multipleLookupValues", map[string]any{"valuesByLinkedRecordId": map[string]any{"recB": []any{2.0}, "recA": []any{1.0, 1.5}}, "linkedRecordIds": []any{"recA", "recB"}}, []any{1.0, 1.5, 2.0}},
		{"multipleLookupValues", map[string]any{"valuesByLinkedRecordId": map[string]any{"recA": []any{}}, "linkedRecordIds": []any{"recA"}}, nil},
		{"singleCollaborator", map[string]any{"id": "usrA", "email": "a@x", "permissionLevel": "create", "profilePicUrl": "u"}, map[string]any{"id": "usrA", "email": "a@x"}},
		{"externalSyncSource", map[string]any{"id": "selS", "name": "Sync"}, "Sync"},
		{"number", 3.5, 3.5},
		{"singleLineText", "x", "x"},
	}
	for _, c := range cases {
		t.Run(c.typ, func(t *testing.T) {
			if got := restValue(c.typ, c.in); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %#v, want %#v", got, c.want)
			}
		})
	}
}

// A payload is applied whole or not at all: one that cannot be applied changes nothing.
func TestApplyWholeOrNothing(t *testing.T) {
	newTable := func() *Table {
		return &Table{tableID: "tblT", cursor: 5, replay: 5,
			fields: map[string]Field{"fldA": {ID: "fldA", Name: "A", Type: "singleLineText"}, "fldS": {ID: "fldS", Name: "S", Type: "singleSelect"}},
			order:  []string{"fldA", "fldS"},
			cols:   map[string]int{"fldA": 0, "fldS": 1}, colIDs: []string{"fldA", "fldS"},
			rows: map[string]*row{"recX": {id: "recX", vals: []any{"x", "Todo"}}}}
	}
	created := map[string]transport.WebhookRecord{"recN": {CreatedTime: time.Unix(0, 0), CellValuesByFieldID: map[string]any{"fldA": "n"}}}
	cases := []struct {
		name    string
		cursor  int
		change  transport.WebhookTableChanged
		err     bool
		want    map[string]map[string]any // rows' cells after
		fields  int
		applied bool
	}{
		{"create, change, clear", 5, transport.WebhookTableChanged{CreatedRecordsByID: created,
			ChangedRecordsByID: map[string]transport.WebhookRecordChange{"recX": {Current: transport.WebhookCells{CellValuesByFieldID: map[string]any{"fldA": nil, "fldS": map[string]any{"id": "selD", "name": "Done"}}}}}},
			false, map[string]map[string]any{"recX": {"fldS": "Done"}, "recN": {"fldA": "n"}}, 2, true},
		{"unknown field: nothing applied", 5, transport.WebhookTableChanged{CreatedRecordsByID: created,
			ChangedRecordsByID: map[string]transport.WebhookRecordChange{"recX": {Current: transport.WebhookCells{CellValuesByFieldID: map[string]any{"fldZ": "z"}}}}},
			true, map[string]map[string]any{"recX": {"fldA": "x", "fldS": "Todo"}}, 2, false},
		{"change of a record the copy lacks", 5, transport.WebhookTableChanged{CreatedRecordsByID: created,
			ChangedRecordsByID: map[string]transport.WebhookRecordChange{"recGONE": {Current: transport.WebhookCells{CellValuesByFieldID: map[string]any{"fldA": "z"}}}}},
			true, map[string]map[string]any{"recX": {"fldA": "x", "fldS": "Todo"}}, 2, false},
		{"type change", 5, transport.WebhookTableChanged{CreatedRecordsByID: created,
			ChangedFieldsByID: map[string]transport.WebhookFieldChange{"fldA": {Current: transport.WebhookField{Type: "number"}}}},
			true, map[string]map[string]any{"recX": {"fldA": "x", "fldS": "Todo"}}, 2, false},
		{"field deleted", 5, transport.WebhookTableChanged{DestroyedFieldIDs: []string{"fldA"}},
			false, map[string]map[string]any{"recX": {"fldS": "Todo"}}, 1, true},
		{"field created and written", 5, transport.WebhookTableChanged{CreatedFieldsByID: map[string]transport.WebhookField{"fldB": {Type: "number", Name: "B"}},
			ChangedRecordsByID: map[string]transport.WebhookRecordChange{"recX": {Current: transport.WebhookCells{CellValuesByFieldID: map[string]any{"fldB": 2.0}}}}},
			false, map[string]map[string]any{"recX": {"fldA": "x", "fldS": "Todo", "fldB": 2.0}}, 3, true},
		{"computed field created", 5, transport.WebhookTableChanged{CreatedFieldsByID: map[string]transport.WebhookField{"fldF": {Type: "formula", Name: "F"}}},
			true, map[string]map[string]any{"recX": {"fldA": "x", "fldS": "Todo"}}, 2, false},
		{"already applied", 4, transport.WebhookTableChanged{DestroyedRecordIDs: []string{"recX"}},
			false, map[string]map[string]any{"recX": {"fldA": "x", "fldS": "Todo"}}, 2, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tbl := newTable()
			err := tbl.apply(transport.WebhookPayload{Cursor: c.cursor, ChangedTablesByID: map[string]transport.WebhookTableChanged{"tblT": c.change}})
			var recopy *errRecopy
			if c.err != errors.As(err, &recopy) {
				t.Fatalf("got error %v, want a copy-again error: %v", err, c.err)
			}
			got := map[string]map[string]any{}
			for id, r := range tbl.Rows() {
				got[id] = r.Cells
			}
			if !reflect.DeepEqual(got, c.want) || len(tbl.fields) != c.fields || len(tbl.order) != c.fields {
				t.Fatalf("rows %v (%d fields), want %v (%d fields)", got, len(tbl.fields), c.want, c.fields)
			}
			if applied := tbl.cursor == 6; applied != c.applied {
				t.Fatalf("cursor %d: applied %v, want %v", tbl.cursor, applied, c.applied)
			}
		})
	}
	// An error payload asks for a new webhook.
	if err := newTable().apply(transport.WebhookPayload{Cursor: 5, Error: true, Code: "INVALID_FILTERS"}); !errors.Is(err, errNewHook) {
		t.Fatalf("error payload: %v", err)
	}
}

// copyKinds names the requests of a copy: cursor (the webhook list), schema, list <table>.
func copyKinds(reqs []emulator.Request) []string {
	var out []string
	for _, r := range reqs {
		switch {
		case strings.HasSuffix(r.Path, "/webhooks"):
			out = append(out, "cursor")
		case strings.HasPrefix(r.Path, "/v0/meta/bases/"):
			out = append(out, "schema")
		case strings.HasSuffix(r.Path, "/payloads"):
			out = append(out, "payloads")
		default:
			out = append(out, "list "+r.Path[strings.LastIndex(r.Path, "/")+1:])
		}
	}
	slices.Sort(out)
	return out
}

// A first copy of a webhook just created reads no cursor (its payloads start at firstCursor),
// the schema alongside the listing, and no cursor after it; a second table copied within SchemaTTL while nothing changed reuses both (its
// listing only); once the base changed, a copy reads them anew. The first drain after a copy
// ends its leniency (pendingReplay).
func TestCopyRequests(t *testing.T) {
	h := newHarness(t, false)
	rb, err := OpenBase(bg, h.copyBase, Options{Clock: h.clk})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		do   func() error
		want []string
	}{
		{"first copy", func() error { _, err := rb.Table(bg, tasksID); return err }, []string{"list " + tasksID, "schema"}},
		{"first drain", func() error { return rb.Sync(bg) }, []string{"payloads"}},
		{"second copy, nothing changed", func() error { _, err := rb.Table(bg, peopleID); return err }, []string{"list " + peopleID}},
	}
	for _, s := range steps {
		h.s.ResetRequests()
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := copyKinds(h.s.Requests()); !slices.Equal(got, s.want) {
			t.Errorf("%s: sent %v, want %v", s.name, got, s.want)
		}
	}
	tasks, _ := rb.Copied(tasksID)
	if tasks.replay == pendingReplay {
		t.Errorf("after the first drain the copy of Tasks still replays every payload")
	}
	// The base changes; the change is drained; a table copied again reads the cursor anew.
	if _, err := h.tasks.Create(bg, map[string]any{fldName: "new"}, transport.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := rb.Sync(bg); err != nil {
		t.Fatal(err)
	}
	h.s.ResetRequests()
	if err := rb.copyTable(bg, tasks); err != nil {
		t.Fatal(err)
	}
	if got, want := copyKinds(h.s.Requests()), []string{"cursor", "list " + tasksID, "schema"}; !slices.Equal(got, want) {
		t.Errorf("copy after a change: sent %v, want %v", got, want)
	}
	if err := rb.Sync(bg); err != nil {
		t.Fatal(err)
	}
	people, _ := rb.Copied(peopleID)
	h.assertEqual([]*Table{tasks, people}, "after the copies")
}
