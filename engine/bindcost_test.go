package engine

import (
	"strings"
	"testing"

	"github.com/airsql/airsql/translate"
)

// sizes is a Sizer over known table sizes, by table name, at 100 records a page.
type sizes map[string]int

func (s sizes) Records(plan *translate.Plan) (int, int, bool) {
	n, ok := s[plan.Table.Name]
	return n, 100, ok
}

func (s sizes) Requests(plan *translate.Plan) (int, bool) {
	n, ok := s[plan.Table.Name]
	if !ok {
		return 0, false
	}
	return max(1, (n+99)/100), true
}

// TestBindCost: pushed keys cost the pages of the records they match, not one request per
// formula; what is not known pushes one batch only.
func TestBindCost(t *testing.T) {
	big := &translate.Plan{Table: &translate.Table{Name: "Big"}}
	small := &translate.Plan{Table: &translate.Table{Name: "Small"}}
	for _, tc := range []struct {
		name           string
		known          sizes
		mode           string
		keys, batches  int
		from           *translate.Plan
		rowsFrom       int
		push           bool
		bound, scan    int
		explainSnippet string
	}{
		// Issue 23: Small's 10,000 keys, each in about 10 of Big's 100,000 records.
		{"every key of a foreign key", sizes{"Big": 100000, "Small": 10000}, "field", 10000, 10, small, 10000, false, 1000, 1000, "about 1000 request(s) (10 record(s) per key) against 1000"},
		{"Big's size unknown", sizes{"Small": 10000}, "field", 10000, 10, small, 10000, false, 0, 0, "the size of Big is not known"},
		{"Small's size unknown", sizes{"Big": 100000}, "field", 10000, 10, small, 10000, false, 0, 1000, "how many records each key matches is not known"},
		{"keys from several tables", sizes{"Big": 100000, "Small": 10000}, "field", 3000, 3, nil, 3000, false, 0, 1000, "not known"},
		{"one batch is pushed whatever is known", sizes{"Small": 10000}, "field", 400, 1, small, 400, true, 0, 0, "pushed into Big's formula in 1 batch(es)"},
		// 2,000 of Small's 10,000 rows (a WHERE on Small): 20,000 records of Big, 200 pages.
		{"a filtered side", sizes{"Big": 100000, "Small": 10000}, "field", 2000, 2, small, 2000, true, 200, 1000, "about 200 request(s) (10 record(s) per key) against 1000"},
		// Duplicated keys: 10,000 rows of Small hold 500 values, so each matches 200 of Big's.
		{"a small domain", sizes{"Big": 100000, "Small": 10000}, "field", 500, 2, small, 10000, false, 1000, 1000, "200 record(s) per key"},
		{"record ids", sizes{"Big": 100000}, "id", 3000, 3, nil, 3000, true, 30, 1000, "about 30 request(s) (1 record(s) per key)"},
		{"record ids of most of the table", sizes{"Big": 100000}, "id", 99950, 300, nil, 99950, false, 1200, 1000, "against 1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := estimateBind(tc.known, tc.mode, tc.keys, tc.batches, big, tc.from, tc.rowsFrom, "Big", "Small")
			if c.push() != tc.push || c.bound != tc.bound || c.scan != tc.scan {
				t.Errorf("push %v, bound %d, scan %d; want %v, %d, %d (%s)", c.push(), c.bound, c.scan, tc.push, tc.bound, tc.scan, c)
			}
			if !strings.Contains(c.String(), tc.explainSnippet) {
				t.Errorf("got %q, want it to contain %q", c, tc.explainSnippet)
			}
		})
	}
}
