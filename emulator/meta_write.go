package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"
)

// Schema writes of the metadata API (scope schema.bases:write):
//
//	POST  /v0/meta/bases/{baseId}/tables                              create table
//	PATCH /v0/meta/bases/{baseId}/tables/{tableIdOrName}              update table (name, description)
//	POST  /v0/meta/bases/{baseId}/tables/{tableId}/fields             create field
//	PATCH /v0/meta/bases/{baseId}/tables/{tableId}/fields/{fieldId}   update field (name, description,
//	                                                                  a formula field's options.formula)
//
// Each is logged in the data file (kinds createTable, createField, updateTable, updateField of
// wal_extra.go) and applied by the same code at run time and at replay.

const scopeSchemaWrite = "schema.bases:write"

// maxDescription is the longest table or field description the service accepts (20,000 characters).
const maxDescription = 20000

// pickMetaWriteHandler routes /v0/meta/bases/{baseId}[/...] requests other than the base schema.
func (s *Server) pickMetaWriteHandler(method string, segs []string) (handlerFunc, string) {
	if len(segs) < 3 || segs[1] != "bases" {
		return nil, ""
	}
	n := len(segs)
	switch {
	case n == 3 && method == http.MethodGet:
		return s.baseInfoHandler, segs[2]
	case n == 4 && segs[3] == "tables" && method == http.MethodPost:
		return s.createTable, segs[2]
	case n == 5 && segs[3] == "tables" && method == http.MethodPatch:
		return s.updateTable, segs[2]
	case n == 6 && segs[3] == "tables" && segs[5] == "fields" && method == http.MethodPost:
		return s.createField, segs[2]
	case n == 7 && segs[3] == "tables" && segs[5] == "fields" && method == http.MethodPatch:
		return s.updateField, segs[2]
	}
	return nil, ""
}

// schemaWriteBase finds the base of a schema write and checks the token's access and scope.
// The caller holds s.mu for writing.
func (s *Server) schemaWriteBase(c *call) (*base, *apiError) {
	id := c.segments[2]
	b := s.bases[id]
	if b == nil || !c.tok.bases[id] {
		return nil, s.notFoundBase(id)
	}
	if !c.tok.scopes[scopeSchemaWrite] {
		return nil, errForbidden()
	}
	return b, nil
}

// schemaTableByID finds the table of a field route: the documented path names it by id.
func (s *Server) schemaTableByID(b *base, id string) (*table, *apiError) {
	if t := b.tableByID[id]; t != nil {
		return t, nil
	}
	return nil, s.notFoundTable(b, id)
}

// decodeStrict reads a schema write's body into the struct v points to: property names must match
// its JSON names exactly (encoding/json alone would take "nAme" for "name"), and unknown properties
// fail validation like values of the wrong type.
func decodeStrict(body []byte, v any) *apiError {
	if len(bytes.TrimSpace(body)) == 0 {
		return errBadJSON(fmt.Errorf("the body is empty"))
	}
	var props map[string]json.RawMessage
	if err := json.Unmarshal(body, &props); err != nil {
		return errDecode(err)
	}
	if props == nil {
		return errInvalidRequest("the body must be a JSON object")
	}
	known := map[string]bool{}
	rt := reflect.TypeOf(v).Elem()
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		known[name] = true
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !known[k] {
			return errInvalidRequest(fmt.Sprintf("%q is not a property of this request", k))
		}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return errDecode(err)
	}
	return nil
}

// fieldSpec is a field of create table or create field.
type fieldSpec struct {
	Name        *string         `json:"name"`
	Type        string          `json:"type"`
	Description *string         `json:"description"`
	Options     json.RawMessage `json:"options"`
}

// renameSpec is the body of update table.
type renameSpec struct {
	Name        *string `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
}

// fieldUpdateSpec is the body of update field: the service's documentation lists name,
// description and options, of which it documents options.formula (formula fields) only.
type fieldUpdateSpec struct {
	Name        *string         `json:"name,omitempty"`
	Description *string         `json:"description,omitempty"`
	Options     json.RawMessage `json:"options,omitempty"`
}

// formulaUpdate is the options of update field that the emulator takes.
type formulaUpdate struct {
	Formula *string `json:"formula"`
}

func errDuplicateField(name string) *apiError {
	return errorf(http.StatusUnprocessableEntity, "DUPLICATE_OR_EMPTY_FIELD_NAME",
		"Field names must be unique and non-empty: %q is empty or is the name of another field of the table (names are compared ignoring case)", name)
}

func errDuplicateTable(name string) *apiError {
	return errorf(http.StatusUnprocessableEntity, "DUPLICATE_TABLE_NAME",
		"Table names must be unique: the base already has a table named %q (names are compared ignoring case)", name)
}

// tableNameTaken reports whether another table than except has the name, ignoring case.
func tableNameTaken(b *base, name string, except *table) bool {
	for _, t := range b.tables {
		if t != except && strings.EqualFold(t.name, name) {
			return true
		}
	}
	return false
}

func fieldNameTaken(fields []*field, name string, except *field) bool {
	for _, f := range fields {
		if f != except && strings.EqualFold(f.Name, name) {
			return true
		}
	}
	return false
}

// uniqueFieldName is name, or name 2, name 3, … : the first that no field of t has. The service
// names the inverse side of a new link after the table the link is in, numbered when taken.
func uniqueFieldName(fields []*field, name string) string {
	if !fieldNameTaken(fields, name, nil) {
		return name
	}
	for i := 2; ; i++ {
		if n := fmt.Sprintf("%s %d", name, i); !fieldNameTaken(fields, n, nil) {
			return n
		}
	}
}

func checkDescription(d *string) *apiError {
	if d != nil && len([]rune(*d)) > maxDescription {
		return errInvalidRequest(fmt.Sprintf("description is %d characters long; the limit is %d", len([]rune(*d)), maxDescription))
	}
	return nil
}

// primaryTypes are the field types a table's first (primary) field may have.
var primaryTypes = map[string]bool{
	"singleLineText": true, "multilineText": true, "richText": true, "email": true, "url": true,
	"phoneNumber": true, "number": true, "currency": true, "percent": true, "duration": true,
	"date": true, "dateTime": true, "barcode": true,
}

// newField checks a field of create table or create field and builds it with its options as the
// schema shows them. fields are the table's fields so far (for names). For a link, lt is the table
// it points at (see inverseFor).
func newField(b *base, tableName string, fields []*field, spec fieldSpec) (fl *field, lt *table, aerr *apiError) {
	if spec.Name == nil || strings.TrimSpace(*spec.Name) == "" {
		return nil, nil, errDuplicateField("")
	}
	name := *spec.Name
	if fieldNameTaken(fields, name, nil) {
		return nil, nil, errDuplicateField(name)
	}
	if aerr := checkDescription(spec.Description); aerr != nil {
		return nil, nil, aerr
	}
	if spec.Type == "" {
		return nil, nil, errInvalidRequest(fmt.Sprintf("field %q has no \"type\"", name))
	}
	if !knownFieldType[spec.Type] {
		return nil, nil, errInvalidRequest(fmt.Sprintf("field %q: %q is not a field type the API can create", name, spec.Type))
	}
	where := tableName + "." + name
	if computedType[spec.Type] {
		return nil, nil, errorf(http.StatusUnprocessableEntity, "UNSUPPORTED_FIELD_TYPE_FOR_CREATE",
			"Invalid options for %s: Creating %s fields is not supported at this time", where, spec.Type)
	}
	var opts map[string]any
	given := len(spec.Options) > 0 && !bytes.Equal(bytes.TrimSpace(spec.Options), []byte("null"))
	if given {
		if err := json.Unmarshal(spec.Options, &opts); err != nil {
			return nil, nil, optionsError(where, "options must be an object")
		}
	}
	fl = &field{ID: newRandomID("fld"), Name: name, Type: spec.Type}
	if spec.Description != nil {
		fl.Description = *spec.Description
	}
	fl.Options, lt, aerr = createOptions(b, where, fl, given, opts)
	if aerr != nil {
		return nil, nil, aerr
	}
	return fl, lt, nil
}

func optionsError(where, detail string) *apiError {
	return errorf(http.StatusUnprocessableEntity, "INVALID_FIELD_TYPE_OPTIONS_FOR_CREATE",
		"Invalid options for %s: Failed schema validation: %s", where, detail)
}

var (
	brightColors   = []string{"yellowBright", "orangeBright", "redBright", "pinkBright", "purpleBright", "blueBright", "cyanBright", "tealBright", "greenBright", "grayBright"}
	checkboxIcons  = []string{"check", "xCheckbox", "star", "heart", "thumbsUp", "flag", "dot"}
	ratingIcons    = []string{"star", "heart", "thumbsUp", "flag", "dot"}
	durationFormat = []string{"h:mm", "h:mm:ss", "h:mm:ss.S", "h:mm:ss.SS", "h:mm:ss.SSS"}
	dateFormats    = map[string]string{"local": "l", "friendly": "LL", "us": "M/D/YYYY", "european": "D/M/YYYY", "iso": "YYYY-MM-DD"}
	timeFormats    = map[string]string{"12hour": "h:mma", "24hour": "HH:mm"}
	choiceColorSet = func() []string {
		var out []string
		for _, c := range []string{"blue", "cyan", "teal", "green", "yellow", "orange", "red", "pink", "purple", "gray"} {
			for _, shade := range []string{"Light2", "Light1", "Bright", "Dark1"} {
				out = append(out, c+shade)
			}
		}
		return out
	}()
)

// createOptions validates the options of a new field as the service's create schema does: some
// types take none, some require theirs, and no type takes keys it does not know. It returns the
// options as the schema API shows them afterwards, and for a link the table it points at.
func createOptions(b *base, where string, fl *field, given bool, in map[string]any) (map[string]any, *table, *apiError) {
	o := &newOptions{where: where, fl: fl, given: given, in: in, out: map[string]any{}}
	var aerr *apiError
	switch fl.Type {
	case "singleLineText", "multilineText", "richText", "email", "url", "phoneNumber", "barcode":
		if given {
			aerr = o.bad("options is not included in the %s.(type=%s) schema", fl.Name, fl.Type)
		}
	case "singleCollaborator", "multipleCollaborators":
		aerr = o.allowOnly()
	case "multipleAttachments":
		aerr = o.attachments()
	case "number", "percent":
		aerr = o.number()
	case "currency":
		aerr = o.currency()
	case "duration":
		aerr = o.duration()
	case "rating":
		aerr = o.rating()
	case "checkbox":
		aerr = o.checkbox()
	case "date":
		aerr = o.date()
	case "dateTime":
		aerr = o.dateTime()
	case "singleSelect", "multipleSelects":
		aerr = o.choices()
	case "multipleRecordLinks":
		lt, aerr := o.link(b)
		if aerr != nil {
			return nil, nil, aerr
		}
		return o.out, lt, nil
	default:
		return nil, nil, errInvalidRequest(fmt.Sprintf("fields of type %s cannot be created", fl.Type))
	}
	if aerr != nil {
		return nil, nil, aerr
	}
	return o.out, nil, nil
}

// newOptions is the options given for a new field (in) and those it gets (out), checked by the
// method of its type.
type newOptions struct {
	where string
	fl    *field
	given bool
	in    map[string]any
	out   map[string]any
}

func (o *newOptions) bad(format string, args ...any) *apiError {
	return optionsError(o.where, fmt.Sprintf(format, args...))
}

// allowOnly refuses a key not in keys, naming the first in sorted order.
func (o *newOptions) allowOnly(keys ...string) *apiError {
	names := make([]string, 0, len(o.in))
	for k := range o.in {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !slices.Contains(keys, k) {
			return o.bad("options.%s is not included in the %s.(type=%s) schema", k, o.fl.Name, o.fl.Type)
		}
	}
	return nil
}

// require refuses a type that needs options when none were given, or keys other than keys.
func (o *newOptions) require(keys ...string) *apiError {
	if !o.given {
		return o.bad("%s.options is missing", o.fl.Name)
	}
	return o.allowOnly(keys...)
}

func (o *newOptions) intIn(key string, lo, hi int) (float64, *apiError) {
	v, ok := o.in[key].(float64)
	if !ok || v != math.Trunc(v) || v < float64(lo) || v > float64(hi) {
		return 0, o.bad("options.%s must be an integer from %d to %d", key, lo, hi)
	}
	return v, nil
}

func (o *newOptions) oneOf(key string, list []string) (string, *apiError) {
	v, _ := o.in[key].(string)
	if !slices.Contains(list, v) {
		return "", o.bad("options.%s must be one of %s", key, strings.Join(list, ", "))
	}
	return v, nil
}

func (o *newOptions) attachments() *apiError {
	if aerr := o.allowOnly("isReversed"); aerr != nil {
		return aerr
	}
	rev, isBool := o.in["isReversed"].(bool)
	if _, present := o.in["isReversed"]; present && !isBool {
		return o.bad("options.isReversed must be true or false")
	}
	o.out["isReversed"] = rev
	return nil
}

func (o *newOptions) number() *apiError {
	if aerr := o.require("precision"); aerr != nil {
		return aerr
	}
	p, aerr := o.intIn("precision", 0, 8)
	o.out["precision"] = p
	return aerr
}

func (o *newOptions) currency() *apiError {
	if aerr := o.require("precision", "symbol"); aerr != nil {
		return aerr
	}
	p, aerr := o.intIn("precision", 0, 7)
	if aerr != nil {
		return aerr
	}
	sym, ok := o.in["symbol"].(string)
	if !ok || sym == "" {
		return o.bad("options.symbol must be a non-empty string")
	}
	o.out["precision"], o.out["symbol"] = p, sym
	return nil
}

func (o *newOptions) duration() *apiError {
	if aerr := o.require("durationFormat"); aerr != nil {
		return aerr
	}
	f, aerr := o.oneOf("durationFormat", durationFormat)
	o.out["durationFormat"] = f
	return aerr
}

func (o *newOptions) rating() *apiError {
	if aerr := o.require("max", "icon", "color"); aerr != nil {
		return aerr
	}
	m, aerr := o.intIn("max", 1, 10)
	if aerr != nil {
		return aerr
	}
	icon, aerr := o.oneOf("icon", ratingIcons)
	if aerr != nil {
		return aerr
	}
	color, aerr := o.oneOf("color", brightColors)
	o.out["max"], o.out["icon"], o.out["color"] = m, icon, color
	return aerr
}

func (o *newOptions) checkbox() *apiError {
	if aerr := o.require("icon", "color"); aerr != nil {
		return aerr
	}
	icon, aerr := o.oneOf("icon", checkboxIcons)
	if aerr != nil {
		return aerr
	}
	color, aerr := o.oneOf("color", brightColors)
	o.out["icon"], o.out["color"] = icon, color
	return aerr
}

func (o *newOptions) date() *apiError {
	if aerr := o.require("dateFormat"); aerr != nil {
		return aerr
	}
	df, aerr := namedFormat(o.in, "dateFormat", dateFormats, o.bad)
	o.out["dateFormat"] = df
	return aerr
}

func (o *newOptions) dateTime() *apiError {
	if aerr := o.require("dateFormat", "timeFormat", "timeZone"); aerr != nil {
		return aerr
	}
	df, aerr := namedFormat(o.in, "dateFormat", dateFormats, o.bad)
	if aerr != nil {
		return aerr
	}
	tf, aerr := namedFormat(o.in, "timeFormat", timeFormats, o.bad)
	if aerr != nil {
		return aerr
	}
	tz, _ := o.in["timeZone"].(string)
	if tz != "utc" && tz != "client" {
		if loc, err := time.LoadLocation(tz); tz == "" || tz == "Local" || err != nil || loc == nil {
			return o.bad("options.timeZone must be \"utc\", \"client\" or an IANA time zone such as \"Europe/Paris\"")
		}
	}
	o.out["dateFormat"], o.out["timeFormat"], o.out["timeZone"] = df, tf, tz
	return nil
}

// choices reads a select's options: each choice named once, its color one of the choice colors
// (by default the next in the service's order), and a new choice id.
func (o *newOptions) choices() *apiError {
	if aerr := o.require("choices"); aerr != nil {
		return aerr
	}
	list, ok := o.in["choices"].([]any)
	if !ok {
		return o.bad("options.choices must be a list of {name, color?}")
	}
	choices := make([]any, 0, len(list))
	seen := map[string]bool{}
	for i, c := range list {
		m, ok := c.(map[string]any)
		name, _ := m["name"].(string)
		if !ok || name == "" {
			return o.bad("options.choices[%d] needs a non-empty name", i)
		}
		for k := range m {
			if k != "name" && k != "color" {
				return o.bad("options.choices[%d].%s is not included in the choice schema", i, k)
			}
		}
		if seen[name] {
			return o.bad("options.choices[%d]: the choice %q is listed twice", i, name)
		}
		seen[name] = true
		color := choiceColors[i%len(choiceColors)]
		if cv, present := m["color"]; present {
			cs, _ := cv.(string)
			if !slices.Contains(choiceColorSet, cs) {
				return o.bad("options.choices[%d].color %v is not a choice color (blueLight2, blueBright, …)", i, cv)
			}
			color = cs
		}
		choices = append(choices, map[string]any{"id": newRandomID("sel"), "name": name, "color": color})
	}
	o.out["choices"] = choices
	return nil
}

// link reads a link's options: the table it points at (returned) and the view to pick records in.
func (o *newOptions) link(b *base) (*table, *apiError) {
	if aerr := o.require("linkedTableId", "viewIdForRecordSelection"); aerr != nil {
		return nil, aerr
	}
	id, _ := o.in["linkedTableId"].(string)
	lt := b.tableByID[id]
	if lt == nil {
		return nil, o.bad("options.linkedTableId %q is not the id of a table of the base", id)
	}
	o.out["linkedTableId"] = lt.id
	o.out["isReversed"] = false
	o.out["prefersSingleRecordLink"] = false
	if v, present := o.in["viewIdForRecordSelection"]; present {
		vid, _ := v.(string)
		if vw := lt.view(vid); vw == nil || vw.id != vid {
			return nil, o.bad("options.viewIdForRecordSelection %v is not the id of a view of table %q", v, lt.name)
		}
		o.out["viewIdForRecordSelection"] = vid
	}
	return lt, nil
}

// namedFormat checks {name, format?} of a date or time format: format, when given, must be the
// one the name stands for.
func namedFormat(in map[string]any, key string, known map[string]string, bad func(string, ...any) *apiError) (map[string]any, *apiError) {
	m, ok := in[key].(map[string]any)
	if !ok {
		return nil, bad("options.%s must be an object {name, format?}", key)
	}
	name, _ := m["name"].(string)
	format, has := known[name]
	if !has {
		names := make([]string, 0, len(known))
		for n := range known {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, bad("options.%s.name must be one of %s", key, strings.Join(names, ", "))
	}
	for k, v := range m {
		switch k {
		case "name":
		case "format":
			if v != format {
				return nil, bad("options.%s.format %v does not match name %q (%q)", key, v, name, format)
			}
		default:
			return nil, bad("options.%s.%s is not included in the format schema", key, k)
		}
	}
	return map[string]any{"name": name, "format": format}, nil
}

// inverseFor is the field the service adds to table lt when a link field fl to it is created in
// table tableID (named tableName): named after that table (numbered when taken, also by pending,
// the inverses this request adds to lt already), pointing back. fl is told its inverse.
func inverseFor(tableID, tableName string, fl *field, lt *table, pending []*field) *field {
	fields := append(slices.Clone(lt.fields), pending...)
	inv := &field{ID: newRandomID("fld"), Name: uniqueFieldName(fields, tableName), Type: "multipleRecordLinks",
		Options: map[string]any{"linkedTableId": tableID, "isReversed": false, "prefersSingleRecordLink": false, "inverseLinkFieldId": fl.ID}}
	fl.Options["inverseLinkFieldId"] = inv.ID
	return inv
}

// exportField is a field as the data file stores it.
func exportField(fl *field) FixtureField {
	return FixtureField{ID: fl.ID, Name: fl.Name, Type: fl.Type, Description: fl.Description, Options: cloneMap(fl.Options)}
}

func (s *Server) createTable(c *call) (reply, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, aerr := s.schemaWriteBase(c)
	if aerr != nil {
		return reply{}, aerr
	}
	var body struct {
		Name        *string           `json:"name"`
		Description *string           `json:"description"`
		Fields      []json.RawMessage `json:"fields"`
	}
	if aerr := decodeStrict(c.body, &body); aerr != nil {
		return reply{}, aerr
	}
	specs := make([]fieldSpec, len(body.Fields))
	for i, raw := range body.Fields {
		if aerr := decodeStrict(raw, &specs[i]); aerr != nil {
			return reply{}, aerr
		}
	}
	if body.Name == nil || strings.TrimSpace(*body.Name) == "" {
		return reply{}, errInvalidRequest("the table needs a non-empty \"name\"")
	}
	name := *body.Name
	if tableNameTaken(b, name, nil) {
		return reply{}, errDuplicateTable(name)
	}
	if aerr := checkDescription(body.Description); aerr != nil {
		return reply{}, aerr
	}
	if len(specs) == 0 {
		return reply{}, errInvalidRequest("the table needs at least one field in \"fields\"; the first is its primary field")
	}
	if !primaryTypes[specs[0].Type] && knownFieldType[specs[0].Type] && !computedType[specs[0].Type] {
		return reply{}, errInvalidRequest(fmt.Sprintf("the first field is the primary field, which cannot be of type %s", specs[0].Type))
	}
	tid := newRandomID("tbl")
	var fields []*field
	var inverses []*field
	var inverseTables []*table
	for _, spec := range specs {
		fl, lt, aerr := newField(b, name, fields, spec)
		if aerr != nil {
			return reply{}, aerr
		}
		if lt != nil {
			var pending []*field
			for i, it := range inverseTables {
				if it == lt {
					pending = append(pending, inverses[i])
				}
			}
			inv := inverseFor(tid, name, fl, lt, pending)
			inverses = append(inverses, inv)
			inverseTables = append(inverseTables, lt)
		}
		fields = append(fields, fl)
	}
	ft := FixtureTable{ID: tid, Name: name, PrimaryFieldID: fields[0].ID,
		Views: []FixtureView{{ID: newRandomID("viw"), Name: "Grid view", Type: "grid"}}}
	if body.Description != nil {
		ft.Description = *body.Description
	}
	for _, fl := range fields {
		ft.Fields = append(ft.Fields, exportField(fl))
	}
	ops := []walOp{{Kind: walCreateTable, Base: b.id, Data: walJSON(ft)}}
	for i, inv := range inverses {
		ops = append(ops, walOp{Kind: walCreateField, Base: b.id, Table: inverseTables[i].id, Data: walJSON(exportField(inv))})
	}
	if aerr := s.commitExtraLocked(ops, apiSource(c)); aerr != nil {
		return reply{}, aerr
	}
	return ok(tableSchema(b.tableByID[tid], false)), nil
}

func (s *Server) updateTable(c *call) (reply, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, aerr := s.schemaWriteBase(c)
	if aerr != nil {
		return reply{}, aerr
	}
	t := b.table(c.segments[4])
	if t == nil {
		return reply{}, s.notFoundTable(b, c.segments[4])
	}
	var body renameSpec
	if aerr := decodeStrict(c.body, &body); aerr != nil {
		return reply{}, aerr
	}
	if body.Name == nil && body.Description == nil {
		return reply{}, errInvalidRequest("give \"name\", \"description\" or both")
	}
	if body.Name != nil {
		if strings.TrimSpace(*body.Name) == "" {
			return reply{}, errInvalidRequest("\"name\" must not be empty")
		}
		if tableNameTaken(b, *body.Name, t) {
			return reply{}, errDuplicateTable(*body.Name)
		}
	}
	if aerr := checkDescription(body.Description); aerr != nil {
		return reply{}, aerr
	}
	if aerr := s.commitExtraLocked([]walOp{{Kind: walUpdateTable, Base: b.id, Table: t.id, Data: walJSON(body)}}, apiSource(c)); aerr != nil {
		return reply{}, aerr
	}
	return ok(tableSchema(t, false)), nil
}

func (s *Server) createField(c *call) (reply, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, aerr := s.schemaWriteBase(c)
	if aerr != nil {
		return reply{}, aerr
	}
	t, aerr := s.schemaTableByID(b, c.segments[4])
	if aerr != nil {
		return reply{}, aerr
	}
	var spec fieldSpec
	if aerr := decodeStrict(c.body, &spec); aerr != nil {
		return reply{}, aerr
	}
	fl, lt, aerr := newField(b, t.name, t.fields, spec)
	if aerr != nil {
		return reply{}, aerr
	}
	ops := []walOp{{Kind: walCreateField, Base: b.id, Table: t.id}}
	if lt != nil && lt != t { // a link to its own table has no inverse
		inv := inverseFor(t.id, t.name, fl, lt, nil)
		ops = append(ops, walOp{Kind: walCreateField, Base: b.id, Table: lt.id, Data: walJSON(exportField(inv))})
	}
	ops[0].Data = walJSON(exportField(fl)) // after inverseFor, which names the inverse in its options
	if aerr := s.commitExtraLocked(ops, apiSource(c)); aerr != nil {
		return reply{}, aerr
	}
	return ok(fieldSchema(t, t.fieldByID[fl.ID])), nil
}

func (s *Server) updateField(c *call) (reply, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, aerr := s.schemaWriteBase(c)
	if aerr != nil {
		return reply{}, aerr
	}
	t, aerr := s.schemaTableByID(b, c.segments[4])
	if aerr != nil {
		return reply{}, aerr
	}
	fl := t.fieldByID[c.segments[6]]
	if fl == nil {
		if s.cfg.notFound == NotFoundLegacy {
			return reply{}, &apiError{status: http.StatusNotFound, typ: "NOT_FOUND", noMessage: true}
		}
		return reply{}, errForbidden()
	}
	var body fieldUpdateSpec
	if aerr := decodeStrict(c.body, &body); aerr != nil {
		return reply{}, aerr
	}
	if body.Name == nil && body.Description == nil && body.Options == nil {
		return reply{}, errInvalidRequest("give \"name\", \"description\" or \"options\"")
	}
	if body.Name != nil && (strings.TrimSpace(*body.Name) == "" || fieldNameTaken(t.fields, *body.Name, fl)) {
		return reply{}, errDuplicateField(*body.Name)
	}
	if aerr := checkDescription(body.Description); aerr != nil {
		return reply{}, aerr
	}
	if body.Options != nil {
		bad := func(detail string) *apiError {
			return errorf(http.StatusUnprocessableEntity, "INVALID_FIELD_TYPE_OPTIONS_FOR_UPDATE", "Invalid options for %s.%s: %s", t.name, fl.Name, detail)
		}
		if fl.Type != "formula" {
			return reply{}, bad(fmt.Sprintf("the options of a %s field cannot be changed through the API (only a formula field's options.formula)", fl.Type))
		}
		var fu formulaUpdate
		if aerr := decodeStrict(body.Options, &fu); aerr != nil {
			return reply{}, bad("options takes only \"formula\"")
		}
		if fu.Formula == nil || strings.TrimSpace(*fu.Formula) == "" {
			return reply{}, bad("options.formula must be a non-empty formula")
		}
		if _, err := compileFormula(*fu.Formula, t); err != nil {
			return reply{}, bad(fmt.Sprintf("the formula is invalid: %v", err))
		}
	}
	if aerr := s.commitExtraLocked([]walOp{{Kind: walUpdateField, Base: b.id, Table: t.id, Field: fl.ID, Data: walJSON(body)}}, apiSource(c)); aerr != nil {
		return reply{}, aerr
	}
	return ok(fieldSchema(t, fl)), nil
}

// fieldSchema is one field as the schema API shows it.
func fieldSchema(t *table, fl *field) map[string]any {
	m := map[string]any{"id": fl.ID, "name": fl.Name, "type": fl.Type}
	if fl.Description != "" {
		m["description"] = fl.Description
	}
	if opts := schemaOptions(t, fl); len(opts) > 0 {
		m["options"] = opts
	}
	return m
}

func walJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("emulator: encode a data file change: %v", err))
	}
	return b
}
