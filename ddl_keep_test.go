package airsql

import (
	"errors"
	"strings"
	"testing"
)

// TestAlterModifyThatChangesNothing: MODIFY runs when it describes the field as it is (no
// metadata write at all) and is refused, with what would change, when it does not.
func TestAlterModifyThatChangesNothing(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	if _, err := db.Exec("CREATE TABLE w (id varchar(191), createdTime datetime(3), name longtext, qty bigint, price decimal(8,2), active boolean, stage enum('a','b'), PRIMARY KEY (id))"); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	for _, stmt := range []string{
		"ALTER TABLE w MODIFY COLUMN `active` boolean",
		"ALTER TABLE w MODIFY COLUMN qty int NULL",
		"ALTER TABLE w MODIFY COLUMN price decimal(12,2)",
		"ALTER TABLE w MODIFY COLUMN name text", // no COMMENT: the description is left as it is
		"ALTER TABLE w MODIFY COLUMN stage enum('b','a')",
		"ALTER TABLE w MODIFY COLUMN createdTime datetime(3) NULL, MODIFY id varchar(191)",
		// Other SQL spellings of the values a field stores (information_schema's or a model's).
		"ALTER TABLE w MODIFY COLUMN name varchar(255)",
		"ALTER TABLE w MODIFY COLUMN price double",
		"ALTER TABLE w MODIFY COLUMN qty smallint",
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Errorf("%s: %v", stmt, err)
		}
	}
	for _, r := range srv.Requests() {
		if r.Method != "GET" {
			t.Errorf("a MODIFY that changes nothing sent %s %s", r.Method, r.Path)
		}
	}
	for stmt, want := range map[string]string{
		"ALTER TABLE w MODIFY qty varchar(20)":                     "from number to singleLineText",
		"ALTER TABLE w MODIFY price decimal(8,3)":                  "precision from 2 to 3",
		"ALTER TABLE w MODIFY qty double":                          "precision from 0 to 8",
		"ALTER TABLE w MODIFY price int":                           "precision from 2 to 0",
		"ALTER TABLE w MODIFY name bigint":                         "from multilineText to number",
		"ALTER TABLE w MODIFY COLUMN name text COMMENT 'the name'": "", // a description the API sets
		"ALTER TABLE w MODIFY stage enum('a','b','c')":             "choices",
		"ALTER TABLE w MODIFY nope int":                            "no column",
		"ALTER TABLE w MODIFY name text, ADD COLUMN x int":         "",
	} {
		_, err := db.Exec(stmt)
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", stmt, err)
			}
			continue
		}
		var ue *UnsupportedError
		if err == nil || !strings.Contains(err.Error(), want) || (want != "no column" && !errors.As(err, &ue)) {
			t.Errorf("%s: %v; want a refusal saying %q", stmt, err, want)
		}
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_NAME = 'w'").Scan(&n); err != nil || n != 8 {
		t.Errorf("columns of w: %d, %v; want id, createdTime and 6 fields", n, err)
	}
}
