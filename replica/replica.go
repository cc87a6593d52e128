// Package replica keeps a local copy of an Airtable table current with the base's webhook payloads.
//
// A Table is copied with one listing; the webhook's cursor is read before the listing starts, so
// that every change the listing may or may not have seen is in a payload from that cursor on.
// Sync then applies the payloads in cursor order, each whole or not at all. Replaying a change the
// listing already held is harmless: a payload sets cells to the values they had after it, and the
// last payload to touch a cell sets its final value. What a payload cannot say exactly makes the
// table copy itself again instead of serving a wrong row: payloads lost to retention (a cursor
// gap), an error payload (the webhook ended; a new one is made), a field whose type changed, a
// field deleted from a table with computed fields, a cell of a field or a change to a record the
// copy does not know.
//
//	tbl, err := replica.Open(ctx, base, "tblXXXXXXXXXXXXXX") // creates the webhook, copies the table
//	err = tbl.Sync(ctx)                                      // applies the payloads since
//	row, ok := tbl.Row("recXXXXXXXXXXXXXX")                  // cells by field id, REST values
//
// Cells are the values the records API returns (with returnFieldsByFieldId), converted from the
// webhook forms where they differ: a select's name, a link's record ids, a lookup's values.
package replica

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/transport"
)

// Row is one record of the copy.
type Row struct {
	ID          string
	CreatedTime time.Time
	Cells       map[string]any // by field id; empty cells are absent, as in the records API
}

// Field is one field of the copy's table.
type Field struct {
	ID, Name, Type string
}

// Stats counts what the copy did.
type Stats struct {
	Copies          int   // full listings, the first included
	PayloadsApplied int   // payloads applied to the copy
	LastTransaction int64 // baseTransactionNumber of the last payload applied
}

// Options configure a Table.
type Options struct {
	// Clock is what the copy reads time from, to tell when its webhook may have expired (default:
	// the wall clock). Give the client's clock in tests.
	Clock clock.Clock
}

// hookLifetime is how long the service keeps a webhook alive after it was created, refreshed or
// its payloads were read; checkAfter is when Sync looks whether it is still alive.
const (
	hookLifetime = 7 * 24 * time.Hour
	checkAfter   = hookLifetime - time.Hour
)

// Table is the copy of one table. It is safe for concurrent use; Sync calls are serialized.
type Table struct {
	base    *transport.Base
	tableID string
	clock   clock.Clock

	syncMu sync.Mutex // one Sync (or copy) at a time

	mu      sync.RWMutex // guards what follows
	hookID  string
	name    string
	fields  map[string]Field
	order   []string // field ids in schema order
	rows    map[string]*Row
	cursor  int // the next payload to apply
	replay  int // payloads below this cursor may predate the listing (see apply)
	stats   Stats
	lastErr error
	// alive is when the webhook was last known alive (created, or its payloads read): past
	// checkAfter since then, Sync asks the service whether it still is.
	alive time.Time
}

// Open creates a webhook for the table (its records, fields and metadata) and copies the table.
// The token needs webhook:manage, data.records:read and schema.bases:read.
func Open(ctx context.Context, base *transport.Base, tableID string, opts Options) (*Table, error) {
	t := &Table{base: base, tableID: tableID, clock: opts.Clock}
	if t.clock == nil {
		t.clock = clock.Real
	}
	if err := t.newHook(ctx); err != nil {
		return nil, err
	}
	if err := t.copyTable(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Table) spec() transport.WebhookSpecification {
	return transport.WebhookSpecification{Options: transport.WebhookOptions{Filters: transport.WebhookFilters{
		DataTypes:         []string{transport.WebhookTableData, transport.WebhookTableFields, transport.WebhookTableMetadata},
		RecordChangeScope: t.tableID,
	}}}
}

// newHook creates the webhook the copy follows, deleting the one it replaces.
func (t *Table) newHook(ctx context.Context) error {
	hook, err := t.base.CreateWebhook(ctx, t.spec(), "")
	if err != nil {
		return fmt.Errorf("replica of %s: create its webhook: %w", t.tableID, err)
	}
	t.mu.Lock()
	old := t.hookID
	t.hookID, t.alive = hook.ID, t.clock.Now()
	t.mu.Unlock()
	if old != "" {
		_ = t.base.DeleteWebhook(ctx, old) // a dead hook; failing to delete it costs nothing but a slot
	}
	return nil
}

// Close deletes the webhook. The copy stays readable.
func (t *Table) Close(ctx context.Context) error {
	t.mu.RLock()
	id := t.hookID
	t.mu.RUnlock()
	return t.base.DeleteWebhook(ctx, id)
}

// errHookGone says that the webhook expired, was disabled or deleted: changes since may be
// unrecorded, so a new webhook is made and the table copied again.
var errHookGone = errors.New("the webhook expired or was deleted")

// nextCursor reads the cursor the webhook's next payload will get.
func (t *Table) nextCursor(ctx context.Context, hookID string) (int, error) {
	hooks, err := t.base.Webhooks(ctx)
	if err != nil {
		return 0, err
	}
	for _, h := range hooks {
		if h.ID == hookID {
			if !h.IsHookEnabled {
				return 0, errHookGone
			}
			return h.CursorForNextPayload, nil
		}
	}
	return 0, errHookGone
}

// copyTable lists the table afresh. The cursor is read before the listing, so payloads from it on
// cover every change the listing may have missed; they are applied by the next Sync.
func (t *Table) copyTable(ctx context.Context) error {
	t.mu.RLock()
	hookID := t.hookID
	t.mu.RUnlock()
	from, err := t.nextCursor(ctx, hookID)
	if err != nil {
		return fmt.Errorf("replica of %s: read the webhook's cursor: %w", t.tableID, err)
	}
	schema, err := t.base.Schema(ctx)
	if err != nil {
		return fmt.Errorf("replica of %s: read the schema: %w", t.tableID, err)
	}
	var ts *transport.TableSchema
	for i := range schema.Tables {
		if schema.Tables[i].ID == t.tableID {
			ts = &schema.Tables[i]
		}
	}
	if ts == nil {
		return fmt.Errorf("replica of %s: the base has no such table", t.tableID)
	}
	recs, err := t.base.All(ctx, t.tableID, transport.ListOptions{ReturnFieldsByFieldID: true})
	if err != nil {
		return fmt.Errorf("replica of %s: list its records: %w", t.tableID, err)
	}
	upTo, err := t.nextCursor(ctx, hookID)
	if err != nil {
		return fmt.Errorf("replica of %s: read the webhook's cursor: %w", t.tableID, err)
	}
	fields := map[string]Field{}
	order := make([]string, 0, len(ts.Fields))
	for _, f := range ts.Fields {
		fields[f.ID] = Field{ID: f.ID, Name: f.Name, Type: f.Type}
		order = append(order, f.ID)
	}
	rows := make(map[string]*Row, len(recs))
	for _, r := range recs {
		rows[r.ID] = &Row{ID: r.ID, CreatedTime: r.CreatedTime, Cells: r.Fields}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.name, t.fields, t.order, t.rows = ts.Name, fields, order, rows
	t.cursor, t.replay = from, upTo
	t.stats.Copies++
	return nil
}

// errRecopy says that a payload cannot be applied exactly: the table is copied again.
type errRecopy struct{ why string }

func (e *errRecopy) Error() string { return "copy again: " + e.why }

// errNewHook says that the webhook ended (error payload): a new one is needed before the copy.
var errNewHook = errors.New("the webhook ended with an error payload")

// Sync applies every payload the webhook holds past the copy's cursor. A payload it cannot apply
// exactly, or a hole in the payloads, makes it copy the table again (and, after an error payload,
// create a new webhook first), then go on.
func (t *Table) Sync(ctx context.Context) error {
	t.syncMu.Lock()
	defer t.syncMu.Unlock()
	err := t.sync(ctx)
	t.mu.Lock()
	t.lastErr = err
	t.mu.Unlock()
	return err
}

func (t *Table) sync(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		err := t.drain(ctx)
		var recopy *errRecopy
		var gap *transport.WebhookCursorGapError
		switch {
		case err == nil:
			return nil
		case attempt >= 3:
			return fmt.Errorf("replica of %s: still inconsistent after copying it %d times: %w", t.tableID, attempt, err)
		case errors.Is(err, errNewHook), errors.Is(err, errHookGone), errors.Is(err, transport.ErrNotFound):
			if err := t.newHook(ctx); err != nil {
				return err
			}
		case errors.As(err, &recopy), errors.As(err, &gap):
		default:
			return fmt.Errorf("replica of %s: %w", t.tableID, err)
		}
		if err := t.copyTable(ctx); errors.Is(err, errHookGone) {
			if err := t.newHook(ctx); err != nil {
				return err
			}
			if err := t.copyTable(ctx); err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
	}
}

// drain applies payloads until the webhook has no more.
func (t *Table) drain(ctx context.Context) error {
	t.mu.RLock()
	hookID, cursor, alive := t.hookID, t.cursor, t.alive
	t.mu.RUnlock()
	started := t.clock.Now()
	if started.Sub(alive) >= checkAfter {
		// Unread for almost a week: the webhook may have expired, and an expired webhook records
		// nothing. Reading its payloads below would keep it alive only if it still is.
		if _, err := t.nextCursor(ctx, hookID); err != nil {
			return err
		}
	}
	for p, err := range t.base.IterateWebhookPayloads(ctx, hookID, cursor) {
		if err != nil {
			return err
		}
		if err := t.apply(p); err != nil {
			return err
		}
	}
	t.mu.Lock()
	t.alive = started // reading the payloads extended its life
	t.mu.Unlock()
	return nil
}

// apply applies one payload whole, or returns why it cannot without changing anything.
func (t *Table) apply(p transport.WebhookPayload) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p.Cursor < t.cursor {
		return nil // already applied (an answer repeated)
	}
	if p.Error {
		return errNewHook
	}
	if slices.Contains(p.DestroyedTableIDs, t.tableID) {
		return fmt.Errorf("table %s was deleted", t.tableID)
	}
	tc, changed := p.ChangedTablesByID[t.tableID]
	if !changed {
		t.advance(p)
		return nil
	}
	// Payloads below t.replay may predate the listing: a field or record they name and the copy
	// does not know was deleted before the listing saw it, and a later payload says so.
	replaying := p.Cursor < t.replay
	// Stage the new schema and the rows this payload touches, then swap them in.
	fields := maps.Clone(t.fields)
	order := slices.Clone(t.order)
	name := t.name
	if m := tc.ChangedMetadata; m != nil && m.Current.Name != nil {
		name = *m.Current.Name
	}
	for id, f := range tc.CreatedFieldsByID {
		if computedType[f.Type] {
			return &errRecopy{fmt.Sprintf("computed field %s (%s) was created: its values are not all in payloads", id, f.Type)}
		}
		if _, known := fields[id]; !known {
			order = append(order, id)
		}
		fields[id] = Field{ID: id, Name: f.Name, Type: f.Type}
	}
	for id, fc := range tc.ChangedFieldsByID {
		f, known := fields[id]
		if !known && replaying {
			continue
		}
		if !known {
			return &errRecopy{fmt.Sprintf("field %s changed but is not in the copy", id)}
		}
		if fc.Current.Type != "" && fc.Current.Type != f.Type {
			return &errRecopy{fmt.Sprintf("field %s changed type from %s to %s: its values were converted", id, f.Type, fc.Current.Type)}
		}
		if fc.Current.Name != "" {
			f.Name = fc.Current.Name
		}
		fields[id] = f
	}
	if len(tc.DestroyedFieldIDs) > 0 {
		for _, f := range fields {
			if computedType[f.Type] {
				return &errRecopy{fmt.Sprintf("fields %v were deleted from a table with computed fields, whose values may change without a payload", tc.DestroyedFieldIDs)}
			}
		}
	}
	for _, id := range tc.DestroyedFieldIDs {
		delete(fields, id)
		order = slices.DeleteFunc(order, func(o string) bool { return o == id })
	}
	staged := map[string]*Row{} // record id -> new row; nil: deleted
	for id, rec := range tc.CreatedRecordsByID {
		cells, err := restCells(fields, rec.CellValuesByFieldID, replaying)
		if err != nil {
			return err
		}
		staged[id] = &Row{ID: id, CreatedTime: rec.CreatedTime, Cells: cells}
	}
	for id, ch := range tc.ChangedRecordsByID {
		row := staged[id]
		if row == nil {
			old := t.rows[id]
			if old == nil {
				if replaying {
					continue
				}
				return &errRecopy{fmt.Sprintf("record %s changed but is not in the copy", id)}
			}
			row = &Row{ID: id, CreatedTime: old.CreatedTime, Cells: maps.Clone(old.Cells)}
		}
		cells, err := restCells(fields, ch.Current.CellValuesByFieldID, replaying)
		if err != nil {
			return err
		}
		for fid := range ch.Current.CellValuesByFieldID {
			if _, known := fields[fid]; !known {
				continue // replaying: a field deleted since
			}
			if v, ok := cells[fid]; ok {
				row.Cells[fid] = v
			} else {
				delete(row.Cells, fid) // cleared
			}
		}
		staged[id] = row
	}
	for _, id := range tc.DestroyedRecordIDs {
		staged[id] = nil
	}
	// Commit.
	if len(tc.DestroyedFieldIDs) > 0 {
		for _, r := range t.rows {
			for _, fid := range tc.DestroyedFieldIDs {
				delete(r.Cells, fid)
			}
		}
	}
	for id, r := range staged {
		if r == nil {
			delete(t.rows, id)
		} else {
			t.rows[id] = r
		}
	}
	t.fields, t.order, t.name = fields, order, name
	t.advance(p)
	return nil
}

// advance notes that p was applied. The caller holds t.mu.
func (t *Table) advance(p transport.WebhookPayload) {
	t.cursor = p.Cursor + 1
	t.stats.PayloadsApplied++
	t.stats.LastTransaction = p.BaseTransactionNumber
}

// computedType are the field types whose values the service computes.
var computedType = map[string]bool{
	"formula": true, "rollup": true, "count": true, "multipleLookupValues": true, "autoNumber": true,
	"createdTime": true, "lastModifiedTime": true, "createdBy": true, "lastModifiedBy": true,
	"button": true, "externalSyncSource": true, "aiText": true,
}

// restCells converts a payload's cells (webhook forms) to the records API's. A cell of a field
// the copy does not know makes the table copy again, unless replaying (the field was deleted since).
func restCells(fields map[string]Field, in map[string]any, replaying bool) (map[string]any, error) {
	out := make(map[string]any, len(in))
	for id, v := range in {
		f, known := fields[id]
		if !known && replaying {
			continue
		}
		if !known {
			return nil, &errRecopy{fmt.Sprintf("a payload holds field %s, which the copy does not know", id)}
		}
		if v == nil {
			continue
		}
		out[id] = restValue(f.Type, v)
	}
	return out, nil
}

// restValue is a webhook (V2) value in the form the records API gives.
func restValue(typ string, v any) any {
	switch typ {
	case "singleSelect", "externalSyncSource":
		if m, ok := v.(map[string]any); ok {
			return m["name"]
		}
	case "multipleSelects":
		if list, ok := v.([]any); ok {
			out := make([]any, len(list))
			for i, c := range list {
				if m, ok := c.(map[string]any); ok {
					out[i] = m["name"]
				} else {
					out[i] = c
				}
			}
			return out
		}
	case "multipleRecordLinks":
		if list, ok := v.([]any); ok {
			out := make([]any, len(list))
			for i, c := range list {
				if m, ok := c.(map[string]any); ok {
					out[i] = m["id"]
				} else {
					out[i] = c
				}
			}
			return out
		}
	case "multipleLookupValues":
		if m, ok := v.(map[string]any); ok {
			byRecord, _ := m["valuesByLinkedRecordId"].(map[string]any)
			ids, _ := m["linkedRecordIds"].([]any)
			out := []any{}
			for _, id := range ids {
				s, _ := id.(string)
				vals, _ := byRecord[s].([]any)
				out = append(out, vals...)
			}
			if len(out) == 0 {
				return nil
			}
			return out
		}
	case "singleCollaborator":
		return restCollaborator(v)
	case "multipleCollaborators":
		if list, ok := v.([]any); ok {
			out := make([]any, len(list))
			for i, c := range list {
				out[i] = restCollaborator(c)
			}
			return out
		}
	}
	return v
}

func restCollaborator(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := maps.Clone(m)
	delete(out, "permissionLevel")
	delete(out, "profilePicUrl")
	return out
}

// Row returns a copy of one record.
func (t *Table) Row(id string) (Row, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	r := t.rows[id]
	if r == nil {
		return Row{}, false
	}
	return Row{ID: r.ID, CreatedTime: r.CreatedTime, Cells: maps.Clone(r.Cells)}, true
}

// Rows returns a copy of every record, by record id.
func (t *Table) Rows() map[string]Row {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make(map[string]Row, len(t.rows))
	for id, r := range t.rows {
		out[id] = Row{ID: r.ID, CreatedTime: r.CreatedTime, Cells: maps.Clone(r.Cells)}
	}
	return out
}

// Fields returns the table's fields in schema order.
func (t *Table) Fields() []Field {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]Field, len(t.order))
	for i, id := range t.order {
		out[i] = t.fields[id]
	}
	return out
}

// Name is the table's name.
func (t *Table) Name() string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.name
}

// Cursor is the cursor of the next payload the copy will apply.
func (t *Table) Cursor() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.cursor
}

// Stats tells how often the table was copied and how many payloads were applied.
func (t *Table) Stats() Stats {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.stats
}

// Webhook is the id of the webhook the copy follows.
func (t *Table) Webhook() string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.hookID
}
