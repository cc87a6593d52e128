package emulator

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

const hooksPath = "/v0/bases/appTEST0000000001/webhooks"

// createHook creates a webhook on the test base with the given options and returns its id.
func createHook(t *testing.T, s *Server, options map[string]any, notificationURL string) (id, secret string) {
	t.Helper()
	body := map[string]any{"specification": map[string]any{"options": options}}
	if notificationURL != "" {
		body["notificationUrl"] = notificationURL
	}
	r := do(t, s, DefaultToken, "POST", hooksPath, body)
	mustStatus(t, r, 200)
	id, _ = r.body["id"].(string)
	secret, _ = r.body["macSecretBase64"].(string)
	return id, secret
}

// payloadsPage is one answer of list payloads.
type payloadsPage struct {
	Payloads      []map[string]any `json:"payloads"`
	Cursor        int              `json:"cursor"`
	MightHaveMore bool             `json:"mightHaveMore"`
	PayloadFormat string           `json:"payloadFormat"`
}

func listPayloads(t *testing.T, s *Server, hook string, query string) payloadsPage {
	t.Helper()
	r := do(t, s, DefaultToken, "GET", hooksPath+"/"+hook+"/payloads"+query, nil)
	mustStatus(t, r, 200)
	var p payloadsPage
	if err := json.Unmarshal([]byte(r.raw), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// dig follows keys through nested JSON objects.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

func TestWebhookCreateAndList(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	r := do(t, s, DefaultToken, "POST", hooksPath, map[string]any{"specification": map[string]any{"options": map[string]any{
		"filters": map[string]any{"dataTypes": []string{"tableData"}, "recordChangeScope": "tblTASKS000000001"}}}})
	mustStatus(t, r, 200)
	if !strings.HasPrefix(r.raw, `{"id":"ach`) || !strings.Contains(r.raw, `,"macSecretBase64":"`) || !strings.HasSuffix(r.raw, `","expirationTime":"2025-03-08T12:00:00.000Z"}`) {
		t.Fatalf("create answer (keys id, macSecretBase64, expirationTime = now + 7 days): %s", r.raw)
	}
	if got := len(r.body["macSecretBase64"].(string)); got != 172 {
		t.Errorf("macSecretBase64 has %d characters, want 172 (128 bytes)", got)
	}
	list := do(t, s, DefaultToken, "GET", hooksPath, nil)
	mustStatus(t, list, 200)
	want := fmt.Sprintf(`{"webhooks":[{"id":%q,"specification":{"options":{"filters":{"dataTypes":["tableData"],"recordChangeScope":"tblTASKS000000001"}}},"notificationUrl":null,"cursorForNextPayload":1,"lastNotificationResult":null,"areNotificationsEnabled":false,"lastSuccessfulNotificationTime":null,"isHookEnabled":true,"expirationTime":"2025-03-08T12:00:00.000Z"}]}`, r.body["id"])
	if list.raw != want {
		t.Fatalf("list webhooks:\n got %s\nwant %s", list.raw, want)
	}
	mustStatus(t, do(t, s, DefaultToken, "DELETE", hooksPath+"/"+r.body["id"].(string), nil), 200)
	if got := do(t, s, DefaultToken, "GET", hooksPath, nil).raw; got != `{"webhooks":[]}` {
		t.Fatalf("after delete: %s", got)
	}
	if got := do(t, s, DefaultToken, "DELETE", hooksPath+"/"+r.body["id"].(string), nil); got.status != 404 || errType(got) != "NOT_FOUND" {
		t.Fatalf("delete of a deleted hook: %d %s", got.status, got.raw)
	}
}

func TestWebhookCreateErrors(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	spec := func(filters string) string { return `{"specification":{"options":{"filters":` + filters + `}}}` }
	cases := []struct {
		name, body string
		status     int
		typ        string
	}{
		{"no specification", `{}`, 422, "INVALID_REQUEST_UNKNOWN"},
		{"no dataTypes", spec(`{}`), 422, "INVALID_REQUEST_UNKNOWN"},
		{"unknown dataType", spec(`{"dataTypes":["tableRows"]}`), 422, "INVALID_REQUEST_UNKNOWN"},
		{"unknown changeType", spec(`{"dataTypes":["tableData"],"changeTypes":["edit"]}`), 422, "INVALID_REQUEST_UNKNOWN"},
		{"unknown source", spec(`{"dataTypes":["tableData"],"fromSources":["email"]}`), 422, "INVALID_REQUEST_UNKNOWN"},
		{"unknown filter key", spec(`{"dataTypes":["tableData"],"tables":["x"]}`), 422, "INVALID_REQUEST_UNKNOWN"},
		{"key in another case", spec(`{"DataTypes":["tableData"]}`), 422, "INVALID_REQUEST_UNKNOWN"},
		{"filters not an object", spec(`[]`), 422, "INVALID_REQUEST_UNKNOWN"},
		{"scope not a table", spec(`{"dataTypes":["tableData"],"recordChangeScope":"tblNOPE0000000001"}`), 422, "INVALID_REQUEST_UNKNOWN"},
		{"unknown view scope", spec(`{"dataTypes":["tableData"],"recordChangeScope":"viwNOPE0000000001"}`), 422, "INVALID_REQUEST_UNKNOWN"},
		{"watched field unknown", spec(`{"dataTypes":["tableData"],"watchDataInFieldIds":["fldNOPE0000000001"]}`), 422, "INVALID_REQUEST_UNKNOWN"},
		{"bad includes", `{"specification":{"options":{"filters":{"dataTypes":["tableData"]},"includes":{"includeCellValuesInFieldIds":"some"}}}}`, 422, "INVALID_REQUEST_UNKNOWN"},
		{"bad notificationUrl", `{"notificationUrl":"ftp://x","specification":{"options":{"filters":{"dataTypes":["tableData"]}}}}`, 422, "INVALID_REQUEST_UNKNOWN"},
		{"unknown body key", `{"url":"x","specification":{"options":{"filters":{"dataTypes":["tableData"]}}}}`, 422, "INVALID_REQUEST_UNKNOWN"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, s, DefaultToken, "POST", hooksPath, c.body)
			if r.status != c.status || errType(r) != c.typ {
				t.Fatalf("got %d %s, want %d %s", r.status, r.raw, c.status, c.typ)
			}
		})
	}
	ok := spec(`{"dataTypes":["tableData"]}`)
	for i := range MaxWebhooksPerBase {
		mustStatus(t, do(t, s, DefaultToken, "POST", hooksPath, ok), 200)
		_ = i
	}
	if r := do(t, s, DefaultToken, "POST", hooksPath, ok); r.status != 422 || errType(r) != "TOO_MANY_WEBHOOKS_IN_BASE" {
		t.Fatalf("11th webhook: got %d %s, want 422 TOO_MANY_WEBHOOKS_IN_BASE", r.status, r.raw)
	}
}

func TestWebhookScopes(t *testing.T) {
	f := smallFixture(t)
	f.Tokens = []FixtureToken{
		{Token: "patNOHOOK", Bases: []string{"appTEST0000000001"}, Scopes: []string{scopeRecordsRead, scopeSchemaRead}},
		{Token: "patHOOKONLY", Bases: []string{"appTEST0000000001"}, Scopes: []string{scopeWebhookManage}},
		{Token: "patHOOKDATA", Bases: []string{"appTEST0000000001"}, Scopes: []string{scopeWebhookManage, scopeRecordsRead}},
	}
	s, _ := newTestServer(t, WithFixture(f))
	data := `{"specification":{"options":{"filters":{"dataTypes":["tableData"]}}}}`
	fields := `{"specification":{"options":{"filters":{"dataTypes":["tableFields"]}}}}`
	cases := []struct {
		tok, method, body string
		want              int
	}{
		{"patNOHOOK", "GET", "", 403},
		{"patNOHOOK", "POST", data, 403},
		{"patHOOKONLY", "GET", "", 200},
		{"patHOOKONLY", "POST", data, 403},   // tableData needs data.records:read
		{"patHOOKDATA", "POST", fields, 403}, // tableFields needs schema.bases:read
		{"patHOOKDATA", "POST", data, 200},
	}
	for _, c := range cases {
		t.Run(c.tok+" "+c.method, func(t *testing.T) {
			var body any
			if c.body != "" {
				body = c.body
			}
			r := do(t, s, c.tok, c.method, hooksPath, body)
			if r.status != c.want {
				t.Fatalf("got %d %s, want %d", r.status, r.raw, c.want)
			}
		})
	}
}

// The demo token manages webhooks of the demo base.
func TestWebhookDemoToken(t *testing.T) {
	s, _ := newTestServer(t, WithDemo())
	r := do(t, s, DemoToken, "POST", "/v0/bases/"+DemoBaseID+"/webhooks", `{"specification":{"options":{"filters":{"dataTypes":["tableData","tableFields","tableMetadata"]}}}}`)
	mustStatus(t, r, 200)
}

// One request is one payload, whatever it changes; payloads carry the records' cells by field id
// in the webhook forms; cursors count payloads, baseTransactionNumber counts the base's writes.
func TestWebhookRecordPayloads(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	hook, _ := createHook(t, s, map[string]any{
		"filters":  map[string]any{"dataTypes": []string{"tableData"}, "recordChangeScope": "tblTASKS000000001"},
		"includes": map[string]any{"includePreviousCellValues": true},
	}, "")
	schema := do(t, s, DefaultToken, "GET", metaBase+"/tables", nil)
	priority, status := fieldID(t, schema, "tblTASKS000000001", "Priority"), fieldID(t, schema, "tblTASKS000000001", "Status")
	score := fieldID(t, schema, "tblTASKS000000001", "Score")

	created := do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"records": []any{
		map[string]any{"fields": map[string]any{"Name": "A", "Priority": 2}},
		map[string]any{"fields": map[string]any{"Name": "B", "Status": "Done"}},
	}})
	mustStatus(t, created, 200)
	// A write to another table is no payload of this hook.
	mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/People", map[string]any{"fields": map[string]any{"Name": "Ann"}}), 200)
	mustStatus(t, do(t, s, DefaultToken, "PATCH", testBase+"/Tasks/recTASK0000000001", map[string]any{"fields": map[string]any{"Priority": 4, "Status": nil}}), 200)
	mustStatus(t, do(t, s, DefaultToken, "DELETE", testBase+"/Tasks?records[]=recTASK0000000002&records[]=recTASK0000000003", nil), 200)

	p := listPayloads(t, s, hook, "")
	if len(p.Payloads) != 3 || p.Cursor != 4 || p.MightHaveMore || p.PayloadFormat != "v0" {
		t.Fatalf("got %d payloads, cursor %d, mightHaveMore %v, format %q; want 3, 4, false, v0", len(p.Payloads), p.Cursor, p.MightHaveMore, p.PayloadFormat)
	}
	txns := []float64{}
	for _, pl := range p.Payloads {
		txns = append(txns, pl["baseTransactionNumber"].(float64))
		if got := dig(pl, "actionMetadata", "source"); got != "publicApi" {
			t.Errorf("source %v, want publicApi", got)
		}
	}
	if !(txns[0] < txns[1]-1 && txns[1] < txns[2]) { // the People write took a transaction too
		t.Errorf("baseTransactionNumbers %v: want increasing, with a gap for the other table's write", txns)
	}
	recs := dig(p.Payloads[0], "changedTablesById", "tblTASKS000000001", "createdRecordsById").(map[string]any)
	if len(recs) != 2 {
		t.Fatalf("created records: %v", recs)
	}
	for _, rec := range created.body["records"].([]any) {
		id := rec.(map[string]any)["id"].(string)
		cells := dig(recs[id], "cellValuesByFieldId").(map[string]any)
		if rec.(map[string]any)["fields"].(map[string]any)["Name"] == "B" {
			sel, _ := cells[status].(map[string]any)
			if sel["name"] != "Done" || !strings.HasPrefix(sel["id"].(string), "sel") {
				t.Errorf("single select in a payload: got %v, want {id, name: Done, color}", cells[status])
			}
		} else if cells[priority] != 2.0 || cells[score] != 4.0 {
			t.Errorf("cells of A: %v (want Priority 2 and the formula Score 4)", cells)
		}
	}
	changed := dig(p.Payloads[1], "changedTablesById", "tblTASKS000000001", "changedRecordsById", "recTASK0000000001").(map[string]any)
	cur := dig(changed, "current", "cellValuesByFieldId").(map[string]any)
	prev := dig(changed, "previous", "cellValuesByFieldId").(map[string]any)
	if cur[priority] != 4.0 || cur[score] != 8.0 || cur[status] != nil || prev[priority] != 3.0 || prev[score] != 6.0 {
		t.Errorf("changed record: current %v previous %v", cur, prev)
	}
	if v, present := cur[status]; !present || v != nil {
		t.Errorf("a cleared cell is null in current: got %v (present %v)", v, present)
	}
	if got := dig(p.Payloads[2], "changedTablesById", "tblTASKS000000001", "destroyedRecordIds"); !reflect.DeepEqual(got, []any{"recTASK0000000002", "recTASK0000000003"}) {
		t.Errorf("destroyed: %v", got)
	}
	// Cursor and limit.
	page := listPayloads(t, s, hook, "?cursor=2&limit=1")
	if len(page.Payloads) != 1 || page.Cursor != 3 || !page.MightHaveMore {
		t.Errorf("cursor=2&limit=1: %d payloads, cursor %d, more %v; want 1, 3, true", len(page.Payloads), page.Cursor, page.MightHaveMore)
	}
	if page := listPayloads(t, s, hook, "?cursor=9"); len(page.Payloads) != 0 || page.Cursor != 9 || page.MightHaveMore {
		t.Errorf("cursor past the end: %+v, want no payloads and the cursor echoed", page)
	}
	for _, q := range []string{"?cursor=0", "?limit=0", "?cursor=x"} {
		if r := do(t, s, DefaultToken, "GET", hooksPath+"/"+hook+"/payloads"+q, nil); r.status != 422 {
			t.Errorf("%s: got %d, want 422", q, r.status)
		}
	}
}

// Filters and includes: change types, watched fields, unchanged values.
func TestWebhookFilters(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	schema := do(t, s, DefaultToken, "GET", metaBase+"/tables", nil)
	name, priority := fieldID(t, schema, "tblTASKS000000001", "Name"), fieldID(t, schema, "tblTASKS000000001", "Priority")
	onlyAdds, _ := createHook(t, s, map[string]any{"filters": map[string]any{"dataTypes": []string{"tableData"}, "changeTypes": []string{"add"}}}, "")
	watchName, _ := createHook(t, s, map[string]any{
		"filters":  map[string]any{"dataTypes": []string{"tableData"}, "watchDataInFieldIds": []string{name}},
		"includes": map[string]any{"includeCellValuesInFieldIds": []string{priority}},
	}, "")
	onlyUI, _ := createHook(t, s, map[string]any{"filters": map[string]any{"dataTypes": []string{"tableData"}, "fromSources": []string{"client"}}}, "")

	mustStatus(t, do(t, s, DefaultToken, "PATCH", testBase+"/Tasks/recTASK0000000001", map[string]any{"fields": map[string]any{"Priority": 9}}), 200)
	mustStatus(t, do(t, s, DefaultToken, "PATCH", testBase+"/Tasks/recTASK0000000001", map[string]any{"fields": map[string]any{"Name": "Renamed"}}), 200)
	mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Name": "New"}}), 200)

	if p := listPayloads(t, s, onlyAdds, ""); len(p.Payloads) != 1 || dig(p.Payloads[0], "changedTablesById", "tblTASKS000000001", "createdRecordsById") == nil {
		t.Errorf("changeTypes [add]: got %v", p.Payloads)
	}
	p := listPayloads(t, s, watchName, "")
	if len(p.Payloads) != 2 { // the rename and the create; not the Priority change
		t.Fatalf("watchDataInFieldIds: got %d payloads, want 2: %v", len(p.Payloads), p.Payloads)
	}
	rec := dig(p.Payloads[0], "changedTablesById", "tblTASKS000000001", "changedRecordsById", "recTASK0000000001")
	if got := dig(rec, "current", "cellValuesByFieldId"); !reflect.DeepEqual(got, map[string]any{name: "Renamed"}) {
		t.Errorf("watched current: %v", got)
	}
	if got := dig(rec, "unchanged", "cellValuesByFieldId"); !reflect.DeepEqual(got, map[string]any{priority: 9.0}) {
		t.Errorf("unchanged (includeCellValuesInFieldIds): %v", got)
	}
	if dig(rec, "previous") != nil {
		t.Errorf("previous without includePreviousCellValues: %v", rec)
	}
	if p := listPayloads(t, s, onlyUI, ""); len(p.Payloads) != 0 {
		t.Errorf("fromSources [client] got API changes: %v", p.Payloads)
	}
}

// Schema changes: fields and tables created, changed and destroyed; an error payload when a
// watched field goes, after which the hook is disabled for good.
func TestWebhookSchemaPayloads(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	all, _ := createHook(t, s, map[string]any{
		"filters":  map[string]any{"dataTypes": []string{"tableData", "tableFields", "tableMetadata"}},
		"includes": map[string]any{"includePreviousFieldDefinitions": true},
	}, "")
	created := do(t, s, DefaultToken, "POST", metaBase+"/tables/tblTASKS000000001/fields", map[string]any{"name": "Notes", "type": "multilineText"})
	mustStatus(t, created, 200)
	notes := created.body["id"].(string)
	watchNotes, _ := createHook(t, s, map[string]any{"filters": map[string]any{"dataTypes": []string{"tableData"}, "watchDataInFieldIds": []string{notes}}}, "")
	mustStatus(t, do(t, s, DefaultToken, "PATCH", metaBase+"/tables/tblTASKS000000001/fields/"+notes, map[string]any{"name": "Remarks"}), 200)
	mustStatus(t, do(t, s, DefaultToken, "PATCH", metaBase+"/tables/tblTASKS000000001", map[string]any{"name": "Jobs", "description": "d"}), 200)
	if err := s.DeleteField("appTEST0000000001", "tblTASKS000000001", notes); err != nil {
		t.Fatal(err)
	}
	tbl := do(t, s, DefaultToken, "POST", metaBase+"/tables", map[string]any{"name": "Extra", "fields": []any{map[string]any{"name": "Title", "type": "singleLineText"}}})
	mustStatus(t, tbl, 200)
	extra := tbl.body["id"].(string)
	if err := s.DeleteTable("appTEST0000000001", extra); err != nil {
		t.Fatal(err)
	}

	p := listPayloads(t, s, all, "")
	if len(p.Payloads) != 6 {
		t.Fatalf("got %d payloads, want 6: %v", len(p.Payloads), p.Payloads)
	}
	want := []struct {
		path []string
		want any
	}{
		{[]string{"changedTablesById", "tblTASKS000000001", "createdFieldsById", notes}, map[string]any{"type": "multilineText", "name": "Notes"}},
		{[]string{"changedTablesById", "tblTASKS000000001", "changedFieldsById", notes}, map[string]any{"current": map[string]any{"name": "Remarks"}, "previous": map[string]any{"name": "Notes"}}},
		{[]string{"changedTablesById", "tblTASKS000000001", "changedMetadata"}, map[string]any{"current": map[string]any{"name": "Jobs", "description": "d"}, "previous": map[string]any{"name": "Tasks", "description": ""}}},
		{[]string{"changedTablesById", "tblTASKS000000001", "destroyedFieldIds"}, []any{notes}},
		{[]string{"createdTablesById", extra, "metadata"}, map[string]any{"name": "Extra", "description": nil}},
		{[]string{"destroyedTableIds"}, []any{extra}},
	}
	for i, w := range want {
		if got := dig(p.Payloads[i], w.path...); !reflect.DeepEqual(got, w.want) {
			t.Errorf("payload %d at %v: got %v, want %v", i+1, w.path, got, w.want)
		}
	}
	if got := dig(p.Payloads[3], "actionMetadata", "source"); got != "client" {
		t.Errorf("a field deleted in the interface: source %v, want client", got)
	}
	// The hook that watched the deleted field got an error payload and is disabled.
	wp := listPayloads(t, s, watchNotes, "")
	last := wp.Payloads[len(wp.Payloads)-1]
	if last["error"] != true || last["code"] != "INVALID_FILTERS" {
		t.Fatalf("watched field deleted: last payload %v, want error INVALID_FILTERS", last)
	}
	list := do(t, s, DefaultToken, "GET", hooksPath, nil)
	for _, h := range list.body["webhooks"].([]any) {
		if h.(map[string]any)["id"] == watchNotes && h.(map[string]any)["isHookEnabled"] != false {
			t.Errorf("hook after its error payload: %v, want isHookEnabled false", h)
		}
	}
	mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/Jobs", map[string]any{"fields": map[string]any{"Name": "after"}}), 200)
	if again := listPayloads(t, s, watchNotes, ""); len(again.Payloads) != len(wp.Payloads) {
		t.Errorf("a disabled hook got %d more payloads", len(again.Payloads)-len(wp.Payloads))
	}
}

// Expiry and retention on the server's clock: a hook lives 7 days from creation, refresh or a
// payload listing; payloads are kept 7 days; a cursor below the oldest kept payload shows the gap.
func TestWebhookExpiryAndRetention(t *testing.T) {
	s, fc := newTestServer(t, WithFixture(smallFixture(t)))
	hook, _ := createHook(t, s, map[string]any{"filters": map[string]any{"dataTypes": []string{"tableData"}}}, "")
	write := func() {
		t.Helper()
		mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Name": "x"}}), 200)
	}
	write() // payload 1
	fc.Advance(6 * 24 * time.Hour)
	r := do(t, s, DefaultToken, "POST", hooksPath+"/"+hook+"/refresh", nil)
	mustStatus(t, r, 200)
	if got := r.body["expirationTime"]; got != "2025-03-14T12:00:00.000Z" {
		t.Errorf("refresh: expirationTime %v, want now + 7 days", got)
	}
	write() // payload 2, at day 6
	fc.Advance(2 * 24 * time.Hour)
	// Day 8: payload 1 is gone; asking from cursor 1 starts at payload 2.
	p := listPayloads(t, s, hook, "?cursor=1")
	if len(p.Payloads) != 1 || p.Cursor != 3 {
		t.Fatalf("after retention: %d payloads, cursor %d; want 1, 3", len(p.Payloads), p.Cursor)
	}
	fc.Advance(6 * 24 * time.Hour) // day 14: payload 2 gone too, but the listing at day 8 kept the hook alive
	if p := listPayloads(t, s, hook, "?cursor=2"); len(p.Payloads) != 0 || p.Cursor != 3 {
		t.Fatalf("all purged: %d payloads, cursor %d; want 0 and cursor 3 (the gap shows)", len(p.Payloads), p.Cursor)
	}
	fc.Advance(7*24*time.Hour + time.Second) // the listing at day 14 extended it to day 21
	write()
	if p := listPayloads(t, s, hook, "?cursor=3"); len(p.Payloads) != 0 {
		t.Fatalf("an expired hook made a payload")
	}
	if r := do(t, s, DefaultToken, "POST", hooksPath+"/"+hook+"/refresh", nil); r.status != 422 {
		t.Fatalf("refresh of an expired hook: %d %s, want 422", r.status, r.raw)
	}
	list := do(t, s, DefaultToken, "GET", hooksPath, nil)
	if h := list.body["webhooks"].([]any)[0].(map[string]any); h["isHookEnabled"] != false {
		t.Fatalf("expired hook listed as %v", h)
	}
	fc.Advance(7 * 24 * time.Hour)
	if got := do(t, s, DefaultToken, "GET", hooksPath, nil).raw; got != `{"webhooks":[]}` {
		t.Fatalf("a week after expiry the hook should be gone: %s", got)
	}
}

// The MAC of the reference's test vector (webhooks §1.7).
func TestContentMAC(t *testing.T) {
	body := []byte(`{"base":{"id":"app00000000000000"},"webhook":{"id":"ach00000000000000"},"timestamp":"2022-02-01T21:25:05.663Z"}`)
	at, _ := time.Parse(time.RFC3339, "2022-02-01T21:25:05.663Z")
	if got := string(PingBody("app00000000000000", "ach00000000000000", at)); got != string(body) {
		t.Fatalf("PingBody: got %s, want %s", got, body)
	}
	want := "hmac-sha256=6486781ffbbd5e9ed3bd9137d539ab9dceec8dba7c65c6cbf3c8c3ceefbf8802"
	if got := ContentMAC([]byte("secret-key"), body); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// A hook with a URL is pinged after a payload, with the MAC of the body; a failing receiver is
// retried on the clock and, after the last retry, notifications are off.
func TestWebhookPing(t *testing.T) {
	type ping struct {
		body []byte
		mac  string
	}
	pings := make(chan ping, 16)
	status := make(chan int, 32)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		pings <- ping{b, r.Header.Get("X-Airtable-Content-MAC")}
		w.WriteHeader(<-status)
	}))
	defer receiver.Close()
	s, fc := newTestServer(t, WithFixture(smallFixture(t)))
	hook, secret := createHook(t, s, map[string]any{"filters": map[string]any{"dataTypes": []string{"tableData"}}}, receiver.URL+"/hook")
	key, _ := base64Decode(secret)

	status <- 204
	mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Name": "x"}}), 200)
	p := <-pings
	if got := ContentMAC(key, p.body); got != p.mac {
		t.Fatalf("MAC: header %s, computed %s", p.mac, got)
	}
	if want := fmt.Sprintf(`{"base":{"id":"appTEST0000000001"},"webhook":{"id":%q},"timestamp":"2025-03-01T12:00:00.000Z"}`, hook); string(p.body) != want {
		t.Fatalf("ping body: got %s, want %s", p.body, want)
	}
	waitFor(t, func() bool {
		h := hookListed(t, s, hook)
		return h["lastNotificationResult"] != nil && dig(h, "lastNotificationResult", "success") == true
	})

	// Failing from now on: 1 try + 13 retries, then notifications are off.
	for range pingRetries + 1 {
		status <- 500
	}
	mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Name": "y"}}), 200)
	for i := 0; i <= pingRetries; i++ {
		<-pings
		if i < pingRetries {
			if err := fc.BlockUntil(t.Context(), 1); err != nil { // the retry waits on the clock
				t.Fatal(err)
			}
			fc.Advance(pingFirstDelay << i)
		}
	}
	waitFor(t, func() bool { return hookListed(t, s, hook)["areNotificationsEnabled"] == false })
	h := hookListed(t, s, hook)
	if dig(h, "lastNotificationResult", "willBeRetried") != false || dig(h, "lastNotificationResult", "retryNumber") != float64(pingRetries) {
		t.Fatalf("after the last retry: %v", h["lastNotificationResult"])
	}
	if !strings.Contains(dig(h, "lastNotificationResult", "error", "message").(string), "500 status code") {
		t.Fatalf("error message: %v", h["lastNotificationResult"])
	}
	// Re-armed, it pings again.
	mustStatus(t, do(t, s, DefaultToken, "POST", hooksPath+"/"+hook+"/enableNotifications", map[string]any{"enable": true}), 200)
	status <- 200
	mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Name": "z"}}), 200)
	<-pings
}

func hookListed(t *testing.T, s *Server, id string) map[string]any {
	t.Helper()
	for _, h := range do(t, s, DefaultToken, "GET", hooksPath, nil).body["webhooks"].([]any) {
		if h.(map[string]any)["id"] == id {
			return h.(map[string]any)
		}
	}
	t.Fatalf("hook %s not listed", id)
	return nil
}

// waitFor polls cond until it holds: the ping goroutine records its result just after the
// receiver answered, an event the test cannot wait on directly.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// Webhook requests count against the base's rate like any other.
func TestWebhookRateLimited(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)), WithRate(5, 30*time.Second))
	for i := range 5 {
		if r := do(t, s, DefaultToken, "GET", hooksPath, nil); r.status != 200 {
			t.Fatalf("request %d: %d", i+1, r.status)
		}
	}
	if r := do(t, s, DefaultToken, "GET", testBase+"/Tasks", nil); r.status != 429 {
		t.Fatalf("6th request in a second (a record list after 5 webhook lists): %d, want 429", r.status)
	}
}

func base64Decode(s string) ([]byte, error) { return base64.StdEncoding.DecodeString(s) }

// DeleteField and DeleteTable are logged: after a restart the field and the table are still gone.
func TestSchemaDeletesPersist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.wal")
	s1, _ := newTestServer(t, WithFixture(smallFixture(t)), WithDataFile(path))
	fl := do(t, s1, DefaultToken, "POST", metaBase+"/tables/tblTASKS000000001/fields", map[string]any{"name": "Notes", "type": "multilineText"})
	mustStatus(t, fl, 200)
	mustStatus(t, do(t, s1, DefaultToken, "PATCH", testBase+"/Tasks/recTASK0000000001", map[string]any{"fields": map[string]any{"Notes": "n"}}), 200)
	tb := do(t, s1, DefaultToken, "POST", metaBase+"/tables", map[string]any{"name": "Extra", "fields": []any{map[string]any{"name": "Title", "type": "singleLineText"}}})
	mustStatus(t, tb, 200)
	if err := s1.DeleteField("appTEST0000000001", "tblTASKS000000001", fl.body["id"].(string)); err != nil {
		t.Fatal(err)
	}
	if err := s1.DeleteTable("appTEST0000000001", tb.body["id"].(string)); err != nil {
		t.Fatal(err)
	}
	before := do(t, s1, DefaultToken, "GET", metaBase+"/tables", nil).raw
	rows := do(t, s1, DefaultToken, "GET", testBase+"/Tasks", nil).raw
	if strings.Contains(before, "Notes") || strings.Contains(before, "Extra") || strings.Contains(rows, `"Notes"`) {
		t.Fatalf("deleted field or table still there: %s", before)
	}
	s1.Close()
	s2, _ := newTestServer(t, WithFixture(smallFixture(t)), WithDataFile(path))
	if after := do(t, s2, DefaultToken, "GET", metaBase+"/tables", nil).raw; after != before {
		t.Fatalf("schema after restart:\n%s\nbefore:\n%s", after, before)
	}
	if after := do(t, s2, DefaultToken, "GET", testBase+"/Tasks", nil).raw; after != rows {
		t.Fatalf("records after restart:\n%s\nbefore:\n%s", after, rows)
	}
}

func TestSchemaDeleteRefusals(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	schema := do(t, s, DefaultToken, "GET", metaBase+"/tables", nil)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"primary", s.DeleteField("appTEST0000000001", "tblTASKS000000001", "fldNAME0000000001"), "primary field"},
		{"link", s.DeleteField("appTEST0000000001", "tblTASKS000000001", fieldID(t, schema, "tblTASKS000000001", "Owner")), "is a link"},
		{"read by a lookup", s.DeleteField("appTEST0000000001", "tblPEOPLE00000001", fieldID(t, schema, "tblPEOPLE00000001", "Age")), "read by multipleLookupValues"},
		{"linked table", s.DeleteTable("appTEST0000000001", "tblPEOPLE00000001"), "is linked from"},
		{"unknown field", s.DeleteField("appTEST0000000001", "tblTASKS000000001", "fldNOPE0000000001"), "no field"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", c.err, c.want)
			}
		})
	}
}

// A change to a linked record reaches the records that look it up, in the webhook (V2) forms of
// links and lookups.
func TestWebhookLinkedRecordPayloads(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	schema := do(t, s, DefaultToken, "GET", metaBase+"/tables", nil)
	owner, ownerAge := fieldID(t, schema, "tblTASKS000000001", "Owner"), fieldID(t, schema, "tblTASKS000000001", "Owner Age")
	ann := do(t, s, DefaultToken, "POST", testBase+"/People", map[string]any{"fields": map[string]any{"Name": "Ann", "Age": 30}})
	mustStatus(t, ann, 200)
	annID := ann.body["id"].(string)
	hook, _ := createHook(t, s, map[string]any{"filters": map[string]any{"dataTypes": []string{"tableData"}}}, "")
	mustStatus(t, do(t, s, DefaultToken, "PATCH", testBase+"/Tasks/recTASK0000000001", map[string]any{"fields": map[string]any{"Owner": []string{annID}}}), 200)
	mustStatus(t, do(t, s, DefaultToken, "PATCH", testBase+"/People/"+annID, map[string]any{"fields": map[string]any{"Age": 31}}), 200)
	p := listPayloads(t, s, hook, "")
	if len(p.Payloads) != 2 {
		t.Fatalf("got %d payloads, want 2", len(p.Payloads))
	}
	cur := dig(p.Payloads[0], "changedTablesById", "tblTASKS000000001", "changedRecordsById", "recTASK0000000001", "current", "cellValuesByFieldId").(map[string]any)
	if want := []any{map[string]any{"id": annID, "name": "Ann"}}; !reflect.DeepEqual(cur[owner], want) {
		t.Errorf("link in a payload: got %v, want %v", cur[owner], want)
	}
	wantLookup := map[string]any{"valuesByLinkedRecordId": map[string]any{annID: []any{30.0}}, "linkedRecordIds": []any{annID}}
	if !reflect.DeepEqual(cur[ownerAge], wantLookup) {
		t.Errorf("lookup in a payload: got %v, want %v", cur[ownerAge], wantLookup)
	}
	// Ann's age changed: the task that looks it up changed in the same payload.
	tasks := dig(p.Payloads[1], "changedTablesById", "tblTASKS000000001", "changedRecordsById", "recTASK0000000001", "current", "cellValuesByFieldId").(map[string]any)
	if got := dig(tasks[ownerAge], "valuesByLinkedRecordId", annID); !reflect.DeepEqual(got, []any{31.0}) {
		t.Errorf("lookup after the linked record changed: %v", tasks[ownerAge])
	}
	if dig(p.Payloads[1], "changedTablesById", "tblPEOPLE00000001", "changedRecordsById", annID) == nil {
		t.Errorf("the changed person is missing: %v", p.Payloads[1])
	}
}

// Whatever the body or query, the webhook routes answer 200 or a 4xx with an error object, never a
// 5xx (how the emulator reports its own panics).
func FuzzWebhookRequests(f *testing.F) {
	f.Add(`{"specification":{"options":{"filters":{"dataTypes":["tableData"]}}}}`, "cursor=1&limit=2")
	f.Add(`{"notificationUrl":"https://x.invalid/h","specification":{"options":{"filters":{"dataTypes":["tableFields"],"recordChangeScope":"tblTASKS000000001"},"includes":{"includeCellValuesInFieldIds":"all","includePreviousCellValues":true}}}}`, "cursor=99")
	f.Add(`{"specification":{"options":{"filters":{"dataTypes":["tableData"],"watchDataInFieldIds":["fldNAME0000000001"]},"includes":{"includeCellValuesInFieldIds":["fldNAME0000000001"]}}}}`, "limit=-1")
	f.Add(`{"specification":null}`, "cursor=%zz")
	f.Add(`[]`, "")
	f.Fuzz(func(t *testing.T, body, query string) {
		if strings.ContainsFunc(query, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '#' }) {
			return // not a query a client can send
		}
		s, _ := newTestServer(t, WithFixture(smallFixture(t)))
		r := do(t, s, DefaultToken, "POST", hooksPath, body)
		if r.status >= 500 || (r.status != 200 && errType(r) == "") {
			t.Fatalf("create %q: %d %s", body, r.status, r.raw)
		}
		hook, _ := r.body["id"].(string)
		if hook == "" {
			return
		}
		mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Name": "x"}}), 200)
		p := do(t, s, DefaultToken, "GET", hooksPath+"/"+hook+"/payloads?"+query, nil)
		if p.status >= 500 || (p.status != 200 && errType(p) == "") {
			t.Fatalf("payloads ?%s: %d %s", query, p.status, p.raw)
		}
		mustStatus(t, do(t, s, DefaultToken, "GET", hooksPath, nil), 200)
	})
}

// The cost of feeding webhooks: one record update of the demo base (Tasks links to People and
// Projects, with lookups) with no webhook, one, and the base's maximum of ten.
func BenchmarkWriteWithWebhooks(b *testing.B) {
	for _, hooks := range []int{0, 1, MaxWebhooksPerBase} {
		b.Run(fmt.Sprintf("hooks=%d", hooks), func(b *testing.B) {
			s, err := New(WithDemo(), WithRate(0, 0), WithTokenRate(0))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for range hooks {
				r, err := tryDo(s, DemoToken, "POST", "/v0/bases/"+DemoBaseID+"/webhooks", `{"specification":{"options":{"filters":{"dataTypes":["tableData","tableFields"]},"includes":{"includePreviousCellValues":true}}}}`)
				if err != nil || r.status != 200 {
					b.Fatalf("create hook: %v %s", err, r.raw)
				}
			}
			rec := demoRecordID(demoTasksTable, 7)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				r, err := tryDo(s, DemoToken, "PATCH", "/v0/"+DemoBaseID+"/Tasks/"+rec, fmt.Sprintf(`{"fields":{"Name":"task %d"}}`, i))
				if err != nil || r.status != 200 {
					b.Fatalf("update: %v %s", err, r.raw)
				}
			}
		})
	}
}

// The other write paths: an upload is a publicApi payload, the metadata a fetched attachment URL
// fills in is a system payload, and comments make none (they are not data of the base).
func TestWebhookOtherWritePaths(t *testing.T) {
	logo := testPNG(t, 5, 4)
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(logo)
	}))
	defer files.Close()
	fx := mustFixture(t, `{"bases": [{"id": "appTEST0000000001", "name": "Test", "tables": [{"id": "tblFILES000000001", "name": "Files",
	  "fields": [{"name": "Name", "type": "singleLineText"}, {"id": "fldATTACH00000001", "name": "Files", "type": "multipleAttachments"}],
	  "records": [{"id": "recFILE0000000001", "fields": {"Name": "a"}}]}]}]}`)
	s, _ := newTestServer(t, WithFixture(fx), WithAttachmentFetch(files.Client()))
	hook, _ := createHook(t, s, map[string]any{"filters": map[string]any{"dataTypes": []string{"tableData"}}}, "")
	mustStatus(t, do(t, s, DefaultToken, "POST", "/v0/appTEST0000000001/recFILE0000000001/Files/uploadAttachment", map[string]any{
		"contentType": "text/plain", "filename": "c.txt", "file": base64.StdEncoding.EncodeToString([]byte("hello"))}), 200)
	mustStatus(t, do(t, s, DefaultToken, "POST", "/v0/appTEST0000000001/Files/recFILE0000000001/comments", map[string]any{"text": "hi"}), 200)
	mustStatus(t, do(t, s, DefaultToken, "PATCH", "/v0/appTEST0000000001/Files/recFILE0000000001", map[string]any{"fields": map[string]any{
		"Files": []any{map[string]any{"url": files.URL + "/logo.png"}}}}), 200)
	s.waitFetches()
	p := listPayloads(t, s, hook, "")
	var sources []string
	for _, pl := range p.Payloads {
		sources = append(sources, dig(pl, "actionMetadata", "source").(string))
	}
	if want := []string{"publicApi", "publicApi", "system"}; !reflect.DeepEqual(sources, want) {
		t.Fatalf("sources %v, want %v (upload, URL write, fetched metadata; no comment)", sources, want)
	}
	fetched := dig(p.Payloads[2], "changedTablesById", "tblFILES000000001", "changedRecordsById", "recFILE0000000001", "current", "cellValuesByFieldId", "fldATTACH00000001").([]any)
	if att := fetched[0].(map[string]any); att["width"] != 5.0 || att["size"] != float64(len(logo)) {
		t.Fatalf("fetched attachment in the payload: %v", att)
	}
}

// A hook scoped to a view reports, besides its table's changes, what happened in the view:
// records that entered it (created, or changed into its filter), changed in it, or left it.
func TestWebhookViewScope(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	schema := do(t, s, DefaultToken, "GET", metaBase+"/tables", nil)
	var open string
	for _, tb := range schema.body["tables"].([]any) {
		for _, v := range tb.(map[string]any)["views"].([]any) {
			if v.(map[string]any)["name"] == "Open" {
				open = v.(map[string]any)["id"].(string)
			}
		}
	}
	priority := fieldID(t, schema, "tblTASKS000000001", "Priority")
	hook, _ := createHook(t, s, map[string]any{"filters": map[string]any{"dataTypes": []string{"tableData"}, "recordChangeScope": open}}, "")
	patch := func(id string, fields map[string]any) {
		t.Helper()
		mustStatus(t, do(t, s, DefaultToken, "PATCH", testBase+"/Tasks/"+id, map[string]any{"fields": fields}), 200)
	}
	patch("recTASK0000000001", map[string]any{"Priority": 7})                                                                     // in the view (not done): changed in it
	patch("recTASK0000000001", map[string]any{"Done": true})                                                                      // leaves it
	patch("recTASK0000000002", map[string]any{"Done": false})                                                                     // was done: enters it
	mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/People", map[string]any{"fields": map[string]any{"Name": "x"}}), 200) // another table
	p := listPayloads(t, s, hook, "")
	if len(p.Payloads) != 3 {
		t.Fatalf("got %d payloads, want 3", len(p.Payloads))
	}
	views := func(i int) map[string]any {
		return dig(p.Payloads[i], "changedTablesById", "tblTASKS000000001", "changedViewsById", open).(map[string]any)
	}
	if got := dig(views(0), "changedRecordsById", "recTASK0000000001", "current", "cellValuesByFieldId", priority); got != 7.0 {
		t.Errorf("changed in the view: %v", views(0))
	}
	if got := views(1)["destroyedRecordIds"]; !reflect.DeepEqual(got, []any{"recTASK0000000001"}) {
		t.Errorf("left the view: %v", views(1))
	}
	if dig(p.Payloads[1], "changedTablesById", "tblTASKS000000001", "changedRecordsById", "recTASK0000000001") == nil {
		t.Errorf("the table's own section is kept: %v", p.Payloads[1])
	}
	if got := dig(views(2), "createdRecordsById", "recTASK0000000002", "cellValuesByFieldId", priority); got != 1.0 {
		t.Errorf("entered the view: %v", views(2))
	}
}

// Concurrent writers and a concurrent reader of payloads: every acknowledged write is exactly one
// payload, numbered without gaps, with increasing transaction numbers, and each record created
// appears once.
func TestWebhookConcurrentWrites(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	hook, _ := createHook(t, s, map[string]any{"filters": map[string]any{"dataTypes": []string{"tableData"}}}, "")
	const writers, each = 4, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers*each+1)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				r, err := tryDo(s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Name": fmt.Sprintf("w%d-%d", w, i)}})
				if err == nil && r.status != 200 {
					err = fmt.Errorf("create: %d %s", r.status, r.raw)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { // reads payloads (and so takes the write lock) while the writes go on
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			r, err := tryDo(s, DefaultToken, "GET", hooksPath+"/"+hook+"/payloads?limit=7", nil)
			if err != nil || r.status != 200 {
				errs <- fmt.Errorf("payloads: %v %d", err, r.status)
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-done
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var all []map[string]any
	cursor := 1
	for {
		p := listPayloads(t, s, hook, fmt.Sprintf("?cursor=%d", cursor))
		if first := p.Cursor - len(p.Payloads); len(p.Payloads) > 0 && first != cursor {
			t.Fatalf("asked for cursor %d, the page starts at %d", cursor, first)
		}
		all = append(all, p.Payloads...)
		cursor = p.Cursor
		if !p.MightHaveMore {
			break
		}
	}
	if len(all) != writers*each {
		t.Fatalf("%d payloads for %d writes", len(all), writers*each)
	}
	seen := map[string]bool{}
	for i, pl := range all {
		if i > 0 && pl["baseTransactionNumber"].(float64) <= all[i-1]["baseTransactionNumber"].(float64) {
			t.Fatalf("payload %d: transaction %v after %v", i+1, pl["baseTransactionNumber"], all[i-1]["baseTransactionNumber"])
		}
		recs := dig(pl, "changedTablesById", "tblTASKS000000001", "createdRecordsById").(map[string]any)
		for id := range recs {
			if seen[id] || len(recs) != 1 {
				t.Fatalf("payload %d: records %v (seen before: %v)", i+1, recs, seen[id])
			}
			seen[id] = true
		}
	}
}

// Deleting the table a hook is scoped to gives it an error payload holding the deletion.
func TestWebhookScopeTableDeleted(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	tbl := do(t, s, DefaultToken, "POST", metaBase+"/tables", map[string]any{"name": "Extra", "fields": []any{map[string]any{"name": "Title", "type": "singleLineText"}}})
	mustStatus(t, tbl, 200)
	extra := tbl.body["id"].(string)
	hook, _ := createHook(t, s, map[string]any{"filters": map[string]any{"dataTypes": []string{"tableData"}, "recordChangeScope": extra}}, "")
	if err := s.DeleteTable("appTEST0000000001", extra); err != nil {
		t.Fatal(err)
	}
	p := listPayloads(t, s, hook, "")
	if len(p.Payloads) != 1 || p.Payloads[0]["error"] != true || p.Payloads[0]["code"] != "INVALID_FILTERS" ||
		!reflect.DeepEqual(p.Payloads[0]["destroyedTableIds"], []any{extra}) {
		t.Fatalf("payloads %v: want one error payload with the deletion", p.Payloads)
	}
	if h := hookListed(t, s, hook); h["isHookEnabled"] != false {
		t.Fatalf("hook after the error payload: %v", h)
	}
}
