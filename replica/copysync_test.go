package replica

import (
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/transport"
)

// CopyTablesSyncing copies a new table and, when the last Sync of the copies held is syncOlder old
// or older, syncs them alongside (one payloads request, its changes applied, Synced moved to the
// call's start); when it is younger, it copies only. Issue 25: the read after a copy otherwise
// polled alone, one more round trip before the statement's first row.
func TestCopyTablesSyncing(t *testing.T) {
	const syncOlder = 5 * time.Second
	tests := []struct {
		name     string
		age      time.Duration // of the last Sync when the copy begins
		wantSync bool
	}{
		{"the last sync younger than syncOlder: copy only", syncOlder - time.Second, false},
		{"the last sync syncOlder old: synced alongside", syncOlder, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, false)
			tasks, err := Open(bg, h.base, tasksID, Options{Clock: h.clk})
			if err != nil {
				t.Fatal(err)
			}
			b := tasks.Base()
			if err := b.Sync(bg); err != nil {
				t.Fatal(err)
			}
			synced := b.Synced()
			// Another client's change to the table already copied.
			if _, err := h.tasks.Create(bg, map[string]any{fldName: "new"}, transport.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			<-h.clk.After(tt.age)
			began := h.clk.Now()
			h.s.ResetRequests()
			if err := b.CopyTablesSyncing(bg, []string{peopleID}, syncOlder); err != nil {
				t.Fatal(err)
			}
			people, ok := b.Copied(peopleID)
			if !ok || len(people.Rows()) != 1 {
				t.Fatalf("People not copied (%v) or not whole", ok)
			}
			payloads := 0
			for _, r := range h.s.Requests() {
				if strings.HasSuffix(r.Path, "/payloads") {
					payloads++
				}
			}
			gotSync := payloads > 0
			if gotSync != tt.wantSync {
				t.Errorf("%d payloads requests, want a sync: %v", payloads, tt.wantSync)
			}
			if tt.wantSync {
				if payloads != 1 || len(tasks.Rows()) != 2 || b.Synced().Before(began) {
					t.Errorf("synced alongside: %d payloads requests, Tasks %d records, Synced %v; want 1, 2 and at least %v", payloads, len(tasks.Rows()), b.Synced(), began)
				}
				h.assertEqual([]*Table{tasks, people}, "after the copy synced alongside")
			} else if len(tasks.Rows()) != 1 || !b.Synced().Equal(synced) {
				t.Errorf("copy only: Tasks %d records, Synced %v; want the copy as it was (1) and %v", len(tasks.Rows()), b.Synced(), synced)
			}
		})
	}
}
