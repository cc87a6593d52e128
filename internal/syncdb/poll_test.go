package syncdb

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/replica"
	"github.com/airsql/airsql/transport"
)

// pollToken is a token without webhook:manage: a sync with it polls (poll.go).
const pollToken = "patNOHOOKS.secret"

// pollHarness is a harness whose Syncer's client uses a token without the webhook scope (or
// the default token, for a fall-back), and calls duringList before each page of a listing of
// Tasks, so that writes land while the Syncer lists.
type pollHarness struct {
	*harness
	duringList func()
}

type interleaver struct {
	next http.RoundTripper
	h    *pollHarness
}

func (l interleaver) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == "GET" && req.URL.Path == "/v0/"+syncBase+"/"+tasksID && l.h.duringList != nil {
		l.h.duringList()
	}
	return l.next.RoundTrip(req)
}

func newPollHarness(t *testing.T, syncToken string) *pollHarness {
	t.Helper()
	h := newHarness(t)
	f := fixture()
	f.Tokens = []emulator.FixtureToken{
		{Token: emulator.DefaultToken, Bases: []string{syncBase}, Scopes: []string{"data.records:read", "data.records:write", "schema.bases:read", "schema.bases:write", "webhook:manage"}},
		{Token: pollToken, Bases: []string{syncBase}, Scopes: []string{"data.records:read", "schema.bases:read"}},
	}
	s, err := emulator.New(emulator.WithFixture(f), emulator.WithClock(h.clk), emulator.WithRate(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ph := &pollHarness{harness: h}
	h.s, h.base = s, newBase(t, s.Client(), emulator.InProcessURL, h.clk)
	hc := &http.Client{Transport: interleaver{next: s.Transport(), h: ph}}
	h.sync, err = transport.NewBase(syncToken, syncBase, transport.WithEndpointURL(emulator.InProcessURL),
		transport.WithHTTPClient(hc), transport.WithClock(h.clk), transport.WithRetryStrategy(transport.RetryStrategy()))
	if err != nil {
		t.Fatal(err)
	}
	return ph
}

// assertPolled checks what polling promises right after a poll that began when no write was in
// flight: every record of the base is in the target with its createdTime and every non-computed
// cell; a row of the target the base lacks is a record deleted since the last id listing (one
// of gone). It returns how many such rows there are.
func (h *harness) assertPolled(tg *Target, when string, gone map[string]bool) int {
	h.t.Helper()
	schema, err := h.base.Schema(bg)
	if err != nil {
		h.t.Fatal(err)
	}
	extra := 0
	for _, src := range schema.Tables {
		ts := &tableState{ID: src.ID, Name: src.Name, Fields: map[string]fieldState{}}
		types := map[string]string{"id": "TEXT", "createdTime": "DATETIME"}
		computed := map[string]bool{}
		for _, f := range src.Fields {
			ts.Fields[f.ID] = fieldState{Field: fieldOf(f), Options: f.Options}
			ts.Order = append(ts.Order, f.ID)
			_, computed[f.Name] = replica.ComputedCells(&transport.TableSchema{Fields: []transport.FieldSchema{f}}, transport.Record{})[f.ID]
		}
		if err := ts.reshape(); err != nil {
			h.t.Fatal(err)
		}
		for fid, f := range ts.Fields {
			types[f.Name] = ts.shape.dbType(fid)
		}
		recs, err := h.base.All(bg, src.ID, transport.ListOptions{ReturnFieldsByFieldID: true})
		if err != nil {
			h.t.Fatal(err)
		}
		got := h.readTable(tg, src.Name, types, when)
		inBase := map[string]bool{}
		for _, r := range recs {
			inBase[r.ID] = true
			vals, err := ts.shape.values(r.ID, r.CreatedTime, r.Fields, true)
			if err != nil {
				h.t.Fatal(err)
			}
			gr, ok := got[r.ID]
			if !ok {
				h.t.Fatalf("%s: record %s of %s is not in the target", when, r.ID, src.Name)
			}
			if c, w := gr["createdTime"], norm("DATETIME", r.CreatedTime); c != w {
				h.t.Fatalf("%s: %s record %s createdTime: got %s, want %s", when, src.Name, r.ID, c, w)
			}
			for fid, v := range vals {
				name := ts.Fields[fid].Name
				if w := norm(ts.shape.dbType(fid), v); !computed[name] && gr[name] != w {
					h.t.Fatalf("%s: %s record %s column %q: got %s, want %s", when, src.Name, r.ID, name, gr[name], w)
				}
			}
		}
		for id := range got {
			if !inBase[id] {
				if !gone[id] {
					h.t.Fatalf("%s: %s holds record %s, which the base never deleted", when, src.Name, id)
				}
				extra++
			}
		}
	}
	return extra
}

// TestPollingRandomized is TestSyncRandomized without the webhook scope, into SQLite and
// PostgreSQL: a seeded random run of creates, updates, deletes, typecast writes, links, fields
// added, renamed and deleted, a table created, renamed and deleted, writes landing while the
// Syncer lists (copies and polls), the clock moving on, restarts, and faults on the listings (429,
// 500, an answer dropped). After each poll every record of the base is in the target with its
// own cells (assertPolled); after FullCheck has passed, the target equals the base record by
// record, field by field, computed fields, links and deletions included (assertEqual).
func TestPollingRandomized(t *testing.T) {
	t.Parallel()
	targets(t, func(t *testing.T, url string) {
		t.Parallel()
		runPollingRandomized(t, url, 1, 1000)
	})
}

func runPollingRandomized(t *testing.T, url string, seed uint64, ops int) {
	h := newPollHarness(t, pollToken)
	var logged []string
	opts := Options{Log: func(msg string) { logged = append(logged, msg) }}
	s, tg := h.syncer(url, opts)
	if err := s.CatchUp(bg); err != nil {
		t.Fatal(err)
	}
	if s.Polling() == nil {
		t.Fatal("a sync without the webhook scope follows a webhook, want polling")
	}
	h.assertEqual(tg, "after the first copy")
	rng := rand.New(rand.NewPCG(seed, 7))
	w := newRandomWriter(t, h.harness, rng)
	writes, tried := 0, 0
	h.duringList = func() { // another client writes while the Syncer lists Tasks
		if rng.IntN(3) == 0 {
			tried++
			if w.write(ops+tried, rng.IntN(17)) { // numbered past the run's own operations: names stay unique
				writes++
			}
		}
	}
	polls, copies := 0, 0
	restart := func() {
		polls, copies = polls+s.Stats().Polls, copies+s.Stats().Copies
		s, tg = h.syncer(url, opts)
	}
	// quiet polls with no write landing during it (after the schema's TTL, so that renamed and
	// deleted fields are in it): what it must show is what the base held when it began.
	quiet := func(when string) {
		t.Helper()
		during := h.duringList
		h.duringList = nil
		defer func() { h.duringList = during }()
		<-h.clk.After(replica.SchemaTTL)
		if err := s.CatchUp(bg); err != nil {
			t.Fatalf("%s: CatchUp: %v", when, err)
		}
	}
	catchUp := func(when string) {
		t.Helper()
		if rng.IntN(3) == 0 {
			restart()
		}
		if err := s.CatchUp(bg); err != nil {
			t.Fatalf("%s: CatchUp: %v", when, err)
		}
		quiet(when)
		h.assertPolled(tg, when, w.gone)
	}
	listPath := "/v0/" + syncBase + "/" + tasksID
	faultAt := map[int]emulator.Fault{
		ops / 5:     {Method: "GET", Path: listPath, Status: 429, Times: 1},
		2 * ops / 5: {Method: "GET", Path: listPath, Status: 500, Times: 1},
		3 * ops / 5: {Method: "GET", Path: listPath, Drop: true, Times: 1},
	}
	for i := range ops {
		if f, ok := faultAt[i]; ok {
			h.s.InjectFault(f)
			catchUp(fmt.Sprintf("op %d, after a fault", i))
		}
		if rng.IntN(10) == 0 { // time passes: windows, the schema's TTL and FullCheck come due
			<-h.clk.After(time.Duration(rng.IntN(90)) * time.Second)
		}
		if w.tableStep(i, ops) {
			continue
		}
		switch op := rng.IntN(22); {
		case w.write(i, op):
		case op < 20:
			catchUp(fmt.Sprintf("op %d", i))
		default: // FullCheck passes: the target equals the base, deletions and computed values included
			<-h.clk.After(s.FullCheck())
			quiet(fmt.Sprintf("op %d, FullCheck later", i))
			h.assertEqual(tg, fmt.Sprintf("op %d, after FullCheck", i))
		}
	}
	<-h.clk.After(s.FullCheck())
	quiet("at the end")
	h.assertEqual(tg, "at the end")
	restart()
	t.Logf("seed %d: %d operations (%d during listings), %d polls, %d tables copied", seed, ops, writes, polls, copies)
	if polls < ops/20 {
		t.Errorf("only %d polls in %d operations", polls, ops)
	}
	// Copies: the two first, the table created, and Tasks once per field deleted (it has computed
	// fields); none for a restart or a fault.
	if want := 3 + w.fieldsDeleted; copies > want {
		t.Errorf("%d tables copied, want at most %d (%d fields deleted from Tasks)", copies, want, w.fieldsDeleted)
	}
	if writes == 0 {
		t.Error("no write landed during a listing")
	}
	if hooks, err := h.base.Webhooks(bg); err != nil || len(hooks) != 0 {
		t.Errorf("the base has %d webhooks (%v), want none", len(hooks), err)
	}
	said := 0
	for _, m := range logged {
		if strings.HasPrefix(m, "polling for changes") {
			said++
		}
	}
	if said < 1 {
		t.Errorf("the log never said that the sync polls: %q", logged)
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
// schema once per replica.SchemaTTL; the ids once per FullCheck; a restart adds the schema (the
// tables asked for) and nothing else.
func TestPollingRequests(t *testing.T) {
	h := newPollHarness(t, pollToken)
	url := "sqlite:" + t.TempDir() + "/copy.db"
	s, _ := h.syncer(url, Options{})
	if err := s.CatchUp(bg); err != nil {
		t.Fatal(err)
	}
	changes := []string{"changes " + peopleID, "changes " + tasksID}
	steps := []struct {
		name    string
		advance time.Duration
		restart bool
		want    []string
	}{
		{"right after the copy", 0, false, changes},
		{"again", time.Second, false, changes},
		{"past the schema's TTL", replica.SchemaTTL, false, append(slices.Clone(changes), "schema")},
		{"past FullCheck", replica.DefaultFullCheck, false, append(slices.Clone(changes), "ids "+peopleID, "ids "+tasksID, "schema")},
		{"after FullCheck", time.Second, false, changes},
		{"a restart", time.Second, true, append(slices.Clone(changes), "schema")},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			<-h.clk.After(st.advance)
			if st.restart {
				s, _ = h.syncer(url, Options{})
			}
			h.s.ResetRequests()
			if err := s.CatchUp(bg); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range h.s.Requests() {
				got = append(got, listKind(r))
			}
			slices.Sort(got)
			if !slices.Equal(got, st.want) {
				t.Errorf("a poll sent %v, want %v", got, st.want)
			}
		})
	}
}

// A record another client deletes stays in the target until the next id listing, FullCheck after
// the last; one it creates or changes is in the target after the next poll; a formula's values
// follow a change of another record at the id listing.
func TestPollingDeletions(t *testing.T) {
	h := newPollHarness(t, pollToken)
	s, tg := h.syncer("sqlite:"+t.TempDir()+"/copy.db", Options{FullCheck: time.Hour})
	if err := s.CatchUp(bg); err != nil {
		t.Fatal(err)
	}
	tasks := h.base.Table(tasksID)
	a, err := tasks.Create(bg, map[string]any{fldName: "a"}, transport.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CatchUp(bg); err != nil {
		t.Fatal(err)
	}
	h.assertPolled(tg, "after a create", nil)
	if _, err := tasks.Delete(bg, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.base.Update(bg, peopleID, "recPERSON00000001", map[string]any{"Name": "Grace"}, transport.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	<-h.clk.After(30 * time.Minute)
	if err := s.CatchUp(bg); err != nil {
		t.Fatal(err)
	}
	if n := h.assertPolled(tg, "before FullCheck", map[string]bool{a.ID: true}); n != 1 {
		t.Errorf("before FullCheck the target holds %d deleted records, want 1 (found at the next id listing)", n)
	}
	if got := h.query(tg, `SELECT "Owner Name" FROM "Tasks" WHERE "id" = 'recTASK0000000001'`); !slices.Equal(got, []string{`["Ada"]`}) {
		t.Errorf("before FullCheck the lookup reads %v, want [[\"Ada\"]]: refreshed early", got)
	}
	<-h.clk.After(30 * time.Minute)
	if err := s.CatchUp(bg); err != nil {
		t.Fatal(err)
	}
	h.assertEqual(tg, "after FullCheck")
}

// A sync that follows a webhook switches to polling when the service starts refusing it (the
// token lost webhook:manage), and says so once: the first poll lists what changed since the last
// catching up and the ids (a deletion is found at once), and the target equals the base. A
// restart keeps polling and sends no webhook request.
func TestPollingFallBack(t *testing.T) {
	t.Parallel()
	targets(t, func(t *testing.T, url string) {
		h := newPollHarness(t, emulator.DefaultToken)
		var logged []string
		opts := Options{Log: func(msg string) { logged = append(logged, msg) }}
		s, tg := h.syncer(url, opts)
		if err := s.CatchUp(bg); err != nil {
			t.Fatal(err)
		}
		if s.Polling() != nil {
			t.Fatalf("with the webhook scope the sync polls: %v", s.Polling())
		}
		<-h.clk.After(time.Minute)
		if _, err := h.base.Create(bg, tasksID, map[string]any{fldName: "after the last sync"}, transport.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := h.base.Table(tasksID).Delete(bg, "recTASK0000000001"); err != nil {
			t.Fatal(err)
		}
		h.s.InjectFault(emulator.Fault{Path: "/v0/bases/" + syncBase + "/webhooks", Status: 403})
		if err := s.CatchUp(bg); err != nil {
			t.Fatalf("CatchUp once the webhook is refused: %v", err)
		}
		if s.Polling() == nil {
			t.Fatal("the sync still follows the webhook, want polling")
		}
		if st := s.Stats(); st.Copies != 2 || st.Polls != 1 {
			t.Errorf("got %+v, want the 2 first copies and 1 poll: the switch copies nothing", st)
		}
		h.assertEqual(tg, "after falling back to polling")
		saidOnce := func(when, why string) {
			t.Helper()
			said := 0
			for _, m := range logged {
				if strings.HasPrefix(m, "polling for changes") {
					said++
					if !strings.Contains(m, why) {
						t.Errorf("%s: the log line does not say why (%s): %q", when, why, m)
					}
				}
			}
			if said != 1 {
				t.Errorf("%s: the log said %d times that the sync polls, want once: %q", when, said, logged)
			}
			logged = nil
		}
		saidOnce("the switch", "HTTP 403")
		for range 2 {
			s, tg = h.syncer(url, opts)
			h.s.ResetRequests()
			for range 2 {
				if err := s.CatchUp(bg); err != nil {
					t.Fatal(err)
				}
			}
			if s.Polling() == nil {
				t.Fatal("the restarted sync follows a webhook, want polling as before")
			}
			for _, r := range h.s.Requests() {
				if k := listKind(r); !strings.HasPrefix(k, "changes ") && !strings.HasPrefix(k, "ids ") && k != "schema" {
					t.Errorf("the restart sent %s, want only a poll's requests", k)
				}
			}
			if st := s.Stats(); st.Copies != 0 {
				t.Errorf("the restart copied %d tables, want none", st.Copies)
			}
			saidOnce("a restart", "earlier run")
		}
		if got := h.query(tg, `SELECT "webhook_id" FROM `+syncTable); slices.ContainsFunc(got, func(s string) bool { return s != pollingHook }) {
			t.Errorf("_airsql_sync webhook_id: got %v, want %q on every row", got, pollingHook)
		}
	})
}

// A sync begun without the webhook scope copies every table, creates no webhook, polls, and a
// restart resumes polling from the last poll committed: the records changed while it was down
// are listed, nothing is copied again.
func TestPollingRestart(t *testing.T) {
	h := newPollHarness(t, pollToken)
	url := "sqlite:" + t.TempDir() + "/copy.db"
	s, _ := h.syncer(url, Options{})
	if err := s.CatchUp(bg); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Copies != 2 || st.Polls != 1 {
		t.Errorf("got %+v, want 2 tables copied, then one poll", st)
	}
	<-h.clk.After(time.Hour) // down for an hour, while another client writes
	created, err := h.base.Create(bg, tasksID, map[string]any{fldName: "while down"}, transport.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, tg := h.syncer(url, Options{})
	if err := s.CatchUp(bg); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Copies != 0 || st.RecordsPolled != 1 {
		t.Errorf("the restart: got %+v, want no copy and the one record changed while down listed", st)
	}
	if got := h.query(tg, `SELECT "Name" FROM "Tasks" WHERE "id" = '`+created.ID+`'`); !slices.Equal(got, []string{"while down"}) {
		t.Errorf("record created while the sync was down: got %v", got)
	}
	if hooks, err := h.base.Webhooks(bg); err != nil || len(hooks) != 0 {
		t.Errorf("the base has webhooks %v (%v), want none", hooks, err)
	}
	h.assertEqual(tg, "after the restart")
	stored := h.query(tg, `SELECT "table_id", "cursor" FROM `+syncTable+` WHERE "table_id" <> ''`)
	want := map[string]bool{}
	for _, id := range []string{peopleID, tasksID} {
		want[fmt.Sprintf("%s %d", id, h.clk.Now().UnixMilli())] = true
	}
	if !maps.Equal(want, setOf(stored)) {
		t.Errorf("the stored resume points are %v, want the start of the last poll for each table: %v", stored, slices.Sorted(maps.Keys(want)))
	}
}

func setOf(list []string) map[string]bool {
	out := map[string]bool{}
	for _, s := range list {
		out[s] = true
	}
	return out
}

// A 403 of a listing (a token without data.records:read) is an error, not the service refusing
// the webhook: the sync does not switch to polling, and once the listing is allowed it follows
// the webhook.
func TestListingRefusedIsNotPolling(t *testing.T) {
	h := newPollHarness(t, emulator.DefaultToken)
	s, tg := h.syncer("sqlite:"+t.TempDir()+"/copy.db", Options{})
	h.s.InjectFault(emulator.Fault{Method: "GET", Path: "/v0/" + syncBase + "/" + tasksID, Status: 403, Times: 1})
	err := s.CatchUp(bg)
	if err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("CatchUp with the listing refused: got %v, want the 403", err)
	}
	if s.Polling() != nil {
		t.Fatalf("a refused listing made the sync poll: %v", s.Polling())
	}
	if err := s.CatchUp(bg); err != nil {
		t.Fatal(err)
	}
	if s.Polling() != nil || s.Webhook() == "" || s.Webhook() == pollingHook {
		t.Errorf("got webhook %q, polling %v: want a webhook followed", s.Webhook(), s.Polling())
	}
	h.assertEqual(tg, "after the listing is allowed")
}

// A table deleted, or a computed field deleted, while the sync trusts the schema it read (less
// than replica.SchemaTTL ago): the listing the service refuses makes it read the schema again,
// then the table is dropped, or copied again (its computed fields changed), instead of the poll
// failing until the schema is read again.
func TestPollingDeletedWithinSchemaTTL(t *testing.T) {
	h := newPollHarness(t, pollToken)
	projects, err := h.base.CreateTable(bg, transport.TableSpec{Name: "Projects", Fields: []transport.FieldSpec{{Name: "Title", Type: "singleLineText"}}})
	if err != nil {
		t.Fatal(err)
	}
	s, tg := h.syncer("sqlite:"+t.TempDir()+"/copy.db", Options{FullCheck: time.Nanosecond}) // ids listed at every poll
	if err := s.CatchUp(bg); err != nil {
		t.Fatal(err)
	}
	if err := h.s.DeleteTable(syncBase, projects.ID); err != nil {
		t.Fatal(err)
	}
	if err := h.s.DeleteField(syncBase, tasksID, "fldSCORE000000001"); err != nil { // a formula: in the id listing
		t.Fatal(err)
	}
	<-h.clk.After(time.Second)
	copies := s.Stats().Copies
	if err := s.CatchUp(bg); err != nil {
		t.Fatalf("CatchUp after a table and a field were deleted: %v", err)
	}
	if got := s.Stats().Copies - copies; got != 1 {
		t.Errorf("the poll copied %d tables, want 1 (Tasks: a computed field was deleted)", got)
	}
	h.assertEqual(tg, "after a table and a computed field were deleted")
}
