// Package mysqlserver serves Airtable bases over the MySQL client/server protocol: every
// statement a client sends runs through database/sql and the airsql driver, on one *sql.DB per
// base shared by all client connections (so the base's request pacing and schema cache are
// shared). The protocol is implemented here (packet.go: framing with bounded reads,
// handshake.go: the connection phase, commands.go: the command phase); from
// github.com/go-mysql-org/go-mysql it takes the mysql package's constants, error numbers and
// field encoding. It adds result sets streamed row by row in both row formats, multi-statement
// text, KILL, cancelling a query when its client goes away, connection limits (logged-in and
// still logging in, apart), timeouts and graceful shutdown. It implements no SQL: statements go
// to the driver.
package mysqlserver

import (
	"context"
	"crypto/rand"
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

	"github.com/airsql/airsql"
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
	// MaxConnections bounds the logged-in client connections (default 151, MySQL's).
	MaxConnections int
	// MaxUnauthenticated bounds the connections still logging in (default 64), and
	// MaxUnauthenticatedPerHost those from one host (default 16): sockets that never log in
	// wait out HandshakeTimeout in their own budget, not in MaxConnections.
	MaxUnauthenticated, MaxUnauthenticatedPerHost int
	// MaxAllowedPacket bounds a packet after login, and the long data (COM_STMT_SEND_LONG_DATA)
	// a connection holds (default 64 MiB, MySQL's max_allowed_packet); a packet over it is
	// answered with error 1153 and the connection closed. Before login the bound is 64 KiB.
	MaxAllowedPacket int
	// RequireSecureTransport refuses a login without TLS (error 3159), as MySQL's
	// require_secure_transport.
	RequireSecureTransport bool
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
	// ServerVersion is announced in the handshake (default airsql.ServerVersion, what the
	// driver's SELECT VERSION() answers, so that a client reads one version either way).
	ServerVersion string
}

// maxPreparedStmtCount is MySQL's max_prepared_stmt_count: the prepared statements (COM_STMT_PREPARE)
// of all connections together.
const maxPreparedStmtCount = 16382

// Server is a MySQL-protocol server in front of the driver.
type Server struct {
	cfg    Config
	dbs    map[string]*sql.DB
	auth   *authHandler
	logger *log.Logger

	connIDs  atomic.Uint32 // the last connection id given
	prepared atomic.Int64  // prepared statements of all connections (max_prepared_stmt_count)

	baseCtx   context.Context // parent of every statement's context; cancelled at shutdown
	cancelAll context.CancelCauseFunc

	mu            sync.Mutex
	sessions      map[*session]struct{}
	loggedIn      int            // sessions past the handshake
	handshaking   int            // sessions in the handshake
	handshakingAt map[string]int // … by client host
	listeners     map[net.Listener]struct{}
	shutting      atomic.Bool
	wg            sync.WaitGroup
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
	if cfg.MaxUnauthenticated <= 0 {
		cfg.MaxUnauthenticated = 64
	}
	if cfg.MaxUnauthenticatedPerHost <= 0 {
		cfg.MaxUnauthenticatedPerHost = 16
	}
	if cfg.MaxAllowedPacket <= 0 {
		cfg.MaxAllowedPacket = defaultMaxAllowedPacket
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = 10 * time.Second
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 60 * time.Second
	}
	if cfg.ServerVersion == "" {
		cfg.ServerVersion = airsql.ServerVersion
	}
	s := &Server{cfg: cfg, dbs: map[string]*sql.DB{}, logger: cfg.Logger,
		sessions: map[*session]struct{}{}, listeners: map[net.Listener]struct{}{}, handshakingAt: map[string]int{}}
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
	decoy := make([]byte, 32)
	if _, err := rand.Read(decoy); err != nil {
		return nil, err
	}
	s.auth = &authHandler{user: cfg.User, password: []byte(cfg.Password), decoy: []byte(hex.EncodeToString(decoy))}
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
		host := hostOf(nc.RemoteAddr())
		if refusal := s.admit(host); refusal != "" {
			s.mu.Unlock()
			s.logf("refused a connection from %s: %s", nc.RemoteAddr(), refusal)
			go refuse(nc, refusal)
			continue
		}
		sess := newSession(s, nc, s.newConnID())
		s.sessions[sess] = struct{}{}
		s.handshaking++
		s.handshakingAt[host]++
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			sess.serve()
			s.mu.Lock()
			delete(s.sessions, sess)
			if sess.loggedIn {
				s.loggedIn--
			} else {
				s.leaveHandshake(host)
			}
			s.mu.Unlock()
		}()
	}
}

// admit says why a new connection from host is refused, or "" (s.mu held). Connections still
// logging in have their own budget, in all and per host, so that sockets that never log in
// cannot take the places of clients that do.
func (s *Server) admit(host string) string {
	switch {
	case s.loggedIn >= s.cfg.MaxConnections:
		return fmt.Sprintf("Too many connections (the server's -max-connections is %d)", s.cfg.MaxConnections)
	case s.handshaking >= s.cfg.MaxUnauthenticated:
		return fmt.Sprintf("Too many connections logging in at once (%d; try again)", s.cfg.MaxUnauthenticated)
	case s.handshakingAt[host] >= s.cfg.MaxUnauthenticatedPerHost:
		return fmt.Sprintf("Too many connections logging in at once from host '%s' (%d; try again)", host, s.cfg.MaxUnauthenticatedPerHost)
	}
	return ""
}

func (s *Server) leaveHandshake(host string) {
	s.handshaking--
	if s.handshakingAt[host]--; s.handshakingAt[host] <= 0 {
		delete(s.handshakingAt, host)
	}
}

// loggedInSession moves a session from the handshake budget to the logged-in connections; it
// fails when MaxConnections are logged in already.
func (s *Server) loggedInSession(sess *session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loggedIn >= s.cfg.MaxConnections {
		return mysql.NewError(mysql.ER_CON_COUNT_ERROR, fmt.Sprintf("Too many connections (the server's -max-connections is %d)", s.cfg.MaxConnections))
	}
	s.leaveHandshake(sess.host)
	s.loggedIn++
	sess.loggedIn = true
	return nil
}

// newConnID gives a connection its id (what the handshake announces, CONNECTION_ID() answers
// and KILL takes), skipping 0 and the ids of open connections (s.mu held).
func (s *Server) newConnID() uint32 {
	for {
		id := s.connIDs.Add(1)
		if id == 0 {
			continue
		}
		inUse := false
		for sess := range s.sessions {
			if sess.id == id {
				inUse = true
				break
			}
		}
		if !inUse {
			return id
		}
	}
}

// refuse answers a connection it cannot serve with MySQL's "Too many connections" in place of
// the handshake, as MySQL does.
func refuse(nc net.Conn, msg string) {
	defer nc.Close()
	p := []byte{0, 0, 0, 0, 0xff, byte(mysql.ER_CON_COUNT_ERROR & 0xff), byte(mysql.ER_CON_COUNT_ERROR >> 8), '#', '0', '8', '0', '0', '4'}
	p = append(p, msg...)
	n := len(p) - 4
	p[0], p[1], p[2] = byte(n), byte(n>>8), byte(n>>16)
	_ = nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, _ = nc.Write(p)
}

// Shutdown stops accepting connections, closes idle ones at once, and lets statements in
// flight finish until ctx ends; then it cancels them: each client gets error 1053 (saying what
// an interrupted write had written) before its connection closes. A connection that has not
// answered within shutdownGrace of the cancel is closed anyway. Shutdown returns when every
// connection's goroutine has ended.
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
	s.mu.Lock()
	n := 0
	for sess := range s.sessions {
		if sess.closeAfterCommand() {
			n++
		}
	}
	s.mu.Unlock()
	s.cancelAll(errShutdown)
	grace := time.NewTimer(shutdownGrace)
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
		s.mu.Lock()
		for sess := range s.sessions {
			sess.nc.Close()
		}
		s.mu.Unlock()
		<-done
	}
	if n > 0 {
		s.logf("shutdown: cancelled the statements of %d connection(s) still running at the deadline", n)
	}
	return ctx.Err()
}

// shutdownGrace is how long a cancelled statement has to send its error before Shutdown closes
// its connection.
const shutdownGrace = 5 * time.Second

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
		if sess.id == id {
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

var _ io.Closer = (*Server)(nil)
