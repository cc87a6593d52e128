package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/airsql/airsql"
	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/internal/mysqlserver"
)

// serveOptions are the flags of `airsql serve`.
type serveOptions struct {
	listen          string
	dsns            stringList
	bases           string
	user, password  string
	authPlugin      string
	tlsCert, tlsKey string
	maxConns        int
	maxPacket       int
	requireTLS      bool
	idleTimeout     time.Duration
	queryTimeout    time.Duration
	shutdownTimeout time.Duration
}

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

func parseServeArgs(args []string, stderr io.Writer, getenv func(string) string) (*serveOptions, error) {
	fs := flag.NewFlagSet("airsql serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &serveOptions{}
	fs.StringVar(&o.listen, "listen", "127.0.0.1:3306", "address to listen on (host:port; port 0 picks a free one)")
	fs.Var(&o.dsns, "dsn", "data source of a base to serve (repeat for several bases; default $AIRTABLE_DSN)")
	fs.StringVar(&o.bases, "base", "", "base ids to serve with $AIRTABLE_TOKEN, comma-separated (appAAA,appBBB)")
	fs.StringVar(&o.user, "user", envOr(getenv, "AIRSQL_SERVE_USER", "airsql"), "the user name clients log in with (default $AIRSQL_SERVE_USER, else airsql)")
	fs.StringVar(&o.password, "password", getenv("AIRSQL_SERVE_PASSWORD"), "the password clients log in with (default $AIRSQL_SERVE_PASSWORD; prefer the variable: flags show in ps); required unless -listen is a loopback address")
	fs.StringVar(&o.authPlugin, "auth-plugin", "mysql_native_password", "authentication: mysql_native_password or caching_sha2_password")
	fs.StringVar(&o.tlsCert, "tls-cert", "", "PEM certificate file: clients may then use TLS")
	fs.StringVar(&o.tlsKey, "tls-key", "", "PEM private key file of -tls-cert")
	fs.IntVar(&o.maxConns, "max-connections", 151, "most logged-in client connections at once")
	fs.IntVar(&o.maxPacket, "max-allowed-packet", 64<<20, "longest packet (and COM_STMT_SEND_LONG_DATA held by a connection), in bytes, MySQL's max_allowed_packet; past it: error 1153 and the connection closed")
	fs.BoolVar(&o.requireTLS, "require-secure-transport", false, "refuse logins without TLS (error 3159), as MySQL's require_secure_transport; needs -tls-cert")
	fs.DurationVar(&o.idleTimeout, "idle-timeout", 8*time.Hour, "close a connection idle this long (0: never)")
	fs.DurationVar(&o.queryTimeout, "query-timeout", 0, "cancel a statement running longer (0: never)")
	fs.DurationVar(&o.shutdownTimeout, "shutdown-timeout", 30*time.Second, "on SIGINT/SIGTERM, how long statements in flight may finish before they are cancelled")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: airsql serve [flags]\n\nServes Airtable bases over the MySQL protocol: each base is a database (USE appXXXXXXXXXXXXXX).\nWithout -dsn, -base or AIRTABLE_TOKEN it serves the built-in demo base (in-process emulator).\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("serve takes no arguments (got %q): statements come from the clients", fs.Arg(0))
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return nil, errors.New("-tls-cert and -tls-key go together")
	}
	if o.requireTLS && o.tlsCert == "" {
		return nil, errors.New("-require-secure-transport needs -tls-cert and -tls-key: without them no client could log in")
	}
	if o.maxPacket < 1024 || o.maxPacket > 1<<30 {
		return nil, fmt.Errorf("-max-allowed-packet %d: give 1024 to 1073741824 bytes (MySQL's range)", o.maxPacket)
	}
	return o, nil
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

// minRemotePassword is the fewest non-space characters of a password when the server listens
// beyond loopback.
const minRemotePassword = 8

// nonSpace counts the characters of s that are not white space.
func nonSpace(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}

// isLoopback reports whether a listen address accepts connections from this machine only.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// openBases opens one *sql.DB per base: the DSNs given, else the bases of -base with the
// environment's token, else the demo base in this process.
func openBases(o *serveOptions, getenv func(string) string, stderr io.Writer) ([]mysqlserver.Database, []string, func(), error) {
	var sessions []*session
	closeAll := func() {
		for _, s := range sessions {
			s.Close()
		}
	}
	dsns := append([]string(nil), o.dsns...)
	if len(dsns) == 0 && getenv("AIRTABLE_DSN") != "" {
		dsns = append(dsns, getenv("AIRTABLE_DSN"))
	}
	for _, b := range strings.Split(o.bases, ",") {
		if b = strings.TrimSpace(b); b != "" {
			dsns = append(dsns, "airtable:///"+b) // the driver reads the token from the environment
		}
	}
	secrets := []string{getenv("AIRTABLE_TOKEN"), getenv("AIRTABLE_API_KEY")}
	var dbs []mysqlserver.Database
	if len(dsns) == 0 {
		if getenv("AIRTABLE_TOKEN") != "" || getenv("AIRTABLE_API_KEY") != "" {
			return nil, nil, nil, errors.New("AIRTABLE_TOKEN is set but no base is named: pass -base appXXXXXXXXXXXXXX[,appYYY…] or -dsn")
		}
		s, err := openDemo(stderr)
		if err != nil {
			return nil, nil, nil, err
		}
		sessions = append(sessions, s)
		return []mysqlserver.Database{{Name: emulator.DemoBaseID, DB: s.db}}, secrets, closeAll, nil
	}
	var cfgs []*airsql.Config
	for _, dsn := range dsns {
		cfg, err := airsql.ParseDSN(dsn)
		if err != nil {
			return nil, nil, nil, err
		}
		cfgs = append(cfgs, cfg)
	}
	// One connector per served base, each knowing the others as its DSN key bases would: a
	// database's connection is its base's connector (its DSN's token, host, settings and
	// replica), and a statement there names the other served bases as appB.Table, read with
	// that DSN's own token — a database whose token cannot read another base fails naming it,
	// never borrowing another DSN's token. Pacing stays per base across connectors (transport
	// keeps one pacer per endpoint and base in the process); the price is one schema cache per
	// connector and base.
	for _, cfg := range cfgs {
		for _, other := range cfgs {
			if !strings.EqualFold(other.BaseID, cfg.BaseID) && !slices.ContainsFunc(cfg.Bases, func(b string) bool { return strings.EqualFold(b, other.BaseID) }) {
				cfg.Bases = append(cfg.Bases, other.BaseID)
			}
		}
	}
	for _, cfg := range cfgs {
		secrets = append(secrets, cfg.Token)
		s, err := connect(cfg)
		if err != nil {
			closeAll()
			return nil, nil, nil, err
		}
		sessions = append(sessions, s)
		dbs = append(dbs, mysqlserver.Database{Name: cfg.BaseID, DB: s.db})
	}
	return dbs, secrets, closeAll, nil
}

// runServe is `airsql serve`: it listens until the context ends (SIGINT) or SIGTERM, then
// shuts down gracefully. ready, if set, receives the listening address.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string, ready func(net.Addr)) int {
	o, err := parseServeArgs(args, stderr, getenv)
	if err == flag.ErrHelp {
		return 0
	}
	if err != nil {
		report(stderr, err)
		return 2
	}
	if !isLoopback(o.listen) && nonSpace(o.password) < minRemotePassword {
		report(stderr, fmt.Errorf("serve: -listen %s is not a loopback address, and the password is missing or shorter than %d characters (spaces not counted): "+
			"set AIRSQL_SERVE_PASSWORD (or -password) to a longer one; without one only -listen 127.0.0.1:PORT is allowed", o.listen, minRemotePassword))
		return 2
	}
	var tlsConfig *tls.Config
	if o.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
		if err != nil {
			report(stderr, fmt.Errorf("serve: TLS certificate: %w", err))
			return 1
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	dbs, secrets, closeBases, err := openBases(o, getenv, stderr)
	if err != nil {
		report(stderr, err)
		return 1
	}
	defer closeBases()
	logger := log.New(stderr, "airsql serve: ", log.LstdFlags)
	srv, err := mysqlserver.New(mysqlserver.Config{
		Databases: dbs, User: o.user, Password: o.password, AuthPlugin: o.authPlugin, TLS: tlsConfig,
		MaxConnections: o.maxConns, IdleTimeout: o.idleTimeout, QueryTimeout: o.queryTimeout,
		MaxAllowedPacket: o.maxPacket, RequireSecureTransport: o.requireTLS,
		Logger: logger, Secrets: secrets,
	})
	if err != nil {
		report(stderr, err)
		return 2
	}
	l, err := net.Listen("tcp", o.listen)
	if err != nil {
		report(stderr, fmt.Errorf("serve: %w", err))
		return 1
	}
	names := srv.Databases()
	fmt.Fprintf(stdout, "listening on %s\n", l.Addr())
	pw := "with the password set"
	if o.password == "" {
		pw = "without a password (loopback only)"
	}
	logger.Printf("serving %s as user %q %s; connect with: mariadb -h %s -P %s -u %s %s",
		strings.Join(names, ", "), o.user, pw, hostOf(l.Addr()), portOf(l.Addr()), o.user, names[0])
	if ready != nil {
		ready(l.Addr())
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	select {
	case err := <-served:
		report(stderr, fmt.Errorf("serve: %w", err))
		_ = srv.Close()
		return 1
	case <-ctx.Done():
	}
	logger.Printf("shutting down: statements in flight have %v to finish (-shutdown-timeout)", o.shutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), o.shutdownTimeout)
	defer cancel()
	_ = srv.Shutdown(sctx)
	<-served
	return 0
}

func hostOf(a net.Addr) string {
	h, _, _ := net.SplitHostPort(a.String())
	return h
}

func portOf(a net.Addr) string {
	_, p, _ := net.SplitHostPort(a.String())
	return p
}
