package airsql

import (
	"fmt"
	"slices"
	"testing"
)

// TestSetOpChains pins MySQL 8.0.31's semantics of chains of set operations on the demo base's
// roles (Designer 9, Engineer 17, Manager 9, QA 5), where MariaDB 10.11 answers otherwise and the
// oracle must write around it (gen_setops.go): INTERSECT binds first, then left to right; ALL
// keeps min(m, n) copies (INTERSECT) or m − n (EXCEPT); a DISTINCT operator removes duplicates
// from everything to its left.
func TestSetOpChains(t *testing.T) {
	db, _ := openDemo(t, "")
	counts := func(query string) []string {
		t.Helper()
		return rowTexts(t, db, "SELECT Role, COUNT(*) FROM ("+query+") AS d GROUP BY Role ORDER BY Role")
	}
	if got, want := counts("SELECT Role FROM People"), []string{"Designer|9", "Engineer|17", "Manager|9", "QA|5"}; !slices.Equal(got, want) {
		t.Fatalf("the demo base's roles: got %v, want %v", got, want)
	}
	var early int // Engineers named before M
	if err := db.QueryRow("SELECT COUNT(*) FROM People WHERE Role = 'Engineer' AND Name < 'M'").Scan(&early); err != nil || early == 0 || early == 17 {
		t.Fatalf("Engineers before M: %d, %v", early, err)
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		// MariaDB: {Designer, Engineer, Manager, QA} (seeds 396, 4042, 4539).
		{"SELECT Role FROM People INTERSECT ALL SELECT Role FROM People WHERE 1 = 0 EXCEPT ALL SELECT 'x' UNION DISTINCT SELECT 'QA'",
			[]string{"QA|1"}},
		// MariaDB at the top level: one Engineer fewer (seed 136).
		{"(SELECT Role FROM People INTERSECT ALL SELECT Role FROM People WHERE Role <> 'QA') EXCEPT ALL SELECT Role FROM People WHERE Role = 'Engineer' AND Name < 'M'",
			[]string{"Designer|9", fmt.Sprintf("Engineer|%d", 17-early), "Manager|9"}},
		{"SELECT Role FROM People UNION ALL SELECT Role FROM People EXCEPT DISTINCT SELECT 'QA'",
			[]string{"Designer|1", "Engineer|1", "Manager|1"}},
		{"SELECT Role FROM People EXCEPT ALL SELECT Role FROM People WHERE Role = 'QA' UNION ALL SELECT 'QA'",
			[]string{"Designer|9", "Engineer|17", "Manager|9", "QA|1"}},
		{"SELECT Role FROM People INTERSECT ALL SELECT Role FROM People WHERE Role = 'QA' UNION ALL SELECT Role FROM People WHERE Role = 'Manager' INTERSECT SELECT 'Manager'",
			[]string{"Manager|1", "QA|5"}},
		{"SELECT 'QA' AS Role UNION ALL SELECT Role FROM People EXCEPT ALL SELECT Role FROM People WHERE Role <> 'QA'",
			[]string{"QA|6"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			if got := counts(tc.query); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
