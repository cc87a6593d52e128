package transport

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
)

// Against the emulator: a hook without URL records each write as one payload, read in order by
// the iterator, typed; the calls are paced like any other (no 429 at 5 requests per second).
func TestEmulatorWebhookFeed(t *testing.T) {
	s, tbl, _ := newEmu(t, 3, emulator.WithRate(5, 30*time.Second))
	b := tbl.Base()
	hook, err := b.CreateWebhook(bg, WebhookSpecification{Options: WebhookOptions{
		Filters:  WebhookFilters{DataTypes: []string{WebhookTableData, WebhookTableFields}},
		Includes: &WebhookIncludes{PreviousCellValues: true},
	}}, "")
	if err != nil {
		t.Fatal(err)
	}
	created, err := tbl.BatchCreate(bg, []map[string]any{{"Name": "a", "N": 1}, {"Name": "b"}}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Update(bg, "rec00000000000000", map[string]any{"N": 42, "Done": nil}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Delete(bg, created[1].ID); err != nil {
		t.Fatal(err)
	}
	field, err := b.CreateField(bg, "tblTASKS000000001", FieldSpec{Name: "Notes", Type: "multilineText"})
	if err != nil {
		t.Fatal(err)
	}
	var payloads []WebhookPayload
	for p, err := range b.IterateWebhookPayloads(bg, hook.ID, 1) {
		if err != nil {
			t.Fatal(err)
		}
		payloads = append(payloads, p)
	}
	if len(payloads) != 4 {
		t.Fatalf("got %d payloads, want 4", len(payloads))
	}
	for i, p := range payloads {
		if p.Cursor != i+1 || p.PayloadFormat != "v0" || p.ActionMetadata.Source != "publicApi" || p.Timestamp.IsZero() {
			t.Errorf("payload %d: cursor %d, format %q, source %q", i+1, p.Cursor, p.PayloadFormat, p.ActionMetadata.Source)
		}
		if i > 0 && p.BaseTransactionNumber <= payloads[i-1].BaseTransactionNumber {
			t.Errorf("baseTransactionNumber not increasing: %d after %d", p.BaseTransactionNumber, payloads[i-1].BaseTransactionNumber)
		}
	}
	tc := payloads[0].ChangedTablesByID["tblTASKS000000001"]
	if len(tc.CreatedRecordsByID) != 2 || tc.CreatedRecordsByID[created[0].ID].CellValuesByFieldID["fldN0000000000001"] != 1.0 {
		t.Errorf("created: %+v", tc)
	}
	ch := payloads[1].ChangedTablesByID["tblTASKS000000001"].ChangedRecordsByID["rec00000000000000"]
	wantCur := map[string]any{"fldN0000000000001": 42.0, "fldDONE0000000001": nil}
	wantPrev := map[string]any{"fldN0000000000001": 0.0, "fldDONE0000000001": true}
	if !reflect.DeepEqual(ch.Current.CellValuesByFieldID, wantCur) || ch.Previous == nil || !reflect.DeepEqual(ch.Previous.CellValuesByFieldID, wantPrev) {
		t.Errorf("changed: current %v previous %+v; want %v and %v", ch.Current.CellValuesByFieldID, ch.Previous, wantCur, wantPrev)
	}
	if got := payloads[2].ChangedTablesByID["tblTASKS000000001"].DestroyedRecordIDs; !reflect.DeepEqual(got, []string{created[1].ID}) {
		t.Errorf("destroyed: %v", got)
	}
	if got := payloads[3].ChangedTablesByID["tblTASKS000000001"].CreatedFieldsByID[field.ID]; got != (WebhookField{Type: "multilineText", Name: "Notes"}) {
		t.Errorf("created field: %+v", got)
	}
	hooks, err := b.Webhooks(bg)
	if err != nil || len(hooks) != 1 || hooks[0].CursorForNextPayload != 5 || hooks[0].NotificationURL != "" || hooks[0].AreNotificationsEnabled {
		t.Errorf("webhooks: %+v, %v", hooks, err)
	}
	if err := b.DeleteWebhook(bg, hook.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WebhookPayloads(bg, hook.ID, 1, 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("payloads of a deleted hook: %v, want ErrNotFound", err)
	}
	no429(t, s)
}

// Without webhook:manage the service refuses (403); payloads older than a week are gone and the
// iterator says so.
func TestEmulatorWebhookScopeAndGap(t *testing.T) {
	f := emuFixture(1)
	f.Tokens = []emulator.FixtureToken{
		{Token: "patNOHOOKS", Bases: []string{emuBase}, Scopes: []string{"data.records:read", "data.records:write"}},
		{Token: emulator.DefaultToken, Bases: []string{emuBase}, Scopes: []string{"data.records:read", "data.records:write", "schema.bases:read", "webhook:manage"}},
	}
	clk := newJumpClock()
	s, err := emulator.New(emulator.WithFixture(f), emulator.WithClock(clk), emulator.WithRate(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	base := func(tok string) *Base {
		b, err := NewBase(tok, emuBase, WithEndpointURL(emulator.InProcessURL), WithHTTPClient(s.Client()), WithClock(clk))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	spec := WebhookSpecification{Options: WebhookOptions{Filters: WebhookFilters{DataTypes: []string{WebhookTableData}}}}
	if _, err := base("patNOHOOKS").CreateWebhook(bg, spec, ""); !errors.Is(err, ErrPermissionsOrNotFound) {
		t.Fatalf("without webhook:manage: %v, want ErrPermissionsOrNotFound", err)
	}
	b := base(emulator.DefaultToken)
	hook, err := b.CreateWebhook(bg, spec, "")
	if err != nil {
		t.Fatal(err)
	}
	tbl := b.Table("My Tasks")
	if _, err := tbl.Create(bg, map[string]any{"Name": "x"}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	<-clk.After(6 * 24 * time.Hour)
	if _, err := b.RefreshWebhook(bg, hook.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Create(bg, map[string]any{"Name": "y"}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	<-clk.After(2 * 24 * time.Hour) // payload 1 is older than a week
	var gap *WebhookCursorGapError
	for _, err := range b.IterateWebhookPayloads(bg, hook.ID, 1) {
		if !errors.As(err, &gap) {
			t.Fatalf("got %v, want a WebhookCursorGapError", err)
		}
	}
	if gap == nil || gap.Requested != 1 || gap.Next != 2 {
		t.Fatalf("gap %+v, want requested 1, next 2", gap)
	}
	n := 0
	for p, err := range b.IterateWebhookPayloads(bg, hook.ID, gap.Next) {
		if err != nil || p.Cursor != 2 {
			t.Fatalf("after the gap: %+v, %v", p, err)
		}
		n++
	}
	if n != 1 {
		t.Fatalf("after the gap: %d payloads, want 1", n)
	}
}

// The emulator pings a hook's URL after a change; the ping verifies with the secret CreateWebhook
// returned, and a tampered body does not.
func TestEmulatorWebhookPingVerifies(t *testing.T) {
	type ping struct {
		body []byte
		mac  string
	}
	pings := make(chan ping, 4)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		pings <- ping{b, r.Header.Get("X-Airtable-Content-MAC")}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	_, tbl, _ := newEmu(t, 1)
	hook, err := tbl.Base().CreateWebhook(bg, WebhookSpecification{Options: WebhookOptions{Filters: WebhookFilters{DataTypes: []string{WebhookTableData}}}}, receiver.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Create(bg, map[string]any{"Name": "x"}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	p := <-pings
	if err := VerifyWebhookNotification(hook.MACSecretBase64, p.body, p.mac); err != nil {
		t.Fatalf("ping %s with %s: %v", p.body, p.mac, err)
	}
	if !strings.Contains(string(p.body), `"webhook":{"id":"`+hook.ID+`"}`) {
		t.Errorf("ping body %s does not name the hook", p.body)
	}
	if err := VerifyWebhookNotification(hook.MACSecretBase64, append(p.body, ' '), p.mac); err == nil {
		t.Error("a changed body verified")
	}
}

// The eleventh webhook of a base is refused with ErrTooManyWebhooks.
func TestEmulatorTooManyWebhooks(t *testing.T) {
	_, tbl, _ := newEmu(t, 1)
	spec := WebhookSpecification{Options: WebhookOptions{Filters: WebhookFilters{DataTypes: []string{WebhookTableData}}}}
	for range 10 {
		if _, err := tbl.Base().CreateWebhook(bg, spec, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tbl.Base().CreateWebhook(bg, spec, ""); !errors.Is(err, ErrTooManyWebhooks) {
		t.Fatalf("11th webhook: %v, want ErrTooManyWebhooks", err)
	}
}
