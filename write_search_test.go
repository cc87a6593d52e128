package airsql

import (
	"net/url"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/airsql/airsql/emulator"
)

// requestLines writes each data request as "METHOD path?decoded query" (the body's length for a
// write), for tests that assert exactly what was sent.
func requestLines(srv *emulator.Server) []string {
	var out []string
	for _, r := range dataRequests(srv) {
		q, _ := url.QueryUnescape(r.Query)
		line := r.Method + " " + r.Path
		if q != "" {
			line += "?" + q
		}
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/listRecords") {
			line += " " + string(r.Body)
		}
		out = append(out, line)
	}
	return out
}

// TestPlainUpdateRequests: an UPDATE whose WHERE the table's request can answer keeps its
// single-table search: one filtered listing, then the PATCHes — exactly these requests.
func TestPlainUpdateRequests(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	res, err := db.Exec("UPDATE Tasks SET Notes = 'x' WHERE Priority > 3")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := res.RowsAffected()
	got := requestLines(srv)
	want := []string{
		"GET /v0/" + testBase + "/tblTASKS000000001?fields[]=Done&filterByFormula={Priority}>3&pageSize=100",
		"PATCH /v0/" + testBase + "/tblTASKS000000001",
	}
	if n != 2 || !reflect.DeepEqual(got, want) {
		t.Errorf("%d rows, requests\n%s\nwant 2 rows and\n%s", n, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSearchedUpdateAndDelete: UPDATE and DELETE whose WHERE holds a subquery find their records
// with a SELECT of id run by the engine, as a SELECT with that WHERE would.
func TestSearchedUpdateAndDelete(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	want := sorted(queryColumn(t, db, "SELECT Name FROM Tasks WHERE Priority >= 4"))
	warmSchema(t, db, srv)
	res, err := db.Exec("UPDATE Tasks SET Notes = CONCAT('was ', IFNULL(Notes, '-')) WHERE id IN (SELECT id FROM Tasks WHERE Priority >= 4)")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := res.RowsAffected()
	if n != int64(len(want)) {
		t.Errorf("UPDATE: %d rows affected, want %d", n, len(want))
	}
	got := requestLines(srv)
	// The subquery's listing, the outer scan with its ids pushed (bind), the records read back
	// by id for SET, and one PATCH of up to 10.
	if len(got) != 4 || !strings.HasPrefix(got[len(got)-1], "PATCH ") {
		t.Errorf("requests:\n%s\nwant 3 reads and 1 PATCH", strings.Join(got, "\n"))
	}
	if got := sorted(queryColumn(t, db, "SELECT Name FROM Tasks WHERE Notes LIKE 'was %'")); !reflect.DeepEqual(got, want) {
		t.Errorf("updated %q, want %q", got, want)
	}
	// A subquery that finds nothing updates nothing.
	res, err = db.Exec("UPDATE Tasks SET Notes = 'never' WHERE Priority IN (SELECT Priority FROM Tasks WHERE Priority > 100)")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 0 {
		t.Errorf("UPDATE of nothing: %d rows", n)
	}

	srv.ResetRequests()
	res, err = db.Exec("DELETE FROM Tasks WHERE Priority = (SELECT MAX(Priority) FROM Tasks)")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("DELETE: %d rows, want 1", n)
	}
	deletes := writeRequests(srv, "DELETE")
	if len(deletes) != 1 {
		t.Errorf("%d DELETE requests, want 1", len(deletes))
	}
	if got := queryColumn(t, db, "SELECT COUNT(*) FROM Tasks WHERE Priority = 5"); !reflect.DeepEqual(got, []string{"0"}) {
		t.Errorf("after DELETE: %v rows of the highest priority left", got)
	}
}

// TestInsertSelect: INSERT … SELECT runs the SELECT through the engine and writes its rows in
// chunks of 10.
func TestInsertSelect(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	src := queryColumn(t, db, "SELECT CONCAT('copy ', Name) FROM Tricky")
	warmSchema(t, db, srv)
	res, err := db.Exec("INSERT INTO Tasks (Name, Priority) SELECT CONCAT('copy ', Name), 7 FROM Tricky")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != int64(len(src)) {
		t.Errorf("%d rows affected, want %d", n, len(src))
	}
	posts := writeRequests(srv, "POST")
	var creates int
	for _, r := range posts {
		if !strings.HasSuffix(r.Path, "/listRecords") {
			creates++
		}
	}
	if want := (len(src) + 9) / 10; creates != want {
		t.Errorf("%d create requests for %d rows, want %d (chunks of 10)", creates, len(src), want)
	}
	copies := queryColumn(t, db, "SELECT Name FROM Tasks WHERE Priority = 7")
	sort.Strings(copies)
	sort.Strings(src)
	if !reflect.DeepEqual(copies, src) {
		t.Errorf("copied %q, want %q", copies, src)
	}
	// A column count that does not match is refused before anything is written.
	srv.ResetRequests()
	if _, err := db.Exec("INSERT INTO Tasks (Name) SELECT Name, Priority FROM Tasks"); err == nil || !strings.Contains(err.Error(), "2 columns for 1") {
		t.Errorf("got %v, want an error about the column count", err)
	}
	if n := len(writeRequests(srv, "POST")); n != 0 {
		t.Errorf("%d POSTs after a refused INSERT … SELECT", n)
	}
	// The SELECT may be a chain of INTERSECT and EXCEPT (MySQL 8.0.31), its ? numbered in the whole.
	want := sorted(queryColumn(t, db, "SELECT DISTINCT CONCAT('again ', Name) FROM Tricky WHERE Name IS NULL OR Name NOT LIKE '%{%'"))
	if _, err := db.Exec("INSERT INTO Tasks (Name, Priority) SELECT CONCAT(?, Name), ? FROM Tricky EXCEPT SELECT CONCAT('again ', Name), 8 FROM Tricky WHERE Name LIKE ?",
		"again ", 8, "%{%"); err != nil {
		t.Fatal(err)
	}
	if got := sorted(queryColumn(t, db, "SELECT Name FROM Tasks WHERE Priority = 8")); !reflect.DeepEqual(got, want) || len(want) == 0 {
		t.Errorf("INSERT … SELECT … EXCEPT wrote %q, want %q", got, want)
	}
}

// TestJoinedUpdateAndDelete: UPDATE t JOIN … SET t.c = … and DELETE t FROM t JOIN … (MySQL's
// multi-table forms, writing one table) find their records with a SELECT of t.id over the join.
func TestJoinedUpdateAndDelete(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	// Tasks whose priority some Done task shares.
	want := sorted(queryColumn(t, db, "SELECT DISTINCT t.Name FROM Tasks t JOIN Tasks d ON d.Priority = t.Priority WHERE d.Done"))
	if len(want) == 0 {
		t.Fatal("the fixture has no such task")
	}
	res, err := db.Exec("UPDATE Tasks t JOIN Tasks d ON d.Priority = t.Priority SET t.Notes = 'shares' WHERE d.Done")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != int64(len(want)) {
		t.Errorf("UPDATE: %d rows, want %d", n, len(want))
	}
	if got := sorted(queryColumn(t, db, "SELECT Name FROM Tasks WHERE Notes = 'shares'")); !reflect.DeepEqual(got, want) {
		t.Errorf("updated %q, want %q", got, want)
	}
	res, err = db.Exec("DELETE t FROM Tasks t JOIN Tasks d ON d.Priority = t.Priority WHERE d.Done")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != int64(len(want)) {
		t.Errorf("DELETE: %d rows, want %d", n, len(want))
	}
	if got := queryColumn(t, db, "SELECT COUNT(*) FROM Tasks WHERE Notes = 'shares'"); !reflect.DeepEqual(got, []string{"0"}) {
		t.Errorf("after DELETE: %v left", got)
	}
	// SET columns that do not name the one table written are refused, as before.
	if _, err := db.Exec("UPDATE Tasks t JOIN Tasks d ON d.Priority = t.Priority SET Notes = 'x'"); err == nil {
		t.Error("UPDATE of a join with an unqualified SET column ran; want a refusal")
	}
}

// TestExplainSearchedWrites: EXPLAIN describes the writes a SELECT finds the rows of (the SELECT's
// operator tree, then the write), sending nothing but the schema request.
func TestExplainSearchedWrites(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	for _, c := range []struct{ sql, want string }{
		{"EXPLAIN UPDATE Tasks SET Notes = 'x' WHERE id IN (SELECT id FROM Tasks WHERE Priority >= 5)", "PATCH (update records)"},
		{"EXPLAIN DELETE t FROM Tasks t JOIN Tasks d ON d.Priority = t.Priority WHERE d.Done", "select distinct t.id from Tasks as t join Tasks as d"},
		{"EXPLAIN INSERT INTO Tasks (Name) SELECT Name FROM Tricky", "POST (create records) of every row the SELECT gives"},
	} {
		t.Run(c.sql, func(t *testing.T) {
			rows, err := db.Query(c.sql)
			if err != nil {
				t.Fatal(err)
			}
			var text []string
			for _, r := range scanAll(t, rows) {
				text = append(text, toString(r[0])+": "+toString(r[1]))
			}
			if all := strings.Join(text, "\n"); !strings.Contains(all, c.want) || !strings.Contains(all, "operator") {
				t.Errorf("got\n%s\nwant the SELECT's operators and %q", all, c.want)
			}
		})
	}
	if n := len(dataRequests(srv)); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
