package mysqlserver

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"net"

	"github.com/go-mysql-org/go-mysql/mysql"
)

// The connection phase is done here, not by the protocol library: its handshake read a
// packet's announced length before checking it (see packet.go), checked the database named at
// connect before the password (so that a wrong password and an unknown database answered 1049
// with the served bases' ids), panicked on a malformed connection-attribute length, showed the
// client's port in "Access denied", answered a bad RSA blob with "crypto/rsa: decryption
// error", and closed silently on a sequence error. The server knows the account's password, so
// caching_sha2_password always takes its fast path (the scramble is checked directly, as
// MySQL does when the password is in its cache): no RSA exchange and no cleartext password.

// serverCapabilities are the capability flags the server announces.
const serverCapabilities = mysql.CLIENT_LONG_PASSWORD | mysql.CLIENT_LONG_FLAG | mysql.CLIENT_CONNECT_WITH_DB |
	mysql.CLIENT_PROTOCOL_41 | mysql.CLIENT_TRANSACTIONS | mysql.CLIENT_SECURE_CONNECTION | mysql.CLIENT_PLUGIN_AUTH |
	mysql.CLIENT_CONNECT_ATTRS | mysql.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA | mysql.CLIENT_SESSION_TRACK |
	mysql.CLIENT_MULTI_RESULTS | mysql.CLIENT_PS_MULTI_RESULTS | mysql.CLIENT_MULTI_STATEMENTS

// sslRequestLength is the length of an SSLRequest packet: the first 32 bytes of a handshake
// response.
const sslRequestLength = 4 + 4 + 1 + 23

// errBadHandshake answers a handshake response that cannot be read.
var errBadHandshake = mysql.NewError(mysql.ER_HANDSHAKE_ERROR, "Bad handshake")

// handshakeResponse is what the client's handshake response says.
type handshakeResponse struct {
	capability uint32
	user       string
	auth       []byte
	database   string
	hasDB      bool
	plugin     string
}

// handshake runs the connection phase: greeting, TLS upgrade, handshake response,
// authentication (with an auth switch when the client chose another plugin), then the
// database named at connect. It returns the error to answer (a *mysql.MyError) or a read error.
func (s *session) handshake() error {
	salt := scramble()
	if err := s.pc.writePacket(s.greeting(salt)); err != nil {
		return err
	}
	data, err := s.pc.readPacket()
	if err != nil {
		return err
	}
	resp, err := parseHandshakeResponse(data)
	if err != nil {
		return err
	}
	if len(data) == sslRequestLength && resp.capability&mysql.CLIENT_SSL != 0 {
		if s.srv.cfg.TLS == nil {
			return errBadHandshake
		}
		tc := tls.Server(s.nc, s.srv.cfg.TLS)
		if err := tc.Handshake(); err != nil {
			return fmt.Errorf("TLS handshake: %w", err)
		}
		s.tls = true
		s.pc.r, s.pc.w = tc, tc
		if data, err = s.pc.readPacket(); err != nil {
			return err
		}
		if resp, err = parseHandshakeResponse(data); err != nil {
			return err
		}
	}
	s.capability, s.user = resp.capability&serverCapabilities, resp.user
	plugin := s.srv.cfg.AuthPlugin
	auth := resp.auth
	if resp.plugin != plugin {
		// AuthSwitchRequest: the plugin's name and a new scramble.
		salt = scramble()
		p := append([]byte{0, 0, 0, 0, mysql.EOF_HEADER}, plugin...)
		p = append(p, 0)
		p = append(p, salt...)
		p = append(p, 0)
		if err := s.pc.writePacket(p); err != nil {
			return err
		}
		if auth, err = s.pc.readPacket(); err != nil {
			return err
		}
		if len(auth) == 1 && auth[0] == 0 {
			auth = nil
		}
	}
	if !s.srv.auth.check(resp.user, plugin, auth, salt) {
		used := "YES"
		if len(auth) == 0 {
			used = "NO"
		}
		return mysql.NewError(mysql.ER_ACCESS_DENIED_ERROR,
			fmt.Sprintf("Access denied for user '%s'@'%s' (using password: %s)", resp.user, s.host, used))
	}
	if plugin == mysql.AUTH_CACHING_SHA2_PASSWORD {
		// AuthMoreData: fast_auth_success.
		if err := s.pc.writePacket([]byte{0, 0, 0, 0, mysql.MORE_DATE_HEADER, mysql.CACHE_SHA2_FAST_AUTH}); err != nil {
			return err
		}
	}
	if s.srv.cfg.RequireSecureTransport && !s.tls {
		return newError(erSecureTransportRequired, "HY000",
			"Connections using insecure transport are prohibited while --require_secure_transport=ON: connect with TLS")
	}
	if resp.hasDB && resp.database != "" {
		if err := s.useDB(resp.database); err != nil {
			return err
		}
	}
	return nil
}

// greeting is the initial handshake packet (protocol version 10).
func (s *session) greeting(salt []byte) []byte {
	p := []byte{0, 0, 0, 0, 10}
	p = append(p, s.srv.cfg.ServerVersion...)
	p = append(p, 0)
	p = binary.LittleEndian.AppendUint32(p, s.id)
	p = append(p, salt[:8]...)
	p = append(p, 0)
	capability := uint32(serverCapabilities)
	if s.srv.cfg.TLS != nil {
		capability |= mysql.CLIENT_SSL
	}
	p = binary.LittleEndian.AppendUint16(p, uint16(capability))
	p = append(p, collationUTF8MB4Bin)
	p = binary.LittleEndian.AppendUint16(p, mysql.SERVER_STATUS_AUTOCOMMIT)
	p = binary.LittleEndian.AppendUint16(p, uint16(capability>>16))
	p = append(p, byte(len(salt)+1))
	p = append(p, make([]byte, 10)...)
	p = append(p, salt[8:]...)
	p = append(p, 0)
	p = append(p, s.srv.cfg.AuthPlugin...)
	return append(p, 0)
}

// scramble is a new 20-byte authentication scramble: random printable bytes, never NUL (clients
// read it as a NUL-terminated string).
func scramble() []byte {
	b := make([]byte, 20)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	for i := range b {
		b[i] = 0x21 + b[i]%94
	}
	return b
}

// parseHandshakeResponse reads a HandshakeResponse41 (or the SSLRequest that precedes it on a
// TLS connection). Every length is checked against the packet before it is used.
func parseHandshakeResponse(data []byte) (handshakeResponse, error) {
	var r handshakeResponse
	if len(data) < sslRequestLength {
		return r, errBadHandshake
	}
	r.capability = binary.LittleEndian.Uint32(data)
	if r.capability&mysql.CLIENT_PROTOCOL_41 == 0 {
		return r, mysql.NewError(mysql.ER_NOT_SUPPORTED_AUTH_MODE,
			"Client does not support authentication protocol requested by server; consider upgrading MySQL client (CLIENT_PROTOCOL_41 is required)")
	}
	if len(data) == sslRequestLength {
		return r, nil
	}
	rest := data[sslRequestLength:]
	user, rest, ok := cString(rest)
	if !ok {
		return r, errBadHandshake
	}
	r.user = string(user)
	switch {
	case r.capability&mysql.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA != 0:
		r.auth, rest, ok = lenEncString(rest)
	case r.capability&mysql.CLIENT_SECURE_CONNECTION != 0:
		if len(rest) < 1 || len(rest) < 1+int(rest[0]) {
			ok = false
			break
		}
		r.auth, rest = rest[1:1+int(rest[0])], rest[1+int(rest[0]):]
	default:
		r.auth, rest, ok = cString(rest)
	}
	if !ok {
		return r, errBadHandshake
	}
	if r.capability&mysql.CLIENT_CONNECT_WITH_DB != 0 && len(rest) > 0 {
		var db []byte
		if db, rest, ok = cString(rest); !ok {
			return r, errBadHandshake
		}
		r.database, r.hasDB = string(db), true
	}
	r.plugin = mysql.AUTH_NATIVE_PASSWORD
	if r.capability&mysql.CLIENT_PLUGIN_AUTH != 0 && len(rest) > 0 {
		var plugin []byte
		if plugin, rest, ok = cString(rest); !ok {
			return r, errBadHandshake
		}
		r.plugin = string(plugin)
	}
	if r.capability&mysql.CLIENT_CONNECT_ATTRS != 0 && len(rest) > 0 {
		// The attributes are not used, only checked: a length-encoded total, then key and
		// value pairs that must fill it exactly.
		attrs, _, ok := lenEncString(rest)
		for ok && len(attrs) > 0 {
			_, attrs, ok = lenEncString(attrs)
		}
		if !ok {
			return r, errBadHandshake
		}
	}
	return r, nil
}

// cString splits a NUL-terminated string off b.
func cString(b []byte) (s, rest []byte, ok bool) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return nil, nil, false
	}
	return b[:i], b[i+1:], true
}

// lenEncString splits a length-encoded string off b; ok is false when b is shorter than it
// says.
func lenEncString(b []byte) (s, rest []byte, ok bool) {
	n, head, ok := lenEncInt(b)
	if !ok || uint64(len(b)-head) < n {
		return nil, nil, false
	}
	return b[head : head+int(n)], b[head+int(n):], true
}

// lenEncInt reads a length-encoded integer: its value and how many bytes it took.
func lenEncInt(b []byte) (n uint64, size int, ok bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	switch b[0] {
	case 0xfc:
		size = 3
	case 0xfd:
		size = 4
	case 0xfe:
		size = 9
	case 0xfb, 0xff: // NULL and ERR are not lengths
		return 0, 0, false
	default:
		return uint64(b[0]), 1, true
	}
	if len(b) < size {
		return 0, 0, false
	}
	for i := size - 1; i >= 1; i-- {
		n = n<<8 | uint64(b[i])
	}
	return n, size, true
}

// authHandler holds the one account. An unknown user is checked against a random password, so
// that it fails the same way (1045 Access denied), in the same time, as a wrong password, and
// user names cannot be probed.
type authHandler struct {
	user            string
	password, decoy []byte
}

// check reports whether auth is the client's proof of the account's password for the scramble
// salt under the plugin.
func (a *authHandler) check(user, plugin string, auth, salt []byte) bool {
	password := a.password
	if user != a.user {
		password = a.decoy
	}
	var want []byte
	switch plugin {
	case mysql.AUTH_NATIVE_PASSWORD:
		want = mysql.CalcNativePassword(salt, password)
	case mysql.AUTH_CACHING_SHA2_PASSWORD:
		want = mysql.CalcCachingSha2Password(salt, password)
	default:
		return false
	}
	ok := subtle.ConstantTimeCompare(auth, want) == 1
	return ok && user == a.user
}

// hostOf is the host of a network address, without its port (MySQL's 'user'@'host').
func hostOf(addr net.Addr) string {
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}
