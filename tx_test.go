package airsql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/airsql/airsql/emulator"
)

// writesSent counts the POST, PATCH, PUT and DELETE requests the emulator received.
func writesSent(srv *emulator.Server) int {
	n := 0
	for _, r := range dataRequests(srv) {
		if r.Method != "GET" && !strings.HasSuffix(r.Path, "/listRecords") {
			n++
		}
	}
	return n
}

// execOn runs statements on one connection, failing the test on an error.
func execOn(t *testing.T, c *sql.Conn) func(q string) {
	return func(q string) {
		t.Helper()
		if _, err := c.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestTxQueuesUntilCommit: writes in a transaction are checked at once, report their
// RowsAffected, send nothing before COMMIT, and then go out in order, consecutive one-row INSERTs
// into one table as one batch.
func TestTxQueuesUntilCommit(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	res, err := tx.Exec("UPDATE Tasks SET Priority = 9 WHERE Name = 'Ship it'")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("UPDATE RowsAffected = %d, want 1 (the record was found when the statement ran)", n)
	}
	for i := range 3 {
		res, err = tx.Exec("INSERT INTO Tasks (Name, Priority) VALUES (?, ?)", fmt.Sprintf("tx %d", i), i)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			t.Errorf("RowsAffected = %d, want 1", n)
		}
	}
	// A statement refused is refused at once, and leaves the transaction usable.
	if _, err := tx.Exec("INSERT INTO Tasks (NoSuchColumn) VALUES (1)"); err == nil {
		t.Error("an unknown column should be refused when the statement runs, not at COMMIT")
	}
	if n := writesSent(srv); n != 0 {
		t.Fatalf("%d write requests before COMMIT, want 0: %v", n, dataRequests(srv))
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	writes := dataRequests(srv)
	var methods []string
	for _, r := range writes {
		if r.Method != "GET" {
			methods = append(methods, r.Method)
		}
	}
	// The UPDATE's PATCH, then one POST with the three records.
	if !reflect.DeepEqual(methods, []string{"PATCH", "POST"}) {
		t.Errorf("write requests %v, want [PATCH POST]", methods)
	}
	got := sorted(queryColumn(t, db, "SELECT Name FROM Tasks WHERE Name LIKE 'tx %'"))
	if !reflect.DeepEqual(got, []string{"tx 0", "tx 1", "tx 2"}) {
		t.Errorf("after COMMIT: %q", got)
	}
	if got := queryColumn(t, db, "SELECT Priority FROM Tasks WHERE Name = 'Ship it'"); !reflect.DeepEqual(got, []string{"9"}) {
		t.Errorf("the UPDATE was not applied: %q", got)
	}
}

// TestTxRollbackBeforeSending discards everything; a read of another table sends nothing.
func TestTxRollbackBeforeSending(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("DELETE FROM Tasks WHERE Name = 'Ship it'"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO Tasks (Name) VALUES ('never')"); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query("SELECT `Full Name` FROM `Team Members`")
	if err != nil {
		t.Fatal(err)
	}
	scanAll(t, rows)
	if n := writesSent(srv); n != 0 {
		t.Fatalf("%d write requests, want 0: a read of another table must not send the queue", n)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatalf("ROLLBACK with nothing sent: %v", err)
	}
	if n := writesSent(srv); n != 0 {
		t.Errorf("%d write requests after ROLLBACK, want 0", n)
	}
	if got := queryColumn(t, db, "SELECT COUNT(*) FROM Tasks WHERE Name IN ('never', 'Ship it')"); !reflect.DeepEqual(got, []string{"1"}) {
		t.Errorf("after ROLLBACK: %q, want only 'Ship it' left", got)
	}
}

// TestTxReadSeesOwnWrites: a read of a table with queued writes sends them first, and ROLLBACK
// then fails naming what was applied.
func TestTxReadSeesOwnWrites(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO Tasks (Name) VALUES ('seen'), ('seen too')"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO Tasks (Name) VALUES ('queued after')"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow("SELECT COUNT(*) FROM Tasks WHERE Name LIKE 'seen%' OR Name = 'queued after'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("the transaction reads %d of its 3 rows", n)
	}
	if _, err := tx.Exec("INSERT INTO Tasks (Name) VALUES ('discarded')"); err != nil {
		t.Fatal(err)
	}
	err = tx.Rollback()
	var re *RollbackError
	if !errors.As(err, &re) {
		t.Fatalf("ROLLBACK after a flush: %v, want *RollbackError", err)
	}
	if len(re.Applied) != 2 || re.Discarded != 1 || re.Applied[0].State != "applied" || len(re.Applied[0].Written) != 2 {
		t.Errorf("RollbackError %+v: want the two statements applied (2 and 1 records) and 1 discarded", re)
	}
	if !strings.Contains(err.Error(), "cannot undo 2 statement(s)") {
		t.Errorf("message %q", err)
	}
	got := sorted(queryColumn(t, db, "SELECT id FROM Tasks WHERE Name IN ('seen', 'seen too', 'queued after', 'discarded')"))
	want := sorted(append(append([]string(nil), re.Applied[0].Written...), re.Applied[1].Written...))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("records in the table %q, RollbackError says %q", got, want)
	}
}

// TestTxQueryWriteSendsAtOnce: an INSERT run with Query must return its records: it goes at
// once, after the queue.
func TestTxQueryWriteSendsAtOnce(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO `Team Members` (`Full Name`) VALUES ('first')"); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query("INSERT INTO Tasks (Name) VALUES ('returned')")
	if err != nil {
		t.Fatal(err)
	}
	if got := scanAll(t, rows); len(got) != 1 || !strings.HasPrefix(toString(got[0][0]), "rec") {
		t.Errorf("the INSERT returned %v, want its record", got)
	}
	posts := writeRequests(srv, "POST")
	if len(posts) != 2 || !strings.Contains(posts[0].Path, "tblTEAM") || !strings.Contains(posts[1].Path, "tblTASKS") {
		t.Fatalf("POSTs %v: want the queued Team Members insert, then the Tasks one", posts)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestTxOptions: read-only transactions refuse writes; isolation levels are refused.
func TestTxOptions(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO Tasks (Name) VALUES ('x')"); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("a write in a read-only transaction: %v", err)
	}
	if _, err := tx.Query("INSERT INTO Tasks (Name) VALUES ('x')"); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("a write with Query in a read-only transaction: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, lvl := range []sql.IsolationLevel{sql.LevelSerializable, sql.LevelReadCommitted, sql.LevelRepeatableRead} {
		_, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: lvl})
		var ue *UnsupportedError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), lvl.String()) {
			t.Errorf("isolation %v: %v, want an UnsupportedError naming it", lvl, err)
		}
	}
	if n := writesSent(srv); n != 0 {
		t.Errorf("%d write requests, want 0", n)
	}
}

// TestTxStatements: BEGIN, START TRANSACTION, COMMIT and ROLLBACK as statements on one
// connection; COMMIT and ROLLBACK without a transaction do nothing, as in autocommit mode.
func TestTxStatements(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	c := connOn(t, db)
	exec := execOn(t, c)
	exec("COMMIT")
	exec("ROLLBACK")
	exec("BEGIN")
	exec("INSERT INTO Tasks (Name) VALUES ('rolled back')")
	exec("ROLLBACK")
	exec("START TRANSACTION")
	exec("INSERT INTO Tasks (Name) VALUES ('committed')")
	exec("BEGIN") // commits the open transaction first, as MySQL does
	exec("INSERT INTO Tasks (Name) VALUES ('committed too')")
	exec("COMMIT")
	got := sorted(queryColumn(t, db, "SELECT Name FROM Tasks WHERE Name IN ('rolled back', 'committed', 'committed too')"))
	if !reflect.DeepEqual(got, []string{"committed", "committed too"}) {
		t.Errorf("after the statements: %q", got)
	}
}

// TestTxCommitFailsPartWay: 25 one-row INSERTs commit as 3 chunks; the second is refused (one
// row has an unknown select option). The TxError gives each statement its fate, and the table
// holds exactly the records it says were written.
func TestTxCommitFailsPartWay(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 25 {
		status := "Todo"
		if i == 12 {
			status = "No such option"
		}
		if _, err := tx.Exec("INSERT INTO Tasks (Name, Status) VALUES (?, ?)", fmt.Sprintf("part %02d", i), status); err != nil {
			t.Fatal(err)
		}
	}
	err = tx.Commit()
	var txe *TxError
	if !errors.As(err, &txe) {
		t.Fatalf("COMMIT: %v, want *TxError", err)
	}
	var we *WriteError
	if !errors.As(err, &we) {
		t.Errorf("the cause should be the batch's *WriteError: %v", err)
	}
	if len(txe.Statements) != 25 {
		t.Fatalf("%d statements in TxError, want 25", len(txe.Statements))
	}
	var written []string
	for i, st := range txe.Statements {
		switch {
		case i < 10 && (st.State != "applied" || len(st.Written) != 1):
			t.Errorf("statement %d: %+v, want applied (its chunk succeeded)", i, st)
		case i >= 10 && i < 20 && st.State != "not applied":
			t.Errorf("statement %d: %+v, want not applied (its chunk was refused)", i, st)
		case i >= 20 && st.State != "applied" && st.State != "not applied":
			t.Errorf("statement %d: %+v: the third chunk was either sent whole or not started", i, st)
		}
		written = append(written, st.Written...)
	}
	got := sorted(queryColumn(t, db, "SELECT id FROM Tasks WHERE Name LIKE 'part %'"))
	if !reflect.DeepEqual(got, sorted(written)) {
		t.Errorf("records in the table %q, TxError says %q", got, written)
	}
	if !strings.Contains(err.Error(), "applied") {
		t.Errorf("message %q", err)
	}
}

// TestTxKeepsOrderAcrossTables: writes to different tables go out in statement order, and only
// consecutive INSERTs into one table are merged.
func TestTxKeepsOrderAcrossTables(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"INSERT INTO Tasks (Name) VALUES ('o1')",
		"INSERT INTO Tasks (Name) VALUES ('o2')",
		"INSERT INTO `Team Members` (`Full Name`) VALUES ('o3')",
		"INSERT INTO Tasks (Name) VALUES ('o4')",
		"INSERT INTO Tasks (Name, Priority) VALUES ('o5', 1) ON DUPLICATE KEY UPDATE Priority = VALUES(Priority)",
		"INSERT INTO Tasks (Name, Priority) VALUES ('o5', 2) ON DUPLICATE KEY UPDATE Priority = VALUES(Priority)",
	} {
		if _, err := tx.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range dataRequests(srv) {
		if r.Method != "GET" {
			got = append(got, fmt.Sprintf("%s %d", r.Method, strings.Count(string(r.Body), `"fields"`)))
		}
	}
	// Two upserts of one key are not merged: the second must see the first's record.
	want := []string{"POST 2", "POST 1", "POST 1", "PATCH 1", "PATCH 1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("write requests %q, want %q", got, want)
	}
	if got := queryColumn(t, db, "SELECT Priority FROM Tasks WHERE Name = 'o5'"); !reflect.DeepEqual(got, []string{"2"}) {
		t.Errorf("o5 after two upserts: %q, want one record with Priority 2", got)
	}
}

// TestTxFailedFlush: when the queue sent for a read fails, the read returns the TxError, later
// writes and COMMIT are refused, and ROLLBACK names what had been applied.
func TestTxFailedFlush(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO Tasks (Name) VALUES ('flushed')"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO `Team Members` (`Full Name`) VALUES ('between')"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO Tasks (Name, Status) VALUES ('refused', 'No such option')"); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Query("SELECT Name FROM Tasks")
	var txe *TxError
	if !errors.As(err, &txe) {
		t.Fatalf("the read: %v, want the TxError of the flush", err)
	}
	var states []string
	for _, st := range txe.Statements {
		states = append(states, st.State)
	}
	if want := []string{"applied", "applied", "not applied"}; !reflect.DeepEqual(states, want) {
		t.Errorf("states %q, want %q", states, want)
	}
	if _, err := tx.Exec("INSERT INTO Tasks (Name) VALUES ('later')"); err == nil {
		t.Error("a write after a failed send should be refused")
	}
	err = tx.Rollback()
	var re *RollbackError
	if !errors.As(err, &re) || len(re.Applied) != 2 {
		t.Fatalf("ROLLBACK: %v, want a RollbackError naming the 2 statements applied", err)
	}
	if got := queryColumn(t, db, "SELECT Name FROM Tasks WHERE Name IN ('flushed', 'refused', 'later')"); !reflect.DeepEqual(got, []string{"flushed"}) {
		t.Errorf("Tasks after the failed flush: %q", got)
	}
}

// TestTxCommitAfterFailedFlushRefused: COMMIT after a failed send does not send the rest.
func TestTxCommitAfterFailedFlushRefused(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	ctx := context.Background()
	c := connOn(t, db)
	for _, q := range []string{"BEGIN", "INSERT INTO Tasks (Name, Status) VALUES ('bad', 'No such option')"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.QueryContext(ctx, "SELECT Name FROM Tasks"); err == nil {
		t.Fatal("the read should fail with the flush's error")
	}
	if _, err := c.ExecContext(ctx, "COMMIT"); err == nil || !strings.Contains(err.Error(), "COMMIT refused") {
		t.Errorf("COMMIT after a failed send: %v", err)
	}
}

// TestAutocommitOff: with SET autocommit = 0 (PyMySQL's default, JDBC's setAutoCommit(false))
// every write begins a transaction that lasts until COMMIT or ROLLBACK; turning autocommit back
// on commits, as in MySQL.
func TestAutocommitOff(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	ctx := context.Background()
	c := connOn(t, db)
	exec := execOn(t, c)
	warmSchema(t, db, srv)
	exec("SET autocommit = 0")
	exec("INSERT INTO Tasks (Name) VALUES ('ac 1')")
	if n := writesSent(srv); n != 0 {
		t.Fatalf("%d writes sent before COMMIT with autocommit off", n)
	}
	exec("COMMIT")
	exec("INSERT INTO Tasks (Name) VALUES ('ac 2')") // a new transaction begins by itself
	exec("ROLLBACK")
	exec("INSERT INTO Tasks (Name) VALUES ('ac 3')")
	exec("SET autocommit = 1") // commits
	exec("INSERT INTO Tasks (Name) VALUES ('ac 4')")
	got := sorted(queryColumn(t, db, "SELECT Name FROM Tasks WHERE Name LIKE 'ac %'"))
	if want := []string{"ac 1", "ac 3", "ac 4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after the statements: %q, want %q", got, want)
	}
	var v int64
	if err := c.QueryRowContext(ctx, "SELECT @@autocommit").Scan(&v); err != nil || v != 1 {
		t.Errorf("@@autocommit = %d, %v", v, err)
	}
}
