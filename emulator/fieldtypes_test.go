package emulator

import (
	"encoding/json"
	"testing"
)

// allTypesFixture is one table with a field of every writable type of reference §4.4 and the
// computed ones, for TestEveryFieldTypeValidated.
const allTypesFixture = `{"bases":[{"id":"appTYPES000000001","name":"Types","tables":[
 {"id":"tblOTHER000000001","name":"Other","fields":[{"name":"Name","type":"singleLineText"}],
  "records":[{"id":"recOTHER000000001","fields":{"Name":"linked"}}]},
 {"id":"tblTYPES000000001","name":"Types","fields":[
  {"name":"Name","type":"singleLineText"},
  {"name":"Long","type":"multilineText"},
  {"name":"Rich","type":"richText"},
  {"name":"Email","type":"email"},
  {"name":"URL","type":"url"},
  {"name":"Phone","type":"phoneNumber"},
  {"name":"Number","type":"number","options":{"precision":1}},
  {"name":"Currency","type":"currency","options":{"precision":2,"symbol":"$"}},
  {"name":"Percent","type":"percent","options":{"precision":0}},
  {"name":"Duration","type":"duration","options":{"durationFormat":"h:mm"}},
  {"name":"Rating","type":"rating","options":{"max":5}},
  {"name":"Check","type":"checkbox"},
  {"name":"Date","type":"date"},
  {"name":"When","type":"dateTime","options":{"timeZone":"utc"}},
  {"name":"Select","type":"singleSelect","options":{"choices":[{"name":"A"},{"name":"B"}]}},
  {"name":"Multi","type":"multipleSelects","options":{"choices":[{"name":"A"},{"name":"B"}]}},
  {"name":"Person","type":"singleCollaborator"},
  {"name":"People","type":"multipleCollaborators"},
  {"name":"Link","type":"multipleRecordLinks","options":{"linkedTableId":"tblOTHER000000001"}},
  {"name":"Files","type":"multipleAttachments"},
  {"name":"Code","type":"barcode"},
  {"name":"Calc","type":"formula","options":{"formula":"{Number} * 2"}},
  {"name":"Auto","type":"autoNumber"},
  {"name":"Made","type":"createdTime"},
  {"name":"Changed","type":"lastModifiedTime"},
  {"name":"Maker","type":"createdBy"},
  {"name":"Changer","type":"lastModifiedBy"},
  {"name":"Press","type":"button","options":{"label":"Go"}},
  {"name":"Links","type":"count","options":{"recordLinkFieldId":"Link"}},
  {"name":"Looked","type":"multipleLookupValues","options":{"recordLinkFieldId":"Link","fieldIdInLinkedTable":"Name"}},
  {"name":"Rolled","type":"rollup","options":{"recordLinkFieldId":"Link","fieldIdInLinkedTable":"Name","formula":"COUNTA(values)"}}
 ]}]}]}`

// TestEveryFieldTypeValidated writes a good and a bad value to a field of every type: the good one
// reads back in the API's form, the bad one is refused with the service's 422 and changes nothing.
func TestEveryFieldTypeValidated(t *testing.T) {
	f, err := ParseFixture([]byte(allTypesFixture))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newTestServer(t, WithFixture(f))
	const path = "/v0/appTYPES000000001/Types"
	tests := []struct {
		field    string
		good     any
		readBack string // JSON of the value read back; "" means the same as good
		bad      any
		badType  string
	}{
		{"Name", "x", "", 5, "INVALID_VALUE_FOR_COLUMN"},
		{"Long", "a\nb", "", true, "INVALID_VALUE_FOR_COLUMN"},
		{"Rich", "# h\n* item", `"# h\n- item\n"`, []any{"x"}, "INVALID_VALUE_FOR_COLUMN"},
		{"Email", "a@b.c", "", 1, "INVALID_VALUE_FOR_COLUMN"},
		{"URL", "https://x.y", "", map[string]any{}, "INVALID_VALUE_FOR_COLUMN"},
		{"Phone", "(650) 555-1234", "", 6505551234, "INVALID_VALUE_FOR_COLUMN"},
		{"Number", 42.1, "", "42", "INVALID_VALUE_FOR_COLUMN"},
		{"Currency", 6.5, "", "$6.50", "INVALID_VALUE_FOR_COLUMN"},
		{"Percent", 0.25, "", "25%", "INVALID_VALUE_FOR_COLUMN"},
		{"Duration", 4980, "", "1:23", "INVALID_VALUE_FOR_COLUMN"},
		{"Rating", 4, "", 9, "INVALID_VALUE_FOR_COLUMN"},
		{"Check", true, "", "yes", "INVALID_VALUE_FOR_COLUMN"},
		{"Date", "2024-03-05", "", "March", "INVALID_VALUE_FOR_COLUMN"},
		{"When", "2024-03-05T07:00:00.000Z", "", "soon", "INVALID_VALUE_FOR_COLUMN"},
		{"Select", "A", "", "C", "INVALID_MULTIPLE_CHOICE_OPTIONS"},
		{"Multi", []any{"B", "A"}, "", []any{"A", "Z"}, "INVALID_MULTIPLE_CHOICE_OPTIONS"},
		{"Person", map[string]any{"id": "usrPERSON00000001"}, "", map[string]any{"name": "nobody"}, "INVALID_VALUE_FOR_COLUMN"},
		{"People", []any{"usrPERSON00000001"}, `[{"id":"usrPERSON00000001"}]`, "usrPERSON00000001", "INVALID_VALUE_FOR_COLUMN"},
		{"Link", []any{"recOTHER000000001"}, "", []any{"recMISSING0000001"}, "ROW_DOES_NOT_EXIST"},
		{"Files", []any{map[string]any{"url": "https://x.y/a.png"}}, "", []any{"https://x.y/a.png"}, "INVALID_ATTACHMENT_OBJECT"},
		{"Code", map[string]any{"text": "A1"}, "", "A1", "INVALID_VALUE_FOR_COLUMN"},
		{"Nope", nil, "", 1, "UNKNOWN_FIELD_NAME"},
	}
	for _, name := range []string{"Calc", "Auto", "Made", "Changed", "Maker", "Changer", "Press", "Links", "Looked", "Rolled"} {
		tests = append(tests, struct {
			field    string
			good     any
			readBack string
			bad      any
			badType  string
		}{name, nil, "", 1, "INVALID_VALUE_FOR_COLUMN"}) // computed: never writable
	}
	for _, tc := range tests {
		t.Run(tc.field, func(t *testing.T) {
			if tc.good != nil {
				r := do(t, s, DefaultToken, "POST", path, map[string]any{"fields": map[string]any{tc.field: tc.good}})
				mustStatus(t, r, 200)
				got, _ := json.Marshal(fieldsOf(r.body)[tc.field])
				want := tc.readBack
				if want == "" {
					b, _ := json.Marshal(tc.good)
					want = string(b)
				}
				if tc.field == "Files" { // the service adds id, size, type and keeps url and filename
					var files []map[string]any
					_ = json.Unmarshal(got, &files)
					if len(files) != 1 || files[0]["url"] != "https://x.y/a.png" || files[0]["filename"] != "a.png" || files[0]["type"] != "image/png" || !isID(files[0]["id"].(string), "att") {
						t.Fatalf("attachment read back as %s", got)
					}
				} else if string(got) != want {
					t.Fatalf("read back %s, want %s", got, want)
				}
			}
			before := len(records(t, do(t, s, DefaultToken, "GET", path, nil)))
			r := do(t, s, DefaultToken, "POST", path, map[string]any{"fields": map[string]any{tc.field: tc.bad}})
			mustStatus(t, r, 422)
			if errType(r) != tc.badType {
				t.Fatalf("bad value: %s, want %s", r.raw, tc.badType)
			}
			if after := len(records(t, do(t, s, DefaultToken, "GET", path, nil))); after != before {
				t.Fatalf("a refused write created a record (%d -> %d)", before, after)
			}
		})
	}
	// Every computed field has its value on a record that links to the other table.
	r := do(t, s, DefaultToken, "POST", path, map[string]any{"fields": map[string]any{"Number": 2, "Link": []any{"recOTHER000000001"}}})
	mustStatus(t, r, 200)
	got := fieldsOf(r.body)
	for name, want := range map[string]string{"Calc": "4", "Links": "1", "Looked": `["linked"]`, "Rolled": "1", "Press": `{"label":"Go","url":null}`} {
		b, _ := json.Marshal(got[name])
		if string(b) != want {
			t.Errorf("%s = %s, want %s", name, b, want)
		}
	}
	for _, name := range []string{"Auto", "Made", "Changed", "Maker", "Changer"} {
		if got[name] == nil {
			t.Errorf("%s missing: %v", name, got)
		}
	}
}
