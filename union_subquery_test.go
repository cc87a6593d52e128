package airsql

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestUnionInSubquery: a UNION inside IN, NOT IN, EXISTS and a scalar subquery runs as the derived
// table it is equivalent to; each branch's table is read once, with its own condition pushed.
func TestUnionInSubquery(t *testing.T) {
	db, srv := openDemo(t, "")
	names := func(q string) []string {
		t.Helper()
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var out []string
		for _, r := range scanAll(t, rows) {
			out = append(out, fmt.Sprint(r[0]))
		}
		return out
	}
	byRole := func(roles ...string) []string {
		var out []string
		for _, r := range roles {
			out = append(out, names("SELECT Name FROM People WHERE Role = '"+r+"'")...)
		}
		slices.Sort(out)
		return out
	}
	want := byRole("QA", "Design")
	if len(want) == 0 {
		t.Fatal("the demo base has no QA or Design people")
	}
	before := len(srv.Requests())
	got := names("SELECT Name FROM People WHERE Name IN (SELECT Name FROM People WHERE Role = 'QA' UNION SELECT Name FROM People WHERE Role = 'Design') ORDER BY Name")
	if !slices.Equal(got, want) {
		t.Errorf("IN (… UNION …) = %v, want %v", got, want)
	}
	var formulas []string
	for _, r := range srv.Requests()[before:] {
		if f := formulaOf(t, r); f != "" {
			formulas = append(formulas, f)
		}
	}
	if !slices.ContainsFunc(formulas, func(f string) bool { return strings.Contains(f, "'QA'") }) ||
		!slices.ContainsFunc(formulas, func(f string) bool { return strings.Contains(f, "'Design'") }) {
		t.Errorf("each branch's condition is pushed into its own request; formulas sent: %q", formulas)
	}

	all := names("SELECT Name FROM People ORDER BY Name")
	notIn := names("SELECT Name FROM People WHERE Name NOT IN (SELECT Name FROM People WHERE Role = 'QA' UNION ALL SELECT Name FROM People WHERE Role = 'Design') ORDER BY Name")
	if len(notIn)+len(want) != len(all) || slices.ContainsFunc(notIn, func(n string) bool { return slices.Contains(want, n) }) {
		t.Errorf("NOT IN (… UNION ALL …) = %d names, want the %d others", len(notIn), len(all)-len(want))
	}
	if got := names("SELECT COUNT(*) FROM People WHERE EXISTS (SELECT 1 FROM People WHERE Role = 'Nobody' UNION SELECT 2 FROM Tasks WHERE Priority > 100)"); !slices.Equal(got, []string{"0"}) {
		t.Errorf("EXISTS of an empty UNION: COUNT = %v, want 0", got)
	}
	if got := names("SELECT (SELECT MAX(n) FROM (SELECT 1 AS n UNION SELECT 7) AS d) AS m"); !slices.Equal(got, []string{"7"}) {
		t.Errorf("scalar over a derived UNION = %v", got)
	}
	if got := names("SELECT (SELECT 3 UNION SELECT 3) AS m"); !slices.Equal(got, []string{"3"}) {
		t.Errorf("scalar (SELECT 3 UNION SELECT 3) = %v, want 3 (UNION removes the duplicate)", got)
	}
	if err := queryErr(db, "SELECT (SELECT 3 UNION ALL SELECT 4) AS m"); err == nil || !strings.Contains(err.Error(), "more than 1 row") {
		t.Errorf("scalar UNION ALL of two rows: err = %v, want MySQL's 1242", err)
	}
	// A branch that reads the outer query is refused with the reason.
	err := queryErr(db, "SELECT Name FROM People p WHERE EXISTS (SELECT 1 FROM Tasks t WHERE t.Name = p.Name UNION SELECT 1)")
	if err == nil || !strings.Contains(err.Error(), "cannot read the outer query") {
		t.Errorf("correlated UNION branch: err = %v", err)
	}
}

// TestSetOpsInSubquery: INTERSECT and EXCEPT inside IN, NOT IN, EXISTS, a scalar subquery, a
// derived table and WITH answer what the same question written without them answers; a ? inside
// keeps its place among the statement's arguments. A correlated one is refused naming it.
func TestSetOpsInSubquery(t *testing.T) {
	db, _ := openDemo(t, "")
	for _, tc := range []struct {
		query, same string
		args        []any
	}{
		{"SELECT Name FROM People WHERE Role IN (SELECT Role FROM People WHERE Role < 'M' INTERSECT SELECT Role FROM People WHERE Role > 'E') ORDER BY Name",
			"SELECT Name FROM People WHERE Role < 'M' AND Role > 'E' ORDER BY Name", nil},
		{"SELECT Name FROM People WHERE Role NOT IN (SELECT Role FROM People WHERE Role IS NOT NULL EXCEPT SELECT 'QA') ORDER BY Name",
			"SELECT Name FROM People WHERE Role = 'QA' ORDER BY Name", nil},
		{"SELECT Name FROM People WHERE Role = ? AND Role IN (SELECT Role FROM People WHERE Role <> ? EXCEPT ALL SELECT ?) ORDER BY Name",
			"SELECT Name FROM People WHERE Role = 'Engineer' ORDER BY Name", []any{"Engineer", "QA", "Designer"}},
		{"SELECT EXISTS (SELECT Role FROM People INTERSECT SELECT 'QA'), EXISTS (SELECT Role FROM People INTERSECT SELECT 'Nobody')",
			"SELECT EXISTS (SELECT 1), EXISTS (SELECT 1 FROM People WHERE 1 = 0)", nil},
		{"SELECT (SELECT Role FROM People WHERE Role >= 'Q' INTERSECT SELECT Role FROM People)",
			"SELECT 'QA'", nil},
		{"SELECT COUNT(*), COUNT(DISTINCT d.Role) FROM (SELECT Role FROM People EXCEPT ALL SELECT Role FROM People WHERE Role = 'QA') d",
			"SELECT COUNT(*), COUNT(DISTINCT Role) FROM People WHERE Role <> 'QA' OR Role IS NULL", nil},
		{"WITH r AS (SELECT Role FROM People INTERSECT ALL SELECT Role FROM People WHERE Role LIKE '%er') SELECT Role FROM r ORDER BY Role",
			"SELECT Role FROM People WHERE Role LIKE '%er' ORDER BY Role", nil},
		{"WITH r AS (SELECT Role FROM People INTERSECT SELECT Role FROM People WHERE Role LIKE '%er') SELECT Role FROM r ORDER BY Role",
			"SELECT DISTINCT Role FROM People WHERE Role LIKE '%er' ORDER BY Role", nil},
		{"SELECT p.Name, d.n FROM People p JOIN (SELECT Name, 1 AS n FROM People EXCEPT SELECT Name, 1 FROM People WHERE Role <> 'QA') d ON d.Name = p.Name ORDER BY p.Name",
			"SELECT Name, 1 FROM People WHERE Role = 'QA' ORDER BY Name", nil},
	} {
		t.Run(tc.query, func(t *testing.T) {
			got, want := rowTexts(t, db, tc.query, tc.args...), rowTexts(t, db, tc.same)
			if !slices.Equal(got, want) || len(got) == 0 {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
	_, err := db.Query("SELECT p.Name FROM People p WHERE EXISTS (SELECT 1 FROM Tasks t WHERE t.Assignee = p.id INTERSECT SELECT 1 FROM Tasks t WHERE t.Done)")
	if err == nil || !strings.Contains(err.Error(), "an INTERSECT inside a subquery that reads the outer query's columns") {
		t.Errorf("correlated INTERSECT: got %v, want the refusal naming it", err)
	}
}
