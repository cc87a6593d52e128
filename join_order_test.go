package airsql

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/airsql/airsql/emulator"
)

const joinOrderBase = "appJOINORDER00001"

// joinOrderFixture is sqllogictest's shape (issue 22): t1, t2, t3 with 1,100 records each, a and b
// numbers; t3's record i has a = i and b = 1099 - i, t1's and t2's a = i.
func joinOrderFixture() *emulator.Fixture {
	table := func(name string, b func(i int) int) emulator.FixtureTable {
		tbl := emulator.FixtureTable{ID: fmt.Sprintf("tbl%s%012d", strings.ToUpper(name), 1), Name: name, Fields: []emulator.FixtureField{
			{Name: "a", Type: "number", Options: map[string]any{"precision": 0}},
			{Name: "b", Type: "number", Options: map[string]any{"precision": 0}},
		}}
		for i := range 1100 {
			tbl.Records = append(tbl.Records, emulator.FixtureRecord{Fields: map[string]any{"a": float64(i), "b": float64(b(i))}})
		}
		return tbl
	}
	same := func(i int) int { return i }
	return &emulator.Fixture{Bases: []emulator.FixtureBase{{ID: joinOrderBase, Name: "JoinOrder", Tables: []emulator.FixtureTable{
		table("t1", same), table("t2", same), table("t3", func(i int) int { return 1099 - i }),
	}}}}
}

// openJoinOrder serves joinOrderFixture and opens a database on it (params: more DSN keys, each
// after a &).
func openJoinOrder(t testing.TB, params string) *sql.DB {
	t.Helper()
	srv, err := emulator.New(emulator.WithFixture(joinOrderFixture()), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	db, _ := openDSN(t, "airtable://"+emulator.DefaultToken+"@localhost/"+joinOrderBase+"?tls=false"+params, srv.Client())
	return db
}

// TestJoinOrderAvoidsCrossProduct: whatever order FROM names t1, t2, t3 in, a join connected by
// its conditions is read in a connected order — t1 × t2 (1,210,000 rows) is never built, which
// maxRows=10000 would refuse — and answers as MySQL does. EXPLAIN names the order chosen.
func TestJoinOrderAvoidsCrossProduct(t *testing.T) {
	db := openJoinOrder(t, "&maxRows=10000")
	perms := [][]string{{"t1", "t2", "t3"}, {"t1", "t3", "t2"}, {"t2", "t1", "t3"}, {"t2", "t3", "t1"}, {"t3", "t1", "t2"}, {"t3", "t2", "t1"}}
	for _, from := range perms {
		for _, tc := range []struct{ query, want string }{
			{"SELECT count(*) FROM %s, %s, %s WHERE t1.a = t3.a AND t2.a = t3.b", "1100"},
			{"SELECT count(*) FROM %s, %s, %s WHERE t2.a = t3.b AND t1.a = t3.a AND t1.a < 100", "100"},
			{"SELECT count(*) FROM %s JOIN %s JOIN %s ON t1.a = t3.a AND t2.a = t3.b", "1100"},
			{"SELECT count(*) FROM %s CROSS JOIN %s INNER JOIN %s ON t1.a = t3.a WHERE t2.a = t3.b", "1100"},
			{"SELECT sum(t1.b), sum(t2.b), sum(t3.b) FROM %s, %s, %s WHERE t1.a = t3.a AND t2.a = t3.b AND t3.a < 10", "45|10945|10945"},
		} {
			query := fmt.Sprintf(tc.query, from[0], from[1], from[2])
			t.Run(query, func(t *testing.T) {
				got := rowTexts(t, db, query)
				if len(got) != 1 || got[0] != tc.want {
					t.Errorf("got %v, want %s", got, tc.want)
				}
			})
		}
	}
	plan := strings.Join(rowTexts(t, db, "EXPLAIN SELECT count(*) FROM t1, t2, t3 WHERE t1.a = t3.a AND t2.a = t3.b"), "\n")
	for _, want := range []string{
		"join: inner: t2; hash on t3.b = t2.a",
		"join: inner: t3 (joined before t2: an equality joins it to the tables so far); hash on t1.a = t3.a",
	} {
		if !strings.Contains(plan, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, plan)
		}
	}
	// Without any condition between the tables a cross product is the answer: still refused by
	// maxRows, naming it.
	var biggest int
	if err := db.QueryRow("SELECT max(t1.a + t2.a) FROM t1, t2").Scan(&biggest); err == nil || !strings.Contains(err.Error(), "maxRows") {
		t.Errorf("t1 × t2 under maxRows=10000: got %v, want the maxRows error", err)
	}
}

// TestJoinOrderKeepsPushdown: a comma join written People, Projects, Tasks (People and Projects
// unconnected) is read People (filtered) first, its keys pushed into Tasks's request, and the
// tasks' project ids into Projects's — the requests of the same join written connected.
func TestJoinOrderKeepsPushdown(t *testing.T) {
	db, srv := openDemo(t, "")
	warmSchema(t, db, srv)
	connected := "SELECT t.Name, p.Name, pr.Name FROM Tasks t JOIN People p ON p.id = t.Assignee JOIN Projects pr ON pr.id = t.Project WHERE p.Role = 'QA'"
	want := sorted(rowTexts(t, db, connected))
	wantReqs := []string{"tblPEOPLE {Role}='QA'", "tblTASKS OR(FIND(", "tblPROJECTS OR(RECORD_ID()='rec"}
	for _, query := range []string{
		connected,
		"SELECT t.Name, p.Name, pr.Name FROM People p, Projects pr, Tasks t WHERE p.id = t.Assignee AND pr.id = t.Project AND p.Role = 'QA'",
		"SELECT t.Name, p.Name, pr.Name FROM People p CROSS JOIN Projects pr JOIN Tasks t ON p.id = t.Assignee AND pr.id = t.Project WHERE p.Role = 'QA'",
	} {
		t.Run(query, func(t *testing.T) {
			srv.ResetRequests()
			got := sorted(rowTexts(t, db, query))
			if !slices.Equal(got, want) || len(got) == 0 {
				t.Errorf("got %d rows %v, want %d rows %v", len(got), got, len(want), want)
			}
			reqs := dataRequests(srv)
			if len(reqs) != len(wantReqs) {
				t.Fatalf("%d requests, want %d: %v", len(reqs), len(wantReqs), reqs)
			}
			for i, w := range wantReqs {
				table, prefix, _ := strings.Cut(w, " ")
				if f := formulaOf(t, reqs[i]); !strings.Contains(reqs[i].Path, table) || !strings.HasPrefix(f, prefix) {
					t.Errorf("request %d: %s %q, want %s with a formula starting %q", i, reqs[i].Path, f, table, prefix)
				}
			}
		})
	}
}

// TestJoinOrderStraightJoin: STRAIGHT_JOIN asks for FROM's order, which is kept (MySQL's
// optimizer hint): t2 is joined second although no condition joins it to t1.
func TestJoinOrderStraightJoin(t *testing.T) {
	db := openJoinOrder(t, "")
	plan := strings.Join(rowTexts(t, db, "EXPLAIN SELECT count(*) FROM t1 STRAIGHT_JOIN t2 JOIN t3 ON t1.a = t3.a AND t2.a = t3.b"), "\n")
	if !strings.Contains(plan, "join: cross: straight_join t2; every pair of rows") || strings.Contains(plan, "joined before") {
		t.Errorf("EXPLAIN of STRAIGHT_JOIN, want t2 joined second as written:\n%s", plan)
	}
}

// BenchmarkJoinOrder is issue 22's sqllogictest join, three tables of 1,100 records whose FROM
// names two tables no condition joins: read in a connected order it is three scans and two hash
// joins of 1,100 rows (before, t1 × t2 stopped at maxRows after 1,000,000 rows).
func BenchmarkJoinOrder(b *testing.B) {
	db := openJoinOrder(b, "")
	b.ReportAllocs()
	for b.Loop() {
		if got := rowTexts(b, db, "SELECT count(*) FROM t1, t2, t3 WHERE t1.a = t3.a AND t2.a = t3.b"); len(got) != 1 || got[0] != "1100" {
			b.Fatalf("got %v, want 1100", got)
		}
	}
}
