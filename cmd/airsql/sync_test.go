package main

import (
	"bytes"
	"context"
	"database/sql"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/internal/syncdb"
	_ "modernc.org/sqlite"
)

// airsql sync copies the demo base into SQLite: a table per table with every record, a junction
// table per link field, one summary line on stderr (not a terminal).
func TestSyncDemoIntoSQLite(t *testing.T) {
	file := filepath.Join(t.TempDir(), "demo.db")
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"sync", "-to", "sqlite:" + file, "-tables", "People,tasks"}, nil, &bytes.Buffer{}, &stderr, env(nil)); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], "copied 2 tables (340 records, 4 pages) and applied 0 changes") {
		t.Errorf("stderr %q: want the demo notice and one summary line", stderr.String())
	}
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cases := []struct {
		query string
		want  int
	}{
		{`SELECT COUNT(*) FROM "People"`, 40},
		{`SELECT COUNT(*) FROM "Tasks"`, 300},
		{`SELECT COUNT(*) FROM "_airsql_sync" WHERE "table_id" <> ''`, 2},
		{`SELECT COUNT(*) FROM "Tasks" t JOIN "Tasks__Assignee" a ON a."record_id" = t."id" JOIN "People" p ON p."id" = a."linked_id"`, -1},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			var got int
			if err := db.QueryRow(c.query).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if c.want >= 0 && got != c.want {
				t.Errorf("got %d, want %d", got, c.want)
			}
			if c.want < 0 && got == 0 {
				t.Errorf("got no task joined to its assignee through the junction table")
			}
		})
	}
}

// Where the service refuses the webhook, airsql sync polls, says so once, and the summary counts
// the polls; the DSN's replicaFullCheck sets the full check unless -full-check does.
func TestSyncPolling(t *testing.T) {
	srv, err := emulator.New(emulator.WithDemo(), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.InjectFault(emulator.Fault{Method: "POST", Path: "/v0/bases/" + emulator.DemoBaseID + "/webhooks", Status: 403})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	dsn := "airtable://" + emulator.DemoToken + "@" + strings.TrimPrefix(hs.URL, "http://") + "/" + emulator.DemoBaseID + "?tls=false&replicaFullCheck=0s"
	file := filepath.Join(t.TempDir(), "demo.db")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"first run", nil, []string{"polling for changes instead of following a webhook (sync of base " + emulator.DemoBaseID + ": create its webhook: ", "HTTP 403", "within the full check, at every poll",
			"copied 2 tables (340 records, 4 pages) and polled 1 times (0 records changed)"}},
		{"restart", []string{"-full-check", "1h"}, []string{"polling for changes instead of following a webhook (the service refused the webhook to an earlier run", "every 1h0m0s",
			"copied 0 tables (0 records, 0 pages) and polled 1 times (0 records changed)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			args := append([]string{"sync", "-dsn", dsn, "-to", "sqlite:" + file, "-tables", "People,tasks"}, c.args...)
			if code := run(context.Background(), args, nil, &bytes.Buffer{}, &stderr, env(nil)); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			if len(lines) != 2 {
				t.Fatalf("stderr %q: want the polling line and the summary", stderr.String())
			}
			for _, w := range c.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr %q: want %q in it", stderr.String(), w)
				}
			}
		})
	}
}

func TestSyncArgs(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"sync"}, "sync needs -to"},
		{[]string{"sync", "-to", "mysql://x"}, "give sqlite:FILE or postgres://"},
		{[]string{"sync", "-to", "sqlite:x.db", "extra"}, "sync takes no arguments"},
		{[]string{"sync", "-to", "sqlite:x.db", "-every", "0s"}, "give a positive duration"},
		{[]string{"sync", "-to", "sqlite:x.db", "-full-check", "-1s"}, "-full-check -1s: give a duration ≥ 0"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			code := run(context.Background(), c.args, nil, &bytes.Buffer{}, &stderr, env(nil))
			if code == 0 || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("got exit %d, %q; want an error saying %q", code, stderr.String(), c.want)
			}
		})
	}
}

// The target's password never reaches stderr.
func TestSyncRedactsTargetPassword(t *testing.T) {
	var stderr bytes.Buffer
	run(context.Background(), []string{"sync", "-to", "postgres://u:s3cretpassword@127.0.0.1:1/db?connect_timeout=1"}, nil, &bytes.Buffer{}, &stderr, env(nil))
	if strings.Contains(stderr.String(), "s3cretpassword") {
		t.Errorf("stderr shows the password: %s", stderr.String())
	}
}

// On a terminal the copy's progress is one line rewritten in place.
func TestSyncProgressLine(t *testing.T) {
	cases := []struct {
		terminal bool
		pr       syncdb.Progress
		want     string
	}{
		{true, syncdb.Progress{Table: "Tasks", Records: 200, Pages: 2, Elapsed: time.Second}, "\r\033[Kcopying Tasks: 200 records, 2 pages, 2.0 requests/s, 1s"},
		{true, syncdb.Progress{Table: "Tasks", Records: 300, Pages: 3, Elapsed: 2 * time.Second, Done: true}, "\r\033[Kcopying Tasks: 300 records, 3 pages, 1.5 requests/s, 2s\n"},
		{true, syncdb.Progress{Table: "People", Records: 40, Pages: 1, Elapsed: 20 * time.Millisecond}, "\r\033[Kcopying People: 40 records, 1 pages, 0s"},
		{false, syncdb.Progress{Table: "Tasks", Records: 200, Pages: 2, Elapsed: time.Second}, ""},
	}
	for _, c := range cases {
		var w bytes.Buffer
		(&syncProgress{w: &w, terminal: c.terminal}).update(c.pr)
		if w.String() != c.want {
			t.Errorf("got %q, want %q", w.String(), c.want)
		}
	}
}
