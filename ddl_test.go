package airsql

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestCreateTableThroughDDL: what GORM's AutoMigrate sends creates an Airtable table with fields
// of the mapped types, which then reads and writes like any table.
func TestCreateTableThroughDDL(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	create := "CREATE TABLE `projects` (`id` varchar(191),`name` longtext,`budget` decimal(10,2),`active` boolean,`starts` date,`created_at` datetime(3) NULL,`stage` enum('plan','build'),PRIMARY KEY (`id`))"
	if _, err := db.Exec(create); err != nil {
		t.Fatal(err)
	}
	var posts []string
	for _, r := range srv.Requests() {
		if r.Method == "POST" && strings.HasPrefix(r.Path, "/v0/meta/") {
			posts = append(posts, r.Path+" "+string(r.Body))
		}
	}
	if len(posts) != 1 || !strings.HasSuffix(strings.Fields(posts[0])[0], "/tables") ||
		!strings.Contains(posts[0], `{"name":"name","type":"multilineText"}`) ||
		!strings.Contains(posts[0], `{"name":"budget","type":"number","options":{"precision":2}}`) {
		t.Fatalf("metadata requests %q", posts)
	}
	// The table is there at once: the cached schema was dropped.
	if _, err := db.Exec("INSERT INTO projects (name, budget, active, starts, created_at, stage) VALUES (?, ?, ?, ?, ?, ?)",
		"Apollo", 12.5, true, "2024-03-01", time.Date(2024, 3, 1, 9, 30, 0, 0, time.UTC), "build"); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query("SELECT name, budget, active, starts, created_at, stage FROM projects")
	if err != nil {
		t.Fatal(err)
	}
	got := scanAll(t, rows)
	want := []any{"Apollo", 12.5, true, time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 1, 9, 30, 0, 0, time.UTC), "build"}
	if len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Errorf("read back %v, want %v", got, want)
	}

	// IF NOT EXISTS of an existing table sends no write; without it, MySQL's "already exists".
	srv.ResetRequests()
	if _, err := db.Exec("CREATE TABLE IF NOT EXISTS Projects (name text)"); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests() {
		if r.Method != "GET" {
			t.Errorf("CREATE TABLE IF NOT EXISTS of an existing table sent %s %s", r.Method, r.Path)
		}
	}
	var ee *ExistsError
	if _, err := db.Exec("CREATE TABLE projects (name text)"); !errors.As(err, &ee) || ee.Kind != "table" {
		t.Errorf("CREATE TABLE of an existing table: %v", err)
	}

	// ALTER TABLE … ADD COLUMN: one field request per column, then the columns are there.
	if _, err := db.Exec("ALTER TABLE projects ADD COLUMN notes text COMMENT 'free text', ADD score int"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE projects SET notes = 'x', score = 3 WHERE name = 'Apollo'"); err != nil {
		t.Fatal(err)
	}
	if got := queryColumn(t, db, "SELECT CONCAT(notes, score) FROM projects"); !reflect.DeepEqual(got, []string{"x3"}) {
		t.Errorf("after ADD COLUMN: %q", got)
	}
	if _, err := db.Exec("ALTER TABLE projects ADD COLUMN Notes varchar(9)"); !errors.As(err, &ee) || ee.Kind != "column" {
		t.Errorf("ADD COLUMN of an existing column: %v", err)
	}
	if _, err := db.Exec("CREATE INDEX idx_name ON projects (name)"); err != nil {
		t.Errorf("CREATE INDEX: %v", err)
	}
	if _, err := db.Exec("CREATE INDEX idx_name ON nope (name)"); err == nil {
		t.Error("CREATE INDEX on a missing table should fail")
	}
	for _, q := range []string{"DROP TABLE projects", "ALTER TABLE projects DROP COLUMN notes", "ALTER TABLE projects MODIFY score varchar(9)", "TRUNCATE TABLE projects"} {
		var ue *UnsupportedError
		if _, err := db.Exec(q); !errors.As(err, &ue) || ue.Hint == "" {
			t.Errorf("%s: %v, want a refusal with a reason", q, err)
		}
	}
}

// TestDDLCommitsTheTransaction: as in MySQL, DDL first commits an open transaction.
func TestDDLCommitsTheTransaction(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO Tasks (Name) VALUES ('before ddl')"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("CREATE TABLE Later (Name varchar(20))"); err != nil {
		t.Fatal(err)
	}
	if got := queryColumn(t, db, "SELECT Name FROM Tasks WHERE Name = 'before ddl'"); len(got) != 1 {
		t.Errorf("the queued INSERT was not committed by the DDL: %q", got)
	}
	if err := tx.Rollback(); err != nil {
		t.Errorf("ROLLBACK after the implicit commit: %v (nothing is left to roll back)", err)
	}
}
