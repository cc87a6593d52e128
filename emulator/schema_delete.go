package emulator

import (
	"fmt"
	"slices"
)

// Deleting fields and tables. The Web API cannot do it; a user does it in Airtable's interface,
// and webhooks report it (destroyedFieldIds, destroyedTableIds, and an error payload for a hook
// whose filters named what went). Tests call DeleteField and DeleteTable to play that user; the
// change is logged in the data file (kinds deleteField and deleteTable of wal_extra.go) and its
// payloads have source "client".

const (
	walDeleteField = "deleteField" // Table, Field
	walDeleteTable = "deleteTable" // Table
)

// DeleteField deletes a field of a table, with its values, as a user does in the interface. It
// refuses the primary field, a link field and a field that lookups, rollups or counts read: the
// service converts or invalidates those, which the emulator does not model.
func (s *Server) DeleteField(baseID, tableID, fieldID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bases[baseID]
	if b == nil {
		return fmt.Errorf("emulator: DeleteField: no base %s", baseID)
	}
	t := b.tableByID[tableID]
	if t == nil {
		return fmt.Errorf("emulator: DeleteField: no table %s in base %s", tableID, baseID)
	}
	if err := checkFieldDeletable(b, t, fieldID); err != nil {
		return fmt.Errorf("emulator: DeleteField: %w", err)
	}
	if aerr := s.commitExtraLocked([]walOp{{Kind: walDeleteField, Base: b.id, Table: t.id, Field: fieldID}}, changeSource{source: sourceClient}); aerr != nil {
		return fmt.Errorf("emulator: DeleteField: %s", aerr.msg)
	}
	return nil
}

// DeleteTable deletes a table and its records, as a user does in the interface. It refuses the
// last table of a base and a table that another table links to.
func (s *Server) DeleteTable(baseID, tableID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bases[baseID]
	if b == nil {
		return fmt.Errorf("emulator: DeleteTable: no base %s", baseID)
	}
	if err := checkTableDeletable(b, tableID); err != nil {
		return fmt.Errorf("emulator: DeleteTable: %w", err)
	}
	if aerr := s.commitExtraLocked([]walOp{{Kind: walDeleteTable, Base: b.id, Table: tableID}}, changeSource{source: sourceClient}); aerr != nil {
		return fmt.Errorf("emulator: DeleteTable: %s", aerr.msg)
	}
	return nil
}

func checkFieldDeletable(b *base, t *table, fieldID string) error {
	fl := t.fieldByID[fieldID]
	switch {
	case fl == nil:
		return fmt.Errorf("no field %s in table %s", fieldID, t.id)
	case fl == t.primary:
		return fmt.Errorf("field %s is the primary field of table %s, which cannot be deleted", fl.ID, t.id)
	case fl.Type == "multipleRecordLinks":
		return fmt.Errorf("field %s is a link; the emulator does not model what deleting a link does to its other side", fl.ID)
	}
	for _, ot := range b.tables {
		for _, o := range ot.fields {
			if optString(o.Options, "recordLinkFieldId") == fl.ID || optString(o.Options, "fieldIdInLinkedTable") == fl.ID {
				return fmt.Errorf("field %s is read by %s field %s of table %s; delete that first", fl.ID, o.Type, o.ID, ot.id)
			}
		}
	}
	return nil
}

func checkTableDeletable(b *base, tableID string) error {
	t := b.tableByID[tableID]
	if t == nil {
		return fmt.Errorf("no table %s in base %s", tableID, b.id)
	}
	if len(b.tables) == 1 {
		return fmt.Errorf("table %s is the last table of base %s", t.id, b.id)
	}
	for _, ot := range b.tables {
		if ot == t {
			continue
		}
		for _, fl := range ot.fields {
			if fl.Type == "multipleRecordLinks" && fl.linkedTableID() == t.id {
				return fmt.Errorf("table %s is linked from field %s of table %s; the emulator does not model what deleting it does to that link", t.id, fl.ID, ot.id)
			}
		}
	}
	return nil
}

// applyDeleteFieldLocked removes a field and its values; used by DeleteField and by the replay.
func (s *Server) applyDeleteFieldLocked(b *base, t *table, fieldID string) error {
	if err := checkFieldDeletable(b, t, fieldID); err != nil {
		return fmt.Errorf("deleteField: %w", err)
	}
	t.fields = slices.DeleteFunc(t.fields, func(f *field) bool { return f.ID == fieldID })
	delete(t.fieldByID, fieldID)
	for _, r := range t.records {
		delete(r.cells, fieldID)
		delete(r.fieldModified, fieldID)
	}
	for _, v := range t.views {
		v.visible = slices.DeleteFunc(v.visible, func(id string) bool { return id == fieldID })
		v.sort = slices.DeleteFunc(v.sort, func(k sortKey) bool { return k.field.ID == fieldID })
	}
	return nil
}

// applyDeleteTableLocked removes a table, its records and their comments.
func (s *Server) applyDeleteTableLocked(b *base, t *table) error {
	if err := checkTableDeletable(b, t.id); err != nil {
		return fmt.Errorf("deleteTable: %w", err)
	}
	for _, r := range t.records {
		delete(s.extras.comments, r.id)
	}
	b.tables = slices.DeleteFunc(b.tables, func(o *table) bool { return o == t })
	delete(b.tableByID, t.id)
	return nil
}
