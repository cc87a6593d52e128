package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"time"
)

// writeBody is the body of create, update and replace, single or batch (reference §1.5-§1.7).
type writeBody struct {
	Fields        map[string]any `json:"fields"`
	Records       []writeItem    `json:"records"`
	Typecast      bool           `json:"typecast"`
	ByFieldID     bool           `json:"returnFieldsByFieldId"`
	PerformUpsert *struct {
		FieldsToMergeOn []string `json:"fieldsToMergeOn"`
	} `json:"performUpsert"`
}

type writeItem struct {
	ID     string         `json:"id"`
	Fields map[string]any `json:"fields"`
}

// txn collects the changes of one write request on working copies; nothing is visible until
// commit has logged and applied them, so a request that fails changes nothing.
type txn struct {
	s       *Server
	b       *base
	now     time.Time
	mode    writeMode
	work    map[string]*record // working copies by record id
	tableOf map[string]*table
	touched []string // record ids in the order they were first changed
	created map[string]bool
	deleted map[string]bool
	choices map[*field][]string
	by      changeSource // who asked, for webhook payloads
}

func (s *Server) newTxn(b *base, typecast bool, by changeSource) *txn {
	x := &txn{s: s, b: b, by: by, now: s.clock.Now().UTC(), work: map[string]*record{}, tableOf: map[string]*table{},
		created: map[string]bool{}, deleted: map[string]bool{}, choices: map[*field][]string{}}
	x.mode = writeMode{
		typecast:  typecast,
		addChoice: func(fl *field, name string) { x.choices[fl] = append(x.choices[fl], name) },
		hasChoice: func(fl *field, name string) bool { return slices.Contains(x.choices[fl], name) },
	}
	return x
}

// get returns the working copy of a record, nil when it does not exist (or was deleted here).
func (x *txn) get(t *table, id string) *record {
	if x.deleted[id] {
		return nil
	}
	if r := x.work[id]; r != nil {
		if x.tableOf[id] == t {
			return r
		}
		return nil
	}
	orig := t.recByID[id]
	if orig == nil {
		return nil
	}
	r := orig.clone()
	x.work[id] = r
	x.tableOf[id] = t
	x.touched = append(x.touched, id)
	return r
}

func (x *txn) create(t *table) *record {
	t.nextAutoNumber++ // reserved even if the request fails, as autoNumber gaps are normal
	r := &record{id: newRandomID("rec"), created: x.now, modified: x.now, autoNumber: t.nextAutoNumber, cells: map[string]any{}}
	x.work[r.id] = r
	x.tableOf[r.id] = t
	x.created[r.id] = true
	x.touched = append(x.touched, r.id)
	return r
}

// setFields writes the given fields of r; replace clears every writable field not given (PUT).
func (x *txn) setFields(t *table, r *record, fields map[string]any, replace bool) *apiError {
	given := map[string]bool{}
	// Sorted keys: the first invalid field in a request is always the same one.
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		fl := t.field(key)
		if fl == nil {
			return errUnknownField(key)
		}
		cell, aerr := normalizeCell(t, fl, fields[key], x.mode)
		if aerr != nil {
			return aerr
		}
		given[fl.ID] = true
		if cell == nil && fl.Type == "richText" && r.cells[fl.ID] != nil {
			cell = "\n" // a cleared rich text reads back as "\n" (recorded 2022)
		}
		x.setCell(t, r, fl, cell)
	}
	if replace {
		for _, fl := range t.fields {
			if !given[fl.ID] && !fl.computed() {
				x.setCell(t, r, fl, nil)
			}
		}
	}
	r.modified = x.now
	r.byAPI = true
	return nil
}

// setCell stores one cell; for a link with an inverse it also updates the other side.
func (x *txn) setCell(t *table, r *record, fl *field, cell any) {
	if fl.Type == "multipleRecordLinks" {
		old, _ := r.cells[fl.ID].([]any)
		nw, _ := cell.([]any)
		if inv := fl.inverseID(); inv != "" {
			lt := t.base.tableByID[fl.linkedTableID()]
			for _, id := range old {
				if !containsString(nw, id.(string)) {
					x.unlink(lt, id.(string), inv, r.id)
				}
			}
			for _, id := range nw {
				if !containsString(old, id.(string)) {
					x.link(lt, id.(string), inv, r.id)
				}
			}
		}
	}
	if !reflect.DeepEqual(r.cells[fl.ID], cell) {
		r.touchField(fl.ID, x.now)
	}
	if cell == nil {
		delete(r.cells, fl.ID)
	} else {
		r.cells[fl.ID] = cell
	}
}

func (x *txn) link(t *table, id, fieldID, target string) {
	other := x.get(t, id)
	if other == nil {
		return
	}
	cur, _ := other.cells[fieldID].([]any)
	if !containsString(cur, target) {
		other.cells[fieldID] = append(append([]any{}, cur...), target)
		other.modified = x.now
		other.touchField(fieldID, x.now)
	}
}

func (x *txn) unlink(t *table, id, fieldID, target string) {
	other := x.get(t, id)
	if other == nil {
		return
	}
	cur, _ := other.cells[fieldID].([]any)
	kept := make([]any, 0, len(cur))
	for _, v := range cur {
		if v != target {
			kept = append(kept, v)
		}
	}
	if len(kept) == len(cur) {
		return // the link was not there
	}
	if len(kept) == 0 {
		delete(other.cells, fieldID)
	} else {
		other.cells[fieldID] = kept
	}
	other.modified = x.now
	other.touchField(fieldID, x.now)
}

// remove deletes a record and takes it out of every link that points at it.
func (x *txn) remove(t *table, r *record) {
	for _, fl := range t.fields {
		if fl.Type == "multipleRecordLinks" && fl.inverseID() != "" {
			x.setCell(t, r, fl, nil)
		}
	}
	// One-way links from other fields (no inverse) are found by scanning.
	for _, ot := range t.base.tables {
		for _, fl := range ot.fields {
			if fl.Type != "multipleRecordLinks" || fl.linkedTableID() != t.id || fl.inverseID() != "" {
				continue
			}
			for _, o := range ot.records {
				if ids, _ := o.cells[fl.ID].([]any); containsString(ids, r.id) {
					x.unlink(ot, o.id, fl.ID, r.id)
				}
			}
		}
	}
	x.deleted[r.id] = true
}

// commit logs the changes (when there is a data file) and applies them.
func (x *txn) commit() *apiError {
	var ops []walOp
	fls := make([]*field, 0, len(x.choices))
	for fl := range x.choices {
		fls = append(fls, fl)
	}
	sort.Slice(fls, func(i, j int) bool { return fls[i].ID < fls[j].ID })
	for _, fl := range fls {
		t := x.tableOfField(fl)
		choices, _ := cloneMap(map[string]any{"c": fl.Options["choices"]})["c"].([]any)
		n := len(choices)
		for i, name := range x.choices[fl] {
			choices = append(choices, map[string]any{"id": derivedID("sel", fl.ID+"/"+name), "name": name,
				"color": choiceColors[(n+i)%len(choiceColors)]})
		}
		ops = append(ops, walOp{Kind: "choices", Base: x.b.id, Table: t.id, Field: fl.ID, Choices: choices})
	}
	for _, id := range x.touched {
		if x.deleted[id] {
			continue
		}
		r := x.work[id]
		ops = append(ops, walOp{Kind: "put", Base: x.b.id, Table: x.tableOf[id].id, Record: toWALRecord(r)})
	}
	for _, id := range x.touched {
		if x.deleted[id] && !x.created[id] {
			ops = append(ops, walOp{Kind: "delete", Base: x.b.id, Table: x.tableOf[id].id, ID: id})
		}
	}
	if x.s.wal != nil {
		if err := x.s.wal.append(ops); err != nil {
			return errorf(http.StatusInternalServerError, "SERVER_ERROR", "The write could not be saved to the data file: %v. Nothing was changed.", err)
		}
	}
	if err := x.s.applyAndNotifyLocked(ops, x.by); err != nil {
		return errorf(http.StatusInternalServerError, "SERVER_ERROR", "%v", err)
	}
	x.s.scheduleFetchesLocked(ops) // attachments given by URL, when WithAttachmentFetch
	return nil
}

func (x *txn) tableOfField(fl *field) *table {
	for _, t := range x.b.tables {
		if t.fieldByID[fl.ID] == fl {
			return t
		}
	}
	return nil
}

// writeTable locks the server for writing and finds the request's table.
func (s *Server) writeTable(c *call) (*table, *apiError) {
	s.lockForWrite(c)
	t, aerr := s.tableFor(c, scopeRecordsWrite)
	if aerr != nil {
		s.mu.Unlock()
		return nil, aerr
	}
	return t, nil
}

// writeRequest locks the server for writing, finds the request's table and decodes the body of a
// create or update: access first (base, table, scope), then the body, see "order of checks" in
// README.md. On success the caller unlocks s.mu.
func (s *Server) writeRequest(c *call) (*table, *writeBody, *apiError) {
	t, aerr := s.writeTable(c)
	if aerr != nil {
		return nil, nil, aerr
	}
	var body writeBody
	if aerr := decodeJSON(c.body, &body); aerr != nil {
		s.mu.Unlock()
		return nil, nil, aerr
	}
	return t, &body, nil
}

func (s *Server) create(c *call) (reply, *apiError) {
	t, body, aerr := s.writeRequest(c)
	if aerr != nil {
		return reply{}, aerr
	}
	defer s.mu.Unlock()
	single := body.Records == nil
	items := body.Records
	if single {
		if body.Fields == nil {
			return reply{}, errInvalidRequest("the body needs \"fields\" (one record) or \"records\" (up to 10)")
		}
		items = []writeItem{{Fields: body.Fields}}
	}
	if len(items) > MaxRecordsPerWrite {
		return reply{}, errTooManyRecords("created", len(items))
	}
	if len(items) == 0 {
		return reply{}, errorf(422, "INVALID_RECORDS", "\"records\" is empty: give 1 to %d records to create", MaxRecordsPerWrite)
	}
	x := s.newTxn(t.base, body.Typecast, apiSource(c))
	out := make([]*record, 0, len(items))
	for _, it := range items {
		r := x.create(t)
		if aerr := x.setFields(t, r, it.Fields, false); aerr != nil {
			return reply{}, aerr
		}
		out = append(out, r)
	}
	if aerr := x.commit(); aerr != nil {
		return reply{}, aerr
	}
	return s.writeReply(t, out, single, body.ByFieldID, nil, nil), nil
}

func (s *Server) writeReply(t *table, recs []*record, single, byID bool, created, updated []string) reply {
	o := renderOpts{byID: byID}
	if single {
		return ok(s.renderRecord(t, t.recByID[recs[0].id], o))
	}
	list := make([]any, 0, len(recs))
	for _, r := range recs {
		list = append(list, s.renderRecord(t, t.recByID[r.id], o))
	}
	out := map[string]any{"records": list}
	if created != nil || updated != nil {
		out["createdRecords"] = nonNil(created)
		out["updatedRecords"] = nonNil(updated)
	}
	return ok(out)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (s *Server) updateOne(c *call) (reply, *apiError) {
	t, body, aerr := s.writeRequest(c)
	if aerr != nil {
		return reply{}, aerr
	}
	defer s.mu.Unlock()
	if body.Fields == nil {
		return reply{}, errInvalidRequest("the body needs \"fields\"")
	}
	x := s.newTxn(t.base, body.Typecast, apiSource(c))
	r := x.get(t, c.segments[2])
	if r == nil {
		return reply{}, s.notFoundRecord(c.segments[2])
	}
	if aerr := x.setFields(t, r, body.Fields, c.r.Method == http.MethodPut); aerr != nil {
		return reply{}, aerr
	}
	if aerr := x.commit(); aerr != nil {
		return reply{}, aerr
	}
	return s.writeReply(t, []*record{r}, true, body.ByFieldID, nil, nil), nil
}

// mergeTypes are the field types fieldsToMergeOn may name: "number, text, long text, single
// select, multiple select, date" (reference §1.7). A date with a time is the same field in the
// service's interface (dateTime in the API), so it is accepted; email, URL, phone, currency, percent
// and rich text are types of their own there and are refused, so that a client that upserts on the
// emulator does not meet a 422 only on the service.
var mergeTypes = map[string]bool{"number": true, "singleLineText": true, "multilineText": true,
	"singleSelect": true, "multipleSelects": true, "date": true, "dateTime": true}

func (s *Server) updateBatch(c *call) (reply, *apiError) {
	t, body, aerr := s.writeRequest(c)
	if aerr != nil {
		return reply{}, aerr
	}
	defer s.mu.Unlock()
	if body.Records == nil {
		return reply{}, errInvalidRequest("the body needs \"records\": [{\"id\": ..., \"fields\": {...}}]")
	}
	if len(body.Records) > MaxRecordsPerWrite {
		return reply{}, errTooManyRecords("updated", len(body.Records))
	}
	if len(body.Records) == 0 {
		return reply{}, errorf(422, "INVALID_RECORDS", "\"records\" is empty: give 1 to %d records to update", MaxRecordsPerWrite)
	}
	replace := c.r.Method == http.MethodPut
	var merge []*field
	if body.PerformUpsert != nil {
		names := body.PerformUpsert.FieldsToMergeOn
		if len(names) < 1 || len(names) > 3 {
			return reply{}, errInvalidRequest(fmt.Sprintf("performUpsert.fieldsToMergeOn must name 1 to 3 fields, got %d", len(names)))
		}
		for _, n := range names {
			fl := t.field(n)
			if fl == nil {
				return reply{}, errUnknownField(n)
			}
			if !mergeTypes[fl.Type] {
				return reply{}, errInvalidRequest(fmt.Sprintf("field %q (%s) cannot be in fieldsToMergeOn: only number, text, long text, single select, multiple select and date fields can", fl.Name, fl.Type))
			}
			merge = append(merge, fl)
		}
	}
	x := s.newTxn(t.base, body.Typecast, apiSource(c))
	out := make([]*record, 0, len(body.Records))
	var created, updated []string
	for i, it := range body.Records {
		var r *record
		switch {
		case it.ID != "":
			r = x.get(t, it.ID)
			if r == nil {
				return reply{}, errorf(422, "ROW_DOES_NOT_EXIST", "Record ID %s does not exist in this table", it.ID)
			}
			if merge != nil && !slices.Contains(updated, r.id) && !x.created[r.id] {
				updated = append(updated, r.id)
			}
		case merge == nil:
			return reply{}, errInvalidRequest(fmt.Sprintf("records[%d] has no \"id\"; give one, or use performUpsert", i))
		default:
			match, aerr := x.findMerge(t, merge, it.Fields, i)
			if aerr != nil {
				return reply{}, aerr
			}
			if match != "" {
				r = x.get(t, match)
				if !x.created[r.id] && !slices.Contains(updated, r.id) {
					updated = append(updated, r.id)
				}
			} else {
				r = x.create(t)
				created = append(created, r.id)
				if aerr := x.setFields(t, r, it.Fields, false); aerr != nil {
					return reply{}, aerr
				}
				out = append(out, r)
				continue
			}
		}
		if it.Fields == nil {
			return reply{}, errInvalidRequest(fmt.Sprintf("records[%d] has no \"fields\"", i))
		}
		if aerr := x.setFields(t, r, it.Fields, replace); aerr != nil {
			return reply{}, aerr
		}
		out = append(out, r)
	}
	if aerr := x.commit(); aerr != nil {
		return reply{}, aerr
	}
	// created and updated are filled only by an upsert, the one answer that lists them.
	return s.writeReply(t, out, false, body.ByFieldID, created, updated), nil
}

// findMerge finds the one record whose merge fields equal the item's; "" when none does.
func (x *txn) findMerge(t *table, merge []*field, fields map[string]any, index int) (string, *apiError) {
	want := make([]any, len(merge))
	for i, fl := range merge {
		v, present := fields[fl.Name]
		if !present {
			v, present = fields[fl.ID]
		}
		if !present {
			return "", errorf(422, "INVALID_RECORDS", "records[%d] has no id and lacks the merge field %q of performUpsert.fieldsToMergeOn", index, fl.Name)
		}
		cell, aerr := normalizeCell(t, fl, v, x.mode)
		if aerr != nil {
			return "", aerr
		}
		if cell == nil {
			return "", nil // a blank merge value matches nothing: a new record is created
		}
		want[i] = cell
	}
	var matches []string
	consider := func(r *record) {
		for i, fl := range merge {
			if !reflect.DeepEqual(r.cells[fl.ID], want[i]) {
				return
			}
		}
		matches = append(matches, r.id)
	}
	for _, orig := range t.records {
		if x.deleted[orig.id] {
			continue
		}
		if w := x.work[orig.id]; w != nil {
			consider(w)
		} else {
			consider(orig)
		}
	}
	for _, id := range x.touched {
		if x.created[id] && x.tableOf[id] == t {
			consider(x.work[id])
		}
	}
	if len(matches) > 1 {
		return "", errorf(422, "INVALID_RECORDS", "records[%d] matches %d records on fieldsToMergeOn; an upsert must match at most one", index, len(matches))
	}
	if len(matches) == 1 {
		return matches[0], nil
	}
	return "", nil
}

func (s *Server) deleteOne(c *call) (reply, *apiError) {
	t, aerr := s.writeTable(c)
	if aerr != nil {
		return reply{}, aerr
	}
	defer s.mu.Unlock()
	x := s.newTxn(t.base, false, apiSource(c))
	r := x.get(t, c.segments[2])
	if r == nil {
		return reply{}, s.notFoundRecord(c.segments[2])
	}
	x.remove(t, r)
	if aerr := x.commit(); aerr != nil {
		return reply{}, aerr
	}
	return ok(map[string]any{"deleted": true, "id": r.id}), nil
}

func (s *Server) deleteBatch(c *call) (reply, *apiError) {
	// Access first (base, table, scope), then the body: see "order of checks" in README.md.
	t, aerr := s.writeTable(c)
	if aerr != nil {
		return reply{}, aerr
	}
	defer s.mu.Unlock()
	vals, _ := url.ParseQuery(c.r.URL.RawQuery)
	ids := append(vals["records[]"], vals["records"]...)
	if len(ids) > MaxRecordsPerWrite {
		return reply{}, errTooManyRecords("deleted", len(ids))
	}
	if len(ids) == 0 {
		return reply{}, errInvalidRequest("give the records to delete as records[]=rec...&records[]=rec... (1 to 10)")
	}
	x := s.newTxn(t.base, false, apiSource(c))
	out := make([]any, 0, len(ids))
	for _, id := range ids {
		r := x.get(t, id)
		if r == nil {
			return reply{}, s.notFoundRecord(id)
		}
		x.remove(t, r)
		out = append(out, map[string]any{"deleted": true, "id": id})
	}
	if aerr := x.commit(); aerr != nil {
		return reply{}, aerr
	}
	return ok(map[string]any{"records": out}), nil
}

// applyOpsLocked applies logged changes to the data; used by writes and by the data file's replay.
func (s *Server) applyOpsLocked(ops []walOp) error {
	for _, op := range ops {
		if op.Kind == "fixture" {
			f, err := ParseFixture(op.Fixture)
			if err != nil {
				return err
			}
			if err := s.applyFixtureLocked(f); err != nil {
				return err
			}
			continue
		}
		if extraWALKind[op.Kind] {
			if err := s.applyExtraOpLocked(op); err != nil {
				return err
			}
			continue
		}
		b := s.bases[op.Base]
		if b == nil {
			return fmt.Errorf("base %s does not exist", op.Base)
		}
		t := b.tableByID[op.Table]
		if t == nil {
			return fmt.Errorf("table %s does not exist in base %s", op.Table, op.Base)
		}
		switch op.Kind {
		case "choices":
			fl := t.fieldByID[op.Field]
			if fl == nil {
				return fmt.Errorf("field %s does not exist in table %s", op.Field, t.id)
			}
			fl.Options["choices"] = op.Choices
		case "put":
			r, err := fromWALRecord(op.Record)
			if err != nil {
				return err
			}
			if old := t.recByID[r.id]; old != nil {
				*old = *r
			} else {
				t.records = append(t.records, r)
				t.recByID[r.id] = r
			}
			if r.autoNumber > t.nextAutoNumber {
				t.nextAutoNumber = r.autoNumber
			}
		case "delete":
			if t.recByID[op.ID] == nil {
				continue
			}
			delete(t.recByID, op.ID)
			delete(s.extras.comments, op.ID) // a record's comments go with it
			if i := t.indexOf(op.ID); i >= 0 {
				t.records = append(t.records[:i:i], t.records[i+1:]...)
			}
		default:
			return fmt.Errorf("unknown change %q", op.Kind)
		}
	}
	return nil
}

// walRecord is a record as the data file stores it.
type walRecord struct {
	ID         string         `json:"id"`
	Created    string         `json:"createdTime"`
	Modified   string         `json:"modifiedTime"`
	AutoNumber int            `json:"autoNumber"`
	ByAPI      bool           `json:"byAPI,omitempty"`
	Cells      map[string]any `json:"cells"`
	// FieldModified: field id -> when its value last changed (absent in logs written before it).
	FieldModified map[string]string `json:"fieldModified,omitempty"`
}

func toWALRecord(r *record) *walRecord {
	w := &walRecord{ID: r.id, Created: r.created.UTC().Format(time.RFC3339Nano), Modified: r.modified.UTC().Format(time.RFC3339Nano),
		AutoNumber: r.autoNumber, ByAPI: r.byAPI, Cells: r.cells}
	if len(r.fieldModified) > 0 {
		w.FieldModified = make(map[string]string, len(r.fieldModified))
		for id, t := range r.fieldModified {
			w.FieldModified[id] = t.UTC().Format(time.RFC3339Nano)
		}
	}
	return w
}

func fromWALRecord(w *walRecord) (*record, error) {
	if w == nil {
		return nil, fmt.Errorf("a put without a record")
	}
	created, err := time.Parse(time.RFC3339Nano, w.Created)
	if err != nil {
		return nil, fmt.Errorf("record %s: createdTime: %w", w.ID, err)
	}
	modified, err := time.Parse(time.RFC3339Nano, w.Modified)
	if err != nil {
		return nil, fmt.Errorf("record %s: modifiedTime: %w", w.ID, err)
	}
	cells := w.Cells
	if cells == nil {
		cells = map[string]any{}
	}
	// Round-trip through JSON so the cells have exactly the form of decoded requests.
	raw, _ := json.Marshal(cells)
	var norm map[string]any
	_ = json.Unmarshal(raw, &norm)
	if norm == nil {
		norm = map[string]any{}
	}
	var fieldModified map[string]time.Time
	for id, s := range w.FieldModified {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, fmt.Errorf("record %s: modified time of field %s: %w", w.ID, id, err)
		}
		if fieldModified == nil {
			fieldModified = map[string]time.Time{}
		}
		fieldModified[id] = t
	}
	return &record{id: w.ID, created: created, modified: modified, autoNumber: w.AutoNumber, byAPI: w.ByAPI, cells: norm,
		fieldModified: fieldModified}, nil
}
