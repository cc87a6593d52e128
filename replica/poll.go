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

	"github.com/airsql/airsql/internal/clock"
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
// SchemaTTL (or when a listed record holds a field it does not know); what changed in it is
// turned into the payload the webhook would have sent, so the same rules (PlanChange) decide
// what applies and what makes the table copy again.
//
// Polling's contract is weaker than the webhook's, and SHOW REPLICA STATUS and EXPLAIN say so: a
// read sees every change to a record's own cells acknowledged at least freshness before it
// began (as with the webhook), but records deleted by other clients and computed values that
// follow other records' changes (lookups, rollups, counts, formulas over them) within FullCheck
// (twice that for a record deleted while an id listing runs), and field renames and deletions
// within SchemaTTL. The connection's own writes patch the copy
// as with the webhook.

// pollMargin is how far each poll's window reaches back before the previous poll began: twice
// the service's one-second resolution, plus the clock skew between client and service it
// tolerates.
const pollMargin = time.Minute

// SchemaTTL is how long a poll trusts the schema it read last (and a copy a cursor and schema
// read for another copy: copyStart).
const SchemaTTL = time.Minute

// DefaultFullCheck is how often, by default, a polled table's ids are listed to find deletions.
const DefaultFullCheck = 10 * time.Minute

// WebhookRefused reports whether err, the error of creating the webhook or of reading it, means
// the service will not give one (no webhook:manage scope, no creator access, too many webhooks on
// the base): the copies (and airsql sync) then poll.
func WebhookRefused(err error) bool {
	var api *transport.APIError
	return errors.As(err, &api) && api.StatusCode == 403 || errors.Is(err, transport.ErrTooManyWebhooks)
}

// WebhookRequestError marks err as the error of a request about the webhook itself (create it,
// read it, read its payloads), as opposed to a listing's: only such an error, when the service
// refuses the webhook (RefusedWebhookRequest), makes the copies (and airsql sync) poll; a 403 of a
// listing (a token without data.records:read) is an error to report, not a reason to poll for good.
func WebhookRequestError(err error) error {
	if err == nil {
		return nil
	}
	return &webhookRequestError{err}
}

type webhookRequestError struct{ err error }

func (e *webhookRequestError) Error() string { return e.err.Error() }
func (e *webhookRequestError) Unwrap() error { return e.err }

// RefusedWebhookRequest reports whether err comes from a webhook request (WebhookRequestError)
// that the service refused (WebhookRefused).
func RefusedWebhookRequest(err error) bool {
	var w *webhookRequestError
	return errors.As(err, &w) && WebhookRefused(w.err)
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

// cachedSchema is the schema read last if it is younger than SchemaTTL, else a new read.
func (b *Base) cachedSchema(ctx context.Context) (*transport.BaseSchema, time.Time, error) {
	b.mu.RLock()
	s, at := b.schema, b.schemaAt
	b.mu.RUnlock()
	if s != nil && b.clock.Now().Sub(at) < SchemaTTL {
		return s, at, nil
	}
	at = b.clock.Now()
	s, err := b.readSchema(ctx)
	return s, at, err
}

// TableSchemaOf is a table of a schema, nil when the schema lacks it.
func TableSchemaOf(s *transport.BaseSchema, tableID string) *transport.TableSchema {
	if s == nil {
		return nil
	}
	for i := range s.Tables {
		if s.Tables[i].ID == tableID {
			return &s.Tables[i]
		}
	}
	return nil
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
	windows := make([]PollWindow, len(tables))
	for i, t := range tables {
		t.mu.Lock()
		windows[i] = PollWindow{TableID: t.tableID, PolledAt: t.polledAt, CheckedAt: t.checkedAt}
		t.written = map[string]bool{} // what Patch writes from now on, the listings may predate
		t.mu.Unlock()
	}
	poller := Poller{Base: b.base, Clock: b.clock, FullCheck: b.fullCheck, ReadSchema: b.readSchema}
	schema, results, err := poller.Poll(ctx, schema, schemaAt, windows)
	if err != nil {
		return fmt.Errorf("replica of base %s: %w", b.base.ID(), err)
	}
	var recopy []*Table
	var deleted []string
	for i, t := range tables {
		err := t.applyPoll(TableSchemaOf(schema, t.tableID), results[i])
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
func holdsUnknownField(ts *transport.TableSchema, r Poll) bool {
	if ts == nil {
		return false
	}
	known := make(map[string]bool, len(ts.Fields))
	for _, f := range ts.Fields {
		known[f.ID] = true
	}
	for _, rec := range r.Changed {
		for id := range rec.Fields {
			if !known[id] {
				return true
			}
		}
	}
	return false
}

// Poll is what one poll listed of a table.
type Poll struct {
	Started time.Time          // before either listing was sent
	Changed []transport.Record // records modified since the window's start, every cell
	IDs     []transport.Record // every record with its computed cells, when Checked
	Checked bool               // the ids were listed (FullCheck was due)
}

// PollWindow is where a table is in polling: when the last poll applied to it began, and when
// the last one that listed its ids did.
type PollWindow struct {
	TableID             string
	PolledAt, CheckedAt time.Time
}

// Poller lists what changed in tables since their last poll: the one implementation of polling's
// requests, shared by the replica's copies and airsql sync's target.
type Poller struct {
	Base      *transport.Base
	Clock     clock.Clock
	FullCheck time.Duration // how often a table's ids are listed
	// ReadSchema reads the base's schema anew (and keeps it for the next poll's Schema).
	ReadSchema func(ctx context.Context) (*transport.BaseSchema, error)
}

// Poll lists each table's changes since its window, in parallel (the base's pacing spaces the
// requests), with the schema read at schemaAt. A listing that holds a cell of a field the schema
// lacks (created after it was read) makes it read the schema again. It returns the schema the
// polls are to be applied with, and one Poll per window (an empty one for a table the schema
// lacks: it was deleted).
func (p Poller) Poll(ctx context.Context, schema *transport.BaseSchema, schemaAt time.Time, windows []PollWindow) (*transport.BaseSchema, []Poll, error) {
	results := make([]Poll, len(windows))
	errs := make([]error, len(windows))
	var wg sync.WaitGroup
	for i, w := range windows {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = p.pollTable(ctx, TableSchemaOf(schema, w.TableID), w)
		}()
	}
	wg.Wait()
	listedWith := schemaAt // the read of the schema the listings used
	for i := range results {
		if errs[i] != nil && listedWith.Before(results[i].Started) && mayBeSchemaChange(errs[i]) {
			// The table, or a field the id listing names, may have been deleted since the
			// schema was read: read it again (once), and list the table again with it (a table
			// it lacks was deleted: an empty poll, which the apply turns into a drop).
			if schemaAt.Equal(listedWith) {
				var err error
				if schema, err = p.ReadSchema(ctx); err != nil {
					return nil, nil, fmt.Errorf("read the schema of base %s: %w", p.Base.ID(), err)
				}
				schemaAt = p.Clock.Now()
			}
			results[i], errs[i] = p.pollTable(ctx, TableSchemaOf(schema, windows[i].TableID), windows[i])
		}
		if errs[i] != nil {
			return nil, nil, fmt.Errorf("poll %s for changes: %w", windows[i].TableID, errs[i])
		}
		r := results[i]
		if schemaAt.Before(r.Started) && holdsUnknownField(TableSchemaOf(schema, windows[i].TableID), r) {
			// A field created after the schema was read: read it again now, not in SchemaTTL.
			var err error
			if schema, err = p.ReadSchema(ctx); err != nil {
				return nil, nil, fmt.Errorf("read the schema of base %s: %w", p.Base.ID(), err)
			}
			schemaAt = p.Clock.Now()
		}
	}
	return schema, results, nil
}

// mayBeSchemaChange reports whether a listing's error may come from a table or field deleted
// since the schema was read (the service answers 403 or 404 for a table it no longer has, 422 for
// a field).
func mayBeSchemaChange(err error) bool {
	var api *transport.APIError
	return errors.As(err, &api) && (api.StatusCode == 403 || api.StatusCode == 404 || api.StatusCode == 422)
}

// pollTable lists what changed in a table since its last poll began (less pollMargin), and when
// FullCheck is due, first its ids with its computed cells. The ids are listed first: a record
// created after they were is then in the changes, never taken for deleted.
func (p Poller) pollTable(ctx context.Context, ts *transport.TableSchema, w PollWindow) (Poll, error) {
	if ts == nil {
		return Poll{}, nil // deleted from the base: the apply says so
	}
	r := Poll{Started: p.Clock.Now()}
	r.Checked = r.Started.Sub(w.CheckedAt) >= p.FullCheck
	var err error
	if r.Checked {
		if r.IDs, err = p.Base.All(ctx, w.TableID, transport.ListOptions{ReturnFieldsByFieldID: true, Fields: checkFields(ts)}); err != nil {
			return r, err
		}
	}
	r.Changed, err = p.Base.All(ctx, w.TableID, transport.ListOptions{ReturnFieldsByFieldID: true, Formula: changedSince(w.PolledAt.Add(-pollMargin))})
	return r, err
}

// Present is the set of records either listing of a poll holds: a record of the copy not in it
// was deleted, when the poll Checked.
func (r Poll) Present() map[string]bool {
	present := make(map[string]bool, len(r.IDs)+len(r.Changed))
	for _, rec := range r.Changed {
		present[rec.ID] = true
	}
	for _, rec := range r.IDs {
		present[rec.ID] = true
	}
	return present
}

// ComputedCells are the computed cells of a record of an id listing, by field id, with nil for
// each computed field it leaves empty (its value was cleared).
func ComputedCells(ts *transport.TableSchema, rec transport.Record) map[string]any {
	out := map[string]any{}
	for _, f := range ts.Fields {
		if computedType[f.Type] {
			out[f.ID] = rec.Fields[f.ID] // nil when absent
		}
	}
	return out
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

// ComputedSignature sums up the definitions of a table's computed fields: one that changed
// (a formula edited) changes their values without a record's LAST_MODIFIED_TIME(), and the
// table is copied again.
func ComputedSignature(ts *transport.TableSchema) string {
	var defs []transport.FieldSchema
	for _, f := range ts.Fields {
		if computedType[f.Type] {
			defs = append(defs, transport.FieldSchema{ID: f.ID, Type: f.Type, Options: f.Options})
		}
	}
	data, _ := json.Marshal(defs) // maps marshal with sorted keys: equal definitions, equal text
	return string(data)
}

// SchemaPayload is the payload the webhook would have sent for the difference between a copy's
// fields and the table's schema now, so that PlanChange decides what applies.
func SchemaPayload(st CopyState, ts *transport.TableSchema) transport.WebhookPayload {
	tc := transport.WebhookTableChanged{}
	if ts.Name != st.Name {
		name := ts.Name
		tc.ChangedMetadata = &transport.WebhookMetadataChange{Current: transport.WebhookTableInfo{Name: &name}}
	}
	now := map[string]bool{}
	for _, f := range ts.Fields {
		now[f.ID] = true
		old, known := st.Fields[f.ID]
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
	for _, id := range st.Order {
		if !now[id] {
			tc.DestroyedFieldIDs = append(tc.DestroyedFieldIDs, id)
		}
	}
	p := transport.WebhookPayload{Cursor: st.Cursor}
	if tc.ChangedMetadata != nil || tc.CreatedFieldsByID != nil || tc.ChangedFieldsByID != nil || tc.DestroyedFieldIDs != nil {
		p.ChangedTablesByID = map[string]transport.WebhookTableChanged{st.TableID: tc}
	}
	return p
}

// PlanPollSchema computes what a poll does to a copy's fields (computedSig is the
// ComputedSignature of the schema the copy was made or last polled with): the difference to the
// schema now as the webhook would have sent it, decided by PlanChange; or, as PlanChange's
// errors, why the table must be copied again (IsRecopy).
func PlanPollSchema(st CopyState, computedSig string, ts *transport.TableSchema) (*Change, error) {
	if ComputedSignature(ts) != computedSig {
		return nil, &errRecopy{"the definition of a computed field changed: its values may all have changed"}
	}
	return PlanChange(st, SchemaPayload(st, ts))
}

// applyPoll applies one poll to the copy, whole, or returns why it cannot (errRecopy,
// errTableDeleted) without changing it. Records this client wrote since the poll began (Patch)
// are left as the patch made them: the listing may predate the write, and the next poll's window
// holds the write.
func (t *Table) applyPoll(ts *transport.TableSchema, r Poll) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	written := t.written
	t.written = nil
	if ts == nil {
		return errTableDeleted
	}
	st := CopyState{TableID: t.tableID, Name: t.name, Fields: t.fields, Order: t.order, Cursor: t.cursor,
		HasRecord: func(id string) (bool, error) { return t.rows[id] != nil, nil }}
	ch, err := PlanPollSchema(st, t.computedSig, ts)
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
	if r.Checked {
		changed = t.applyCheck(ts, r, written) || changed
	}
	in := interner{}
	for _, rec := range r.Changed {
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
	t.polledAt = r.Started
	if r.Checked {
		t.checkedAt = r.Started
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
func (t *Table) applyCheck(ts *transport.TableSchema, r Poll, written map[string]bool) bool {
	changed := false
	for _, rec := range r.IDs {
		old := t.rows[rec.ID]
		if old == nil || written[rec.ID] {
			continue // created since the last poll: in the changes listed after
		}
		rw := &row{id: old.id, created: old.created, vals: slices.Clone(old.vals)}
		for id, v := range ComputedCells(ts, rec) {
			rw.set(t.column(id), v)
		}
		if !sameCells(old.vals, rw.vals) {
			t.rows[rec.ID] = rw
			changed = true
		}
	}
	present := r.Present()
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
