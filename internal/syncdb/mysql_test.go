package syncdb

import (
	"fmt"
	"hash/fnv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/airsql/airsql/transport"
)

func TestMySQLConfig(t *testing.T) {
	cases := []struct {
		url                       string
		net, addr, db, user, pass string
		tls, wantErr              string
	}{
		{url: "mysql://me:pw@db.example:3307/reports", net: "tcp", addr: "db.example:3307", db: "reports", user: "me", pass: "pw"},
		{url: "mysql://me@localhost/reports", net: "tcp", addr: "localhost:3306", db: "reports", user: "me"},
		{url: "mysql://root@localhost/copy?socket=/run/mysqld/mysqld.sock", net: "unix", addr: "/run/mysqld/mysqld.sock", db: "copy", user: "root"},
		{url: "mysql://me:p%40ss@h/db?tls=skip-verify", net: "tcp", addr: "h:3306", db: "db", user: "me", pass: "p@ss", tls: "skip-verify"},
		{url: "mysql://me@h/", wantErr: "name one database"},
		{url: "mysql://me@h/a/b", wantErr: "name one database"},
		{url: "mysql://me@/db", wantErr: "name the server"},
		{url: "mysql://me@h/db?parseTime=false", wantErr: `unknown parameter "parseTime"`},
		{url: "mysql://me@h/db?tls=maybe", wantErr: "tls=maybe: give true, false, skip-verify or preferred"},
	}
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			cfg, err := mysqlConfig(c.url)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got %v, want an error saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []string{cfg.Net, cfg.Addr, cfg.DBName, cfg.User, cfg.Passwd, cfg.TLSConfig}
			want := []string{c.net, c.addr, c.db, c.user, c.pass, c.tls}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("got net, addr, db, user, password, tls %q, want %q", got, want)
			}
			if !cfg.ParseTime || cfg.Loc.String() != "UTC" || !strings.Contains(cfg.Params["sql_mode"], "ANSI_QUOTES") || cfg.Params["time_zone"] != "'+00:00'" {
				t.Errorf("got parseTime %v, loc %v, params %v: want the sync's session (ANSI_QUOTES, UTC)", cfg.ParseTime, cfg.Loc, cfg.Params)
			}
		})
	}
}

// Each dialect's column type of each DatabaseType the driver announces.
func TestColumnTypes(t *testing.T) {
	cases := []struct{ dbType, sqlite, postgres, mysql string }{
		{"INT64", "INTEGER", "bigint", "BIGINT"},
		{"FLOAT64", "REAL", "double precision", "DOUBLE"},
		{"BOOL", "INTEGER", "boolean", "TINYINT(1)"},
		{"DATE", "TEXT", "date", "DATE"},
		{"DATETIME", "TEXT", "timestamptz", "DATETIME(3)"},
		{"JSON", "TEXT", "jsonb", "JSON"},
		{"TEXT", "TEXT", "text", "LONGTEXT"},
		{"DECIMAL", "TEXT", "text", "LONGTEXT"}, // a type the table does not know is text
	}
	for _, c := range cases {
		t.Run(c.dbType, func(t *testing.T) {
			for _, d := range []struct {
				d    *dialect
				want string
			}{{sqliteDialect, c.sqlite}, {postgresDialect, c.postgres}, {mysqlDialect, c.mysql}} {
				if got := d.d.columnType(c.dbType); got != d.want {
					t.Errorf("%s: got %s, want %s", d.d.name, got, d.want)
				}
			}
		})
	}
}

// Names made identifiers: MySQL counts 64 characters, PostgreSQL 63 bytes; MySQL refuses
// characters outside the BMP and trailing spaces.
func TestFitIdentifier(t *testing.T) {
	long := strings.Repeat("x", 70)
	accents := strings.Repeat("é", 64) // 64 characters, 128 bytes
	cases := []struct {
		name            string
		mysql, postgres string
	}{
		{"Tasks", "Tasks", "Tasks"},
		{`a "quoted" name`, `a "quoted" name`, `a "quoted" name`},
		{strings.Repeat("y", 64), strings.Repeat("y", 64), strings.Repeat("y", 54) + "_" + hash32(strings.Repeat("y", 64))},
		{long, strings.Repeat("x", 55) + "_" + hash32(long), strings.Repeat("x", 54) + "_" + hash32(long)},
		{accents, accents, strings.Repeat("é", 27) + "_" + hash32(accents)},
		{accents + "é", strings.Repeat("é", 55) + "_" + hash32(accents+"é"), strings.Repeat("é", 27) + "_" + hash32(accents+"é")},
		{"Status 🚀", "Status _", "Status 🚀"},
		{"Notes  ", "Notes", "Notes  "},
		{"Notes\t\n", "Notes", "Notes\t\n"},
		{"   ", "_", "   "},
		{"🚀", "_", "🚀"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := mysqlDialect.fit(c.name); got != c.mysql {
				t.Errorf("mysql: got %q, want %q", got, c.mysql)
			}
			if got := postgresDialect.fit(c.name); got != c.postgres {
				t.Errorf("postgres: got %q, want %q", got, c.postgres)
			}
		})
	}
	// Two names MySQL cannot tell apart (emoji, trailing space, case) get distinct names.
	taken := map[string]bool{}
	for i, name := range []string{"Mood 🙂", "Mood 🙁", "Mood ", "mood"} {
		got := mysqlDialect.uniqueName(name, "fld"+string(rune('A'+i)), taken)
		if taken[strings.ToLower(got)] {
			t.Errorf("%q: got %q, taken already (%v)", name, got, taken)
		}
		taken[strings.ToLower(got)] = true
	}
}

// hash32 is the suffix fit gives a name it shortens (without its "_").
func hash32(s string) string {
	h := fnv.New32a()
	h.Write([]byte(s))
	return fmt.Sprintf("%08x", h.Sum32())
}

// FuzzMySQLIdentifier: any Airtable name, made an identifier by the MySQL dialect, is at most 64
// characters of the Basic Multilingual Plane without a trailing space, the name itself when it
// already was one, and makes a MariaDB table and column of exactly that name.
func FuzzMySQLIdentifier(f *testing.F) {
	for _, seed := range []string{"Tasks", `a "quoted" name`, "id", "ünïcödé ✓", strings.Repeat("é", 64), strings.Repeat("é", 65),
		strings.Repeat("y", 65), "Mood 🙂", "trailing ", "  ", "back`tick", `"; DROP TABLE x; --`, "a\\b", "日本語のフィールド名"} {
		f.Add(seed)
	}
	tg, err := OpenTarget(startMariaDB(f)) // the sync's own session: ANSI_QUOTES, utf8mb4
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { tg.Close() })
	db := tg.DB()
	f.Fuzz(func(t *testing.T, name string) {
		if name == "" || strings.ContainsRune(name, 0) || !utf8.ValidString(name) {
			t.Skip("Airtable names are non-empty UTF-8 without NUL")
		}
		got := mysqlDialect.fit(name)
		if n := utf8.RuneCountInString(got); n > 64 || n == 0 || strings.TrimRight(got, " \t\n\v\f\r") != got || !utf8.ValidString(got) {
			t.Fatalf("fit(%q) = %q: want 1 to 64 characters of UTF-8 ending in no white space", name, got)
		}
		for _, r := range got {
			if r > 0xFFFF {
				t.Fatalf("fit(%q) = %q: holds %U, outside the BMP", name, got, r)
			}
		}
		if legal := utf8.RuneCountInString(name) <= 64 && strings.TrimRight(name, " \t\n\v\f\r") == name && !strings.ContainsFunc(name, func(r rune) bool { return r > 0xFFFF }); legal && got != name {
			t.Fatalf("fit(%q) = %q: want the name itself", name, got)
		}
		if _, err := db.Exec("CREATE TABLE " + quote(got) + " (" + quote(got) + " INT)"); err != nil {
			t.Fatalf("create table %q (from %q): %v", got, name, err)
		}
		defer db.Exec("DROP TABLE " + quote(got))
		var table, column string
		if err := db.QueryRow(`SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = DATABASE()`).Scan(&table, &column); err != nil {
			t.Fatal(err)
		}
		if table != got || column != got {
			t.Fatalf("got table %q and column %q, want %q", table, column, got)
		}
	})
}

// The columns a copy into MariaDB creates, as information_schema describes them: the driver's
// types (MariaDB's JSON is a LONGTEXT that a CHECK keeps JSON), utf8mb4 text, ASCII ids in which
// case matters.
func TestMySQLColumns(t *testing.T) {
	h := newHarness(t)
	// Text outside the BMP: 4 bytes in UTF-8, which utf8mb4 holds (MySQL's utf8 does not).
	if _, err := h.base.Create(bg, tasksID, map[string]any{fldName: "🚀 ünïcödé", fldTags: []string{"a"}}, transport.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	s, tg := h.syncer(startMariaDB(t), Options{})
	if err := s.CatchUp(bg); err != nil {
		t.Fatal(err)
	}
	h.assertEqual(tg, "after a copy with 4-byte characters")
	got := map[string]string{}
	for _, row := range h.query(tg, `SELECT CONCAT(table_name, '.', column_name, '|', column_type, ' ', IFNULL(collation_name, '-')) FROM information_schema.columns
		WHERE table_schema = DATABASE() AND table_name IN ('Tasks', 'Tasks__Owner')`) {
		column, typ, _ := strings.Cut(row, "|")
		got[column] = typ
	}
	cases := []struct{ column, want string }{
		{"Tasks.id", "varchar(32) ascii_bin"},
		{"Tasks.createdTime", "datetime(3) -"},
		{"Tasks.Name", "longtext utf8mb4_general_ci"},
		{"Tasks.N", "bigint(20) -"},
		{"Tasks.Cost", "double -"},
		{"Tasks.Status", "longtext utf8mb4_general_ci"},
		{"Tasks.Tags", "longtext utf8mb4_bin"}, // JSON
		{"Tasks.Done", "tinyint(1) -"},
		{"Tasks.Due", "date -"},
		{"Tasks.Owner", "longtext utf8mb4_bin"},
		{"Tasks.Owner Name", "longtext utf8mb4_bin"},
		{"Tasks.Score", "double -"}, // {N} * 2: the driver announces a formula's number as DOUBLE
		{"Tasks__Owner.record_id", "varchar(32) ascii_bin"},
		{"Tasks__Owner.linked_id", "varchar(32) ascii_bin"},
		{"Tasks__Owner.position", "int(11) -"},
	}
	for _, c := range cases {
		t.Run(c.column, func(t *testing.T) {
			if got[c.column] != c.want {
				t.Errorf("got %q, want %q", got[c.column], c.want)
			}
		})
	}
	if len(got) != len(cases) {
		t.Errorf("got columns %v, want %d", got, len(cases))
	}
	var check string
	if err := tg.db.QueryRow(`SELECT check_clause FROM information_schema.check_constraints WHERE constraint_schema = DATABASE() AND table_name = 'Tasks' AND constraint_name = 'Tags'`).Scan(&check); err != nil || !strings.Contains(check, "json_valid") {
		t.Errorf("Tasks.Tags: got check %q (%v), want json_valid: MariaDB's JSON", check, err)
	}
}

// A payload's schema steps replayed after a crash (the open transaction lost, the DDL committed)
// end where an uninterrupted run ends, also when a later step takes a name an earlier one freed:
// two columns swap names (x, y -> y_A, x), which information_schema alone cannot tell from the
// steps not done (x and y_A are there either way); the count in _airsql_sync_steps can.
func TestSchemaStepsReplay(t *testing.T) {
	tg, err := OpenTarget(startMariaDB(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	if err := tg.ensureMeta(bg); err != nil {
		t.Fatal(err)
	}
	swap := []func(tx execer) error{
		func(tx execer) error { return tg.renameColumn(bg, tx, "T", "x", "y_A") },
		func(tx execer) error { return tg.renameColumn(bg, tx, "T", "y", "x") },
	}
	// run applies the swap of payload 7 of hook up to step last (from 0), then commits when all
	// ran, or rolls back: a crash after the step's DDL, before what follows it commits.
	hook := "achHOOK0000000001"
	run := func(last int) error {
		tx, err := tg.db.BeginTx(bg, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := tg.beginSteps(bg, tx, syncBase, hook, 7); err != nil {
			return err
		}
		defer tg.endSteps()
		for _, step := range swap[:last+1] {
			if err := step(tx); err != nil {
				return err
			}
		}
		if last < len(swap)-1 {
			return nil
		}
		return tx.Commit()
	}
	cases := []struct {
		name    string
		crashes []int // the steps after which a run dies, in turn
	}{
		{"no crash", nil},
		{"after the first step", []int{0}},
		{"after the second step", []int{1}},
		{"after the first, then the second", []int{0, 1}},
		{"after the second, twice", []int{1, 1}},
	}
	reset := func(t *testing.T, steps string) {
		t.Helper()
		for _, q := range []string{`DROP TABLE IF EXISTS "T"`, `CREATE TABLE "T" ("id" INT, "x" INT, "y" INT)`, `DELETE FROM ` + stepsTable + steps} {
			if _, err := tg.db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
	}
	columns := func(t *testing.T) string {
		t.Helper()
		h := &harness{t: t}
		return strings.Join(h.query(tg, `SELECT column_name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'T' ORDER BY ordinal_position`), " ")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reset(t, "")
			for _, k := range c.crashes {
				if err := run(k); err != nil {
					t.Fatalf("the run that dies after step %d: %v", k, err)
				}
			}
			if err := run(len(swap) - 1); err != nil {
				t.Fatalf("the replay: %v", err)
			}
			if got := columns(t); got != "id y_A x" {
				t.Errorf("got columns %q, want %q", got, "id y_A x")
			}
		})
	}
	// The count of payload 7 of another webhook (a new one's cursors start again) is not this
	// one's: its steps all run.
	t.Run("payload 7 of another webhook", func(t *testing.T) {
		reset(t, "")
		if err := run(len(swap) - 1); err != nil {
			t.Fatal(err)
		}
		reset(t, ` WHERE 0`) // the table copied again; the count of the old webhook's payload 7 stays
		hook = "achHOOK0000000002"
		if err := run(len(swap) - 1); err != nil {
			t.Fatal(err)
		}
		if got := columns(t); got != "id y_A x" {
			t.Errorf("got columns %q, want %q", got, "id y_A x")
		}
	})
}
