package airsql

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/transport"
)

// writeRequests returns the data requests with the given method.
func writeRequests(srv *emulator.Server, method string) []emulator.Request {
	var out []emulator.Request
	for _, r := range dataRequests(srv) {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// insertStatement builds INSERT INTO Tasks (Name, Priority) VALUES (?, ?), … for n rows.
func insertStatement(n int) (string, []any) {
	var b strings.Builder
	b.WriteString("INSERT INTO Tasks (Name, Priority) VALUES ")
	var args []any
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?)")
		args = append(args, fmt.Sprintf("bulk %02d", i), i)
	}
	return b.String(), args
}

// TestInsertChunks: 25 rows go out as 3 requests of at most 10 records; RowsAffected is 25.
func TestInsertChunks(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	query, args := insertStatement(25)
	res, err := db.Exec(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 25 {
		t.Errorf("RowsAffected = %d, want 25", n)
	}
	// MySQL's answer for a table without AUTO_INCREMENT: 0 and no error, after a write that succeeded.
	if id, err := res.LastInsertId(); id != 0 || err != nil {
		t.Errorf("LastInsertId = %d, %v; want 0, nil", id, err)
	}
	posts := writeRequests(srv, "POST")
	if len(posts) != 3 {
		t.Fatalf("%d POST requests, want 3", len(posts))
	}
	for _, p := range posts {
		var body struct {
			Records []map[string]any `json:"records"`
		}
		if err := json.Unmarshal(p.Body, &body); err != nil || len(body.Records) > 10 {
			t.Errorf("a POST carried %d records (err %v), want at most 10", len(body.Records), err)
		}
	}
	var n int64
	db.QueryRow("SELECT COUNT(*) FROM Tasks WHERE Name LIKE 'bulk%'").Scan(&n)
	if n != 25 {
		t.Errorf("%d bulk records, want 25", n)
	}
}

// TestInsertReturnsRows: QueryContext on an INSERT returns the created records, ids included,
// with the columns of SELECT *.
func TestInsertReturnsRows(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	due := time.Date(2025, 6, 30, 0, 0, 0, 0, time.UTC)
	rows, err := db.QueryContext(context.Background(),
		"INSERT INTO Tasks (Name, Priority, Tags, `Due Date`, Done) VALUES (?, ?, ?, ?, ?), ('second', 1, NULL, NULL, false)",
		"first", 7, []string{"red", "green"}, due, true)
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	if cols[0] != "id" || cols[len(cols)-1] != "createdTime" {
		t.Errorf("columns %q, want id … createdTime", cols)
	}
	got := scanAll(t, rows)
	if len(got) != 2 {
		t.Fatalf("%d rows, want 2", len(got))
	}
	first := map[string]any{}
	for i, c := range cols {
		first[c] = got[0][i]
	}
	id, _ := first["id"].(string)
	if !strings.HasPrefix(id, "rec") || first["Name"] != "first" || first["Priority"] != int64(7) ||
		first["Tags"] != `["red","green"]` || first["Done"] != true || first["Score"] != int64(14) {
		t.Errorf("first created row = %v", first)
	}
	if d, ok := first["Due Date"].(time.Time); !ok || !d.Equal(due) {
		t.Errorf("Due Date = %v, want %v", first["Due Date"], due)
	}
	var name string
	if err := db.QueryRow("SELECT Name FROM Tasks WHERE id = ?", id).Scan(&name); err != nil || name != "first" {
		t.Errorf("reading the created record back: %q, %v", name, err)
	}
}

// TestArgumentTypes: []string, time.Time, json.RawMessage and named types bind.
func TestArgumentTypes(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	type priority int
	_, err := db.Exec("INSERT INTO Tasks (Name, Priority, Tags, `Due Date`, Estimate) VALUES (?, ?, ?, ?, ?)",
		"typed", priority(9), json.RawMessage(`["blue"]`), time.Date(2025, 1, 2, 15, 4, 5, 0, time.UTC), float32(1.5))
	if err != nil {
		t.Fatal(err)
	}
	var tags List
	var due time.Time
	var p int
	if err := db.QueryRow("SELECT Tags, `Due Date`, Priority FROM Tasks WHERE Name = ?", "typed").Scan(&tags, &due, &p); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tags, List{"blue"}) || due.Format("2006-01-02") != "2025-01-02" || p != 9 {
		t.Errorf("got %v %v %v", tags, due, p)
	}
	if _, err := db.Exec("INSERT INTO Tasks (Name) VALUES (?)", struct{}{}); err == nil || !strings.Contains(err.Error(), "cannot bind") {
		t.Errorf("binding a struct: %v, want a 'cannot bind' error", err)
	}
	if _, err := db.Exec("INSERT INTO Tasks (Name) VALUES (?)", json.RawMessage(`{`)); err == nil {
		t.Errorf("binding invalid JSON should fail")
	}
	// Named arguments (:name).
	got := queryColumn(t, db, "SELECT Name FROM Tasks WHERE Priority = :p AND Status = :s", sql.Named("p", 2), sql.Named("s", "Doing"))
	if !reflect.DeepEqual(got, []string{"Review spec"}) {
		t.Errorf("named arguments: got %q", got)
	}
}

// TestUpdate: UPDATE by WHERE reads current values in SET; RowsAffected counts the records.
func TestUpdate(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	res, err := db.Exec("UPDATE Tasks SET Priority = Priority + 10, Notes = CONCAT('was ', Status) WHERE Status = ?", "Todo")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 3 {
		t.Errorf("RowsAffected = %d, want 3", n)
	}
	got := queryColumn(t, db, "SELECT CONCAT(Name, ':', Priority, ':', Notes) FROM Tasks WHERE Status = 'Todo' ORDER BY Name")
	want := []string{"No priority", "Write spec:13:was Todo", "it's quoted \"twice\":11:was Todo"}
	if len(got) != 3 || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("after UPDATE: %q, want %q (NULL + 10 is NULL)", got, want)
	}
	// By id: one PATCH, no list.
	srv.ResetRequests()
	res, err = db.Exec("UPDATE Tasks SET Done = true WHERE id = 'recTASK0000000002'")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("RowsAffected = %d, want 1", n)
	}
	if len(writeRequests(srv, "PATCH")) != 1 {
		t.Errorf("requests %v, want one PATCH", dataRequests(srv))
	}
	// Nothing matches: no write at all.
	srv.ResetRequests()
	res, err = db.Exec("UPDATE Tasks SET Done = true WHERE Name = 'nobody'")
	if n, _ := res.RowsAffected(); err != nil || n != 0 || len(writeRequests(srv, "PATCH")) != 0 {
		t.Errorf("UPDATE of nothing: %d rows, %v, requests %v", n, err, dataRequests(srv))
	}
	// QueryContext returns the updated rows.
	got = queryColumn(t, db, "UPDATE Tasks SET Priority = 42 WHERE Name = 'Ship it'")
	if len(got) != 1 || got[0] != "recTASK0000000003" {
		t.Errorf("UPDATE via Query returned %q", got)
	}
}

// TestDelete: DELETE by WHERE in chunks of 10; RowsAffected; Query returns the deleted ids.
func TestDelete(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	query, args := insertStatement(23)
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	res, err := db.Exec("DELETE FROM Tasks WHERE Name LIKE 'bulk%'")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 23 {
		t.Errorf("RowsAffected = %d, want 23", n)
	}
	if d := writeRequests(srv, "DELETE"); len(d) != 3 {
		t.Errorf("%d DELETE requests, want 3", len(d))
	}
	got := queryColumn(t, db, "DELETE FROM Tasks WHERE id = 'recTASK0000000004'")
	if !reflect.DeepEqual(got, []string{"recTASK0000000004"}) {
		t.Errorf("DELETE via Query returned %q", got)
	}
	var n int64
	db.QueryRow("SELECT COUNT(*) FROM Tasks").Scan(&n)
	if n != 7 {
		t.Errorf("%d records left, want 7", n)
	}
}

// TestUpsert: ON DUPLICATE KEY UPDATE merges on the inserted columns that are not updated.
func TestUpsert(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	res, err := db.Exec("INSERT INTO Tasks (Name, Priority) VALUES ('Ship it', 1), ('Brand new', 2) ON DUPLICATE KEY UPDATE Priority = VALUES(Priority)")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Errorf("RowsAffected = %d, want 2", n)
	}
	patches := writeRequests(srv, "PATCH")
	if len(patches) != 1 || !strings.Contains(string(patches[0].Body), `"fieldsToMergeOn":["Name"]`) {
		t.Errorf("want one PATCH with performUpsert on Name, got %v", patches)
	}
	got := queryColumn(t, db, "SELECT CONCAT(Name, '=', Priority) FROM Tasks WHERE Name IN ('Ship it', 'Brand new') ORDER BY Name")
	if !reflect.DeepEqual(got, []string{"Brand new=2", "Ship it=1"}) {
		t.Errorf("after upsert: %q", got)
	}
}

// TestTypecast: without typecast an unknown select option is refused; with typecast=true it is created.
func TestTypecast(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	_, err := db.Exec("INSERT INTO Tasks (Name, Status) VALUES ('x', 'Blocked')")
	var ae *transport.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 422 {
		t.Fatalf("unknown option without typecast: %v, want a 422 *transport.APIError", err)
	}
	db2, _ := openDB(t, srv, "typecast=true")
	if _, err := db2.Exec("INSERT INTO Tasks (Name, Status) VALUES ('x', 'Blocked')"); err != nil {
		t.Fatalf("with typecast=true: %v", err)
	}
	if got := queryColumn(t, db2, "SELECT Status FROM Tasks WHERE Name = 'x'"); !reflect.DeepEqual(got, []string{"Blocked"}) {
		t.Errorf("got %q", got)
	}
}

// TestPartialWrite: when a later chunk fails, the error lists the ids already written.
func TestPartialWrite(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	var b strings.Builder
	b.WriteString("INSERT INTO Tasks (Name, Status) VALUES ")
	for i := range 15 {
		if i > 0 {
			b.WriteString(", ")
		}
		status := "Todo"
		if i == 12 {
			status = "No such option" // refused with 422: the second chunk fails as a whole
		}
		fmt.Fprintf(&b, "('partial %02d', '%s')", i, status)
	}
	_, err := db.Exec(b.String())
	var we *WriteError
	if !errors.As(err, &we) {
		t.Fatalf("got %T %v, want *WriteError", err, err)
	}
	if we.Op != "INSERT" || we.Table != "Tasks" || len(we.Written) != 10 || len(we.UncertainRows) != 0 {
		t.Errorf("WriteError %+v, want 10 written ids and nothing uncertain", we)
	}
	var ae *transport.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 422 {
		t.Errorf("the cause should be the 422: %v", err)
	}
	if !strings.Contains(err.Error(), we.Written[0]) {
		t.Errorf("the message should list the written ids: %v", err)
	}
	got := sorted(queryColumn(t, db, "SELECT id FROM Tasks WHERE Name LIKE 'partial%'"))
	if !reflect.DeepEqual(got, sorted(we.Written)) {
		t.Errorf("records written %q, the error says %q", got, we.Written)
	}
}

// TestWriteServerErrorIsUncertain: a 500 on a create may have written it: the rows are uncertain.
func TestWriteServerErrorIsUncertain(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "retries=0")
	warmSchema(t, db, srv)
	srv.InjectFault(emulator.Fault{Method: "POST", Status: 500, Times: 1})
	_, err := db.Exec("INSERT INTO Tasks (Name) VALUES ('a'), ('b')")
	var we *WriteError
	if !errors.As(err, &we) || len(we.Written) != 0 || !reflect.DeepEqual(we.UncertainRows, []int{0, 1}) {
		t.Fatalf("got %v (%+v), want a WriteError with rows 0 and 1 uncertain", err, we)
	}
}

// TestPartialUpdate: an UPDATE whose second chunk is refused returns a *WriteError listing exactly
// the records updated, and nothing uncertain (a 422 wrote nothing).
func TestPartialUpdate(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	// One INSERT per 10 rows, one after the other: a single INSERT's chunks may be created in any
	// order, and the UPDATE's chunks follow the order the table lists its records (creation).
	for first := 0; first < 25; first += 10 {
		var b strings.Builder
		b.WriteString("INSERT INTO Tasks (Name, Notes) VALUES ")
		for i := first; i < min(first+10, 25); i++ {
			if i > first {
				b.WriteString(", ")
			}
			notes := "Done"
			if i == 14 {
				notes = "No such option" // Status = Notes is refused (422) for the chunk holding it
			}
			fmt.Fprintf(&b, "('partial %02d', '%s')", i, notes)
		}
		if _, err := db.Exec(b.String()); err != nil {
			t.Fatal(err)
		}
	}
	res, err := db.Exec("UPDATE Tasks SET Status = Notes WHERE Name LIKE 'partial%'")
	if res != nil {
		t.Errorf("a failed UPDATE returned a Result")
	}
	var we *WriteError
	if !errors.As(err, &we) {
		t.Fatalf("got %T %v, want *WriteError", err, err)
	}
	// Chunk 1 is sent before chunk 2 fails; chunk 3 is written only if it started before that.
	if we.Op != "UPDATE" || we.Table != "Tasks" || (len(we.Written) != 10 && len(we.Written) != 15) || len(we.UncertainIDs)+len(we.UncertainRows) != 0 {
		t.Errorf("WriteError %+v, want 10 or 15 updated ids (chunk 1, perhaps 3) and nothing uncertain", we)
	}
	var ae *transport.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 422 {
		t.Errorf("the cause should be the 422: %v", err)
	}
	got := sorted(queryColumn(t, db, "SELECT id FROM Tasks WHERE Name LIKE 'partial%' AND Status = 'Done'"))
	if !reflect.DeepEqual(got, sorted(we.Written)) {
		t.Errorf("records updated %q, the error says %q", got, we.Written)
	}
}

// TestPartialDelete: a DELETE whose chunk fails with a 500 (no retries) lists the ids deleted in
// Written and the ids of the failed chunk, which may or may not be gone, in UncertainIDs. Chunks
// not started after the failure are neither: those records are certainly still there.
func TestPartialDelete(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "retries=0")
	query, args := insertStatement(25)
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatal(err)
	}
	before := queryColumn(t, db, "SELECT id FROM Tasks WHERE Name LIKE 'bulk%'")
	srv.InjectFault(emulator.Fault{Method: "DELETE", Status: 500, Times: 1})
	_, err := db.Exec("DELETE FROM Tasks WHERE Name LIKE 'bulk%'")
	var we *WriteError
	if !errors.As(err, &we) {
		t.Fatalf("got %T %v, want *WriteError", err, err)
	}
	// Chunks are pipelined: the fault meets whichever chunk arrives first (10 or the last 5 records).
	if u := len(we.UncertainIDs); we.Op != "DELETE" || (u != 10 && u != 5) || len(we.Written)+u > 25 {
		t.Errorf("WriteError: %d written, %d uncertain; want one chunk uncertain (10 or 5 ids)", len(we.Written), u)
	}
	// The 500 was injected before serving: the uncertain records are in fact still there, and the
	// records left are exactly those not in Written.
	left := sorted(queryColumn(t, db, "SELECT id FROM Tasks WHERE Name LIKE 'bulk%'"))
	var want []string
	for _, id := range before {
		if !slices.Contains(we.Written, id) {
			want = append(want, id)
		}
	}
	if !reflect.DeepEqual(left, sorted(want)) {
		t.Errorf("records left %q, want all but the written ones %q", left, we.Written)
	}
	for _, id := range we.UncertainIDs {
		if !slices.Contains(left, id) || slices.Contains(we.Written, id) {
			t.Errorf("uncertain id %s: should be left and not listed as written", id)
		}
	}
	for _, id := range we.Written {
		if !strings.Contains(err.Error(), id) {
			t.Errorf("the message does not list %s: %v", id, err)
			break
		}
	}
	// The rest can be deleted by running the statement again: RowsAffected counts them.
	res, err := db.Exec("DELETE FROM Tasks WHERE Name LIKE 'bulk%'")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != int64(len(left)) {
		t.Errorf("RowsAffected = %d, want %d", n, len(left))
	}
}

// TestInsertPipelined: the chunks of a long INSERT are in flight together. The first POST is held
// until a second one starts; written one after another, the INSERT would never end.
func TestInsertPipelined(t *testing.T) {
	checkLeaks(t)
	srv := newEmulator(t)
	inner := srv.Transport()
	secondStarted := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	posts := 0
	db, _ := openDSN(t, testDSN(""), &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Method == http.MethodPost {
			mu.Lock()
			posts++
			n := posts
			mu.Unlock()
			if n == 1 {
				select {
				case <-secondStarted:
				case <-r.Context().Done():
					return nil, r.Context().Err()
				}
			} else {
				once.Do(func() { close(secondStarted) })
			}
		}
		return inner.RoundTrip(r)
	})})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // turns a hang into a failure
	defer cancel()
	query, args := insertStatement(30)
	res, err := db.ExecContext(ctx, query, args...)
	if err != nil {
		t.Fatalf("INSERT of 30 rows with the first chunk held until the second starts: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if n, _ := res.RowsAffected(); n != 30 || posts != 3 {
		t.Errorf("RowsAffected = %d in %d POSTs, want 30 in 3", n, posts)
	}
}

// TestUnusedArguments: an argument the statement never reads is refused (it usually means a
// placeholder is missing), for reads and writes alike, and nothing is written.
func TestUnusedArguments(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	if _, err := db.Query("SELECT Name FROM Tasks WHERE Status = 'Todo'", "Todo"); err == nil || !strings.Contains(err.Error(), "not used") {
		t.Errorf("SELECT with an unused argument: %v, want an error", err)
	}
	if _, err := db.Exec("UPDATE Tasks SET Done = TRUE WHERE Name = ?", "Ship it", "extra"); err == nil || !strings.Contains(err.Error(), "argument 2 is not used") {
		t.Errorf("UPDATE with an unused argument: %v, want an error", err)
	}
	if _, err := db.Exec("INSERT INTO Tasks (Name) VALUES (:n)", sql.Named("n", "x"), sql.Named("m", "y")); err == nil || !strings.Contains(err.Error(), `"m" is not used`) {
		t.Errorf("INSERT with an unused named argument: %v, want an error", err)
	}
	if reqs := dataRequests(srv); len(reqs) != 0 {
		t.Errorf("%d requests sent, want none", len(reqs))
	}
}
