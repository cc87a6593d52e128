package mysqlserver

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"go.uber.org/goleak"

	"github.com/airsql/airsql"
	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/transport"
)

const (
	demoDB   = emulator.DemoBaseID
	testUser = "tester"
	testPass = "s3cret-pw"
)

func TestMain(m *testing.M) {
	// The emulator runs without a rate limit in tests; the driver's pacing would only slow them.
	transport.APILimit = 0
	// go-sql-driver logs a line for every connection the server closes on purpose.
	_ = mysql.SetLogger(log.New(io.Discard, "", 0))
	goleak.VerifyTestMain(m)
}

// blocker holds the emulator's answer to any list request whose formula mentions "block-me"
// until the request's context ends (or release is closed), and reports both events: tests wait
// on them instead of sleeping. With holdWritesAfter, it also holds every write request after
// the first n (which it lets through whole, even if their context ends meanwhile, and reports
// on written).
type blocker struct {
	inner   http.RoundTripper
	started chan struct{}
	ended   chan error
	release chan struct{}

	holdWrites atomic.Bool  // writes beyond writesLeft are held
	writesLeft atomic.Int64 // write requests still let through
	written    chan struct{}
}

func newBlocker(inner http.RoundTripper) *blocker {
	b := &blocker{inner: inner, started: make(chan struct{}, 16), ended: make(chan error, 16), release: make(chan struct{}),
		written: make(chan struct{}, 64)}
	return b
}

// holdWritesAfter lets n more write requests through, then holds the others.
func (b *blocker) holdWritesAfter(n int) {
	b.writesLeft.Store(int64(n))
	b.holdWrites.Store(true)
}

func (b *blocker) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet && b.holdWrites.Load() {
		if b.writesLeft.Add(-1) >= 0 {
			resp, err := b.inner.RoundTrip(r.WithContext(context.WithoutCancel(r.Context())))
			b.written <- struct{}{}
			return resp, err
		}
	} else if !strings.Contains(r.URL.Query().Get("filterByFormula"), "block-me") {
		return b.inner.RoundTrip(r)
	}
	b.started <- struct{}{}
	select {
	case <-r.Context().Done():
		b.ended <- r.Context().Err()
		return nil, r.Context().Err()
	case <-b.release:
		b.ended <- nil
		return b.inner.RoundTrip(r)
	}
}

// wait receives from ch, failing the test if nothing comes within a generous bound (a guard
// against a hung test, not a wait for something to happen).
func wait[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// logBuffer collects the server's log and lets a test wait for a line.
type logBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newLogBuffer() *logBuffer { return &logBuffer{changed: make(chan struct{}, 1)} }

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	signal(l.changed)
	return len(p), nil
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) waitFor(t testing.TB, substr string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for !strings.Contains(l.String(), substr) {
		select {
		case <-l.changed:
		case <-deadline:
			t.Fatalf("the server never logged %q; log:\n%s", substr, l.String())
		}
	}
}

// env is a server on 127.0.0.1:0 over the emulator's demo base.
type env struct {
	emu   *emulator.Server
	db    *sql.DB // the driver, directly
	srv   *Server
	addr  string
	log   *logBuffer
	block *blocker
}

// startServer starts the emulator's demo base (no rate limit) and a server over it; config
// adjusts the server's configuration.
func startServer(t testing.TB, config ...func(*Config)) *env {
	t.Helper()
	emu, err := emulator.New(emulator.WithDemo(), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{emu: emu, log: newLogBuffer()}
	e.block = newBlocker(emu.Transport())
	e.db = openDriver(t, emu, demoDB, emulator.DemoToken, e.block)
	cfg := Config{
		Databases: []Database{{Name: demoDB, DB: e.db}},
		User:      testUser, Password: testPass,
		Logger:  log.New(e.log, "", 0),
		Secrets: []string{emulator.DemoToken},
	}
	for _, f := range config {
		f(&cfg)
	}
	e.start(t, cfg)
	t.Cleanup(func() { emu.Close() })
	return e
}

func (e *env) start(t testing.TB, cfg Config) {
	t.Helper()
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.srv, e.addr = srv, l.Addr().String()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-served; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
		if strings.Contains(e.log.String(), emulator.DemoToken) {
			t.Errorf("the server logged the Airtable token:\n%s", e.log.String())
		}
	})
}

// withBases is openDriver's adjustment serving the other bases too (the DSN key bases).
func withBases(bases ...string) func(*airsql.Config) {
	return func(cfg *airsql.Config) { cfg.Bases = bases }
}

// openDriver opens the airsql driver on a base of emu, through rt; adjust changes its
// configuration.
func openDriver(t testing.TB, emu *emulator.Server, base, token string, rt http.RoundTripper, adjust ...func(*airsql.Config)) *sql.DB {
	t.Helper()
	cfg := airsql.NewConfig()
	cfg.Token, cfg.BaseID, cfg.Host, cfg.TLS = token, base, "localhost", false
	cfg.HTTPClient = &http.Client{Transport: rt}
	for _, f := range adjust {
		f(cfg)
	}
	c, err := airsql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	return db
}

// dsn is a go-sql-driver/mysql DSN for the server's demo base.
func (e *env) dsn(params string) string { return e.dsnOf(demoDB, params) }

// dsnOf is a go-sql-driver/mysql DSN for the server's database db.
func (e *env) dsnOf(db, params string) string {
	d := fmt.Sprintf("%s:%s@tcp(%s)/%s", testUser, testPass, e.addr, db)
	if params != "" {
		d += "?" + params
	}
	return d
}

// client opens go-sql-driver/mysql on the server's demo base.
func (e *env) client(t testing.TB, params string) *sql.DB {
	t.Helper()
	return e.clientOf(t, demoDB, params)
}

// clientOf opens go-sql-driver/mysql on the server's database name.
func (e *env) clientOf(t testing.TB, name, params string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", e.dsnOf(name, params))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// busySession waits until some connection has a statement in flight and returns its id.
func (e *env) busySession(t testing.TB) uint32 {
	t.Helper()
	e.srv.mu.Lock()
	defer e.srv.mu.Unlock()
	for sess := range e.srv.sessions {
		sess.mu.Lock()
		id, running := sess.id, sess.cancel != nil
		sess.mu.Unlock()
		if running {
			return id
		}
	}
	t.Fatal("no connection has a statement in flight")
	return 0
}

// mysqlErr asserts err is a MySQL error with the given number and SQLSTATE.
func mysqlErr(t testing.TB, err error, number uint16, state string) *mysql.MySQLError {
	t.Helper()
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		t.Fatalf("error %v (%T), want MySQL error %d", err, err, number)
	}
	if me.Number != number || string(me.SQLState[:]) != state {
		t.Fatalf("error %d (%s) %q, want %d (%s)", me.Number, me.SQLState, me.Message, number, state)
	}
	return me
}

// needTool returns the path of a command-line client, or skips the test with one line saying
// how to install it — except under CI=true, where its absence is a failure.
func needTool(t testing.TB, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	return skipOrFail(t, fmt.Sprintf("%s not found: install it with `apt-get install %s`", name, pkg))
}

// skipOrFail skips the test with msg, the one line saying what to install, or fails it under
// CI=true, where a missing tool is a failure. It returns "" for its callers' convenience.
func skipOrFail(t testing.TB, msg string) string {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// driverSupports reports whether the driver (directly) answers a statement: tests of client
// behaviour that needs a feature of another branch (the engine's FROM-less SELECT, the funcs
// branch's VERSION() and SET) run once the driver has it.
func driverSupports(t testing.TB, db *sql.DB, query string) bool {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), query)
	if err != nil {
		return false
	}
	rows.Close()
	return true
}
