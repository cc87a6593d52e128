package mysqlserver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"

	"github.com/airsql/airsql"
	"github.com/airsql/airsql/frontend"
)

// session is one client connection. Its command loop (commands.go) calls the handler methods
// below, one command at a time; KILL and shutdown reach it from other goroutines through mu.
type session struct {
	srv    *Server
	nc     *netConn
	pc     *packetConn
	id     uint32 // the connection id: what KILL takes and CONNECTION_ID() answers
	remote string // host:port
	host   string // host

	// Set by the handshake:
	capability uint32 // the client's capability flags that the server shares
	user       string
	tls        bool
	loggedIn   bool // counted in the server's logged-in connections (Server.mu)

	db    string               // the current database
	conns map[string]*sql.Conn // one driver connection per database used (session state lives there)
	tx    *sql.Tx              // open transaction (BEGIN … COMMIT), on txDB
	txDB  string
	multi *bool // COM_SET_OPTION's multi-statements setting, when the client sent one

	stmts     map[uint32]*stmtState // prepared statements, by id
	nextStmt  uint32
	longBytes int // COM_STMT_SEND_LONG_DATA held by all the statements

	buf []byte // packet buffer, reused for every row

	mu        sync.Mutex
	busy      bool                    // a command is being handled
	cancel    context.CancelCauseFunc // of the statement in flight; nil when none
	closeNext bool                    // close when the command in flight ends (shutdown)
}

// written is what a handler method returns after it wrote the whole response itself.
var written = &mysql.Result{Resultset: &mysql.Resultset{
	Fields:        []*mysql.Field{{}},
	Streaming:     mysql.StreamingMultiple,
	StreamingDone: true,
}}

func newSession(s *Server, nc net.Conn, id uint32) *session {
	sess := &session{srv: s, id: id, remote: nc.RemoteAddr().String(), host: hostOf(nc.RemoteAddr()), conns: map[string]*sql.Conn{},
		db: s.cfg.Databases[0].Name, buf: make([]byte, 4, 1024), stmts: map[uint32]*stmtState{}}
	sess.nc = newNetConn(nc, s.cfg.WriteTimeout, func() { sess.cancelStatement(errClientGone) })
	sess.pc = &packetConn{r: sess.nc, w: sess.nc, limit: maxHandshakePacket}
	return sess
}

// serve runs the handshake, then the command loop until the client leaves, the connection
// is killed or idle too long, or the server shuts down.
func (s *session) serve() {
	defer s.release()
	defer func() {
		// A malformed packet must not take the whole server down with it.
		if r := recover(); r != nil {
			s.srv.logf("connection %d (%s): closed after an internal error: %v", s.id, s.remote, r)
		}
	}()
	// The handshake timeout bounds each read and the whole connection phase: a client that
	// trickles its handshake a byte at a time does not keep its place longer.
	s.nc.setReadTimeout(s.srv.cfg.HandshakeTimeout)
	deadline := time.AfterFunc(s.srv.cfg.HandshakeTimeout, func() {
		s.nc.timedOut.Store(true)
		s.nc.Close()
	})
	loggedIn := s.login()
	if !deadline.Stop() || !loggedIn {
		return
	}
	s.nc.setReadTimeout(s.srv.cfg.IdleTimeout)
	for {
		s.pc.seq = 0
		data, err := s.pc.readPacket()
		if err != nil {
			switch my := protocolError(err); {
			case my != nil:
				s.srv.logf("connection %d (%s@%s): closed: %s", s.id, s.user, s.remote, my.Message)
				_ = s.pc.writeError(my)
				_ = s.nc.flush()
			case s.nc.timedOut.Load():
				s.srv.logf("connection %d (%s@%s): closed after %v without a command (-idle-timeout)", s.id, s.user, s.remote, s.srv.cfg.IdleTimeout)
			case isDisconnect(err) || s.srv.shutting.Load():
			default:
				s.srv.logf("connection %d (%s@%s): reading a command: %v", s.id, s.user, s.remote, err)
			}
			return
		}
		quit, err := s.dispatch(data)
		if err == nil {
			err = s.nc.flush()
		}
		if err != nil {
			if my := protocolError(err); my != nil {
				s.srv.logf("connection %d (%s@%s): closed: %s", s.id, s.user, s.remote, my.Message)
				_ = s.pc.writeError(my)
				_ = s.nc.flush()
			} else if !isDisconnect(err) && !s.srv.shutting.Load() {
				s.srv.logf("connection %d (%s@%s): writing an answer: %v", s.id, s.user, s.remote, err)
			}
			return
		}
		s.mu.Lock()
		closeNext := quit || s.closeNext || s.srv.shutting.Load()
		s.mu.Unlock()
		if closeNext {
			return
		}
	}
}

// login runs the handshake and counts the session as logged in; on failure it answers the
// client (when there is one to answer), logs why and reports false.
func (s *session) login() bool {
	err := s.handshake()
	if err == nil {
		err = s.srv.loggedInSession(s)
	}
	if err == nil {
		s.pc.limit = s.srv.cfg.MaxAllowedPacket
		if err := s.writeOK(0, false); err != nil {
			return false
		}
		return true
	}
	var my *mysql.MyError
	switch {
	case errors.As(err, &my):
		s.srv.logf("connection from %s: login refused: error %d: %s", s.remote, my.Code, my.Message)
	case protocolError(err) != nil:
		my = protocolError(err)
		s.srv.logf("connection from %s: closed during the handshake: %s", s.remote, my.Message)
	case s.nc.timedOut.Load():
		s.srv.logf("connection from %s: closed: no handshake within %v (the handshake timeout)", s.remote, s.srv.cfg.HandshakeTimeout)
	case isDisconnect(err):
	default:
		s.srv.logf("connection from %s: handshake failed: %v", s.remote, err)
	}
	if my != nil {
		_ = s.pc.writeError(my)
	}
	return false
}

func isDisconnect(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrUnexpectedEOF) ||
		strings.Contains(err.Error(), "connection reset by peer") || strings.Contains(err.Error(), "broken pipe") ||
		strings.Contains(err.Error(), "use of closed network connection") || strings.Contains(err.Error(), "connection closed")
}

// release gives the driver connections back to their pools, rolling back an open transaction.
func (s *session) release() {
	s.closeStmts() // before the socket closes: a client that sees it closed sees them released
	s.nc.Close()
	if s.tx != nil {
		_ = s.tx.Rollback()
		s.tx = nil
	}
	s.discardConns()
}

// discardConns closes the session's driver connections for good rather than giving them back
// to the pool: their session state (user variables, PREPAREd statements, what SET set) belongs
// to this client and must not reach the next one, as a MySQL session dies with its connection.
// A driver connection holds no network state, so a new one costs nothing.
func (s *session) discardConns() {
	for name, c := range s.conns {
		_ = c.Raw(func(any) error { return driver.ErrBadConn }) // database/sql then closes it
		_ = c.Close()
		delete(s.conns, name)
	}
}

// closeIfIdle closes the connection unless a command is in flight; then it closes after it.
func (s *session) closeIfIdle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		s.closeNext = true
		return
	}
	s.nc.Close()
}

// closeAfterCommand closes the connection when the command in flight has answered (at once
// when there is none); it reports whether a command was in flight.
func (s *session) closeAfterCommand() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		s.closeNext = true
		return true
	}
	s.nc.Close()
	return false
}

// kill ends the statement in flight (KILL QUERY) and, unless queryOnly, the connection.
func (s *session) kill(queryOnly bool) {
	s.cancelStatement(errKilled)
	if !queryOnly {
		s.mu.Lock()
		s.closeNext = true
		busy := s.busy
		s.mu.Unlock()
		if !busy {
			s.nc.Close()
		}
	}
}

func (s *session) cancelStatement(cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel(cause)
	}
}

// begin marks a command in flight; it fails when the server is shutting down.
func (s *session) begin() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv.shutting.Load() {
		return mysql.NewError(mysql.ER_SERVER_SHUTDOWN, "Server shutdown in progress")
	}
	s.busy = true
	s.nc.beginBatch()
	return nil
}

func (s *session) end() error {
	s.mu.Lock()
	s.busy = false
	s.mu.Unlock()
	return s.nc.flush()
}

// statementContext is the context of one statement: cancelled by KILL, by the client going
// away, by the query timeout and by shutdown, each with its own cause.
func (s *session) statementContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(s.srv.baseCtx)
	var stopTimeout context.CancelFunc = func() {}
	if d := s.srv.cfg.QueryTimeout; d > 0 {
		ctx, stopTimeout = context.WithTimeoutCause(ctx, d, errQueryTimeout)
	}
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
		stopTimeout()
		cancel(nil)
	}
}

// UseDB answers COM_INIT_DB and the database named at connect.
func (s *session) UseDB(name string) error {
	err := s.useDB(name)
	if err != nil {
		s.srv.logf("connection %d (%s): %v", s.id, s.remote, err)
	}
	return err
}

func (s *session) useDB(name string) error {
	if strings.EqualFold(name, "information_schema") {
		// Clients (and GUIs browsing the schema) send it: the driver connection of the base in
		// use finds information_schema's tables by their bare names from then on.
		return s.useOnDriver(s.db, name)
	}
	if _, ok := s.srv.dbs[name]; !ok {
		return mysql.NewError(mysql.ER_BAD_DB_ERROR, fmt.Sprintf("Unknown database '%s': this server serves %s", name, s.srv.databaseList()))
	}
	if s.tx != nil && s.txDB != name {
		return mysql.NewError(mysql.ER_NOT_SUPPORTED_YET, "USE of another database inside a transaction is not supported: COMMIT or ROLLBACK first")
	}
	s.db = name
	return s.useOnDriver(name, name) // back from information_schema, if it was in use there
}

// useOnDriver runs USE target on the driver connection of the database base (in the open
// transaction when there is one: the connection is the transaction's).
func (s *session) useOnDriver(base, target string) error {
	ctx := s.srv.baseCtx
	use := "USE `" + strings.ReplaceAll(target, "`", "``") + "`"
	var err error
	if s.tx != nil && s.txDB == base {
		_, err = s.tx.ExecContext(ctx, use)
	} else {
		var conn *sql.Conn
		if conn, err = s.sqlConn(ctx, base); err == nil {
			_, err = conn.ExecContext(ctx, use)
		}
	}
	if err != nil {
		return s.srv.mysqlError(err, nil)
	}
	return nil
}

// sqlConn is the driver connection of a database for this session, opened on first use.
func (s *session) sqlConn(ctx context.Context, name string) (*sql.Conn, error) {
	if c, ok := s.conns[name]; ok {
		return c, nil
	}
	db, ok := s.srv.dbs[name]
	if !ok {
		return nil, mysql.NewError(mysql.ER_BAD_DB_ERROR, fmt.Sprintf("Unknown database '%s'", name))
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if err := airsql.SetConnectionID(c, int64(s.id)); err != nil {
		_ = c.Close()
		return nil, err
	}
	s.conns[name] = c
	return c, nil
}

// multiStatements reports whether the client may send several statements in one COM_QUERY.
func (s *session) multiStatements() bool {
	if s.multi != nil {
		return *s.multi
	}
	return s.capability&mysql.CLIENT_MULTI_STATEMENTS != 0
}

// HandleQuery answers COM_QUERY: each statement of the text in turn, results marked as
// followed by more, stopping at the first error (as MySQL does).
func (s *session) HandleQuery(query string) (*mysql.Result, error) {
	if err := s.begin(); err != nil {
		return nil, err
	}
	stmts := frontend.Statements(query)
	if len(stmts) > 1 && !s.multiStatements() {
		_ = s.end()
		s.srv.logf("connection %d: refused %d statements in one query: the client did not turn on multi-statements", s.id, len(stmts))
		return nil, mysql.NewError(mysql.ER_PARSE_ERROR, fmt.Sprintf(
			"You have %d statements in one query: the client did not turn on multi-statements (CLIENT_MULTI_STATEMENTS; multiStatements=true in go-sql-driver/mysql): send them one at a time", len(stmts)))
	}
	for i, stmt := range stmts {
		ok, err := s.run(stmt, nil, nil, false, i < len(stmts)-1)
		if err != nil {
			s.mu.Lock()
			s.busy = false
			s.mu.Unlock()
			return nil, err // the connection broke: the command loop closes it
		}
		if !ok {
			break
		}
	}
	if err := s.end(); err != nil {
		return nil, err
	}
	return written, nil
}

// run runs one statement and writes its whole answer: a result set, an OK, or an error.
// ok is false when the answer was an error; err is a failure to write to the client.
func (s *session) run(stmt string, prepared *sql.Stmt, args []any, binary, more bool) (ok bool, err error) {
	// The front end decides what the statement is; one that it cannot read goes to the driver,
	// which reports why.
	st, readErr := frontend.Read(stmt)
	switch st := st.(type) {
	case *frontend.Kill:
		return s.answer(s.killByID(st.ID, st.QueryOnly), more)
	case *frontend.Use:
		return s.answer(s.useDB(st.Database), more)
	case *frontend.Show:
		if isShowDatabases(st) && len(s.srv.dbs) > 1 {
			return s.writeDatabases(more)
		}
	}
	ctx, done := s.statementContext()
	defer done()
	switch st.(type) {
	case *frontend.Begin:
		return s.answer(s.beginTx(), more)
	case *frontend.Commit, *frontend.Rollback:
		_, commit := st.(*frontend.Commit)
		return s.answer(s.endTx(commit), more)
	}
	conn, err := s.sqlConn(ctx, s.db)
	if err != nil {
		return s.fail(ctx, err)
	}
	exec := readErr == nil && !st.ReturnsRows()
	if pc, ok := st.(*frontend.PreparedCommand); ok && pc.Kind == frontend.Execute && prepared == nil && s.returnsNoRows(ctx, conn, stmt) {
		// EXECUTE of a write: answered with OK and the rows affected, as MySQL answers it,
		// rather than as an empty result.
		exec = true
	}
	if exec {
		var res sql.Result
		switch {
		case prepared != nil && s.tx != nil:
			res, err = s.tx.StmtContext(ctx, prepared).ExecContext(ctx, args...)
		case prepared != nil:
			res, err = prepared.ExecContext(ctx, args...)
		case s.tx != nil:
			res, err = s.tx.ExecContext(ctx, stmt, args...)
		default:
			res, err = conn.ExecContext(ctx, stmt, args...)
		}
		if err != nil {
			return s.fail(ctx, err)
		}
		n, _ := res.RowsAffected()
		return true, s.writeOK(uint64(n), more)
	}
	var rows *sql.Rows
	switch {
	case prepared != nil && s.tx != nil:
		rows, err = s.tx.StmtContext(ctx, prepared).QueryContext(ctx, args...)
	case prepared != nil:
		rows, err = prepared.QueryContext(ctx, args...)
	case s.tx != nil:
		rows, err = s.tx.QueryContext(ctx, stmt, args...)
	default:
		rows, err = conn.QueryContext(ctx, stmt, args...)
	}
	if err != nil {
		return s.fail(ctx, err)
	}
	defer rows.Close()
	return s.writeRows(ctx, rows, binary, more)
}

// returnsNoRows reports a statement sqlparser cannot classify (PREPARE, EXECUTE, DEALLOCATE
// PREPARE) whose result the driver knows has no columns; an error is left for the statement's
// run to report.
func (s *session) returnsNoRows(ctx context.Context, conn *sql.Conn, stmt string) bool {
	cols, known, err := airsql.ResultColumns(ctx, conn, stmt)
	return err == nil && known && len(cols) == 0
}

// answer writes OK, or the error.
func (s *session) answer(err error, more bool) (bool, error) {
	if err != nil {
		my := s.srv.mysqlError(err, nil)
		s.srv.logf("connection %d: error %d (%s): %s", s.id, my.Code, my.State, my.Message)
		return false, s.writeError(my)
	}
	return true, s.writeOK(0, more)
}

// fail writes a statement's error and logs it.
func (s *session) fail(ctx context.Context, err error) (bool, error) {
	my := s.srv.mysqlError(err, context.Cause(ctx))
	s.srv.logf("connection %d: error %d (%s): %s", s.id, my.Code, my.State, my.Message)
	return false, s.writeError(my)
}

func (s *session) beginTx() error {
	if s.tx != nil {
		return mysql.NewError(mysql.ER_NOT_SUPPORTED_YET, "a transaction is already open: COMMIT or ROLLBACK it first")
	}
	conn, err := s.sqlConn(s.srv.baseCtx, s.db)
	if err != nil {
		return err
	}
	// The transaction outlives the statement: its context is the server's.
	tx, err := conn.BeginTx(s.srv.baseCtx, nil)
	if err != nil {
		return err
	}
	s.tx, s.txDB = tx, s.db
	return nil
}

// endTx commits or rolls back; without a transaction both are no-ops, as in MySQL.
func (s *session) endTx(commit bool) error {
	tx := s.tx
	if tx == nil {
		return nil
	}
	s.tx = nil
	if commit {
		return tx.Commit()
	}
	return tx.Rollback()
}

func (s *session) killByID(id uint64, queryOnly bool) error {
	target := s.srv.session(uint32(id))
	if target == nil {
		return mysql.NewError(mysql.ER_NO_SUCH_THREAD, fmt.Sprintf("Unknown thread id: %d", id))
	}
	s.srv.logf("connection %d: KILL %s%d", s.id, map[bool]string{true: "QUERY ", false: ""}[queryOnly], id)
	if target == s {
		if !queryOnly {
			s.mu.Lock()
			s.closeNext = true
			s.mu.Unlock()
		}
		return nil
	}
	target.kill(queryOnly)
	return nil
}

// status is the server status of OK and EOF packets.
func (s *session) status(more bool) uint16 {
	st := mysql.SERVER_STATUS_AUTOCOMMIT
	if s.tx != nil {
		st |= mysql.SERVER_STATUS_IN_TRANS
	}
	if more {
		st |= mysql.SERVER_MORE_RESULTS_EXISTS
	}
	return st
}

func (s *session) packet() []byte { return s.buf[:4] }

func (s *session) writeOK(affected uint64, more bool) error {
	p := append(s.packet(), mysql.OK_HEADER)
	p = appendLenEnc(p, affected)
	p = appendLenEnc(p, 0)
	st := s.status(more)
	p = append(p, byte(st), byte(st>>8), 0, 0)
	if s.capability&mysql.CLIENT_SESSION_TRACK != 0 {
		p = append(p, 0) // no info text
	}
	return s.write(p)
}

func (s *session) writeEOF(more bool) error {
	st := s.status(more)
	return s.write(append(s.packet(), mysql.EOF_HEADER, 0, 0, byte(st), byte(st>>8)))
}

func (s *session) writeError(e *mysql.MyError) error {
	p := append(s.packet(), mysql.ERR_HEADER, byte(e.Code), byte(e.Code>>8), '#')
	p = append(p, e.State...)
	p = append(p, e.Message...)
	return s.write(p)
}

func (s *session) write(p []byte) error {
	err := s.pc.writePacket(p)
	s.buf = p[:4]
	return err
}

// writeRows streams a result set: the column definitions, then each row as the driver yields
// it (one row in memory at a time), then EOF — or an error packet if the rows fail part-way,
// which clients read as the statement's error.
func (s *session) writeRows(ctx context.Context, rows *sql.Rows, binaryRows, more bool) (bool, error) {
	cols, err := columnsOf(rows)
	if err != nil {
		return s.fail(ctx, err)
	}
	if len(cols) == 0 {
		if err := rows.Close(); err != nil {
			return s.fail(ctx, err)
		}
		return true, s.writeOK(0, more)
	}
	// The first row is read before anything is written, so that a statement that fails at
	// once (most do: no such table, a refused construct) answers a plain error.
	hasRow := rows.Next()
	if !hasRow {
		if err := rows.Err(); err != nil {
			return s.fail(ctx, err)
		}
	}
	if err := s.write(appendLenEnc(s.packet(), uint64(len(cols)))); err != nil {
		return false, err
	}
	for i := range cols {
		if err := s.write(append(s.packet(), cols[i].field.Dump()...)); err != nil {
			return false, err
		}
	}
	if err := s.writeEOF(false); err != nil {
		return false, err
	}
	return s.streamRows(ctx, rows, cols, hasRow, binaryRows, more)
}

// encodedRow is a row packet the reading goroutine made, or the error that ended the rows.
type encodedRow struct {
	p   []byte
	err error
}

// streamRows sends the rows of a result whose first row (if hasRow) is ready. A goroutine reads the driver's
// rows and encodes them while this one writes them: rows go into the write buffer while the
// driver keeps up, and the buffer is flushed whenever the next row is not ready yet (the driver
// waits for Airtable's next page), so a client sees every row the server has, at once, and
// memory holds at most the queue's 64 rows.
func (s *session) streamRows(ctx context.Context, rows *sql.Rows, cols []column, hasRow, binaryRows, more bool) (bool, error) {
	queue := make(chan encodedRow, 64)
	free := make(chan []byte, 80) // packet buffers given back for reuse
	stop := make(chan struct{})
	go func() {
		defer close(queue)
		vals := make([]any, len(cols))
		dest := make([]any, len(cols))
		for i := range vals {
			dest[i] = &vals[i]
		}
		for ; hasRow; hasRow = rows.Next() {
			var r encodedRow
			if err := rows.Scan(dest...); err != nil {
				r.err = err
			} else {
				var p []byte
				select {
				case p = <-free:
				default:
					p = make([]byte, 4, 256)
				}
				p = p[:4]
				if binaryRows {
					p, r.err = appendBinaryRow(p, cols, vals)
				} else {
					for i := range cols {
						if p, r.err = appendText(p, &cols[i], vals[i]); r.err != nil {
							break
						}
					}
				}
				r.p = p
			}
			select {
			case queue <- r:
			case <-stop:
				return
			}
			if r.err != nil {
				return
			}
		}
		if err := rows.Err(); err != nil {
			select {
			case queue <- encodedRow{err: err}:
			case <-stop:
			}
		}
	}()
	// The reader must be done with rows before they are closed.
	finish := func() {
		close(stop)
		for range queue {
		}
	}
	for {
		var r encodedRow
		var ok bool
		select {
		case r, ok = <-queue:
		default:
			if err := s.nc.flush(); err != nil {
				s.cancelStatement(errClientGone)
				finish()
				return false, err
			}
			s.nc.beginBatch()
			r, ok = <-queue
		}
		if !ok {
			break
		}
		if r.err != nil {
			finish()
			return s.fail(ctx, r.err)
		}
		err := s.pc.writePacket(r.p)
		select {
		case free <- r.p:
		default:
		}
		if err != nil {
			s.cancelStatement(errClientGone)
			finish()
			return false, err
		}
	}
	return true, s.writeEOF(more)
}

// writeDatabases answers SHOW DATABASES when several bases are served: the driver knows only
// its own base.
func (s *session) writeDatabases(more bool) (bool, error) {
	col := columnFor("SCHEMATA", "Database", "TEXT", false)
	if err := s.write(appendLenEnc(s.packet(), 1)); err != nil {
		return false, err
	}
	if err := s.write(append(s.packet(), col.field.Dump()...)); err != nil {
		return false, err
	}
	if err := s.writeEOF(false); err != nil {
		return false, err
	}
	// The bases and information_schema, which MySQL lists to every user (each base's driver
	// lists itself and information_schema alike), sorted by name as MySQL 8 sorts them.
	names := append(s.srv.Databases(), "information_schema")
	slices.Sort(names)
	for _, name := range names {
		p, _ := appendText(s.packet(), &col, name)
		if err := s.write(p); err != nil {
			return false, err
		}
	}
	return true, s.writeEOF(more)
}

// HandleFieldList answers COM_FIELD_LIST (the mariadb client's name completion) from the
// driver's SHOW COLUMNS.
func (s *session) HandleFieldList(table, wildcard string) ([]*mysql.Field, error) {
	if err := s.begin(); err != nil {
		return nil, err
	}
	defer s.end()
	ctx, done := s.statementContext()
	defer done()
	conn, err := s.sqlConn(ctx, s.db)
	if err != nil {
		return nil, s.srv.mysqlError(err, context.Cause(ctx))
	}
	rows, err := conn.QueryContext(ctx, "SHOW COLUMNS FROM `"+strings.ReplaceAll(table, "`", "``")+"`")
	if err != nil {
		my := s.srv.mysqlError(err, context.Cause(ctx))
		s.srv.logf("connection %d: field list of %q: error %d (%s): %s", s.id, table, my.Code, my.State, my.Message)
		return nil, my
	}
	defer rows.Close()
	var fields []*mysql.Field
	for rows.Next() {
		var name, typ, null string
		var rest [5]any
		if err := rows.Scan(&name, &typ, &null, &rest[0], &rest[1], &rest[2], &rest[3], &rest[4]); err != nil {
			return nil, s.srv.mysqlError(err, nil)
		}
		if wildcard != "" && !likeFold(wildcard, name) {
			continue
		}
		fields = append(fields, columnFor(table, name, typ, null == "YES").field)
	}
	if err := rows.Err(); err != nil {
		return nil, s.srv.mysqlError(err, context.Cause(ctx))
	}
	return fields, nil
}

// likeFold matches a COM_FIELD_LIST wildcard (a LIKE pattern: % and _, \ escapes), ignoring
// case as MySQL's column names do.
func likeFold(pattern, s string) bool {
	p, r := []rune(strings.ToLower(pattern)), []rune(strings.ToLower(s))
	var match func(i, j int) bool
	match = func(i, j int) bool {
		for i < len(p) {
			switch c := p[i]; {
			case c == '%':
				for k := j; k <= len(r); k++ {
					if match(i+1, k) {
						return true
					}
				}
				return false
			case c == '_':
				if j >= len(r) {
					return false
				}
			case c == '\\' && i+1 < len(p):
				i++
				fallthrough
			default:
				if j >= len(r) || r[j] != p[i] {
					return false
				}
			}
			i++
			j++
		}
		return j == len(r)
	}
	return match(0, 0)
}

// preparedStmt is a statement prepared with COM_STMT_PREPARE: the driver's prepared statement
// on the database current at prepare time (nil for the statements the server answers itself),
// and the result columns announced at prepare.
type preparedStmt struct {
	query string
	stmt  *sql.Stmt
	cols  []column
}

// HandleStmtPrepare prepares the statement in the driver (which parses it once, so a syntax
// error answers here), counts its '?' parameters, and asks the driver for the result columns
// (airsql.ResultColumns plans the statement without running it): JDBC's
// PreparedStatement.getMetaData reads them before any execution. When they are known only at
// execution (LIMIT ?), none are announced and COM_STMT_EXECUTE sends them, as MySQL does for a
// statement whose columns can change.
func (s *session) HandleStmtPrepare(query string) (params, columns int, ctxv any, err error) {
	if err := s.begin(); err != nil {
		return 0, 0, nil, err
	}
	defer s.end()
	query = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(query), ";"))
	p := &preparedStmt{query: query}
	params = frontend.Placeholders(query)
	if s.answeredByServer(query) {
		return params, 0, p, nil
	}
	ctx, done := s.statementContext()
	defer done()
	conn, err := s.sqlConn(ctx, s.db)
	if err != nil {
		return 0, 0, nil, s.srv.mysqlError(err, nil)
	}
	fail := func(err error) (int, int, any, error) {
		my := s.srv.mysqlError(err, context.Cause(ctx))
		s.srv.logf("connection %d: prepare: error %d (%s): %s", s.id, my.Code, my.State, my.Message)
		return 0, 0, nil, my
	}
	p.stmt, err = conn.PrepareContext(ctx, query)
	if err != nil {
		return fail(err)
	}
	cols, known, err := airsql.ResultColumns(ctx, conn, query)
	if err != nil {
		_ = p.stmt.Close()
		return fail(err)
	}
	if known {
		for _, c := range cols {
			p.cols = append(p.cols, columnFor("", c.Name, c.DatabaseType, c.Nullable))
		}
	}
	return params, len(p.cols), p, nil
}

// answeredByServer reports the statements the server answers without the driver.
func (s *session) answeredByServer(q string) bool {
	st, err := frontend.Read(q)
	if err != nil {
		return false
	}
	switch st := st.(type) {
	case *frontend.Kill, *frontend.Use, *frontend.Begin, *frontend.Commit, *frontend.Rollback:
		return true
	case *frontend.Show:
		return isShowDatabases(st) && len(s.srv.dbs) > 1
	}
	return false
}

// isShowDatabases recognises SHOW DATABASES / SHOW SCHEMAS with nothing after it.
func isShowDatabases(st *frontend.Show) bool {
	return (st.AST.Type == "databases" || st.AST.Type == "schemas") && st.Rest == ""
}

// HandleStmtExecute runs a prepared statement with its parameters; rows go out in the binary
// row format.
func (s *session) HandleStmtExecute(ctxv any, query string, args []any) (*mysql.Result, error) {
	p, ok := ctxv.(*preparedStmt)
	if !ok {
		return nil, mysql.NewError(mysql.ER_UNKNOWN_ERROR, "unknown prepared statement")
	}
	driverArgs := make([]any, len(args))
	for i, a := range args {
		v, err := driverValue(a)
		if err != nil {
			s.srv.logf("connection %d: execute: parameter %d: %v", s.id, i+1, err)
			return nil, mysql.NewError(mysql.ER_WRONG_ARGUMENTS, fmt.Sprintf("parameter %d: %v", i+1, err))
		}
		driverArgs[i] = v
	}
	if err := s.begin(); err != nil {
		return nil, err
	}
	if _, err := s.run(p.query, p.stmt, driverArgs, true, false); err != nil {
		s.mu.Lock()
		s.busy = false
		s.mu.Unlock()
		return nil, err
	}
	if err := s.end(); err != nil {
		return nil, err
	}
	return written, nil
}

// driverValue converts a parameter as bind decoded it to a database/sql value.
func driverValue(a any) (any, error) {
	switch v := a.(type) {
	case nil:
		return nil, nil
	case int8:
		return int64(v), nil
	case int16:
		return int64(v), nil
	case int32:
		return int64(v), nil
	case int64:
		return v, nil
	case uint8:
		return int64(v), nil
	case uint16:
		return int64(v), nil
	case uint32:
		return int64(v), nil
	case uint64:
		if v > math.MaxInt64 {
			return nil, fmt.Errorf("the unsigned integer %d does not fit a signed 64-bit integer", v)
		}
		return int64(v), nil
	case float32:
		return float64(v), nil
	case float64:
		return v, nil
	case time.Time:
		return v, nil
	case mysql.TypedBytes:
		return string(v.Bytes), nil
	case []byte: // COM_STMT_SEND_LONG_DATA
		return string(v), nil
	case string:
		return v, nil
	}
	return nil, fmt.Errorf("a parameter of type %T is not supported", a)
}

// HandleStmtClose releases the driver's prepared statement.
func (s *session) HandleStmtClose(ctxv any) error {
	if p, ok := ctxv.(*preparedStmt); ok && p.stmt != nil {
		return p.stmt.Close()
	}
	return nil
}

// HandleOtherCommand answers COM_SET_OPTION (multi-statements on or off), COM_PROCESS_KILL and
// COM_RESET_CONNECTION; anything else is an unknown command, as in MySQL.
func (s *session) HandleOtherCommand(cmd byte, data []byte) error {
	switch cmd {
	case mysql.COM_SET_OPTION:
		if len(data) < 2 {
			return mysql.ErrMalformPacket
		}
		on := binary.LittleEndian.Uint16(data) == 0
		s.multi = &on
		return nil
	case mysql.COM_PROCESS_KILL:
		if len(data) < 4 {
			return mysql.ErrMalformPacket
		}
		return s.killByID(uint64(binary.LittleEndian.Uint32(data)), false)
	case mysql.COM_RESET_CONNECTION:
		// A fresh session: the driver connections (and their session state) are given back.
		if s.tx != nil {
			_ = s.tx.Rollback()
			s.tx = nil
		}
		s.discardConns()
		s.multi = nil
		return nil
	}
	return mysql.NewError(mysql.ER_UNKNOWN_COM_ERROR, fmt.Sprintf("Unknown command %d", cmd))
}
