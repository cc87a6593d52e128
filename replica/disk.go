package replica

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Copies on disk (Options.Dir).
//
// The directory holds base.json (the base's id and the webhook the copies follow) and one file
// per table, <tableID>.json, holding its fields, its records and the cursor of the next payload
// to apply to them. A file is written whole to a temporary file that is then renamed over the
// old one, after a copy and after each Sync that changed the table: a process killed at any
// moment leaves each table either as it was after some whole payload (its cursor says which) or
// as it was before — never half a payload. A restart reads the files and polls the webhook from
// their cursors instead of listing the tables; a file it cannot read is ignored (that table is
// copied again on first use), and a webhook that no longer exists makes every table copy again
// (Sync's renewal). One process at a time may use a directory.

const diskVersion = 1

type diskBase struct {
	Version int       `json:"version"`
	Base    string    `json:"base"`
	Webhook string    `json:"webhook"`
	Alive   time.Time `json:"alive"`
	// Polling is why the copies poll (the service refused the webhook), "" when they follow one.
	Polling string `json:"polling,omitempty"`
}

type diskTable struct {
	Version int     `json:"version"`
	Table   string  `json:"table"`
	Name    string  `json:"name"`
	Fields  []Field `json:"fields"`
	Cursor  int     `json:"cursor"`
	Replay  int     `json:"replay"`
	Stats   Stats   `json:"stats"`
	// When polling: when the last poll and id listing began, and the computed fields' definitions.
	PolledAt    time.Time    `json:"polledAt,omitzero"`
	CheckedAt   time.Time    `json:"checkedAt,omitzero"`
	ComputedSig string       `json:"computedSig,omitempty"`
	Records     []diskRecord `json:"records"`
}

type diskRecord struct {
	ID          string         `json:"id"`
	CreatedTime time.Time      `json:"createdTime"`
	Cells       map[string]any `json:"cells"` // by field id
}

// writeFileAtomic writes data to path through a temporary file renamed over it.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// saveBase writes base.json: the webhook the copies follow.
func (b *Base) saveBase() error {
	if b.dir == "" {
		return nil
	}
	b.mu.RLock()
	d := diskBase{Version: diskVersion, Base: b.base.ID(), Webhook: b.hookID, Alive: b.alive}
	if b.pollReason != nil {
		d.Polling = b.pollReason.Error()
	}
	b.mu.RUnlock()
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(b.dir, 0o700); err != nil {
		return fmt.Errorf("replica: keep the copies in %s: %w", b.dir, err)
	}
	if err := writeFileAtomic(filepath.Join(b.dir, "base.json"), data); err != nil {
		return fmt.Errorf("replica: keep the copies in %s: %w", b.dir, err)
	}
	return nil
}

// saveTables writes the file of every copy that changed since it was last written.
func (b *Base) saveTables() error {
	if b.dir == "" {
		return nil
	}
	// A Sync and a copy may end together (CopyTablesSyncing): the later write of a table's file
	// must not be the older state.
	b.saveMu.Lock()
	defer b.saveMu.Unlock()
	if err := b.saveBase(); err != nil { // alive moved on
		return err
	}
	for _, t := range b.tableList() {
		if err := t.save(b.dir); err != nil {
			return fmt.Errorf("replica: keep the copy of %s in %s: %w", t.tableID, b.dir, err)
		}
	}
	return nil
}

// save writes the table's file when its content or cursor changed since the last write.
func (t *Table) save(dir string) error {
	t.mu.RLock()
	if t.savedGen == t.gen && t.savedCursor == t.cursor && t.savedPolled.Equal(t.polledAt) && t.savedAny {
		t.mu.RUnlock()
		return nil
	}
	d := diskTable{Version: diskVersion, Table: t.tableID, Name: t.name, Cursor: t.cursor, Replay: t.replay, Stats: t.stats,
		PolledAt: t.polledAt, CheckedAt: t.checkedAt, ComputedSig: t.computedSig}
	for _, id := range t.order {
		d.Fields = append(d.Fields, t.fields[id])
	}
	d.Records = make([]diskRecord, 0, len(t.rows))
	for _, r := range t.rows {
		cells := make(map[string]any, len(r.vals))
		for c, v := range r.vals {
			if v != nil && c < len(t.colIDs) && t.colIDs[c] != "" {
				cells[t.colIDs[c]] = v
			}
		}
		d.Records = append(d.Records, diskRecord{ID: r.id, CreatedTime: r.created, Cells: cells})
	}
	gen, cursor, polledAt := t.gen, t.cursor, t.polledAt
	data, err := json.Marshal(d)
	t.mu.RUnlock()
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, t.tableID+".json"), data); err != nil {
		return err
	}
	t.mu.Lock()
	t.savedGen, t.savedCursor, t.savedPolled, t.savedAny = gen, cursor, polledAt, true
	t.mu.Unlock()
	return nil
}

// load reads the copies kept in b.dir. ok is false when there are none to resume (no base.json,
// or one of another base): the caller makes a webhook.
func (b *Base) load() (ok bool, err error) {
	data, err := os.ReadFile(filepath.Join(b.dir, "base.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("replica: read the copies in %s: %w", b.dir, err)
	}
	var d diskBase
	if json.Unmarshal(data, &d) != nil || d.Version != diskVersion || d.Base != b.base.ID() || d.Webhook == "" && d.Polling == "" {
		return false, nil // damaged or another base's: start afresh
	}
	b.hookID, b.alive = d.Webhook, d.Alive
	if d.Polling != "" {
		b.pollReason = errors.New(d.Polling)
	}
	entries, err := os.ReadDir(b.dir)
	if err != nil {
		return false, fmt.Errorf("replica: read the copies in %s: %w", b.dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp") {
			os.Remove(filepath.Join(b.dir, name)) // a write cut short by a kill: the old file stands
			continue
		}
		if !strings.HasPrefix(name, "tbl") || !strings.HasSuffix(name, ".json") {
			continue
		}
		t, err := b.loadTable(filepath.Join(b.dir, name))
		if err != nil {
			continue // unreadable: that table is copied again on first use
		}
		b.tables[t.tableID] = t
	}
	return true, nil
}

// loadTable reads one table's file.
func (b *Base) loadTable(path string) (*Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d diskTable
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, err
	}
	if d.Version != diskVersion || d.Table == "" || filepath.Base(path) != d.Table+".json" {
		return nil, fmt.Errorf("replica: %s is not a copy of this version", path)
	}
	t := &Table{b: b, tableID: d.Table, name: d.Name, cursor: d.Cursor, replay: d.Replay, stats: d.Stats,
		polledAt: d.PolledAt, checkedAt: d.CheckedAt, computedSig: d.ComputedSig,
		fields: map[string]Field{}, cols: map[string]int{}, rows: make(map[string]*row, len(d.Records))}
	for _, f := range d.Fields {
		t.fields[f.ID] = f
		t.order = append(t.order, f.ID)
		t.cols[f.ID] = len(t.colIDs)
		t.colIDs = append(t.colIDs, f.ID)
	}
	for _, r := range d.Records {
		rw := &row{id: r.ID, created: r.CreatedTime, vals: make([]any, len(t.colIDs))}
		for id, v := range r.Cells {
			c, known := t.cols[id]
			if !known {
				c = len(t.colIDs)
				t.cols[id] = c
				t.colIDs = append(t.colIDs, id)
			}
			rw.set(c, v)
		}
		t.rows[r.ID] = rw
	}
	t.gen = 1
	t.savedGen, t.savedCursor, t.savedPolled, t.savedAny = t.gen, t.cursor, t.polledAt, true
	return t, nil
}
