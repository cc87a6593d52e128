package airsql

import (
	"database/sql"
	"reflect"
	"sort"
	"testing"
	"unicode/utf8"

	"github.com/xwb1989/sqlparser"
)

// trickyNames maps each Name of the Tricky table (testdata/base.json) to its record ids. Names
// hold quotes, backslashes, braces, formula syntax, NUL, case variants and SQL injections.
func trickyNames(t testing.TB) map[string][]string {
	t.Helper()
	f := loadFixture(t)
	byName := map[string][]string{}
	for _, tbl := range f.Bases[0].Tables {
		if tbl.Name != "Tricky" {
			continue
		}
		for _, r := range tbl.Records {
			name, _ := r.Fields["Name"].(string)
			if name == "" {
				continue // Airtable stores an empty text as no value: NULL, equal to nothing
			}
			byName[name] = append(byName[name], r.ID)
		}
	}
	return byName
}

// FuzzWhereNameEquals is the safety property of DESIGN.md: no argument, and no literal, can change
// a formula's structure. WHERE Name = ? with any string returns exactly the records whose Name is
// that string, whether the string is bound or written as an SQL literal.
func FuzzWhereNameEquals(f *testing.F) {
	names := trickyNames(f)
	for name := range names {
		f.Add(name)
	}
	for _, s := range []string{"", "a", "A'B", "x') OR TRUE() OR ('", "{Name} != ''", `\`, `\\`, "\\'", "' & '", "abc ", "ABC",
		"a\x00b", "\xff", "}{", "%", "_"} {
		f.Add(s)
	}
	srv := newEmulator(f)
	db, _ := openDB(f, srv, "")
	f.Fuzz(func(t *testing.T, s string) {
		want := append([]string{}, names[s]...)
		sort.Strings(want)
		bound := sortedIDs(t, db, "SELECT id FROM Tricky WHERE Name = ?", s)
		literal := sortedIDs(t, db, "SELECT id FROM Tricky WHERE Name = "+sqlparser.String(sqlparser.NewStrVal([]byte(s))))
		if !utf8.ValidString(s) {
			// Airtable text is UTF-8: a string that is not can equal no cell.
			want = []string{}
		}
		if !reflect.DeepEqual(bound, want) {
			t.Errorf("Name = ? bound to %q: got %q, want %q", s, bound, want)
		}
		if !reflect.DeepEqual(literal, want) {
			t.Errorf("Name = literal %q: got %q, want %q", s, literal, want)
		}
	})
}

func sortedIDs(t *testing.T, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatalf("%q: %v", query, err)
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%q: %v", query, err)
	}
	sort.Strings(ids)
	return ids
}
