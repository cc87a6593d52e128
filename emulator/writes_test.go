package emulator

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/internal/clock"
)

func rec(fields map[string]any) map[string]any { return map[string]any{"fields": fields} }

func TestWriteValidation(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	tests := []struct {
		name   string
		body   any
		status int
		typ    string
		msg    string
	}{
		{"computed field, whole batch rejected", map[string]any{"records": []any{rec(map[string]any{"Name": "ok"}), rec(map[string]any{"Name": "x", "Num": 40})}},
			422, "INVALID_VALUE_FOR_COLUMN", `Field "Num" cannot accept a value because the field is computed`},
		{"unknown field", map[string]any{"fields": map[string]any{"Nope": 1}}, 422, "UNKNOWN_FIELD_NAME", `Unknown field name: "Nope"`},
		{"text into number", map[string]any{"fields": map[string]any{"Priority": "high"}}, 422, "INVALID_VALUE_FOR_COLUMN", `Field "Priority" cannot accept the provided value`},
		{"number into text", map[string]any{"fields": map[string]any{"Name": 5}}, 422, "INVALID_VALUE_FOR_COLUMN", `Field "Name" cannot accept the provided value`},
		{"unknown choice", map[string]any{"fields": map[string]any{"Status": "Interested"}}, 422, "INVALID_MULTIPLE_CHOICE_OPTIONS", `Insufficient permissions to create new select option ""Interested""`},
		{"unknown multi choice", map[string]any{"fields": map[string]any{"Tags": []any{"a", "zz"}}}, 422, "INVALID_MULTIPLE_CHOICE_OPTIONS", `"zz"`},
		{"bad date", map[string]any{"fields": map[string]any{"Due": "next week"}}, 422, "INVALID_VALUE_FOR_COLUMN", "Due"},
		{"link to missing record", map[string]any{"fields": map[string]any{"Owner": []any{"recNOPE000000001x"}}}, 422, "ROW_DOES_NOT_EXIST", "recNOPE000000001x"},
		{"link to a non-id", map[string]any{"fields": map[string]any{"Owner": []any{"Bob"}}}, 422, "INVALID_VALUE_FOR_COLUMN", "Bob"},
		{"checkbox string", map[string]any{"fields": map[string]any{"Done": "yes"}}, 422, "INVALID_VALUE_FOR_COLUMN", "Done"},
		{"eleven records", map[string]any{"records": make11()}, 422, "INVALID_RECORDS", "A maximum of 10 records can be created per request but you have provided 11."},
		{"no records", map[string]any{"records": []any{}}, 422, "INVALID_RECORDS", "empty"},
		{"neither fields nor records", map[string]any{"typecast": true}, 422, "INVALID_REQUEST_UNKNOWN", "fields"},
		{"bad JSON", "{nope", 400, "INVALID_REQUEST_BODY", "can't be parsed as a valid JSON"},
		{"valid JSON, wrong type of typecast", `{"typecast": "yes", "fields": {"Name": "x"}}`, 422, "INVALID_REQUEST_UNKNOWN", "typecast"},
		{"valid JSON, fields not an object", `{"fields": ["Name"]}`, 422, "INVALID_REQUEST_UNKNOWN", "fields"},
		{"valid JSON, not an object", `[1]`, 422, "INVALID_REQUEST_UNKNOWN", "the body"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, s, DefaultToken, "POST", testBase+"/Tasks", tc.body)
			mustStatus(t, r, tc.status)
			msg, _ := r.body["error"].(map[string]any)["message"].(string)
			if errType(r) != tc.typ || !strings.Contains(msg, tc.msg) {
				t.Fatalf("got %s, want %s with %q", r.raw, tc.typ, tc.msg)
			}
		})
	}
	if n := len(records(t, do(t, s, DefaultToken, "GET", testBase+"/Tasks", nil))); n != 3 {
		t.Fatalf("%d records after failed writes, want 3 (no partial writes)", n)
	}
}

func make11() []any {
	out := make([]any, 11)
	for i := range out {
		out[i] = rec(map[string]any{"Name": fmt.Sprint(i)})
	}
	return out
}

func TestTypecast(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	person := do(t, s, DefaultToken, "POST", testBase+"/People", map[string]any{"fields": map[string]any{"Name": "Bob", "Age": 40}})
	mustStatus(t, person, 200)
	body := map[string]any{"typecast": true, "records": []any{rec(map[string]any{
		"Name": 42, "Priority": "1,234", "Status": "Interested", "Tags": "a, new", "Done": "true", "Due": "2024/03/05", "Owner": "Bob",
	})}}
	r := do(t, s, DefaultToken, "POST", testBase+"/Tasks/", body)
	mustStatus(t, r, 200)
	f := fieldsOf(records(t, r)[0])
	want := map[string]any{"Name": "42", "Priority": 1234.0, "Status": "Interested", "Done": true, "Due": "2024-03-05"}
	for k, v := range want {
		if f[k] != v {
			t.Errorf("%s = %#v, want %#v", k, f[k], v)
		}
	}
	if fmt.Sprint(f["Tags"]) != "[a new]" || fmt.Sprint(f["Owner"]) != fmt.Sprint([]any{person.body["id"]}) || fmt.Sprint(f["Owner Age"]) != "[40]" {
		t.Errorf("Tags %v, Owner %v, Owner Age %v", f["Tags"], f["Owner"], f["Owner Age"])
	}
	// The new choices are now part of the schema, and usable without typecast.
	schema := do(t, s, DefaultToken, "GET", "/v0/meta/bases/appTEST0000000001/tables", nil)
	if !strings.Contains(schema.raw, `"name":"Interested"`) || !strings.Contains(schema.raw, `"name":"new"`) {
		t.Fatalf("schema lacks the typecast choices: %s", schema.raw)
	}
	mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Status": "Interested"}}), 200)
}

func TestEmptyValuesOmitted(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	r := do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{
		"Name": "", "Done": false, "Tags": []any{}, "Priority": 0, "Status": nil}})
	mustStatus(t, r, 200)
	f := fieldsOf(r.body)
	for _, k := range []string{"Name", "Done", "Tags", "Status"} {
		if _, has := f[k]; has {
			t.Errorf("empty %s returned: %v", k, f)
		}
	}
	if f["Priority"] != 0.0 { // a number 0 is not empty (reference §4.3)
		t.Errorf("Priority 0 missing: %v", f)
	}
	if f["Score"] != 0.0 || f["Num"] == nil {
		t.Errorf("computed fields: %v", f)
	}
}

func TestUpdateBatchAndUpsert(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	path := testBase + "/Tasks/"
	t.Run("missing id", func(t *testing.T) {
		r := do(t, s, DefaultToken, "PATCH", path, map[string]any{"records": []any{map[string]any{"id": "recNOPE0000000001", "fields": map[string]any{"Name": "x"}}}})
		mustStatus(t, r, 422)
		if errType(r) != "ROW_DOES_NOT_EXIST" {
			t.Fatal(r.raw)
		}
	})
	t.Run("PUT clears what it omits", func(t *testing.T) {
		r := do(t, s, DefaultToken, "PUT", path, map[string]any{"records": []any{map[string]any{"id": "recTASK0000000002", "fields": map[string]any{"Priority": 2}}}})
		mustStatus(t, r, 200)
		f := fieldsOf(records(t, r)[0])
		if _, has := f["Name"]; has || f["Priority"] != 2.0 || f["Num"] != 2.0 {
			t.Fatalf("after PUT: %v", f)
		}
	})
	t.Run("eleven", func(t *testing.T) {
		r := do(t, s, DefaultToken, "PATCH", path, map[string]any{"records": make11()})
		mustStatus(t, r, 422)
		if !strings.Contains(r.raw, "can be updated per request but you have provided 11") {
			t.Fatal(r.raw)
		}
	})
	t.Run("upsert", func(t *testing.T) {
		body := map[string]any{"performUpsert": map[string]any{"fieldsToMergeOn": []any{"Name"}}, "records": []any{
			map[string]any{"id": "recTASK0000000001", "fields": map[string]any{"Priority": 9}},
			rec(map[string]any{"Name": "Ship", "Priority": 6}),
			rec(map[string]any{"Name": "Brand new", "Priority": 1}),
			rec(map[string]any{"Name": nil, "Priority": 1}),
		}}
		r := do(t, s, DefaultToken, "PATCH", path, body)
		mustStatus(t, r, 200)
		recs := records(t, r)
		if len(recs) != 4 || recs[0]["id"] != "recTASK0000000001" || recs[1]["id"] != "recTASK0000000003" {
			t.Fatalf("records %s", r.raw)
		}
		upd := fmt.Sprint(r.body["updatedRecords"])
		if upd != "[recTASK0000000001 recTASK0000000003]" || len(r.body["createdRecords"].([]any)) != 2 {
			t.Fatalf("created %v updated %v", r.body["createdRecords"], upd)
		}
		r = do(t, s, DefaultToken, "PATCH", path, map[string]any{"performUpsert": map[string]any{"fieldsToMergeOn": []any{"Priority"}},
			"records": []any{rec(map[string]any{"Priority": 1, "Name": "dup"})}})
		mustStatus(t, r, 422) // two records have Priority 1
		r = do(t, s, DefaultToken, "PATCH", path, map[string]any{"performUpsert": map[string]any{"fieldsToMergeOn": []any{"Name"}},
			"records": []any{rec(map[string]any{"Priority": 1})}})
		mustStatus(t, r, 422) // lacks the merge field
		r = do(t, s, DefaultToken, "PATCH", path, map[string]any{"performUpsert": map[string]any{"fieldsToMergeOn": []any{"Score"}},
			"records": []any{rec(map[string]any{"Priority": 1})}})
		mustStatus(t, r, 422) // computed merge field
	})
}

func TestLinksInverseLookupDelete(t *testing.T) {
	s, _ := newTestServer(t, WithDemo())
	b := "/v0/" + DemoBaseID
	proj := do(t, s, DemoToken, "POST", b+"/Projects", map[string]any{"fields": map[string]any{"Name": "Test project", "Status": "Active"}})
	mustStatus(t, proj, 200)
	pid := proj.body["id"].(string)
	var taskIDs []any
	for i := range 3 {
		r := do(t, s, DemoToken, "POST", b+"/Tasks", map[string]any{"fields": map[string]any{
			"Name": fmt.Sprint("t", i), "Project": []any{pid}, "Estimate Hours": float64(i + 1)}})
		mustStatus(t, r, 200)
		if fmt.Sprint(fieldsOf(r.body)["Project Status"]) != "[Active]" {
			t.Fatalf("lookup: %v", fieldsOf(r.body))
		}
		taskIDs = append(taskIDs, r.body["id"])
	}
	p := do(t, s, DemoToken, "GET", b+"/Projects/"+pid, nil)
	f := fieldsOf(p.body)
	if fmt.Sprint(f["Tasks"]) != fmt.Sprint(taskIDs) || f["Task Count"] != 3.0 || f["Estimated Hours"] != 6.0 {
		t.Fatalf("inverse side: %v", f)
	}
	mustStatus(t, do(t, s, DemoToken, "DELETE", b+"/Tasks?records%5B%5D="+taskIDs[0].(string)+"&records%5B%5D="+taskIDs[1].(string), nil), 200)
	f = fieldsOf(do(t, s, DemoToken, "GET", b+"/Projects/"+pid, nil).body)
	if fmt.Sprint(f["Tasks"]) != fmt.Sprint(taskIDs[2:]) || f["Task Count"] != 1.0 {
		t.Fatalf("after delete: %v", f)
	}
	// Unlinking from the other side updates the task.
	mustStatus(t, do(t, s, DemoToken, "PATCH", b+"/Projects/"+pid, map[string]any{"fields": map[string]any{"Tasks": []any{}}}), 200)
	tf := fieldsOf(do(t, s, DemoToken, "GET", b+"/Tasks/"+taskIDs[2].(string), nil).body)
	if _, has := tf["Project"]; has {
		t.Fatalf("task still linked: %v", tf)
	}
	// A deleted record id answers 403 (default) on every route.
	r := do(t, s, DemoToken, "DELETE", b+"/Tasks/"+taskIDs[0].(string), nil)
	mustStatus(t, r, 403)
}

func TestDemoIsDeterministic(t *testing.T) {
	dump := func() string {
		s, _ := newTestServer(t, WithDemo())
		var out strings.Builder
		for _, tb := range []string{"People", "Projects", "Tasks"} {
			_, all := pagesRaw(t, s, DemoToken, "/v0/"+DemoBaseID+"/"+tb+"?pageSize=100")
			out.WriteString(all)
		}
		return out.String()
	}
	a, b := dump(), dump()
	if a != b {
		t.Fatal("two loads of the demo base differ")
	}
	if !strings.Contains(a, "Ada Lovelace") {
		t.Fatal("demo base lacks its people")
	}
}

func pagesRaw(t *testing.T, s *Server, tok, path string) (int, string) {
	t.Helper()
	var all strings.Builder
	n := 0
	offset := ""
	for {
		p := path
		if offset != "" {
			p += "&offset=" + offset
		}
		r := do(t, s, tok, "GET", p, nil)
		mustStatus(t, r, 200)
		n += len(records(t, r))
		for _, rec := range records(t, r) {
			fmt.Fprintf(&all, "%v\n", rec)
		}
		off, _ := r.body["offset"].(string)
		if off == "" {
			return n, all.String()
		}
		offset = strings.ReplaceAll(off, "/", "%2F")
	}
}

// TestUpsertRulesAndWriteOptions: the rules of reference §1.7 a client relies on, and
// returnFieldsByFieldId on writes and gets.
func TestUpsertRulesAndWriteOptions(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	path := testBase + "/Tasks"
	upsert := func(method string, merge []any, recs ...any) response {
		t.Helper()
		return do(t, s, DefaultToken, method, path, map[string]any{"performUpsert": map[string]any{"fieldsToMergeOn": merge}, "records": recs})
	}
	count := func() int { return len(records(t, do(t, s, DefaultToken, "GET", path, nil))) }

	t.Run("an id that does not exist fails, and creates nothing", func(t *testing.T) {
		r := upsert("PATCH", []any{"Name"}, map[string]any{"id": "recNOPE0000000001", "fields": map[string]any{"Name": "Ship"}})
		mustStatus(t, r, 422)
		if errType(r) != "ROW_DOES_NOT_EXIST" || count() != 3 {
			t.Fatalf("%s; %d records", r.raw, count())
		}
	})
	t.Run("PUT upsert clears the matched record's other fields", func(t *testing.T) {
		r := upsert("PUT", []any{"Name"}, rec(map[string]any{"Name": "Write spec", "Priority": 7}))
		mustStatus(t, r, 200)
		f := fieldsOf(records(t, r)[0])
		if records(t, r)[0]["id"] != "recTASK0000000001" || f["Priority"] != 7.0 || f["Status"] != nil {
			t.Fatalf("after PUT upsert: %s", r.raw)
		}
	})
	t.Run("merge field by id, value keyed by id", func(t *testing.T) {
		r := upsert("PATCH", []any{"fldNAME0000000001"}, rec(map[string]any{"fldNAME0000000001": "Ship", "Priority": 8}))
		mustStatus(t, r, 200)
		if fmt.Sprint(r.body["updatedRecords"]) != "[recTASK0000000003]" || fmt.Sprint(r.body["createdRecords"]) != "[]" {
			t.Fatalf("%s", r.raw)
		}
	})
	t.Run("two records of one request with the same new merge value: one created, then updated", func(t *testing.T) {
		r := upsert("PATCH", []any{"Name"}, rec(map[string]any{"Name": "Twin", "Priority": 1}), rec(map[string]any{"Name": "Twin", "Priority": 2}))
		mustStatus(t, r, 200)
		recs := records(t, r)
		if recs[0]["id"] != recs[1]["id"] || len(r.body["createdRecords"].([]any)) != 1 || len(r.body["updatedRecords"].([]any)) != 0 {
			t.Fatalf("%s", r.raw)
		}
	})
	t.Run("merge field types outside the documented list", func(t *testing.T) {
		f, err := ParseFixture([]byte(allTypesFixture))
		if err != nil {
			t.Fatal(err)
		}
		ts, _ := newTestServer(t, WithFixture(f))
		for field, ok := range map[string]bool{"Name": true, "Long": true, "Number": true, "Select": true, "Multi": true,
			"Date": true, "When": true, "Email": false, "URL": false, "Phone": false, "Currency": false, "Percent": false,
			"Rich": false, "Check": false, "Link": false, "Calc": false} {
			r := do(t, ts, DefaultToken, "PATCH", "/v0/appTYPES000000001/Types", map[string]any{
				"performUpsert": map[string]any{"fieldsToMergeOn": []any{field}}, "records": []any{rec(map[string]any{"Name": "x"})}})
			if got := r.status == 200 || errType(r) != "INVALID_REQUEST_UNKNOWN"; got != ok {
				t.Errorf("merge on %s: %s", field, r.raw)
			}
		}
	})
	t.Run("more than 3 merge fields", func(t *testing.T) {
		r := upsert("PATCH", []any{"Name", "Priority", "Status", "Due"}, rec(map[string]any{"Name": "x"}))
		mustStatus(t, r, 422)
		if errType(r) != "INVALID_REQUEST_UNKNOWN" {
			t.Fatal(r.raw)
		}
	})
	t.Run("returnFieldsByFieldId on a create, an update and a get", func(t *testing.T) {
		r := do(t, s, DefaultToken, "POST", path, map[string]any{"returnFieldsByFieldId": true, "fields": map[string]any{"Name": "by id"}})
		mustStatus(t, r, 200)
		id := r.body["id"].(string)
		if fieldsOf(r.body)["fldNAME0000000001"] != "by id" {
			t.Fatalf("create: %s", r.raw)
		}
		r = do(t, s, DefaultToken, "PATCH", path, map[string]any{"returnFieldsByFieldId": true, "records": []any{map[string]any{"id": id, "fields": map[string]any{"Priority": 1}}}})
		if fieldsOf(records(t, r)[0])["fldNAME0000000001"] != "by id" {
			t.Fatalf("update: %s", r.raw)
		}
		r = do(t, s, DefaultToken, "GET", path+"/"+id+"?returnFieldsByFieldId=1", nil)
		if fieldsOf(r.body)["fldNAME0000000001"] != "by id" {
			t.Fatalf("get: %s", r.raw)
		}
	})
}

// TestAccessCheckedBeforePayload: a request to a table the token cannot reach gets the not-found
// answer even when its body or parameters are also wrong (README "order of checks").
func TestAccessCheckedBeforePayload(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	tests := []struct {
		method, path string
		body         any
	}{
		{"POST", testBase + "/Nope", "{not json"},
		{"POST", testBase + "/Nope", map[string]any{"records": make11()}},
		{"PATCH", testBase + "/Nope", map[string]any{"records": make11()}},
		{"PATCH", testBase + "/Nope/recTASK0000000001", "{not json"},
		{"DELETE", testBase + "/Nope?" + strings.Repeat("records%5B%5D=recTASK0000000001&", 11), nil},
		{"GET", testBase + "/Nope?pageSize=500", nil},
		{"POST", testBase + "/Nope/listRecords", "{not json"},
		{"GET", testBase + "/Nope/recTASK0000000001?cellFormat=xml", nil},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r := do(t, s, DefaultToken, tc.method, tc.path, tc.body)
			mustStatus(t, r, 403)
			if errType(r) != "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND" {
				t.Fatal(r.raw)
			}
		})
	}
}

// TestLastModifiedTimeOfFields: LAST_MODIFIED_TIME({Field}) in a filter reads when that field's
// value last changed (formula.FieldModifiedTimer), not the record's last change, and a restart
// from the data file keeps it.
func TestLastModifiedTimeOfFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.log")
	fc := clock.NewFake(t0)
	open := func() *Server {
		s, err := New(WithFixture(smallFixture(t)), WithClock(fc), WithRate(0, 0), WithTokenRate(0), WithDataFile(path))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	s := open()
	patch := func(id string, fields map[string]any) {
		t.Helper()
		mustStatus(t, do(t, s, DefaultToken, "PATCH", testBase+"/Tasks/"+id, map[string]any{"fields": fields}), 200)
	}
	fc.Advance(time.Hour)
	patch("recTASK0000000001", map[string]any{"Priority": 4})                // a change
	patch("recTASK0000000002", map[string]any{"Priority": 1, "Name": "Rev"}) // Priority unchanged, Name changed
	fc.Advance(time.Hour)
	patch("recTASK0000000003", map[string]any{"Name": "Ship it"})

	cutoff := url.QueryEscape(fmt.Sprintf("IS_AFTER(LAST_MODIFIED_TIME({Priority}), '%s')", t0.Add(time.Minute).Format(time.RFC3339)))
	query := func(s *Server, formula string) string {
		t.Helper()
		r := do(t, s, DefaultToken, "GET", testBase+"/Tasks?filterByFormula="+formula, nil)
		mustStatus(t, r, 200)
		return fmt.Sprint(names(t, r))
	}
	if got := query(s, cutoff); got != "[Write spec]" { // only its Priority changed after t0
		t.Fatalf("Priority changed after t0: %s", got)
	}
	nameLater := url.QueryEscape("IS_AFTER(LAST_MODIFIED_TIME({Name}), LAST_MODIFIED_TIME({Priority}))")
	if got := query(s, nameLater); got != "[Rev Ship it]" {
		t.Fatalf("Name changed after Priority: %s", got)
	}
	s.Close()
	s2 := open()
	if got := query(s2, cutoff); got != "[Write spec]" {
		t.Fatalf("after a restart: %s", got)
	}
}

// TestLastModifiedTimeWatchingFields: a lastModifiedTime field with referencedFieldIds is the last
// change of one of those fields, not of the record.
func TestLastModifiedTimeWatchingFields(t *testing.T) {
	f := smallFixture(t)
	tasks := &f.Bases[0].Tables[1]
	tasks.Fields = append(tasks.Fields, FixtureField{Name: "Priority Changed", Type: "lastModifiedTime",
		Options: map[string]any{"referencedFieldIds": []any{"Priority"}}})
	s, fc := newTestServer(t, WithFixture(f))
	get := func(id string) any {
		t.Helper()
		r := do(t, s, DefaultToken, "GET", testBase+"/Tasks/"+id, nil)
		mustStatus(t, r, 200)
		return fieldsOf(r.body)["Priority Changed"]
	}
	created := get("recTASK0000000001") // its Priority has been there since the fixture made it
	fc.Advance(time.Hour)
	mustStatus(t, do(t, s, DefaultToken, "PATCH", testBase+"/Tasks/recTASK0000000001", map[string]any{"fields": map[string]any{"Name": "renamed"}}), 200)
	if got := get("recTASK0000000001"); got != created {
		t.Fatalf("after a change of another field: %v, want %v", got, created)
	}
	fc.Advance(time.Hour)
	mustStatus(t, do(t, s, DefaultToken, "PATCH", testBase+"/Tasks/recTASK0000000001", map[string]any{"fields": map[string]any{"Priority": 9}}), 200)
	if got, want := get("recTASK0000000001"), formatTime(t0.Add(2*time.Hour)); got != want {
		t.Fatalf("after a change of Priority: %v, want %v", got, want)
	}
	r := do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Name": "no priority"}})
	mustStatus(t, r, 200)
	if v, has := fieldsOf(r.body)["Priority Changed"]; has {
		t.Fatalf("a record whose Priority never had a value: %v", v)
	}
	bad := smallFixture(t)
	bad.Bases[0].Tables[1].Fields = append(bad.Bases[0].Tables[1].Fields, FixtureField{Name: "W", Type: "lastModifiedTime",
		Options: map[string]any{"referencedFieldIds": []any{"Nope"}}})
	if _, err := New(WithFixture(bad)); err == nil || !strings.Contains(err.Error(), "Nope") {
		t.Fatalf("unknown watched field: %v", err)
	}
}

// TestAttachmentObjects: new attachments by url, existing ones kept by id, and the recorded
// INVALID_ATTACHMENT_OBJECT body for an id that is no attachment (SYB 2017).
func TestAttachmentObjects(t *testing.T) {
	f, err := ParseFixture([]byte(allTypesFixture))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newTestServer(t, WithFixture(f))
	const path = "/v0/appTYPES000000001/Types"
	r := do(t, s, DefaultToken, "POST", path, map[string]any{"fields": map[string]any{"Files": []any{
		map[string]any{"url": "https://x.y/a.png"}, map[string]any{"url": "https://x.y/b.pdf", "filename": "report.pdf"}}}})
	mustStatus(t, r, 200)
	files := fieldsOf(r.body)["Files"].([]any)
	first := files[0].(map[string]any)
	// Keep the first by id, add a third by url.
	r = do(t, s, DefaultToken, "PATCH", path+"/"+r.body["id"].(string), map[string]any{"fields": map[string]any{"Files": []any{
		map[string]any{"id": first["id"]}, map[string]any{"url": "https://x.y/c.txt"}}}})
	mustStatus(t, r, 200)
	got := fieldsOf(r.body)["Files"].([]any)
	if len(got) != 2 || fmt.Sprint(got[0]) != fmt.Sprint(first) || got[1].(map[string]any)["filename"] != "c.txt" {
		t.Fatalf("after keeping one and adding one: %v", got)
	}
	r = do(t, s, DefaultToken, "POST", path, map[string]any{"fields": map[string]any{"Files": []any{
		map[string]any{"id": "1", "url": "https://x.y/<a>.png"}}}})
	mustStatus(t, r, 422)
	assertSameJSON(t, r.raw, `{"error":{"type":"INVALID_ATTACHMENT_OBJECT","message":"Invalid attachment object for field Files: {\n  \"id\": \"1\",\n  \"url\": \"https://x.y/<a>.png\"\n}"}}`)
}
