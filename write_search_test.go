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
	// The subquery's listing, then the outer scan with its ids pushed (bind), which reads the
	// Notes SET needs (the search computes the SET values), and one PATCH of up to 10.
	wantRequests := []string{
		"GET /v0/" + testBase + "/tblTASKS000000001?fields[]=Done&filterByFormula={Priority}>=4&pageSize=100",
		"GET /v0/" + testBase + "/tblTASKS000000001?fields[]=Notes&filterByFormula=OR(RECORD_ID()='recTASK0000000003', RECORD_ID()='recTASK0000000007')&pageSize=100",
		"PATCH /v0/" + testBase + "/tblTASKS000000001",
	}
	if !reflect.DeepEqual(got, wantRequests) {
		t.Errorf("requests\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantRequests, "\n"))
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
	warmSchema(t, db, srv)
	res, err := db.Exec("UPDATE Tasks t JOIN Tasks d ON d.Priority = t.Priority SET t.Notes = 'shares' WHERE d.Done")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != int64(len(want)) {
		t.Errorf("UPDATE: %d rows, want %d", n, len(want))
	}
	// The join's two reads (the Done tasks, then the tasks of their priorities, bound), then
	// the PATCH: the search computes the SET values, so nothing is read back by id.
	if got, want := requestLines(srv), []string{
		"GET /v0/" + testBase + "/tblTASKS000000001?fields[]=Priority&filterByFormula={Done}&pageSize=100",
		"GET /v0/" + testBase + "/tblTASKS000000001?fields[]=Priority&filterByFormula=OR({Priority}=5, AND({Priority}&''!='', {Priority}=0))&pageSize=100",
		"PATCH /v0/" + testBase + "/tblTASKS000000001",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("requests\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := sorted(queryColumn(t, db, "SELECT Name FROM Tasks WHERE Notes = 'shares'")); !reflect.DeepEqual(got, want) {
		t.Errorf("updated %q, want %q", got, want)
	}
	// SET reads the other table of the join, as in MySQL; a record the join matches several
	// times is written once, with one of its rows' values.
	sharing := sorted(queryColumn(t, db, "SELECT DISTINCT t.Name FROM Tasks t JOIN Tasks d ON d.Priority = t.Priority AND d.id <> t.id"))
	if len(sharing) == 0 {
		t.Fatal("the fixture has no two tasks of one priority")
	}
	res, err = db.Exec("UPDATE Tasks t JOIN Tasks d ON d.Priority = t.Priority AND d.id <> t.id SET t.Notes = d.id")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != int64(len(sharing)) {
		t.Errorf("UPDATE reading the joined table: %d rows, want %d", n, len(sharing))
	}
	named := sorted(queryColumn(t, db, "SELECT Name FROM Tasks t WHERE EXISTS (SELECT 1 FROM Tasks d WHERE d.Priority = t.Priority AND d.id <> t.id AND d.id = t.Notes)"))
	if !reflect.DeepEqual(named, sharing) {
		t.Errorf("tasks whose Notes hold the id of another task of their priority: %q, want %q", named, sharing)
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

// TestSearchRefusals: what MySQL refuses in an UPDATE or DELETE, or the driver cannot search, is
// refused by name before any request.
func TestSearchRefusals(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	for _, c := range []struct{ sql, want string }{
		{"UPDATE Tasks SET Priority = COUNT(*)", "invalid use of group function COUNT(*) in SET"},
		{"UPDATE Tasks SET Priority = ROW_NUMBER() OVER ()", "window function 'row_number'"},
		{"UPDATE Tasks t JOIN Tasks d ON d.Priority = t.Priority SET t.Notes = 'x', d.Notes = 'y'", "UPDATE of a join without one table written"},
		{"DELETE FROM Tasks WHERE id IN (SELECT record_id FROM `Tasks$comments`)", "a comments table in a join, a subquery or a UNION"},
		{"DELETE x FROM Tasks t JOIN Tasks d ON d.Priority = t.Priority", `no table "x"`},
		{"UPDATE Tasks SET Notes = 'x' ORDER BY Priority LIMIT 2", "UPDATE … ORDER BY"},
	} {
		t.Run(c.sql, func(t *testing.T) {
			srv.ResetRequests()
			_, err := db.Exec(c.sql)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
			if got := requestLines(srv); len(got) != 0 {
				t.Errorf("requests sent:\n%s", strings.Join(got, "\n"))
			}
		})
	}
}

// TestSearchWithBoundArguments: a bound argument in the search's subquery and one in SET each
// reach their place (UPDATE's search and SET once failed with "argument 1 is not used").
func TestSearchWithBoundArguments(t *testing.T) {
	db, _ := openDemo(t, "")
	var want int64
	if err := db.QueryRow("SELECT COUNT(*) FROM Tasks WHERE Priority >= ?", 5).Scan(&want); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		sql  string
		args []any
	}{
		{"UPDATE Tasks SET Notes = 'x' WHERE id IN (SELECT id FROM Tasks WHERE Priority >= ?)", []any{5}},
		{"UPDATE Tasks SET Notes = ? WHERE id IN (SELECT id FROM Tasks WHERE Priority >= ?)", []any{"y", 5}},
		{"DELETE FROM Tasks WHERE id IN (SELECT id FROM Tasks WHERE Priority >= ?)", []any{5}},
	} {
		res, err := db.Exec(tt.sql, tt.args...)
		if err != nil {
			t.Fatalf("%s: %v", tt.sql, err)
		}
		if n, _ := res.RowsAffected(); n != want {
			t.Errorf("%s: %d rows affected, want %d", tt.sql, n, want)
		}
	}
}
