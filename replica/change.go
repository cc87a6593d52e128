package replica

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/airsql/airsql/transport"
)

// Change is what one payload does to one copied table, in the records API's forms. It is computed
// once (PlanChange) and applied by each kind of copy: the in-memory Table, and the SQL tables of
// airsql sync. A Change is whole: it is applied entirely or not at all.
type Change struct {
	Cursor      int   // the payload's cursor: after the change the copy reads from Cursor+1
	Transaction int64 // the payload's baseTransactionNumber

	// Touched says whether the payload changes the table at all; when false only the cursor moves.
	Touched bool

	Name   string           // the table's name after the payload
	Fields map[string]Field // the table's fields after the payload, by id
	Order  []string         // their ids in schema order

	CreatedFields   []string // ids of fields created (in Fields)
	RenamedFields   []string // ids of fields whose name changed (in Fields)
	DestroyedFields []string // ids of fields deleted (no longer in Fields; a copy may not have known them)

	Created   map[string]CreatedRecord  // records created, by id: their non-empty cells
	Changed   map[string]map[string]any // records changed, by id: the cells set, a nil value for a cell cleared
	Destroyed []string                  // records deleted
}

// CreatedRecord is a record a payload created.
type CreatedRecord struct {
	CreatedTime time.Time
	Cells       map[string]any // by field id, non-empty cells only
}

// CopyState is what PlanChange needs to know of a copy: its schema, where it is in the payloads,
// and which records it holds.
type CopyState struct {
	TableID string
	Name    string
	Fields  map[string]Field
	Order   []string
	// Cursor is the next payload to apply; Replay the cursor below which payloads may predate the
	// copy's listing (a field or record they name and the copy does not know was deleted before
	// the listing saw it, and a later payload says so).
	Cursor, Replay int
	// HasRecord says whether the copy holds a record.
	HasRecord func(id string) (bool, error)
}

// ErrWebhookEnded says that a payload was an error payload: the webhook makes no more; follow a
// new one, and copy every table again.
var ErrWebhookEnded = errNewHook

// ErrTableDeleted says that a copied table was deleted from the base.
var ErrTableDeleted = errTableDeleted

// IsRecopy reports whether err says a payload cannot be applied exactly to a table, which must
// then be copied again (the reason is in err's text).
func IsRecopy(err error) bool {
	var rc *errRecopy
	return errors.As(err, &rc)
}

// PlanChange computes what payload p does to a copy. It returns nil (and no error) when the
// copy applied p already or its listing came after it; ErrWebhookEnded for an error payload;
// ErrTableDeleted when p deletes the table; an error for which IsRecopy holds when p cannot be
// applied exactly (a computed field created, a field retyped, a record or field the copy does not
// know); or an error of HasRecord.
func PlanChange(st CopyState, p transport.WebhookPayload) (*Change, error) {
	if p.Cursor < st.Cursor {
		return nil, nil // from before the copy's listing, or applied already
	}
	if p.Error {
		return nil, errNewHook
	}
	if slices.Contains(p.DestroyedTableIDs, st.TableID) {
		return nil, errTableDeleted
	}
	ch := &Change{Cursor: p.Cursor, Transaction: p.BaseTransactionNumber, Name: st.Name, Fields: st.Fields, Order: st.Order}
	tc, changed := p.ChangedTablesByID[st.TableID]
	if !changed {
		return ch, nil
	}
	ch.Touched = true
	replaying := p.Cursor < st.Replay
	if m := tc.ChangedMetadata; m != nil && m.Current.Name != nil {
		ch.Name = *m.Current.Name
	}
	if err := ch.planFields(st, tc, replaying); err != nil {
		return nil, err
	}
	if err := ch.planRecords(st, tc, replaying); err != nil {
		return nil, err
	}
	return ch, nil
}

// planFields decides what a payload does to the table's fields: those created, renamed and
// deleted, or why the table must be copied again (a computed field created, a field retyped, a
// field deleted from a table with computed fields, a field changed the copy does not know).
func (ch *Change) planFields(st CopyState, tc transport.WebhookTableChanged, replaying bool) error {
	fields := maps.Clone(st.Fields)
	order := slices.Clone(st.Order)
	for _, id := range slices.Sorted(maps.Keys(tc.CreatedFieldsByID)) {
		f := tc.CreatedFieldsByID[id]
		if computedType[f.Type] {
			return &errRecopy{fmt.Sprintf("computed field %s (%s) was created: its values are not all in payloads", id, f.Type)}
		}
		if _, known := fields[id]; !known {
			order = append(order, id)
			ch.CreatedFields = append(ch.CreatedFields, id)
		}
		fields[id] = Field{ID: id, Name: f.Name, Type: f.Type}
	}
	for _, id := range slices.Sorted(maps.Keys(tc.ChangedFieldsByID)) {
		fc := tc.ChangedFieldsByID[id]
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
		if fc.Current.Name != "" && fc.Current.Name != f.Name {
			f.Name = fc.Current.Name
			if !slices.Contains(ch.CreatedFields, id) {
				ch.RenamedFields = append(ch.RenamedFields, id)
			}
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
		ch.CreatedFields = slices.DeleteFunc(ch.CreatedFields, func(o string) bool { return o == id })
		ch.RenamedFields = slices.DeleteFunc(ch.RenamedFields, func(o string) bool { return o == id })
	}
	ch.DestroyedFields = tc.DestroyedFieldIDs
	ch.Fields, ch.Order = fields, order
	return nil
}

// planRecords decides what a payload does to the table's records, in the records API's forms
// and with the fields after it (planFields), or why the table must be copied again (a record
// changed the copy does not know, a cell of a field it does not know).
func (ch *Change) planRecords(st CopyState, tc transport.WebhookTableChanged, replaying bool) error {
	// cells converts a payload's cells, keeping the nil of a cell cleared (a changed record's).
	cells := func(given map[string]any, keepNil bool) (map[string]any, error) {
		converted, err := restCells(ch.Fields, given, replaying)
		if err != nil {
			return nil, err
		}
		if keepNil {
			for fid := range given {
				if _, isField := ch.Fields[fid]; isField {
					if _, set := converted[fid]; !set {
						converted[fid] = nil
					}
				}
			}
		}
		return converted, nil
	}
	ch.Created = map[string]CreatedRecord{}
	for id, rec := range tc.CreatedRecordsByID {
		c, err := cells(rec.CellValuesByFieldID, false)
		if err != nil {
			return err
		}
		ch.Created[id] = CreatedRecord{CreatedTime: rec.CreatedTime, Cells: c}
	}
	ch.Changed = map[string]map[string]any{}
	for id, rc := range tc.ChangedRecordsByID {
		if _, created := ch.Created[id]; !created {
			has, err := st.HasRecord(id)
			if err != nil {
				return err
			}
			if !has && replaying {
				continue
			}
			if !has {
				return &errRecopy{fmt.Sprintf("record %s changed but is not in the copy", id)}
			}
		}
		c, err := cells(rc.Current.CellValuesByFieldID, true)
		if err != nil {
			return err
		}
		ch.Changed[id] = c
	}
	ch.Destroyed = tc.DestroyedRecordIDs
	return nil
}
