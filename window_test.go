package airsql

import (
	"errors"
	"reflect"
	"testing"

	"github.com/airsql/airsql/translate"
)

// TestWindowFunctions: window functions through the driver, the way reports write them.
func TestWindowFunctions(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	for query, want := range map[string][]string{
		"SELECT COUNT(*) OVER () FROM Tasks LIMIT 1": {"8"},
		// Top-N per group: one row per Status (NULL is a partition too).
		"SELECT COUNT(*) FROM (SELECT Status, ROW_NUMBER() OVER (PARTITION BY Status ORDER BY Name, id) AS rn FROM Tasks) d WHERE rn <= 1":         {"4"},
		"WITH r AS (SELECT Status, RANK() OVER (ORDER BY COUNT(*) DESC, Status) AS k FROM Tasks GROUP BY Status) SELECT Status FROM r WHERE k = 1": {"Todo"},
		"SELECT Status, SUM(COUNT(*)) OVER (ORDER BY Status) FROM Tasks GROUP BY Status":                                                           {"NULL|2", "Doing|4", "Done|5", "Todo|8"},
		// A correlated subquery inside a window's argument reads the run's results (translate.Env),
		// which the window operator hands to the rows it evaluates.
		"SELECT SUM((SELECT COUNT(*) FROM Tasks s WHERE s.Status = t.Status)) OVER () FROM Tasks t LIMIT 1": {"14"}, // 2×2 Doing, 1 Done, 3×3 Todo; NULL matches none
	} {
		if got := rowTexts(t, db, query); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", query, got, want)
		}
	}
	_, err := db.Query("SELECT Name FROM Tasks WHERE ROW_NUMBER() OVER () > 1")
	var we *translate.WindowError
	if !errors.As(err, &we) || we.Code != 3593 {
		t.Errorf("a window function in WHERE: got %v, want MySQL's error 3593", err)
	}
}
