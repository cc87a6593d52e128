package airsql

import (
	"errors"
	"reflect"
	"testing"
)

// TestInsertReturning: INSERT … RETURNING gives back the chosen columns of the created records in
// the same request, as MariaDB does (GORM reads the ids of created records this way).
func TestInsertReturning(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	rows, err := db.Query("INSERT INTO Tasks (Name, Priority) VALUES ('r1', 1), ('r2', 2) RETURNING id, Name, Priority * 10 AS p")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	got := scanAll(t, rows)
	if !reflect.DeepEqual(cols, []string{"id", "Name", "p"}) || len(got) != 2 || got[1][1] != "r2" || got[1][2] != int64(20) {
		t.Fatalf("columns %q rows %v", cols, got)
	}
	if n := len(writeRequests(srv, "POST")); n != 1 {
		t.Errorf("%d POSTs, want 1", n)
	}
	ids := queryColumn(t, db, "SELECT id FROM Tasks WHERE Name = 'r1'")
	if len(ids) != 1 || ids[0] != got[0][0] {
		t.Errorf("RETURNING id %v, the table has %v", got[0][0], ids)
	}
	rows, err = db.Query("DELETE FROM Tasks WHERE Name IN ('r1', 'r2') RETURNING id")
	if err != nil {
		t.Fatal(err)
	}
	if del := scanAll(t, rows); len(del) != 2 {
		t.Errorf("DELETE RETURNING id: %v", del)
	}
	_, err = db.Query("DELETE FROM Tasks WHERE Name = 'Ship it' RETURNING Name")
	var ue *UnsupportedError
	if !errors.As(err, &ue) {
		t.Errorf("DELETE RETURNING Name: %v, want a refusal (a DELETE keeps only ids)", err)
	}
	// A RETURNING list that reads other rows than the written records is refused before anything
	// is sent.
	posts := len(writeRequests(srv, "POST"))
	for _, q := range []string{
		"INSERT INTO Tasks (Name) VALUES ('r4') RETURNING id, (SELECT COUNT(*) FROM Tasks)",
		"INSERT INTO Tasks (Name) VALUES ('r4') RETURNING COUNT(*)",
	} {
		if _, err := db.Query(q); !errors.As(err, &ue) {
			t.Errorf("%s: %v, want a refusal", q, err)
		}
	}
	if n := len(writeRequests(srv, "POST")); n != posts {
		t.Errorf("a refused RETURNING sent %d POST(s), want none", n-posts)
	}
	if res, err := db.Exec("INSERT INTO Tasks (Name) VALUES ('r3') RETURNING id"); err != nil {
		t.Errorf("Exec of INSERT … RETURNING: %v", err)
	} else if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("RowsAffected %d", n)
	}
}
