package replica

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/airsql/airsql/transport"
)

// randomWriter is another client writing at random to a harness's base: the writes of the
// randomized tests (creates, updates, typecast writes, deletes, links, people created and
// renamed, fields added, renamed and deleted).
type randomWriter struct {
	h      *harness
	rng    *rand.Rand
	tasks  []string        // the records of Tasks
	people []string        // the records of People
	added  []string        // field ids created by the run (deletable)
	gone   map[string]bool // records of Tasks deleted
}

func newRandomWriter(h *harness, rng *rand.Rand) *randomWriter {
	return &randomWriter{h: h, rng: rng, tasks: []string{"recTASK0000000001"}, people: []string{"recPERSON00000001"}, gone: map[string]bool{}}
}

func (w *randomWriter) pick(list []string) string { return list[w.rng.IntN(len(list))] }

// fields are random cells of Tasks.
func (w *randomWriter) fields() map[string]any {
	f := map[string]any{}
	for _, fid := range []string{fldName, fldN, fldStatus, fldTags, fldDone, fldOwner} {
		if w.rng.IntN(3) != 0 {
			continue
		}
		switch fid {
		case fldName:
			f[fid] = fmt.Sprintf("task %d", w.rng.IntN(1000))
		case fldN:
			f[fid] = float64(w.rng.IntN(100))
		case fldStatus:
			f[fid] = []any{"Todo", "Done", nil}[w.rng.IntN(3)]
		case fldTags:
			f[fid] = [][]string{{"a"}, {"a", "b"}, {}}[w.rng.IntN(3)]
		case fldDone:
			f[fid] = w.rng.IntN(2) == 0
		case fldOwner:
			if w.rng.IntN(2) == 0 {
				f[fid] = []string{w.pick(w.people)}
			} else {
				f[fid] = []string{}
			}
		}
	}
	for _, fid := range w.added {
		if w.rng.IntN(3) == 0 {
			f[fid] = fmt.Sprintf("note %d", w.rng.IntN(100))
		}
	}
	return f
}

func (w *randomWriter) delete(id string) error {
	if _, err := w.h.tasks.Delete(bg, id); err != nil {
		return err
	}
	w.tasks = slices.DeleteFunc(w.tasks, func(s string) bool { return s == id })
	w.gone[id] = true
	return nil
}

// duringList is a write landing while the copy lists Tasks: a create, an update or a delete.
func (w *randomWriter) duringList() {
	var err error
	switch w.rng.IntN(3) {
	case 0:
		var r *transport.Record
		if r, err = w.h.tasks.Create(bg, w.fields(), transport.WriteOptions{}); err == nil {
			w.tasks = append(w.tasks, r.ID)
		}
	case 1:
		_, err = w.h.tasks.Update(bg, w.pick(w.tasks), w.fields(), transport.WriteOptions{})
	case 2:
		if len(w.tasks) > 2 {
			err = w.delete(w.pick(w.tasks))
		}
	}
	if err != nil {
		w.h.t.Errorf("write during the listing: %v", err)
	}
}

// write makes the write numbered op (0 to 16) at step i; it returns false for none (a field
// renamed or deleted when the run added none).
func (w *randomWriter) write(i, op int) bool {
	h, t := w.h, w.h.t
	t.Helper()
	switch {
	case op < 4 || len(w.tasks) < 3: // create
		list := make([]map[string]any, 1+w.rng.IntN(3))
		for j := range list {
			list[j] = w.fields()
		}
		recs, err := h.tasks.BatchCreate(bg, list, transport.WriteOptions{})
		if err != nil {
			t.Fatalf("op %d create: %v", i, err)
		}
		for _, r := range recs {
			w.tasks = append(w.tasks, r.ID)
		}
	case op < 9: // update
		if _, err := h.tasks.Update(bg, w.pick(w.tasks), w.fields(), transport.WriteOptions{Replace: w.rng.IntN(5) == 0}); err != nil {
			t.Fatalf("op %d update: %v", i, err)
		}
	case op < 11: // typecast: a new choice, a number from text
		f := map[string]any{fldStatus: fmt.Sprintf("New %d", w.rng.IntN(5)), fldN: fmt.Sprint(w.rng.IntN(50))}
		if _, err := h.tasks.Update(bg, w.pick(w.tasks), f, transport.WriteOptions{Typecast: true}); err != nil {
			t.Fatalf("op %d typecast: %v", i, err)
		}
	case op < 13: // delete
		if err := w.delete(w.pick(w.tasks)); err != nil {
			t.Fatalf("op %d delete: %v", i, err)
		}
	case op < 14: // a person created or renamed: the lookup of the tasks that link to it changes
		if w.rng.IntN(2) == 0 {
			r, err := h.people.Create(bg, map[string]any{"Name": fmt.Sprintf("person %d", i)}, transport.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			w.people = append(w.people, r.ID)
		} else if _, err := h.people.Update(bg, w.pick(w.people), map[string]any{"Name": fmt.Sprintf("renamed %d", i)}, transport.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	case op < 15: // a field added
		f, err := h.base.CreateField(bg, tasksID, transport.FieldSpec{Name: fmt.Sprintf("Note %d", i), Type: "singleLineText"})
		if err != nil {
			t.Fatalf("op %d add field: %v", i, err)
		}
		w.added = append(w.added, f.ID)
	case op < 16 && len(w.added) > 0: // a field renamed
		h.renameField(w.pick(w.added), fmt.Sprintf("Renamed %d", i))
	case op < 17 && len(w.added) > 0: // a field deleted (in the interface)
		id := w.pick(w.added)
		if err := h.s.DeleteField(repBase, tasksID, id); err != nil {
			t.Fatal(err)
		}
		w.added = slices.DeleteFunc(w.added, func(s string) bool { return s == id })
	default:
		return false
	}
	return true
}

// resetTasks reads the records of Tasks afresh (after a fault that wrote some).
func (w *randomWriter) resetTasks() {
	recs, err := w.h.base.All(bg, tasksID, transport.ListOptions{})
	if err != nil {
		w.h.t.Fatal(err)
	}
	w.tasks = w.tasks[:0]
	for _, r := range recs {
		w.tasks = append(w.tasks, r.ID)
	}
}
