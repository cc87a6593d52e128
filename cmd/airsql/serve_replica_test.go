package main

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
)

// TestServeReplica: `airsql serve -dsn '…&replica=memory'` answers MySQL clients from the
// replica: after the first read copies a table, repeated queries (a join, a GROUP BY) send no
// listing to the service, and EXPLAIN through the server says the statement reads the copy.
func TestServeReplica(t *testing.T) {
	srv, err := emulator.New(emulator.WithDemo(), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	host := strings.TrimPrefix(hs.URL, "http://")
	dsn := "airtable://" + emulator.DemoToken + "@" + host + "/" + emulator.DemoBaseID + "?tls=false&replica=memory&freshness=1h"

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	ready := make(chan net.Addr, 1)
	done := make(chan int, 1)
	go func() {
		done <- runServe(ctx, []string{"-listen", "127.0.0.1:0", "-user", "report", "-dsn", dsn}, &stdout, &stderr, env(map[string]string{"AIRSQL_SERVE_PASSWORD": "pw-replica"}),
			func(a net.Addr) { ready <- a })
	}()
	var addr net.Addr
	select {
	case addr = <-ready:
	case code := <-done:
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("serve never listened")
	}
	db, err := sql.Open("mysql", fmt.Sprintf("report:pw-replica@tcp(%s)/%s", addr, emulator.DemoBaseID))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	queries := []string{
		"SELECT COUNT(*) FROM Tasks WHERE Priority >= 1",
		"SELECT p.Name, COUNT(*) FROM Tasks t JOIN Projects p ON p.id = t.Project GROUP BY p.Name ORDER BY p.Name LIMIT 3",
	}
	answers := map[string]string{}
	for round := range 3 {
		if round == 1 {
			srv.ResetRequests()
		}
		for _, q := range queries {
			rows, err := db.Query(q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			var out []string
			cols, _ := rows.Columns()
			for rows.Next() {
				vals := make([]sql.RawBytes, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				for _, v := range vals {
					out = append(out, string(v))
				}
			}
			rows.Close()
			got := strings.Join(out, ",")
			if got == "" {
				t.Fatalf("%s: no rows", q)
			}
			if round == 0 {
				answers[q] = got
			} else if got != answers[q] {
				t.Fatalf("%s: round %d got %s, round 0 %s", q, round, got, answers[q])
			}
		}
	}
	if reqs := srv.Requests(); len(reqs) != 0 {
		t.Errorf("repeated queries through serve on the replica: got %d requests (%s %s…), want 0", len(reqs), reqs[0].Method, reqs[0].Path)
	}
	var step, detail string
	rows, err := db.Query("EXPLAIN " + queries[1])
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for rows.Next() {
		if err := rows.Scan(&step, &detail); err != nil {
			t.Fatal(err)
		}
		found = found || step == "replica" && strings.Contains(detail, "read from the local copy")
	}
	rows.Close()
	if !found {
		t.Error("EXPLAIN through serve does not say the statement reads the replica")
	}
	db.Close()
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}
