package airsql

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/airsql/airsql/emulator"
)

// joinCostFixture is issue 23's join, scaled down: Small's keys G (1,500, distinct, long enough
// that they take several formulas) each held by about 9 of Big's 14,000 records.
func joinCostFixture() *emulator.Fixture {
	key := func(i int) string { return fmt.Sprintf("group-key-%06d", i) }
	big := emulator.FixtureTable{ID: "tblBIG00000000001", Name: "Big", Fields: []emulator.FixtureField{
		{Name: "Name", Type: "singleLineText"}, {Name: "G", Type: "singleLineText"},
		{Name: "X", Type: "number", Options: map[string]any{"precision": 0}},
	}}
	for i := range 14000 {
		big.Records = append(big.Records, emulator.FixtureRecord{Fields: map[string]any{"Name": fmt.Sprint(i), "G": key(i % 1500), "X": float64(i)}})
	}
	small := emulator.FixtureTable{ID: "tblSMALL000000001", Name: "Small", Fields: []emulator.FixtureField{
		{Name: "G", Type: "singleLineText"}, {Name: "Label", Type: "singleLineText"},
		{Name: "W", Type: "number", Options: map[string]any{"precision": 0}},
	}}
	for i := range 1500 {
		small.Records = append(small.Records, emulator.FixtureRecord{Fields: map[string]any{"G": key(i), "Label": fmt.Sprint("L", i%7), "W": float64(i % 10)}})
	}
	return &emulator.Fixture{Bases: []emulator.FixtureBase{{ID: benchBase, Name: "Bench", Tables: []emulator.FixtureTable{big, small}}}}
}

// TestBindJoinPlanDoesNotDependOnHistory is issue 23's join: on a fresh connector Big's size is
// unknown and Small's 1,500 keys (three formulas) are not pushed; once SELECT COUNT(*) FROM Big
// has taught the connector Big's size, the keys would match every record of Big (about 9 each),
// so the bound requests cost Big's pages plus a short one per formula: the scan is kept. The
// same statement sends no more requests after the COUNT(*) than before it, and EXPLAIN shows
// both estimates.
func TestBindJoinPlanDoesNotDependOnHistory(t *testing.T) {
	srv, err := emulator.New(emulator.WithFixture(joinCostFixture()), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	db, _ := openDSN(t, "airtable://"+emulator.DefaultToken+"@localhost/"+benchBase+"?tls=false", srv.Client())
	const query = "SELECT s.Label, COUNT(*), SUM(b.X), SUM(s.W) FROM Big b JOIN Small s ON b.G = s.G GROUP BY s.Label"
	warmSchema(t, db, srv)

	fresh := sorted(rowTexts(t, db, query))
	freshReqs := len(dataRequests(srv))
	if len(fresh) != 7 {
		t.Fatalf("got %d groups, want 7: %v", len(fresh), fresh)
	}

	rowTexts(t, db, "SELECT COUNT(*) FROM Big")
	plan := strings.Join(rowTexts(t, db, "EXPLAIN "+query), "\n")
	for _, want := range []string{
		"a scan of Big b takes 140 request(s)",
		"each pushed key matches about 9.33 of its records",
	} {
		if !strings.Contains(plan, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, plan)
		}
	}
	srv.ResetRequests()
	after := sorted(rowTexts(t, db, query))
	afterReqs := dataRequests(srv)
	if !slices.Equal(after, fresh) {
		t.Errorf("after COUNT(*): got %v, want %v", after, fresh)
	}
	if len(afterReqs) > freshReqs {
		t.Errorf("after COUNT(*): %d requests, want at most the fresh connector's %d", len(afterReqs), freshReqs)
	}
	for _, r := range afterReqs {
		if f := formulaOf(t, r); strings.Contains(f, "group-key") {
			t.Errorf("after COUNT(*): keys pushed into %s (%.80s…): the bound requests return all of Big", r.Path, f)
			break
		}
	}
}
