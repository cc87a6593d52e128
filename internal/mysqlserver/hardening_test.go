package mysqlserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
)

// TestPacketTooLarge: a packet announced over the limit is answered 1153 and the connection
// closed, before login (64 KiB) and after (-max-allowed-packet), a single packet or the
// continuation of 16 MiB ones; the body is never sent, so nothing was read to refuse it.
func TestPacketTooLarge(t *testing.T) {
	e := startServer(t, func(c *Config) { c.MaxAllowedPacket = maxPayload + 1<<20 })
	t.Run("handshake response announcing 16 MiB", func(t *testing.T) {
		r := e.dialRaw(t, "")
		if _, err := r.conn.Write([]byte{0xff, 0xff, 0xff, 1}); err != nil {
			t.Fatal(err)
		}
		r.expectError(mysql.ER_NET_PACKET_TOO_LARGE)
		r.expectClosed()
	})
	t.Run("handshake response of 64 KiB + 1", func(t *testing.T) {
		r := e.dialRaw(t, "")
		n := maxHandshakePacket + 1
		if _, err := r.conn.Write([]byte{byte(n), byte(n >> 8), byte(n >> 16), 1}); err != nil {
			t.Fatal(err)
		}
		r.expectError(mysql.ER_NET_PACKET_TOO_LARGE)
		r.expectClosed()
	})
	t.Run("auth switch response", func(t *testing.T) {
		r := e.dialRaw(t, "")
		r.send(handshakeResponse41{user: testUser, auth: []byte("x"), plugin: "caching_sha2_password"}.bytes())
		if p := r.read(); p[0] != mysql.EOF_HEADER {
			t.Fatalf("got %x, want an auth switch request", p)
		}
		if _, err := r.conn.Write([]byte{0xff, 0xff, 0xff, r.seq}); err != nil {
			t.Fatal(err)
		}
		r.expectError(mysql.ER_NET_PACKET_TOO_LARGE)
		r.expectClosed()
	})
	t.Run("command over the limit", func(t *testing.T) {
		e := startServer(t, func(c *Config) { c.MaxAllowedPacket = 1 << 20 })
		r := e.dialRaw(t, "")
		r.login("")
		if _, err := r.conn.Write([]byte{0xff, 0xff, 0xff, 0}); err != nil {
			t.Fatal(err)
		}
		msg := r.expectError(mysql.ER_NET_PACKET_TOO_LARGE)
		if !strings.Contains(msg, "max-allowed-packet is 1048576") {
			t.Errorf("message %q does not give the limit", msg)
		}
		r.expectClosed()
		e.log.waitFor(t, "Got a packet bigger than 'max_allowed_packet'")
	})
	t.Run("continuation packet over the limit", func(t *testing.T) {
		r := e.dialRaw(t, "")
		r.login("")
		first := make([]byte, 4+maxPayload)
		copy(first, []byte{0xff, 0xff, 0xff, 0, mysql.COM_QUERY})
		if _, err := r.conn.Write(first); err != nil {
			t.Fatal(err)
		}
		n := 1<<20 + 1 // 16 MiB - 1 + 1 MiB + 1: one byte over
		if _, err := r.conn.Write([]byte{byte(n), byte(n >> 8), byte(n >> 16), 1}); err != nil {
			t.Fatal(err)
		}
		r.expectError(mysql.ER_NET_PACKET_TOO_LARGE)
		r.expectClosed()
	})
	t.Run("a packet at the limit passes", func(t *testing.T) {
		e := startServer(t, func(c *Config) { c.MaxAllowedPacket = 4096 })
		r := e.dialRaw(t, "")
		r.login("")
		q := "SELECT 1 FROM People WHERE Name = '" + strings.Repeat("x", 4096-1-len("SELECT 1 FROM People WHERE Name = ''")) + "'"
		if got := r.queryRows(q); len(got) != 0 {
			t.Errorf("rows %q", got)
		}
	})
}

// TestLongDataBounded: COM_STMT_SEND_LONG_DATA held by a connection is bounded by
// max_allowed_packet, for one statement and for all of them together: the chunk that passes it
// is answered 1153 and the connection closed.
func TestLongDataBounded(t *testing.T) {
	const limit = 1 << 20
	e := startServer(t, func(c *Config) { c.MaxAllowedPacket = limit })
	prepare := func(r *rawClient) uint32 {
		t.Helper()
		r.command(mysql.COM_STMT_PREPARE, []byte("SELECT Name FROM People WHERE Name = ?"))
		ok := r.read()
		if ok[0] != 0 {
			t.Fatalf("prepare: %q", ok)
		}
		id := binary.LittleEndian.Uint32(ok[1:])
		for cols, params := binary.LittleEndian.Uint16(ok[5:]), binary.LittleEndian.Uint16(ok[7:]); params+cols > 0; params-- {
			r.read() // parameter definitions, columns, EOFs
			if params == 1 {
				r.read()
				for range cols {
					r.read()
				}
				if cols > 0 {
					r.read()
				}
				break
			}
		}
		return id
	}
	longData := func(r *rawClient, stmt uint32, n int) {
		p := binary.LittleEndian.AppendUint32(nil, stmt)
		p = append(p, 0, 0)
		r.command(mysql.COM_STMT_SEND_LONG_DATA, append(p, make([]byte, n)...))
	}
	for _, c := range []struct {
		name       string
		statements int
	}{{"one statement", 1}, {"two statements", 2}} {
		t.Run(c.name, func(t *testing.T) {
			r := e.dialRaw(t, "")
			r.login("")
			var ids []uint32
			for range c.statements {
				ids = append(ids, prepare(r))
			}
			chunk := limit / 4
			for i := range 4 { // exactly the limit: accepted
				longData(r, ids[i%len(ids)], chunk)
			}
			longData(r, ids[0], 1)
			r.expectError(mysql.ER_NET_PACKET_TOO_LARGE)
			r.expectClosed()
		})
	}
	t.Run("executing gives the long data back", func(t *testing.T) {
		r := e.dialRaw(t, "")
		r.login("")
		id := prepare(r)
		for range 3 {
			for range 3 {
				longData(r, id, limit/4)
			}
			exec := binary.LittleEndian.AppendUint32(nil, id)
			exec = append(exec, 0, 1, 0, 0, 0, 0, 1, mysql.MYSQL_TYPE_VAR_STRING, 0)
			r.command(mysql.COM_STMT_EXECUTE, exec)
			for p := r.read(); ; p = r.read() { // the result: definitions, rows, EOF
				if p[0] == mysql.ERR_HEADER {
					t.Fatalf("execute: %q", p[9:])
				}
				if p[0] == mysql.EOF_HEADER && len(p) < 9 && bytes.Equal(p[3:5], []byte{2, 0}) {
					break
				}
			}
		}
	})
}

// TestNothingDisclosedBeforeLogin: a wrong password with an unknown database is 1045, as with a
// known one, and no answer before login names a served base; the access-denied text is
// 'user'@'host', without the client's port.
func TestNothingDisclosedBeforeLogin(t *testing.T) {
	e := startServer(t)
	for _, c := range []struct {
		name, user, password, database string
		want                           uint16
	}{
		{"wrong password, unknown database", testUser, "wrong", "appNOPE0000000000", mysql.ER_ACCESS_DENIED_ERROR},
		{"wrong password, served database", testUser, "wrong", demoDB, mysql.ER_ACCESS_DENIED_ERROR},
		{"unknown user, unknown database", "nobody", testPass, "appNOPE0000000000", mysql.ER_ACCESS_DENIED_ERROR},
		{"right password, unknown database", testUser, testPass, "appNOPE0000000000", mysql.ER_BAD_DB_ERROR},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.dialRaw(t, "")
			r.send(handshakeResponse41{user: c.user, auth: mysql.CalcNativePassword(r.salt, []byte(c.password)),
				database: c.database, plugin: mysql.AUTH_NATIVE_PASSWORD}.bytes())
			msg := r.expectError(c.want)
			if c.want == mysql.ER_ACCESS_DENIED_ERROR {
				want := fmt.Sprintf("Access denied for user '%s'@'127.0.0.1' (using password: YES)", c.user)
				if msg != want {
					t.Errorf("message %q, want %q", msg, want)
				}
				if strings.Contains(msg, demoDB) {
					t.Errorf("a served base is named before login: %q", msg)
				}
			}
			r.expectClosed()
		})
	}
}

// TestMalformedHandshake: attribute lengths past the packet, a truncated response, a bad RSA
// blob under caching_sha2_password: each answered (1043, 1045), never a panic.
func TestMalformedHandshake(t *testing.T) {
	e := startServer(t, func(c *Config) { c.AuthPlugin = mysql.AUTH_CACHING_SHA2_PASSWORD })
	good := func(r *rawClient) handshakeResponse41 {
		return handshakeResponse41{user: testUser, auth: mysql.CalcCachingSha2Password(r.salt, []byte(testPass)),
			plugin: mysql.AUTH_CACHING_SHA2_PASSWORD}
	}
	blob := make([]byte, 256)
	_, _ = rand.Read(blob)
	for _, c := range []struct {
		name  string
		edit  func(*handshakeResponse41)
		trunc int
		want  uint16
	}{
		{"attributes longer than the packet", func(h *handshakeResponse41) { h.attrs = []byte{0xfc, 0xff, 0xff, 3, 'k', 2, 'v'} }, 0, mysql.ER_HANDSHAKE_ERROR},
		{"an attribute longer than the attributes", func(h *handshakeResponse41) { h.attrs = []byte{4, 1, 'k', 9, 'v'} }, 0, mysql.ER_HANDSHAKE_ERROR},
		{"an attribute length of 2^64-1", func(h *handshakeResponse41) {
			h.attrs = append([]byte{10, 0xfe}, bytes.Repeat([]byte{0xff}, 9)...)
		}, 0, mysql.ER_HANDSHAKE_ERROR},
		{"NULL as an attribute length", func(h *handshakeResponse41) { h.attrs = []byte{1, 0xfb} }, 0, mysql.ER_HANDSHAKE_ERROR},
		{"truncated in the user name", nil, 34, mysql.ER_HANDSHAKE_ERROR},
		{"auth data longer than the packet", func(h *handshakeResponse41) { h.auth = nil; h.user += "\x00\xfc\xff\xff" }, 0, mysql.ER_HANDSHAKE_ERROR},
		{"a random RSA blob", func(h *handshakeResponse41) { h.auth = blob }, 0, mysql.ER_ACCESS_DENIED_ERROR},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.dialRaw(t, "")
			h := good(r)
			if c.edit != nil {
				c.edit(&h)
			}
			p := h.bytes()
			if c.edit != nil && strings.Contains(h.user, "\x00") {
				p = p[:bytes.IndexByte(p[32:], 0)+32+4]
			}
			if c.trunc > 0 {
				p = p[:c.trunc]
			}
			r.send(p)
			r.expectError(c.want)
			r.expectClosed()
		})
	}
	if strings.Contains(e.log.String(), "internal error") {
		t.Errorf("a malformed handshake reached a panic:\n%s", e.log.String())
	}
	t.Run("the good one logs in", func(t *testing.T) {
		r := e.dialRaw(t, "")
		r.send(good(r).bytes())
		if p := r.read(); !bytes.Equal(p, []byte{mysql.MORE_DATE_HEADER, mysql.CACHE_SHA2_FAST_AUTH}) {
			t.Fatalf("got %x, want fast_auth_success", p)
		}
		if p := r.read(); p[0] != mysql.OK_HEADER {
			t.Fatalf("got %x, want OK", p)
		}
	})
}

// TestSequenceError: a command packet with the wrong sequence id is 1156, then the connection
// closes (it was silent).
func TestSequenceError(t *testing.T) {
	e := startServer(t)
	r := e.dialRaw(t, "")
	r.login("")
	r.sendSeq([]byte{mysql.COM_PING}, 5)
	if msg := r.expectError(mysql.ER_NET_PACKETS_OUT_OF_ORDER); !strings.Contains(msg, "sequence id 5, expected 0") {
		t.Errorf("message %q", msg)
	}
	r.expectClosed()
}

// TestConnectionIDIsTheThreadID: CONNECTION_ID() answers the id of the handshake, which KILL
// takes.
func TestConnectionIDIsTheThreadID(t *testing.T) {
	e := startServer(t)
	victim := e.dialRaw(t, "")
	victim.login(demoDB)
	if !driverSupports(t, e.db, "SELECT CONNECTION_ID()") {
		t.Skip("the driver does not answer SELECT CONNECTION_ID() yet")
	}
	got := victim.queryRows("SELECT CONNECTION_ID()")
	if want := strconv.FormatUint(uint64(victim.connID), 10); len(got) != 1 || got[0] != want {
		t.Fatalf("CONNECTION_ID() = %q, want the handshake's %s", got, want)
	}
	killer := e.dialRaw(t, "")
	killer.login("")
	killer.command(mysql.COM_QUERY, []byte("KILL "+got[0]))
	if p := killer.read(); p[0] != mysql.OK_HEADER {
		t.Fatalf("KILL %s: %q", got[0], p)
	}
	victim.expectClosed()
}

// TestPreparedStatementLimit: max_prepared_stmt_count (16,382) counts every connection's
// statements; the next prepare is 1461 until one is closed.
func TestPreparedStatementLimit(t *testing.T) {
	e := startServer(t)
	a, b := e.dialRaw(t, ""), e.dialRaw(t, "")
	a.login("")
	b.login("")
	prepare := func(r *rawClient) []byte {
		r.command(mysql.COM_STMT_PREPARE, []byte("BEGIN"))
		return r.read()
	}
	for i := range maxPreparedStmtCount {
		r := a
		if i%2 == 1 {
			r = b
		}
		if p := prepare(r); p[0] != 0 {
			t.Fatalf("prepare %d: %q", i+1, p)
		}
	}
	if p := prepare(b); p[0] != mysql.ERR_HEADER || binary.LittleEndian.Uint16(p[1:]) != mysql.ER_MAX_PREPARED_STMT_COUNT_REACHED {
		t.Fatalf("prepare %d: got %q, want error 1461", maxPreparedStmtCount+1, p)
	}
	a.command(mysql.COM_STMT_CLOSE, binary.LittleEndian.AppendUint32(nil, 1))
	a.command(mysql.COM_PING, nil) // COM_STMT_CLOSE has no answer: the ping's says it was handled
	if p := a.read(); p[0] != mysql.OK_HEADER {
		t.Fatalf("ping: %q", p)
	}
	if p := prepare(b); p[0] != 0 {
		t.Fatalf("prepare after a close: %q", p)
	}
	if got := e.srv.prepared.Load(); got != maxPreparedStmtCount {
		t.Errorf("prepared %d, want %d", got, maxPreparedStmtCount)
	}
	a.command(mysql.COM_QUIT, nil)
	a.expectClosed() // the statements are closed before the socket
	if got := e.srv.prepared.Load(); got != maxPreparedStmtCount/2+1 {
		t.Errorf("prepared %d after a connection ended, want %d", got, maxPreparedStmtCount/2+1)
	}
}

// TestUnauthenticatedBudget: sockets that never log in have their own budget, per host and in
// all: they cannot take the places of clients that log in (151 of them locked every client out
// for the handshake timeout), and more of them from one host are refused with 1040.
func TestUnauthenticatedBudget(t *testing.T) {
	t.Run("silent sockets leave the logged-in places free", func(t *testing.T) {
		e := startServer(t, func(c *Config) { c.MaxConnections = 2 })
		for range 10 {
			e.dialRaw(t, "127.0.0.2")
		}
		for range 2 {
			r := e.dialRaw(t, "")
			r.login("")
		}
		if msg := e.dialRawRefused(t, ""); !strings.Contains(msg, "-max-connections is 2") {
			t.Errorf("refusal %q", msg)
		}
	})
	t.Run("per host, then in all", func(t *testing.T) {
		e := startServer(t, func(c *Config) { c.MaxUnauthenticatedPerHost = 3; c.MaxUnauthenticated = 5 })
		for range 3 {
			e.dialRaw(t, "127.0.0.2")
		}
		if msg := e.dialRawRefused(t, "127.0.0.2"); !strings.Contains(msg, "from host '127.0.0.2' (3;") {
			t.Errorf("refusal %q does not name the host", msg)
		}
		for range 2 {
			e.dialRaw(t, "127.0.0.3")
		}
		if msg := e.dialRawRefused(t, "127.0.0.4"); !strings.Contains(msg, "logging in at once (5;") {
			t.Errorf("refusal %q", msg)
		}
	})
}

// dialRawRefused connects and returns the 1040 that replaces the greeting.
func (e *env) dialRawRefused(t testing.TB, from string) string {
	t.Helper()
	r := &rawClient{t: t}
	var err error
	d := dialerFrom(from)
	if r.conn, err = d.Dial("tcp", e.addr); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.conn.Close() })
	msg := r.expectError(mysql.ER_CON_COUNT_ERROR)
	r.expectClosed()
	return msg
}

// TestRequireSecureTransport: without TLS the login is refused with 3159.
func TestRequireSecureTransport(t *testing.T) {
	cert, _ := selfSigned(t)
	e := startServer(t, func(c *Config) {
		c.RequireSecureTransport = true
		c.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	})
	r := e.dialRaw(t, "")
	r.send(handshakeResponse41{user: testUser, auth: mysql.CalcNativePassword(r.salt, []byte(testPass)), plugin: mysql.AUTH_NATIVE_PASSWORD}.bytes())
	if msg := r.expectError(3159); !strings.Contains(msg, "require_secure_transport") {
		t.Errorf("message %q", msg)
	}
	r.expectClosed()
	db := e.client(t, "tls=skip-verify")
	if err := db.Ping(); err != nil {
		t.Errorf("a TLS login: %v", err)
	}
}

// TestHandshakeTimeoutLogged: a socket that sends nothing is closed at the handshake timeout,
// and the log says so (not "access denied for user """).
func TestHandshakeTimeoutLogged(t *testing.T) {
	e := startServer(t, func(c *Config) { c.HandshakeTimeout = 1 }) // 1ns: the first read times out
	r := e.dialRaw(t, "")
	r.expectClosed()
	e.log.waitFor(t, "no handshake within 1ns (the handshake timeout)")
	if strings.Contains(e.log.String(), "access denied") {
		t.Errorf("a timeout logged as access denied:\n%s", e.log.String())
	}
}

// TestUseInformationSchema: USE information_schema (and COM_INIT_DB) is accepted, as MySQL
// accepts it; the served base stays the one statements run on.
func TestUseInformationSchema(t *testing.T) {
	e := startServer(t)
	r := e.dialRaw(t, "")
	r.login("")
	for _, cmd := range []struct {
		c   byte
		arg string
	}{{mysql.COM_QUERY, "USE information_schema"}, {mysql.COM_INIT_DB, "INFORMATION_SCHEMA"}} {
		r.command(cmd.c, []byte(cmd.arg))
		if p := r.read(); p[0] != mysql.OK_HEADER {
			t.Errorf("%s: %q, want OK", cmd.arg, p)
		}
	}
	if got := r.queryRows("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_NAME = 'People'"); len(got) != 1 {
		t.Errorf("information_schema.TABLES after USE: %q", got)
	}
	// As in MySQL, bare names are information_schema's now, and DATABASE() says so.
	if got := r.queryRows("SELECT TABLE_NAME FROM TABLES WHERE TABLE_NAME = 'People'"); len(got) != 1 {
		t.Errorf("TABLES after USE information_schema: %q", got)
	}
	if got := r.queryRows("SELECT DATABASE()"); len(got) != 1 || got[0] != "information_schema" {
		t.Errorf("DATABASE() after USE information_schema: %q", got)
	}
	// USE of the base goes back to its tables.
	r.command(mysql.COM_QUERY, []byte("USE "+demoDB))
	if p := r.read(); p[0] != mysql.OK_HEADER {
		t.Fatalf("USE %s: %q, want OK", demoDB, p)
	}
	if got := r.queryRows("SELECT COUNT(*) FROM People"); len(got) != 1 {
		t.Errorf("People after USE of the base: %q", got)
	}
}

// FuzzReadPacket: whatever a client sends (a handshake response or a command, framed in any
// way), reading it allocates at most twice what arrived plus a fixed bound, and parsing a
// handshake response never panics.
func FuzzReadPacket(f *testing.F) {
	f.Add([]byte{0xff, 0xff, 0xff, 1})
	f.Add([]byte{0xff, 0xff, 0xff, 0, 3, 'S', 'E'})
	f.Add([]byte{5, 0, 0, 0, 3, 'S', 'E', 'L', 'E'})
	f.Add(append([]byte{0xff, 0xff, 0x00, 0}, make([]byte, 100)...))
	for _, h := range []handshakeResponse41{
		{user: "u", auth: []byte("x"), database: "db", plugin: "mysql_native_password", attrs: []byte{4, 1, 'k', 1, 'v'}},
		{user: "u", attrs: []byte{0xfc, 0xff, 0xff}},
	} {
		p := h.bytes()
		n := len(p)
		f.Add(append([]byte{byte(n), byte(n >> 8), byte(n >> 16), 1}, p...))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, start := range []uint8{0, 1} {
			counting := &countingReader{r: bytes.NewReader(in)}
			pc := &packetConn{r: counting, seq: start, limit: defaultMaxAllowedPacket}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for {
				p, err := pc.readPacket()
				if err != nil {
					break
				}
				_, _ = parseHandshakeResponse(p)
			}
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 3*uint64(counting.n)+2*readChunk+16<<10 {
				t.Fatalf("reading %d bytes allocated %d", counting.n, grew)
			}
		}
	})
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// interruptedInsert is a 30-row INSERT (three batches of 10 records) whose third batch never
// answers: the first two are written, the third may or may not be.
func interruptedInsert(tag string) string {
	var b strings.Builder
	b.WriteString("INSERT INTO Tasks (Name) VALUES ")
	for i := range 30 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "('%s-%02d')", tag, i)
	}
	return b.String()
}

var toldRe = regexp.MustCompile(`INSERT on table "Tasks" was stopped part-way: (\d+) record\(s\) created, (\d+) may or may not have been written`)

// TestInterruptedWritesReported: an INSERT interrupted by KILL QUERY, by its client going away,
// by shutdown and by the query timeout tells the client (when it is there) and the log how many
// records were written and how many may have been; the emulator holds exactly the written ones.
func TestInterruptedWritesReported(t *testing.T) {
	for _, c := range []struct {
		name      string
		config    func(*Config)
		interrupt func(t *testing.T, e *env, victim *rawClient)
		code      uint16 // 0: the client is gone
	}{
		{"KILL QUERY", nil, func(t *testing.T, e *env, victim *rawClient) {
			killer := e.dialRaw(t, "")
			killer.login("")
			killer.command(mysql.COM_QUERY, []byte(fmt.Sprintf("KILL QUERY %d", victim.connID)))
			if p := killer.read(); p[0] != mysql.OK_HEADER {
				t.Fatalf("KILL QUERY: %q", p)
			}
		}, mysql.ER_QUERY_INTERRUPTED},
		{"client disconnect", nil, func(t *testing.T, e *env, victim *rawClient) { victim.conn.Close() }, 0},
		{"shutdown", nil, func(t *testing.T, e *env, victim *rawClient) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // the deadline has passed: statements in flight are cancelled
			go e.srv.Shutdown(ctx)
		}, mysql.ER_SERVER_SHUTDOWN},
		{"query timeout", func(c *Config) { c.QueryTimeout = time.Second }, func(*testing.T, *env, *rawClient) {}, erQueryTimeout},
	} {
		t.Run(c.name, func(t *testing.T) {
			var config []func(*Config)
			if c.config != nil {
				config = append(config, c.config)
			}
			e := startServer(t, config...)
			victim := e.dialRaw(t, "")
			victim.login("")
			tag := "irq-" + strings.ReplaceAll(c.name, " ", "-")
			e.block.holdWritesAfter(2)
			victim.command(mysql.COM_QUERY, []byte(interruptedInsert(tag)))
			wait(t, e.block.written, "the first batch")
			wait(t, e.block.written, "the second batch")
			wait(t, e.block.started, "the third batch to be held")
			c.interrupt(t, e, victim)
			var told string
			if c.code != 0 {
				told = victim.expectError(c.code)
				victim.expectClosedIf(c.code == mysql.ER_SERVER_SHUTDOWN)
			}
			e.log.waitFor(t, `was stopped part-way`)
			logged := ""
			for _, line := range strings.Split(e.log.String(), "\n") {
				if strings.Contains(line, "was stopped part-way") {
					if logged != "" {
						t.Errorf("two log lines for one interrupted write:\n%s\n%s", logged, line)
					}
					logged = line
				}
			}
			if !strings.Contains(logged, fmt.Sprintf("connection %d", victim.connID)) {
				t.Errorf("the log line does not name connection %d: %q", victim.connID, logged)
			}
			var stored int
			if err := e.db.QueryRow("SELECT COUNT(*) FROM Tasks WHERE Name LIKE ?", tag+"-%").Scan(&stored); err != nil {
				t.Fatal(err)
			}
			for who, msg := range map[string]string{"the log": logged, "the client": told} {
				if who == "the client" && c.code == 0 {
					continue
				}
				m := toldRe.FindStringSubmatch(msg)
				if m == nil {
					t.Errorf("%s was not told the counts: %q", who, msg)
					continue
				}
				if written, uncertain := m[1], m[2]; written != strconv.Itoa(stored) || uncertain != "10" {
					t.Errorf("%s was told %s written and %s uncertain; Airtable holds %d (and the held batch of 10 is uncertain)", who, written, uncertain, stored)
				}
			}
			if stored != 20 {
				t.Errorf("Airtable holds %d records, want the 20 of the two batches let through", stored)
			}
		})
	}
}

// expectClosedIf asserts the connection closed (shutdown), or else that it still answers.
func (r *rawClient) expectClosedIf(closed bool) {
	r.t.Helper()
	if closed {
		r.expectClosed()
		return
	}
	r.command(mysql.COM_PING, nil)
	if p := r.read(); p[0] != mysql.OK_HEADER {
		r.t.Fatalf("ping after the error: %q", p)
	}
}

// TestInterruptedUpdateAndDeleteReported: UPDATE and DELETE stopped by KILL QUERY say how
// many records they changed, as INSERT does; the emulator agrees.
func TestInterruptedUpdateAndDeleteReported(t *testing.T) {
	for _, c := range []struct {
		op, stmt, done, count string
	}{
		{"UPDATE", "UPDATE Tasks SET Notes = 'changed' WHERE Name LIKE 'irq-u-%'", "updated", "SELECT COUNT(*) FROM Tasks WHERE Name LIKE 'irq-u-%' AND Notes = 'changed'"},
		{"DELETE", "DELETE FROM Tasks WHERE Name LIKE 'irq-u-%'", "deleted", "SELECT 30 - COUNT(*) FROM Tasks WHERE Name LIKE 'irq-u-%'"},
	} {
		t.Run(c.op, func(t *testing.T) {
			e := startServer(t)
			if _, err := e.db.Exec(interruptedInsert("irq-u")); err != nil {
				t.Fatal(err)
			}
			victim := e.dialRaw(t, "")
			victim.login("")
			e.block.holdWritesAfter(2)
			victim.command(mysql.COM_QUERY, []byte(c.stmt))
			wait(t, e.block.written, "the first batch")
			wait(t, e.block.written, "the second batch")
			wait(t, e.block.started, "the third batch to be held")
			killer := e.dialRaw(t, "")
			killer.login("")
			killer.command(mysql.COM_QUERY, []byte(fmt.Sprintf("KILL QUERY %d", victim.connID)))
			if p := killer.read(); p[0] != mysql.OK_HEADER {
				t.Fatalf("KILL QUERY: %q", p)
			}
			told := victim.expectError(mysql.ER_QUERY_INTERRUPTED)
			want := fmt.Sprintf(`%s on table "Tasks" was stopped part-way: 20 record(s) %s, 10 may or may not have been written`, c.op, c.done)
			if !strings.Contains(told, want) {
				t.Errorf("the client was told %q, want %q", told, want)
			}
			e.log.waitFor(t, want)
			var n int
			if err := e.db.QueryRow(c.count).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 20 {
				t.Errorf("Airtable shows %d records %s, want 20", n, c.done)
			}
		})
	}
}

// BenchmarkAnnouncedPackets measures what announced-but-unsent packets cost the server (run with
// -benchtime=1x): 20 sockets that each send the 4 bytes ff ff ff 01 (a 16 MiB handshake
// response) before login, and one client sending 300 chunks of 1 MiB of long data after login.
// alloc-MiB is everything the process allocated meanwhile (clients included): an upper bound
// of the peak.
func BenchmarkAnnouncedPackets(b *testing.B) {
	b.Run("20 sockets announcing 16 MiB", func(b *testing.B) {
		e := startServer(b)
		var total uint64
		for b.Loop() {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var socks []*rawClient
			for range 20 {
				r := e.dialRaw(b, "")
				if _, err := r.conn.Write([]byte{0xff, 0xff, 0xff, 1}); err != nil {
					b.Fatal(err)
				}
				socks = append(socks, r)
			}
			for _, r := range socks {
				r.expectError(mysql.ER_NET_PACKET_TOO_LARGE)
			}
			runtime.ReadMemStats(&after)
			total = max(total, after.TotalAlloc-before.TotalAlloc)
			for _, r := range socks {
				r.conn.Close()
			}
		}
		b.ReportMetric(float64(total)/(1<<20), "alloc-MiB")
	})
	b.Run("300 chunks of 1 MiB long data", func(b *testing.B) {
		e := startServer(b)
		var accepted int
		var peak uint64
		for b.Loop() {
			r := e.dialRaw(b, "")
			r.login("")
			r.command(mysql.COM_STMT_PREPARE, []byte("SELECT Name FROM People WHERE Name = ?"))
			ok := r.read()
			id := binary.LittleEndian.Uint32(ok[1:])
			for range 2 + int(binary.LittleEndian.Uint16(ok[5:])) + 1 { // parameter, EOF, columns, EOF
				r.read()
			}
			n := 1 + 4 + 2 + 1<<20
			frame := []byte{byte(n), byte(n >> 8), byte(n >> 16), 0, mysql.COM_STMT_SEND_LONG_DATA}
			frame = append(binary.LittleEndian.AppendUint32(frame, id), 0, 0)
			frame = append(frame, make([]byte, 1<<20)...)
			var base runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&base)
			accepted = 0
			for range 300 {
				r.deadline()
				if _, err := r.conn.Write(frame); err != nil {
					break // refused: the server closed the connection
				}
				accepted++
				if accepted%8 == 0 { // the live heap (after a collection)
					var ms runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapAlloc-min(ms.HeapAlloc, base.HeapAlloc))
				}
			}
			r.expectError(mysql.ER_NET_PACKET_TOO_LARGE)
		}
		b.ReportMetric(float64(accepted), "chunks-sent-before-refusal")
		b.ReportMetric(float64(peak)/(1<<20), "peak-live-heap-MiB")
	})
}
