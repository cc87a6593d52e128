package emulator

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Sources of a change (webhooks §2.2).
const (
	sourcePublicAPI = "publicApi"
	sourceClient    = "client"
	sourceSystem    = "system"
)

// changeSource says who made a change: the actionMetadata of the payloads it gives.
type changeSource struct {
	source string
	tok    *token // the token of a publicApi change; nil otherwise
}

// apiSource is the source of a change made by a request of the Web API.
func apiSource(c *call) changeSource { return changeSource{source: sourcePublicAPI, tok: c.tok} }

// applyAndNotifyLocked applies a request's logged changes and gives every live webhook of the base
// its payload: one transaction, one baseTransactionNumber. The caller holds s.mu for writing.
func (s *Server) applyAndNotifyLocked(ops []walOp, by changeSource) error {
	b := s.opsBase(ops)
	if b == nil {
		return s.applyOpsLocked(ops)
	}
	now := s.clock.Now().UTC()
	var capture *baseCapture
	if s.liveHooksLocked(b.id, now) {
		capture = s.captureLocked(b, ops, s.scopingViewsLocked(b, now))
	}
	if err := s.applyOpsLocked(ops); err != nil {
		return err
	}
	b.txnNumber++
	if capture == nil {
		return nil
	}
	ch := capture.changes(s)
	if ch.empty() {
		return nil
	}
	s.emitLocked(b, ch, by, now)
	return nil
}

// opsBase is the base whose data ops change; nil for changes outside bases (uploads, comments).
func (s *Server) opsBase(ops []walOp) *base {
	for _, op := range ops {
		switch op.Kind {
		case walUpload, walCommentPut, walCommentDelete, "fixture":
			continue
		}
		return s.bases[op.Base]
	}
	return nil
}

// scopingViewsLocked are the views of b that scope a live hook, by table id.
func (s *Server) scopingViewsLocked(b *base, now time.Time) map[string][]*view {
	out := map[string][]*view{}
	for _, id := range s.hooks.order {
		h := s.hooks.byID[id]
		if h.baseID != b.id || !h.live(now) || h.spec.scopeView == "" {
			continue
		}
		if t, v := viewByID(b, h.spec.scopeView); v != nil && !slices.Contains(out[t.id], v) {
			out[t.id] = append(out[t.id], v)
		}
	}
	return out
}

// inView reports whether r passes the view's filter.
func (s *Server) inView(t *table, v *view, r *record) bool {
	if strings.TrimSpace(v.filter) == "" {
		return true
	}
	p, err := s.formulas.compile(t, v.filter)
	return err == nil && p.match(recordView{s: s, t: t, r: r})
}

func (s *Server) liveHooksLocked(baseID string, now time.Time) bool {
	for _, id := range s.hooks.order {
		if h := s.hooks.byID[id]; h.baseID == baseID && h.live(now) {
			return true
		}
	}
	return false
}

// baseCapture is what the records, fields and tables a request changes looked like before.
type baseCapture struct {
	b       *base
	views   map[string][]*view // table id -> its views that scope a live hook
	records []*capturedRecord  // in the order first met
	seen    map[string]bool
	tables  map[string]*tableBefore // by table id: tables renamed or deleted
	fields  map[string]*fieldBefore // by field id: fields renamed or deleted
	created []string                // ids of tables created
	newFlds []fieldRef              // fields created
}

type capturedRecord struct {
	table    *table
	id       string
	existed  bool
	before   map[string]any  // webhook cell values (V2) by field id
	inBefore map[string]bool // view id -> the record was in it, for the scoping views of its table
}

type tableBefore struct {
	id, name, description string
	deleted               bool
}

type fieldBefore struct {
	tableID, id, name, typ string
	deleted                bool
}

type fieldRef struct{ tableID, fieldID string }

// captureLocked notes the state before ops of what they change. Besides the records written it
// notes the records they link to (before and after): their lookups, rollups and counts change too.
func (s *Server) captureLocked(b *base, ops []walOp, views map[string][]*view) *baseCapture {
	bc := &baseCapture{b: b, views: views, seen: map[string]bool{}, tables: map[string]*tableBefore{}, fields: map[string]*fieldBefore{}}
	for _, op := range ops {
		t := b.tableByID[op.Table]
		switch op.Kind {
		case "put":
			if t == nil || op.Record == nil {
				continue
			}
			bc.addRecord(s, t, op.Record.ID)
			if old := t.recByID[op.Record.ID]; old != nil {
				bc.addLinked(s, t, old.cells)
			}
			bc.addLinked(s, t, op.Record.Cells)
			bc.addOneWayReferrers(s, t, op.Record.ID)
		case "delete":
			if t == nil {
				continue
			}
			if old := t.recByID[op.ID]; old != nil {
				bc.addLinked(s, t, old.cells)
			}
			bc.addRecord(s, t, op.ID)
			bc.addOneWayReferrers(s, t, op.ID)
		case walCreateTable:
			var ft FixtureTable
			if json.Unmarshal(op.Data, &ft) == nil {
				bc.created = append(bc.created, ft.ID)
			}
		case walCreateField:
			var ff FixtureField
			if json.Unmarshal(op.Data, &ff) == nil {
				bc.newFlds = append(bc.newFlds, fieldRef{op.Table, ff.ID})
			}
		case walUpdateTable, walDeleteTable:
			if t != nil && bc.tables[t.id] == nil {
				bc.tables[t.id] = &tableBefore{id: t.id, name: t.name, description: t.description, deleted: op.Kind == walDeleteTable}
			}
		case walUpdateField, walDeleteField:
			if t == nil {
				continue
			}
			if fl := t.fieldByID[op.Field]; fl != nil && bc.fields[fl.ID] == nil {
				bc.fields[fl.ID] = &fieldBefore{tableID: t.id, id: fl.ID, name: fl.Name, typ: fl.Type, deleted: op.Kind == walDeleteField}
			}
		}
	}
	return bc
}

func (bc *baseCapture) addRecord(s *Server, t *table, id string) {
	if bc.seen[id] {
		return
	}
	bc.seen[id] = true
	cr := &capturedRecord{table: t, id: id}
	if r := t.recByID[id]; r != nil {
		cr.existed = true
		cr.before = s.webhookCells(t, r)
		for _, v := range bc.views[t.id] {
			if cr.inBefore == nil {
				cr.inBefore = map[string]bool{}
			}
			cr.inBefore[v.id] = s.inView(t, v, r)
		}
	}
	bc.records = append(bc.records, cr)
}

// addLinked notes the records that cells (of a record of t) link to.
func (bc *baseCapture) addLinked(s *Server, t *table, cells map[string]any) {
	for _, fl := range t.fields {
		if fl.Type != "multipleRecordLinks" {
			continue
		}
		lt := t.base.tableByID[fl.linkedTableID()]
		ids, _ := cells[fl.ID].([]any)
		if lt == nil {
			continue
		}
		for _, id := range ids {
			if sid, _ := id.(string); lt.recByID[sid] != nil {
				bc.addRecord(s, lt, sid)
			}
		}
	}
}

// addOneWayReferrers notes the records that link to record id of t through a link without an
// inverse (whose side in t holds nothing to follow) when a lookup, rollup or count reads through
// that link: their values change with the record.
func (bc *baseCapture) addOneWayReferrers(s *Server, t *table, id string) {
	for _, ot := range t.base.tables {
		for _, fl := range ot.fields {
			if fl.Type != "multipleRecordLinks" || fl.linkedTableID() != t.id || fl.inverseID() != "" || !readThrough(ot, fl) {
				continue
			}
			for _, r := range ot.records {
				if ids, _ := r.cells[fl.ID].([]any); containsString(ids, id) {
					bc.addRecord(s, ot, r.id)
				}
			}
		}
	}
}

// readThrough reports whether a lookup, rollup or count field of t reads through link field fl.
func readThrough(t *table, fl *field) bool {
	for _, o := range t.fields {
		if optString(o.Options, "recordLinkFieldId") == fl.ID {
			return true
		}
	}
	return false
}

// baseChanges is what one transaction changed, before any webhook's filters.
type baseChanges struct {
	tables          map[string]*tableChanges // by table id
	views           map[string]*viewChanges  // by view id, for the views that scope a live hook
	createdTables   []string
	destroyedTables []string
}

// viewChanges are the record changes seen through one view.
type viewChanges struct {
	created   map[string]createdRecord
	changed   map[string]*recordDiff
	destroyed []string
}

type tableChanges struct {
	metadata        *metadataChange
	createdFields   map[string]fieldDef
	changedFields   map[string]fieldChange
	destroyedFields []string
	createdRecords  map[string]createdRecord
	changedRecords  map[string]*recordDiff
	destroyedIDs    []string
}

type recordDiff struct {
	changed []string       // field ids whose value changed
	before  map[string]any // all cells before
	after   map[string]any // all cells after
}

func (ch *baseChanges) empty() bool {
	return len(ch.tables) == 0 && len(ch.createdTables) == 0 && len(ch.destroyedTables) == 0
}

func (ch *baseChanges) table(id string) *tableChanges {
	if ch.tables[id] == nil {
		ch.tables[id] = &tableChanges{}
	}
	return ch.tables[id]
}

// changes compares the captured state with the state after the request.
func (bc *baseCapture) changes(s *Server) *baseChanges {
	ch := &baseChanges{tables: map[string]*tableChanges{}, views: map[string]*viewChanges{}}
	bc.tableChanges(ch)
	bc.fieldChanges(ch)
	for _, cr := range bc.records {
		bc.recordChange(s, ch, cr)
	}
	return ch
}

// tableChanges notes the tables created, destroyed, renamed or described anew.
func (bc *baseCapture) tableChanges(ch *baseChanges) {
	b := bc.b
	for _, id := range bc.created {
		if b.tableByID[id] != nil {
			ch.createdTables = append(ch.createdTables, id)
		}
	}
	for _, tb := range bc.tables {
		t := b.tableByID[tb.id]
		if tb.deleted || t == nil {
			ch.destroyedTables = append(ch.destroyedTables, tb.id)
			continue
		}
		var m metadataChange
		if t.name != tb.name {
			m.Current.Name, m.Previous.Name = ptr(t.name), ptr(tb.name)
		}
		if t.description != tb.description {
			m.Current.Description, m.Previous.Description = ptr(t.description), ptr(tb.description)
		}
		if m.Current.Name != nil || m.Current.Description != nil {
			ch.table(t.id).metadata = &m
		}
	}
	slices.Sort(ch.destroyedTables)
}

// fieldChanges notes the fields created (outside a created table), destroyed, renamed or
// retyped.
func (bc *baseCapture) fieldChanges(ch *baseChanges) {
	b := bc.b
	for _, nf := range bc.newFlds {
		if slices.Contains(ch.createdTables, nf.tableID) {
			continue // part of the table's creation
		}
		t := b.tableByID[nf.tableID]
		if t == nil || t.fieldByID[nf.fieldID] == nil {
			continue
		}
		fl := t.fieldByID[nf.fieldID]
		tc := ch.table(t.id)
		if tc.createdFields == nil {
			tc.createdFields = map[string]fieldDef{}
		}
		tc.createdFields[fl.ID] = fieldDef{Type: ptr(fl.Type), Name: ptr(fl.Name)}
	}
	for _, fb := range bc.fields {
		t := b.tableByID[fb.tableID]
		if t == nil {
			continue
		}
		fl := t.fieldByID[fb.id]
		tc := ch.table(t.id)
		if fb.deleted || fl == nil {
			tc.destroyedFields = append(tc.destroyedFields, fb.id)
			slices.Sort(tc.destroyedFields)
			continue
		}
		var fc fieldChange
		prev := &fieldDef{}
		fc.Previous = prev
		if fl.Name != fb.name {
			fc.Current.Name, prev.Name = ptr(fl.Name), ptr(fb.name)
		}
		if fl.Type != fb.typ {
			fc.Current.Type, prev.Type = ptr(fl.Type), ptr(fb.typ)
		}
		if fc.Current.Name == nil && fc.Current.Type == nil {
			continue // a description: not in payloads (webhooks §2.3)
		}
		if tc.changedFields == nil {
			tc.changedFields = map[string]fieldChange{}
		}
		tc.changedFields[fl.ID] = fc
	}
}

// recordChange notes what happened to one captured record: destroyed, created or changed, and
// in its table's views.
func (bc *baseCapture) recordChange(s *Server, ch *baseChanges, cr *capturedRecord) {
	t := cr.table
	if bc.b.tableByID[t.id] != t {
		return // the table went with the request
	}
	r := t.recByID[cr.id]
	bc.viewChangesOf(s, ch, cr, r)
	switch {
	case r == nil && cr.existed:
		tc := ch.table(t.id)
		tc.destroyedIDs = append(tc.destroyedIDs, cr.id)
	case r != nil && !cr.existed:
		tc := ch.table(t.id)
		if tc.createdRecords == nil {
			tc.createdRecords = map[string]createdRecord{}
		}
		tc.createdRecords[cr.id] = createdRecord{
			CreatedTime: formatTime(r.created), // as the records API gives it (see README: createdTime)
			Cells:       s.webhookCells(t, r),
		}
	case r != nil:
		after := s.webhookCells(t, r)
		changed := changedFields(t, cr.before, after)
		if len(changed) == 0 {
			return
		}
		tc := ch.table(t.id)
		if tc.changedRecords == nil {
			tc.changedRecords = map[string]*recordDiff{}
		}
		tc.changedRecords[cr.id] = &recordDiff{changed: changed, before: cr.before, after: after}
	}
}

// viewChangesOf notes what record cr (now r, nil when deleted) did in each scoping view of its
// table: entered it, changed in it, or left it.
func (bc *baseCapture) viewChangesOf(s *Server, ch *baseChanges, cr *capturedRecord, r *record) {
	t := cr.table
	for _, v := range bc.views[t.id] {
		was := cr.existed && cr.inBefore[v.id]
		is := r != nil && s.inView(t, v, r)
		if !was && !is {
			continue
		}
		vc := ch.views[v.id]
		if vc == nil {
			vc = &viewChanges{}
			ch.views[v.id] = vc
		}
		switch {
		case was && !is:
			vc.destroyed = append(vc.destroyed, cr.id)
		case !was && is:
			if vc.created == nil {
				vc.created = map[string]createdRecord{}
			}
			vc.created[cr.id] = createdRecord{CreatedTime: formatTime(r.created), Cells: s.webhookCells(t, r)}
		default:
			after := s.webhookCells(t, r)
			if changed := changedFields(t, cr.before, after); len(changed) > 0 {
				if vc.changed == nil {
					vc.changed = map[string]*recordDiff{}
				}
				vc.changed[cr.id] = &recordDiff{changed: changed, before: cr.before, after: after}
			}
		}
	}
}

// viewChanged is the part of a view's changes the specification asks for; nil for none.
func (sp *hookSpec) viewChanged(t *table, vc *viewChanges) *viewChangedJSON {
	vj := &viewChangedJSON{}
	some := false
	if sp.wantsChange("add") && len(vc.created) > 0 {
		vj.CreatedRecordsByID, some = vc.created, true
	}
	if sp.wantsChange("update") {
		for id, d := range vc.changed {
			if cr, ok := sp.changedRecord(t, d); ok {
				if vj.ChangedRecordsByID == nil {
					vj.ChangedRecordsByID = map[string]changedRecord{}
				}
				vj.ChangedRecordsByID[id], some = cr, true
			}
		}
	}
	if sp.wantsChange("remove") && len(vc.destroyed) > 0 {
		vj.DestroyedRecordIDs, some = vc.destroyed, true
	}
	if !some {
		return nil
	}
	return vj
}

// changedFields are the ids of t's fields whose values differ between before and after.
func changedFields(t *table, before, after map[string]any) []string {
	var changed []string
	for _, fl := range t.fields {
		if !reflect.DeepEqual(before[fl.ID], after[fl.ID]) {
			changed = append(changed, fl.ID)
		}
	}
	return changed
}

func ptr[T any](v T) *T { return &v }

// The payload as JSON, keys in the recorded order (webhooks §2.1, §2.3, §2.4).
type payloadJSON struct {
	Timestamp             string                       `json:"timestamp"`
	BaseTransactionNumber int                          `json:"baseTransactionNumber"`
	ActionMetadata        actionMetadata               `json:"actionMetadata"`
	PayloadFormat         string                       `json:"payloadFormat"`
	ChangedTablesByID     map[string]*tableChangedJSON `json:"changedTablesById,omitempty"`
	CreatedTablesByID     map[string]*tableCreatedJSON `json:"createdTablesById,omitempty"`
	DestroyedTableIDs     []string                     `json:"destroyedTableIds,omitempty"`
	Error                 bool                         `json:"error,omitempty"`
	Code                  string                       `json:"code,omitempty"`
}

type actionMetadata struct {
	Source         string         `json:"source"`
	SourceMetadata map[string]any `json:"sourceMetadata,omitempty"`
}

type tableChangedJSON struct {
	ChangedMetadata    *metadataChange             `json:"changedMetadata,omitempty"`
	CreatedFieldsByID  map[string]fieldDef         `json:"createdFieldsById,omitempty"`
	ChangedFieldsByID  map[string]fieldChange      `json:"changedFieldsById,omitempty"`
	DestroyedFieldIDs  []string                    `json:"destroyedFieldIds,omitempty"`
	CreatedRecordsByID map[string]createdRecord    `json:"createdRecordsById,omitempty"`
	ChangedRecordsByID map[string]changedRecord    `json:"changedRecordsById,omitempty"`
	DestroyedRecordIDs []string                    `json:"destroyedRecordIds,omitempty"`
	ChangedViewsByID   map[string]*viewChangedJSON `json:"changedViewsById,omitempty"`
}

// viewChangedJSON is what happened in a view that scopes a hook: records that entered it (created
// or changed into it), changed in it, or left it (deleted or changed out of it).
type viewChangedJSON struct {
	CreatedRecordsByID map[string]createdRecord `json:"createdRecordsById,omitempty"`
	ChangedRecordsByID map[string]changedRecord `json:"changedRecordsById,omitempty"`
	DestroyedRecordIDs []string                 `json:"destroyedRecordIds,omitempty"`
}

type tableCreatedJSON struct {
	Metadata    *tableMetadataJSON       `json:"metadata,omitempty"`
	FieldsByID  map[string]fieldDef      `json:"fieldsById,omitempty"`
	RecordsByID map[string]createdRecord `json:"recordsById,omitempty"`
}

type tableMetadataJSON struct {
	Name        string  `json:"name"`
	Description *string `json:"description"`
}

type metadataChange struct {
	Current  metadataJSON `json:"current"`
	Previous metadataJSON `json:"previous"`
}

type metadataJSON struct {
	Name        *string `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
}

type fieldDef struct {
	Type *string `json:"type,omitempty"`
	Name *string `json:"name,omitempty"`
}

type fieldChange struct {
	Current  fieldDef  `json:"current"`
	Previous *fieldDef `json:"previous,omitempty"` // with includePreviousFieldDefinitions
}

type cellsJSON struct {
	Cells map[string]any `json:"cellValuesByFieldId"`
}

type createdRecord struct {
	CreatedTime string         `json:"createdTime"`
	Cells       map[string]any `json:"cellValuesByFieldId"`
}

type changedRecord struct {
	Current   cellsJSON  `json:"current"`
	Previous  *cellsJSON `json:"previous,omitempty"`
	Unchanged *cellsJSON `json:"unchanged,omitempty"`
}

// emitLocked appends to every live hook of b the part of ch its specification asks for, then
// pings the hooks that have a notification URL.
func (s *Server) emitLocked(b *base, ch *baseChanges, by changeSource, now time.Time) {
	meta := actionMetadata{Source: by.source}
	switch {
	case by.tok != nil:
		user := map[string]any{"id": by.tok.userID}
		if by.tok.email != "" {
			user["email"] = by.tok.email
		}
		user["permissionLevel"] = s.permissionLevel(b, by.tok)
		meta.SourceMetadata = map[string]any{"user": user}
	case by.source == sourceClient:
		user := cloneMap(emulatorUser)
		user["permissionLevel"] = "create"
		meta.SourceMetadata = map[string]any{"user": user}
	}
	// Hooks with the same specification get the same payload: it is built and encoded once.
	type built struct {
		body  json.RawMessage // nil: no payload
		error bool
	}
	bySpec := map[string]built{}
	for _, id := range s.hooks.order {
		h := s.hooks.byID[id]
		if h.baseID != b.id || !h.live(now) {
			continue
		}
		if f := h.spec.Options.Filters.FromSources; len(f) > 0 && !slices.Contains(f, by.source) {
			continue
		}
		out, done := bySpec[string(h.specJSON)]
		if !done {
			if p := h.spec.payloadFor(b, ch); p != nil {
				p.Timestamp = formatTime(now)
				p.BaseTransactionNumber = b.txnNumber
				p.ActionMetadata = meta
				p.PayloadFormat = "v0"
				out = built{body: walJSON(p), error: p.Error}
			}
			bySpec[string(h.specJSON)] = out
		}
		if out.body == nil {
			continue
		}
		if out.error {
			h.enabled = false // an error payload is the hook's last (webhooks §2.6)
		}
		h.payloads = append(dropExpiredPayloads(h.payloads, now), storedPayload{cursor: h.nextCursor, created: now, body: out.body})
		h.nextCursor++
		if h.notifyOn {
			s.schedulePingLocked(h)
		}
	}
}

// payloadFor is the payload this specification makes of ch; nil when it asks for none of it.
func (sp *hookSpec) payloadFor(b *base, ch *baseChanges) *payloadJSON {
	f := sp.Options.Filters
	p := &payloadJSON{}
	inScope := func(tableID string) bool { return sp.scopeTable == "" || sp.scopeTable == tableID }
	// An error payload when the change takes away what the filters name (webhooks §2.6).
	if sp.scopeTable != "" && slices.Contains(ch.destroyedTables, sp.scopeTable) {
		p.Error, p.Code = true, "INVALID_FILTERS"
	}
	watched := append(slices.Clone(f.WatchDataInFieldIds), f.WatchSchemasOfFieldIds...)
	for _, tc := range ch.tables {
		for _, id := range tc.destroyedFields {
			if slices.Contains(watched, id) {
				p.Error, p.Code = true, "INVALID_FILTERS"
			}
		}
	}
	if sp.wantsChange("remove") {
		for _, id := range ch.destroyedTables {
			if inScope(id) {
				p.DestroyedTableIDs = append(p.DestroyedTableIDs, id)
			}
		}
	}
	if sp.wantsChange("add") && f.RecordChangeScope == "" {
		for _, id := range ch.createdTables {
			t := b.tableByID[id]
			tj := &tableCreatedJSON{}
			if sp.wants("tableMetadata") {
				tj.Metadata = &tableMetadataJSON{Name: t.name}
				if t.description != "" {
					tj.Metadata.Description = ptr(t.description)
				}
			}
			if sp.wants("tableFields") {
				tj.FieldsByID = map[string]fieldDef{}
				for _, fl := range t.fields {
					tj.FieldsByID[fl.ID] = fieldDef{Type: ptr(fl.Type), Name: ptr(fl.Name)}
				}
			}
			if tj.Metadata == nil && tj.FieldsByID == nil && !sp.wants("tableData") {
				continue
			}
			if p.CreatedTablesByID == nil {
				p.CreatedTablesByID = map[string]*tableCreatedJSON{}
			}
			p.CreatedTablesByID[id] = tj
		}
	}
	for tableID, tc := range ch.tables {
		if !inScope(tableID) {
			continue
		}
		tj := sp.tableChanged(b.tableByID[tableID], tc)
		if vc := ch.views[sp.scopeView]; sp.scopeView != "" && vc != nil && sp.wants("tableData") {
			if vj := sp.viewChanged(b.tableByID[tableID], vc); vj != nil {
				if tj == nil {
					tj = &tableChangedJSON{}
				}
				tj.ChangedViewsByID = map[string]*viewChangedJSON{sp.scopeView: vj}
			}
		}
		if tj == nil {
			continue
		}
		if p.ChangedTablesByID == nil {
			p.ChangedTablesByID = map[string]*tableChangedJSON{}
		}
		p.ChangedTablesByID[tableID] = tj
	}
	if !p.Error && p.ChangedTablesByID == nil && p.CreatedTablesByID == nil && p.DestroyedTableIDs == nil {
		return nil
	}
	return p
}

// tableChanged is the part of one table's changes the specification asks for; nil for none.
func (sp *hookSpec) tableChanged(t *table, tc *tableChanges) *tableChangedJSON {
	f := sp.Options.Filters
	tj := &tableChangedJSON{}
	some := false
	if sp.wants("tableMetadata") && tc.metadata != nil && sp.wantsChange("update") {
		tj.ChangedMetadata, some = tc.metadata, true
	}
	watchSchema := func(id string) bool {
		return len(f.WatchSchemasOfFieldIds) == 0 || slices.Contains(f.WatchSchemasOfFieldIds, id)
	}
	if sp.wants("tableFields") {
		if sp.wantsChange("add") {
			for id, fd := range tc.createdFields {
				if tj.CreatedFieldsByID == nil {
					tj.CreatedFieldsByID = map[string]fieldDef{}
				}
				tj.CreatedFieldsByID[id], some = fd, true
			}
		}
		if sp.wantsChange("update") {
			for id, fc := range tc.changedFields {
				if !watchSchema(id) {
					continue
				}
				out := fieldChange{Current: fc.Current}
				if sp.previousFields() {
					out.Previous = fc.Previous
				}
				if tj.ChangedFieldsByID == nil {
					tj.ChangedFieldsByID = map[string]fieldChange{}
				}
				tj.ChangedFieldsByID[id], some = out, true
			}
		}
		if sp.wantsChange("remove") {
			for _, id := range tc.destroyedFields {
				if watchSchema(id) {
					tj.DestroyedFieldIDs, some = append(tj.DestroyedFieldIDs, id), true
				}
			}
		}
	}
	if sp.wants("tableData") {
		if sp.wantsChange("add") && len(tc.createdRecords) > 0 {
			tj.CreatedRecordsByID, some = tc.createdRecords, true
		}
		if sp.wantsChange("update") {
			for id, d := range tc.changedRecords {
				cr, ok := sp.changedRecord(t, d)
				if !ok {
					continue
				}
				if tj.ChangedRecordsByID == nil {
					tj.ChangedRecordsByID = map[string]changedRecord{}
				}
				tj.ChangedRecordsByID[id], some = cr, true
			}
		}
		if sp.wantsChange("remove") && len(tc.destroyedIDs) > 0 {
			tj.DestroyedRecordIDs, some = tc.destroyedIDs, true
		}
	}
	if !some {
		return nil
	}
	return tj
}

// changedRecord is one record's change as the specification asks: only the watched fields, the
// previous values and the included unchanged values when asked (webhooks §1.2, §2.3).
func (sp *hookSpec) changedRecord(t *table, d *recordDiff) (changedRecord, bool) {
	watch := sp.Options.Filters.WatchDataInFieldIds
	cur := map[string]any{}
	prev := map[string]any{}
	for _, id := range d.changed {
		if len(watch) > 0 && !slices.Contains(watch, id) {
			continue
		}
		cur[id], prev[id] = d.after[id], d.before[id] // nil: a cleared (or empty before) cell, JSON null
	}
	if len(cur) == 0 {
		return changedRecord{}, false
	}
	out := changedRecord{Current: cellsJSON{Cells: cur}}
	if sp.previousCells() {
		out.Previous = &cellsJSON{Cells: prev}
	}
	if sp.includeAll || len(sp.includeFields) > 0 {
		unchanged := map[string]any{}
		for _, fl := range t.fields {
			if _, changed := cur[fl.ID]; changed || (!sp.includeAll && !slices.Contains(sp.includeFields, fl.ID)) {
				continue
			}
			if v, present := d.after[fl.ID]; present {
				unchanged[fl.ID] = v
			}
		}
		if len(unchanged) > 0 {
			out.Unchanged = &cellsJSON{Cells: unchanged}
		}
	}
	return out, true
}

// webhookCells is a record's non-empty values by field id as payloads give them: the REST
// values, except selects ({id, name, color}), links ({id, name}) and lookups
// ({valuesByLinkedRecordId, linkedRecordIds}), the "V2" forms of webhooks §2.5.
func (s *Server) webhookCells(t *table, r *record) map[string]any {
	out := map[string]any{}
	for _, fl := range t.fields {
		v := s.cellValue(t, r, fl, 0)
		if isEmptyCell(v) {
			continue
		}
		switch fl.Type {
		case "singleSelect":
			if name, ok := v.(string); ok {
				v = choiceV2(fl, name)
			}
		case "multipleSelects":
			if names, ok := v.([]any); ok {
				list := make([]any, len(names))
				for i, n := range names {
					name, _ := n.(string)
					list[i] = choiceV2(fl, name)
				}
				v = list
			}
		case "multipleRecordLinks":
			v = s.linksV2(t, fl, v)
		case "multipleLookupValues":
			if lv := s.lookupV2(t, r, fl); lv != nil {
				v = lv
			}
		}
		out[fl.ID] = v
	}
	return out
}

func choiceV2(fl *field, name string) map[string]any {
	list, _ := fl.Options["choices"].([]any)
	for _, c := range list {
		m, _ := c.(map[string]any)
		if m != nil && m["name"] == name {
			out := map[string]any{"id": m["id"], "name": name}
			if color, ok := m["color"].(string); ok && color != "" {
				out["color"] = color
			}
			return out
		}
	}
	return map[string]any{"id": derivedID("sel", fl.ID+"/"+name), "name": name}
}

func (s *Server) linksV2(t *table, fl *field, v any) any {
	ids, ok := v.([]any)
	lt := t.base.tableByID[fl.linkedTableID()]
	if !ok || lt == nil {
		return v
	}
	out := make([]any, 0, len(ids))
	for _, id := range ids {
		sid, _ := id.(string)
		name := ""
		if lr := lt.recByID[sid]; lr != nil {
			name = stringify(s.cellValue(lt, lr, lt.primary, 0))
		}
		out = append(out, map[string]any{"id": sid, "name": name})
	}
	return out
}

// lookupV2 is a lookup's values per linked record; nil when the lookup cannot be computed.
func (s *Server) lookupV2(t *table, r *record, fl *field) map[string]any {
	lf, lt, target, ok := lookupPath(t, fl)
	if !ok {
		return nil
	}
	ids, _ := r.cells[lf.ID].([]any)
	byRecord := map[string]any{}
	order := []any{}
	for _, id := range ids {
		sid, _ := id.(string)
		lr := lt.recByID[sid]
		if lr == nil {
			continue
		}
		vals := []any{}
		v := s.cellValue(lt, lr, target, 1)
		if list, ok := v.([]any); ok {
			vals = append(vals, list...)
		} else if !isEmptyCell(v) {
			vals = append(vals, v)
		}
		byRecord[sid] = vals
		order = append(order, sid)
	}
	return map[string]any{"valuesByLinkedRecordId": byRecord, "linkedRecordIds": order}
}
