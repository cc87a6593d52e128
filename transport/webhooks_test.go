package transport

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"time"
)

func newTestBase(t *testing.T, handler func(n int, r seenRequest) reply, opts ...Option) (*Base, *fakeService) {
	t.Helper()
	tbl, fake, _ := newTestTable(t, handler, opts...)
	return tbl.Base(), fake
}

// The exact requests of every webhook operation.
func TestWebhookRequests(t *testing.T) {
	b, fake := newTestBase(t, func(n int, r seenRequest) reply {
		switch {
		case r.Method == "POST" && r.Path == "/v0/bases/appTEST0000000001/webhooks":
			return ok(`{"id":"achAAAAAAAAAAAAAA","macSecretBase64":"c2VjcmV0LWtleQ==","expirationTime":"2025-01-08T00:00:00.000Z"}`)
		case r.Method == "GET" && r.Path == "/v0/bases/appTEST0000000001/webhooks":
			return ok(`{"webhooks":[{"id":"achAAAAAAAAAAAAAA","specification":{"options":{"filters":{"recordChangeScope":"tblQJ3WoaYyxPxm2F","dataTypes":["tableData"]},"includes":{"includeCellValuesInFieldIds":"all"}}},
				"notificationUrl":null,"cursorForNextPayload":6,
				"lastNotificationResult":{"success":true,"completionTimestamp":"2024-10-22T13:18:33.391Z","durationMs":2578.119457,"retryNumber":0},
				"areNotificationsEnabled":true,"lastSuccessfulNotificationTime":"2024-10-22T13:18:33.000Z","isHookEnabled":true,"expirationTime":"2024-10-29T13:18:13.002Z"}]}`)
		case r.Path == "/v0/bases/appTEST0000000001/webhooks/achAAAAAAAAAAAAAA/refresh":
			return ok(`{"expirationTime":"2025-01-09T00:00:00.000Z"}`)
		case r.Path == "/v0/bases/appTEST0000000001/webhooks/achAAAAAAAAAAAAAA/payloads":
			return ok(`{"payloads":[],"cursor":7,"mightHaveMore":false,"payloadFormat":"v0"}`)
		}
		return ok(`{}`)
	})
	spec := WebhookSpecification{Options: WebhookOptions{
		Filters:  WebhookFilters{DataTypes: []string{WebhookTableData, WebhookTableFields}, RecordChangeScope: "tblQJ3WoaYyxPxm2F", WatchDataInFieldIDs: []string{"fldA"}},
		Includes: &WebhookIncludes{CellValuesInFieldIDs: []string{"fldB"}, PreviousCellValues: true},
	}}
	created, err := b.CreateWebhook(bg, spec, "https://example.com/hook")
	if err != nil {
		t.Fatal(err)
	}
	if created.ID != "achAAAAAAAAAAAAAA" || created.MACSecretBase64 != "c2VjcmV0LWtleQ==" || !created.ExpirationTime.Equal(time.Date(2025, 1, 8, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("created: %+v", created)
	}
	if _, err := b.CreateWebhook(bg, WebhookSpecification{Options: WebhookOptions{Filters: WebhookFilters{DataTypes: []string{WebhookTableMetadata}}}}, ""); err != nil {
		t.Fatal(err)
	}
	hooks, err := b.Webhooks(bg)
	if err != nil {
		t.Fatal(err)
	}
	h := hooks[0]
	if h.NotificationURL != "" || h.CursorForNextPayload != 6 || !h.Specification.Options.Includes.AllCellValues ||
		h.Specification.Options.Filters.RecordChangeScope != "tblQJ3WoaYyxPxm2F" || h.LastNotificationResult == nil ||
		!h.LastNotificationResult.Success || h.LastNotificationResult.DurationMs != 2578.119457 || !h.IsHookEnabled ||
		h.LastSuccessfulNotificationTime == nil || h.ExpirationTime == nil {
		t.Errorf("listed webhook: %+v", h)
	}
	exp, err := b.RefreshWebhook(bg, "achAAAAAAAAAAAAAA")
	if err != nil || !exp.Equal(time.Date(2025, 1, 9, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("refresh: %v, %v", exp, err)
	}
	if err := b.EnableWebhookNotifications(bg, "achAAAAAAAAAAAAAA", false); err != nil {
		t.Fatal(err)
	}
	page, err := b.WebhookPayloads(bg, "achAAAAAAAAAAAAAA", 7, 10)
	if err != nil || page.Cursor != 7 || page.MightHaveMore || len(page.Payloads) != 0 {
		t.Errorf("payloads: %+v, %v", page, err)
	}
	if _, err := b.WebhookPayloads(bg, "achAAAAAAAAAAAAAA", 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteWebhook(bg, "achAAAAAAAAAAAAAA"); err != nil {
		t.Fatal(err)
	}
	diffLines(t, fake.Lines(), []string{
		`POST /v0/bases/appTEST0000000001/webhooks {"notificationUrl":"https://example.com/hook","specification":{"options":{"filters":{"dataTypes":["tableData","tableFields"],"recordChangeScope":"tblQJ3WoaYyxPxm2F","watchDataInFieldIds":["fldA"]},"includes":{"includeCellValuesInFieldIds":["fldB"],"includePreviousCellValues":true}}}}`,
		`POST /v0/bases/appTEST0000000001/webhooks {"specification":{"options":{"filters":{"dataTypes":["tableMetadata"]}}}}`,
		`GET /v0/bases/appTEST0000000001/webhooks`,
		`POST /v0/bases/appTEST0000000001/webhooks/achAAAAAAAAAAAAAA/refresh`,
		`POST /v0/bases/appTEST0000000001/webhooks/achAAAAAAAAAAAAAA/enableNotifications {"enable":false}`,
		`GET /v0/bases/appTEST0000000001/webhooks/achAAAAAAAAAAAAAA/payloads?cursor=7&limit=10`,
		`GET /v0/bases/appTEST0000000001/webhooks/achAAAAAAAAAAAAAA/payloads`,
		`DELETE /v0/bases/appTEST0000000001/webhooks/achAAAAAAAAAAAAAA`,
	})
}

func TestWebhookInvalidArguments(t *testing.T) {
	b, fake := newTestBase(t, func(n int, r seenRequest) reply { return ok(`{}`) })
	cases := []struct {
		name string
		err  error
	}{
		{"no data types", func() error { _, err := b.CreateWebhook(bg, WebhookSpecification{}, ""); return err }()},
		{"empty id", b.DeleteWebhook(bg, "")},
		{"id with a slash", b.DeleteWebhook(bg, "ach/x")},
		{"negative cursor", func() error { _, err := b.WebhookPayloads(bg, "achA", -1, 0); return err }()},
		{"limit over 50", func() error { _, err := b.WebhookPayloads(bg, "achA", 1, 51); return err }()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !errors.Is(c.err, ErrInvalidOption) {
				t.Fatalf("got %v, want an error wrapping ErrInvalidOption", c.err)
			}
		})
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d requests sent for invalid arguments", n)
	}
}

// The recorded list payloads answer of webhooks §2.7 (a), shortened, and the other sections, typed.
func TestWebhookPayloadDecoding(t *testing.T) {
	b, _ := newTestBase(t, func(n int, r seenRequest) reply {
		return ok(`{"payloads":[
  {"timestamp":"2023-11-06T20:48:28.797Z","baseTransactionNumber":9730,"actionMetadata":{"source":"publicApi","sourceMetadata":{"user":{"id":"usrBw9fdcVFbu7ug9","email":"u1@example.com","permissionLevel":"create"}}},"payloadFormat":"v0","changedTablesById":{"tblUmsH10MkIMMGYP":{"createdRecordsById":{"recmL2nzyOJVrv00D":{"createdTime":"2023-11-06T20:48:29.000Z","cellValuesByFieldId":{"fldSAUw6qVy9NzXzF":"Record for Testing Webhooks"}}}}}},
  {"timestamp":"2023-11-06T20:59:57.651Z","baseTransactionNumber":9731,"actionMetadata":{"source":"client"},"payloadFormat":"v0","changedTablesById":{"tblUmsH10MkIMMGYP":{"changedRecordsById":{"reccB8na7xw9Fy3sg":{"current":{"cellValuesByFieldId":{"fld4OiNpmJbFlIpKv":"Vannessa Endi","fldX":null}},"previous":{"cellValuesByFieldId":{"fld4OiNpmJbFlIpKv":"V"}},"unchanged":{"cellValuesByFieldId":{"fldrmVEG9W8OgC8bZ":{"id":"seliBaGthOKr9clS5","name":"Inactive","color":"redBright"}}}}},"destroyedRecordIds":["recmL2nzyOJVrv00D"],"createdFieldsById":{"fldN":{"type":"number","name":"N"}},"changedFieldsById":{"fldM":{"current":{"name":"M2"},"previous":{"name":"M"}}},"destroyedFieldIds":["fldO"],"changedMetadata":{"current":{"name":"T2"},"previous":{"name":"T"}}}}},
  {"timestamp":"2023-11-07T04:49:12.530Z","baseTransactionNumber":9732,"actionMetadata":{"source":"client"},"payloadFormat":"v0","createdTablesById":{"tblNEW":{"metadata":{"name":"New","description":null},"fieldsById":{"fldP":{"type":"singleLineText","name":"Name"}}}},"destroyedTableIds":["tblOLD"],"error":true,"code":"INVALID_FILTERS"}
],"cursor":9,"mightHaveMore":false,"payloadFormat":"v0"}`)
	})
	page, err := b.WebhookPayloads(bg, "achHvwpmtKjW9gCBj", 6, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := []int{page.Payloads[0].Cursor, page.Payloads[1].Cursor, page.Payloads[2].Cursor}; !reflect.DeepEqual(got, []int{6, 7, 8}) {
		t.Errorf("cursors %v, want 6 7 8 (counted back from the answer's cursor 9)", got)
	}
	p0, p1, p2 := page.Payloads[0], page.Payloads[1], page.Payloads[2]
	rec := p0.ChangedTablesByID["tblUmsH10MkIMMGYP"].CreatedRecordsByID["recmL2nzyOJVrv00D"]
	if p0.BaseTransactionNumber != 9730 || p0.ActionMetadata.Source != "publicApi" || rec.CellValuesByFieldID["fldSAUw6qVy9NzXzF"] != "Record for Testing Webhooks" ||
		!rec.CreatedTime.Equal(time.Date(2023, 11, 6, 20, 48, 29, 0, time.UTC)) {
		t.Errorf("payload 1: %+v", p0)
	}
	tc := p1.ChangedTablesByID["tblUmsH10MkIMMGYP"]
	ch := tc.ChangedRecordsByID["reccB8na7xw9Fy3sg"]
	if v, present := ch.Current.CellValuesByFieldID["fldX"]; !present || v != nil {
		t.Errorf("a cleared cell: got %v (present %v), want nil and present", v, present)
	}
	if ch.Previous.CellValuesByFieldID["fld4OiNpmJbFlIpKv"] != "V" || ch.Unchanged == nil ||
		!reflect.DeepEqual(tc.DestroyedRecordIDs, []string{"recmL2nzyOJVrv00D"}) || tc.CreatedFieldsByID["fldN"] != (WebhookField{"number", "N"}) ||
		tc.ChangedFieldsByID["fldM"].Previous.Name != "M" || tc.DestroyedFieldIDs[0] != "fldO" || *tc.ChangedMetadata.Current.Name != "T2" {
		t.Errorf("payload 2: %+v", tc)
	}
	if !p2.Error || p2.Code != "INVALID_FILTERS" || *p2.CreatedTablesByID["tblNEW"].Metadata.Name != "New" ||
		p2.CreatedTablesByID["tblNEW"].Metadata.Description != nil || p2.DestroyedTableIDs[0] != "tblOLD" {
		t.Errorf("payload 3: %+v", p2)
	}
}

// The iterator follows the cursor page by page, stops when the service has no more, and reports
// a hole left by expired payloads instead of skipping it.
func TestIterateWebhookPayloads(t *testing.T) {
	payload := func(txn int) string {
		return `{"timestamp":"2025-01-01T00:00:00.000Z","baseTransactionNumber":` + strconv.Itoa(txn) + `,"actionMetadata":{"source":"publicApi"},"payloadFormat":"v0"}`
	}
	b, fake := newTestBase(t, func(n int, r seenRequest) reply {
		switch r.Query {
		case "cursor=3&limit=50":
			return ok(`{"payloads":[` + payload(10) + `,` + payload(11) + `],"cursor":5,"mightHaveMore":true,"payloadFormat":"v0"}`)
		case "cursor=5&limit=50":
			return ok(`{"payloads":[` + payload(12) + `],"cursor":6,"mightHaveMore":false,"payloadFormat":"v0"}`)
		case "cursor=1&limit=50": // payloads 1 and 2 expired: the answer starts at 3
			return ok(`{"payloads":[` + payload(10) + `],"cursor":4,"mightHaveMore":false,"payloadFormat":"v0"}`)
		}
		return reply{status: 500, body: `{"error":{"type":"SERVER_ERROR"}}`}
	})
	var got []int
	for p, err := range b.IterateWebhookPayloads(bg, "achA", 3) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.Cursor, int(p.BaseTransactionNumber))
	}
	if want := []int{3, 10, 4, 11, 5, 12}; !reflect.DeepEqual(got, want) {
		t.Errorf("cursor, transaction pairs %v, want %v", got, want)
	}
	var gap *WebhookCursorGapError
	for _, err := range b.IterateWebhookPayloads(bg, "achA", 1) {
		if !errors.As(err, &gap) || !errors.Is(err, ErrWebhookCursorGap) {
			t.Fatalf("got %v, want a WebhookCursorGapError", err)
		}
	}
	if gap == nil || gap.Requested != 1 || gap.Next != 3 {
		t.Errorf("gap %+v, want requested 1, next 3", gap)
	}
	// Breaking out of the loop sends no further request.
	before := len(fake.Requests())
	for range b.IterateWebhookPayloads(bg, "achA", 3) {
		break
	}
	if n := len(fake.Requests()) - before; n != 1 {
		t.Errorf("break after the first payload: %d requests, want 1", n)
	}
}

// The reference's test vector (webhooks §1.7) verifies; a changed body or a wrong header does not.
func TestVerifyWebhookNotification(t *testing.T) {
	body := `{"base":{"id":"app00000000000000"},"webhook":{"id":"ach00000000000000"},"timestamp":"2022-02-01T21:25:05.663Z"}`
	mac := "hmac-sha256=6486781ffbbd5e9ed3bd9137d539ab9dceec8dba7c65c6cbf3c8c3ceefbf8802"
	cases := []struct {
		name, secret, body, mac string
		ok                      bool
	}{
		{"valid", "c2VjcmV0LWtleQ==", body, mac, true},
		{"body changed", "c2VjcmV0LWtleQ==", body + " ", mac, false},
		{"other secret", "b3RoZXI=", body, mac, false},
		{"no prefix", "c2VjcmV0LWtleQ==", body, mac[len("hmac-sha256="):], false},
		{"not hex", "c2VjcmV0LWtleQ==", body, "hmac-sha256=zz", false},
		{"secret not base64", "%%%", body, mac, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := VerifyWebhookNotification(c.secret, []byte(c.body), c.mac)
			if (err == nil) != c.ok {
				t.Fatalf("got %v, want ok=%v", err, c.ok)
			}
		})
	}
}

// A create is not retried after a 503 (it may have created the hook); a payload read is.
func TestWebhookRetries(t *testing.T) {
	b, fake := newTestBase(t, func(n int, r seenRequest) reply {
		if n < 2 {
			return reply{status: http.StatusServiceUnavailable, body: `{"error":{"type":"SERVICE_UNAVAILABLE"}}`}
		}
		return ok(`{"payloads":[],"cursor":1,"mightHaveMore":false,"payloadFormat":"v0"}`)
	}, WithRetryStrategy(RetryStrategy()))
	_, err := b.CreateWebhook(bg, WebhookSpecification{Options: WebhookOptions{Filters: WebhookFilters{DataTypes: []string{WebhookTableData}}}}, "")
	if err == nil {
		t.Fatal("create after a 503: want the error")
	}
	if _, err := b.WebhookPayloads(bg, "achA", 1, 0); err != nil {
		t.Fatalf("payloads after a 503: %v", err)
	}
	if n := len(fake.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 (create once, payloads twice)", n)
	}
}

// Whatever the service sends as includes, a decoded value encodes to JSON that decodes to itself.
func FuzzWebhookIncludes(f *testing.F) {
	for _, s := range []string{`{"includeCellValuesInFieldIds":"all"}`, `{"includeCellValuesInFieldIds":["fldA","fldB"],"includePreviousCellValues":true}`,
		`{"includePreviousFieldDefinitions":true}`, `{"includeCellValuesInFieldIds":null}`, `{"includeCellValuesInFieldIds":"some"}`, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var in WebhookIncludes
		if json.Unmarshal([]byte(s), &in) != nil {
			return
		}
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatalf("encode %+v: %v", in, err)
		}
		var back WebhookIncludes
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("decode %s: %v", b, err)
		}
		if len(in.CellValuesInFieldIDs) == 0 {
			in.CellValuesInFieldIDs = nil // an empty list is not sent
		}
		if in.AllCellValues {
			in.CellValuesInFieldIDs = nil // "all" wins
		}
		if !reflect.DeepEqual(in, back) {
			t.Fatalf("%s: decoded %+v, encoded %s, decoded again %+v", s, in, b, back)
		}
	})
}
