package emulator

import (
	"maps"
	"strings"
	"time"
)

// base, table, field, view and record hold the emulator's data. They are guarded by Server.mu.

type base struct {
	id, name  string
	tables    []*table
	tableByID map[string]*table
	info      baseInfo // what GET /v0/meta/bases/{id} tells besides the schema (baseinfo.go)
	// txnNumber counts the requests that changed the base: the baseTransactionNumber of webhook
	// payloads (webhooks.go).
	txnNumber int
}

// table finds a table by id, then by exact name.
func (b *base) table(nameOrID string) *table {
	if t := b.tableByID[nameOrID]; t != nil {
		return t
	}
	return b.tableByName(nameOrID)
}

func (b *base) tableByName(name string) *table {
	for _, t := range b.tables {
		if t.name == name {
			return t
		}
	}
	return nil
}

type table struct {
	base           *base
	id, name       string
	description    string
	fields         []*field
	fieldByID      map[string]*field
	primary        *field
	views          []*view
	records        []*record // creation order: the order of a list with neither sort nor view
	recByID        map[string]*record
	nextAutoNumber int
}

// field finds a field by id, then by exact name (write payloads, fields[], sort).
func (t *table) field(nameOrID string) *field {
	if f := t.fieldByID[nameOrID]; f != nil {
		return f
	}
	return t.fieldByName(nameOrID)
}

func (t *table) fieldByName(name string) *field {
	for _, f := range t.fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// fieldFold finds a field by id, exact name, then a name equal under Unicode case folding;
// formulas use it (reference §2.2: formula errors lower-case field names).
func (t *table) fieldFold(nameOrID string) *field {
	if f := t.field(nameOrID); f != nil {
		return f
	}
	var found *field
	for _, f := range t.fields {
		if strings.EqualFold(f.Name, nameOrID) {
			if found != nil {
				return nil // ambiguous: only an exact spelling selects one
			}
			found = f
		}
	}
	return found
}

func (t *table) view(nameOrID string) *view {
	for _, v := range t.views {
		if v.id == nameOrID {
			return v
		}
	}
	for _, v := range t.views {
		if v.name == nameOrID {
			return v
		}
	}
	return nil
}

func (t *table) indexOf(id string) int {
	for i, r := range t.records {
		if r.id == id {
			return i
		}
	}
	return -1
}

type field struct {
	ID, Name, Type, Description string
	Options                     map[string]any
	// rollup is a rollup field's options.formula, parsed once when the fixture is built rather
	// than for every record read.
	rollup rollupFunc
}

func (f *field) inverseID() string { return optString(f.Options, "inverseLinkFieldId") }
func (f *field) linkedTableID() string {
	return optString(f.Options, "linkedTableId")
}

// computed reports whether the field's value is computed by the service and cannot be written.
func (f *field) computed() bool { return computedType[f.Type] }

func optString(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func optNumber(m map[string]any, key string, def float64) float64 {
	switch v := m[key].(type) {
	case float64:
		return v
	case int:
		return float64(v)
	}
	return def
}

type view struct {
	id, name, typ string
	filter        string
	sort          []sortKey
	visible       []string // field ids; empty: all
}

type sortKey struct {
	field *field
	desc  bool
}

// record holds the stored cells of a record, keyed by field id, in the API's JSON form.
// Computed fields are not stored: they are computed when read.
type record struct {
	id         string
	created    time.Time
	modified   time.Time
	autoNumber int
	cells      map[string]any
	// byAPI is set once a request has written the record: records loaded from a fixture have no
	// lastModifiedBy, like the records of a duplicated base in the 2021 recording.
	byAPI bool
	// fieldModified is when each field's value last changed through a request (field id -> time),
	// for LAST_MODIFIED_TIME({Field}); fields not in it have had their value since the record was
	// created, as far as the emulator knows.
	fieldModified map[string]time.Time
}

// touchField notes that the field's value changed at now.
func (r *record) touchField(fieldID string, now time.Time) {
	if r.fieldModified == nil {
		r.fieldModified = map[string]time.Time{}
	}
	r.fieldModified[fieldID] = now
}

func (r *record) clone() *record {
	c := *r
	c.cells = make(map[string]any, len(r.cells)) // never nil: the copy is written to
	maps.Copy(c.cells, r.cells)
	c.fieldModified = maps.Clone(r.fieldModified) // nil stays nil: touchField makes it
	return &c
}

var computedType = map[string]bool{
	"formula": true, "rollup": true, "count": true, "multipleLookupValues": true, "autoNumber": true,
	"createdTime": true, "lastModifiedTime": true, "createdBy": true, "lastModifiedBy": true,
	"button": true, "externalSyncSource": true, "aiText": true,
}

// knownFieldType are the field types a fixture may use: those whose values are written, and the
// computed ones.
var knownFieldType = func() map[string]bool {
	known := map[string]bool{
		"singleLineText": true, "multilineText": true, "richText": true, "email": true, "url": true,
		"phoneNumber": true, "number": true, "currency": true, "percent": true, "duration": true,
		"rating": true, "checkbox": true, "date": true, "dateTime": true, "singleSelect": true,
		"multipleSelects": true, "singleCollaborator": true, "multipleCollaborators": true,
		"multipleRecordLinks": true, "multipleAttachments": true, "barcode": true,
	}
	maps.Copy(known, computedType)
	return known
}()

// timeFormat is how the API writes createdTime and dateTime cells.
const timeFormat = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }
