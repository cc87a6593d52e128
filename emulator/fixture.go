package emulator

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/airsql/airsql/formula"
)

// Fixture is the fixture file of DESIGN.md: the shape of the metadata API's base schema, plus
// records and tokens. Ids may be omitted: they are derived from the names, the same on every load.
type Fixture struct {
	Tokens []FixtureToken `json:"tokens,omitempty"`
	Bases  []FixtureBase  `json:"bases"`
}

// FixtureToken is an access token with the bases it reaches and its scopes.
type FixtureToken struct {
	Token  string   `json:"token"`
	Bases  []string `json:"bases"`
	Scopes []string `json:"scopes"`
	// UserID and Email answer /v0/meta/whoami; derived from the token when empty.
	UserID string `json:"userId,omitempty"`
	Email  string `json:"email,omitempty"`
}

// FixtureBase is one base.
type FixtureBase struct {
	ID     string         `json:"id,omitempty"`
	Name   string         `json:"name"`
	Tables []FixtureTable `json:"tables"`
	// What GET /v0/meta/bases/{id} answers besides id and name (baseinfo.go); all optional.
	CreatedTime   string                `json:"createdTime,omitempty"` // RFC 3339; default 2024-01-01T00:00:00Z
	WorkspaceID   string                `json:"workspaceId,omitempty"` // default derived from the base id
	Collaborators []FixtureCollaborator `json:"collaborators,omitempty"`
	Interfaces    []map[string]any      `json:"interfaces,omitempty"`
	InviteLinks   *FixtureInviteLinks   `json:"inviteLinks,omitempty"`
}

// FixtureTable is one table: its schema, views and records.
type FixtureTable struct {
	ID             string          `json:"id,omitempty"`
	Name           string          `json:"name"`
	PrimaryFieldID string          `json:"primaryFieldId,omitempty"` // id or name; default the first field
	Description    string          `json:"description,omitempty"`
	Fields         []FixtureField  `json:"fields"`
	Views          []FixtureView   `json:"views,omitempty"`
	Records        []FixtureRecord `json:"records,omitempty"`
}

// FixtureField is one field. Options that name other tables or fields (linkedTableId,
// inverseLinkFieldId, recordLinkFieldId, fieldIdInLinkedTable) accept names as well as ids.
type FixtureField struct {
	ID          string         `json:"id,omitempty"`
	Name        string         `json:"name"`
	Type        string         `json:"type"`
	Description string         `json:"description,omitempty"`
	Options     map[string]any `json:"options,omitempty"`
}

// FixtureView is a view: its records are those passing FilterByFormula, in Sort order.
// VisibleFieldIDs (ids or names) only shows in the schema; the API returns hidden fields anyway.
type FixtureView struct {
	ID              string        `json:"id,omitempty"`
	Name            string        `json:"name"`
	Type            string        `json:"type,omitempty"` // default "grid"
	FilterByFormula string        `json:"filterByFormula,omitempty"`
	Sort            []FixtureSort `json:"sort,omitempty"`
	VisibleFieldIDs []string      `json:"visibleFieldIds,omitempty"`
}

// FixtureSort is one sort key of a view.
type FixtureSort struct {
	Field     string `json:"field"`               // name or id
	Direction string `json:"direction,omitempty"` // "asc" (default) or "desc"
}

// FixtureRecord is one record; its fields are keyed by name or id and validated like a create.
type FixtureRecord struct {
	ID          string         `json:"id,omitempty"`
	CreatedTime string         `json:"createdTime,omitempty"` // RFC 3339; default 2024-01-01T00:00:00Z plus one second per record
	Fields      map[string]any `json:"fields"`
}

// ParseFixture decodes a fixture file. Unknown keys are an error, so that a misspelt key is noticed.
func ParseFixture(data []byte) (*Fixture, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f Fixture
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("emulator: parse fixture: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("emulator: parse fixture: data after the top-level object")
	}
	return &f, nil
}

// fixtureEpoch is the createdTime of fixture records that give none.
var fixtureEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// derivedID is prefix + 14 characters derived from key: the same key gives the same id on every load.
func derivedID(prefix, key string) string {
	sum := sha256.Sum256([]byte(key))
	n := new(big.Int).SetBytes(sum[:])
	base := big.NewInt(int64(len(idAlphabet)))
	var b strings.Builder
	b.WriteString(prefix)
	mod := new(big.Int)
	for range 14 {
		n.DivMod(n, base, mod)
		b.WriteByte(idAlphabet[mod.Int64()])
	}
	return b.String()
}

// isID reports whether s looks like an Airtable id with the given prefix (3 letters + 14 alphanumerics).
func isID(s, prefix string) bool {
	if len(s) != 17 || !strings.HasPrefix(s, prefix) {
		return false
	}
	for i := 3; i < 17; i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// loadFixture builds the fixture's bases into the server. logIt records it in the data file.
func (s *Server) loadFixture(f *Fixture, logIt bool) error {
	if f == nil {
		return fmt.Errorf("emulator: LoadFixture(nil)")
	}
	// A fixture built in Go may hold Go values (an int, a []string, a time.Time) where a fixture
	// file holds their JSON form; the cells are validated as the API receives them, so read the
	// fixture back from its JSON as a file would be.
	raw, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("emulator: fixture: %w", err)
	}
	if f, err = ParseFixture(raw); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if logIt && s.wal != nil {
		commit, err := s.prepareFixtureLocked(f)
		if err != nil {
			return err
		}
		// Logged before it is applied, like every write: a fixture the data file lacks must not be
		// served, or later writes to its tables would be logged and make the file unreplayable.
		if err := s.wal.append([]walOp{{Kind: "fixture", Fixture: raw}}); err != nil {
			return fmt.Errorf("emulator: the fixture could not be saved to the data file, so it was not loaded: %w", err)
		}
		commit()
		return nil
	}
	return s.applyFixtureLocked(f)
}

// applyFixtureLocked builds every base of f; nothing is changed when f is invalid.
func (s *Server) applyFixtureLocked(f *Fixture) error {
	commit, err := s.prepareFixtureLocked(f)
	if err != nil {
		return err
	}
	commit()
	return nil
}

// prepareFixtureLocked builds and checks every base of f without changing the server; commit
// installs them and the fixture's tokens.
func (s *Server) prepareFixtureLocked(f *Fixture) (commit func(), err error) {
	built := make([]*base, 0, len(f.Bases))
	replaced := map[string]*base{} // base id -> the loaded base a fixture base adds to
	seen := map[string]bool{}
	for i := range f.Bases {
		fb := &f.Bases[i]
		id := fb.baseID()
		if seen[id] {
			return nil, fmt.Errorf("emulator: fixture: base %s (%q) is defined twice", id, fb.Name)
		}
		seen[id] = true
		old := s.bases[id]
		var b *base
		if old != nil {
			b, err = mergeBase(old, fb)
			replaced[id] = old
		} else {
			b, err = buildBase(fb)
		}
		if err != nil {
			return nil, err
		}
		built = append(built, b)
	}
	toks := f.Tokens
	if len(toks) == 0 {
		ids := make([]string, len(built))
		for i, b := range built {
			ids[i] = b.id
		}
		toks = []FixtureToken{{Token: DefaultToken, Bases: ids, Scopes: allScopes}}
	}
	for _, t := range toks {
		if t.Token == "" {
			return nil, fmt.Errorf("emulator: fixture: a token has an empty \"token\"")
		}
		for _, sc := range t.Scopes {
			if !knownScope[sc] {
				return nil, fmt.Errorf("emulator: fixture: unknown scope %q (known: %s)", sc, strings.Join(allScopes, ", "))
			}
		}
	}
	return func() {
		for _, b := range built {
			if replaced[b.id] == nil {
				s.order = append(s.order, b.id)
			}
			s.bases[b.id] = b
		}
		if len(replaced) > 0 {
			s.formulas.reset() // compiled formulas of the replaced tables
		}
		for _, t := range toks {
			s.addTokenLocked(t)
		}
	}, nil
}

// baseID is the base's id: the one given, else derived from its name.
func (fb *FixtureBase) baseID() string {
	if fb.ID != "" {
		return fb.ID
	}
	return derivedID("app", "base/"+fb.Name)
}

func buildBase(fb *FixtureBase) (*base, error) {
	if fb.Name == "" && fb.ID == "" {
		return nil, fmt.Errorf("emulator: fixture: a base has neither id nor name")
	}
	b := &base{id: fb.baseID(), name: fb.Name, tableByID: map[string]*table{}}
	if b.name == "" {
		b.name = b.id
	}
	if !isID(b.id, "app") {
		return nil, fmt.Errorf("emulator: fixture: base id %q is not \"app\" + 14 letters or digits", b.id)
	}
	info, err := buildBaseInfo(b.id, fb)
	if err != nil {
		return nil, fmt.Errorf("emulator: fixture: base %q: %w", b.name, err)
	}
	b.info = info
	// Pass 1: tables and fields with ids, so that options can refer to any table by name.
	for i := range fb.Tables {
		t, err := buildTable(b, &fb.Tables[i])
		if err != nil {
			return nil, err
		}
		b.tables = append(b.tables, t)
		b.tableByID[t.id] = t
	}
	// Pass 2: resolve options that refer to tables and fields.
	for _, t := range b.tables {
		for _, fl := range t.fields {
			if err := resolveFieldOptions(b, t, fl); err != nil {
				return nil, fmt.Errorf("emulator: fixture: table %q: field %q: %w", t.name, fl.Name, err)
			}
		}
	}
	pairInverseLinks(b)
	// Pass 3: views (their formulas are compiled when first used) and records.
	for i := range fb.Tables {
		if err := buildViews(b.tables[i], &fb.Tables[i]); err != nil {
			return nil, err
		}
	}
	for i := range fb.Tables {
		if err := buildRecords(b.tables[i], &fb.Tables[i]); err != nil {
			return nil, err
		}
	}
	// Cells last, so that links may point to records defined later in the file. Fixture values
	// are written like a create with typecast off; inverse links are filled in afterwards.
	for i := range fb.Tables {
		if err := fillCells(b.tables[i], &fb.Tables[i]); err != nil {
			return nil, err
		}
	}
	fillInverseLinks(b)
	// Formulas last, once every field exists: a formula field or view filter that does not
	// compile is a fixture error rather than a surprise on the first request.
	for _, t := range b.tables {
		if err := checkFormulas(t); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// buildTable is a fixture table's id, name, fields and primary field.
func buildTable(b *base, ft *FixtureTable) (*table, error) {
	where := fmt.Sprintf("base %q", b.name)
	t := &table{base: b, id: ft.ID, name: ft.Name, description: ft.Description,
		fieldByID: map[string]*field{}, recByID: map[string]*record{}}
	if t.name == "" {
		return nil, fmt.Errorf("emulator: fixture: %s: a table has no name", where)
	}
	if t.id == "" {
		t.id = derivedID("tbl", b.id+"/"+t.name)
	}
	if !isID(t.id, "tbl") {
		return nil, fmt.Errorf("emulator: fixture: %s: table id %q is not \"tbl\" + 14 letters or digits", where, t.id)
	}
	if b.tableByID[t.id] != nil || b.tableByName(t.name) != nil {
		return nil, fmt.Errorf("emulator: fixture: %s: table %q (%s) defined twice", where, t.name, t.id)
	}
	if len(ft.Fields) == 0 {
		return nil, fmt.Errorf("emulator: fixture: %s: table %q has no fields", where, t.name)
	}
	for j := range ft.Fields {
		fl, err := buildField(t, &ft.Fields[j])
		if err != nil {
			return nil, err
		}
		t.fields = append(t.fields, fl)
		t.fieldByID[fl.ID] = fl
	}
	t.primary = t.fields[0]
	if ft.PrimaryFieldID != "" {
		p := t.field(ft.PrimaryFieldID)
		if p == nil {
			return nil, fmt.Errorf("emulator: fixture: table %q: primaryFieldId %q is not one of its fields", t.name, ft.PrimaryFieldID)
		}
		t.primary = p
	}
	return t, nil
}

// buildField is a fixture field of t, its id derived from its name when the fixture gives none.
func buildField(t *table, ff *FixtureField) (*field, error) {
	fl := &field{ID: ff.ID, Name: ff.Name, Type: ff.Type, Description: ff.Description, Options: cloneMap(ff.Options)}
	if fl.Name == "" {
		return nil, fmt.Errorf("emulator: fixture: table %q: a field has no name", t.name)
	}
	if fl.ID == "" {
		fl.ID = derivedID("fld", t.id+"/"+fl.Name)
	}
	if !isID(fl.ID, "fld") {
		return nil, fmt.Errorf("emulator: fixture: table %q: field id %q is not \"fld\" + 14 letters or digits", t.name, fl.ID)
	}
	if !knownFieldType[fl.Type] {
		return nil, fmt.Errorf("emulator: fixture: table %q: field %q has unknown type %q", t.name, fl.Name, fl.Type)
	}
	if t.fieldByID[fl.ID] != nil || t.fieldByName(fl.Name) != nil {
		return nil, fmt.Errorf("emulator: fixture: table %q: field %q (%s) defined twice", t.name, fl.Name, fl.ID)
	}
	if fl.Options == nil {
		fl.Options = map[string]any{}
	}
	return fl, nil
}

// buildViews adds a fixture table's views to t, or a grid view when it lists none.
func buildViews(t *table, ft *FixtureTable) error {
	for _, fv := range ft.Views {
		v, err := buildView(t, fv)
		if err != nil {
			return fmt.Errorf("emulator: fixture: table %q: %w", t.name, err)
		}
		t.views = append(t.views, v)
	}
	if len(t.views) == 0 {
		t.views = append(t.views, &view{id: derivedID("viw", t.id+"/Grid view"), name: "Grid view", typ: "grid"})
	}
	return nil
}

// buildRecords adds a fixture table's records to t, without their cells (fillCells).
func buildRecords(t *table, ft *FixtureTable) error {
	for j, fr := range ft.Records {
		r := &record{id: fr.ID, cells: map[string]any{}}
		if r.id == "" {
			r.id = derivedID("rec", fmt.Sprintf("%s/%d", t.id, j))
		}
		if !isID(r.id, "rec") {
			return fmt.Errorf("emulator: fixture: table %q: record id %q is not \"rec\" + 14 letters or digits", t.name, r.id)
		}
		if t.recByID[r.id] != nil {
			return fmt.Errorf("emulator: fixture: table %q: record %s defined twice", t.name, r.id)
		}
		r.created = fixtureEpoch.Add(time.Duration(j) * time.Second)
		if fr.CreatedTime != "" {
			ct, err := time.Parse(time.RFC3339Nano, fr.CreatedTime)
			if err != nil {
				return fmt.Errorf("emulator: fixture: table %q: record %s: createdTime %q is not RFC 3339", t.name, r.id, fr.CreatedTime)
			}
			r.created = ct.UTC()
		}
		r.modified = r.created
		t.nextAutoNumber++
		r.autoNumber = t.nextAutoNumber
		t.records = append(t.records, r)
		t.recByID[r.id] = r
	}
	return nil
}

// fillCells writes a fixture table's values into its records, as a create with typecast off.
func fillCells(t *table, ft *FixtureTable) error {
	for j, fr := range ft.Records {
		r := t.records[j]
		for key, v := range fr.Fields {
			fl := t.field(key)
			if fl == nil {
				return fmt.Errorf("emulator: fixture: table %q: record %s: unknown field %q", t.name, r.id, key)
			}
			cell, err := normalizeCell(t, fl, v, writeMode{fixture: true})
			if err != nil {
				return fmt.Errorf("emulator: fixture: table %q: record %s: %s", t.name, r.id, err.Error())
			}
			if cell != nil {
				r.cells[fl.ID] = cell
			}
		}
	}
	return nil
}

// checkFormulas compiles t's formula fields (inferring a result type the fixture does not give)
// and its views' filters.
func checkFormulas(t *table) error {
	for _, fl := range t.fields {
		if fl.Type != "formula" {
			continue
		}
		src := optString(fl.Options, "formula")
		p, err := formula.Compile(src, formulaSchema{t})
		if err != nil {
			return fmt.Errorf("emulator: fixture: table %q: formula field %q: %v", t.name, fl.Name, err)
		}
		if _, given := fl.Options["result"]; !given {
			if res := inferResult(p); res != nil {
				fl.Options["result"] = res
			}
		}
	}
	for _, v := range t.views {
		if strings.TrimSpace(v.filter) == "" {
			continue
		}
		if _, err := compileFormula(v.filter, t); err != nil {
			return fmt.Errorf("emulator: fixture: table %q: view %q: filterByFormula: %v", t.name, v.name, err)
		}
	}
	return nil
}

func buildView(t *table, fv FixtureView) (*view, error) {
	v := &view{id: fv.ID, name: fv.Name, typ: fv.Type, filter: fv.FilterByFormula}
	if v.name == "" {
		return nil, fmt.Errorf("a view has no name")
	}
	if v.id == "" {
		v.id = derivedID("viw", t.id+"/"+v.name)
	}
	if !isID(v.id, "viw") {
		return nil, fmt.Errorf("view id %q is not \"viw\" + 14 letters or digits", v.id)
	}
	if v.typ == "" {
		v.typ = "grid"
	}
	for _, sk := range fv.Sort {
		fl := t.field(sk.Field)
		if fl == nil {
			return nil, fmt.Errorf("view %q: sort field %q is not a field of the table", v.name, sk.Field)
		}
		desc, err := parseDirection(sk.Direction)
		if err != nil {
			return nil, fmt.Errorf("view %q: %w", v.name, err)
		}
		v.sort = append(v.sort, sortKey{field: fl, desc: desc})
	}
	for _, name := range fv.VisibleFieldIDs {
		fl := t.field(name)
		if fl == nil {
			return nil, fmt.Errorf("view %q: visible field %q is not a field of the table", v.name, name)
		}
		v.visible = append(v.visible, fl.ID)
	}
	return v, nil
}

func parseDirection(d string) (desc bool, err error) {
	switch d {
	case "", "asc":
		return false, nil
	case "desc":
		return true, nil
	}
	return false, fmt.Errorf("sort direction %q is neither \"asc\" nor \"desc\"", d)
}

// resolveFieldOptions turns names in options into ids and checks what computed fields need.
func resolveFieldOptions(b *base, t *table, fl *field) error {
	linkField := func(key string) (*field, error) {
		name, _ := fl.Options[key].(string)
		lf := t.field(name)
		if lf == nil || lf.Type != "multipleRecordLinks" {
			return nil, fmt.Errorf("options.%s %q is not a link field of table %q", key, name, t.name)
		}
		fl.Options[key] = lf.ID
		return lf, nil
	}
	switch fl.Type {
	case "multipleRecordLinks":
		name, _ := fl.Options["linkedTableId"].(string)
		lt := b.table(name)
		if lt == nil {
			return fmt.Errorf("options.linkedTableId %q is not a table of the base", name)
		}
		fl.Options["linkedTableId"] = lt.id
		if inv, ok := fl.Options["inverseLinkFieldId"].(string); ok && inv != "" {
			f2 := lt.field(inv)
			if f2 == nil || f2.Type != "multipleRecordLinks" {
				return fmt.Errorf("options.inverseLinkFieldId %q is not a link field of table %q", inv, lt.name)
			}
			fl.Options["inverseLinkFieldId"] = f2.ID
		}
		if _, ok := fl.Options["isReversed"]; !ok {
			fl.Options["isReversed"] = false
		}
		if _, ok := fl.Options["prefersSingleRecordLink"]; !ok {
			fl.Options["prefersSingleRecordLink"] = false
		}
	case "multipleLookupValues", "rollup":
		lf, err := linkField("recordLinkFieldId")
		if err != nil {
			return err
		}
		lt := b.tableByID[lf.linkedTableID()]
		if lt == nil { // link options not resolved yet: resolve it first
			if err := resolveFieldOptions(b, t, lf); err != nil {
				return err
			}
			lt = b.tableByID[lf.linkedTableID()]
		}
		name, _ := fl.Options["fieldIdInLinkedTable"].(string)
		tf := lt.field(name)
		if tf == nil {
			return fmt.Errorf("options.fieldIdInLinkedTable %q is not a field of table %q", name, lt.name)
		}
		fl.Options["fieldIdInLinkedTable"] = tf.ID
		if fl.Type == "rollup" {
			src, _ := fl.Options["formula"].(string)
			if src == "" {
				src = "SUM(values)"
			}
			rf, err := parseRollup(src)
			if err != nil {
				return fmt.Errorf("options.formula: %w", err)
			}
			fl.Options["formula"], fl.rollup = src, rf
		}
	case "count":
		if _, err := linkField("recordLinkFieldId"); err != nil {
			return err
		}
	case "lastModifiedTime":
		// The fields it watches (none: all of them), by name or id.
		if raw, ok := fl.Options["referencedFieldIds"]; ok {
			list, ok := raw.([]any)
			if !ok {
				return fmt.Errorf("options.referencedFieldIds must be a list of field names or ids")
			}
			ids := make([]any, 0, len(list))
			for _, e := range list {
				name, _ := e.(string)
				wf := t.field(name)
				if wf == nil {
					return fmt.Errorf("options.referencedFieldIds: %q is not a field of table %q", name, t.name)
				}
				ids = append(ids, wf.ID)
			}
			fl.Options["referencedFieldIds"] = ids
		}
	case "formula":
		if src, _ := fl.Options["formula"].(string); strings.TrimSpace(src) == "" {
			return fmt.Errorf("options.formula is empty")
		}
	case "singleSelect", "multipleSelects":
		if err := normalizeChoices(fl); err != nil {
			return err
		}
	case "rating":
		if _, ok := fl.Options["max"]; !ok {
			fl.Options["max"] = float64(5)
		}
	}
	return nil
}

// normalizeChoices gives every choice an id and a color, as the schema API returns them.
func normalizeChoices(fl *field) error {
	raw, _ := fl.Options["choices"].([]any)
	out := make([]any, 0, len(raw))
	seen := map[string]bool{}
	for i, c := range raw {
		m, ok := c.(map[string]any)
		if !ok {
			return fmt.Errorf("options.choices[%d] is not an object with a name", i)
		}
		name, _ := m["name"].(string)
		if name == "" || seen[name] {
			return fmt.Errorf("options.choices[%d]: name %q is empty or repeated", i, name)
		}
		seen[name] = true
		ch := map[string]any{"name": name}
		ch["id"], _ = m["id"].(string)
		if ch["id"] == "" {
			ch["id"] = derivedID("sel", fl.ID+"/"+name)
		}
		ch["color"], _ = m["color"].(string)
		if ch["color"] == "" {
			ch["color"] = choiceColors[i%len(choiceColors)]
		}
		out = append(out, ch)
	}
	fl.Options["choices"] = out
	return nil
}

var choiceColors = []string{"blueLight2", "cyanLight2", "tealLight2", "greenLight2", "yellowLight2", "orangeLight2", "redLight2", "pinkLight2", "purpleLight2", "grayLight2"}

// pairInverseLinks pairs two link fields that point at each other's tables when neither names
// its inverse and the pairing is unambiguous, as Airtable always creates both sides of a link.
func pairInverseLinks(b *base) {
	for _, t := range b.tables {
		for _, fl := range t.fields {
			if fl.Type != "multipleRecordLinks" || fl.inverseID() != "" {
				continue
			}
			lt := b.tableByID[fl.linkedTableID()]
			if lt == t {
				continue
			}
			var cands []*field
			for _, f2 := range lt.fields {
				if f2.Type == "multipleRecordLinks" && f2.Options["linkedTableId"] == t.id && (f2.inverseID() == "" || f2.inverseID() == fl.ID) {
					cands = append(cands, f2)
				}
			}
			if len(cands) == 1 {
				fl.Options["inverseLinkFieldId"] = cands[0].ID
				cands[0].Options["inverseLinkFieldId"] = fl.ID
			}
		}
	}
}

// fillInverseLinks makes both sides of every paired link agree after a fixture load: a link
// written on either side appears on the other.
func fillInverseLinks(b *base) {
	for _, t := range b.tables {
		for _, fl := range t.fields {
			inv := fl.inverseID()
			if fl.Type != "multipleRecordLinks" || inv == "" {
				continue
			}
			lt := b.tableByID[fl.linkedTableID()]
			for _, r := range t.records {
				ids, _ := r.cells[fl.ID].([]any)
				for _, id := range ids {
					sid, _ := id.(string)
					other := lt.recByID[sid]
					if other == nil {
						continue
					}
					cur, _ := other.cells[inv].([]any)
					if !containsString(cur, r.id) {
						other.cells[inv] = append(cur, r.id)
					}
				}
			}
		}
	}
}

func containsString(list []any, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	raw, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}

// mergeBase adds a fixture's tables, views and records to a loaded base. The result is a new base
// built from the loaded one and the additions together, so that either everything is added or,
// on any error, nothing is. A table that exists already (by id or name) may list some of its
// fields again (same name and type) but not add fields; its records and new views are added.
func mergeBase(old *base, add *FixtureBase) (*base, error) {
	combined := exportBase(old)
	if add.Name != "" && add.Name != old.name {
		return nil, fmt.Errorf("emulator: fixture: base %s is loaded as %q, not %q", old.id, old.name, add.Name)
	}
	for _, ft := range add.Tables {
		var target *FixtureTable
		for i := range combined.Tables {
			ct := &combined.Tables[i]
			if (ft.ID != "" && ct.ID == ft.ID) || (ft.ID == "" && ct.Name == ft.Name) {
				target = ct
				break
			}
		}
		if target == nil {
			combined.Tables = append(combined.Tables, ft)
			continue
		}
		existing := old.tableByID[target.ID]
		if existing == nil { // a table this same fixture adds, named twice
			return nil, fmt.Errorf("emulator: fixture: base %s: table %q defined twice", old.id, ft.Name)
		}
		for _, ff := range ft.Fields {
			fl := existing.field(ff.Name)
			if ff.ID != "" {
				fl = existing.fieldByID[ff.ID]
			}
			if fl == nil || fl.Type != ff.Type || (ff.Name != "" && fl.Name != ff.Name) {
				return nil, fmt.Errorf("emulator: fixture: table %q of base %s is loaded already; a fixture can add records and views to it, not change or add field %q (%s)", existing.name, old.id, ff.Name, ff.Type)
			}
		}
		for _, fv := range ft.Views {
			if existing.view(fv.Name) != nil || (fv.ID != "" && existing.view(fv.ID) != nil) {
				return nil, fmt.Errorf("emulator: fixture: table %q already has a view %q", existing.name, fv.Name)
			}
			target.Views = append(target.Views, fv)
		}
		target.Records = append(target.Records, ft.Records...)
	}
	mergeBaseInfo(&combined, add)
	nb, err := buildBase(&combined)
	if err != nil {
		return nil, err
	}
	// Keep what a fixture cannot say about the records that were there: their autoNumber, when and
	// whether they were last written. New records number on from the table's counter.
	for _, t := range nb.tables {
		ot := old.tableByID[t.id]
		if ot == nil {
			continue
		}
		t.nextAutoNumber = ot.nextAutoNumber
		for _, r := range t.records {
			if or := ot.recByID[r.id]; or != nil {
				r.autoNumber, r.modified, r.byAPI, r.fieldModified = or.autoNumber, or.modified, or.byAPI, or.fieldModified
			} else {
				t.nextAutoNumber++
				r.autoNumber = t.nextAutoNumber
			}
		}
	}
	return nb, nil
}

// exportBase writes a loaded base as a fixture: schema with resolved ids, views, and every record
// with its stored cells keyed by field id.
func exportBase(b *base) FixtureBase {
	fb := FixtureBase{ID: b.id, Name: b.name}
	b.info.export(&fb)
	for _, t := range b.tables {
		ft := FixtureTable{ID: t.id, Name: t.name, PrimaryFieldID: t.primary.ID, Description: t.description}
		for _, fl := range t.fields {
			ft.Fields = append(ft.Fields, FixtureField{ID: fl.ID, Name: fl.Name, Type: fl.Type, Description: fl.Description, Options: cloneMap(fl.Options)})
		}
		for _, v := range t.views {
			fv := FixtureView{ID: v.id, Name: v.name, Type: v.typ, FilterByFormula: v.filter, VisibleFieldIDs: append([]string(nil), v.visible...)}
			for _, sk := range v.sort {
				dir := "asc"
				if sk.desc {
					dir = "desc"
				}
				fv.Sort = append(fv.Sort, FixtureSort{Field: sk.field.ID, Direction: dir})
			}
			ft.Views = append(ft.Views, fv)
		}
		for _, r := range t.records {
			ft.Records = append(ft.Records, FixtureRecord{ID: r.id, CreatedTime: r.created.UTC().Format(time.RFC3339Nano), Fields: cloneMap(r.cells)})
		}
		fb.Tables = append(fb.Tables, ft)
	}
	return fb
}
