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
		for n := 0; n < killAt && lines.Scan(); n++ {
			var ms int64
			if _, err := fmt.Sscanf(lines.Text(), "polled %d", &ms); err != nil {
				t.Fatalf("the sync child said %q, want a poll", lines.Text())
			}
			reported = ms
			for i := range 1 + rng.IntN(20) { // writes between the polls, the clock moving on
				<-h.clk.After(time.Duration(1+rng.IntN(20)) * time.Second)
				w.write(n*100+i, rng.IntN(17))
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
// copies every table from it (the base keeps one webhook).
func TestKilledDuringFirstCopy(t *testing.T) {
	h := newHarness(t)
	srv := httptest.NewServer(h.s)
	t.Cleanup(srv.Close)
	url := "sqlite:" + t.TempDir() + "/copy.db"
	child, _, lines := startChild(t, srv.URL, url) // no go-ahead: it stops at its first page
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "page 1 of ") {
		t.Fatalf("the sync child said %q, want its first page", lines.Text())
	}
	if err := child.Process.Kill(); err != nil { // SIGKILL inside the copy's transaction
		t.Fatal(err)
	}
	_ = child.Wait()
	s, tg := h.syncer(url, Options{})
	if err := s.CatchUp(bg); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Copies != 2 {
		t.Errorf("the restart copied %d tables, want 2", st.Copies)
	}
	if hooks, err := h.base.Webhooks(bg); err != nil || len(hooks) != 1 || hooks[0].ID != s.Webhook() {
		t.Errorf("the base has webhooks %v (%v), want only the one the killed run created (%s)", hooks, err, s.Webhook())
	}
	h.assertEqual(tg, "after a kill during the first copy")
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
