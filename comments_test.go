package airsql

import (
	"errors"
	"strings"
	"testing"

	"github.com/airsql/airsql/emulator"
)

// TestCommentsTable: `Tasks$comments` reads, creates, edits and deletes record comments, one
// request per record named, and refuses a statement that names no record.
func TestCommentsTable(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	var a, b string
	if err := db.QueryRow("SELECT id FROM Tasks ORDER BY id LIMIT 1").Scan(&a); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT id FROM Tasks ORDER BY id LIMIT 1 OFFSET 1").Scan(&b); err != nil {
		t.Fatal(err)
	}
	res, err := db.Exec("INSERT INTO `Tasks$comments` (record_id, text) VALUES (?, 'first'), (?, ?), (?, 'third')", a, a, "second", b)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 3 {
		t.Errorf("INSERT affected %d rows, want 3", n)
	}
	count := func(sql string, args ...any) int {
		t.Helper()
		srv.ResetRequests()
		var n int
		if err := db.QueryRow(sql, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}
	if n := count("SELECT COUNT(*) FROM `Tasks$comments` WHERE record_id = ?", a); n != 2 {
		t.Errorf("comments of %s: %d, want 2", a, n)
	}
	var listings int
	for _, r := range srv.Requests() {
		if strings.HasSuffix(r.Path, "/comments") {
			listings++
		}
	}
	if listings != 1 {
		t.Errorf("%d comment listings for one record, want 1", listings)
	}
	if n := count("SELECT COUNT(*) FROM `Tasks$comments` WHERE record_id IN (?, ?) AND text LIKE '%ir%'", a, b); n != 2 {
		t.Errorf("comments with 'ir' of both: %d, want 2 (first, third)", n)
	}
	rows, err := db.Query("SELECT record_id, text, author_email, createdTime IS NOT NULL, mentions FROM `Tasks$comments` WHERE record_id = ? ORDER BY text", a)
	if err != nil {
		t.Fatal(err)
	}
	got := scanAll(t, rows)
	if len(got) != 2 || got[0][1] != "first" || got[1][1] != "second" || got[0][0] != a {
		t.Errorf("comments of %s: %v", a, got)
	}

	res, err = db.Exec("UPDATE `Tasks$comments` SET text = 'First!' WHERE record_id = ? AND text = 'first'", a)
	if n, _ := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("UPDATE: %v, %d rows", err, n)
	}
	res, err = db.Exec("DELETE FROM `Tasks$comments` WHERE record_id IN (?, ?) AND text <> 'First!'", a, b)
	if n, _ := res.RowsAffected(); err != nil || n != 2 {
		t.Fatalf("DELETE: %v, %d rows", err, n)
	}
	var text string
	if err := db.QueryRow("SELECT text FROM `Tasks$comments` WHERE record_id IN (?, ?)", a, b).Scan(&text); err != nil || text != "First!" {
		t.Errorf("after UPDATE and DELETE: %q, %v; want only First!", text, err)
	}

	srv.ResetRequests()
	for stmt, want := range map[string]string{
		"SELECT * FROM `Tasks$comments`":                                            "without a record id",
		"SELECT * FROM `Tasks$comments` WHERE text = 'x'":                           "without a record id",
		"DELETE FROM `Tasks$comments`":                                              "without a record id",
		"UPDATE `Tasks$comments` SET author_id = 'x' WHERE record_id = 'r'":         "other than text",
		"SELECT * FROM Tasks t JOIN `Tasks$comments` c ON c.record_id = t.id":       "in a join",
		"INSERT INTO `Tasks$comments` (record_id, id, text) VALUES ('r', 'c', 'x')": "comment column id",
		"SELECT * FROM Tasks$comments WHERE record_id = 'r'":                        "without backquotes",
		"SELECT * FROM `Nope$comments` WHERE record_id = 'r'":                       "no table \"Nope\"",
	} {
		_, err := db.Exec(stmt)
		if strings.HasPrefix(stmt, "SELECT") {
			_, err = db.Query(stmt)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an error saying %q", stmt, err, want)
		}
	}
	// Comments are written at once: not in a transaction, nor with autocommit off.
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO `Tasks$comments` (record_id, text) VALUES (?, 'x')", a); err == nil || !strings.Contains(err.Error(), "in a transaction") {
		t.Errorf("a comment in a transaction: %v", err)
	}
	tx.Rollback()
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), "SET autocommit = 0"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), "DELETE FROM `Tasks$comments` WHERE record_id = ?", a); err == nil || !strings.Contains(err.Error(), "in a transaction") {
		t.Errorf("a comment with autocommit off: %v", err)
	}
	conn.Close()

	// EXPLAIN says what a statement would cost and sends none of it.
	for stmt, want := range map[string]string{
		"EXPLAIN SELECT * FROM `Tasks$comments` WHERE record_id = 'recX'":                      "one per record named",
		"EXPLAIN DELETE FROM `Tasks$comments` WHERE record_id = 'recX'":                        "one PATCH or DELETE per comment matched",
		"EXPLAIN INSERT INTO `Tasks$comments` (record_id, text) VALUES ('recX', 'hi')":         "one per row",
		"EXPLAIN UPDATE `Team Members` SET Photo = LOAD_FILE('a.png') WHERE `Full Name` = 'x'": "uploadAttachment per file",
	} {
		rows, err := db.Query(stmt)
		if err != nil {
			t.Errorf("%s: %v", stmt, err)
			continue
		}
		var text []string
		for _, r := range scanAll(t, rows) {
			text = append(text, r[1].(string))
		}
		if !strings.Contains(strings.Join(text, "\n"), want) {
			t.Errorf("%s:\n%s\nwant it to say %q", stmt, strings.Join(text, "\n"), want)
		}
	}
	for _, r := range srv.Requests() {
		if strings.Contains(r.Path, "/comments") || strings.Contains(r.Path, "uploadAttachment") {
			t.Errorf("EXPLAIN or a refused statement sent %s %s", r.Method, r.Path)
		}
	}
	var ue *UnsupportedError
	if _, err := db.Query("SELECT * FROM `Tasks$comments`"); !errors.As(err, &ue) {
		t.Errorf("SELECT without a record id: %T, want *UnsupportedError", err)
	}
}

// TestUserIsWhoami: USER() and CURRENT_USER() answer who the token acts for, asked once.
func TestUserIsWhoami(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	var user, current, bare string
	if err := db.QueryRow("SELECT USER(), CURRENT_USER(), CURRENT_USER").Scan(&user, &current, &bare); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(user, "@airtable") && !strings.Contains(user, "@") || user != current || user != bare {
		t.Errorf("USER() %q, CURRENT_USER() %q, CURRENT_USER %q: want the token's user, all three the same", user, current, bare)
	}
	if err := db.QueryRow("SELECT SESSION_USER()").Scan(&user); err != nil || user != current {
		t.Errorf("SESSION_USER(): %q, %v", user, err)
	}
	n := 0
	for _, r := range srv.Requests() {
		if r.Path == "/v0/meta/whoami" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d whoami requests, want 1 (asked once per connector)", n)
	}
}

// TestCommentsOfMissingRecords: a record id the table does not have selects no comment (as in
// MySQL); a token without the comments scope gets the service's refusal, not an empty result.
func TestCommentsOfMissingRecords(t *testing.T) {
	srv := newEmulator(t, emulator.WithFixture(&emulator.Fixture{Tokens: []emulator.FixtureToken{{Token: "patNOCOMMENTS.secret",
		Bases: []string{testBase}, Scopes: []string{"data.records:read", "schema.bases:read"}}}}))
	db, _ := openDB(t, srv, "")
	var a string
	if err := db.QueryRow("SELECT id FROM Tasks ORDER BY id LIMIT 1").Scan(&a); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO `Tasks$comments` (record_id, text) VALUES (?, 'kept')", a); err != nil {
		t.Fatal(err)
	}
	got := queryColumn(t, db, "SELECT text FROM `Tasks$comments` WHERE record_id IN ('recNOPE0000000000', ?)", a)
	if strings.Join(got, ",") != "kept" {
		t.Errorf("comments of a missing and an existing record: %v, want [kept]", got)
	}
	noScope, _ := openDSN(t, "airtable://patNOCOMMENTS.secret@localhost/"+testBase+"?tls=false", srv.Client())
	if _, err := noScope.Query("SELECT text FROM `Tasks$comments` WHERE record_id = ?", a); err == nil {
		t.Error("a token without data.recordComments:read read comments without an error")
	}
}
