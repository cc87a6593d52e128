package syncdb

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/transport"
)

// The test binary is also the sync process that TestKilledAndRestarted and TestKilledWhilePolling
// kill: with SYNCDB_CHILD_ENDPOINT set it catches the target up, printing each payload (or poll)
// it committed.
func TestMain(m *testing.M) {
	if endpoint := os.Getenv("SYNCDB_CHILD_ENDPOINT"); endpoint != "" {
		os.Exit(runChild(endpoint, os.Getenv("SYNCDB_CHILD_TARGET")))
	}
	code := m.Run()
	stopPostgres() // the cluster the tests shared
	os.Exit(code)
}

func runChild(endpoint, url string) int {
	clk := clock.NewJump(time.Now())
	token := emulator.DefaultToken
	if ms, err := strconv.ParseInt(os.Getenv("SYNCDB_CHILD_NOW"), 10, 64); err == nil {
		clk = clock.NewJump(time.UnixMilli(ms)) // the emulator's time: polls compare it with the records'
		token = pollToken
	}
	b, err := transport.NewBase(token, syncBase, transport.WithEndpointURL(endpoint),
		transport.WithHTTPClient(http.DefaultClient), transport.WithClock(clk), transport.WithRetryStrategy(transport.RetryStrategy()))
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	tg, err := OpenTarget(url)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	// After each payload, poll (or page of a copy) it waits for the parent's go-ahead on stdin, a
	// line, so that the parent knows where it is when it kills it. A poll's go-ahead is the
	// emulator's time (Unix milliseconds), which the child's clock moves to.
	stdin := bufio.NewReader(os.Stdin)
	wait := func(format string, args ...any) string {
		fmt.Printf(format+"\n", args...)
		line, err := stdin.ReadString('\n')
		if err != nil {
			os.Exit(3)
		}
		return strings.TrimSpace(line)
	}
	if os.Getenv("SYNCDB_CHILD_DDL_PAUSE") != "" {
		afterDDL = func(query string) { wait("ddl %s", firstLine(query)) }
	}
	s, err := New(bg, b, tg, Options{Clock: clk,
		Applied: func(cursor int) { wait("applied %d", cursor) },
		Polled: func(started time.Time) {
			ms, err := strconv.ParseInt(wait("polled %d", started.UnixMilli()), 10, 64)
			if err != nil {
				os.Exit(3)
			}
			<-clk.After(time.UnixMilli(ms).Sub(clk.Now()))
		},
		Progress: func(p Progress) {
			if !p.Done {
				wait("page %d of %s", p.Pages, p.Table)
			}
		}})
	if err == nil {
		err = s.CatchUp(bg)
	}
	for err == nil && s.Polling() != nil { // polling: poll until killed
		err = s.CatchUp(bg)
	}
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("caught up")
	return 0
}

// A sync process killed with SIGKILL while it applies payloads leaves the target at a payload
// boundary; the next run resumes from the stored cursor: it copies nothing and applies exactly the
// payloads past it, and the target then equals the base.
func TestKilledAndRestarted(t *testing.T) {
	t.Parallel()
	targets(t, func(t *testing.T, url string) {
		h := newHarness(t)
		srv := httptest.NewServer(h.s) // the child reaches the emulator over loopback
		t.Cleanup(srv.Close)
		s, tg := h.syncer(url, Options{})
		if err := s.CatchUp(bg); err != nil {
			t.Fatal(err)
		}
		const writes = 600
		tasks := h.base.Table(tasksID)
		var ids []string
		for i := range writes {
			if i%3 == 0 || len(ids) == 0 {
				r, err := tasks.Create(bg, map[string]any{fldName: fmt.Sprintf("task %d", i), fldOwner: []string{"recPERSON00000001"}}, transport.WriteOptions{})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, r.ID)
			} else if _, err := tasks.Update(bg, ids[i%len(ids)], map[string]any{fldN: float64(i)}, transport.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		before := storedCursor(t, h, tg)

		child, goAhead, lines := startChild(t, srv.URL, url)
		seen := 0
		for seen < 50 && lines.Scan() {
			line := lines.Text()
			if !strings.HasPrefix(line, "applied ") {
				t.Fatalf("the sync child said %q before it was killed", line)
			}
			seen++
			if _, err := goAhead.Write([]byte{'\n'}); err != nil {
				t.Fatal(err)
			}
		}
		// The child is now on its 51st payload: reading it, or inside its transaction.
		if err := child.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		_ = child.Wait()
		if seen < 50 {
			t.Fatalf("the sync child printed %d payloads, want 50 before the kill", seen)
		}

		killedAt := storedCursor(t, h, tg)
		hooks, err := h.base.Webhooks(bg)
		if err != nil || len(hooks) != 1 {
			t.Fatalf("webhooks %v, %v: want one", hooks, err)
		}
		next := hooks[0].CursorForNextPayload
		if killedAt != before+seen && killedAt != before+seen+1 {
			t.Fatalf("after the kill the stored cursor is %d: want %d (the child committed %d payloads) or one more", killedAt, before+seen, seen)
		}
		s, tg = h.syncer(url, Options{})
		if err := s.CatchUp(bg); err != nil {
			t.Fatal(err)
		}
		st := s.Stats()
		if st.Copies != 0 || st.PayloadsApplied != next-killedAt {
			t.Errorf("the restart copied %d tables and applied %d payloads, want 0 and %d (from cursor %d to %d)", st.Copies, st.PayloadsApplied, next-killedAt, killedAt, next)
		}
		h.assertEqual(tg, "after the kill and the restart")
		t.Logf("%d payloads: %d before the child, killed at cursor %d, %d applied by the restart", writes, before, killedAt, st.PayloadsApplied)
	})
}

// A sync process that polls (no webhook scope), killed with SIGKILL at a random point of a poll
// (reading the schema, listing, or inside its transaction), leaves the target at a poll
// boundary: the resume point stored is the start of the last poll it committed. The next run
// copies nothing and polls from there: every record changed since is in the target, and after
// FullCheck the target equals the base.
func TestKilledWhilePolling(t *testing.T) {
	t.Parallel()
	targets(t, func(t *testing.T, url string) {
		t.Parallel()
		h := newPollHarness(t, pollToken)
		srv := httptest.NewServer(h.s) // the child reaches the emulator over loopback
		t.Cleanup(srv.Close)
		s, tg := h.syncer(url, Options{})
		if err := s.CatchUp(bg); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, 7))
		w := newRandomWriter(t, h.harness, rng)
		child, goAhead, lines := startChild(t, srv.URL, url, fmt.Sprintf("SYNCDB_CHILD_NOW=%d", h.clk.Now().UnixMilli()))
		var reported, sent int64 // the start of the last poll the child committed; the time sent after it
		const polls = 20
		killAt := 5 + rng.IntN(polls-5)
		// Where DDL commits, a polled schema change copies the table again (poll.go): there the
		// writes between the polls are records only, so that the child is killed inside a poll.
		ops := 17
		if strings.HasPrefix(url, "mysql:") {
			ops = 14
		}
		for n := 0; n < killAt && lines.Scan(); n++ {
			var ms int64
			if _, err := fmt.Sscanf(lines.Text(), "polled %d", &ms); err != nil {
				t.Fatalf("the sync child said %q, want a poll", lines.Text())
			}
			reported = ms
			for i := range 1 + rng.IntN(20) { // writes between the polls, the clock moving on
				<-h.clk.After(time.Duration(1+rng.IntN(20)) * time.Second)
				w.write(n*100+i, rng.IntN(ops))
			}
			sent = h.clk.Now().UnixMilli()
			if _, err := fmt.Fprintf(goAhead, "%d\n", sent); err != nil {
				t.Fatal(err)
			}
		}
		// The child now polls once more: reading the schema, listing, or inside its transaction.
		if err := child.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		_ = child.Wait()
		if reported == 0 {
			t.Fatal("the sync child reported no poll before it was killed")
		}
		for _, row := range h.query(tg, `SELECT "table_id", "cursor" FROM `+syncTable+` WHERE "table_id" <> ''`) {
			if at := row[strings.IndexByte(row, ' ')+1:]; at != strconv.FormatInt(reported, 10) && at != strconv.FormatInt(sent, 10) {
				t.Errorf("after the kill the resume point of %s is %s, want %d (the last poll the child reported) or %d (the one it was killed in)", row, at, reported, sent)
			}
		}
		s, tg = h.syncer(url, Options{})
		if err := s.CatchUp(bg); err != nil {
			t.Fatal(err)
		}
		if st := s.Stats(); st.Copies != 0 || st.Polls != 1 {
			t.Errorf("the restart: got %+v, want one poll and no copy", st)
		}
		<-h.clk.After(time.Minute) // the schema's TTL: fields renamed and deleted are in the next poll
		if err := s.CatchUp(bg); err != nil {
			t.Fatal(err)
		}
		h.assertPolled(tg, "after the kill and the restart", w.gone)
		<-h.clk.After(s.FullCheck())
		if err := s.CatchUp(bg); err != nil {
			t.Fatal(err)
		}
		h.assertEqual(tg, "after the kill, the restart and FullCheck")
		t.Logf("killed in poll %d; %d records deleted meanwhile", killAt+1, len(w.gone))
	})
}

// storedCursor is the lowest cursor the target's bookkeeping holds.
func storedCursor(t *testing.T, h *harness, tg *Target) int {
	t.Helper()
	var c int
	if err := tg.db.QueryRow(`SELECT MIN("cursor") FROM ` + syncTable + ` WHERE "table_id" <> ''`).Scan(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

// A sync process killed during its first copy leaves no table and no webhook the next run does
// not know: the base row of _airsql_sync names the webhook before the copy starts, and the next run
// copies every table from it (the base keeps one webhook). The same for a copy again (the webhook
// deleted): killed in it, the next run copies the tables again. In MySQL and MariaDB the killed copy
// has committed its DROP and CREATE TABLEs: the bookkeeping rows it marked stale first make the next
// run copy them.
func TestKilledDuringFirstCopy(t *testing.T) {
	targets(t, func(t *testing.T, url string) {
		h := newHarness(t)
		srv := httptest.NewServer(h.s)
		t.Cleanup(srv.Close)
		killInCopy := func(when string) {
			t.Helper()
			child, _, lines := startChild(t, srv.URL, url) // no go-ahead: it stops at its first page
			if !lines.Scan() || !strings.HasPrefix(lines.Text(), "page 1 of ") {
				t.Fatalf("%s: the sync child said %q, want its first page", when, lines.Text())
			}
			if err := child.Process.Kill(); err != nil { // SIGKILL inside the copy's transaction
				t.Fatal(err)
			}
			_ = child.Wait()
			s, tg := h.syncer(url, Options{})
			if err := s.CatchUp(bg); err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if st := s.Stats(); st.Copies != 2 {
				t.Errorf("%s: the restart copied %d tables, want 2", when, st.Copies)
			}
			if hooks, err := h.base.Webhooks(bg); err != nil || len(hooks) != 1 || hooks[0].ID != s.Webhook() {
				t.Errorf("%s: the base has webhooks %v (%v), want only the one the sync follows (%s)", when, hooks, err, s.Webhook())
			}
			h.assertEqual(tg, when)
		}
		killInCopy("after a kill during the first copy")
		hooks, err := h.base.Webhooks(bg)
		if err != nil || len(hooks) != 1 {
			t.Fatalf("webhooks %v, %v: want one", hooks, err)
		}
		if err := h.base.DeleteWebhook(bg, hooks[0].ID); err != nil { // the next run copies every table again
			t.Fatal(err)
		}
		if _, err := h.base.Create(bg, tasksID, map[string]any{fldName: "while the webhook was gone"}, transport.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		killInCopy("after a kill during a copy again")
	})
}

// A sync process killed with SIGKILL right after a schema step (each CREATE, ALTER, RENAME and
// DROP it runs) is restarted, and the next run is killed one step later, until a run catches up:
// first while it applies payloads that add, rename and delete fields and rename a table, then while
// it copies every table again after a cursor gap (same webhook). In MySQL and MariaDB each step has
// committed when the process dies (their DDL commits implicitly); in SQLite and PostgreSQL it is
// rolled back. Either way the restarts replay what was not committed, copy what a killed copy left
// stale, and the target then equals the base.
func TestKilledAfterEachSchemaStep(t *testing.T) {
	targets(t, func(t *testing.T, url string) {
		h := newHarness(t)
		srv := httptest.NewServer(h.s)
		t.Cleanup(srv.Close)
		s, _ := h.syncer(url, Options{})
		if err := s.CatchUp(bg); err != nil {
			t.Fatal(err)
		}
		// killEachStep runs sync children until one catches up, each killed right after the first
		// DDL statement no child was killed after yet (a statement it runs that one was killed
		// after, it lets through); it returns the statements it killed a child after.
		killEachStep := func(when string) []string {
			t.Helper()
			var killedAfter []string
			for i := 0; ; i++ {
				child, goAhead, lines := startChild(t, srv.URL, url, "SYNCDB_CHILD_DDL_PAUSE=1")
				killed, done := false, false
				for !killed && !done && lines.Scan() {
					line := lines.Text()
					switch {
					case line == "caught up":
						done = true
						continue
					case strings.HasPrefix(line, "ddl "):
						if stmt := strings.TrimPrefix(line, "ddl "); !slices.Contains(killedAfter, stmt) {
							killedAfter = append(killedAfter, stmt)
							killed = true
							continue
						}
					case strings.HasPrefix(line, "applied "), strings.HasPrefix(line, "page "):
					default:
						t.Fatalf("%s, run %d: the sync child said %q", when, i, line)
					}
					if _, err := goAhead.Write([]byte{'\n'}); err != nil {
						t.Fatal(err)
					}
				}
				if killed {
					if err := child.Process.Kill(); err != nil { // SIGKILL right after a DDL statement
						t.Fatal(err)
					}
				}
				_ = child.Wait()
				// The emulator's clock moves only when told: a minute per run keeps the runs'
				// requests apart in its per-token window (50 a second).
				<-h.clk.After(time.Minute)
				if done {
					return killedAfter
				}
				if !killed {
					t.Fatalf("%s, run %d: the sync child ended without catching up", when, i)
				}
			}
		}
		caughtUp := func(when string) {
			t.Helper()
			s, tg := h.syncer(url, Options{})
			if err := s.CatchUp(bg); err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if st := s.Stats(); st.Copies != 0 || st.PayloadsApplied != 0 {
				t.Errorf("%s: %+v, want nothing more copied or applied", when, st)
			}
			h.assertEqual(tg, when)
		}

		tasks := h.base.Table(tasksID)
		r, err := tasks.Create(bg, map[string]any{fldName: "second", fldOwner: []string{"recPERSON00000001"}}, transport.WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		write := func(cells map[string]any) {
			t.Helper()
			for _, id := range []string{"recTASK0000000001", r.ID} {
				if _, err := tasks.Update(bg, id, cells, transport.WriteOptions{}); err != nil {
					t.Fatal(err)
				}
			}
		}
		// Schema changes, each followed by rows that need it: a text and a link field added, a
		// link field and the table renamed (junction tables renamed with them), a field added and
		// deleted, a field's name changed only in case.
		note, err := h.base.CreateField(bg, tasksID, transport.FieldSpec{Name: "Note", Type: "singleLineText"})
		if err != nil {
			t.Fatal(err)
		}
		write(map[string]any{note.ID: "a note"})
		helper, err := h.base.CreateField(bg, tasksID, transport.FieldSpec{Name: "Helper", Type: "multipleRecordLinks", Options: map[string]any{"linkedTableId": peopleID}})
		if err != nil {
			t.Fatal(err)
		}
		write(map[string]any{helper.ID: []string{"recPERSON00000001"}})
		if _, err := h.base.UpdateField(bg, tasksID, fldOwner, transport.FieldUpdate{Name: new("Lead")}); err != nil {
			t.Fatal(err)
		}
		write(map[string]any{fldOwner: []string{}})
		if _, err := h.base.UpdateTable(bg, tasksID, transport.TableUpdate{Name: new("Jobs")}); err != nil {
			t.Fatal(err)
		}
		write(map[string]any{fldName: "in Jobs"})
		phone, err := h.base.CreateField(bg, peopleID, transport.FieldSpec{Name: "Phone", Type: "singleLineText"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.base.Update(bg, peopleID, "recPERSON00000001", map[string]any{phone.ID: "555"}, transport.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := h.s.DeleteField(syncBase, peopleID, phone.ID); err != nil { // People has no computed field: no copy
			t.Fatal(err)
		}
		if _, err := h.base.UpdateField(bg, tasksID, note.ID, transport.FieldUpdate{Name: new("NOTE")}); err != nil {
			t.Fatal(err)
		}
		write(map[string]any{note.ID: "a NOTE"})
		kills := killEachStep("applying schema changes")
		caughtUp("after the schema changes")

		// A cursor gap: someone else keeps the webhook alive while no sync runs for 8 days.
		if _, err := tasks.Create(bg, map[string]any{fldName: "before the gap"}, transport.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		<-h.clk.After(6 * 24 * time.Hour)
		if _, err := h.base.RefreshWebhook(bg, s.Webhook()); err != nil {
			t.Fatal(err)
		}
		<-h.clk.After(2*24*time.Hour + time.Hour)
		write(map[string]any{fldName: "after the gap"})
		copyKills := killEachStep("copying again after a gap")
		caughtUp("after the copies again")
		// Applying: a step per schema change, and the junction tables renamed with their table;
		// copying: two tables and three junction tables dropped and created.
		if len(kills) < 12 || len(copyKills) < 10 {
			t.Errorf("the sync children were killed after %d statements applying and %d copying, want at least 12 and 10: one after each schema step\napplying: %q\ncopying: %q",
				len(kills), len(copyKills), kills, copyKills)
		}
		t.Logf("killed after %d statements applying the schema changes, %d copying again: %q, %q", len(kills), len(copyKills), kills, copyKills)
	})
}

// startChild starts the test binary as a sync child of endpoint and url (env: more of its
// environment): its stdin gives it the go-ahead after each line it prints.
func startChild(t *testing.T, endpoint, url string, env ...string) (*exec.Cmd, io.Writer, *bufio.Scanner) {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(append(os.Environ(), "SYNCDB_CHILD_ENDPOINT="+endpoint, "SYNCDB_CHILD_TARGET="+url), env...)
	child.Stderr = os.Stderr
	goAhead, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	return child, goAhead, bufio.NewScanner(out)
}
