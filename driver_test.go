package airsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/translate"
)

// TestSelectOneRequest is the pushdown contract: a SELECT with WHERE, ORDER BY and LIMIT is one
// list request carrying the formula, the sort, maxRecords and only the fields the query needs.
func TestSelectOneRequest(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)

	rows, err := db.Query("SELECT Name, Priority FROM Tasks WHERE Priority >= ? ORDER BY Priority DESC LIMIT 10", 3)
	if err != nil {
		t.Fatal(err)
	}
	got := scanAll(t, rows)
	want := [][]any{{"Ship it", int64(5)}, {"write tests", int64(4)}, {"Write spec", int64(3)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows = %v, want %v", got, want)
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want exactly 1: %v", len(reqs), reqs)
	}
	r := reqs[0]
	if r.Method != "GET" || r.Path != tasksPath {
		t.Errorf("request %s %s, want GET %s", r.Method, r.Path, tasksPath)
	}
	q := queryValues(t, r)
	checks := []struct{ key, want string }{
		{"filterByFormula", "{Priority}>=3"},
		{"sort[0][field]", "Priority"},
		{"sort[0][direction]", "desc"},
		{"maxRecords", "10"},
	}
	for _, c := range checks {
		if got := q.Get(c.key); got != c.want {
			t.Errorf("%s = %q, want %q", c.key, got, c.want)
		}
	}
	if got := q["fields[]"]; !reflect.DeepEqual(sorted(got), []string{"Name", "Priority"}) {
		t.Errorf("fields[] = %q, want Name and Priority only", got)
	}
}

// TestSelectThroughSQLOpen goes through sql.Open and a real loopback listener: the DSN alone.
func TestSelectThroughSQLOpen(t *testing.T) {
	srv := newEmulator(t)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	host := strings.TrimPrefix(hs.URL, "http://")
	db, err := sql.Open("airtable", "airtable://"+emulator.DefaultToken+"@"+host+"/"+testBase+"?tls=false")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	got := queryColumn(t, db, "SELECT Name FROM `Tasks` WHERE Status = 'Doing' ORDER BY Priority")
	if want := []string{"Review spec", "write tests"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestColumnsBeforeNext: names and types come from the schema, before any row is read, even for
// fields that are empty in every record returned.
func TestColumnsBeforeNext(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	rows, err := db.Query("SELECT * FROM Tasks WHERE Name = 'Ship it'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name, dbType string
		nullable     bool
		scan         reflect.Type
	}{
		{"id", "TEXT", false, reflect.TypeFor[string]()},
		{"Name", "TEXT", true, reflect.TypeFor[sql.NullString]()},
		{"Priority", "INT64", true, reflect.TypeFor[sql.NullInt64]()},
		{"Estimate", "FLOAT64", true, reflect.TypeFor[sql.NullFloat64]()},
		{"Status", "TEXT", true, reflect.TypeFor[sql.NullString]()},
		{"Done", "BOOL", false, reflect.TypeFor[bool]()},
		{"Due Date", "DATE", true, reflect.TypeFor[sql.NullTime]()},
		{"Tags", "JSON", true, reflect.TypeFor[sql.NullString]()},
		{"Notes", "TEXT", true, reflect.TypeFor[sql.NullString]()},
		{"Score", "INT64", true, reflect.TypeFor[sql.NullInt64]()},
		{"createdTime", "DATETIME", false, reflect.TypeFor[time.Time]()},
	}
	if len(types) != len(want) {
		t.Fatalf("%d columns, want %d", len(types), len(want))
	}
	for i, w := range want {
		ct := types[i]
		nullable, ok := ct.Nullable()
		if ct.Name() != w.name || ct.DatabaseTypeName() != w.dbType || !ok || nullable != w.nullable || ct.ScanType() != w.scan {
			t.Errorf("column %d = %s %s nullable=%v scan=%v, want %s %s nullable=%v scan=%v", i,
				ct.Name(), ct.DatabaseTypeName(), nullable, ct.ScanType(), w.name, w.dbType, w.nullable, w.scan)
		}
	}
}

// TestValueTypes: each field type reads as its driver value; an unchecked checkbox is false.
func TestValueTypes(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	var (
		id, name          string
		priority          int64
		estimate          sql.NullFloat64
		status, notes     sql.NullString
		done              bool
		due               time.Time
		tags              List
		score             int64
		created           time.Time
		doneOfReview      bool
		estimateOfReview  float64
		priorityOfNoPrior sql.NullInt64
	)
	err := db.QueryRow("SELECT id, Name, Priority, Estimate, Status, Done, `Due Date`, Tags, Notes, Score, createdTime FROM Tasks WHERE id = ?",
		"recTASK0000000001").Scan(&id, &name, &priority, &estimate, &status, &done, &due, &tags, &notes, &score, &created)
	if err != nil {
		t.Fatal(err)
	}
	if id != "recTASK0000000001" || name != "Write spec" || priority != 3 || estimate.Float64 != 2.5 ||
		status.String != "Todo" || done || !due.Equal(time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)) ||
		!reflect.DeepEqual(tags, List{"red", "blue"}) || notes.String != "first" || score != 6 ||
		!created.Equal(time.Date(2024, 1, 1, 0, 0, 1, 0, time.UTC)) {
		t.Errorf("got %v %v %v %v %v %v %v %v %v %v %v", id, name, priority, estimate, status, done, due, tags, notes, score, created)
	}
	if err := db.QueryRow("SELECT Done, Estimate FROM Tasks WHERE Name = 'Review spec'").Scan(&doneOfReview, &estimateOfReview); err != nil {
		t.Fatal(err)
	}
	if doneOfReview || estimateOfReview != 1 {
		t.Errorf("Review spec: Done=%v Estimate=%v, want false 1", doneOfReview, estimateOfReview)
	}
	if err := db.QueryRow("SELECT Priority FROM Tasks WHERE Name = 'No priority'").Scan(&priorityOfNoPrior); err != nil {
		t.Fatal(err)
	}
	if priorityOfNoPrior.Valid {
		t.Errorf("an empty number reads %v, want NULL", priorityOfNoPrior)
	}
}

// TestSQLNullLogic: comparisons follow SQL, not Airtable: blanks are NULL, never 0 or ”.
func TestSQLNullLogic(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	cases := []struct {
		query string
		want  []string
	}{
		{"SELECT id FROM Tasks WHERE Priority <> 2", []string{"recTASK0000000001", "recTASK0000000003", "recTASK0000000004", "recTASK0000000006", "recTASK0000000007"}},
		{"SELECT id FROM Tasks WHERE Priority = 0", []string{"recTASK0000000006"}},
		{"SELECT id FROM Tasks WHERE Priority IS NULL", []string{"recTASK0000000005"}},
		{"SELECT id FROM Tasks WHERE Name IS NULL", []string{"recTASK0000000008"}},
		{"SELECT id FROM Tasks WHERE NOT (Status = 'Todo')", []string{"recTASK0000000002", "recTASK0000000003", "recTASK0000000007"}},
		{"SELECT id FROM Tasks WHERE Done", []string{"recTASK0000000003", "recTASK0000000006"}},
		{"SELECT id FROM Tasks WHERE Done = false AND Priority >= 4", []string{"recTASK0000000007"}},
		{"SELECT id FROM Tasks WHERE Name LIKE 'write%'", []string{"recTASK0000000001", "recTASK0000000007"}},
		{"SELECT id FROM Tasks WHERE Name = 'write tests'", []string{"recTASK0000000007"}},
		{"SELECT id FROM Tasks WHERE Priority IN (1, 5)", []string{"recTASK0000000003", "recTASK0000000004"}},
		{"SELECT id FROM Tasks WHERE Priority BETWEEN 2 AND 3", []string{"recTASK0000000001", "recTASK0000000002", "recTASK0000000008"}},
		{"SELECT id FROM Tasks WHERE `Due Date` < '2024-03-01'", []string{"recTASK0000000001"}},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			got := sorted(queryColumn(t, db, tc.query))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestByRecordID: id = ? is a direct GET; an unknown id is no row, not an error.
func TestByRecordID(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	got := queryColumn(t, db, "SELECT Name FROM Tasks WHERE id = ?", "recTASK0000000003")
	if !reflect.DeepEqual(got, []string{"Ship it"}) {
		t.Errorf("got %q", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Method != "GET" || reqs[0].Path != tasksPath+"/recTASK0000000003" {
		t.Errorf("requests %v, want one GET of the record", reqs)
	}
	for _, mode := range []emulator.NotFoundMode{emulator.NotFoundForbidden, emulator.NotFoundLegacy} {
		srv := newEmulator(t, emulator.WithNotFound(mode))
		db, _ := openDB(t, srv, "")
		if got := queryColumn(t, db, "SELECT Name FROM Tasks WHERE id = ?", "recUNKNOWN0000001"); len(got) != 0 {
			t.Errorf("not-found mode %v: unknown id gave %q, want no row", mode, got)
		}
	}
	srv.ResetRequests()
	got = sorted(queryColumn(t, db, "SELECT Name FROM Tasks WHERE id IN ('recTASK0000000001', 'recTASK0000000002', 'recNOPE000000001')"))
	if !reflect.DeepEqual(got, []string{"Review spec", "Write spec"}) {
		t.Errorf("id IN: got %q", got)
	}
	// Several ids: one list request selecting them with RECORD_ID(), not a GET each.
	reqs = dataRequests(srv)
	if len(reqs) != 1 || reqs[0].Method != "GET" || reqs[0].Path != tasksPath ||
		!strings.Contains(queryValues(t, reqs[0]).Get("filterByFormula"), "RECORD_ID()='recTASK0000000001'") {
		t.Errorf("id IN: requests %v, want one list with RECORD_ID() in its formula", reqs)
	}
}

func TestCount(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "pageSize=3")
	var n int64
	if err := db.QueryRow("SELECT COUNT(*) FROM Tasks WHERE Priority >= 2").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 5 {
		t.Errorf("COUNT(*) = %d, want 5", n)
	}
	for _, r := range dataRequests(srv) {
		if f := queryValues(t, r)["fields[]"]; len(f) != 1 {
			t.Errorf("COUNT(*) asked for fields %q, want exactly one small field", f)
		}
	}
}

// TestView: FROM t USE INDEX (view) reads through the view, in its order.
func TestView(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	got := queryColumn(t, db, "SELECT Name FROM Tasks USE INDEX (`Open`) WHERE Priority >= 2")
	want := []string{"write tests", "Write spec", "Review spec", "NULL"}
	if !reflect.DeepEqual(got[:3], want[:3]) || len(got) != 4 {
		t.Errorf("got %q, want %q (the view's order)", got, want)
	}
	if q := queryValues(t, srv.Requests()[0]); q.Get("view") != "Open" {
		t.Errorf("view = %q, want Open", q.Get("view"))
	}
}

// TestNamesWithSpaces: backquoted table and field names with spaces and punctuation, and tables
// by id.
func TestNamesWithSpaces(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	for _, q := range []string{
		"SELECT `Role (main)` FROM `Team Members` WHERE `Full Name` = 'Ada'",
		"SELECT `Role (main)` FROM tblTEAM0000000001 WHERE `Full Name` = 'Ada'",
		"SELECT `Role (main)` FROM `team members` WHERE `Full Name` = 'Ada'",
	} {
		if got := queryColumn(t, db, q); !reflect.DeepEqual(got, []string{"Engineer"}) {
			t.Errorf("%s: got %q", q, got)
		}
	}
}

// TestUnsupported: what cannot be run is refused by name, never dropped.
func TestUnsupported(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	cases := []struct{ query, want string }{
		{"SELECT STDDEV(DISTINCT Priority) FROM Tasks GROUP BY Status", "STDDEV takes no DISTINCT"},
		{"SELECT t.Name FROM Tasks t LEFT JOIN (`Team Members` m LEFT JOIN Tasks u ON u.Name = m.Name) ON t.Name = m.Name", "an outer join or USING around a parenthesised join"},
		{"SELECT Name FROM Tasks WHERE Name REGEXP 'a(?=b)'", "no backreferences, lookahead or lookbehind"},
		{"SELECT Name FROM Tasks t WHERE EXISTS (SELECT Name FROM Tasks u WHERE u.Name = t.Name UNION SELECT 'x')", "a UNION inside a subquery that reads the outer query"},
		{"DROP TABLE Tasks", "DROP TABLE"},
		{"SHOW PROCESSLIST", "SHOW PROCESSLIST"},
		{"SELECT Name FROM Nope", `no table "Nope"`},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			_, err := db.Query(tc.query)
			if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.want)) {
				t.Errorf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
}

// TestUnsupportedIsTyped: a construct the translator refuses reaches the caller as an
// *UnsupportedError with a hint, which also unwraps to the translator's *translate.UnsupportedError,
// through Query, Exec and EXPLAIN alike.
func TestUnsupportedIsTyped(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	cases := []struct {
		query     string
		exec      bool
		construct string
	}{
		{"SELECT Status, MATCH(Name) AGAINST ('x') FROM Tasks GROUP BY Status", false, "MATCH … AGAINST"},
		{"SELECT Name FROM Tasks WHERE Priority & 1", false, "the operator &"},
		{"SELECT t.Name FROM Tasks t LEFT JOIN (`Team Members` m LEFT JOIN Tasks u ON u.Name = m.Name) ON t.Name = m.Name", false, "an outer join or USING around a parenthesised join"},
		{"SELECT Name FROM Tasks FOR UPDATE", false, "locking reads (for update)"},
		{"SELECT Name FROM Tasks t WHERE EXISTS (SELECT Name FROM Tasks u WHERE u.Name = t.Name UNION SELECT 'x')", false, "a UNION inside a subquery that reads the outer query's columns"},
		{"EXPLAIN SELECT Name FROM Tasks WHERE Priority & 1", false, "the operator &"},
		{"UPDATE Tasks SET Done = TRUE LIMIT 1", true, "UPDATE … LIMIT"},
		{"DELETE FROM Tasks ORDER BY Name", true, "DELETE … ORDER BY"},
		{"REPLACE INTO Tasks (Name) VALUES ('a')", true, "REPLACE"},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			var err error
			if tc.exec {
				_, err = db.Exec(tc.query)
			} else {
				_, err = db.Query(tc.query)
			}
			var ue *UnsupportedError
			if !errors.As(err, &ue) {
				t.Fatalf("error %T %v, want an *airsql.UnsupportedError", err, err)
			}
			if ue.Construct != tc.construct || ue.Hint == "" {
				t.Errorf("Construct %q, Hint %q: want %q and a hint", ue.Construct, ue.Hint, tc.construct)
			}
			if !strings.HasPrefix(err.Error(), "airsql: "+tc.construct+" is not supported") {
				t.Errorf("message %q", err)
			}
			var te *translate.UnsupportedError
			if fromTranslator := tc.construct != "UNION"; errors.As(err, &te) != fromTranslator {
				t.Errorf("errors.As(*translate.UnsupportedError) = %v, want %v", !fromTranslator, fromTranslator)
			}
		})
	}
}

// TestShowAndDescribe: SHOW TABLES, SHOW COLUMNS FROM t and DESCRIBE t.
func TestShowAndDescribe(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	rows, err := db.Query("SHOW TABLES")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	got := scanAll(t, rows)
	want := [][]any{{"Tasks"}, {"Team Members"}, {"Tricky"}}
	if !reflect.DeepEqual(cols, []string{"Tables_in_" + testBase}) || !reflect.DeepEqual(got, want) {
		t.Errorf("SHOW TABLES = %v %v, want %v", cols, got, want)
	}
	if got := queryColumn(t, db, "SHOW TABLES LIKE 'team%'"); !reflect.DeepEqual(got, []string{"Team Members"}) {
		t.Errorf("SHOW TABLES LIKE: %q", got)
	}
	if got := queryColumn(t, db, "SHOW DATABASES"); !reflect.DeepEqual(got, []string{testBase, "information_schema"}) {
		t.Errorf("SHOW DATABASES: %q", got)
	}

	// MySQL Connector/J's getColumns: SHOW FULL COLUMNS FROM t FROM db LIKE 'p', with MySQL's
	// Collation, Privileges and Comment columns.
	full := "SHOW FULL COLUMNS FROM `Tasks` FROM `" + testBase + "` LIKE 'Sc%'"
	fullRows, err := db.Query(full)
	if err != nil {
		t.Fatalf("%s: %v", full, err)
	}
	fullCols, _ := fullRows.Columns()
	if want := []string{"Field", "Type", "Collation", "Null", "Key", "Default", "Extra", "Privileges", "Comment", "Airtable_type", "Field_id"}; !reflect.DeepEqual(fullCols, want) {
		t.Errorf("%s: columns %q, want %q", full, fullCols, want)
	}
	if got, want := scanAll(t, fullRows), [][]any{{"Score", "INT64", nil, "YES", "", nil, "computed", "select", "", "formula", "fldSCORE000000001"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %v, want %v", full, got, want)
	}
	for q, want := range map[string]string{
		"SHOW FULL FIELDS IN " + testBase + ".Tasks WHERE Field = 'x'": "filter the column names with LIKE",
		"SHOW COLUMNS FROM Tasks FROM appOther":                        "another base",
		"SHOW COLUMNS FROM Tasks LIKE 'a' 'b'":                         "LIKE 'pattern'",
	} {
		if _, err := db.Query(q); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", q, err, want)
		}
	}
	for _, q := range []string{"DESCRIBE Tasks", "DESC `Tasks`;", "SHOW COLUMNS FROM Tasks", "show fields in tasks"} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		cols, _ := rows.Columns()
		if want := []string{"Field", "Type", "Null", "Key", "Default", "Extra", "Airtable_type", "Field_id"}; !reflect.DeepEqual(cols, want) {
			t.Errorf("%s: columns %q, want %q", q, cols, want)
		}
		got := scanAll(t, rows)
		if len(got) != 11 {
			t.Fatalf("%s: %d rows, want 11", q, len(got))
		}
		byName := map[string][]any{}
		for _, r := range got {
			byName[r[0].(string)] = r
		}
		wantRows := map[string][]any{
			"id":       {"id", "TEXT", "NO", "PRI", nil, "computed", "recordId", ""},
			"Name":     {"Name", "TEXT", "YES", "", nil, "primary field", "singleLineText", "fldNAME0000000001"},
			"Priority": {"Priority", "INT64", "YES", "", nil, "", "number", "fldPRIORITY000001"},
			"Done":     {"Done", "BOOL", "NO", "", nil, "", "checkbox", "fldDONE0000000001"},
			"Due Date": {"Due Date", "DATE", "YES", "", nil, "", "date", "fldDUE00000000001"},
			"Tags":     {"Tags", "JSON", "YES", "", nil, "", "multipleSelects", "fldTAGS0000000001"},
			"Score":    {"Score", "INT64", "YES", "", nil, "computed", "formula", "fldSCORE000000001"},
		}
		for name, w := range wantRows {
			if !reflect.DeepEqual(byName[name], w) {
				t.Errorf("%s: row %s = %v, want %v", q, name, byName[name], w)
			}
		}
	}
	if _, err := db.Query("DESCRIBE Nope"); err == nil || !strings.Contains(err.Error(), `no table "Nope"`) {
		t.Errorf("DESCRIBE Nope: %v", err)
	}
}

// TestSchemaCache: the schema is fetched once per TTL and shared by every connection; a table
// the cache lacks triggers one refresh.
func TestSchemaCache(t *testing.T) {
	srv := newEmulator(t)
	db, c := openDB(t, srv, "schemaTTL=1m")
	fake := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	c.clock = fake
	schemaRequests := func() int {
		n := 0
		for _, r := range srv.Requests() {
			if strings.HasPrefix(r.Path, "/v0/meta/") {
				n++
			}
		}
		return n
	}
	db.SetMaxIdleConns(0) // every query on a new connection: the cache is the connector's
	for range 3 {
		queryColumn(t, db, "SELECT Name FROM Tasks LIMIT 1")
	}
	if n := schemaRequests(); n != 1 {
		t.Errorf("%d schema requests for 3 queries, want 1", n)
	}
	fake.Advance(61 * time.Second)
	queryColumn(t, db, "SELECT Name FROM Tasks LIMIT 1")
	if n := schemaRequests(); n != 2 {
		t.Errorf("%d schema requests after the TTL, want 2", n)
	}
	if _, err := db.Query("SELECT a FROM Missing"); err == nil {
		t.Fatal("a missing table should fail")
	}
	if n := schemaRequests(); n != 3 {
		t.Errorf("%d schema requests after a missing table, want 3 (one refresh)", n)
	}
}

// TestConnectorLifecycle: Ping checks the token; a closed connector refuses work.
func TestConnectorLifecycle(t *testing.T) {
	srv := newEmulator(t)
	db, c := openDSN(t, "airtable://patWRONG.token1234@localhost/"+testBase+"?tls=false", srv.Client())
	err := db.Ping()
	if err == nil || strings.Contains(err.Error(), "patWRONG") {
		t.Errorf("ping with a wrong token: %v (want an error without the token)", err)
	}
	db.Close()
	if _, err := c.Connect(context.Background()); !errors.Is(err, ErrConnectorClosed) {
		t.Errorf("Connect after Close: %v", err)
	}
	conn := &conn{c: c}
	if conn.IsValid() || conn.ResetSession(context.Background()) != driver.ErrBadConn {
		t.Errorf("a connection of a closed connector should be invalid")
	}
}

// TestTokenNeverInErrors: neither a refused token nor a network failure shows the token.
func TestTokenNeverInErrors(t *testing.T) {
	const token = "patSECRETSECRET.0123456789"
	// Port 1 on loopback: nothing listens, the connection is refused.
	db, err := sql.Open("airtable", "airtable://"+token+"@127.0.0.1:1/"+testBase+"?tls=false&retries=0&connectTimeout=2s")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, run := range []func() error{
		db.Ping,
		func() error { _, err := db.Query("SELECT Name FROM Tasks"); return err },
		func() error { _, err := db.Exec("DELETE FROM Tasks"); return err },
	} {
		err := run()
		if err == nil {
			t.Fatal("expected a connection error")
		}
		if strings.Contains(err.Error(), "SECRET") || strings.Contains(fmt.Sprintf("%#v", err), "SECRET") {
			t.Errorf("error shows the token: %v", err)
		}
	}
}

func TestNoToken(t *testing.T) {
	t.Setenv("AIRTABLE_TOKEN", "")
	t.Setenv("AIRTABLE_API_KEY", "")
	if _, err := sql.Open("airtable", "airtable:///"+testBase); !errors.Is(err, ErrNoToken) {
		t.Errorf("sql.Open without a token: %v, want ErrNoToken", err)
	}
	t.Setenv("AIRTABLE_TOKEN", emulator.DefaultToken)
	srv := newEmulator(t)
	db, c := openDSN(t, "airtable://localhost/"+testBase+"?tls=false", srv.Client())
	if err := db.Ping(); err != nil {
		t.Errorf("with AIRTABLE_TOKEN set: %v", err)
	}
	if strings.Contains(c.Config().FormatDSN(), emulator.DefaultToken) {
		t.Errorf("a token from the environment must not be written into the config's DSN")
	}
}

func TestInsecureDSNRefusedByOpen(t *testing.T) {
	db, err := sql.Open("airtable", "airtable://patX@example.com/app?tls=false")
	if err == nil {
		db.Close()
		t.Fatal("sql.Open accepted tls=false for example.com")
	}
	var ie *InsecureHostError
	if !errors.As(err, &ie) {
		t.Errorf("got %T %v, want *InsecureHostError", err, err)
	}
}

// TestConcurrentQueries: connections share the connector's schema cache and client safely.
func TestConcurrentQueries(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "schemaTTL=0s")
	db.SetMaxOpenConns(8)
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for i := range 10 {
				var name string
				id := fmt.Sprintf("recTASK000000000%d", 1+(g+i)%7)
				if err := db.QueryRow("SELECT Name FROM Tasks WHERE id = ?", id).Scan(&name); err != nil {
					errs <- fmt.Errorf("%s: %w", id, err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestPaging: results spread over several pages come back whole, in SQL order, whether the
// service sorts (Priority of rows where it is never NULL) or the driver does (nullable keys).
func TestPaging(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "pageSize=2")
	cases := []struct {
		query string
		want  []string
	}{
		{"SELECT id FROM Tasks WHERE Priority >= 1 ORDER BY Priority DESC, Name",
			[]string{"recTASK0000000003", "recTASK0000000007", "recTASK0000000001", "recTASK0000000008", "recTASK0000000002", "recTASK0000000004"}},
		{"SELECT id FROM Tasks ORDER BY Priority, Name",
			[]string{"recTASK0000000005", "recTASK0000000006", "recTASK0000000004", "recTASK0000000008", "recTASK0000000002", "recTASK0000000001", "recTASK0000000007", "recTASK0000000003"}},
		{"SELECT id FROM Tasks ORDER BY Name DESC LIMIT 3",
			[]string{"recTASK0000000007", "recTASK0000000004", "recTASK0000000006"}},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			srv.ResetRequests()
			if got := queryColumn(t, db, tc.query); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if n := len(dataRequests(srv)); n < 2 {
				t.Errorf("%d list requests, want several pages", n)
			}
		})
	}
}

// TestPreparedStatement: a statement parsed once at Prepare runs again with each execution's
// arguments; a syntax error fails at Prepare.
func TestPreparedStatement(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	sel, err := db.Prepare("SELECT id FROM Tasks WHERE Priority = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer sel.Close()
	for _, tc := range []struct {
		priority int
		want     []string
	}{
		{2, []string{"recTASK0000000002", "recTASK0000000008"}},
		{5, []string{"recTASK0000000003"}},
		{9, nil},
	} {
		rows, err := sel.Query(tc.priority)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, row := range scanAll(t, rows) {
			got = append(got, toString(row[0]))
		}
		if !reflect.DeepEqual(sorted(got), tc.want) {
			t.Errorf("Priority = %d: got %q, want %q", tc.priority, got, tc.want)
		}
	}
	upd, err := db.Prepare("UPDATE Tasks SET Notes = ? WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer upd.Close()
	for _, id := range []string{"recTASK0000000001", "recTASK0000000002"} {
		res, err := upd.Exec("noted "+id, id)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			t.Errorf("UPDATE of %s: %d rows affected, want 1", id, n)
		}
		if got := queryColumn(t, db, "SELECT Notes FROM Tasks WHERE id = ?", id); !reflect.DeepEqual(got, []string{"noted " + id}) {
			t.Errorf("Notes of %s = %q after the prepared UPDATE", id, got)
		}
	}
	if _, err := db.Prepare("SELEC id FROM Tasks"); err == nil {
		t.Error("Prepare of a statement with a syntax error succeeded")
	}
}
