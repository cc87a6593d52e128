package oracle

import (
	"strings"
	"testing"
)

// TestGroupedChain: MariaDB's side of a chain of set operations has every operation in
// parentheses in MySQL 8.0.31's precedence (INTERSECT first, then left to right).
func TestGroupedChain(t *testing.T) {
	for _, tc := range []struct {
		ops, rest []string
		want      string // "@" stands for the first SELECT
	}{
		{[]string{" UNION "}, []string{"B"}, "@ UNION B"},
		{[]string{" INTERSECT ALL ", " EXCEPT ALL ", " UNION DISTINCT "}, []string{"B", "C", "D"},
			"((@ INTERSECT ALL B) EXCEPT ALL C) UNION DISTINCT D"},
		{[]string{" UNION ", " INTERSECT ", " EXCEPT "}, []string{"B", "C", "D"}, "(@ UNION (B INTERSECT C)) EXCEPT D"},
		{[]string{" EXCEPT ", " INTERSECT ALL ", " INTERSECT "}, []string{"B", "C", "D"}, "@ EXCEPT ((B INTERSECT ALL C) INTERSECT D)"},
		{[]string{" INTERSECT ", " INTERSECT "}, []string{"B", "(C UNION D)"}, "((@ INTERSECT B) INTERSECT (C UNION D))"},
	} {
		open, after := groupedChain(" WHERE x", tc.ops, tc.rest)
		want := strings.Replace(tc.want, "@", "SELECT WHERE x", 1)
		if got := open + "SELECT" + after; got != want {
			t.Errorf("ops %q: got %q, want %q", tc.ops, got, want)
		}
	}
}
