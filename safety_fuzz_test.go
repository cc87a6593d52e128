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
	f := loadFixture(t, "testdata/base.json")
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

// FuzzWhereNameLike: a pattern bound to Name LIKE ? (or written as a literal) returns exactly the
// records an independent SQL LIKE matcher selects: % any run, _ one character, \ escapes the next
// character, ASCII letters match either case, everything else (regular-expression and formula
// syntax included) matches itself.
func FuzzWhereNameLike(f *testing.F) {
	names := trickyNames(f)
	for name := range names {
		f.Add(name)
	}
	for _, s := range []string{"%", "_", "%a%", "A%", `%\%%`, `%\_%`, `\`, `%\`, `a\b`, "%'%", "%{%", ".*", "[a]%", "(%", "%$",
		"^%", "%|%", `%\\%`, "%\n%", "___", "%Ü%", "%ü%"} {
		f.Add(s)
	}
	srv := newEmulator(f)
	db, _ := openDB(f, srv, "")
	f.Fuzz(func(t *testing.T, pattern string) {
		if !utf8.ValidString(pattern) {
			t.Skip("Airtable text is UTF-8")
		}
		want := []string{}
		for name, ids := range names {
			if referenceLike(pattern, name) {
				want = append(want, ids...)
			}
		}
		sort.Strings(want)
		bound := sortedIDs(t, db, "SELECT id FROM Tricky WHERE Name LIKE ?", pattern)
		literal := sortedIDs(t, db, "SELECT id FROM Tricky WHERE Name LIKE "+sqlparser.String(sqlparser.NewStrVal([]byte(pattern))))
		if !reflect.DeepEqual(bound, want) {
			t.Errorf("Name LIKE ? bound to %q: got %q, want %q", pattern, bound, want)
		}
		if !reflect.DeepEqual(literal, want) {
			t.Errorf("Name LIKE literal %q: got %q, want %q", pattern, literal, want)
		}
	})
}

// referenceLike is SQL LIKE written plainly (recursion over runes), independent of the driver's.
func referenceLike(pattern, s string) bool {
	p, r := []rune(pattern), []rune(s)
	var match func(i, j int) bool
	memo := map[[2]int]bool{}
	match = func(i, j int) bool {
		key := [2]int{i, j}
		if v, ok := memo[key]; ok {
			return v
		}
		var ok bool
		switch {
		case i == len(p):
			ok = j == len(r)
		case p[i] == '%':
			ok = match(i+1, j) || (j < len(r) && match(i, j+1))
		case j == len(r):
			ok = false
		case p[i] == '_':
			ok = match(i+1, j+1)
		case p[i] == '\\' && i+1 < len(p):
			ok = foldASCIIRune(p[i+1]) == foldASCIIRune(r[j]) && match(i+2, j+1)
		default:
			ok = foldASCIIRune(p[i]) == foldASCIIRune(r[j]) && match(i+1, j+1)
		}
		memo[key] = ok
		return ok
	}
	return match(0, 0)
}

func foldASCIIRune(c rune) rune {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
