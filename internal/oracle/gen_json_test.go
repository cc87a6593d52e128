package oracle

import (
	"regexp"
	"strings"
	"testing"

	"github.com/airsql/airsql/translate"
)

// jsonOnly is a generator whose every query carries the JSON construct and nothing else.
func jsonOnly(t *testing.T) *Generator {
	g := NewGenerator(NewFixture(11).Schema)
	found := false
	for i := range g.Constructs {
		if g.Constructs[i].Name == "JSON" {
			g.Constructs[i].Weight, found = 1000, true
		} else {
			g.Constructs[i].Mode = Off
		}
	}
	if !found {
		t.Fatal("DefaultConstructs has no JSON entry")
	}
	return g
}

// TestJSONGenerator: JSON queries are reproducible from their seed, the driver's parser reads
// each one, MariaDB's side never holds what MariaDB 10.11 lacks or answers otherwise (-> and
// ->>, MEMBER OF, [last] in a path), and every function, path form and clause occurs.
func TestJSONGenerator(t *testing.T) {
	g := jsonOnly(t)
	want := []string{"->'", "->>'", "MEMBER OF(", "JSON_EXTRACT(", "JSON_UNQUOTE(", "JSON_LENGTH(", "JSON_CONTAINS(",
		"JSON_CONTAINS_PATH(", "JSON_SEARCH(", "JSON_KEYS(", "JSON_ARRAY(", "JSON_OBJECT(", "JSON_TYPE(", "JSON_VALID(",
		"JSON_QUOTE(", "JSON_ARRAYAGG(", "JSON_OBJECTAGG(", "[last]", "[last-1]", " to last]", "[0 to 1]", "[*]", ".*'", "$**.a", "$**[0]",
		`$."n"`, "NULL, ", " WHERE JSON", "GROUP BY JSON", "GROUP BY `", "ORDER BY JSON", " AND JSON_"}
	seen := map[string]int{}
	lastInPath := regexp.MustCompile(`'\$[^']*last`)
	for seed := range uint64(3000) {
		q := g.Query(seed)
		if again := g.Query(seed); q.Driver != again.Driver || q.MariaDB != again.MariaDB {
			t.Fatalf("seed %d is not reproducible:\n%s\n%s", seed, q.Driver, again.Driver)
		}
		if !q.Tags[TagJSON] {
			t.Fatalf("seed %d: no JSON tag: %s", seed, q.Driver)
		}
		if _, err := translate.Parse(q.Driver); err != nil {
			t.Errorf("seed %d: %v\n%s", seed, err, q.Driver)
		}
		for _, bad := range []string{"->", "MEMBER OF"} {
			if strings.Contains(q.MariaDB, bad) {
				t.Errorf("seed %d: MariaDB's side has %s: %s", seed, bad, q.MariaDB)
			}
		}
		if lastInPath.MatchString(q.MariaDB) {
			t.Errorf("seed %d: MariaDB's side has [last] in a path: %s", seed, q.MariaDB)
		}
		for _, w := range want {
			if strings.Contains(q.Driver, w) {
				seen[w]++
			}
		}
	}
	for _, w := range want {
		if seen[w] == 0 {
			t.Errorf("no JSON query has %s", w)
		}
	}
}

// TestJSONInDefaultMix: CI's 5,000 queries of the default mix (seeds 1..5000) carry JSON
// functions in some of them, in the select list and in WHERE.
func TestJSONInDefaultMix(t *testing.T) {
	g := NewGenerator(NewFixture(11).Schema)
	n, where := 0, 0
	for seed := uint64(1); seed <= 5000; seed++ {
		q := g.Query(seed)
		if !q.Tags[TagJSON] || !strings.Contains(q.Driver, "JSON_") && !strings.Contains(q.Driver, "MEMBER OF") {
			continue
		}
		n++
		if i := strings.Index(q.Driver, " WHERE "); i >= 0 && strings.Contains(q.Driver[i:], "JSON_") {
			where++
		}
	}
	t.Logf("%d of 5000 queries carry JSON functions, %d of them in WHERE", n, where)
	if n < 50 || where == 0 {
		t.Errorf("got %d queries with JSON functions (%d in WHERE), want at least 50 (some in WHERE)", n, where)
	}
}
