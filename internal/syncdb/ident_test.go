package syncdb

import (
	"database/sql"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzIdentifier: any Airtable name, quoted and fitted, makes a SQLite table of exactly that name,
// and a fitted name is within PostgreSQL's 63 bytes, valid UTF-8 when the name was, and the name
// itself when it fits.
func FuzzIdentifier(f *testing.F) {
	for _, seed := range []string{"Tasks", `a "quoted" name`, "Projects Led", "id", "ünïcödé ✓", strings.Repeat("é", 40), strings.Repeat("x", 63), strings.Repeat("y", 64), `"; DROP TABLE x; --`} {
		f.Add(seed)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	f.Cleanup(func() { db.Close() })
	f.Fuzz(func(t *testing.T, name string) {
		if name == "" || strings.ContainsRune(name, 0) || !utf8.ValidString(name) {
			t.Skip("Airtable names are non-empty UTF-8 without NUL")
		}
		fitted := postgresDialect.fit(name)
		if len(fitted) > 63 || !utf8.ValidString(fitted) || (len(name) <= 63 && fitted != name) {
			t.Fatalf("fit(%q) = %q: want at most 63 bytes of UTF-8, the name itself when it fits", name, fitted)
		}
		if _, err := db.Exec("CREATE TABLE " + quote(name) + " (x)"); err != nil {
			if strings.HasPrefix(strings.ToLower(name), "sqlite_") {
				return // SQLite keeps these names for itself
			}
			t.Fatalf("create table %q: %v", name, err)
		}
		defer db.Exec("DROP TABLE " + quote(name))
		var got string
		if err := db.QueryRow("SELECT name FROM sqlite_master WHERE type = 'table'").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != name {
			t.Fatalf("got table %q, want %q", got, name)
		}
	})
}

func TestRedactURL(t *testing.T) {
	cases := []struct{ in, want string }{
		{"postgres://u:secret@h/db", "postgres://u:…@h/db"},
		{"postgres://u@h/db", "postgres://u@h/db"},
		{"sqlite:a@b.db", "sqlite:a@b.db"},
		{"postgres://u:p:q@h/db", "postgres://u:…@h/db"},
	}
	for _, c := range cases {
		if got := redactURL(c.in); got != c.want {
			t.Errorf("redactURL(%q): got %q, want %q", c.in, got, c.want)
		}
	}
}
