package replica

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/transport"
)

// openPolling opens a copy with a token without webhook:manage: it polls.
func openPolling(t *testing.T, h *harness) *Base {
	t.Helper()
	rb, err := OpenBase(bg, h.copyBase, Options{Clock: h.clk})
	if err != nil {
		t.Fatalf("OpenBase without the webhook scope: %v", err)
	}
	if rb.Polling() == nil {
		t.Fatal("OpenBase without the webhook scope follows a webhook, want polling")
	}
	return rb
}

// assertPolled checks what polling promises right after a Sync: every record of the base is in
// the copy with its createdTime and every non-computed cell; a record of the copy the base lacks
// was deleted since the last id listing (it is one of gone). It returns how many such there are.
func (h *harness) assertPolled(tbl *Table, when string, gone map[string]bool) int {
	h.t.Helper()
	recs, err := h.base.All(bg, tbl.ID(), transport.ListOptions{ReturnFieldsByFieldID: true})
	if err != nil {
		h.t.Fatal(err)
	}
	schema, err := h.base.Schema(bg)
	if err != nil {
		h.t.Fatal(err)
	}
	ts := TableSchemaOf(schema, tbl.ID())
	rows := tbl.Rows()
	inBase := map[string]bool{}
	for _, r := range recs {
		inBase[r.ID] = true
		row, ok := rows[r.ID]
		if !ok {
			h.t.Fatalf("%s: record %s is missing from the copy", when, r.ID)
		}
		if !row.CreatedTime.Equal(r.CreatedTime) {
			h.t.Fatalf("%s: record %s createdTime %v, base %v", when, r.ID, row.CreatedTime, r.CreatedTime)
		}
		for _, f := range ts.Fields {
			if computedType[f.Type] {
				continue
			}
			if !reflect.DeepEqual(row.Cells[f.ID], r.Fields[f.ID]) {
				h.t.Fatalf("%s: record %s field %s (%s): copy %#v, base %#v", when, r.ID, f.ID, f.Name, row.Cells[f.ID], r.Fields[f.ID])
			}
		}
	}
	extra := 0
	for id := range rows {
		if !inBase[id] {
			if !gone[id] {
				h.t.Fatalf("%s: the copy holds record %s, which the base never deleted", when, id)
			}
			extra++
		}
	}
	return extra
}

// TestPollingRandomized is TestReplicaRandomized without the webhook scope: a seeded random run
// of creates, updates, deletes, typecast writes, links, fields added, renamed and deleted, writes
// landing while the copy lists, the clock moving on, and faults on the listings (429, 500, an
// answer dropped). After each Sync every record of the base is in the copy with its own cells
// (assertPolled); after FullCheck has passed, the copy equals the base record by record, field
// by field, computed fields and deletions included.
func TestPollingRandomized(t *testing.T) {
	for _, computed := range []bool{false, true} {
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(fmt.Sprintf("computed=%v seed=%d", computed, seed), func(t *testing.T) { runPollingRandomized(t, seed, 1000, computed) })
		}
	}
}

func runPollingRandomized(t *testing.T, seed uint64, ops int, computed bool) {
	h := newHarnessFor(t, computed, pollToken)
	rb := openPolling(t, h)
	tbl, err := rb.Table(bg, tasksID)
	if err != nil {
		t.Fatal(err)
	}
	copies := []*Table{tbl}
	h.assertEqual(copies, "after the first copy")
	rng := rand.New(rand.NewPCG(seed, 7))
	w := newRandomWriter(h, rng)
	h.duringList = w.duringList // while the copy lists Tasks (copies and polls), another client writes
	listPath := "/v0/" + repBase + "/" + tasksID
	faultAt := map[int]emulator.Fault{
		ops / 5:     {Method: "GET", Path: listPath, Status: 429, Times: 1},
		2 * ops / 5: {Method: "GET", Path: listPath, Status: 500, Times: 1},
		3 * ops / 5: {Method: "GET", Path: listPath, Drop: true, Times: 1},
	}
	// quiet syncs with no write landing during it: what it must show is what the base held
	// when it began.
	quiet := func(when string) {
		t.Helper()
		during := h.duringList
		h.duringList = nil
		defer func() { h.duringList = during }()
		if err := rb.Sync(bg); err != nil {
			t.Fatalf("%s: Sync: %v", when, err)
		}
	}
	// catchUp syncs with writes landing during its listings, then quietly, and checks.
	catchUp := func(when string) {
		t.Helper()
		if err := rb.Sync(bg); err != nil {
			t.Fatalf("%s: Sync: %v", when, err)
		}
		quiet(when)
		for _, c := range copies {
			h.assertPolled(c, when+", table "+c.ID(), w.gone)
		}
	}
	for i := range ops {
		if i == ops/10 {
			ppl, err := rb.Table(bg, peopleID)
			if err != nil {
				t.Fatal(err)
			}
			copies = append(copies, ppl)
			catchUp("after People's first copy")
		}
		if f, ok := faultAt[i]; ok {
			h.s.InjectFault(f)
			catchUp(fmt.Sprintf("op %d, after a fault", i))
		}
		if rng.IntN(10) == 0 { // time passes: windows, the schema's TTL and FullCheck come due
			<-h.clk.After(time.Duration(rng.IntN(90)) * time.Second)
		}
		switch op := rng.IntN(22); {
		case op < 17 && w.write(i, op):
		case op < 20:
			catchUp(fmt.Sprintf("op %d", i))
		default: // FullCheck passes: the copy equals the base, deletions and computed values included
			<-h.clk.After(rb.FullCheck())
			quiet(fmt.Sprintf("op %d, FullCheck later", i))
			h.assertEqual(copies, fmt.Sprintf("op %d, after FullCheck", i))
		}
	}
	<-h.clk.After(rb.FullCheck())
	quiet("at the end")
	h.assertEqual(copies, "at the end")
	st := tbl.Stats()
	t.Logf("seed %d: %d ops, %d records, %d polls changed the copy, %d copies; People %+v", seed, ops, len(tbl.Rows()), st.PayloadsApplied, st.Copies, copies[1].Stats())
	if st.PayloadsApplied < ops/20 {
		t.Errorf("only %d polls changed Tasks in %d operations: kept current by copying, not by polling", st.PayloadsApplied, ops)
	}
	if !computed && st.Copies != 1 {
		t.Errorf("Tasks copied %d times, want 1: without computed fields every schema change applies from polls", st.Copies)
	}
	if hooks, err := h.base.Webhooks(bg); err != nil || len(hooks) != 0 {
		t.Errorf("the base has %d webhooks (%v), want none", len(hooks), err)
	}
}

// listKind names a request of a poll: schema, changes (the LAST_MODIFIED_TIME() listing), ids
// (the FullCheck listing).
func listKind(r emulator.Request) string {
	if strings.HasPrefix(r.Path, "/v0/meta/bases/") {
		return "schema"
	}
	q, _ := url.ParseQuery(r.Query)
	table := r.Path[strings.LastIndex(r.Path, "/")+1:]
	switch {
	case strings.Contains(q.Get("filterByFormula"), "LAST_MODIFIED_TIME()"):
		return "changes " + table
	case len(q["fields[]"]) > 0:
		return "ids " + table
	}
	return r.Method + " " + r.Path
}

// Requests per poll, counted: with nothing changed, one listing of the changes per table; the
// schema once per SchemaTTL; the ids once per FullCheck.
func TestPollingRequests(t *testing.T) {
	h := newHarnessFor(t, false, pollToken)
	rb := openPolling(t, h)
	if err := rb.CopyTables(bg, []string{tasksID, peopleID}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		advance time.Duration
		want    []string
	}{
		{"right after the copy", 0, []string{"changes " + peopleID, "changes " + tasksID}},
		{"again", time.Second, []string{"changes " + peopleID, "changes " + tasksID}},
		{"past the schema's TTL", SchemaTTL, []string{"changes " + peopleID, "changes " + tasksID, "schema"}},
		{"past FullCheck", DefaultFullCheck, []string{"changes " + peopleID, "changes " + tasksID, "ids " + peopleID, "ids " + tasksID, "schema"}},
		{"after FullCheck", time.Second, []string{"changes " + peopleID, "changes " + tasksID}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			<-h.clk.After(s.advance)
			h.s.ResetRequests()
			if err := rb.Sync(bg); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range h.s.Requests() {
				got = append(got, listKind(r))
			}
			slices.Sort(got)
			if !slices.Equal(got, s.want) {
				t.Errorf("a poll sent %v, want %v", got, s.want)
			}
		})
	}
}

// A record another client deletes stays in the copy until the next id listing, FullCheck after
// the last; one it changes is in the copy after the next poll; one this client deletes (Patch)
// is gone at once.
func TestPollingDeletions(t *testing.T) {
	h := newHarnessFor(t, false, pollToken)
	rb := openPolling(t, h)
	tbl, err := rb.Table(bg, tasksID)
	if err != nil {
		t.Fatal(err)
	}
	a, err := h.tasks.Create(bg, map[string]any{fldName: "a"}, transport.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := h.tasks.Create(bg, map[string]any{fldName: "b"}, transport.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := rb.Sync(bg); err != nil {
		t.Fatal(err)
	}
	if _, ok := tbl.Row(a.ID); !ok {
		t.Fatalf("record %s created by another client is not in the copy after a poll", a.ID)
	}
	if _, err := h.tasks.Delete(bg, a.ID); err != nil {
		t.Fatal(err)
	}
	<-h.clk.After(rb.FullCheck() / 2)
	if err := rb.Sync(bg); err != nil {
		t.Fatal(err)
	}
	if _, ok := tbl.Row(a.ID); !ok {
		t.Fatalf("record %s is gone before FullCheck passed: got an id listing early", a.ID)
	}
	m := tbl.Mark()
	if _, err := h.tasks.Delete(bg, b.ID); err != nil { // as the driver does: the write, then Patch
		t.Fatal(err)
	}
	if err := tbl.Patch(m, nil, []string{b.ID}); err != nil {
		t.Fatalf("Patch: %v", err)
	}
	if _, ok := tbl.Row(b.ID); ok {
		t.Fatalf("record %s deleted by this client (Patch) is still in the copy", b.ID)
	}
	<-h.clk.After(rb.FullCheck() / 2)
	if err := rb.Sync(bg); err != nil {
		t.Fatal(err)
	}
	if _, ok := tbl.Row(a.ID); ok {
		t.Fatalf("record %s deleted by another client is still in the copy FullCheck after", a.ID)
	}
	if _, ok := tbl.Row(b.ID); ok {
		t.Fatalf("record %s deleted by this client is back in the copy", b.ID)
	}
	h.assertEqual([]*Table{tbl}, "after FullCheck")
}

// A polling copy kept in a directory resumes after a restart: polling, from the time of its last
// poll (the changes made while it was down are listed, nothing is copied again), and with no
// webhook created.
func TestPollingRestart(t *testing.T) {
	h := newHarnessFor(t, false, pollToken)
	dir := t.TempDir()
	rb, err := OpenBase(bg, h.copyBase, Options{Clock: h.clk, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.Table(bg, tasksID); err != nil {
		t.Fatal(err)
	}
	if err := rb.Close(bg); err != nil {
		t.Fatalf("Close of a polling copy: %v", err)
	}
	<-h.clk.After(time.Hour) // down for an hour, while another client writes
	created, err := h.tasks.Create(bg, map[string]any{fldName: "while down"}, transport.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.s.ResetRequests()
	again, err := OpenBase(bg, h.copyBase, Options{Clock: h.clk, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if again.Polling() == nil {
		t.Fatal("the restarted copy follows a webhook, want polling as before")
	}
	tbl, ok := again.Copied(tasksID)
	if !ok {
		t.Fatal("the restarted copy lost Tasks")
	}
	if err := again.Sync(bg); err != nil {
		t.Fatal(err)
	}
	if _, ok := tbl.Row(created.ID); !ok {
		t.Fatalf("record %s created while the copy was down is missing after the first poll", created.ID)
	}
	if st := tbl.Stats(); st.Copies != 1 {
		t.Errorf("Tasks copied %d times, want 1: a restart polls from its last poll", st.Copies)
	}
	for _, r := range h.s.Requests() {
		if k := listKind(r); !strings.HasPrefix(k, "changes ") && !strings.HasPrefix(k, "ids ") && k != "schema" {
			t.Errorf("the restart sent %s, want only a poll's requests", k)
		}
	}
	h.assertEqual([]*Table{tbl}, "after the restart")
}

// Copies that follow the webhook switch to polling when the service starts refusing it (the
// token lost webhook:manage): the first poll lists what changed since the last sync and the ids
// (a deletion is found at once), and the copies equal the base; later Syncs send no webhook
// request.
func TestPollingFallBack(t *testing.T) {
	h := newHarness(t, false)
	rb, tbl := h.followTasks(t)
	<-h.clk.After(time.Minute)
	created, err := h.tasks.Create(bg, map[string]any{fldName: "after the last sync"}, transport.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.tasks.Delete(bg, "recTASK0000000001"); err != nil {
		t.Fatal(err)
	}
	h.s.InjectFault(emulator.Fault{Path: "/v0/bases/" + repBase + "/webhooks", Status: 403})
	if err := rb.Sync(bg); err != nil {
		t.Fatalf("Sync once the webhook is refused: %v", err)
	}
	if rb.Polling() == nil {
		t.Fatal("the copies still follow the webhook, want polling")
	}
	if _, ok := tbl.Row(created.ID); !ok {
		t.Errorf("record %s created after the last sync is missing", created.ID)
	}
	h.assertEqual([]*Table{tbl}, "after falling back to polling")
	h.s.ResetRequests()
	if err := rb.Sync(bg); err != nil {
		t.Fatal(err)
	}
	for _, r := range h.s.Requests() {
		if k := listKind(r); !strings.HasPrefix(k, "changes ") {
			t.Errorf("a Sync after the fall-back sent %s, want only the listing of changes", k)
		}
	}
}

// A listing the service refuses (403: a token without data.records:read) while the copies follow
// a webhook is an error of that sync, not a refusal of the webhook: the copies keep following one
// (only a refused webhook request makes them poll).
func TestListingRefusedIsNotPolling(t *testing.T) {
	h := newHarness(t, false)
	rb, tbl := h.followTasks(t)
	// The webhook gone: the next sync makes a new one and lists the table again, refused once.
	if err := h.copyBase.DeleteWebhook(bg, rb.Webhook()); err != nil {
		t.Fatal(err)
	}
	h.s.InjectFault(emulator.Fault{Method: "GET", Path: "/v0/" + repBase + "/" + tasksID, Status: 403, Times: 1})
	if err := rb.Sync(bg); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("Sync with the listing refused: got %v, want the 403", err)
	}
	if rb.Polling() != nil {
		t.Fatalf("a refused listing made the copies poll: %v", rb.Polling())
	}
	if err := rb.Sync(bg); err != nil {
		t.Fatal(err)
	}
	if rb.Polling() != nil || rb.Webhook() == "" {
		t.Errorf("got webhook %q, polling %v: want a webhook followed", rb.Webhook(), rb.Polling())
	}
	h.assertEqual([]*Table{tbl}, "after the listing is allowed")
}

// followTasks opens a replica of the harness's base that follows its webhook, copies Tasks and
// syncs once.
func (h *harness) followTasks(t *testing.T) (*Base, *Table) {
	t.Helper()
	rb, err := OpenBase(bg, h.copyBase, Options{Clock: h.clk})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := rb.Table(bg, tasksID)
	if err != nil {
		t.Fatal(err)
	}
	if err := rb.Sync(bg); err != nil {
		t.Fatal(err)
	}
	return rb, tbl
}
