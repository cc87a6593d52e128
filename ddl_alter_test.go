package airsql

import (
	"database/sql"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/airsql/airsql/frontend"
)

var tblIDs = regexp.MustCompile(`tbl[0-9A-Za-z]{14}`)

// showCreate returns SHOW CREATE TABLE's statement for table.
func showCreate(t *testing.T, db *sql.DB, table string) string {
	t.Helper()
	var name, ddl string
	if err := db.QueryRow("SHOW CREATE TABLE `"+table+"`").Scan(&name, &ddl); err != nil {
		t.Fatalf("SHOW CREATE TABLE %s: %v", table, err)
	}
	return ddl
}

// TestAlterThroughMetadataAPI: each schema change the API can make runs with MySQL's syntax,
// sends exactly the requests it needs, and shows at once in SHOW CREATE TABLE, DESCRIBE and
// information_schema.
func TestAlterThroughMetadataAPI(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	if _, err := db.Exec("CREATE TABLE Crew (Name varchar(255), Role enum('pilot','cook') COMMENT 'what they do', Skills set('a','b''c')) COMMENT='who works'"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE Jobs (Title text, Lead varchar(17) REFERENCES Crew(id), Helper json, CONSTRAINT `x` FOREIGN KEY (Helper) REFERENCES Crew (id) ON DELETE SET NULL)"); err != nil {
		t.Fatal(err)
	}
	wantCrew := "CREATE TABLE `Crew` (\n  `id` varchar(17) NOT NULL,\n  `Name` varchar(255),\n" +
		"  `Role` enum('pilot','cook') COMMENT 'what they do',\n  `Skills` set('a','b''c'),\n  `Jobs` json,\n  `Jobs 2` json,\n" +
		"  `createdTime` datetime(3) NOT NULL,\n  PRIMARY KEY (`id`),\n  CONSTRAINT `Crew_ibfk_1` FOREIGN KEY (`Jobs`) REFERENCES `Jobs` (`id`),\n" +
		"  CONSTRAINT `Crew_ibfk_2` FOREIGN KEY (`Jobs 2`) REFERENCES `Jobs` (`id`)\n) ENGINE=Airtable DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin COMMENT='who works'"
	if got := showCreate(t, db, "Crew"); got != wantCrew {
		t.Errorf("SHOW CREATE TABLE Crew:\n got %s\nwant %s", got, wantCrew)
	}
	jobs := showCreate(t, db, "Jobs")
	for _, want := range []string{"`Lead` json", "CONSTRAINT `Jobs_ibfk_1` FOREIGN KEY (`Lead`) REFERENCES `Crew` (`id`)", "CONSTRAINT `Jobs_ibfk_2` FOREIGN KEY (`Helper`) REFERENCES `Crew` (`id`)"} {
		if !strings.Contains(jobs, want) {
			t.Errorf("SHOW CREATE TABLE Jobs lacks %q:\n%s", want, jobs)
		}
	}

	// Round trip: SHOW CREATE TABLE's statement, run under another name, makes the same table
	// (Airtable adds the inverse of each new link to the linked table: Crew gets "Jobs copy" …).
	for _, table := range []string{"Crew", "Jobs"} {
		ddl := showCreate(t, db, table)
		copyDDL := strings.Replace(ddl, "CREATE TABLE `"+table+"`", "CREATE TABLE `"+table+" copy`", 1)
		if table == "Crew" { // the inverse links Airtable added are links from Jobs: the copy links Jobs too
			copyDDL = strings.ReplaceAll(copyDDL, "Crew_ibfk", "Crew_copy_ibfk")
		}
		if _, err := db.Exec(copyDDL); err != nil {
			t.Fatalf("running SHOW CREATE TABLE %s's statement: %v\n%s", table, err, copyDDL)
		}
		got := showCreate(t, db, table+" copy")
		if norm := func(s string) string {
			s = strings.ReplaceAll(s, table+" copy", table)
			return strings.ReplaceAll(s, "Crew_copy_ibfk", "Crew_ibfk")
		}; norm(got) != norm(showCreate(t, db, table)) {
			t.Errorf("round trip of %s:\n got %s\nwant %s", table, got, showCreate(t, db, table))
		}
	}

	srv.ResetRequests()
	steps := []struct{ sql, want string }{
		{"ALTER TABLE Crew RENAME COLUMN Name TO `Full Name`", `PATCH fields {"name":"Full Name"}`},
		{"ALTER TABLE Crew MODIFY Role enum('cook','pilot') COMMENT 'the job'", `PATCH fields {"description":"the job"}`},
		{"ALTER TABLE Crew CHANGE COLUMN Skills Talents set('a','b''c') COMMENT ''", `PATCH fields {"name":"Talents"}`},
		{"ALTER TABLE Crew COMMENT = 'everyone'", `PATCH table {"description":"everyone"}`},
		{"ALTER TABLE Crew RENAME TO People2", `PATCH table {"name":"People2"}`},
		{"RENAME TABLE People2 TO Crew", `PATCH table {"name":"Crew"}`},
		{"ALTER TABLE Crew MODIFY Role enum('cook','pilot') COMMENT 'the job'", ""}, // changes nothing: no write
		{"ALTER TABLE Crew ADD COLUMN Boss varchar(17) REFERENCES Crew(id), RENAME COLUMN `Full Name` TO Name",
			`POST fields {"name":"Boss","type":"multipleRecordLinks","options":{"linkedTableId":"tbl"}}; PATCH fields {"name":"Name"}`},
	}
	for _, st := range steps {
		srv.ResetRequests()
		if _, err := db.Exec(st.sql); err != nil {
			t.Fatalf("%s: %v", st.sql, err)
		}
		var writes []string
		for _, r := range srv.Requests() {
			if r.Method == "GET" {
				continue
			}
			kind := "table"
			if strings.Contains(r.Path, "/fields") {
				kind = "fields"
			}
			writes = append(writes, r.Method+" "+kind+" "+tblIDs.ReplaceAllString(string(r.Body), "tbl"))
		}
		if got := strings.Join(writes, "; "); got != st.want {
			t.Errorf("%s: sent %q, want %q", st.sql, got, st.want)
		}
	}
	wantCrew = "CREATE TABLE `Crew` (\n  `id` varchar(17) NOT NULL,\n  `Name` varchar(255),\n" +
		"  `Role` enum('pilot','cook') COMMENT 'the job',\n  `Talents` set('a','b''c'),\n  `Jobs` json,\n  `Jobs 2` json,\n  `Jobs copy` json,\n  `Jobs copy 2` json,\n  `Boss` json,\n" +
		"  `createdTime` datetime(3) NOT NULL,\n  PRIMARY KEY (`id`),\n  CONSTRAINT `Crew_ibfk_1` FOREIGN KEY (`Jobs`) REFERENCES `Jobs` (`id`),\n" +
		"  CONSTRAINT `Crew_ibfk_2` FOREIGN KEY (`Jobs 2`) REFERENCES `Jobs` (`id`),\n  CONSTRAINT `Crew_ibfk_3` FOREIGN KEY (`Jobs copy`) REFERENCES `Jobs copy` (`id`),\n" +
		"  CONSTRAINT `Crew_ibfk_4` FOREIGN KEY (`Jobs copy 2`) REFERENCES `Jobs copy` (`id`),\n  CONSTRAINT `Crew_ibfk_5` FOREIGN KEY (`Boss`) REFERENCES `Crew` (`id`)\n" +
		") ENGINE=Airtable DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin COMMENT='everyone'"
	if got := showCreate(t, db, "Crew"); got != wantCrew {
		t.Errorf("SHOW CREATE TABLE Crew after the changes:\n got %s\nwant %s", got, wantCrew)
	}
	var comment string
	if err := db.QueryRow("SELECT COLUMN_COMMENT FROM information_schema.COLUMNS WHERE TABLE_NAME = 'Crew' AND COLUMN_NAME = 'Role'").Scan(&comment); err != nil || comment != "the job" {
		t.Errorf("information_schema's comment of Role: %q, %v", comment, err)
	}
	if err := db.QueryRow("SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_NAME = 'Crew'").Scan(&comment); err != nil || comment != "everyone" {
		t.Errorf("information_schema's comment of Crew: %q, %v", comment, err)
	}
	rows, err := db.Query("DESCRIBE Crew")
	if err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, r := range scanAll(t, rows) {
		fields = append(fields, r[0].(string))
	}
	if got := strings.Join(fields, ","); got != "id,Name,Role,Talents,Jobs,Jobs 2,Jobs copy,Jobs copy 2,Boss,createdTime" {
		t.Errorf("DESCRIBE Crew: %s", got)
	}
}

// TestAlterRefusals: what the API cannot do is refused before any write, naming it.
func TestAlterRefusals(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	srv.ResetRequests()
	for stmt, want := range map[string]string{
		"ALTER TABLE Tasks MODIFY Priority varchar(20)":                         "cannot change a field's type",
		"ALTER TABLE Tasks MODIFY Status enum('Todo','Done')":                   "changes only a field's name and description",
		"ALTER TABLE Tasks RENAME COLUMN id TO rid":                             "cannot be renamed",
		"ALTER TABLE Tasks RENAME COLUMN Nope TO X":                             "no column \"Nope\"",
		"ALTER TABLE Tasks RENAME COLUMN Notes TO Priority":                     "already has a column",
		"ALTER TABLE Tasks ADD COLUMN Who varchar(17) REFERENCES Nobody(id)":    "no table \"Nobody\"",
		"RENAME TABLE Tasks TO `Team Members`":                                  "already has a table",
		"ALTER TABLE Tasks ADD FOREIGN KEY (Notes) REFERENCES Tasks(id)":        "cannot change a field's type",
		"CREATE TABLE Selfie (Name text, Me varchar(17) REFERENCES Selfie(id))": "create the table first",
	} {
		_, err := db.Exec(stmt)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an error saying %q", stmt, err, want)
		}
		var ue *UnsupportedError
		if strings.Contains(want, "cannot") && !errors.As(err, &ue) {
			t.Errorf("%s: %T, want *UnsupportedError", stmt, err)
		}
	}
	for _, r := range srv.Requests() {
		if r.Method != "GET" {
			t.Errorf("a refused statement sent %s %s", r.Method, r.Path)
		}
	}
}

// TestShowCreateTableQuotesComments: a description with quotes and backslashes is written as a
// MySQL string literal that reads back as exactly that description.
func TestShowCreateTableQuotesComments(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	for _, desc := range []string{`it's a \ path`, `"quoted" \' \\n`, "two\nlines"} {
		if _, err := db.Exec("ALTER TABLE Tasks COMMENT = " + quoteSQL(desc) + ", MODIFY Notes text COMMENT " + quoteSQL(desc)); err != nil {
			t.Fatal(err)
		}
		ddl := showCreate(t, db, "Tasks")
		d, ok, err := readDDL(strings.Replace(ddl, "CREATE TABLE `Tasks`", "CREATE TABLE `Copy`", 1))
		if !ok || err != nil {
			t.Fatalf("%q: reading SHOW CREATE TABLE back: %v\n%s", desc, err, ddl)
		}
		if d.Description == nil || *d.Description != desc {
			t.Errorf("table comment %q reads back as %v", desc, d.Description)
		}
		found := false
		for _, f := range d.Fields {
			if f.Name == "Notes" {
				found = f.Description == desc
			}
		}
		if !found {
			t.Errorf("column comment %q does not read back:\n%s", desc, ddl)
		}
	}
}

// quoteSQL writes s as a MySQL string literal.
func quoteSQL(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`, "\n", `\n`).Replace(s) + "'"
}

// TestRenameWithResultCache: with the result cache on, a renamed column reads its values at once
// (the cached listings of the table, keyed by the old names, are dropped).
func TestRenameWithResultCache(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "cache=1m")
	count := func(sql string) int {
		t.Helper()
		var n int
		if err := db.QueryRow(sql).Scan(&n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}
	before := count("SELECT COUNT(Notes) FROM Tasks")
	rows, err := db.Query("SELECT * FROM Tasks")
	if err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if _, err := db.Exec("ALTER TABLE Tasks RENAME COLUMN Notes TO Details"); err != nil {
		t.Fatal(err)
	}
	if after := count("SELECT COUNT(Details) FROM Tasks"); after != before || before == 0 {
		t.Errorf("COUNT(Details) after the rename: %d, want %d (as COUNT(Notes) before)", after, before)
	}
	rows, err = db.Query("SELECT * FROM Tasks")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	details := slices.Index(cols, "Details")
	n := 0
	for _, r := range scanAll(t, rows) {
		if details >= 0 && r[details] != nil {
			n++
		}
	}
	if n != before {
		t.Errorf("SELECT * after the rename: %d rows with Details, want %d", n, before)
	}
}

// readDDL reads a DDL statement through the front end; ok is false for any other statement.
func readDDL(q string) (d *frontend.DDL, ok bool, err error) {
	st, err := frontend.Read(q)
	if err != nil {
		return nil, true, err
	}
	d, ok = st.(*frontend.DDL)
	return d, ok, nil
}
