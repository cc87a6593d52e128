package airsql

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
)

// dashboard is ten queries a dashboard runs again and again.
var dashboard = []string{
	"SELECT Name, Priority FROM Tasks WHERE Priority >= 2 ORDER BY Priority DESC LIMIT 10",
	"SELECT COUNT(*) FROM Tasks WHERE Done",
	"SELECT Name FROM Tasks WHERE Status = 'Todo'",
	"SELECT Name, `Due Date` FROM Tasks WHERE `Due Date` IS NOT NULL ORDER BY `Due Date` LIMIT 5",
	"SELECT Name FROM Tasks WHERE Name LIKE 'W%'",
	"SELECT Name, Estimate FROM Tasks WHERE Estimate > 1",
	"SELECT * FROM `Team Members`",
	"SELECT Name FROM Tasks ORDER BY Name LIMIT 3",
	"SELECT id, Name FROM Tasks WHERE NOT Done",
	"SELECT Name, Score FROM Tasks WHERE Score IS NOT NULL",
}

func runDashboard(t testing.TB, ctx context.Context, db *sql.DB) {
	t.Helper()
	for _, q := range dashboard {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		rows.Close()
	}
}

// TestResultCacheDashboard: with cache=30s a repeated dashboard of 10 queries sends no request
// the second time; progress and EXPLAIN show the hits; an UPDATE through the connector makes the
// queries of that table read again, and only those.
func TestResultCacheDashboard(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "cache=30s")
	warmSchema(t, db, srv)
	runDashboard(t, context.Background(), db)
	first := len(dataRequests(srv))
	if first < len(dashboard) {
		t.Fatalf("first run: %d requests, want at least %d", first, len(dashboard))
	}
	srv.ResetRequests()
	var cached, pages int
	ctx := WithProgress(context.Background(), func(p Progress) {
		if p.Done {
			cached += p.Cached
			pages += p.Pages
		}
	})
	runDashboard(t, ctx, db)
	if n := len(dataRequests(srv)); n != 0 {
		t.Errorf("second run: %d requests, want 0", n)
	}
	if cached == 0 || cached != pages {
		t.Errorf("progress: %d of %d pages shown as cached, want all", cached, pages)
	}
	rows, err := db.Query("EXPLAIN " + dashboard[2])
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range scanAll(t, rows) {
		if r[0] == "result cache" && strings.HasPrefix(r[1].(string), "hit: answered from memory") {
			found = true
		}
	}
	if !found {
		t.Error("EXPLAIN does not show the cache hit")
	}
	// A write to Tasks: the Tasks queries read again, Team Members stays cached.
	if _, err := db.Exec("UPDATE Tasks SET Priority = 5 WHERE Name = 'Write spec'"); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	runDashboard(t, context.Background(), db)
	teamReads := 0
	for _, r := range dataRequests(srv) {
		if strings.Contains(r.Path, "tblTEAM") || strings.Contains(r.Path, "Team") {
			teamReads++
		}
	}
	if n := len(dataRequests(srv)); n < len(dashboard)-1 || teamReads != 0 {
		t.Errorf("after an UPDATE: %d requests (%d of Team Members), want the Tasks queries again and Team Members from memory", n, teamReads)
	}
}

// TestKeysetBatchesWithCache: GORM's FindInBatches pages by `WHERE id > ? ORDER BY id LIMIT n`,
// which Airtable can neither sort nor filter by: each batch lists the whole table again (300
// records in batches of 100: 4 batches × 3 pages); with cache=30s only the first batch sends
// requests. The README's GORM section gives these figures.
func TestKeysetBatchesWithCache(t *testing.T) {
	for _, c := range []struct {
		params   string
		requests int
	}{{"", 12}, {"cache=30s", 3}} {
		db, srv := openDemo(t, c.params)
		var last string
		var ids []string
		for {
			q, args := "SELECT id FROM Tasks ORDER BY id LIMIT 100", []any{}
			if last != "" {
				q, args = "SELECT id FROM Tasks WHERE id > ? ORDER BY id LIMIT 100", []any{last}
			}
			res, err := db.Query(q, args...)
			if err != nil {
				t.Fatal(err)
			}
			rows := scanAll(t, res)
			for _, r := range rows {
				last = r[0].(string)
				ids = append(ids, last)
			}
			if len(rows) < 100 {
				break
			}
		}
		if len(ids) != 300 || !slices.IsSorted(ids) {
			t.Errorf("%q: %d ids (sorted: %v), want the 300 tasks in id order", c.params, len(ids), slices.IsSorted(ids))
		}
		if n := len(dataRequests(srv)); n != c.requests {
			t.Errorf("%q: %d requests, want %d", c.params, n, c.requests)
		}
	}
}
