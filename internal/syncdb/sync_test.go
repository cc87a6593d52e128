package syncdb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/transport"
)

// The first copy of a base: every table, typed columns, junction tables, the bookkeeping.
func TestCopy(t *testing.T) {
	t.Parallel()
	targets(t, func(t *testing.T, url string) {
		h := newHarness(t)
		s, tg := h.syncer(url, Options{})
		if err := s.CatchUp(bg); err != nil {
			t.Fatal(err)
		}
		h.assertEqual(tg, "after the first copy")
		if st := s.Stats(); st.Copies != 2 || st.RecordsCopied != 2 {
			t.Errorf("got %+v, want 2 tables and 2 records copied", st)
		}
		// Caught up, a restart sends three requests: the schema, the webhook's state, one payload read.
		s, _ = h.syncer(url, Options{})
		h.s.ResetRequests()
		if err := s.CatchUp(bg); err != nil {
			t.Fatal(err)
		}
		if reqs := h.s.Requests(); len(reqs) != 3 {
			t.Errorf("an idle restart sent %d requests, want 3 (webhooks, schema, payloads): %v", len(reqs), paths(reqs))
		}
		if st := s.Stats(); st.Copies != 0 {
			t.Errorf("a restart copied %d tables, want 0: it resumes from the stored cursor", st.Copies)
		}
	})
}

func paths(reqs []emulator.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}

// Only the tables asked for are copied and followed.
func TestTablesOption(t *testing.T) {
	h := newHarness(t)
	s, tg := h.syncer("sqlite:"+t.TempDir()+"/copy.db", Options{Tables: []string{"people"}})
	if err := s.CatchUp(bg); err != nil {
		t.Fatal(err)
	}
	got := h.query(tg, `SELECT "table_name" FROM `+syncTable+` WHERE "table_id" <> ''`)
	if !slices.Equal(got, []string{"People"}) {
		t.Errorf("got tables %v, want [People]", got)
	}
	s2, _ := h.syncer("sqlite:"+t.TempDir()+"/other.db", Options{Tables: []string{"Nope"}})
	if err := s2.CatchUp(bg); err == nil || !strings.Contains(err.Error(), `no table "Nope" (it has People, Tasks)`) {
		t.Errorf("a table the base does not have: got %v", err)
	}
	if hooks, err := h.base.Webhooks(bg); err != nil || len(hooks) != 1 {
		t.Errorf("the base has %d webhooks (%v), want 1: the refused sync leaves none behind", len(hooks), err)
	}
}

// A randomized run: 1,000 operations of other clients (creates, updates, deletes, typecast writes,
// fields added (text, number, link), renamed and deleted, a table created, renamed and deleted) with faults (429 and 500
// on payload reads and on a listing, an error payload, payloads lost to retention, an expired
// webhook) and sync steps in between, some of them restarts. After each catching up the target
// equals the base.
func TestSyncRandomized(t *testing.T) {
	t.Parallel()
	targets(t, func(t *testing.T, url string) {
		t.Parallel()
		runRandomized(t, url, 1, 1000)
	})
}

func runRandomized(t *testing.T, url string, seed uint64, ops int) {
	h := newHarness(t)
	s, tg := h.syncer(url, Options{})
	if err := s.CatchUp(bg); err != nil {
		t.Fatal(err)
	}
	h.assertEqual(tg, "after the first copy")
	rng := rand.New(rand.NewPCG(seed, 7))
	w := newRandomWriter(t, h, rng)
	payloads := func() string { return "/v0/bases/" + syncBase + "/webhooks/" + s.Webhook() + "/payloads" }
	applied := 0 // payloads applied, over the restarts
	step := func(i int, what string) {
		t.Helper()
		if rng.IntN(3) == 0 { // a restart: the state comes from the target alone
			applied += s.Stats().PayloadsApplied
			s, tg = h.syncer(url, Options{})
		}
		if err := s.CatchUp(bg); err != nil {
			t.Fatalf("op %d, catching up %s: %v", i, what, err)
		}
		h.assertEqual(tg, fmt.Sprintf("op %d, %s", i, what))
	}
	faultAt := map[int]string{ops / 8: "429", 2 * ops / 8: "500", 3 * ops / 8: "error payload", 4 * ops / 8: "gap", 5 * ops / 8: "expired", 6 * ops / 8: "500 on a listing"}
	for i := range ops {
		switch fault := faultAt[i]; fault {
		case "429":
			h.s.InjectFault(emulator.Fault{Method: "GET", Path: payloads(), Status: 429, Times: 1})
		case "500":
			h.s.InjectFault(emulator.Fault{Method: "GET", Path: payloads(), Status: 500, Times: 1})
		case "error payload":
			from := -1
			for _, ts := range s.tables {
				if from < 0 || ts.Cursor < from {
					from = ts.Cursor
				}
			}
			body := fmt.Sprintf(`{"payloads":[{"timestamp":"2025-06-01T00:00:00.000Z","baseTransactionNumber":1,"actionMetadata":{"source":"system"},"payloadFormat":"v0","error":true,"code":"INVALID_HOOK"}],"cursor":%d,"mightHaveMore":false,"payloadFormat":"v0"}`, from+1)
			h.s.InjectFault(emulator.Fault{Method: "GET", Path: payloads(), Status: 200, Body: body, Times: 1})
		case "gap": // someone else keeps the hook alive while the sync does not run for 8 days
			if _, err := h.base.Create(bg, tasksID, map[string]any{fldName: "before the gap"}, transport.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			<-h.clk.After(6 * 24 * time.Hour)
			if _, err := h.base.RefreshWebhook(bg, s.Webhook()); err != nil {
				t.Fatal(err)
			}
			<-h.clk.After(2*24*time.Hour + time.Hour)
		case "expired":
			<-h.clk.After(8 * 24 * time.Hour)
			if _, err := h.base.Create(bg, tasksID, map[string]any{fldName: "while expired"}, transport.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		case "500 on a listing": // the next copy's listing fails once and is retried
			h.s.InjectFault(emulator.Fault{Method: "GET", Path: "/v0/" + syncBase + "/" + tasksID, Status: 500, Times: 1})
			if err := h.sync.DeleteWebhook(bg, s.Webhook()); err != nil { // gone: the tables are copied again
				t.Fatal(err)
			}
		}
		if faultAt[i] != "" {
			copies := s.Stats().Copies
			step(i, "after "+faultAt[i])
			if s.Stats().Copies == copies && faultAt[i] != "429" && faultAt[i] != "500" {
				t.Fatalf("after %s: no table was copied again", faultAt[i])
			}
			w.reloadTasks()
			continue
		}
		if w.tableStep(i, ops) {
			continue
		}
		if op := rng.IntN(22); !w.write(i, op) && op < 20 {
			step(i, "")
		}
	}
	step(ops, "at the end")
	applied += s.Stats().PayloadsApplied
	t.Logf("seed %d: %d operations, %d payloads applied; %d text and %d link fields added and kept", seed, ops, applied, len(w.added), len(w.addedLinks))
	if applied < ops/4 {
		t.Errorf("only %d payloads applied in %d operations: the target was kept current by copying, not by payloads", applied, ops)
	}
}

// Follow applies changes as they come and returns nil when its context ends.
func TestFollow(t *testing.T) {
	h := newHarness(t)
	url := "sqlite:" + t.TempDir() + "/copy.db"
	s, tg := h.syncer(url, Options{})
	if err := s.CatchUp(bg); err != nil {
		t.Fatal(err)
	}
	if _, err := h.base.Create(bg, tasksID, map[string]any{fldName: "while following"}, transport.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	s, tg = h.syncer(url, Options{Applied: func(int) { cancel() }}) // stop after the first payload
	if err := s.Follow(ctx, time.Second); err != nil {
		t.Fatalf("Follow: %v", err)
	}
	if st := s.Stats(); st.PayloadsApplied != 1 || st.Copies != 0 {
		t.Errorf("got %+v, want one payload applied and no copy", st)
	}
	h.assertEqual(tg, "after following")
}
