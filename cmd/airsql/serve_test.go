package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/airsql/airsql/emulator"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// TestServeRefusesNoPasswordOffLoopback: a server reachable from the network needs a password.
func TestServeRefusesNoPasswordOffLoopback(t *testing.T) {
	for _, listen := range []string{"0.0.0.0:0", ":0", "192.0.2.1:3306", "[::]:0"} {
		var stderr bytes.Buffer
		code := runServe(context.Background(), []string{"-listen", listen}, &bytes.Buffer{}, &stderr, env(nil), nil)
		if code != 2 || !strings.Contains(stderr.String(), "AIRSQL_SERVE_PASSWORD") {
			t.Errorf("-listen %s: exit %d, %q", listen, code, stderr.String())
		}
	}
	// A password of spaces, or of fewer than 8 other characters, is no password off loopback.
	for _, pw := range []string{"        ", "\t \n", "short7!", " a b c d e f g "} {
		var stderr bytes.Buffer
		code := runServe(context.Background(), []string{"-listen", "0.0.0.0:0"}, &bytes.Buffer{}, &stderr,
			env(map[string]string{"AIRSQL_SERVE_PASSWORD": pw}), nil)
		if code != 2 || !strings.Contains(stderr.String(), "shorter than 8") {
			t.Errorf("password %q: exit %d, %q", pw, code, stderr.String())
		}
	}
	for addr, want := range map[string]bool{"127.0.0.1:3306": true, "localhost:1": true, "[::1]:3306": true, "0.0.0.0:3306": false, ":3306": false, "10.0.0.1:3306": false} {
		if got := isLoopback(addr); got != want {
			t.Errorf("isLoopback(%q) = %v", addr, got)
		}
	}
}

func TestServeFlagErrors(t *testing.T) {
	for _, args := range [][]string{{"-tls-cert", "x.pem"}, {"extra"}, {"-nope"}, {"-require-secure-transport"},
		{"-max-allowed-packet", "10"}, {"-max-allowed-packet", "2000000000"}} {
		var stderr bytes.Buffer
		if code := runServe(context.Background(), args, &bytes.Buffer{}, &stderr, env(nil), nil); code != 2 {
			t.Errorf("%v: exit %d, %s", args, code, stderr.String())
		}
	}
	var stderr bytes.Buffer
	if code := runServe(context.Background(), []string{"-listen", "127.0.0.1:0"}, &bytes.Buffer{}, &stderr,
		env(map[string]string{"AIRTABLE_TOKEN": "patSECRET.value"}), nil); code != 1 || !strings.Contains(stderr.String(), "-base") {
		t.Errorf("a token without a base: exit %d, %s", code, stderr.String())
	}
	if strings.Contains(stderr.String(), "patSECRET") {
		t.Error("the token was printed")
	}
}

// TestServeDemo: `airsql serve` with nothing configured serves the demo base; a MySQL client
// logs in with the operator's user and password, and the server stops when the context ends.
func TestServeDemo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	ready := make(chan net.Addr, 1)
	done := make(chan int, 1)
	vars := env(map[string]string{"AIRSQL_SERVE_PASSWORD": "pw-from-env"})
	go func() {
		done <- runServe(ctx, []string{"-listen", "127.0.0.1:0", "-user", "report", "-query-timeout", "1m"}, &stdout, &stderr, vars,
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
	if !strings.Contains(stdout.String(), "listening on "+addr.String()) {
		t.Errorf("stdout %q", stdout.String())
	}
	db, err := sql.Open("mysql", fmt.Sprintf("report:pw-from-env@tcp(%s)/%s", addr, emulator.DemoBaseID))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow("SELECT COUNT(*) FROM Tasks WHERE Priority >= ?", 1).Scan(&n); err != nil || n == 0 {
		t.Fatalf("COUNT(*): %d, %v", n, err)
	}
	db.Close()
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d: %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	if strings.Contains(stderr.String(), emulator.DemoToken) || strings.Contains(stderr.String(), "pw-from-env") {
		t.Errorf("a secret was logged: %s", stderr.String())
	}
}

// TestServeBasesKnowEachOther: with several bases served, each database's connector serves the
// others too (SHOW DATABASES on its driver connection lists them, its own first), so that one
// statement can read tables of several; a DSN that already names one with bases= keeps it once.
func TestServeBasesKnowEachOther(t *testing.T) {
	o := &serveOptions{
		dsns:  []string{"airtable://patA.x@localhost/appAAAAAAAAAAAAAA?tls=false", "airtable://patB.x@localhost/appBBBBBBBBBBBBBB?tls=false&bases=appAAAAAAAAAAAAAA"},
		bases: "appCCCCCCCCCCCCCC",
	}
	t.Setenv("AIRTABLE_TOKEN", "patC.x") // the driver reads it for -base's bases
	dbs, _, closeAll, err := openBases(o, env(map[string]string{"AIRTABLE_TOKEN": "patC.x"}), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	// Each base's connector serves the other two as well; SHOW DATABASES lists them all with
	// information_schema, sorted by name as MySQL 8 lists them.
	all := []string{"appAAAAAAAAAAAAAA", "appBBBBBBBBBBBBBB", "appCCCCCCCCCCCCCC", "information_schema"}
	want := map[string][]string{"appAAAAAAAAAAAAAA": all, "appBBBBBBBBBBBBBB": all, "appCCCCCCCCCCCCCC": all}
	if len(dbs) != len(want) {
		t.Fatalf("got %d databases, want %d", len(dbs), len(want))
	}
	for _, d := range dbs {
		rows, err := d.DB.Query("SHOW DATABASES") // answered by the connector, no request
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				t.Fatal(err)
			}
			got = append(got, name)
		}
		rows.Close()
		if !slices.Equal(got, want[d.Name]) {
			t.Errorf("SHOW DATABASES on %s: got %q, want %q", d.Name, got, want[d.Name])
		}
	}
}
