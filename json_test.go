package airsql

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestJSONOnDemoCells runs the JSON functions through the driver on the demo base's multiple
// selects (Tags), links (Assignee), collaborators (Watchers) and attachments, and checks each row
// against the cell decoded in Go.
func TestJSONOnDemoCells(t *testing.T) {
	db, _ := openDemo(t, "")
	rows, err := db.Query("SELECT Name, Tags, JSON_LENGTH(Tags), JSON_CONTAINS(Tags, '\"bug\"'), 'bug' MEMBER OF(Tags), " +
		"Assignee, Assignee->>'$[0]', Watchers, Watchers->>'$[0].email', JSON_EXTRACT(Watchers, '$[*].name'), " +
		"Attachments->'$[0].filename', JSON_TYPE(Tags), Attachments FROM Tasks")
	if err != nil {
		t.Fatal(err)
	}
	all := scanAll(t, rows)
	if len(all) != 300 {
		t.Fatalf("got %d rows, want 300", len(all))
	}
	text := func(v any) string {
		if v == nil {
			return "NULL"
		}
		if b, ok := v.([]byte); ok {
			return string(b)
		}
		return fmt.Sprint(v)
	}
	var withWatchers, withTags int
	for _, r := range all {
		name := text(r[0])
		var tags []string
		var assignee []string
		var watchers []map[string]any
		var attachments []map[string]any
		_ = json.Unmarshal([]byte(text(r[1])), &tags)
		_ = json.Unmarshal([]byte(text(r[5])), &assignee)
		_ = json.Unmarshal([]byte(text(r[7])), &watchers)
		wantLen, wantHas, wantType := "NULL", "NULL", "NULL"
		if r[1] != nil {
			withTags++
			wantLen, wantHas, wantType = fmt.Sprint(len(tags)), "0", "ARRAY"
			for _, tag := range tags {
				if tag == "bug" {
					wantHas = "1"
				}
			}
		}
		checks := []struct{ what, got, want string }{
			{"JSON_LENGTH(Tags)", text(r[2]), wantLen},
			{"JSON_CONTAINS(Tags, '\"bug\"')", text(r[3]), wantHas},
			{"'bug' MEMBER OF(Tags)", text(r[4]), wantHas},
			{"JSON_TYPE(Tags)", text(r[11]), wantType},
		}
		wantAssignee := "NULL"
		if len(assignee) > 0 {
			wantAssignee = assignee[0]
		}
		checks = append(checks, struct{ what, got, want string }{"Assignee->>'$[0]'", text(r[6]), wantAssignee})
		wantEmail, wantNames := "NULL", "NULL"
		if len(watchers) > 0 {
			withWatchers++
			wantEmail = watchers[0]["email"].(string)
			quoted := make([]string, len(watchers))
			for i, w := range watchers {
				quoted[i] = `"` + w["name"].(string) + `"`
			}
			wantNames = "[" + strings.Join(quoted, ", ") + "]"
		}
		checks = append(checks, struct{ what, got, want string }{"Watchers->>'$[0].email'", text(r[8]), wantEmail},
			struct{ what, got, want string }{"JSON_EXTRACT(Watchers, '$[*].name')", text(r[9]), wantNames})
		_ = json.Unmarshal([]byte(text(r[12])), &attachments)
		wantFile := "NULL"
		if len(attachments) > 0 {
			wantFile = `"` + attachments[0]["filename"].(string) + `"`
		}
		checks = append(checks, struct{ what, got, want string }{"Attachments->'$[0].filename'", text(r[10]), wantFile})
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%s of %q: got %s, want %s", c.what, name, c.got, c.want)
			}
		}
	}
	if withWatchers == 0 || withTags == 0 {
		t.Fatalf("the demo base has %d tasks with watchers and %d with tags: the test checks nothing", withWatchers, withTags)
	}
}

// TestJSONQueriesThroughDriver checks JSON in WHERE, GROUP BY with the JSON aggregates, and
// MySQL's error numbers for invalid JSON text and paths.
func TestJSONQueriesThroughDriver(t *testing.T) {
	db, _ := openDemo(t, "")
	count := func(query string) int {
		t.Helper()
		var n int
		if err := db.QueryRow(query).Scan(&n); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return n
	}
	tagged := 0
	for _, tags := range queryColumn(t, db, "SELECT Tags FROM Tasks") {
		var list []string
		_ = json.Unmarshal([]byte(tags), &list)
		for _, tag := range list {
			if tag == "security" {
				tagged++
			}
		}
	}
	if tagged == 0 {
		t.Fatal("no task is tagged security: the test checks nothing")
	}
	for _, q := range []string{
		`SELECT COUNT(*) FROM Tasks WHERE JSON_CONTAINS(Tags, '"security"')`,
		`SELECT COUNT(*) FROM Tasks WHERE 'security' MEMBER OF(Tags)`,
		`SELECT COUNT(*) FROM Tasks WHERE JSON_SEARCH(Tags, 'one', 'secur%') IS NOT NULL`,
	} {
		if got := count(q); got != tagged {
			t.Errorf("%s: got %d, want %d", q, got, tagged)
		}
	}

	var arr, obj string
	if err := db.QueryRow("SELECT JSON_ARRAYAGG(Priority), JSON_OBJECTAGG(Name, Priority) FROM Tasks WHERE Priority IN (1, 2) AND Name LIKE 'D%'").Scan(&arr, &obj); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	var wantItems []string
	rows, err := db.Query("SELECT Name, Priority FROM Tasks WHERE Priority IN (1, 2) AND Name LIKE 'D%'")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range scanAll(t, rows) {
		p := fmt.Sprint(r[1])
		wantItems = append(wantItems, p)
		n := 0
		fmt.Sscan(p, &n)
		want[fmt.Sprint(r[0])] = n
	}
	var gotItems []int
	if err := json.Unmarshal([]byte(arr), &gotItems); err != nil || len(gotItems) != len(wantItems) || !strings.HasPrefix(arr, "[") || len(wantItems) > 1 && !strings.Contains(arr, ", ") {
		t.Errorf("JSON_ARRAYAGG(Priority): got %s, want %d items in MySQL's form [1, 2]", arr, len(wantItems))
	}
	var gotObj map[string]int
	if err := json.Unmarshal([]byte(obj), &gotObj); err != nil || fmt.Sprint(gotObj) != fmt.Sprint(want) {
		t.Errorf("JSON_OBJECTAGG(Name, Priority): got %s, want %v", obj, want)
	}

	labels, err := db.Query("SELECT Tags->>'$[0]', Tags -> '$[1]', 'bug' MEMBER OF(Tags), JSON_LENGTH(Tags) FROM Tasks LIMIT 1")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := labels.Columns()
	types, _ := labels.ColumnTypes()
	labels.Close()
	wantCols := []string{"Tags->>'$[0]'", "Tags -> '$[1]'", "'bug' MEMBER OF(Tags)", "JSON_LENGTH(Tags)"}
	wantTypes := []string{"TEXT", "JSON", "INT64", "INT64"}
	for i := range wantCols {
		if cols[i] != wantCols[i] || types[i].DatabaseTypeName() != wantTypes[i] {
			t.Errorf("column %d: got %s %s, want %s %s (labels as written, as MySQL's)", i, cols[i], types[i].DatabaseTypeName(), wantCols[i], wantTypes[i])
		}
	}

	for _, tc := range []struct {
		query string
		code  uint16
	}{
		{`SELECT JSON_EXTRACT(Name, '$') FROM Tasks`, 3141},
		{`SELECT JSON_EXTRACT(Tags, 'x') FROM Tasks`, 3143},
		{`SELECT JSON_LENGTH(Tags, '$[*]') FROM Tasks`, 3149},
	} {
		rows, err := db.Query(tc.query)
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		var je *JSONError
		if code, _ := MySQLErrorCode(err); !errors.As(err, &je) || code != tc.code {
			t.Errorf("%s: got error %v (%d), want MySQL's %d", tc.query, err, code, tc.code)
		}
	}
}
