package emulator

import (
	"fmt"
	"strings"
	"testing"
)

func TestBaseSchema(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	r := do(t, s, DefaultToken, "GET", "/v0/meta/bases/appTEST0000000001/tables?include%5B%5D=visibleFieldIds", nil)
	mustStatus(t, r, 200)
	tables := r.body["tables"].([]any)
	if len(tables) != 2 {
		t.Fatalf("%d tables", len(tables))
	}
	tasks := tables[1].(map[string]any)
	if tasks["id"] != "tblTASKS000000001" || tasks["primaryFieldId"] != "fldNAME0000000001" {
		t.Fatalf("tasks %v", tasks)
	}
	var score, owner, status map[string]any
	for _, f := range tasks["fields"].([]any) {
		m := f.(map[string]any)
		switch m["name"] {
		case "Score":
			score = m
		case "Owner":
			owner = m
		case "Status":
			status = m
		}
	}
	prio := derivedID("fld", "tblTASKS000000001/Priority")
	opts := score["options"].(map[string]any)
	if opts["formula"] != "{"+prio+"} * 2" || opts["isValid"] != true || fmt.Sprint(opts["referencedFieldIds"]) != "["+prio+"]" ||
		fmt.Sprint(opts["result"]) != "map[type:number]" { // result inferred: the fixture gives none

		t.Fatalf("formula options %v", opts)
	}
	lo := owner["options"].(map[string]any)
	if lo["linkedTableId"] != "tblPEOPLE00000001" || lo["isReversed"] != false || lo["prefersSingleRecordLink"] != false {
		t.Fatalf("link options %v", lo)
	}
	ch := status["options"].(map[string]any)["choices"].([]any)[0].(map[string]any)
	if !isID(ch["id"].(string), "sel") || ch["name"] != "Todo" || ch["color"] == "" {
		t.Fatalf("choice %v", ch)
	}
	view := tasks["views"].([]any)[0].(map[string]any)
	if view["name"] != "Open" || len(view["visibleFieldIds"].([]any)) != 10 {
		t.Fatalf("view %v", view)
	}
	r = do(t, s, DefaultToken, "GET", "/v0/meta/bases/appTEST0000000001/tables", nil)
	if strings.Contains(r.raw, "visibleFieldIds") {
		t.Fatal("visibleFieldIds without include[]")
	}
}

func TestWhoami(t *testing.T) {
	s, _ := newTestServer(t, WithDemo())
	r := do(t, s, DemoToken, "GET", "/v0/meta/whoami", nil)
	mustStatus(t, r, 200)
	assertSameJSON(t, r.raw, `{"id":"usrDEMOADA0000001","scopes":["data.records:read","data.records:write","schema.bases:read","webhook:manage"]}`)
}

func TestListBasesPaging(t *testing.T) {
	f := &Fixture{}
	for i := range 1005 {
		f.Bases = append(f.Bases, FixtureBase{Name: fmt.Sprintf("base %04d", i), Tables: []FixtureTable{{Name: "T", Fields: []FixtureField{{Name: "Name", Type: "singleLineText"}}}}})
	}
	s, _ := newTestServer(t, WithFixture(f))
	r := do(t, s, DefaultToken, "GET", "/v0/meta/bases", nil)
	mustStatus(t, r, 200)
	if n := len(r.body["bases"].([]any)); n != 1000 {
		t.Fatalf("first page has %d bases", n)
	}
	off := r.body["offset"].(string)
	r = do(t, s, DefaultToken, "GET", "/v0/meta/bases?offset="+strings.ReplaceAll(off, "/", "%2F"), nil)
	mustStatus(t, r, 200)
	if n := len(r.body["bases"].([]any)); n != 5 || r.body["offset"] != nil {
		t.Fatalf("second page: %s", r.raw)
	}
	if r.body["bases"].([]any)[4].(map[string]any)["name"] != "base 1004" {
		t.Fatalf("order: %s", r.raw)
	}
	mustStatus(t, do(t, s, DefaultToken, "GET", "/v0/meta/bases?offset=itrBASES000000000%2FappNOPE", nil), 422)
}

func TestFixtureErrors(t *testing.T) {
	tests := []struct{ name, json, want string }{
		{"unknown key", `{"bases":[],"tables":[]}`, "unknown field"},
		{"bad type", `{"bases":[{"name":"b","tables":[{"name":"t","fields":[{"name":"a","type":"nope"}]}]}]}`, `unknown type "nope"`},
		{"duplicate field", `{"bases":[{"name":"b","tables":[{"name":"t","fields":[{"name":"a","type":"number"},{"name":"a","type":"number"}]}]}]}`, "defined twice"},
		{"bad link", `{"bases":[{"name":"b","tables":[{"name":"t","fields":[{"name":"a","type":"multipleRecordLinks","options":{"linkedTableId":"zz"}}]}]}]}`, `linkedTableId "zz"`},
		{"bad value", `{"bases":[{"name":"b","tables":[{"name":"t","fields":[{"name":"a","type":"number"}],"records":[{"fields":{"a":"x"}}]}]}]}`, `cannot accept`},
		{"bad id", `{"bases":[{"id":"appSHORT","name":"b","tables":[]}]}`, `"app" + 14`},
		{"bad scope", `{"tokens":[{"token":"t","scopes":["nope"]}],"bases":[]}`, `unknown scope "nope"`},
		{"bad formula field", `{"bases":[{"name":"b","tables":[{"name":"t","fields":[{"name":"a","type":"formula","options":{"formula":"{nope} + 1"}}]}]}]}`, `formula field "a"`},
		{"bad view filter", `{"bases":[{"name":"b","tables":[{"name":"t","fields":[{"name":"a","type":"number"}],"views":[{"name":"v","filterByFormula":"{a} >"}]}]}]}`, `view "v"`},
		{"bad rollup", `{"bases":[{"name":"b","tables":[{"name":"t","fields":[{"name":"l","type":"multipleRecordLinks","options":{"linkedTableId":"t"}},{"name":"r","type":"rollup","options":{"recordLinkFieldId":"l","fieldIdInLinkedTable":"l","formula":"MEDIAN(values)"}}]}]}]}`, "MEDIAN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseFixture([]byte(tc.json))
			if err == nil {
				_, err = New(WithFixture(f))
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one containing %q", err, tc.want)
			}
		})
	}
	// The same fixture twice is refused (its views and records exist), and nothing changes.
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	before := listAll(t, s)
	if err := s.LoadFixture(smallFixture(t)); err == nil || !strings.Contains(err.Error(), "already has a view") {
		t.Fatalf("err %v", err)
	}
	if after := listAll(t, s); after != before {
		t.Fatal("a refused fixture changed the data")
	}
}

func TestDerivedIDsAreStable(t *testing.T) {
	if a, b := derivedID("tbl", "x/y"), derivedID("tbl", "x/y"); a != b || !isID(a, "tbl") {
		t.Fatalf("%s %s", a, b)
	}
	if derivedID("tbl", "x/y") == derivedID("tbl", "x/z") {
		t.Fatal("different keys, same id")
	}
}

func TestLoadFixtureAddsToALoadedBase(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	// Write through the API first, so that the merge must keep autoNumber and lastModified.
	r := do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"typecast": true, "fields": map[string]any{"Name": "api", "Status": "Added"}})
	mustStatus(t, r, 200)
	apiID := r.body["id"].(string)
	add, err := ParseFixture([]byte(`{"bases":[{"id":"appTEST0000000001","tables":[
	  {"name":"Tasks","fields":[{"name":"Priority","type":"number"}],
	   "views":[{"name":"Urgent","filterByFormula":"{Priority} >= 5"}],
	   "records":[{"fields":{"Name":"from fixture","Priority":7,"Owner":["recPERSON00000001"]}}]},
	  {"name":"Notes","fields":[{"name":"Text","type":"multilineText"},{"name":"Task","type":"multipleRecordLinks","options":{"linkedTableId":"Tasks"}}],
	   "records":[{"fields":{"Text":"about spec","Task":["recTASK0000000001"]}}]},
	  {"name":"People","records":[{"id":"recPERSON00000001","fields":{"Name":"Pat"}}]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.LoadFixture(add); err != nil {
		t.Fatal(err)
	}
	r = do(t, s, DefaultToken, "GET", testBase+"/Tasks?view=Urgent", nil)
	if got := fmt.Sprint(names(t, r)); got != "[Ship from fixture]" {
		t.Fatalf("new view lists %s", got)
	}
	f := fieldsOf(records(t, r)[1])
	if f["Num"] != 5.0 || fmt.Sprint(f["Owner"]) != "[recPERSON00000001]" {
		t.Fatalf("added record: %v", f)
	}
	got := fieldsOf(do(t, s, DefaultToken, "GET", testBase+"/Tasks/"+apiID, nil).body)
	if got["Num"] != 4.0 || got["Status"] != "Added" {
		t.Fatalf("record written before the merge: %v", got)
	}
	note := records(t, do(t, s, DefaultToken, "GET", testBase+"/Notes", nil))[0]
	if fmt.Sprint(fieldsOf(note)["Task"]) != "[recTASK0000000001]" {
		t.Fatalf("new table: %v", note)
	}
	twice, _ := ParseFixture([]byte(`{"bases":[{"id":"appTEST0000000001","tables":[{"name":"X","fields":[{"name":"A","type":"number"}]},{"name":"X","fields":[{"name":"A","type":"number"}]}]}]}`))
	if err := s.LoadFixture(twice); err == nil || !strings.Contains(err.Error(), "defined twice") {
		t.Fatalf("a new table twice: err %v", err)
	}
	bad, _ := ParseFixture([]byte(`{"bases":[{"id":"appTEST0000000001","tables":[{"name":"Tasks","fields":[{"name":"New","type":"number"}]}]}]}`))
	if err := s.LoadFixture(bad); err == nil || !strings.Contains(err.Error(), "not change or add field") {
		t.Fatalf("adding a field: err %v", err)
	}
}
