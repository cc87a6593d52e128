package emulator

import (
	"path/filepath"
	"strings"
	"testing"
)

const metaBase = "/v0/meta/bases/appTEST0000000001"

// The documented example of create table (airtable.com/developers/web/api/create-table): a table
// with a primary text field, a checkbox and a single select; the answer is the table model.
func TestCreateTable(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	body := map[string]any{
		"name": "Apartments", "description": "A to-do list of places to visit",
		"fields": []any{
			map[string]any{"name": "Name", "type": "singleLineText", "description": "Name of the apartment"},
			map[string]any{"name": "Address", "type": "singleLineText"},
			map[string]any{"name": "Visited", "type": "checkbox", "options": map[string]any{"color": "greenBright", "icon": "check"}},
			map[string]any{"name": "Owner", "type": "multipleRecordLinks", "options": map[string]any{"linkedTableId": "tblPEOPLE00000001"}},
		},
	}
	r := do(t, s, DefaultToken, "POST", metaBase+"/tables", body)
	mustStatus(t, r, 200)
	id, _ := r.body["id"].(string)
	if !isID(id, "tbl") || r.body["name"] != "Apartments" || r.body["description"] != "A to-do list of places to visit" {
		t.Fatalf("table model: %s", r.raw)
	}
	fields := r.body["fields"].([]any)
	if len(fields) != 4 || r.body["primaryFieldId"] != fields[0].(map[string]any)["id"] {
		t.Fatalf("fields/primary: %s", r.raw)
	}
	name := fields[0].(map[string]any)
	if name["description"] != "Name of the apartment" || name["options"] != nil {
		t.Fatalf("primary field: %v", name)
	}
	visited := fields[2].(map[string]any)
	if o := visited["options"].(map[string]any); o["color"] != "greenBright" || o["icon"] != "check" {
		t.Fatalf("checkbox options: %v", visited)
	}
	views := r.body["views"].([]any)
	if len(views) != 1 || views[0].(map[string]any)["name"] != "Grid view" || views[0].(map[string]any)["type"] != "grid" {
		t.Fatalf("views: %v", views)
	}
	// The link got its inverse in People, named after the new table.
	owner := fields[3].(map[string]any)["options"].(map[string]any)
	schema := do(t, s, DefaultToken, "GET", metaBase+"/tables", nil)
	var inv map[string]any
	for _, tb := range schema.body["tables"].([]any) {
		if tb.(map[string]any)["id"] == "tblPEOPLE00000001" {
			for _, f := range tb.(map[string]any)["fields"].([]any) {
				if f.(map[string]any)["name"] == "Apartments" {
					inv = f.(map[string]any)
				}
			}
		}
	}
	if inv == nil || inv["id"] != owner["inverseLinkFieldId"] || inv["options"].(map[string]any)["inverseLinkFieldId"] != fields[3].(map[string]any)["id"] ||
		inv["options"].(map[string]any)["linkedTableId"] != id {
		t.Fatalf("inverse link: %v / %v", inv, owner)
	}
	// The new table takes records at once, by name and by id; the link shows on both sides.
	rec := do(t, s, DefaultToken, "POST", "/v0/appTEST0000000001/Apartments", map[string]any{"fields": map[string]any{"Name": "Flat 1", "Visited": true, "Owner": []string{}}})
	mustStatus(t, rec, 200)
	people := do(t, s, DefaultToken, "POST", testBase+"/People", map[string]any{"fields": map[string]any{"Name": "Ann"}})
	upd := do(t, s, DefaultToken, "PATCH", "/v0/appTEST0000000001/"+id+"/"+rec.body["id"].(string), map[string]any{"fields": map[string]any{"Owner": []string{people.body["id"].(string)}}})
	mustStatus(t, upd, 200)
	back := do(t, s, DefaultToken, "GET", testBase+"/People/"+people.body["id"].(string), nil)
	if got := fieldsOf(back.body)["Apartments"]; got == nil || got.([]any)[0] != rec.body["id"] {
		t.Fatalf("inverse side of the new link: %s", back.raw)
	}
}

func TestCreateTableErrors(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	readOnly := &Fixture{Tokens: []FixtureToken{{Token: "patREAD.only", Bases: []string{"appTEST0000000001"},
		Scopes: []string{"schema.bases:read", "data.records:read"}}}}
	if err := s.LoadFixture(readOnly); err != nil {
		t.Fatal(err)
	}
	text := map[string]any{"name": "Name", "type": "singleLineText"}
	cases := []struct {
		name   string
		tok    string
		path   string
		body   any
		status int
		typ    string
		msg    string
	}{
		{"no schema write scope", "patREAD.only", metaBase + "/tables", map[string]any{"name": "X", "fields": []any{text}}, 403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND", ""},
		{"unknown base", DefaultToken, "/v0/meta/bases/appNOPE0000000001/tables", map[string]any{"name": "X", "fields": []any{text}}, 403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND", ""},
		{"duplicate table name, other case", DefaultToken, metaBase + "/tables", map[string]any{"name": "people", "fields": []any{text}}, 422, "DUPLICATE_TABLE_NAME", `"people"`},
		{"no fields", DefaultToken, metaBase + "/tables", map[string]any{"name": "X", "fields": []any{}}, 422, "INVALID_REQUEST_UNKNOWN", "at least one field"},
		{"no name", DefaultToken, metaBase + "/tables", map[string]any{"fields": []any{text}}, 422, "INVALID_REQUEST_UNKNOWN", "name"},
		{"duplicate field names", DefaultToken, metaBase + "/tables", map[string]any{"name": "X", "fields": []any{text, map[string]any{"name": "name", "type": "email"}}}, 422, "DUPLICATE_OR_EMPTY_FIELD_NAME", ""},
		{"empty field name", DefaultToken, metaBase + "/tables", map[string]any{"name": "X", "fields": []any{map[string]any{"name": " ", "type": "email"}}}, 422, "DUPLICATE_OR_EMPTY_FIELD_NAME", ""},
		{"checkbox primary", DefaultToken, metaBase + "/tables", map[string]any{"name": "X", "fields": []any{map[string]any{"name": "Done", "type": "checkbox", "options": map[string]any{"icon": "check", "color": "greenBright"}}}}, 422, "INVALID_REQUEST_UNKNOWN", "primary"},
		{"options on a text field", DefaultToken, metaBase + "/tables", map[string]any{"name": "X", "fields": []any{map[string]any{"name": "Namn", "type": "singleLineText", "options": map[string]any{}}}}, 422, "INVALID_FIELD_TYPE_OPTIONS_FOR_CREATE", "Invalid options for X.Namn: Failed schema validation: options is not included in the Namn.(type=singleLineText) schema"},
		{"checkbox without options", DefaultToken, metaBase + "/tables", map[string]any{"name": "X", "fields": []any{text, map[string]any{"name": "Done", "type": "checkbox"}}}, 422, "INVALID_FIELD_TYPE_OPTIONS_FOR_CREATE", "Done.options is missing"},
		{"formula", DefaultToken, metaBase + "/tables", map[string]any{"name": "X", "fields": []any{text, map[string]any{"name": "F", "type": "formula", "options": map[string]any{"formula": "1"}}}}, 422, "UNSUPPORTED_FIELD_TYPE_FOR_CREATE", "Invalid options for X.F: Creating formula fields is not supported at this time"},
		{"unknown type", DefaultToken, metaBase + "/tables", map[string]any{"name": "X", "fields": []any{text, map[string]any{"name": "F", "type": "hologram"}}}, 422, "INVALID_REQUEST_UNKNOWN", "hologram"},
		{"unknown property", DefaultToken, metaBase + "/tables", map[string]any{"name": "X", "fields": []any{text}, "color": "red"}, 422, "INVALID_REQUEST_UNKNOWN", `"color"`},
		{"property in another case", DefaultToken, metaBase + "/tables", map[string]any{"Name": "X", "fields": []any{text}}, 422, "INVALID_REQUEST_UNKNOWN", `"Name"`},
		{"field property in another case", DefaultToken, metaBase + "/tables", map[string]any{"name": "X", "fields": []any{map[string]any{"name": "A", "TYPE": "email"}}}, 422, "INVALID_REQUEST_UNKNOWN", `"TYPE"`},
		{"body not an object", DefaultToken, metaBase + "/tables", []any{}, 422, "INVALID_REQUEST_UNKNOWN", ""},
		{"not JSON", DefaultToken, metaBase + "/tables", "{", 400, "INVALID_REQUEST_BODY", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, s, tc.tok, "POST", tc.path, tc.body)
			mustStatus(t, r, tc.status)
			if errType(r) != tc.typ || !strings.Contains(errMessage(r), tc.msg) {
				t.Fatalf("got %s, want %s containing %q", r.raw, tc.typ, tc.msg)
			}
		})
	}
	// Nothing of the refused requests was created.
	schema := do(t, s, DefaultToken, "GET", metaBase+"/tables", nil)
	if n := len(schema.body["tables"].([]any)); n != 2 {
		t.Fatalf("%d tables after refused creates", n)
	}
}

// Create field, for every type the emulator stores that the API can create: the options the
// service requires, and the options the schema shows afterwards.
func TestCreateFieldEveryType(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	path := metaBase + "/tables/tblTASKS000000001/fields"
	cases := []struct {
		typ     string
		options map[string]any
		want    string // a substring of the field's options as answered
	}{
		{"singleLineText", nil, ""},
		{"multilineText", nil, ""},
		{"richText", nil, ""},
		{"email", nil, ""},
		{"url", nil, ""},
		{"phoneNumber", nil, ""},
		{"barcode", nil, ""},
		{"number", map[string]any{"precision": 2}, `"precision":2`},
		{"percent", map[string]any{"precision": 1}, `"precision":1`},
		{"currency", map[string]any{"precision": 2, "symbol": "€"}, `"symbol":"€"`},
		{"duration", map[string]any{"durationFormat": "h:mm:ss"}, `"durationFormat":"h:mm:ss"`},
		{"rating", map[string]any{"max": 5, "icon": "star", "color": "yellowBright"}, `"max":5`},
		{"checkbox", map[string]any{"icon": "check", "color": "greenBright"}, `"icon":"check"`},
		{"date", map[string]any{"dateFormat": map[string]any{"name": "iso"}}, `"format":"YYYY-MM-DD"`},
		{"dateTime", map[string]any{"dateFormat": map[string]any{"name": "us", "format": "M/D/YYYY"}, "timeFormat": map[string]any{"name": "24hour"}, "timeZone": "Europe/Paris"}, `"timeZone":"Europe/Paris"`},
		{"singleSelect", map[string]any{"choices": []any{map[string]any{"name": "Low"}, map[string]any{"name": "High", "color": "redBright"}}}, `"color":"redBright"`},
		{"multipleSelects", map[string]any{"choices": []any{map[string]any{"name": "x"}}}, `"name":"x"`},
		{"singleCollaborator", nil, ""},
		{"multipleCollaborators", map[string]any{}, ""},
		{"multipleAttachments", map[string]any{"isReversed": true}, `"isReversed":true`},
		{"multipleRecordLinks", map[string]any{"linkedTableId": "tblTASKS000000001"}, `"linkedTableId":"tblTASKS000000001"`},
	}
	for _, tc := range cases {
		t.Run(tc.typ, func(t *testing.T) {
			body := map[string]any{"name": "New " + tc.typ, "type": tc.typ, "description": "made by the test"}
			if tc.options != nil {
				body["options"] = tc.options
			}
			r := do(t, s, DefaultToken, "POST", path, body)
			mustStatus(t, r, 200)
			if !isID(r.body["id"].(string), "fld") || r.body["type"] != tc.typ || r.body["description"] != "made by the test" || !strings.Contains(r.raw, tc.want) {
				t.Fatalf("answer %s, want options with %s", r.raw, tc.want)
			}
		})
	}
	// Every new field takes a value.
	rec := do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{
		"New number": 1.25, "New singleSelect": "High", "New checkbox": true, "New date": "2024-02-03", "New email": "a@b.c",
		"New rating": 4, "New multipleSelects": []string{"x"}, "New currency": 3, "New dateTime": "2024-02-03T04:05:06.000Z",
	}})
	mustStatus(t, rec, 200)
	if f := fieldsOf(rec.body); f["New number"] != 1.25 || f["New singleSelect"] != "High" || f["New checkbox"] != true {
		t.Fatalf("values of new fields: %s", rec.raw)
	}
}

func TestCreateFieldErrors(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	path := metaBase + "/tables/tblTASKS000000001/fields"
	cases := []struct {
		name string
		path string
		body map[string]any
		typ  string
		msg  string
	}{
		{"duplicate name", path, map[string]any{"name": "priority", "type": "singleLineText"}, "DUPLICATE_OR_EMPTY_FIELD_NAME", `"priority"`},
		{"number without precision", path, map[string]any{"name": "N", "type": "number", "options": map[string]any{}}, "INVALID_FIELD_TYPE_OPTIONS_FOR_CREATE", "options.precision must be an integer from 0 to 8"},
		{"number precision 9", path, map[string]any{"name": "N", "type": "number", "options": map[string]any{"precision": 9}}, "INVALID_FIELD_TYPE_OPTIONS_FOR_CREATE", "from 0 to 8"},
		{"unknown option", path, map[string]any{"name": "N", "type": "number", "options": map[string]any{"precision": 1, "format": "x"}}, "INVALID_FIELD_TYPE_OPTIONS_FOR_CREATE", "options.format is not included in the N.(type=number) schema"},
		{"rating color", path, map[string]any{"name": "R", "type": "rating", "options": map[string]any{"max": 5, "icon": "star", "color": "mauve"}}, "INVALID_FIELD_TYPE_OPTIONS_FOR_CREATE", "options.color"},
		{"date format mismatch", path, map[string]any{"name": "D", "type": "date", "options": map[string]any{"dateFormat": map[string]any{"name": "iso", "format": "M/D/YYYY"}}}, "INVALID_FIELD_TYPE_OPTIONS_FOR_CREATE", "does not match"},
		{"bad time zone", path, map[string]any{"name": "D", "type": "dateTime", "options": map[string]any{"dateFormat": map[string]any{"name": "iso"}, "timeFormat": map[string]any{"name": "24hour"}, "timeZone": "Mars/Olympus"}}, "INVALID_FIELD_TYPE_OPTIONS_FOR_CREATE", "timeZone"},
		{"repeated choice", path, map[string]any{"name": "S", "type": "singleSelect", "options": map[string]any{"choices": []any{map[string]any{"name": "a"}, map[string]any{"name": "a"}}}}, "INVALID_FIELD_TYPE_OPTIONS_FOR_CREATE", "listed twice"},
		{"link to unknown table", path, map[string]any{"name": "L", "type": "multipleRecordLinks", "options": map[string]any{"linkedTableId": "tblNOPE000000001"}}, "INVALID_FIELD_TYPE_OPTIONS_FOR_CREATE", "linkedTableId"},
		{"link with prefersSingleRecordLink", path, map[string]any{"name": "L", "type": "multipleRecordLinks", "options": map[string]any{"linkedTableId": "tblPEOPLE00000001", "prefersSingleRecordLink": true}}, "INVALID_FIELD_TYPE_OPTIONS_FOR_CREATE", "prefersSingleRecordLink"},
		{"rollup", path, map[string]any{"name": "R", "type": "rollup"}, "UNSUPPORTED_FIELD_TYPE_FOR_CREATE", "Creating rollup fields is not supported at this time"},
		{"createdTime", path, map[string]any{"name": "Created At", "type": "createdTime"}, "UNSUPPORTED_FIELD_TYPE_FOR_CREATE", "Invalid options for Tasks.Created At: Creating createdTime fields is not supported at this time"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, s, DefaultToken, "POST", tc.path, tc.body)
			mustStatus(t, r, 422)
			if errType(r) != tc.typ || !strings.Contains(errMessage(r), tc.msg) {
				t.Fatalf("got %s, want %s containing %q", r.raw, tc.typ, tc.msg)
			}
		})
	}
	// The fields route names the table by id, as documented: a name is not found.
	r := do(t, s, DefaultToken, "POST", metaBase+"/tables/Tasks/fields", map[string]any{"name": "N", "type": "email"})
	mustStatus(t, r, 403)
}

func TestUpdateTableAndField(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	r := do(t, s, DefaultToken, "PATCH", metaBase+"/tables/Tasks", map[string]any{"name": "Jobs", "description": "What to do"})
	mustStatus(t, r, 200)
	if r.body["id"] != "tblTASKS000000001" || r.body["name"] != "Jobs" || r.body["description"] != "What to do" {
		t.Fatalf("update table: %s", r.raw)
	}
	mustStatus(t, do(t, s, DefaultToken, "GET", testBase+"/Tasks", nil), 403)
	mustStatus(t, do(t, s, DefaultToken, "GET", testBase+"/Jobs", nil), 200)
	if r := do(t, s, DefaultToken, "PATCH", metaBase+"/tables/Jobs", map[string]any{"name": "PEOPLE"}); errType(r) != "DUPLICATE_TABLE_NAME" {
		t.Fatalf("rename onto another table: %s", r.raw)
	}
	if r := do(t, s, DefaultToken, "PATCH", metaBase+"/tables/Jobs", map[string]any{}); errType(r) != "INVALID_REQUEST_UNKNOWN" {
		t.Fatalf("empty update: %s", r.raw)
	}

	// Renaming a field keeps the formula and the view filter that name it working.
	schema := do(t, s, DefaultToken, "GET", metaBase+"/tables", nil)
	prio := fieldID(t, schema, "tblTASKS000000001", "Priority")
	done := fieldID(t, schema, "tblTASKS000000001", "Done")
	f := do(t, s, DefaultToken, "PATCH", metaBase+"/tables/tblTASKS000000001/fields/"+prio, map[string]any{"name": "Importance", "description": "1 to 5"})
	mustStatus(t, f, 200)
	if f.body["name"] != "Importance" || f.body["description"] != "1 to 5" || f.body["type"] != "number" {
		t.Fatalf("update field: %s", f.raw)
	}
	mustStatus(t, do(t, s, DefaultToken, "PATCH", metaBase+"/tables/tblTASKS000000001/fields/"+done, map[string]any{"name": "Finished"}), 200)
	list := do(t, s, DefaultToken, "GET", testBase+"/Jobs?view=Open", nil)
	mustStatus(t, list, 200)
	recs := records(t, list)
	if len(recs) != 2 || fieldsOf(recs[0])["Name"] != "Ship" || fieldsOf(recs[0])["Score"] != float64(10) || fieldsOf(recs[0])["Importance"] != float64(5) {
		t.Fatalf("view and formula after renames: %s", list.raw)
	}
	if r := do(t, s, DefaultToken, "GET", testBase+"/Jobs?filterByFormula="+urlQuery("{Importance} > 4"), nil); len(records(t, r)) != 1 {
		t.Fatalf("the new name in a formula: %s", r.raw)
	}
	if r := do(t, s, DefaultToken, "PATCH", metaBase+"/tables/tblTASKS000000001/fields/"+prio, map[string]any{"name": "name"}); errType(r) != "DUPLICATE_OR_EMPTY_FIELD_NAME" {
		t.Fatalf("rename onto another field: %s", r.raw)
	}
	if r := do(t, s, DefaultToken, "PATCH", metaBase+"/tables/tblTASKS000000001/fields/"+prio, map[string]any{"type": "email"}); errType(r) != "INVALID_REQUEST_UNKNOWN" {
		t.Fatalf("changing the type: %s", r.raw)
	}
	if r := do(t, s, DefaultToken, "PATCH", metaBase+"/tables/tblTASKS000000001/fields/fldNOPE0000000001", map[string]any{"name": "x"}); r.status != 403 {
		t.Fatalf("unknown field: %s", r.raw)
	}
	long := strings.Repeat("d", maxDescription+1)
	if r := do(t, s, DefaultToken, "PATCH", metaBase+"/tables/tblTASKS000000001/fields/"+prio, map[string]any{"description": long}); errType(r) != "INVALID_REQUEST_UNKNOWN" {
		t.Fatalf("long description: %s", r.raw)
	}
}

func errMessage(r response) string {
	e, _ := r.body["error"].(map[string]any)
	m, _ := e["message"].(string)
	return m
}

func fieldID(t *testing.T, schema response, tableID, name string) string {
	t.Helper()
	for _, tb := range schema.body["tables"].([]any) {
		if tb.(map[string]any)["id"] != tableID {
			continue
		}
		for _, f := range tb.(map[string]any)["fields"].([]any) {
			if f.(map[string]any)["name"] == name {
				return f.(map[string]any)["id"].(string)
			}
		}
	}
	t.Fatalf("no field %q in %s", name, tableID)
	return ""
}

func urlQuery(s string) string {
	return strings.NewReplacer("%", "%25", " ", "%20", "{", "%7B", "}", "%7D", ">", "%3E", "&", "%26", "=", "%3D", "+", "%2B", "#", "%23").Replace(s)
}

// Schema writes survive a restart with the data file, and a compaction at start keeps them.
func TestSchemaWritesPersist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.wal")
	s1, _ := newTestServer(t, WithFixture(smallFixture(t)), WithDataFile(path))
	tb := do(t, s1, DefaultToken, "POST", metaBase+"/tables", map[string]any{"name": "Notes", "fields": []any{
		map[string]any{"name": "Title", "type": "singleLineText"},
		map[string]any{"name": "Person", "type": "multipleRecordLinks", "options": map[string]any{"linkedTableId": "tblPEOPLE00000001"}},
	}})
	mustStatus(t, tb, 200)
	tid := tb.body["id"].(string)
	fl := do(t, s1, DefaultToken, "POST", metaBase+"/tables/"+tid+"/fields", map[string]any{"name": "Stars", "type": "rating", "options": map[string]any{"max": 3, "icon": "heart", "color": "redBright"}})
	mustStatus(t, fl, 200)
	mustStatus(t, do(t, s1, DefaultToken, "PATCH", metaBase+"/tables/"+tid, map[string]any{"name": "Memos"}), 200)
	mustStatus(t, do(t, s1, DefaultToken, "PATCH", metaBase+"/tables/"+tid+"/fields/"+fl.body["id"].(string), map[string]any{"name": "Hearts", "description": "how much"}), 200)
	for i := range 3 { // records in the new table, and updates: the compaction has something to fold
		rec := do(t, s1, DefaultToken, "POST", "/v0/appTEST0000000001/Memos", map[string]any{"fields": map[string]any{"Title": "m", "Hearts": 1}})
		mustStatus(t, rec, 200)
		mustStatus(t, do(t, s1, DefaultToken, "PATCH", "/v0/appTEST0000000001/Memos/"+rec.body["id"].(string), map[string]any{"fields": map[string]any{"Hearts": i + 1}}), 200)
	}
	before := do(t, s1, DefaultToken, "GET", metaBase+"/tables", nil).raw
	rowsBefore := do(t, s1, DefaultToken, "GET", "/v0/appTEST0000000001/Memos", nil).raw
	s1.Close()
	for range 2 { // the second start reads the compacted log
		s2, _ := newTestServer(t, WithFixture(smallFixture(t)), WithDataFile(path))
		if after := do(t, s2, DefaultToken, "GET", metaBase+"/tables", nil).raw; after != before {
			t.Fatalf("schema after restart:\n%s\nbefore:\n%s", after, before)
		}
		if rows := do(t, s2, DefaultToken, "GET", "/v0/appTEST0000000001/Memos", nil).raw; rows != rowsBefore {
			t.Fatalf("records after restart:\n%s\nbefore:\n%s", rows, rowsBefore)
		}
		s2.Close()
	}
}

// Whatever the body, a schema write or a comment answers 200 or a 4xx with an error object (never
// a 5xx, which is how the emulator reports its own panics), and the base stays readable.
func FuzzSchemaAndCommentBodies(f *testing.F) {
	for _, seed := range []string{
		`{"name":"X","fields":[{"name":"A","type":"singleLineText"}]}`,
		`{"name":"N","type":"number","options":{"precision":2}}`,
		`{"name":"D","type":"dateTime","options":{"dateFormat":{"name":"iso"},"timeFormat":{"name":"24hour"},"timeZone":"utc"}}`,
		`{"name":"S","type":"singleSelect","options":{"choices":[{"name":"a","color":"redBright"},{}]}}`,
		`{"name":"L","type":"multipleRecordLinks","options":{"linkedTableId":"tblPEOPLE00000001"}}`,
		`{"name":"R","type":"rating","options":{"max":1e309,"icon":"star","color":"yellowBright"}}`,
		`{"text":"@[usrALICE000000001] hi","parentCommentId":null}`,
		`{"name":null,"description":"x"}`, `[]`, `null`, `{"fields":[null]}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		s, _ := newTestServer(t, WithFixture(smallFixture(t)), WithFixture(collabFixture(t)))
		for _, req := range []struct{ tok, method, path string }{
			{DefaultToken, "POST", metaBase + "/tables"},
			{DefaultToken, "POST", metaBase + "/tables/tblTASKS000000001/fields"},
			{DefaultToken, "PATCH", metaBase + "/tables/tblTASKS000000001"},
			{DefaultToken, "PATCH", metaBase + "/tables/tblTASKS000000001/fields/fldNAME0000000001"},
			{"patALICE.secret", "POST", commentsPath},
		} {
			r, err := tryDo(s, req.tok, req.method, req.path, body)
			if err != nil {
				t.Fatal(err)
			}
			if r.status >= 500 || (r.status != 200 && errType(r) == "") {
				t.Fatalf("%s %s with %q: %d %s", req.method, req.path, body, r.status, r.raw)
			}
		}
		for _, path := range []string{metaBase + "/tables", testBase + "/tblTASKS000000001", testBase + "/tblTASKS000000001/recTASK0000000001/comments"} {
			tok := DefaultToken
			if strings.HasSuffix(path, "comments") {
				tok = "patALICE.secret"
			}
			if r, err := tryDo(s, tok, "GET", path, nil); err != nil || r.status != 200 {
				t.Fatalf("GET %s after %q: %v %d %s", path, body, err, r.status, r.raw)
			}
		}
	})
}

// Inverse links: named after the link's table and numbered when taken; none for a link to its own table.
func TestCreateLinkInverses(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	link := func(name string) map[string]any {
		return map[string]any{"name": name, "type": "multipleRecordLinks", "options": map[string]any{"linkedTableId": "tblPEOPLE00000001"}}
	}
	r := do(t, s, DefaultToken, "POST", metaBase+"/tables", map[string]any{"name": "Visits", "fields": []any{
		map[string]any{"name": "Title", "type": "singleLineText"}, link("Host"), link("Guest")}})
	mustStatus(t, r, 200)
	f := do(t, s, DefaultToken, "POST", metaBase+"/tables/tblPEOPLE00000001/fields", link("Friend"))
	mustStatus(t, f, 200)
	if _, has := f.body["options"].(map[string]any)["inverseLinkFieldId"]; has {
		t.Fatalf("a link to its own table got an inverse: %s", f.raw)
	}
	schema := do(t, s, DefaultToken, "GET", metaBase+"/tables", nil)
	host := fieldID(t, schema, "tblPEOPLE00000001", "Visits")
	guest := fieldID(t, schema, "tblPEOPLE00000001", "Visits 2")
	fields := r.body["fields"].([]any)
	if fields[1].(map[string]any)["options"].(map[string]any)["inverseLinkFieldId"] != host ||
		fields[2].(map[string]any)["options"].(map[string]any)["inverseLinkFieldId"] != guest {
		t.Fatalf("inverses: %s\n%s", r.raw, schema.raw)
	}
}

// TestUpdateFormulaField: update field takes options.formula for a formula field (the service's
// documentation lists it), keeps it with field ids, and refuses options of any other field.
func TestUpdateFormulaField(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.wal")
	s, _ := newTestServer(t, WithFixture(smallFixture(t)), WithDataFile(path))
	schema := do(t, s, DefaultToken, "GET", metaBase+"/tables", nil)
	score := fieldID(t, schema, "tblTASKS000000001", "Score")
	prio := fieldID(t, schema, "tblTASKS000000001", "Priority")
	fieldPath := metaBase + "/tables/tblTASKS000000001/fields/"
	r := do(t, s, DefaultToken, "PATCH", fieldPath+score, map[string]any{"options": map[string]any{"formula": "{Priority} * 3"}})
	mustStatus(t, r, 200)
	opts, _ := r.body["options"].(map[string]any)
	if opts["formula"] != "{"+prio+"} * 3" {
		t.Errorf("the formula reads back as %v, want it with field ids", opts["formula"])
	}
	list := do(t, s, DefaultToken, "GET", testBase+"/Tasks?filterByFormula="+urlQuery("{Name} = 'Ship'"), nil)
	if recs := records(t, list); len(recs) != 1 || fieldsOf(recs[0])["Score"] != float64(15) {
		t.Errorf("Score after the new formula: %s", list.raw)
	}
	for _, tc := range []struct {
		field string
		body  map[string]any
	}{
		{prio, map[string]any{"options": map[string]any{"precision": 2}}},
		{score, map[string]any{"options": map[string]any{"formula": "{Nope} +"}}},
		{score, map[string]any{"options": map[string]any{"formula": "1", "result": "x"}}},
		{score, map[string]any{"options": map[string]any{"formula": " "}}},
	} {
		if r := do(t, s, DefaultToken, "PATCH", fieldPath+tc.field, tc.body); errType(r) != "INVALID_FIELD_TYPE_OPTIONS_FOR_UPDATE" {
			t.Errorf("%v: got %s, want INVALID_FIELD_TYPE_OPTIONS_FOR_UPDATE", tc.body, r.raw)
		}
	}
	before := do(t, s, DefaultToken, "GET", metaBase+"/tables", nil).raw
	s.Close()
	s2, _ := newTestServer(t, WithFixture(smallFixture(t)), WithDataFile(path))
	if after := do(t, s2, DefaultToken, "GET", metaBase+"/tables", nil).raw; after != before {
		t.Errorf("schema after restart:\n%s\nbefore:\n%s", after, before)
	}
}
