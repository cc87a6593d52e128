package airsql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/airsql/airsql/engine"
)

// rowTexts runs a query and writes each row as its values joined by "|" (NULL for nil).
func rowTexts(t testing.TB, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	var out []string
	for _, row := range scanAll(t, rows) {
		parts := make([]string, len(row))
		for i, v := range row {
			if v == nil {
				parts[i] = "NULL"
			} else {
				parts[i] = toString(v)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}

// wantRequest is what one list request must carry: its query parameters that matter (pageSize is
// not compared; a key absent here must be absent from the request).
type wantRequest map[string][]string

// TestEngineEndToEnd: statements the engine runs locally, through database/sql against the emulator,
// asserting the rows and the exact requests sent.
func TestEngineEndToEnd(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	tests := []struct {
		query    string
		args     []any
		want     []string
		requests []wantRequest // nil: not checked; empty: no data request at all
	}{
		{
			query:    "SELECT Status, COUNT(*) FROM Tasks GROUP BY Status",
			want:     []string{"NULL|2", "Doing|2", "Done|1", "Todo|3"},
			requests: []wantRequest{{"fields[]": {"Status"}}},
		},
		{
			query: "SELECT Status, COUNT(*) AS n, SUM(Priority), AVG(Priority), MIN(Name), MAX(Priority) FROM Tasks GROUP BY Status ORDER BY n DESC, Status",
			want: []string{"Todo|3|4|2|No priority|3", "NULL|2|2|1|Zero priority|2", "Doing|2|6|3|Review spec|4",
				"Done|1|5|5|Ship it|5"},
			requests: []wantRequest{{"fields[]": {"Name", "Priority", "Status"}}},
		},
		{
			query: "SELECT COUNT(*), COUNT(Priority), COUNT(DISTINCT Priority), SUM(Priority), AVG(Estimate), MIN(`Due Date`), MAX(`Due Date`) FROM Tasks",
			want:  []string{"8|7|6|17|1.75|2024-02-01 00:00:00 +0000 UTC|2024-03-15 00:00:00 +0000 UTC"},
		},
		{
			// Aggregates without GROUP BY give one row even over no rows: COUNT 0, SUM NULL.
			query:    "SELECT COUNT(*), SUM(Priority), MAX(Name), GROUP_CONCAT(Name) FROM Tasks WHERE Priority > 100",
			want:     []string{"0|NULL|NULL|NULL"},
			requests: []wantRequest{{"filterByFormula": {"{Priority}>100"}, "fields[]": {"Name", "Priority"}}},
		},
		{
			query: "SELECT Status, GROUP_CONCAT(Name ORDER BY Name DESC SEPARATOR '; ') FROM Tasks WHERE Status IS NOT NULL GROUP BY Status",
			want:  []string{"Doing|write tests; Review spec", "Done|Ship it", `Todo|it's quoted "twice"; Write spec; No priority`},
		},
		{
			// DISTINCT without ORDER BY: in the values' order, as MariaDB 10.11 answers.
			query: "SELECT GROUP_CONCAT(DISTINCT Status), GROUP_CONCAT(DISTINCT Priority) FROM Tasks",
			want:  []string{"Doing,Done,Todo|0,1,2,3,4,5"},
		},
		{
			// As MariaDB 10.11 answers over the same rows.
			query: "SELECT Priority DIV 2 AS h, GROUP_CONCAT(Priority ORDER BY Priority DESC) FROM Tasks GROUP BY h",
			want:  []string{"NULL|NULL", "0|1,0", "1|3,2,2", "2|5,4"},
		},
		{
			query: "SELECT Status, MAX(Priority) - MIN(Priority) FROM Tasks GROUP BY Status ORDER BY MAX(Priority) - MIN(Priority) DESC, 1",
			want:  []string{"NULL|2", "Doing|2", "Todo|2", "Done|0"},
		},
		{
			query: "SELECT SUM(DISTINCT Priority), AVG(DISTINCT Priority), COUNT(DISTINCT Name, Priority) FROM Tasks",
			want:  []string{"15|2.5|6"},
		},
		{
			// HAVING with aggregates that are not in the select list.
			query: "SELECT Status, COUNT(*) FROM Tasks GROUP BY Status HAVING COUNT(*) > 1 AND MAX(Priority) < 5",
			want:  []string{"NULL|2", "Doing|2", "Todo|3"},
		},
		{
			query: "SELECT Done AS d, COUNT(*) FROM Tasks GROUP BY 1",
			want:  []string{"false|6", "true|2"},
		},
		{
			query: "SELECT Done AS d, COUNT(*) AS n FROM Tasks GROUP BY d HAVING n > 2",
			want:  []string{"false|6"},
		},
		{
			query: "SELECT Priority % 2 AS parity, COUNT(*) FROM Tasks GROUP BY parity ORDER BY 2 DESC",
			want:  []string{"0|4", "1|3", "NULL|1"},
		},
		{
			// Grouped by id, every column depends on it (MySQL's functional dependence).
			query: "SELECT id, Name, COUNT(*) FROM Tasks WHERE Priority = 5 GROUP BY id",
			want:  []string{"recTASK0000000003|Ship it|1"},
		},
		{
			query:    "SELECT DISTINCT Status FROM Tasks",
			want:     []string{"Todo", "Doing", "Done", "NULL"},
			requests: []wantRequest{{"fields[]": {"Status"}}},
		},
		{
			query: "SELECT DISTINCT Status FROM Tasks ORDER BY Status DESC LIMIT 2",
			want:  []string{"Todo", "Done"},
		},
		{
			// Priority can be NULL: the non-blank rows sorted by the service with maxRecords =
			// OFFSET + LIMIT; descending puts NULLs last, so the blank rows' request is not sent
			// once three rows came.
			query: "SELECT Name FROM Tasks ORDER BY Priority DESC LIMIT 2 OFFSET 1",
			want:  []string{"write tests", "Write spec"},
			requests: []wantRequest{{"fields[]": {"Name", "Priority"}, "filterByFormula": {"{Priority}&''!=''"},
				"sort[0][field]": {"Priority"}, "sort[0][direction]": {"desc"}, "maxRecords": {"3"}}},
		},
		{
			// NULLs first ascending: the blank priority comes first, whatever the requests
			// (a plan split into non-blank and blank requests must read both).
			query: "SELECT Name FROM Tasks ORDER BY Priority LIMIT 2",
			want:  []string{"No priority", "Zero priority"},
		},
		{
			query: "SELECT Name FROM Tasks ORDER BY Priority DESC, Name LIMIT 2 OFFSET 6",
			want:  []string{"Zero priority", "No priority"},
		},
		{
			// The scan's order is SQL's and the request exact: maxRecords = offset + count.
			query: "SELECT Name FROM Tasks WHERE Priority IS NOT NULL ORDER BY Priority LIMIT 1, 1",
			want:  []string{`it's quoted "twice"`},
			requests: []wantRequest{{"filterByFormula": {"{Priority}&''!=''"}, "sort[0][field]": {"Priority"}, "sort[0][direction]": {"asc"},
				"maxRecords": {"2"}, "fields[]": {"Name", "Priority"}}},
		},
		{
			query: "SELECT Name FROM Tasks WHERE Priority IS NOT NULL ORDER BY Priority * -1, Name LIMIT 3",
			want:  []string{"Ship it", "write tests", "Write spec"},
		},
		{
			query: "SELECT Name, Priority * 2 AS p FROM Tasks WHERE Priority >= 4 ORDER BY p",
			want:  []string{"write tests|8", "Ship it|10"},
		},
		{
			// The base's id as the database name, as BI tools qualify tables.
			query: "SELECT t.Status, COUNT(*) FROM `" + testBase + "`.`Tasks` AS t WHERE t.Priority > 3 GROUP BY t.Status",
			want:  []string{"Doing|1", "Done|1"},
		},
		{
			query:    "SELECT 1 + 1, 7 / 2, 1 / 0, 'x'",
			want:     []string{"2|3.5|NULL|x"},
			requests: []wantRequest{},
		},
		{
			query:    "SELECT 1 FROM DUAL WHERE 1 = 0",
			want:     nil,
			requests: []wantRequest{},
		},
		{
			query:    "SELECT COUNT(*) FROM DUAL",
			want:     []string{"1"},
			requests: []wantRequest{},
		},
		{
			query:    "SELECT Name FROM Tasks LIMIT 0",
			want:     nil,
			requests: []wantRequest{},
		},
		{
			query: "SELECT Status, COUNT(*) FROM Tasks WHERE Priority BETWEEN ? AND ? GROUP BY Status ORDER BY Status LIMIT ?, ?",
			args:  []any{1, 4, 1, 2},
			want:  []string{"Doing|2", "Todo|2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			warmSchema(t, db, srv)
			got := rowTexts(t, db, tt.query, tt.args...)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("rows:\n got %q\nwant %q", got, tt.want)
			}
			if tt.requests == nil {
				return
			}
			reqs := srv.Requests() // every request, the schema's included: none is expected
			if len(reqs) != len(tt.requests) {
				t.Fatalf("%d requests, want %d: %v", len(reqs), len(tt.requests), reqs)
			}
			for i, want := range tt.requests {
				q := queryValues(t, reqs[i])
				q.Del("pageSize")
				for k, v := range want {
					if !reflect.DeepEqual(q[k], v) {
						t.Errorf("request %d: %s = %q, want %q (query %s)", i, k, q[k], v, reqs[i].Query)
					}
				}
				for k := range q {
					if _, ok := want[k]; !ok {
						t.Errorf("request %d: unexpected %s = %q", i, k, q[k])
					}
				}
			}
		})
	}
}

// TestEngineRefusals: what the engine does not run, or SQL that is wrong, fails with a message
// naming it.
func TestEngineRefusals(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	for query, want := range map[string]string{
		"SELECT Name, COUNT(*) FROM Tasks GROUP BY Status":                     "expression #1 of SELECT list is not in GROUP BY clause and contains nonaggregated column 'Tasks.Name'",
		"SELECT Name, COUNT(*) FROM Tasks":                                     "in aggregated query without GROUP BY, expression #1 of SELECT list contains nonaggregated column 'Tasks.Name'",
		"SELECT Status FROM Tasks GROUP BY Status ORDER BY Name":               "expression #1 of ORDER BY clause is not in GROUP BY clause",
		"SELECT Name FROM Tasks WHERE COUNT(*) > 1":                            "invalid use of group function COUNT(*) in WHERE",
		"SELECT COUNT(*) FROM Tasks GROUP BY COUNT(*)":                         "can't group on",
		"SELECT SUM(COUNT(*)) FROM Tasks":                                      "aggregates cannot be nested",
		"SELECT Nope, COUNT(*) FROM Tasks GROUP BY Nope":                       `unknown column "Nope" in table "Tasks"`,
		"SELECT SUM(Name) FROM Tasks":                                          "needs numbers",
		"SELECT DISTINCT Name FROM Tasks ORDER BY Priority":                    "is not in SELECT list; this is incompatible with DISTINCT",
		"SELECT Name FROM Tasks ORDER BY 3":                                    "ORDER BY 3 names no column",
		"SELECT Status, COUNT(*) FROM Tasks GROUP BY 5":                        "GROUP BY 5 names no column",
		"SELECT * FROM DUAL":                                                   "no tables used",
		"SELECT VARIANCE(DISTINCT Priority) FROM Tasks":                        "VARIANCE takes no DISTINCT",
		"SELECT Name FROM Tasks HAVING Priority > 1":                           "unknown column 'Priority' in 'having clause'",
		"SELECT Name FROM appOTHER000000001.Tasks":                             "Unknown database 'appOTHER000000001'",
		"SELECT Name FROM Tasks LIMIT 1 OFFSET -1":                             "",
		"SELECT Status, COUNT(*) FROM Tasks GROUP BY Status HAVING Name = 'a'": "of HAVING clause is not in GROUP BY clause",
	} {
		t.Run(query, func(t *testing.T) {
			rows, err := db.Query(query)
			if err == nil {
				rows.Close()
				t.Fatalf("no error, want one containing %q", want)
			}
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q, want it to contain %q", err, want)
			}
		})
	}
}

// TestEngineRowLimit: an operator that holds rows fails past maxRows naming the limit; a
// streaming query holds none and is not limited.
func TestEngineRowLimit(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "maxRows=3")
	for _, query := range []string{
		"SELECT DISTINCT Name FROM Tasks",
		"SELECT Status, COUNT(*) FROM Tasks GROUP BY Status",
		"SELECT Name FROM Tasks ORDER BY Name",
		"SELECT Name FROM Tasks ORDER BY Name LIMIT 5",
		"SELECT COUNT(DISTINCT Name) FROM Tasks",
		"SELECT GROUP_CONCAT(Name) FROM Tasks",
	} {
		t.Run(query, func(t *testing.T) {
			rows, err := db.Query(query)
			if err == nil {
				for rows.Next() {
				}
				err = rows.Err()
				rows.Close()
			}
			var rl *engine.RowLimitError
			if !errors.As(err, &rl) || rl.Limit != 3 || !strings.Contains(err.Error(), "maxRows") {
				t.Fatalf("error %v, want a *engine.RowLimitError naming maxRows=3", err)
			}
		})
	}
	if got := rowTexts(t, db, "SELECT Name FROM Tasks"); len(got) != 8 {
		t.Errorf("streaming SELECT: %d rows, want 8", len(got))
	}
	if got := rowTexts(t, db, "SELECT Name FROM Tasks ORDER BY Name LIMIT 3"); len(got) != 3 {
		t.Errorf("top-3: %d rows, want 3", len(got))
	}
}

// TestEngineGroupByStreamsPages: a GROUP BY over several pages reads every page of one list
// request, and the aggregate holds one row per group only.
func TestEngineGroupByStreamsPages(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "pageSize=3&maxRows=4")
	warmSchema(t, db, srv)
	got := rowTexts(t, db, "SELECT Status, COUNT(*) FROM Tasks GROUP BY Status")
	if want := []string{"NULL|2", "Doing|2", "Done|1", "Todo|3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	reqs := dataRequests(srv)
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 pages of 3", len(reqs))
	}
	for i, r := range reqs {
		if f := queryValues(t, r)["fields[]"]; !reflect.DeepEqual(f, []string{"Status"}) {
			t.Errorf("page %d: fields[] = %q", i, f)
		}
	}
}

// TestEngineColumnTypes: the columns of aggregates describe their values.
func TestEngineColumnTypes(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	rows, err := db.Query("SELECT Status, COUNT(*) AS n, SUM(Priority) AS s, AVG(Priority) AS a FROM Tasks GROUP BY Status")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ct := range types {
		nullable, _ := ct.Nullable()
		got = append(got, fmt.Sprintf("%s %s %v", ct.Name(), ct.DatabaseTypeName(), nullable))
	}
	want := []string{"Status TEXT true", "n INT64 false", "s INT64 true", "a FLOAT64 true"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("columns %q, want %q", got, want)
	}
}

// TestInformationSchema: the information_schema tables through database/sql, with no data request.
func TestInformationSchema(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	for query, want := range map[string][]string{
		"SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = '" + testBase + "' ORDER BY TABLE_NAME DESC": {
			"Tricky|BASE TABLE", "Team Members|BASE TABLE", "Tasks|BASE TABLE"},
		"SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = 'Tasks' AND ordinal_position <= 3 ORDER BY ordinal_position": {
			"id|varchar|NO", "Name|varchar|YES", "Priority|bigint|YES"},
		"SELECT table_name, COUNT(*) FROM information_schema.COLUMNS WHERE table_schema = ? GROUP BY table_name HAVING COUNT(*) > 3": {
			"Tasks|11", "Team Members|7"},
		// MySQL 8's data dictionary orders names regardless of case (createdTime before Done).
		"SELECT column_name FROM information_schema.columns WHERE table_name = 'Tasks' ORDER BY column_name": {
			"createdTime", "Done", "Due Date", "Estimate", "id", "Name", "Notes", "Priority", "Score", "Status", "Tags"},
		"SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'app%'":                           {testBase},
		"SELECT INDEX_NAME, COLUMN_NAME, SEQ_IN_INDEX FROM information_schema.STATISTICS WHERE TABLE_NAME = 'Tricky'": {"PRIMARY|id|1"},
		"SELECT COUNT(*) FROM information_schema.KEY_COLUMN_USAGE WHERE CONSTRAINT_NAME = 'PRIMARY'":                  {"3"},
	} {
		var args []any
		if strings.Contains(query, "?") {
			args = append(args, testBase)
		}
		if got := rowTexts(t, db, query, args...); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", query, got, want)
		}
	}
	if reqs := srv.Requests(); len(reqs) != 0 {
		t.Errorf("information_schema sent %d requests: %v", len(reqs), reqs)
	}
	// TABLE_ROWS is known once a whole-table scan (or COUNT(*)) has read the table.
	if got := rowTexts(t, db, "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_NAME = 'Tasks'"); !reflect.DeepEqual(got, []string{"NULL"}) {
		t.Errorf("TABLE_ROWS before any scan: %q", got)
	}
	rowTexts(t, db, "SELECT COUNT(*) FROM Tasks")
	if got := rowTexts(t, db, "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_NAME = 'Tasks'"); !reflect.DeepEqual(got, []string{"8"}) {
		t.Errorf("TABLE_ROWS after COUNT(*): %q", got)
	}
	if _, err := db.Query("SELECT * FROM information_schema.ENGINES"); err == nil || !strings.Contains(err.Error(), "information_schema has TABLES, COLUMNS") {
		t.Errorf("unknown information_schema table: %v", err)
	}
}

// TestExplainOperatorTree: EXPLAIN prints every operator, root first, and estimates a scan's
// requests once a whole-table scan has told the table's size.
func TestExplainOperatorTree(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "pageSize=3")
	explain := func(query string) [][2]string {
		t.Helper()
		rows, err := db.Query("EXPLAIN " + query)
		if err != nil {
			t.Fatal(err)
		}
		var out [][2]string
		for _, r := range scanAll(t, rows) {
			out = append(out, [2]string{r[0].(string), r[1].(string)})
		}
		return out
	}
	const query = "SELECT DISTINCT Status, COUNT(*) AS n FROM Tasks WHERE Priority > 0 GROUP BY Status HAVING n > 1 ORDER BY n DESC LIMIT 2 OFFSET 1"
	var ops []string
	for _, r := range explain(query) {
		if r[0] == "operator" {
			ops = append(ops, r[1])
		}
	}
	want := []string{
		"limit: skip 1 rows (OFFSET), then stop after 2 rows (LIMIT)",
		"  top-N: sort by n DESC, keeping the first 3 rows in a heap",
		"    distinct: drop repeated rows (NULLs equal), keeping the first",
		"      project: Status, COUNT(*)",
		"        filter: HAVING n > 1",
		"          aggregate: hash GROUP BY Status; computing COUNT(*)",
		"            scan: Tasks",
	}
	if !reflect.DeepEqual(ops, want) {
		t.Errorf("operators:\n got %q\nwant %q", ops, want)
	}
	estimate := func() string {
		for _, r := range explain("SELECT Name FROM Tasks WHERE Priority > 1") {
			if r[0] == "estimate" {
				return r[1]
			}
		}
		return ""
	}
	if got := estimate(); !strings.HasPrefix(got, "unknown") {
		t.Errorf("estimate before any scan: %q", got)
	}
	rowTexts(t, db, "SELECT COUNT(*) FROM Tasks")
	if got, want := estimate(), "at most 3 request(s) (the table has 8 records; the filter may select fewer)"; got != want {
		t.Errorf("estimate after COUNT(*): %q, want %q", got, want)
	}
}

// TestHavingAndOrderByNames: HAVING prefers a GROUP BY column to an alias of the same name, then the
// alias; ORDER BY prefers the alias.
func TestHavingAndOrderByNames(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	for query, want := range map[string][]string{
		"SELECT Status, COUNT(*) AS Priority FROM Tasks GROUP BY Status HAVING Priority > 1 ORDER BY Priority, Status": {"NULL|2", "Doing|2", "Todo|3"},
		"SELECT Priority, COUNT(*) AS Status FROM Tasks GROUP BY Priority HAVING Priority > 2 ORDER BY Status DESC, 1": {"3|1", "4|1", "5|1"},
		"SELECT Name AS Priority FROM Tasks WHERE Priority IS NOT NULL ORDER BY Priority LIMIT 2":                      {"NULL", "Review spec"},
	} {
		if got := rowTexts(t, db, query); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", query, got, want)
		}
	}
}

// TestParserLimitations: constructs the parser cannot read are refused by name.
func TestParserLimitations(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	for query, want := range map[string]string{
		"WITH RECURSIVE t AS (SELECT 1) SELECT * FROM t": "WITH RECURSIVE",
	} {
		_, err := db.Query(query)
		var ue *UnsupportedError
		if !errors.As(err, &ue) || !strings.Contains(ue.Construct, want) {
			t.Errorf("%s: %v, want an *UnsupportedError naming %s", query, err, want)
		}
	}
}

// TestEngineWithFunctions: the engine's grouping, ordering and FROM-less rows over translate's
// functions and session values.
func TestEngineWithFunctions(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	for query, want := range map[string][]string{
		"SELECT VERSION() = @@version, DATABASE()": {"1|" + testBase},
		"SELECT CASE WHEN Priority >= 3 THEN 'high' ELSE 'low' END AS bucket, COUNT(*) FROM Tasks GROUP BY bucket": {"high|3", "low|5"},
		"SELECT IFNULL(Status, 'none') AS s, SUM(Priority) FROM Tasks GROUP BY 1 ORDER BY 2 DESC":                  {"Doing|6", "Done|5", "Todo|4", "none|2"},
		"SELECT YEAR(`Due Date`) AS y, COUNT(*) FROM Tasks GROUP BY y":                                             {"NULL|6", "2024|2"},
		"SELECT UPPER(Status), COUNT(*) FROM Tasks GROUP BY upper(status) HAVING COUNT(*) > 1":                     {"NULL|2", "DOING|2", "TODO|3"},
		"SELECT CAST(AVG(Priority) AS SIGNED) FROM Tasks":                                                          {"2"},
		"SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()":                           {"3"},
	} {
		if got := rowTexts(t, db, query); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", query, got, want)
		}
	}
}

// TestOnlyFullGroupByOff: with ONLY_FULL_GROUP_BY taken out of the session's sql_mode, a column
// neither grouped nor aggregated takes a value of one row of its group, as in MySQL.
func TestOnlyFullGroupByOff(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const query = "SELECT Status, Name, COUNT(*) FROM Tasks WHERE Status = 'Done' GROUP BY Status"
	if _, err := conn.QueryContext(ctx, query); err == nil || !strings.Contains(err.Error(), "only_full_group_by") {
		t.Fatalf("default sql_mode: %v, want the ONLY_FULL_GROUP_BY refusal", err)
	}
	if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = 'STRICT_TRANS_TABLES'"); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	if got := scanAll(t, rows); len(got) != 1 || got[0][1] != "Ship it" || got[0][2] != int64(1) {
		t.Errorf("rows %v, want Done, Ship it, 1", got)
	}
}
