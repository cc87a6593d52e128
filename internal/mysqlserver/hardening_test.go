package mysqlserver

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

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
}

// FuzzReadPacket: whatever a client sends (a handshake response or a command, framed in any
// way), reading it allocates at most twice what arrived plus a fixed bound, and parsing a
// handshake response never panics.
func FuzzReadPacket(f *testing.F) {
	f.Add([]byte{0xff, 0xff, 0xff, 1})
	f.Add([]byte{0xff, 0xff, 0xff, 0, 3, 'S', 'E'})
	f.Add([]byte{5, 0, 0, 0, 3, 'S', 'E', 'L', 'E'})
	f.Add(append([]byte{0xff, 0xff, 0x00, 0}, make([]byte, 100)...))
	r := &rawClient{salt: make([]byte, 20)}
	for _, h := range []handshakeResponse41{
		{user: "u", auth: []byte("x"), database: "db", plugin: "mysql_native_password", attrs: []byte{4, 1, 'k', 1, 'v'}},
		{user: "u", attrs: []byte{0xfc, 0xff, 0xff}},
	} {
		p := h.bytes()
		n := len(p)
		f.Add(append([]byte{byte(n), byte(n >> 8), byte(n >> 16), 1}, p...))
	}
	_ = r
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
