package replica

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/airsql/airsql/transport"
)

// CellRow is one record of a copy with its cells by column (the names CellRows returns): what
// a SQL engine reads without a map per record. Its cells are shared and never change once made
// (a change to a record makes a new row); do not change them.
type CellRow struct {
	ID          string
	CreatedTime time.Time
	Cells       []any // by column; nil: empty. Shorter than the columns when fields were added since.
}

// CellRows returns every record of the copy, in the order the records API lists a table
// (creation time, then id), with its cells by column; the field name of each column ("" for
// the column of a deleted field); and the generation they are of (see Generation). It holds no
// map per record, and shares the copy's cells rather than copying them.
func (t *Table) CellRows() ([]CellRow, []string, uint64) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	columns := make([]string, len(t.colIDs))
	for c, id := range t.colIDs {
		if f, ok := t.fields[id]; ok && id != "" {
			columns[c] = f.Name
		}
	}
	out := make([]CellRow, 0, len(t.rows))
	for _, r := range t.rows {
		out = append(out, CellRow{ID: r.id, CreatedTime: r.created, Cells: r.vals})
	}
	slices.SortFunc(out, func(a, b CellRow) int {
		if c := a.CreatedTime.Compare(b.CreatedTime); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out, columns, t.gen
}

// Generation counts the changes to the copy: a copy, a payload that changed it, a patch. Equal
// generations hold equal rows.
func (t *Table) Generation() uint64 {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.gen
}

// Len is the number of records in the copy.
func (t *Table) Len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.rows)
}

// LastError says why the copy was last copied again (a payload it could not apply exactly), nil
// when it never was.
func (t *Table) LastError() error {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.lastRecopy
}

// Mark is the position of a copy in its webhook's payloads: take it before sending a write, and
// give it to Patch with the write's answer.
type Mark struct {
	cursor, copies int
}

// Mark returns the copy's position now.
func (t *Table) Mark() Mark {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return Mark{cursor: t.cursor, copies: t.stats.Copies}
}

// ErrMoved says that Patch did not apply a write's answer: the copy applied payloads or was
// copied since the write's Mark, and may already hold changes made after the write. Sync before
// the next read instead: the write is in the webhook's payloads.
var ErrMoved = errors.New("the copy moved since the write was sent")

// Patch puts into the copy what a write returned, so that the writer reads its own write before
// the webhook's payload for it is read: written are the records created or updated as the
// records API answered (every non-empty cell, by field name), deleted the ids deleted. m is the
// copy's Mark from before the write was sent.
//
// The copy stays exact: no payload was applied since m, so the payloads from its cursor on
// (others' changes before the write, the write's own, later ones) are still to be applied in
// order, and each sets the cells it names to the values they had after it. Until a drain that
// began after the patch ends, a payload naming a record the copy lacks is skipped, as when
// replaying after a listing: the write deleted it. It returns ErrMoved when the copy moved since
// m, and an error naming the field when a cell's field is not in the copy; in both cases nothing
// changed.
func (t *Table) Patch(m Mark, written []transport.Record, deleted []string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if m.cursor != t.cursor || m.copies != t.stats.Copies {
		return ErrMoved
	}
	byName := make(map[string]Field, len(t.fields))
	for _, f := range t.fields {
		byName[f.Name] = f
	}
	in := interner{}
	staged := make([]*row, 0, len(written))
	for _, rec := range written {
		rw := &row{id: rec.ID, created: rec.CreatedTime, vals: make([]any, len(t.colIDs))}
		if old := t.rows[rec.ID]; old != nil && rw.created.IsZero() {
			rw.created = old.created
		}
		for name, v := range rec.Fields {
			f, ok := byName[name]
			if !ok {
				return &errRecopy{"a write answered field " + name + ", which the copy does not know"}
			}
			rw.set(t.cols[f.ID], in.value(f.Type, v))
		}
		staged = append(staged, rw)
	}
	for _, rw := range staged {
		t.rows[rw.id] = rw
		if t.written != nil { // a poll is running: its listing may predate the write
			t.written[rw.id] = true
		}
	}
	for _, id := range deleted {
		delete(t.rows, id)
		if t.written != nil {
			t.written[id] = true
		}
	}
	t.patched, t.patchedEpoch = true, t.b.drainEpoch.Load()
	t.gen++
	return nil
}

// endPatches ends the leniency of patches made before the drain of epoch began.
func (t *Table) endPatches(epoch uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.patched && t.patchedEpoch < epoch {
		t.patched = false
	}
}

// endReplay ends the leniency of a copy's first drain (pendingReplay): payloads from its cursor
// on come after its listing.
func (t *Table) endReplay() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.replay == pendingReplay {
		t.replay = t.cursor
	}
}

// Copied returns the copy of a table if the base holds one, without copying it.
func (b *Base) Copied(tableID string) (*Table, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	t, ok := b.tables[tableID]
	return t, ok
}

// Stale makes the next SyncIfOlder sync whatever its age (after a write the copy could not be
// patched with).
func (b *Base) Stale() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.synced = time.Time{}
}

// Tables returns the copies the base holds, by table id.
func (b *Base) Tables() []*Table { return b.tableList() }

// CopyTables copies, side by side, the tables of ids the base holds no copy of yet (Table
// copies one): a statement reading three tables copies them in about the time of their pages.
func (b *Base) CopyTables(ctx context.Context, ids []string) error {
	b.syncMu.Lock()
	defer b.syncMu.Unlock()
	_, err := b.copyNewLocked(ctx, ids)
	return err
}

// copyNewLocked is CopyTables under syncMu; it returns the tables it copied.
func (b *Base) copyNewLocked(ctx context.Context, ids []string) ([]*Table, error) {
	var ts []*Table
	seen := map[string]bool{}
	for _, id := range ids {
		if _, ok := b.Copied(id); ok || seen[id] {
			continue
		}
		seen[id] = true
		ts = append(ts, &Table{b: b, tableID: id})
	}
	if len(ts) == 0 {
		return nil, nil
	}
	err := b.copyTables(ctx, ts)
	if errors.Is(err, errHookGone) { // expired while no copy read it
		if err = b.newHook(ctx); err == nil {
			err = b.copyTables(ctx, append(b.tableList(), ts...))
		}
	}
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	for _, t := range ts {
		b.tables[t.tableID] = t
	}
	b.mu.Unlock()
	return ts, b.saveTables()
}
