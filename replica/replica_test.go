package replica

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/transport"
)

var bg = context.Background()

const (
	repBase   = "appREPLICA0000001"
	tasksID   = "tblTASKS000000001"
	peopleID  = "tblPEOPLE00000001"
	fldName   = "fldNAME0000000001"
	fldN      = "fldN0000000000001"
	fldStatus = "fldSTATUS00000001"
	fldTags   = "fldTAGS0000000001"
	fldDone   = "fldDONE0000000001"
	fldOwner  = "fldOWNER000000001"
)

// fixture: Tasks (text, number, selects, checkbox, a link to People with its inverse, and with
// computed, a lookup through it and a formula) and People.
func fixture(computed bool) *emulator.Fixture {
	f := &emulator.Fixture{Bases: []emulator.FixtureBase{{ID: repBase, Name: "Replica", Tables: []emulator.FixtureTable{
		{ID: peopleID, Name: "People", Fields: []emulator.FixtureField{
			{ID: "fldPNAME000000001", Name: "Name", Type: "singleLineText"},
			{ID: "fldPTASKS00000001", Name: "Tasks", Type: "multipleRecordLinks", Options: map[string]any{"linkedTableId": tasksID, "inverseLinkFieldId": fldOwner}},
		}, Records: []emulator.FixtureRecord{{ID: "recPERSON00000001", Fields: map[string]any{"Name": "Ada"}}}},
		{ID: tasksID, Name: "Tasks", Fields: []emulator.FixtureField{
			{ID: fldName, Name: "Name", Type: "singleLineText"},
			{ID: fldN, Name: "N", Type: "number", Options: map[string]any{"precision": 0}},
			{ID: fldStatus, Name: "Status", Type: "singleSelect", Options: map[string]any{"choices": []any{map[string]any{"name": "Todo"}, map[string]any{"name": "Done"}}}},
			{ID: fldTags, Name: "Tags", Type: "multipleSelects", Options: map[string]any{"choices": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}}},
			{ID: fldDone, Name: "Done", Type: "checkbox"},
			{ID: fldOwner, Name: "Owner", Type: "multipleRecordLinks", Options: map[string]any{"linkedTableId": peopleID, "inverseLinkFieldId": "fldPTASKS00000001"}},
		}, Records: []emulator.FixtureRecord{
			{ID: "recTASK0000000001", Fields: map[string]any{"Name": "first", "N": 1.0, "Status": "Todo", "Owner": []any{"recPERSON00000001"}}},
		}},
	}}}}
	if computed {
		tasks := &f.Bases[0].Tables[1]
		tasks.Fields = append(tasks.Fields,
			emulator.FixtureField{ID: "fldOWNERNAME00001", Name: "Owner Name", Type: "multipleLookupValues", Options: map[string]any{"recordLinkFieldId": fldOwner, "fieldIdInLinkedTable": "fldPNAME000000001"}},
			emulator.FixtureField{ID: "fldSCORE000000001", Name: "Score", Type: "formula", Options: map[string]any{"formula": "{N} * 2"}})
	}
	return f
}

type harness struct {
	t      *testing.T
	s      *emulator.Server
	clk    *clock.Jump
	base   *transport.Base // for the test's writes and checks
	tasks  *transport.Table
	people *transport.Table
	// copyBase is the copy's client: before each page of a listing of Tasks it calls duringList,
	// so that writes land while the copy is being made.
	copyBase   *transport.Base
	duringList func()
}

// interleaver is a RoundTripper that runs a function before each page of a Tasks listing.
type interleaver struct {
	next http.RoundTripper
	h    *harness
}

func (l interleaver) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == "GET" && req.URL.Path == "/v0/"+repBase+"/"+tasksID && l.h.duringList != nil {
		l.h.duringList()
	}
	return l.next.RoundTrip(req)
}

func newHarness(t *testing.T, computed bool) *harness {
	t.Helper()
	return newHarnessFor(t, computed, emulator.DefaultToken)
}

// pollToken is a token without webhook:manage: a copy made with it polls (poll.go).
const pollToken = "patNOHOOKS.secret"

// newHarnessFor is newHarness with the copy's client using copyToken (emulator.DefaultToken, or
// pollToken).
func newHarnessFor(t *testing.T, computed bool, copyToken string) *harness {
	t.Helper()
	clk := clock.NewJump(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC))
	f := fixture(computed)
	f.Tokens = []emulator.FixtureToken{
		{Token: emulator.DefaultToken, Bases: []string{repBase}, Scopes: []string{"data.records:read", "data.records:write", "schema.bases:read", "schema.bases:write", "webhook:manage"}},
		{Token: pollToken, Bases: []string{repBase}, Scopes: []string{"data.records:read", "data.records:write", "schema.bases:read"}},
	}
	s, err := emulator.New(emulator.WithFixture(f), emulator.WithClock(clk), emulator.WithRate(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	b, err := transport.NewBase(emulator.DefaultToken, repBase, transport.WithEndpointURL(emulator.InProcessURL),
		transport.WithHTTPClient(s.Client()), transport.WithClock(clk), transport.WithRetryStrategy(transport.RetryStrategy()))
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, s: s, clk: clk, base: b, tasks: b.Table(tasksID), people: b.Table(peopleID)}
	h.copyBase, err = transport.NewBase(copyToken, repBase, transport.WithEndpointURL(emulator.InProcessURL),
		transport.WithHTTPClient(&http.Client{Transport: interleaver{next: s.Transport(), h: h}}), transport.WithClock(clk),
		transport.WithRetryStrategy(transport.RetryStrategy()))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// renameField renames a field through the metadata API (PATCH …/fields/{id}).
func (h *harness) renameField(fieldID, name string) {
	h.t.Helper()
	body, _ := json.Marshal(map[string]string{"name": name})
	req, _ := http.NewRequest("PATCH", emulator.InProcessURL+"/v0/meta/bases/"+repBase+"/tables/"+tasksID+"/fields/"+fieldID, strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+emulator.DefaultToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := h.s.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		h.t.Fatalf("rename field %s: HTTP %d", fieldID, res.StatusCode)
	}
}

// assertEqual compares the copies with fresh listings, record by record and field by field, and
// their fields with the schema.
func (h *harness) assertEqual(tbls []*Table, when string) {
	h.t.Helper()
	for _, tbl := range tbls {
		h.assertTableEqual(tbl, when+", table "+tbl.ID())
	}
}

func (h *harness) assertTableEqual(tbl *Table, when string) {
	h.t.Helper()
	recs, err := h.base.All(bg, tbl.ID(), transport.ListOptions{ReturnFieldsByFieldID: true})
	if err != nil {
		h.t.Fatal(err)
	}
	rows := tbl.Rows()
	if len(rows) != len(recs) {
		h.t.Fatalf("%s: the copy has %d records, the base %d", when, len(rows), len(recs))
	}
	for _, r := range recs {
		row, ok := rows[r.ID]
		if !ok {
			h.t.Fatalf("%s: record %s is missing from the copy", when, r.ID)
		}
		if !row.CreatedTime.Equal(r.CreatedTime) {
			h.t.Fatalf("%s: record %s createdTime %v, base %v", when, r.ID, row.CreatedTime, r.CreatedTime)
		}
		ids := slices.Sorted(func(yield func(string) bool) {
			seen := map[string]bool{}
			for id := range r.Fields {
				seen[id] = true
			}
			for id := range row.Cells {
				seen[id] = true
			}
			for id := range seen {
				if !yield(id) {
					return
				}
			}
		})
		for _, id := range ids {
			if !reflect.DeepEqual(row.Cells[id], r.Fields[id]) {
				h.t.Fatalf("%s: record %s field %s: copy %#v, base %#v", when, r.ID, id, row.Cells[id], r.Fields[id])
			}
		}
	}
	schema, err := h.base.Schema(bg)
	if err != nil {
		h.t.Fatal(err)
	}
	var want []Field
	for _, ts := range schema.Tables {
		if ts.ID == tbl.ID() {
			for _, f := range ts.Fields {
				want = append(want, Field{ID: f.ID, Name: f.Name, Type: f.Type})
			}
		}
	}
	got := tbl.Fields()
	sortFields := func(fs []Field) { sort.Slice(fs, func(i, j int) bool { return fs[i].ID < fs[j].ID }) }
	sortFields(got)
	sortFields(want)
	if !reflect.DeepEqual(got, want) {
		h.t.Fatalf("%s: fields\n copy %v\n base %v", when, got, want)
	}
}

// A seeded random run of creates, updates, deletes, typecast writes, links, fields added, renamed
// and deleted, with Syncs in between and faults (a 500 on payloads, an error payload, payloads
// lost to retention, an expired webhook): after each catching up the copy equals the base. With
// computed fields (a lookup, a formula) a deleted field makes the copy list the table again; without,
// only the faults do.
func TestReplicaRandomized(t *testing.T) {
	for _, computed := range []bool{false, true} {
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(fmt.Sprintf("computed=%v seed=%d", computed, seed), func(t *testing.T) { runRandomized(t, seed, 1000, computed) })
		}
	}
}

func runRandomized(t *testing.T, seed uint64, ops int, computed bool) {
	h := newHarness(t, computed)
	rb, err := OpenBase(bg, h.copyBase, Options{Clock: h.clk})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := rb.Table(bg, tasksID)
	if err != nil {
		t.Fatal(err)
	}
	copies := []*Table{tbl}
	h.assertEqual(copies, "after the first copy")
	rng := rand.New(rand.NewPCG(seed, 99))
	w := newRandomWriter(h, rng)
	// While the copy lists the table, other clients write: the listing sees some of it.
	h.duringList = w.duringList
	openPeople := ops / 10 // People is copied later, on its first use, and follows the same webhook
	faultAt := map[int]string{ops / 5: "500", 2 * ops / 5: "error payload", 3 * ops / 5: "gap", 4 * ops / 5: "expired"}
	for i := range ops {
		if i == openPeople {
			ppl, err := rb.Table(bg, peopleID)
			if err != nil {
				t.Fatal(err)
			}
			copies = append(copies, ppl)
			if err := rb.Sync(bg); err != nil {
				t.Fatal(err)
			}
			h.assertEqual(copies, "after People's first copy")
		}
		switch fault := faultAt[i]; fault {
		case "500":
			h.s.InjectFault(emulator.Fault{Method: "GET", Path: "/v0/bases/" + repBase + "/webhooks/" + tbl.Webhook() + "/payloads", Status: 500, Times: 1})
		case "error payload":
			from := tbl.Cursor()
			for _, c := range copies {
				from = min(from, c.Cursor())
			}
			body := fmt.Sprintf(`{"payloads":[{"timestamp":"2025-06-01T00:00:00.000Z","baseTransactionNumber":1,"actionMetadata":{"source":"system"},"payloadFormat":"v0","error":true,"code":"INVALID_HOOK"}],"cursor":%d,"mightHaveMore":false,"payloadFormat":"v0"}`, from+1)
			h.s.InjectFault(emulator.Fault{Method: "GET", Path: "/v0/bases/" + repBase + "/webhooks/" + tbl.Webhook() + "/payloads", Status: 200, Body: body, Times: 1})
		case "gap": // someone else keeps the hook alive while the copy does not read for 8 days
			if _, err := h.tasks.Create(bg, map[string]any{fldName: "before the gap"}, transport.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			<-h.clk.After(6 * 24 * time.Hour)
			if _, err := h.base.RefreshWebhook(bg, tbl.Webhook()); err != nil {
				t.Fatal(err)
			}
			<-h.clk.After(2*24*time.Hour + time.Hour)
		case "expired":
			<-h.clk.After(8 * 24 * time.Hour)
			if _, err := h.tasks.Create(bg, map[string]any{fldName: "while expired"}, transport.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if faultAt[i] != "" {
			before := make([]int, len(copies))
			for j, c := range copies {
				before[j] = c.Stats().Copies
			}
			if err := rb.Sync(bg); err != nil {
				t.Fatalf("op %d, Sync after %s: %v", i, faultAt[i], err)
			}
			for j, c := range copies {
				if faultAt[i] != "500" && c.Stats().Copies != before[j]+1 {
					t.Fatalf("after %s: table %s copied %d times, want %d", faultAt[i], c.ID(), c.Stats().Copies, before[j]+1)
				}
			}
			h.assertEqual(copies, "after "+faultAt[i])
			w.resetTasks()
			continue
		}
		if w.write(i, rng.IntN(20)) {
			continue
		}
		// catch up now and then, and compare
		if err := rb.Sync(bg); err != nil {
			t.Fatalf("op %d Sync: %v", i, err)
		}
		h.assertEqual(copies, fmt.Sprintf("op %d", i))
	}
	if err := rb.Sync(bg); err != nil {
		t.Fatal(err)
	}
	h.assertEqual(copies, "at the end")
	// Caught up, a Sync sends one request: the payload read, which finds nothing.
	h.s.ResetRequests()
	if err := rb.Sync(bg); err != nil {
		t.Fatal(err)
	}
	if reqs := h.s.Requests(); len(reqs) != 1 || !strings.HasSuffix(reqs[0].Path, "/payloads") {
		t.Errorf("an idle Sync sent %d requests, want 1 payload read", len(reqs))
	}
	if hooks, err := h.base.Webhooks(bg); err != nil || len(hooks) != 1 {
		t.Errorf("the base has %d webhooks (%v), want 1: the copies share it, dead ones are deleted", len(hooks), err)
	}
	st := tbl.Stats()
	t.Logf("seed %d: %d ops, %d records, %d payloads applied, %d copies; People %+v", seed, ops, len(tbl.Rows()), st.PayloadsApplied, st.Copies, copies[1].Stats())
	if st.PayloadsApplied < ops/4 {
		t.Errorf("only %d payloads applied in %d operations: the copy was kept current by copying, not by payloads", st.PayloadsApplied, ops)
	}
	for _, c := range copies {
		if !(computed && c.ID() == tasksID) && c.Stats().Copies != 4 { // the first, then after the error payload, the gap and the expiry
			t.Errorf("table %s copied %d times, want 4: without computed fields every schema change applies from payloads", c.ID(), c.Stats().Copies)
		}
	}
}

// SyncIfOlder reads payloads only when the last Sync is at least that old; Synced says when the
// copies were current.
func TestSyncIfOlder(t *testing.T) {
	h := newHarness(t, false)
	tbl, err := Open(bg, h.base, tasksID, Options{Clock: h.clk})
	if err != nil {
		t.Fatal(err)
	}
	b := tbl.Base()
	if got, want := b.Synced(), h.clk.Now(); !got.Equal(want) {
		t.Fatalf("Synced after the first copy, before any Sync: got %v, want %v (when its listing began)", got, want)
	}
	if err := b.Sync(bg); err != nil {
		t.Fatal(err)
	}
	synced := b.Synced()
	if _, err := h.tasks.Create(bg, map[string]any{fldName: "new"}, transport.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.s.ResetRequests()
	if err := b.SyncIfOlder(bg, time.Hour); err != nil {
		t.Fatal(err)
	}
	if n := len(h.s.Requests()); n != 0 || len(tbl.Rows()) != 1 {
		t.Fatalf("within the hour: %d requests, %d records; want none and the old copy", n, len(tbl.Rows()))
	}
	<-h.clk.After(time.Hour)
	if err := b.SyncIfOlder(bg, time.Hour); err != nil {
		t.Fatal(err)
	}
	if n := len(h.s.Requests()); n != 1 || len(tbl.Rows()) != 2 || !b.Synced().After(synced) {
		t.Fatalf("an hour later: %d requests, %d records, synced %v (was %v); want 1, 2, later", n, len(tbl.Rows()), b.Synced(), synced)
	}
}

// Reads of a copy while Sync applies payloads to it (run with -race): every read sees a whole
// record as some payload left it.
func TestReadsDuringSync(t *testing.T) {
	h := newHarness(t, false)
	tbl, err := Open(bg, h.base, tasksID, Options{Clock: h.clk})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		if _, err := h.tasks.Create(bg, map[string]any{fldName: fmt.Sprintf("r%d", i), fldN: float64(i)}, transport.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, r := range tbl.Rows() {
				if name, _ := r.Cells[fldName].(string); name != "first" && r.Cells[fldN] == nil {
					t.Errorf("record %s read half applied: %v", r.ID, r.Cells)
					return
				}
			}
			_ = tbl.Fields()
		}
	}()
	err = tbl.Sync(bg)
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	h.assertEqual([]*Table{tbl}, "after Sync")
}

// A table asked for after the webhook expired (no copy read it for a week) gets a new webhook,
// and the tables copied before are copied again from it.
func TestTableAfterExpiry(t *testing.T) {
	h := newHarness(t, false)
	tasks, err := Open(bg, h.base, tasksID, Options{Clock: h.clk})
	if err != nil {
		t.Fatal(err)
	}
	old := tasks.Webhook()
	<-h.clk.After(8 * 24 * time.Hour)
	if _, err := h.tasks.Create(bg, map[string]any{fldName: "while expired"}, transport.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	people, err := tasks.Base().Table(bg, peopleID)
	if err != nil {
		t.Fatal(err)
	}
	if tasks.Webhook() == old || tasks.Stats().Copies != 2 || people.Stats().Copies != 1 {
		t.Fatalf("webhook %s (was %s), copies: Tasks %d, People %d; want a new webhook, 2 and 1", tasks.Webhook(), old, tasks.Stats().Copies, people.Stats().Copies)
	}
	if err := tasks.Sync(bg); err != nil {
		t.Fatal(err)
	}
	h.assertEqual([]*Table{tasks, people}, "after the new webhook")
}
