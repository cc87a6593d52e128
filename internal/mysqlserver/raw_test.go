package mysqlserver

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
)

// rawClient speaks the protocol byte by byte, to send what no client library would.
type rawClient struct {
	t      testing.TB
	conn   net.Conn
	seq    uint8
	connID uint32
	salt   []byte
	plugin string
}

// dialRaw connects from 127.0.0.1 (or from the given local IP) and reads the greeting.
func (e *env) dialRaw(t testing.TB, from string) *rawClient {
	t.Helper()
	d := dialerFrom(from)
	c, err := d.Dial("tcp", e.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	r := &rawClient{t: t, conn: c}
	g := r.read()
	if g[0] != 10 {
		t.Fatalf("greeting: %x", g)
	}
	nul := bytes.IndexByte(g[1:], 0)
	p := g[1+nul+1:]
	r.connID = binary.LittleEndian.Uint32(p)
	r.salt = append([]byte(nil), p[4:12]...)
	p = p[4+8+1+2+1+2+2+1+10:]
	r.salt = append(r.salt, p[:12]...)
	r.plugin = string(p[13 : len(p)-1])
	return r
}

// dialerFrom dials from a local IP ("": any); 127.0.0.0/8 is all loopback on Linux, so tests
// can be several hosts.
func dialerFrom(from string) *net.Dialer {
	d := &net.Dialer{}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	return d
}

// deadline guards against a hung test (not a wait for something to happen).
func (r *rawClient) deadline() { _ = r.conn.SetDeadline(time.Now().Add(30 * time.Second)) }

// send writes one packet with the next sequence id.
func (r *rawClient) send(payload []byte) {
	r.t.Helper()
	r.sendSeq(payload, r.seq)
}

func (r *rawClient) sendSeq(payload []byte, seq uint8) {
	r.t.Helper()
	r.deadline()
	n := len(payload)
	p := append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
	if _, err := r.conn.Write(p); err != nil {
		r.t.Fatalf("write: %v", err)
	}
	r.seq = seq + 1
}

// read reads one packet.
func (r *rawClient) read() []byte {
	r.t.Helper()
	p, err := r.tryRead()
	if err != nil {
		r.t.Fatalf("read: %v", err)
	}
	return p
}

func (r *rawClient) tryRead() ([]byte, error) {
	r.deadline()
	var h [4]byte
	if _, err := io.ReadFull(r.conn, h[:]); err != nil {
		return nil, err
	}
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	p := make([]byte, n)
	if _, err := io.ReadFull(r.conn, p); err != nil {
		return nil, err
	}
	r.seq = h[3] + 1
	return p, nil
}

// expectError reads an error packet with the given number and returns its message.
func (r *rawClient) expectError(code uint16) string {
	r.t.Helper()
	p := r.read()
	if p[0] != mysql.ERR_HEADER || len(p) < 9 {
		r.t.Fatalf("got %x, want error %d", p, code)
	}
	if got := binary.LittleEndian.Uint16(p[1:]); got != code {
		r.t.Fatalf("got error %d %q, want %d", got, p[9:], code)
	}
	return string(p[9:])
}

// expectClosed asserts that the server closed the connection.
func (r *rawClient) expectClosed() {
	r.t.Helper()
	if p, err := r.tryRead(); err == nil {
		r.t.Fatalf("the connection is still open: read %x", p)
	} else if !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "reset") {
		r.t.Fatalf("got %v, want the connection closed", err)
	}
}

// handshakeResponse is a HandshakeResponse41.
type handshakeResponse41 struct {
	capability uint32
	user       string
	auth       []byte
	database   string
	plugin     string
	attrs      []byte // raw, after the length (nil: CLIENT_CONNECT_ATTRS not set)
}

func (h handshakeResponse41) bytes() []byte {
	caps := h.capability
	if caps == 0 {
		caps = mysql.CLIENT_PROTOCOL_41 | mysql.CLIENT_SECURE_CONNECTION | mysql.CLIENT_PLUGIN_AUTH |
			mysql.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA | mysql.CLIENT_MULTI_STATEMENTS | mysql.CLIENT_MULTI_RESULTS
	}
	if h.database != "" {
		caps |= mysql.CLIENT_CONNECT_WITH_DB
	}
	if h.attrs != nil {
		caps |= mysql.CLIENT_CONNECT_ATTRS
	}
	p := binary.LittleEndian.AppendUint32(nil, caps)
	p = binary.LittleEndian.AppendUint32(p, 1<<24)
	p = append(p, collationUTF8MB4Bin)
	p = append(p, make([]byte, 23)...)
	p = append(p, h.user...)
	p = append(p, 0)
	p = appendLenEnc(p, uint64(len(h.auth)))
	p = append(p, h.auth...)
	if h.database != "" {
		p = append(p, h.database...)
		p = append(p, 0)
	}
	p = append(p, h.plugin...)
	p = append(p, 0)
	return append(p, h.attrs...)
}

// login logs in as the test user (optionally naming a database) and reads the OK.
func (r *rawClient) login(database string) {
	r.t.Helper()
	r.send(handshakeResponse41{user: testUser, auth: mysql.CalcNativePassword(r.salt, []byte(testPass)),
		database: database, plugin: mysql.AUTH_NATIVE_PASSWORD}.bytes())
	if p := r.read(); p[0] != mysql.OK_HEADER {
		r.t.Fatalf("login: got %x %q, want OK", p, p)
	}
}

// command sends a command (sequence 0).
func (r *rawClient) command(cmd byte, arg []byte) {
	r.t.Helper()
	r.sendSeq(append([]byte{cmd}, arg...), 0)
}

// queryRows runs a text query and returns its rows' first column.
func (r *rawClient) queryRows(query string) []string {
	r.t.Helper()
	r.command(mysql.COM_QUERY, []byte(query))
	p := r.read()
	if p[0] == mysql.ERR_HEADER {
		r.t.Fatalf("%s: %q", query, p[9:])
	}
	for { // column definitions, then EOF
		if p = r.read(); p[0] == mysql.EOF_HEADER && len(p) < 9 {
			break
		}
	}
	var out []string
	for {
		p = r.read()
		if p[0] == mysql.EOF_HEADER && len(p) < 9 {
			return out
		}
		v, _, ok := lenEncString(p)
		if !ok {
			r.t.Fatalf("row %x", p)
		}
		out = append(out, string(v))
	}
}
