package replica

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/airsql/airsql/transport"
)

// Polling mode: the copies without a webhook.
//
// Where the service refuses the webhook (a token without webhook:manage, a base at its limit of
// ten), the copies are kept current by listing, each Sync, the records of each copied table whose
// LAST_MODIFIED_TIME() is after the previous poll began, less pollMargin: the service's times
// have a resolution of a second and the watermark is the client's clock, so the window overlaps
// the previous one, and a record listed twice is applied twice harmlessly (its cells are replaced
// by the listing's). LAST_MODIFIED_TIME() moves only with a change to a record's own
// non-computed cells, and a listing never shows a record deleted: every FullCheck a table's ids
// are listed (with its computed fields, whose values change with other records) to find
// deletions and bring the computed values up to date. The schema is read at most once per
// schemaTTL (or when a listed record holds a field it does not know); what changed in it is
// turned into the payload the webhook would have sent, so the same rules (PlanChange) decide
// what applies and what makes the table copy again.
//
// Polling's contract is weaker than the webhook's, and SHOW REPLICA STATUS and EXPLAIN say so: a
// read sees every change to a record's own cells acknowledged at least freshness before it
// began (as with the webhook), but records deleted by other clients and computed values that
// follow other records' changes (lookups, rollups, counts, formulas over them) within FullCheck
// (twice that for a record deleted while an id listing runs), and field renames and deletions
// within schemaTTL. The connection's own writes patch the copy
// as with the webhook.

// pollMargin is how far each poll's window reaches back before the previous poll began: twice
// the service's one-second resolution, plus the clock skew between client and service it
// tolerates.
const pollMargin = time.Minute

// schemaTTL is how long a poll trusts the schema it read last (and a copy a cursor and schema
// read for another copy: copyStart).
const schemaTTL = time.Minute

// DefaultFullCheck is how often, by default, a polled table's ids are listed to find deletions.
const DefaultFullCheck = 10 * time.Minute

// webhookRefused reports whether err, the error of creating the webhook or of reading it, means
// the service will not give one (no webhook:manage scope, no creator access, too many webhooks on
// the base): the copies then poll.
func webhookRefused(err error) bool {
	var api *transport.APIError
	return errors.As(err, &api) && api.StatusCode == 403 || errors.Is(err, transport.ErrTooManyWebhooks)
}

// Polling returns why the copies poll instead of following a webhook (the service's refusal),
// or nil when they follow one.
func (b *Base) Polling() error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.pollReason
}

// fallBack switches copies that followed the webhook to polling, because the service refused
// its payloads (why): each copy's next poll lists the records changed since the last sync began
// (every change from before it is in the copies), and its ids at once, for the deletions.
func (b *Base) fallBack(why error) error {
	b.mu.Lock()
	b.pollReason = why
	synced := b.synced
	b.mu.Unlock()
	for _, t := range b.tableList() {
		t.mu.Lock()
		t.polledAt, t.checkedAt = synced, time.Time{}
		t.mu.Unlock()
	}
	return b.saveBase()
}

// FullCheck is how often a polled table's ids are listed to find deletions.
func (b *Base) FullCheck() time.Duration { return b.fullCheck }

// readSchema reads the base's schema and keeps it for polls.
func (b *Base) readSchema(ctx context.Context) (*transport.BaseSchema, error) {
	started := b.clock.Now()
	s, err := b.base.Schema(ctx)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.schema, b.schemaAt = s, started
	b.mu.Unlock()
	return s, nil
}

// cachedSchema is the schema read last if it is younger than schemaTTL, else a new read.
func (b *Base) cachedSchema(ctx context.Context) (*transport.BaseSchema, time.Time, error) {
	b.mu.RLock()
	s, at := b.schema, b.schemaAt
	b.mu.RUnlock()
	if s != nil && b.clock.Now().Sub(at) < schemaTTL {
		return s, at, nil
	}
	at = b.clock.Now()
	s, err := b.readSchema(ctx)
	return s, at, err
}

func tableSchema(s *transport.BaseSchema, tableID string) *transport.TableSchema {
	for i := range s.Tables {
		if s.Tables[i].ID == tableID {
			return &s.Tables[i]
		}
	}
	return nil
}

// polled is what one poll listed of a table.
type polled struct {
	started time.Time          // before either listing was sent
	changed []transport.Record // records modified since the window's start
	ids     []transport.Record // every record with its computed cells, when checked
	checked bool               // the ids were listed (FullCheck was due)
	err     error
}

// pollAll brings every copy up to date by listing what changed (see Polling mode above).
func (b *Base) pollAll(ctx context.Context) error {
	tables := b.tableList()
	if len(tables) == 0 {
		return nil
	}
	schema, schemaAt, err := b.cachedSchema(ctx)
	if err != nil {
		return fmt.Errorf("replica of base %s: read the schema: %w", b.base.ID(), err)
	}
	results := make([]polled, len(tables))
	var wg sync.WaitGroup
	for i, t := range tables {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = t.pollFetch(ctx, tableSchema(schema, t.tableID))
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.err != nil {
			return fmt.Errorf("replica of %s: poll for changes: %w", tables[i].tableID, r.err)
		}
		if schemaAt.Before(r.started) && holdsUnknownField(tableSchema(schema, tables[i].tableID), r) {
			// A field created after the schema was read: read it again now, not in schemaTTL.
			if schema, err = b.readSchema(ctx); err != nil {
				return fmt.Errorf("replica of base %s: read the schema: %w", b.base.ID(), err)
			}
			schemaAt = b.clock.Now()
		}
	}
	var recopy []*Table
	var deleted []string
	for i, t := range tables {
		err := t.applyPoll(tableSchema(schema, t.tableID), results[i])
		var rc *errRecopy
		switch {
		case err == nil:
		case errors.As(err, &rc):
			recopy = append(recopy, t)
		case errors.Is(err, errTableDeleted):
			b.drop(t)
			deleted = append(deleted, t.tableID)
		default:
			return err
		}
	}
	if len(recopy) > 0 {
		if err := b.copyTables(ctx, recopy); err != nil {
			return err
		}
	}
	if len(deleted) > 0 {
		return fmt.Errorf("replica of base %s: tables %v: %w", b.base.ID(), deleted, errTableDeleted)
	}
	return nil
}

// drop forgets a copy whose table was deleted from the base.
func (b *Base) drop(t *Table) {
	b.mu.Lock()
	delete(b.tables, t.tableID)
	b.mu.Unlock()
	if b.dir != "" {
		_ = os.Remove(filepath.Join(b.dir, t.tableID+".json")) // else a restart would resume it
	}
}

// holdsUnknownField reports whether a poll listed a cell of a field the schema lacks.
func holdsUnknownField(ts *transport.TableSchema, r polled) bool {
	if ts == nil {
		return false
	}
	known := make(map[string]bool, len(ts.Fields))
	for _, f := range ts.Fields {
		known[f.ID] = true
	}
	for _, rec := range r.changed {
		for id := range rec.Fields {
			if !known[id] {
				return true
			}
		}
	}
	return false
}

// pollFetch lists what changed in the table since its last poll began (less pollMargin), and
// when FullCheck is due, first its ids with its computed cells. The ids are listed first: a
// record created after they were is then in the changes, never taken for deleted.
func (t *Table) pollFetch(ctx context.Context, ts *transport.TableSchema) polled {
	if ts == nil {
		return polled{} // deleted from the base: applyPoll says so
	}
	b := t.b
	r := polled{started: b.clock.Now()}
	t.mu.Lock()
	since := t.polledAt.Add(-pollMargin)
	r.checked = r.started.Sub(t.checkedAt) >= b.fullCheck
	t.written = map[string]bool{}
	t.mu.Unlock()
	if r.checked {
		r.ids, r.err = b.base.All(ctx, t.tableID, transport.ListOptions{ReturnFieldsByFieldID: true, Fields: checkFields(ts)})
		if r.err != nil {
			return r
		}
	}
	r.changed, r.err = b.base.All(ctx, t.tableID, transport.ListOptions{ReturnFieldsByFieldID: true, Formula: changedSince(since)})
	return r
}

// changedSince is the formula of the records modified after a time.
func changedSince(since time.Time) string {
	return fmt.Sprintf("IS_AFTER(LAST_MODIFIED_TIME(), '%s')", since.UTC().Format("2006-01-02T15:04:05.000Z"))
}

// checkFields are the fields an id listing asks for: the primary field (the cheapest way to
// ask for few) and every computed field, whose values change without the record's
// LAST_MODIFIED_TIME().
func checkFields(ts *transport.TableSchema) []string {
	out := []string{ts.PrimaryFieldID}
	for _, f := range ts.Fields {
		if computedType[f.Type] && f.ID != ts.PrimaryFieldID {
			out = append(out, f.ID)
		}
	}
	return out
}

// computedSignature sums up the definitions of a table's computed fields: one that changed
// (a formula edited) changes their values without a record's LAST_MODIFIED_TIME().
func computedSignature(ts *transport.TableSchema) string {
	var defs []transport.FieldSchema
	for _, f := range ts.Fields {
		if computedType[f.Type] {
			defs = append(defs, transport.FieldSchema{ID: f.ID, Type: f.Type, Options: f.Options})
		}
	}
	data, _ := json.Marshal(defs) // maps marshal with sorted keys: equal definitions, equal text
	return string(data)
}

// schemaPayload is the payload the webhook would have sent for the difference between the copy's
// fields and the table's schema now, so that PlanChange decides what applies.
func (t *Table) schemaPayload(ts *transport.TableSchema) transport.WebhookPayload {
	tc := transport.WebhookTableChanged{}
	if ts.Name != t.name {
		name := ts.Name
		tc.ChangedMetadata = &transport.WebhookMetadataChange{Current: transport.WebhookTableInfo{Name: &name}}
	}
	now := map[string]bool{}
	for _, f := range ts.Fields {
		now[f.ID] = true
		old, known := t.fields[f.ID]
		switch {
		case !known:
			if tc.CreatedFieldsByID == nil {
				tc.CreatedFieldsByID = map[string]transport.WebhookField{}
			}
			tc.CreatedFieldsByID[f.ID] = transport.WebhookField{Type: f.Type, Name: f.Name}
		case old.Name != f.Name || old.Type != f.Type:
			if tc.ChangedFieldsByID == nil {
				tc.ChangedFieldsByID = map[string]transport.WebhookFieldChange{}
			}
			tc.ChangedFieldsByID[f.ID] = transport.WebhookFieldChange{Current: transport.WebhookField{Type: f.Type, Name: f.Name}}
		}
	}
	for _, id := range t.order {
		if !now[id] {
			tc.DestroyedFieldIDs = append(tc.DestroyedFieldIDs, id)
		}
	}
	p := transport.WebhookPayload{Cursor: t.cursor}
	if tc.ChangedMetadata != nil || tc.CreatedFieldsByID != nil || tc.ChangedFieldsByID != nil || tc.DestroyedFieldIDs != nil {
		p.ChangedTablesByID = map[string]transport.WebhookTableChanged{t.tableID: tc}
	}
	return p
}

// applyPoll applies one poll to the copy, whole, or returns why it cannot (errRecopy,
// errTableDeleted) without changing it. Records this client wrote since the poll began (Patch)
// are left as the patch made them: the listing may predate the write, and the next poll's window
// holds the write.
func (t *Table) applyPoll(ts *transport.TableSchema, r polled) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	written := t.written
	t.written = nil
	if ts == nil {
		return errTableDeleted
	}
	if sig := computedSignature(ts); sig != t.computedSig {
		t.lastRecopy = &errRecopy{"the definition of a computed field changed: its values may all have changed"}
		return t.lastRecopy
	}
	p := t.schemaPayload(ts)
	ch, err := PlanChange(CopyState{TableID: t.tableID, Name: t.name, Fields: t.fields, Order: t.order, Cursor: t.cursor,
		HasRecord: func(id string) (bool, error) { return t.rows[id] != nil, nil }}, p)
	if err != nil {
		if IsRecopy(err) {
			t.lastRecopy = err
		}
		return err
	}
	if ch.Touched {
		t.commit(ch) // the schema's change, before the cells of new fields arrive
	}
	changed := ch.Touched
	if r.checked {
		changed = t.applyCheck(ts, r, written) || changed
	}
	in := interner{}
	for _, rec := range r.changed {
		if written[rec.ID] {
			continue
		}
		rw := &row{id: rec.ID, created: rec.CreatedTime, vals: make([]any, len(t.colIDs))}
		for id, v := range rec.Fields {
			rw.set(t.column(id), in.value(t.fields[id].Type, v))
		}
		if old := t.rows[rec.ID]; old == nil || !sameCells(old.vals, rw.vals) || !old.created.Equal(rw.created) {
			t.rows[rec.ID] = rw
			changed = true
		}
	}
	t.polledAt = r.started
	if r.checked {
		t.checkedAt = r.started
	}
	if changed {
		if !ch.Touched {
			t.stats.PayloadsApplied++ // commit counted the schema's change
		}
		t.gen++
	}
	return nil
}

// applyCheck applies an id listing: records missing from it (and from the changes listed after
// it, and not written by this client since) were deleted; the computed cells of the others are
// set to the listing's. It reports whether the copy changed.
func (t *Table) applyCheck(ts *transport.TableSchema, r polled, written map[string]bool) bool {
	changed := false
	present := make(map[string]bool, len(r.ids)+len(r.changed))
	for _, rec := range r.changed {
		present[rec.ID] = true
	}
	var computedCols []int
	for _, f := range ts.Fields {
		if computedType[f.Type] {
			computedCols = append(computedCols, t.column(f.ID))
		}
	}
	for _, rec := range r.ids {
		present[rec.ID] = true
		old := t.rows[rec.ID]
		if old == nil || written[rec.ID] {
			continue // created since the last poll: in the changes listed after
		}
		rw := &row{id: old.id, created: old.created, vals: slices.Clone(old.vals)}
		for _, c := range computedCols {
			if c < len(rw.vals) {
				rw.vals[c] = nil
			}
		}
		for id, v := range rec.Fields {
			if computedType[t.fields[id].Type] {
				rw.set(t.column(id), v)
			}
		}
		if !sameCells(old.vals, rw.vals) {
			t.rows[rec.ID] = rw
			changed = true
		}
	}
	for id := range t.rows {
		if !present[id] && !written[id] {
			delete(t.rows, id)
			changed = true
		}
	}
	return changed
}

// column is the column of a field in the rows, a new one for a field the copy lacks (created
// since the schema was read: the next read of the schema names it).
func (t *Table) column(fieldID string) int {
	c, known := t.cols[fieldID]
	if !known {
		c = len(t.colIDs)
		t.cols[fieldID] = c
		t.colIDs = append(t.colIDs, fieldID)
	}
	return c
}

// sameCells reports whether two rows' cells are equal (a missing trailing column is empty).
func sameCells(a, b []any) bool {
	for i := range max(len(a), len(b)) {
		var x, y any
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}
