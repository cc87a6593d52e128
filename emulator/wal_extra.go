package emulator

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
)

// Changes of the data file beyond records (wal.go): schema writes, comments and uploaded files.
// Each op carries its payload in walOp.Data. The compaction keeps them in place, in order.
const (
	walCreateTable   = "createTable"   // Data: FixtureTable with every id, options as the schema shows them
	walCreateField   = "createField"   // Table; Data: FixtureField
	walUpdateTable   = "updateTable"   // Table; Data: renameSpec
	walUpdateField   = "updateField"   // Table, Field; Data: fieldUpdateSpec
	walCommentPut    = "commentPut"    // Table, ID (record); Data: the stored comment
	walCommentDelete = "commentDelete" // Table, ID (record), Field (the comment id)
	walUpload        = "upload"        // ID (attachment id); Data: storedUpload
)

var extraWALKind = map[string]bool{
	walCreateTable: true, walCreateField: true, walUpdateTable: true, walUpdateField: true,
	walCommentPut: true, walCommentDelete: true, walUpload: true, walDeleteField: true, walDeleteTable: true,
}

// extraState holds what the emulator keeps besides bases: comments by record id and uploaded
// files by attachment id. Guarded by Server.mu.
type extraState struct {
	comments map[string][]*comment // record id -> its comments, oldest first
	uploads  map[string]*storedUpload
	fetch    *fetcher // downloads of attachment URLs (attachments_fetch.go); nil until the first
	// uploadBytes is the size of the uploaded files kept, decoded; uploadLimit bounds it (0:
	// MaxStoredUploadBytes; tests lower it).
	uploadBytes, uploadLimit int64
}

// commitExtraLocked logs ops in the data file (when there is one), then applies them. The caller
// holds s.mu for writing. A change the log refused changes nothing.
func (s *Server) commitExtraLocked(ops []walOp, by changeSource) *apiError {
	if s.wal != nil {
		if err := s.wal.append(ops); err != nil {
			return errorf(http.StatusInternalServerError, "SERVER_ERROR", "The write could not be saved to the data file: %v. Nothing was changed.", err)
		}
	}
	if err := s.applyAndNotifyLocked(ops, by); err != nil {
		return errorf(http.StatusInternalServerError, "SERVER_ERROR", "%v", err)
	}
	return nil
}

// applyExtraOpLocked applies one op of this file; used by the requests and by the replay.
func (s *Server) applyExtraOpLocked(op walOp) error {
	if op.Kind == walUpload {
		return s.applyUploadLocked(op)
	}
	b := s.bases[op.Base]
	if b == nil {
		return fmt.Errorf("base %s does not exist", op.Base)
	}
	if op.Kind == walCreateTable {
		var ft FixtureTable
		if err := json.Unmarshal(op.Data, &ft); err != nil {
			return fmt.Errorf("createTable: %w", err)
		}
		return s.addTableLocked(b, ft)
	}
	t := b.tableByID[op.Table]
	if t == nil {
		return fmt.Errorf("table %s does not exist in base %s", op.Table, op.Base)
	}
	switch op.Kind {
	case walDeleteField:
		if err := s.applyDeleteFieldLocked(b, t, op.Field); err != nil {
			return err
		}
	case walDeleteTable:
		if err := s.applyDeleteTableLocked(b, t); err != nil {
			return err
		}
	case walCreateField:
		if err := applyCreateField(b, t, op); err != nil {
			return err
		}
	case walUpdateTable:
		var rs renameSpec
		if err := json.Unmarshal(op.Data, &rs); err != nil {
			return fmt.Errorf("updateTable: %w", err)
		}
		if rs.Name != nil {
			t.name = *rs.Name
		}
		if rs.Description != nil {
			t.description = *rs.Description
		}
	case walUpdateField:
		if err := applyUpdateField(t, op); err != nil {
			return err
		}
	case walCommentPut:
		var cm comment
		if err := json.Unmarshal(op.Data, &cm); err != nil {
			return fmt.Errorf("commentPut: %w", err)
		}
		if t.recByID[op.ID] == nil {
			return fmt.Errorf("commentPut: record %s does not exist in table %s", op.ID, t.id)
		}
		s.putCommentLocked(op.ID, &cm)
	case walCommentDelete:
		s.deleteCommentLocked(op.ID, op.Field)
	default:
		return fmt.Errorf("unknown change %q", op.Kind)
	}
	s.formulas.reset() // compiled formulas resolve field names
	return nil
}

// applyUploadLocked keeps an uploaded file (uploadAttachment), counting its bytes.
func (s *Server) applyUploadLocked(op walOp) error {
	var u storedUpload
	if err := json.Unmarshal(op.Data, &u); err != nil {
		return fmt.Errorf("upload %s: %w", op.ID, err)
	}
	content, err := base64.StdEncoding.DecodeString(u.Content)
	if err != nil {
		return fmt.Errorf("upload %s: content: %w", op.ID, err)
	}
	if s.extras.uploads == nil {
		s.extras.uploads = map[string]*storedUpload{}
	}
	if old := s.extras.uploads[op.ID]; old != nil {
		s.extras.uploadBytes -= old.size
	}
	u.size = int64(len(content))
	s.extras.uploads[op.ID] = &u
	s.extras.uploadBytes += u.size
	return nil
}

// applyCreateField adds a field made by create field (its id given, options final).
func applyCreateField(b *base, t *table, op walOp) error {
	var ff FixtureField
	if err := json.Unmarshal(op.Data, &ff); err != nil {
		return fmt.Errorf("createField: %w", err)
	}
	if t.fieldByID[ff.ID] != nil || ff.ID == "" {
		return fmt.Errorf("createField: table %s already has a field %s", t.id, ff.ID)
	}
	if err := checkLoggedField(b, ff); err != nil {
		return err
	}
	fl := &field{ID: ff.ID, Name: ff.Name, Type: ff.Type, Description: ff.Description, Options: ff.Options}
	if fl.Options == nil {
		fl.Options = map[string]any{}
	}
	t.fields = append(t.fields, fl)
	t.fieldByID[fl.ID] = fl
	return nil
}

// applyUpdateField renames a field, changes its description, or a formula field's formula.
func applyUpdateField(t *table, op walOp) error {
	var rs fieldUpdateSpec
	if err := json.Unmarshal(op.Data, &rs); err != nil {
		return fmt.Errorf("updateField: %w", err)
	}
	fl := t.fieldByID[op.Field]
	if fl == nil {
		return fmt.Errorf("updateField: field %s does not exist in table %s", op.Field, t.id)
	}
	if rs.Name != nil && *rs.Name != fl.Name {
		// Formulas and view filters name fields; the service keeps them by id, so that a rename
		// does not break them. Write them with ids before the name changes.
		idsInFormulas(t)
		fl.Name = *rs.Name
	}
	if rs.Description != nil {
		fl.Description = *rs.Description
	}
	if rs.Options != nil {
		var fu formulaUpdate
		if err := json.Unmarshal(rs.Options, &fu); err != nil || fu.Formula == nil || fl.Type != "formula" {
			return fmt.Errorf("updateField: field %s: options other than a formula field's formula", op.Field)
		}
		// Kept with field ids, as the service shows a formula: a later rename keeps it valid.
		fl.Options["formula"], _ = formulaWithIDs(t, *fu.Formula)
	}
	return nil
}

// addTableLocked adds a table made by create table (every id given, options final).
func (s *Server) addTableLocked(b *base, ft FixtureTable) error {
	if b.tableByID[ft.ID] != nil {
		return fmt.Errorf("createTable: base %s already has a table %s", b.id, ft.ID)
	}
	t := &table{base: b, id: ft.ID, name: ft.Name, description: ft.Description,
		fieldByID: map[string]*field{}, recByID: map[string]*record{}}
	if ft.ID == "" {
		return fmt.Errorf("createTable: a table without an id")
	}
	for _, ff := range ft.Fields {
		if ff.ID == "" || t.fieldByID[ff.ID] != nil {
			return fmt.Errorf("createTable: table %s: field id %q is empty or repeated", ft.ID, ff.ID)
		}
		if err := checkLoggedField(b, ff); err != nil {
			return err
		}
		fl := &field{ID: ff.ID, Name: ff.Name, Type: ff.Type, Description: ff.Description, Options: ff.Options}
		if fl.Options == nil {
			fl.Options = map[string]any{}
		}
		t.fields = append(t.fields, fl)
		t.fieldByID[fl.ID] = fl
	}
	if len(t.fields) == 0 {
		return fmt.Errorf("createTable: table %s has no fields", ft.ID)
	}
	t.primary = t.fieldByID[ft.PrimaryFieldID]
	if t.primary == nil {
		t.primary = t.fields[0]
	}
	for _, fv := range ft.Views {
		t.views = append(t.views, &view{id: fv.ID, name: fv.Name, typ: fv.Type})
	}
	b.tables = append(b.tables, t)
	b.tableByID[t.id] = t
	return nil
}

// checkLoggedField refuses a logged field that create field could not have made: a computed or
// unknown type, or a link to a table that does not exist.
func checkLoggedField(b *base, ff FixtureField) error {
	if !knownFieldType[ff.Type] || computedType[ff.Type] {
		return fmt.Errorf("field %s: type %q cannot be created through the API", ff.ID, ff.Type)
	}
	if ff.Type == "multipleRecordLinks" && b.tableByID[optString(ff.Options, "linkedTableId")] == nil {
		return fmt.Errorf("field %s: linkedTableId %q is not a table of base %s", ff.ID, optString(ff.Options, "linkedTableId"), b.id)
	}
	return nil
}

// idsInFormulas rewrites the formula fields and view filters of t to name fields by id.
func idsInFormulas(t *table) {
	for _, fl := range t.fields {
		if fl.Type == "formula" {
			text, _ := formulaWithIDs(t, optString(fl.Options, "formula"))
			fl.Options["formula"] = text
		}
	}
	for _, v := range t.views {
		if v.filter != "" {
			v.filter, _ = formulaWithIDs(t, v.filter)
		}
	}
}
