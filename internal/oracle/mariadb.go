package oracle

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// InstallHint is the one line a test prints when it skips for want of MariaDB.
const InstallHint = "MariaDB is not installed: apt-get install mariadb-server (the differential tests need mariadbd and mariadb-install-db)"

// SQLMode is the server's sql_mode: MySQL 8's default, so that what MariaDB accepts and answers is
// what a MySQL 8 user sees (ONLY_FULL_GROUP_BY for the GROUP BY cases to come; strict modes for the
// load; ERROR_FOR_DIVISION_BY_ZERO only warns in a SELECT, which still answers NULL).
const SQLMode = "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

// Server is a MariaDB server of the test binary's own: a temporary data directory, a unix socket
// and nothing on the network. Close stops it and removes the directory.
type Server struct {
	DB *sql.DB // a connection pool to the database "oracle", with the session settings of sessionVars
	// Timeout bounds each query of Answer (QueryTimeout unless changed).
	Timeout time.Duration
	dir     string
	cmd     *exec.Cmd

	exited  chan struct{} // closed when the process has ended
	waitErr error

	closeOnce sync.Once
}

// binaries finds mariadbd and mariadb-install-db (Debian puts the server in /usr/sbin, which is
// not on every user's PATH).
func binaries() (server, install string, err error) {
	find := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
			for _, dir := range []string{"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"} {
				p := filepath.Join(dir, n)
				if st, err := os.Stat(p); err == nil && !st.IsDir() {
					return p
				}
			}
		}
		return ""
	}
	server = find("mariadbd", "mysqld")
	install = find("mariadb-install-db", "mysql_install_db")
	if server == "" || install == "" {
		return "", "", errNotInstalled
	}
	return server, install, nil
}

var errNotInstalled = errors.New(InstallHint)

// Start starts a server for tb and stops it when tb ends (also when it fails). Without MariaDB it
// skips tb with InstallHint, or fails it when CI=true: in CI a skip is a failure.
func Start(tb testing.TB) *Server {
	tb.Helper()
	s, err := startServer()
	if errors.Is(err, errNotInstalled) {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("CI=true and %s", InstallHint)
			return nil
		}
		tb.Skip(InstallHint)
		return nil
	}
	if err != nil {
		tb.Fatal(err)
		return nil
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Error(err)
		}
	})
	return s
}

// StartServer installs a data directory in a new temporary directory, starts mariadbd on a unix
// socket there and waits until it accepts connections. The caller must Close it.
func StartServer() (*Server, error) { return startServer() }

// startServer is StartServer; tests replace it to see Start without MariaDB.
var startServer = func() (*Server, error) {
	serverBin, installBin, err := binaries()
	if err != nil {
		return nil, err
	}
	removeStaleDirs()
	// Under /tmp, not t.TempDir(): a unix socket path must stay under 108 bytes.
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &Server{dir: dir, exited: make(chan struct{}), Timeout: QueryTimeout}
	fail := func(err error) (*Server, error) {
		s.Close()
		return nil, err
	}
	data := filepath.Join(dir, "data")
	var userArgs []string
	if os.Geteuid() == 0 {
		// mariadbd refuses to run as root unless told to; CI runs the tests as root.
		if u, err := user.Current(); err == nil {
			userArgs = []string{"--user=" + u.Username}
		}
	}
	// --tmpdir: the bootstrap server deletes the temporary-table files it finds in its tmpdir when
	// it starts, so two test binaries installing at once under the shared /tmp removed each other's
	// files and one install failed ("Unknown table 'mysql.tmp_user_sys'").
	install := exec.Command(installBin, append([]string{"--no-defaults", "--datadir=" + data, "--tmpdir=" + dir,
		"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"}, userArgs...)...)
	if out, err := install.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("oracle: %s failed: %v\n%s", installBin, err, lastLines(string(out), 15)))
	}

	socket := filepath.Join(dir, socketName)
	args := append([]string{
		"--no-defaults",
		"--datadir=" + data,
		"--socket=" + socket,
		"--skip-networking", // the unix socket only: nothing listens on the network
		"--pid-file=" + filepath.Join(dir, "mysqld.pid"),
		"--tmpdir=" + dir,
		"--character-set-server=utf8mb4",
		"--collation-server=utf8mb4_bin",
		"--default-time-zone=+00:00",
		"--sql-mode=" + SQLMode,
		"--skip-log-bin",
		"--innodb-buffer-pool-size=16M",
		"--innodb-log-file-size=8M",
		"--skip-name-resolve",
		"--log-warnings=1",
	}, userArgs...)
	s.cmd = exec.Command(serverBin, args...)
	setProcessGroup(s.cmd)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		return fail(err)
	}
	if err := s.cmd.Start(); err != nil {
		return fail(fmt.Errorf("oracle: starting %s: %v", serverBin, err))
	}
	// The server writes its log to stderr; "ready for connections" is the event to wait for.
	ready := make(chan struct{})
	var logMu sync.Mutex
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		signalled := false
		for sc.Scan() {
			line := sc.Text()
			logMu.Lock()
			log.WriteString(line + "\n")
			logMu.Unlock()
			if !signalled && strings.Contains(line, "ready for connections") {
				close(ready)
				signalled = true
			}
		}
		io.Copy(io.Discard, stderr)
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()
	serverLog := func() string {
		logMu.Lock()
		defer logMu.Unlock()
		return lastLines(log.String(), 20)
	}
	select {
	case <-ready:
	case <-s.exited:
		return fail(fmt.Errorf("oracle: mariadbd ended before it was ready (%v):\n%s", s.waitErr, serverLog()))
	case <-time.After(60 * time.Second):
		return fail(fmt.Errorf("oracle: mariadbd not ready after 60s:\n%s", serverLog()))
	}

	root := mysql.NewConfig()
	root.User = "root"
	root.Net = "unix"
	root.Addr = socket
	admin, err := sql.Open("mysql", root.FormatDSN())
	if err != nil {
		return fail(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE oracle CHARACTER SET utf8mb4 COLLATE " + TextCollation); err != nil {
		return fail(fmt.Errorf("oracle: %v", err))
	}
	cfg := mysql.NewConfig()
	cfg.User = "root"
	cfg.Net = "unix"
	cfg.Addr = socket
	cfg.DBName = "oracle"
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.Params = sessionVars
	s.DB, err = sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return fail(err)
	}
	if err := s.DB.Ping(); err != nil {
		return fail(fmt.Errorf("oracle: %v", err))
	}
	return s, nil
}

// QueryTimeout is how long MariaDB may take over one generated query: MariaDB 10.11 never answered
// some chains of INTERSECT ALL and EXCEPT ALL (seed 136 of -oracle.only='INTERSECT EXCEPT' as
// first written), and one such query must not stall a differential run until the test's own
// limit. A minute, not less: a join through JSON_CONTAINS runs as nested loops in MariaDB, and on
// a loaded machine some take 20 s (seeds 7328 and 7333 of -oracle.only='RIGHT JOIN after other
// joins'), which a shorter bound would leave uncompared.
const QueryTimeout = time.Minute

// ErrNoAnswer is Answer's error when MariaDB did not answer within the server's Timeout: the
// query is skipped (not compared), and the test says which.
var ErrNoAnswer = errors.New("oracle: MariaDB did not answer in time")

// Answer is the package's Answer on the server, bounded by s.Timeout: MariaDB stops the query
// itself (SET STATEMENT max_statement_time … FOR, so that the connection stays usable and the
// server's CPU is freed), and the client gives up a second later should the server not. Either
// way the Result's error wraps ErrNoAnswer.
func (s *Server) Answer(ctx context.Context, query string, args ...any) *Result {
	qctx, cancel := context.WithTimeout(ctx, s.Timeout+time.Second)
	defer cancel()
	limited := fmt.Sprintf("SET STATEMENT max_statement_time=%g FOR %s", s.Timeout.Seconds(), query)
	res := Answer(qctx, s.DB, limited, args...)
	var me *mysql.MySQLError
	interrupted := errors.As(res.Err, &me) && me.Number == 1969 // max_statement_time exceeded
	if res.Err != nil && (interrupted || ctx.Err() == nil && errors.Is(qctx.Err(), context.DeadlineExceeded)) {
		res.Err = fmt.Errorf("%w within %v (%v)", ErrNoAnswer, s.Timeout, res.Err)
	}
	return res
}

// TextCollation is the collation of every text column and of the connection: code-point order
// with trailing spaces significant, as the driver compares text (MySQL 8's utf8mb4_0900_bin).
// MariaDB's utf8mb4_bin, the server's collation, is PAD SPACE ('a' = 'a '), a deliberate
// difference listed in the README.
const TextCollation = "utf8mb4_nopad_bin"

// sessionVars are set on every connection (go-sql-driver/mysql sends them as SET statements).
// Each one adapts MariaDB to a documented choice of the driver; see the README's table of
// deliberate differences.
var sessionVars = map[string]string{
	"collation_connection": "'" + TextCollation + "'",
	"time_zone":            "'+00:00'",
	"sql_mode":             "'" + SQLMode + "'",
}

const (
	dirPrefix  = "airsql-oracle-"
	ownerFile  = "owner.pid" // the test binary's pid
	socketName = "mysqld.sock"
)

// removeStaleDirs removes the directories of servers whose test binary died without cleaning up
// (killed, or a timeout's panic): its server died with it (PDEATHSIG), its files did not.
func removeStaleDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue // being created, or not ours
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid != os.Getpid() && !processAlive(pid) {
			os.RemoveAll(d)
		}
	}
}

// Close stops the server (SIGTERM to its process group, SIGKILL after 10 s) and removes its
// directory. It is safe to call more than once.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		if s.DB != nil {
			s.DB.Close()
		}
		if s.cmd != nil && s.cmd.Process != nil {
			signalGroup(s.cmd, false)
			select {
			case <-s.exited:
			case <-time.After(10 * time.Second):
				signalGroup(s.cmd, true)
				<-s.exited
			}
		}
		err = os.RemoveAll(s.dir)
	})
	return err
}

// Socket is the path of the server's unix socket, for clients other than Go's (PyMySQL's
// unix_socket).
func (s *Server) Socket() string { return filepath.Join(s.dir, socketName) }

// SessionInit is one SET statement with the session settings every connection of DB has, for a
// client that connects on its own (an init_command).
func SessionInit() string {
	names := make([]string, 0, len(sessionVars))
	for n := range sessionVars {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		names[i] = n + " = " + sessionVars[n]
	}
	return "SET " + strings.Join(names, ", ")
}

// Exec runs statements in order on one connection, stopping at the first error.
func (s *Server) Exec(ctx context.Context, stmts ...string) error {
	for _, q := range stmts {
		if _, err := s.DB.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("oracle: %v\nin: %s", err, clip(q, 300))
		}
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
