package syncdb

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/airsql/airsql/transport"
)

// randomWriter is another client of the base writing at random: the operations of the randomized
// runs (TestSyncRandomized, TestPollingRandomized).
type randomWriter struct {
	t   *testing.T
	h   *harness
	rng *rand.Rand

	tasks, people     []string
	added, addedLinks []string // text and link fields of Tasks created by the run
	extra             []string // records of the table created by the run
	extraTable        string
	gone              map[string]bool // records deleted
	fieldsDeleted     int
}

func newRandomWriter(t *testing.T, h *harness, rng *rand.Rand) *randomWriter {
	return &randomWriter{t: t, h: h, rng: rng, tasks: []string{"recTASK0000000001"}, people: []string{"recPERSON00000001"}, gone: map[string]bool{}}
}

func (w *randomWriter) pick(list []string) string { return list[w.rng.IntN(len(list))] }

// fields are random cells of Tasks.
func (w *randomWriter) fields() map[string]any {
	rng := w.rng
	f := map[string]any{}
	for _, fid := range []string{fldName, fldN, fldCost, fldStat, fldTags, fldDone, fldDue, fldOwner} {
		if rng.IntN(3) != 0 {
			continue
		}
		switch fid {
		case fldName:
			f[fid] = fmt.Sprintf("task %d", rng.IntN(1000))
		case fldN:
			f[fid] = float64(rng.IntN(100))
		case fldCost:
			f[fid] = float64(rng.IntN(10000)) / 100
		case fldStat:
			f[fid] = []any{"Todo", "Done", nil}[rng.IntN(3)]
		case fldTags:
			f[fid] = [][]string{{"a"}, {"b", "a"}, {}}[rng.IntN(3)]
		case fldDone:
			f[fid] = rng.IntN(2) == 0
		case fldDue:
			f[fid] = []any{"2025-01-31", "2024-02-29", nil}[rng.IntN(3)]
		case fldOwner:
			n := rng.IntN(3)
			ids := []string{}
			for range n {
				if id := w.pick(w.people); !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
			}
			f[fid] = ids
		}
	}
	for _, fid := range w.added {
		if rng.IntN(3) == 0 {
			f[fid] = fmt.Sprintf("note %d", rng.IntN(100))
		}
	}
	for _, fid := range w.addedLinks {
		if rng.IntN(3) == 0 {
			f[fid] = []string{w.pick(w.people)}
		}
	}
	return f
}

// write runs operation op (of rng.IntN(22)) as operation i and reports whether op was a write:
// creates, updates, typecast writes, deletes of Tasks; people created and renamed; fields of
// Tasks added (text, number, link), renamed and deleted; records of the table the run created.
func (w *randomWriter) write(i, op int) bool {
	t, h := w.t, w.h
	switch {
	case op < 4 || len(w.tasks) < 3: // create
		n := 1 + w.rng.IntN(3)
		list := make([]map[string]any, n)
		for j := range list {
			list[j] = w.fields()
		}
		recs, err := h.base.Table(tasksID).BatchCreate(bg, list, transport.WriteOptions{})
		if err != nil {
			t.Fatalf("op %d create: %v", i, err)
		}
		for _, r := range recs {
			w.tasks = append(w.tasks, r.ID)
		}
	case op < 9: // update
		if _, err := h.base.Table(tasksID).Update(bg, w.pick(w.tasks), w.fields(), transport.WriteOptions{Replace: w.rng.IntN(5) == 0}); err != nil {
			t.Fatalf("op %d update: %v", i, err)
		}
	case op < 11: // typecast: a new choice, a number from text
		f := map[string]any{fldStat: fmt.Sprintf("New %d", w.rng.IntN(5)), fldN: fmt.Sprint(w.rng.IntN(50))}
		if _, err := h.base.Table(tasksID).Update(bg, w.pick(w.tasks), f, transport.WriteOptions{Typecast: true}); err != nil {
			t.Fatalf("op %d typecast: %v", i, err)
		}
	case op < 13: // delete
		id := w.pick(w.tasks)
		if _, err := h.base.Table(tasksID).Delete(bg, id); err != nil {
			t.Fatalf("op %d delete: %v", i, err)
		}
		w.tasks = slices.DeleteFunc(w.tasks, func(s string) bool { return s == id })
		w.gone[id] = true
	case op < 14: // a person created or renamed
		if w.rng.IntN(2) == 0 {
			r, err := h.base.Create(bg, peopleID, map[string]any{"Name": fmt.Sprintf("person %d", i)}, transport.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			w.people = append(w.people, r.ID)
		} else if _, err := h.base.Update(bg, peopleID, w.pick(w.people), map[string]any{"Name": fmt.Sprintf("renamed %d", i)}, transport.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	case op < 15: // a field added
		spec := []transport.FieldSpec{{Name: fmt.Sprintf("Note %d", i), Type: "singleLineText"},
			{Name: fmt.Sprintf("Score %d", i), Type: "number", Options: map[string]any{"precision": 0}},
			{Name: fmt.Sprintf("Helper %d", i), Type: "multipleRecordLinks", Options: map[string]any{"linkedTableId": peopleID}}}[w.rng.IntN(3)]
		f, err := h.base.CreateField(bg, tasksID, spec)
		if err != nil {
			t.Fatalf("op %d add field: %v", i, err)
		}
		switch spec.Type {
		case "singleLineText":
			w.added = append(w.added, f.ID)
		case "multipleRecordLinks":
			w.addedLinks = append(w.addedLinks, f.ID)
		}
	case op < 16 && len(w.added)+len(w.addedLinks) > 0: // a field renamed (a link's junction table too)
		if _, err := h.base.UpdateField(bg, tasksID, w.pick(append(slices.Clone(w.added), w.addedLinks...)), transport.FieldUpdate{Name: new(fmt.Sprintf("Renamed %d", i))}); err != nil {
			t.Fatalf("op %d rename field: %v", i, err)
		}
	case op < 17 && len(w.added) > 0: // a field deleted (in the interface: the API cannot)
		id := w.pick(w.added)
		if err := h.s.DeleteField(syncBase, tasksID, id); err != nil {
			t.Fatal(err)
		}
		w.added = slices.DeleteFunc(w.added, func(s string) bool { return s == id })
		w.fieldsDeleted++
	case op < 19 && w.extraTable != "": // a record of the table created
		if len(w.extra) > 0 && w.rng.IntN(2) == 0 {
			if _, err := h.base.Update(bg, w.extraTable, w.pick(w.extra), map[string]any{"Budget": float64(w.rng.IntN(1000)) / 10}, transport.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		} else {
			r, err := h.base.Create(bg, w.extraTable, map[string]any{"Title": fmt.Sprintf("project %d", i)}, transport.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			w.extra = append(w.extra, r.ID)
		}
	default:
		return false
	}
	return true
}

// tableStep creates the table Projects at a third of a run of ops operations, renames it past the
// half and deletes it at seven eighths; it reports whether operation i was one of those.
func (w *randomWriter) tableStep(i, ops int) bool {
	switch i {
	case ops / 3:
		w.createTable(i)
	case ops/2 + 1:
		w.renameTable(i)
	case 7 * ops / 8:
		w.dropTable()
	default:
		return false
	}
	return true
}

func (w *randomWriter) createTable(i int) {
	tbl, err := w.h.base.CreateTable(bg, transport.TableSpec{Name: "Projects", Fields: []transport.FieldSpec{
		{Name: "Title", Type: "singleLineText"},
		{Name: "Budget", Type: "number", Options: map[string]any{"precision": 1}}}})
	if err != nil {
		w.t.Fatalf("op %d create table: %v", i, err)
	}
	w.extraTable = tbl.ID
}

func (w *randomWriter) renameTable(i int) {
	if _, err := w.h.base.UpdateTable(bg, w.extraTable, transport.TableUpdate{Name: new("Projects renamed")}); err != nil {
		w.t.Fatalf("op %d rename table: %v", i, err)
	}
}

func (w *randomWriter) dropTable() {
	if err := w.h.s.DeleteTable(syncBase, w.extraTable); err != nil {
		w.t.Fatal(err)
	}
	w.extraTable, w.extra = "", nil
}

// reloadTasks reads the ids of Tasks again (after writes the writer did not make).
func (w *randomWriter) reloadTasks() {
	recs, err := w.h.base.All(bg, tasksID, transport.ListOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	w.tasks = w.tasks[:0]
	for _, r := range recs {
		w.tasks = append(w.tasks, r.ID)
	}
}
