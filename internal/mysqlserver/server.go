// Package mysqlserver serves Airtable bases over the MySQL client/server protocol: every
// statement a client sends runs through database/sql and the airsql driver, on one *sql.DB per
// base shared by all client connections (so the base's request pacing and schema cache are
// shared). The protocol itself (handshake, authentication, TLS, command dispatch, prepared
// statement parameters) is github.com/go-mysql-org/go-mysql's server package; this package
// adds what that package lacks: result sets streamed row by row in both row formats,
// multi-statement text, KILL, cancelling a query when its client goes away, connection limits,
// timeouts and graceful shutdown. It implements no SQL: statements go to the driver.
package mysqlserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/server"

	"github.com/airsql/airsql/translate"
)

// Database is one served base: the name clients USE (the base id) and its *sql.DB.
type Database struct {
	Name string
	DB   *sql.DB
}

// Config configures a Server. Zero values take the documented defaults.
type Config struct {
	// Databases are the served bases; the first is the database of a connection that names
	// none.
	Databases []Database
	// User and Password are the one account clients log in with. An empty Password admits
	// the user without one (the command refuses that on a non-loopback address).
	User, Password string
	// AuthPlugin is mysql_native_password (default) or caching_sha2_password.
	AuthPlugin string
	// TLS, when set, lets clients upgrade to TLS.
	TLS *tls.Config
	// MaxConnections bounds the client connections (default 151, MySQL's).
	MaxConnections int
	// IdleTimeout closes a connection that sends no command for this long (0: never).
	IdleTimeout time.Duration
	// QueryTimeout cancels a statement that runs longer (0: never).
	QueryTimeout time.Duration
	// HandshakeTimeout bounds the connection phase (default 10s, MySQL's connect_timeout).
	HandshakeTimeout time.Duration
	// WriteTimeout bounds each write to a client (default 60s, MySQL's net_write_timeout).
	WriteTimeout time.Duration
	// Logger receives one line per failure; nil: log.Default().
	Logger *log.Logger
	// Secrets are removed from every message sent to a client or logged (the Airtable tokens).
	Secrets []string
	// ServerVersion is announced in the handshake (default translate.ServerVersion, what the
	// driver's SELECT VERSION() answers, so that a client reads one version either way).
	ServerVersion string
}

// Server is a MySQL-protocol server in front of the driver.
type Server struct {
	cfg    Config
	dbs    map[string]*sql.DB
	lib    *server.Server
	auth   *authHandler
	logger *log.Logger

	baseCtx   context.Context // parent of every statement's context; cancelled at shutdown
	cancelAll context.CancelCauseFunc

	mu        sync.Mutex
	sessions  map[*session]struct{}
	listeners map[net.Listener]struct{}
	shutting  atomic.Bool
	wg        sync.WaitGroup
}

// ErrServerClosed is returned by Serve after Shutdown or Close.
var ErrServerClosed = errors.New("mysqlserver: server closed")

// New checks the configuration and prepares a server.
func New(cfg Config) (*Server, error) {
	if len(cfg.Databases) == 0 {
		return nil, errors.New("mysqlserver: no database to serve")
	}
	if cfg.User == "" {
		return nil, errors.New("mysqlserver: no user name")
	}
	if cfg.AuthPlugin == "" {
		cfg.AuthPlugin = mysql.AUTH_NATIVE_PASSWORD
	}
	if cfg.AuthPlugin != mysql.AUTH_NATIVE_PASSWORD && cfg.AuthPlugin != mysql.AUTH_CACHING_SHA2_PASSWORD {
		return nil, fmt.Errorf("mysqlserver: authentication plugin %q: use %s or %s", cfg.AuthPlugin,
			mysql.AUTH_NATIVE_PASSWORD, mysql.AUTH_CACHING_SHA2_PASSWORD)
	}
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = 151
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = 10 * time.Second
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 60 * time.Second
	}
	if cfg.ServerVersion == "" {
		cfg.ServerVersion = translate.ServerVersion
	}
	s := &Server{cfg: cfg, dbs: map[string]*sql.DB{}, logger: cfg.Logger,
		sessions: map[*session]struct{}{}, listeners: map[net.Listener]struct{}{}}
	if s.logger == nil {
		s.logger = log.Default()
	}
	for _, d := range cfg.Databases {
		if d.Name == "" || d.DB == nil {
			return nil, errors.New("mysqlserver: a database needs a name and a *sql.DB")
		}
		if _, dup := s.dbs[d.Name]; dup {
			return nil, fmt.Errorf("mysqlserver: database %q is given twice", d.Name)
		}
		s.dbs[d.Name] = d.DB
	}
	// caching_sha2_password sends the password RSA-encrypted over a connection without TLS:
	// the key comes from the certificate when it is an RSA one, else it is made here.
	var rsaKey *rsa.PrivateKey
	if cfg.AuthPlugin == mysql.AUTH_CACHING_SHA2_PASSWORD {
		if cfg.TLS != nil && len(cfg.TLS.Certificates) > 0 {
			rsaKey, _ = cfg.TLS.Certificates[0].PrivateKey.(*rsa.PrivateKey)
		}
		if rsaKey == nil {
			k, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				return nil, fmt.Errorf("mysqlserver: making the RSA key of caching_sha2_password: %w", err)
			}
			rsaKey = k
		}
	}
	s.lib = server.NewServer(cfg.ServerVersion, collationUTF8MB4Bin, cfg.AuthPlugin, rsaKey, cfg.TLS)
	decoy := make([]byte, 32)
	if _, err := rand.Read(decoy); err != nil {
		return nil, err
	}
	s.auth = &authHandler{srv: s,
		user:  cfg.User,
		cred:  server.Credential{Passwords: []string{cfg.Password}, AuthPluginName: cfg.AuthPlugin},
		decoy: server.Credential{Passwords: []string{hex.EncodeToString(decoy)}, AuthPluginName: cfg.AuthPlugin}}
	s.baseCtx, s.cancelAll = context.WithCancelCause(context.Background())
	return s, nil
}

// Databases lists the served database names, in the configured order.
func (s *Server) Databases() []string {
	names := make([]string, len(s.cfg.Databases))
	for i, d := range s.cfg.Databases {
		names[i] = d.Name
	}
	return names
}

// logf writes one line, without secrets.
func (s *Server) logf(format string, args ...any) {
	msg := s.redact(fmt.Sprintf(format, args...))
	s.logger.Print(strings.ReplaceAll(msg, "\n", " "))
}

// Serve accepts connections on l until Shutdown or Close; it returns ErrServerClosed then.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.shutting.Load() {
		s.mu.Unlock()
		return ErrServerClosed
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
	}()
	var backoff time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.shutting.Load() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.logf("accept: %v; retrying in %v", err, backoff)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		s.mu.Lock()
		if s.shutting.Load() {
			s.mu.Unlock()
			nc.Close()
			return ErrServerClosed
		}
		if len(s.sessions) >= s.cfg.MaxConnections {
			s.mu.Unlock()
			s.logf("refused a connection from %s: %d connections already (-max-connections)", nc.RemoteAddr(), s.cfg.MaxConnections)
			go refuse(nc, s.cfg.MaxConnections)
			continue
		}
		sess := newSession(s, nc)
		s.sessions[sess] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			sess.serve()
			s.mu.Lock()
			delete(s.sessions, sess)
			s.mu.Unlock()
		}()
	}
}

// refuse answers a connection over the limit with MySQL's "Too many connections" in place of
// the handshake, as MySQL does.
func refuse(nc net.Conn, limit int) {
	defer nc.Close()
	msg := fmt.Sprintf("Too many connections (the server's -max-connections is %d)", limit)
	p := []byte{0, 0, 0, 0, 0xff, byte(mysql.ER_CON_COUNT_ERROR & 0xff), byte(mysql.ER_CON_COUNT_ERROR >> 8), '#', '0', '8', '0', '0', '4'}
	p = append(p, msg...)
	n := len(p) - 4
	p[0], p[1], p[2] = byte(n), byte(n>>8), byte(n>>16)
	_ = nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, _ = nc.Write(p)
}

// Shutdown stops accepting connections, closes idle ones at once, and lets statements in
// flight finish until ctx ends; then it cancels them (their clients get error 1053) and closes
// every connection. It returns when every connection's goroutine has ended.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutting.Store(true)
	for l := range s.listeners {
		l.Close()
	}
	for sess := range s.sessions {
		sess.closeIfIdle()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		s.cancelAll(errShutdown)
		return nil
	case <-ctx.Done():
	}
	s.cancelAll(errShutdown)
	s.mu.Lock()
	n := 0
	for sess := range s.sessions {
		if sess.closeAfterCancel() {
			n++
		}
	}
	s.mu.Unlock()
	<-done
	if n > 0 {
		s.logf("shutdown: cancelled the statements of %d connection(s) still running at the deadline", n)
	}
	return ctx.Err()
}

// Close shuts the server down without waiting for statements in flight.
func (s *Server) Close() error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Shutdown(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// session finds a connection by its id (KILL).
func (s *Server) session(id uint32) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	for sess := range s.sessions {
		if sess.connID() == id {
			return sess
		}
	}
	return nil
}

// sortedDatabases is for messages.
func (s *Server) databaseList() string {
	names := s.Databases()
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// authHandler holds the one account. An unknown user gets a credential with a random password,
// so that it fails the same way (1045 Access denied) as a wrong password, and user names cannot
// be probed.
type authHandler struct {
	srv         *Server
	user        string
	cred, decoy server.Credential
}

func (a *authHandler) GetCredential(username string) (server.Credential, bool, error) {
	if username == a.user {
		return a.cred, true, nil
	}
	return a.decoy, true, nil
}

func (a *authHandler) OnAuthSuccess(*server.Conn) error { return nil }

func (a *authHandler) OnAuthFailure(c *server.Conn, err error) {
	a.srv.logf("access denied for user %q from %s: %v", c.GetUser(), c.RemoteAddr(), err)
}

var _ io.Closer = (*Server)(nil)

// advertiseMultiStatements sets CLIENT_MULTI_STATEMENTS in the initial handshake packet. The
// library lets a server advertise only CLIENT_LOCAL_FILES and the MULTI_RESULTS flags
// (Server.SetCapability refuses the others), but clients (go-sql-driver/mysql, libmariadb) drop
// their multi-statements flag when the server does not advertise it. The packet's layout is
// fixed by protocol version 10: header, 0x0a, the version string and its NUL, the connection id
// (4), auth data part 1 (8), a filler (1), the capability flags' low half (2), the character
// set (1), the status (2), then the flags' high half, where CLIENT_MULTI_STATEMENTS (1<<16) is
// bit 0.
func advertiseMultiStatements(p []byte) {
	if len(p) < 5 || p[4] != 10 {
		return
	}
	nul := bytes.IndexByte(p[5:], 0)
	if nul < 0 {
		return
	}
	high := 5 + nul + 1 + 4 + 8 + 1 + 2 + 1 + 2
	if high+1 < len(p) {
		p[high] |= byte(mysql.CLIENT_MULTI_STATEMENTS >> 16)
	}
}
