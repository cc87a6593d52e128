package airsql

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/internal/oracle"
)

// jsonTableMariaDBQueries are JSON_TABLE queries over constant documents whose answer MariaDB
// 10.11 gives as MySQL 8 does (values and column labels): TestJSONTableAgainstMariaDB runs each
// through MariaDB and the driver. Where the two servers differ, the query is in
// TestJSONTableMySQLAnswers with MySQL's answer instead.
var jsonTableMariaDBQueries = []string{
	`SELECT * FROM JSON_TABLE('[1, 2, 3]', '$[*]' COLUMNS (n FOR ORDINALITY, v INT PATH '$')) AS jt`,
	`SELECT jt.* FROM JSON_TABLE('["bug", "feature", "bug"]', '$[*]' COLUMNS (tag VARCHAR(20) PATH '$')) jt`,
	`SELECT tag, COUNT(*) FROM JSON_TABLE('["bug", "feature", "bug"]', '$[*]' COLUMNS (tag VARCHAR(20) PATH '$')) jt GROUP BY tag ORDER BY tag`,
	`SELECT * FROM JSON_TABLE('[{"a":"3"},{"a":2},{"b":1},{"a":0}]', '$[*]' COLUMNS (id FOR ORDINALITY, jpath VARCHAR(100) PATH '$.a', jexst INT EXISTS PATH '$.b')) AS tt`,
	`SELECT * FROM JSON_TABLE('[{"x":"3"},{"a":2},{"b":1},{"a":0}]', '$[*]' COLUMNS (id FOR ORDINALITY, jpath VARCHAR(100) PATH '$.a' DEFAULT '33' ON EMPTY DEFAULT '66' ON ERROR, jexst INT EXISTS PATH '$.b')) AS tt`,
	`SELECT * FROM JSON_TABLE('[{"a":1,"b":[11,111]},{"a":2,"b":[22,222]}]', '$[*]' COLUMNS (a INT PATH '$.a', NESTED PATH '$.b[*]' COLUMNS (b INT PATH '$'))) AS jt`,
	`SELECT * FROM JSON_TABLE('[{"a":1,"b":[11,111]},{"a":2,"b":[22,222]}]', '$[*]' COLUMNS (a INT PATH '$.a', NESTED PATH '$.b[*]' COLUMNS (b1 INT PATH '$'), NESTED PATH '$.b[*]' COLUMNS (b2 INT PATH '$'))) AS jt`,
	`SELECT * FROM JSON_TABLE('[{"a":1,"b":[11,111]},{"a":2},{"a":3,"b":[]}]', '$[*]' COLUMNS (a INT PATH '$.a', NESTED PATH '$.b[*]' COLUMNS (n FOR ORDINALITY, b INT PATH '$'))) AS jt`,
	`SELECT * FROM JSON_TABLE('[{"a":1,"b":[11],"c":[]},{"a":2}]', '$[*]' COLUMNS (a INT PATH '$.a', NESTED PATH '$.b[*]' COLUMNS (b INT PATH '$'), NESTED PATH '$.c[*]' COLUMNS (c INT PATH '$'))) AS jt`,
	`SELECT * FROM JSON_TABLE('{"a": {"b": [1, 2], "c": "x"}}', '$.a' COLUMNS (c VARCHAR(5) PATH '$.c', NESTED PATH '$.b[*]' COLUMNS (b INT PATH '$'))) AS jt`,
	`SELECT * FROM JSON_TABLE('[1, 2]', '$' COLUMNS (one INT PATH '$[0]', two INT PATH '$[1]', three INT PATH '$[2]')) AS jt`,
	`SELECT * FROM JSON_TABLE(NULL, '$[*]' COLUMNS (a INT PATH '$')) AS jt`,
	`SELECT * FROM JSON_TABLE('[]', '$[*]' COLUMNS (a INT PATH '$')) AS jt`,
	`SELECT * FROM JSON_TABLE('{"k": 42}', '$.k' COLUMNS (id FOR ORDINALITY)) AS jt`,
	`SELECT * FROM JSON_TABLE('[3.14159, -2, 0.5]', '$[*]' COLUMNS (d DOUBLE PATH '$', c CHAR(70) PATH '$')) AS jt`,
	`SELECT * FROM JSON_TABLE('["2024-05-15", "2017-11-1"]', '$[*]' COLUMNS (d DATE PATH '$')) AS jt`,
	`SELECT * FROM JSON_TABLE('["2024-05-15 10:11:12"]', '$[*]' COLUMNS (d DATETIME PATH '$')) AS jt`,
	`SELECT * FROM JSON_TABLE('[{"a":1},{"a":2}]', '$[*]' COLUMNS (a INT PATH '$.a')) AS jt WHERE a > 1`,
	`SELECT a * 10 AS x FROM JSON_TABLE('[{"a":1},{"a":2}]', '$[*]' COLUMNS (a INT PATH '$.a')) AS jt ORDER BY x DESC`,
	`SELECT SUM(v) FROM JSON_TABLE('[1, 2, 3, 4]', '$[*]' COLUMNS (v INT PATH '$')) AS jt`,
	`SELECT j1.v, j2.w FROM JSON_TABLE('[1, 2]', '$[*]' COLUMNS (v INT PATH '$')) j1 JOIN JSON_TABLE('[2, 3]', '$[*]' COLUMNS (w INT PATH '$')) j2 ON j1.v = j2.w`,
	`SELECT j1.v, j2.w FROM JSON_TABLE('[1, 2]', '$[*]' COLUMNS (v INT PATH '$')) j1 LEFT JOIN JSON_TABLE('[2, 3]', '$[*]' COLUMNS (w INT PATH '$')) j2 ON j1.v = j2.w ORDER BY j1.v`,
	`SELECT * FROM JSON_TABLE('["a", "bb"]', '$[*]' COLUMNS (s VARCHAR(5) PATH '$', e INT EXISTS PATH '$[0]', l INT PATH '$.x' DEFAULT '7' ON EMPTY)) AS jt`,
	`SELECT v FROM JSON_TABLE('[5, 6]', '$[*]' COLUMNS (v INT PATH '$')) AS jt WHERE v IN (SELECT w FROM JSON_TABLE('[6, 7]', '$[*]' COLUMNS (w INT PATH '$')) AS jt2)`,
}

// TestJSONTableAgainstMariaDB runs jsonTableMariaDBQueries through MariaDB and the driver: the
// same column labels and rows.
func TestJSONTableAgainstMariaDB(t *testing.T) {
	srv := oracle.Start(t)
	if srv == nil {
		return
	}
	db, _ := openDemo(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, q := range jsonTableMariaDBQueries {
		t.Run(q, func(t *testing.T) {
			want := oracle.Answer(ctx, srv.DB, q)
			if want.Err != nil {
				t.Fatalf("MariaDB: %v", want.Err)
			}
			got := oracle.Answer(ctx, db, q)
			if d := oracle.Diff(want, got, true); d != "" {
				t.Errorf("%s\n got %v %v\nwant %v %v", d, got.Labels, got.Rows, want.Labels, want.Rows)
			}
		})
	}
}

// TestJSONTableOnDemoCells unnests the demo base's list cells — multiple selects (Tags),
// collaborators (Watchers), attachments, links (Assignee) and lookups (Project Status) — with
// JSON_TABLE, and checks the rows against the cells read on their own and decoded in Go: one row
// per item, in the cell's order, none for an empty cell (or, with LEFT JOIN … ON TRUE, one row of
// NULLs).
func TestJSONTableOnDemoCells(t *testing.T) {
	db, srv := openDemo(t, "")
	cells := map[string]map[string][]any{} // field -> task id -> decoded cell (nil when empty)
	rows, err := db.Query("SELECT id, Tags, Watchers, Attachments, Assignee, `Project Status` FROM Tasks")
	if err != nil {
		t.Fatal(err)
	}
	fields := []string{"Tags", "Watchers", "Attachments", "Assignee", "Project Status"}
	var ids []string
	for _, r := range scanAll(t, rows) {
		id := r[0].(string)
		ids = append(ids, id)
		for i, f := range fields {
			if cells[f] == nil {
				cells[f] = map[string][]any{}
			}
			var items []any
			if r[i+1] != nil {
				if err := json.Unmarshal([]byte(cellText(r[i+1])), &items); err != nil {
					t.Fatalf("%s of %s: %v", f, id, err)
				}
			}
			cells[f][id] = items
		}
	}
	str := func(v any) string {
		if v == nil {
			return "NULL"
		}
		return fmt.Sprint(v)
	}
	cases := []struct {
		name, query string
		field       string
		left        bool                         // LEFT JOIN … ON TRUE: an empty cell gives one row of NULLs
		want        func(i int, item any) string // the row of item i (0-based) after the task's id
		nulls       string
	}{
		{name: "multiple select", field: "Tags",
			query: "SELECT t.id, jt.n, jt.tag FROM Tasks t, JSON_TABLE(t.Tags, '$[*]' COLUMNS (n FOR ORDINALITY, tag VARCHAR(50) PATH '$')) AS jt",
			want:  func(i int, item any) string { return fmt.Sprintf("%d|%s", i+1, item) }},
		{name: "collaborators", field: "Watchers",
			query: "SELECT t.id, jt.email, jt.name FROM Tasks AS t JOIN JSON_TABLE(t.Watchers, '$[*]' COLUMNS (email VARCHAR(100) PATH '$.email', name TEXT PATH '$.name')) jt",
			want: func(i int, item any) string {
				m := item.(map[string]any)
				return str(m["email"]) + "|" + str(m["name"])
			}},
		{name: "attachments", field: "Attachments",
			query: "SELECT t.id, jt.filename, jt.has_url FROM Tasks t CROSS JOIN JSON_TABLE(t.Attachments, '$[*]' COLUMNS (filename VARCHAR(255) PATH '$.filename', has_url INT EXISTS PATH '$.url')) AS jt",
			want: func(i int, item any) string {
				m := item.(map[string]any)
				has := 0
				if _, ok := m["url"]; ok {
					has = 1
				}
				return fmt.Sprintf("%s|%d", str(m["filename"]), has)
			}},
		{name: "links", field: "Assignee",
			query: "SELECT t.id, jt.person FROM Tasks t, JSON_TABLE(t.Assignee, '$[*]' COLUMNS (person VARCHAR(17) PATH '$')) AS jt",
			want:  func(i int, item any) string { return str(item) }},
		{name: "lookups", field: "Project Status",
			query: "SELECT t.id, jt.s FROM Tasks t, JSON_TABLE(t.`Project Status`, '$[*]' COLUMNS (s JSON PATH '$')) AS jt",
			want: func(i int, item any) string {
				b, _ := json.Marshal(item)
				return string(b)
			}},
		{name: "NULL cells with LEFT JOIN ON TRUE", field: "Tags", left: true, nulls: "NULL|NULL",
			query: "SELECT t.id, jt.n, jt.tag FROM Tasks t LEFT JOIN JSON_TABLE(t.Tags, '$[*]' COLUMNS (n FOR ORDINALITY, tag VARCHAR(50) PATH '$')) AS jt ON TRUE",
			want:  func(i int, item any) string { return fmt.Sprintf("%d|%s", i+1, item) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var want []string
			empty := 0
			for _, id := range ids {
				items := cells[c.field][id]
				if len(items) == 0 {
					empty++
					if c.left {
						want = append(want, id+"|"+c.nulls)
					}
				}
				for i, item := range items {
					want = append(want, id+"|"+c.want(i, item))
				}
			}
			if len(want) == 0 {
				t.Fatalf("the demo base has no %s cells: the test proves nothing", c.field)
			}
			srv.ResetRequests()
			got := rowTexts(t, db, c.query)
			if !slices.Equal(got, want) {
				t.Fatalf("got %d rows, want %d (in FROM's order; %d empty cells)\n got %v\nwant %v", len(got), len(want), empty, head(got), head(want))
			}
			if n := len(dataRequests(srv)); n != 3 {
				t.Errorf("%d requests, want 3 (the 300 tasks' pages; JSON_TABLE adds none)", n)
			}
		})
	}
}

func head(s []string) []string { return s[:min(len(s), 5)] }

// cellText is a scanned cell as text ([]byte or string).
func cellText(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return fmt.Sprint(v)
}

// TestJSONTableGroupByTag is the use case: the tasks per tag, counted by GROUP BY over the
// unnested multiple select, equal the counts made in Go from the cells; a WHERE on the tasks is
// pushed into their request exactly as without JSON_TABLE, and JSON_TABLE adds no request.
func TestJSONTableGroupByTag(t *testing.T) {
	db, srv := openDemo(t, "")
	for _, c := range []struct {
		name, where string
		pushed      bool // the WHERE is pushed into a formula
	}{
		{"every task", "", false},
		{"filtered tasks", " WHERE t.Priority >= 3 AND t.Status <> 'Done'", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			warmSchema(t, db, srv)
			want := map[string]int{}
			for _, row := range rowTexts(t, db, "SELECT Tags FROM Tasks t"+c.where) {
				var tags []string
				if row != "NULL" {
					if err := json.Unmarshal([]byte(row), &tags); err != nil {
						t.Fatal(err)
					}
				}
				for _, tag := range tags {
					want[tag]++
				}
			}
			plain := dataRequests(srv)
			srv.ResetRequests()
			got := rowTexts(t, db, "SELECT jt.tag, COUNT(*) AS n FROM Tasks t, JSON_TABLE(t.Tags, '$[*]' COLUMNS (tag VARCHAR(50) PATH '$')) AS jt"+c.where+" GROUP BY jt.tag ORDER BY jt.tag")
			var wantRows []string
			for tag, n := range want {
				wantRows = append(wantRows, fmt.Sprintf("%s|%d", tag, n))
			}
			slices.Sort(wantRows)
			if !slices.Equal(got, wantRows) || len(got) == 0 {
				t.Errorf("got %v, want %v", got, wantRows)
			}
			reqs := dataRequests(srv)
			if len(reqs) != len(plain) {
				t.Fatalf("%d requests, want %d (those of the tasks alone)", len(reqs), len(plain))
			}
			for i := range reqs {
				if g, w := formulaOf(t, reqs[i]), formulaOf(t, plain[i]); g != w || (g != "") != c.pushed {
					t.Errorf("request %d: formula %q, want %q (the WHERE pushed as without JSON_TABLE)", i+1, g, w)
				}
			}
		})
	}
}

// TestJSONTableMySQLAnswers checks answers where MySQL 8 and MariaDB differ (MariaDB stores a
// value that does not fit as 0 or cut; MySQL applies ON ERROR): MySQL's, from its own test suite
// (mysql-test/suite/json/r/json_table.result) and manual.
func TestJSONTableMySQLAnswers(t *testing.T) {
	db, _ := openDemo(t, "")
	for _, c := range []struct{ query, want string }{
		{`SELECT * FROM JSON_TABLE('[{"a":"3"},{"a":2},{"b":1},{"a":0.33},{"a":"asd"}]', '$[*]' COLUMNS (id FOR ORDINALITY, jpath_i INT PATH '$.a' DEFAULT '33' ON EMPTY DEFAULT '66' ON ERROR, jpath_r REAL PATH '$.a' DEFAULT '33.3' ON EMPTY DEFAULT '77.7' ON ERROR, jsn_path JSON PATH '$.a' DEFAULT '{"x":33}' ON EMPTY, jexst INT EXISTS PATH '$.b')) AS tt`,
			`1|3|3|"3"|0 2|2|2|2|0 3|33|33.3|{"x": 33}|1 4|0|0.33|0.33|0 5|66|77.7|"asd"|0`},
		{`SELECT * FROM JSON_TABLE('[{"x":"3"},{"a":2},{"b":1},{"a":0},{"a":[1,2]}]', '$[*]' COLUMNS (id FOR ORDINALITY, jpath VARCHAR(100) PATH '$.a' DEFAULT '33' ON EMPTY DEFAULT '66' ON ERROR, jsn_path JSON PATH '$.a' DEFAULT '{"x":33}' ON EMPTY)) AS tt`,
			`1|33|{"x": 33} 2|2|2 3|33|{"x": 33} 4|0|0 5|66|[1, 2]`},
		{`SELECT * FROM JSON_TABLE('[{"a":1},{"a":2}]', '$' COLUMNS (a JSON PATH '$[*].a' ERROR ON ERROR)) AS jt`, `[1, 2]`},
		{`SELECT * FROM JSON_TABLE('123.456', '$' COLUMNS (a DECIMAL(2,1) PATH '$')) AS jt`, `NULL`},
		{`SELECT * FROM JSON_TABLE('["3.14159"]', '$[*]' COLUMNS (col18 CHAR(6) PATH '$')) AS alias2`, `NULL`},
		{`SELECT * FROM JSON_TABLE('["3.14159 "]', '$[*]' COLUMNS (col18 CHAR(7) PATH '$')) AS alias2`, `3.14159`},
		{`SELECT * FROM JSON_TABLE('[0.9]', '$[*]' COLUMNS (col18 DECIMAL(3,3) PATH '$')) AS alias2`, `0.9`},
		{`SELECT * FROM JSON_TABLE('[3.14159]', '$[*]' COLUMNS (col18 DECIMAL(3,3) PATH '$')) AS alias2`, `NULL`},
		{`SELECT * FROM JSON_TABLE('["asdf","ghjk"]', '$[*]' COLUMNS (col18 DECIMAL(4,3) PATH '$' DEFAULT "3.14159" ON ERROR)) AS alias2`, `3.142 3.142`},
		{`SELECT * FROM JSON_TABLE('"asdf"', '$' COLUMNS (dt DATE PATH '$', i INT PATH '$', f FLOAT PATH '$', d DECIMAL PATH '$')) AS jt`, `NULL|NULL|NULL|NULL`},
		{`SELECT * FROM JSON_TABLE('[1,2]', '$[*]' COLUMNS (jtcol1 JSON PATH '$.*')) AS alias2`, `NULL NULL`},
		{`SELECT * FROM JSON_TABLE('{"a":"1"}', '$' COLUMNS (jpath JSON PATH '$.a', o FOR ORDINALITY)) AS jt WHERE o = 1`, `"1"|1`},
		{`SELECT je, COUNT(o) FROM JSON_TABLE('{"a":"1"}', '$' COLUMNS (o FOR ORDINALITY, je BIGINT EXISTS PATH '$.a')) AS jt GROUP BY je`, `1|1`},
		{`SELECT * FROM JSON_TABLE('[12345678901, 7]', '$[*]' COLUMNS (i INT PATH '$', b BIGINT PATH '$')) AS jt`, `NULL|12345678901 7|7`},
		{`SELECT * FROM JSON_TABLE('[1, 2]', '$' COLUMNS (one INT PATH '$[0]', two INT PATH '$[1]')) AS jt`, `1|2`},
	} {
		t.Run(c.query, func(t *testing.T) {
			if got := strings.Join(rowTexts(t, db, c.query), " "); got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

// TestJSONTableRefusals: what MySQL refuses, with its error number, and what the driver cannot
// run, named.
func TestJSONTableRefusals(t *testing.T) {
	db, _ := openDemo(t, "")
	for _, c := range []struct {
		query string
		code  uint16
		want  string // in the message
	}{
		{`SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (a INT PATH '$'))`, 3667, "Every table function must have an alias"},
		{`SELECT * FROM JSON_TABLE(t.Tags, '$[*]' COLUMNS (a INT PATH '$')) AS jt, Tasks t`, 1054, "t comes after JSON_TABLE jt"},
		{`SELECT * FROM JSON_TABLE(abc, '$[*]' COLUMNS (a INT PATH '$')) AS jt`, 1054, "'abc' in 'a table function argument'"},
		{`SELECT * FROM Tasks t RIGHT JOIN JSON_TABLE(t.Tags, '$[*]' COLUMNS (a INT PATH '$')) AS jt ON TRUE`, 3668, "INNER or LEFT JOIN must be used for LATERAL references made by 'jt'"},
		{`SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (id FOR ORDINALITY, id FOR ORDINALITY)) AS jt`, 1060, "Duplicate column name 'id'"},
		{`SELECT * FROM JSON_TABLE('[{"a":1}]', '$[*]' COLUMNS (a VARCHAR(100) PATH '$.a' DEFAULT '[99]' ON ERROR)) AS jt`, 1067, "Invalid default value for 'a'"},
		{`SELECT * FROM JSON_TABLE('[{"a":1}]', '$[*]' COLUMNS (a VARCHAR(100) PATH '$.b' ERROR ON EMPTY)) AS jt`, 3665, "Missing value for JSON_TABLE column 'a'"},
		{`SELECT * FROM JSON_TABLE('[{"a":[0,1]}]', '$[*]' COLUMNS (a VARCHAR(100) PATH '$.a' ERROR ON ERROR)) AS jt`, 3666, "Can't store an array or an object in the scalar JSON_TABLE column 'a'"},
		{`SELECT * FROM JSON_TABLE('"asdf"', '$' COLUMNS (a INT PATH '$' ERROR ON ERROR)) AS jt`, 3156, "Invalid JSON value for CAST to INTEGER from column a at row 1"},
		{`SELECT * FROM JSON_TABLE('123.456', '$' COLUMNS (a DECIMAL(2,1) PATH '$' ERROR ON ERROR)) AS jt`, 3669, "Value is out of range for JSON_TABLE's column 'a'"},
		{`SELECT * FROM JSON_TABLE('!#@$!@#$', '$[*]' COLUMNS (id FOR ORDINALITY)) AS tt`, 3141, "Invalid JSON text in argument 1 to function json_table"},
		{`SELECT * FROM JSON_TABLE('[1]', '!@#$!@#$' COLUMNS (id FOR ORDINALITY)) AS tt`, 3143, "invalid JSON path"},
		{`SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (t TIME PATH '$')) AS tt`, 1235, "the JSON_TABLE column type TIME"},
		{`SELECT * FROM Tasks t0 LEFT JOIN (Tasks t JOIN JSON_TABLE(t.Tags, '$[*]' COLUMNS (a VARCHAR(9) PATH '$')) jt ON TRUE) ON t0.id = t.id`, 1235, "a JSON_TABLE that reads another table inside a parenthesised join"},
		{`SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (a INT PATH '$' DEFAULT)) AS tt`, 1064, "JSON_TABLE: the value of DEFAULT must be a string literal"},
		{`SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (a INT)) AS tt`, 1064, "must be followed by PATH"},
		{"SELECT * FROM JSON_TABLE('{}', '$' COLUMNS (" + strings.Repeat("NESTED PATH '$.a' COLUMNS (", 17) + "x INT PATH '$'" + strings.Repeat(")", 18) + ") AS jt", 3670, "More than supported 16 NESTED PATHs"},
	} {
		t.Run(c.query, func(t *testing.T) {
			rows, err := db.Query(c.query)
			if err == nil { // an error found while the rows are made comes with them
				for rows.Next() {
				}
				err = rows.Err()
				rows.Close()
			}
			if err == nil {
				t.Fatalf("got rows, want error %d", c.code)
			}
			if code, _ := MySQLErrorCode(err); code != c.code || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %d %v, want %d containing %q", code, err, c.code, c.want)
			}
		})
	}
}

// TestJSONPredicatesAreIntegers: JSON_CONTAINS, JSON_CONTAINS_PATH, JSON_VALID and MEMBER OF give
// MySQL's integer 1 or 0 (a BIGINT column) on every list cell — also JSON_CONTAINS on a link,
// which the planner reads as membership in a condition (a join on it still works).
func TestJSONPredicatesAreIntegers(t *testing.T) {
	db, _ := openDemo(t, "")
	var someID string
	if err := db.QueryRow("SELECT Assignee->>'$[0]' FROM Tasks WHERE Assignee IS NOT NULL LIMIT 1").Scan(&someID); err != nil {
		t.Fatal(err)
	}
	for _, expr := range []string{
		`JSON_CONTAINS(Assignee, '"` + someID + `"')`, "JSON_CONTAINS(Assignee, JSON_QUOTE('" + someID + "'))", `JSON_CONTAINS(Tags, '"bug"')`,
		"JSON_CONTAINS_PATH(Assignee, 'one', '$[0]')", "JSON_VALID(Assignee)", "'" + someID + "' MEMBER OF(Assignee)", "'bug' MEMBER OF(Tags)",
	} {
		t.Run(expr, func(t *testing.T) {
			rows, err := db.Query("SELECT " + expr + " FROM Tasks")
			if err != nil {
				t.Fatal(err)
			}
			types, _ := rows.ColumnTypes()
			if got := types[0].DatabaseTypeName(); got != "INT64" {
				t.Errorf("column type %s, want INT64 (MySQL: an integer)", got)
			}
			seen := map[string]int{}
			for _, r := range scanAll(t, rows) {
				seen[fmt.Sprint(r[0])]++
			}
			for v := range seen {
				if v != "0" && v != "1" && v != "<nil>" {
					t.Errorf("value %s, want 1, 0 or NULL", v)
				}
			}
			if seen["1"] == 0 {
				t.Errorf("no row gives 1: %v", seen)
			}
		})
	}
	// As a condition, JSON_CONTAINS on a link is the membership a join uses.
	n := len(rowTexts(t, db, "SELECT t.id FROM Tasks t JOIN People p ON JSON_CONTAINS(t.Assignee, JSON_QUOTE(p.id))"))
	m := len(rowTexts(t, db, "SELECT t.id FROM Tasks t JOIN People p ON t.Assignee = p.id"))
	if n != m || n == 0 {
		t.Errorf("a join on JSON_CONTAINS gives %d rows, on = %d", n, m)
	}
}

// TestJSONTableInQueries: JSON_TABLE where any table may go — a correlated subquery, an IN
// subquery, a WITH query, after a derived table, after another JSON_TABLE, in a join of three —
// each compared with the same answer written without JSON_TABLE.
func TestJSONTableInQueries(t *testing.T) {
	db, _ := openDemo(t, "")
	for _, c := range []struct{ name, query, same string }{
		{"correlated scalar subquery",
			"SELECT t.id, (SELECT COUNT(*) FROM JSON_TABLE(t.Tags, '$[*]' COLUMNS (x VARCHAR(9) PATH '$')) AS j) FROM Tasks t",
			"SELECT id, COALESCE(JSON_LENGTH(Tags), 0) FROM Tasks"},
		{"IN subquery",
			"SELECT p.Name FROM People p WHERE p.id IN (SELECT jt.a FROM JSON_TABLE((SELECT JSON_ARRAYAGG(Assignee->>'$[0]') FROM Tasks WHERE Priority = 5), '$[*]' COLUMNS (a VARCHAR(20) PATH '$')) jt)",
			"SELECT p.Name FROM People p WHERE p.id IN (SELECT Assignee->>'$[0]' FROM Tasks WHERE Priority = 5)"},
		{"WITH",
			"WITH x AS (SELECT t.id, jt.tag FROM Tasks t, JSON_TABLE(t.Tags, '$[*]' COLUMNS (tag VARCHAR(9) PATH '$')) jt) SELECT tag, COUNT(*) FROM x GROUP BY tag",
			"SELECT jt.tag, COUNT(*) FROM Tasks t, JSON_TABLE(t.Tags, '$[*]' COLUMNS (tag VARCHAR(9) PATH '$')) jt GROUP BY jt.tag"},
		{"a join of three",
			"SELECT t.Name, jt.tag, p.Name FROM Tasks t JOIN JSON_TABLE(t.Tags, '$[*]' COLUMNS (tag VARCHAR(9) PATH '$')) jt ON jt.tag = 'bug' JOIN People p ON p.id = t.Assignee WHERE t.Priority = 5",
			"SELECT t.Name, 'bug', p.Name FROM Tasks t JOIN People p ON p.id = t.Assignee WHERE t.Priority = 5 AND JSON_CONTAINS(t.Tags, '\"bug\"')"},
		{"after a derived table",
			"SELECT d.a, jt.v FROM (SELECT 1 AS a UNION ALL SELECT 2) d, JSON_TABLE(CONCAT('[', d.a, ', 7]'), '$[*]' COLUMNS (v INT PATH '$')) jt",
			"SELECT 1, 1 UNION ALL SELECT 1, 7 UNION ALL SELECT 2, 2 UNION ALL SELECT 2, 7"},
		{"in a comma run the join order would change",
			// The equality joins jt to p, the first table: ordered by the join conditions alone, jt
			// would go before t, which its document reads. A run holding a JSON table keeps FROM's order.
			"SELECT p.Name, t.Name FROM People p, Tasks t, JSON_TABLE(t.Assignee, '$[*]' COLUMNS (person VARCHAR(17) PATH '$')) jt WHERE jt.person = p.id",
			"SELECT p.Name, t.Name FROM Tasks t JOIN JSON_TABLE(t.Assignee, '$[*]' COLUMNS (person VARCHAR(17) PATH '$')) jt JOIN People p ON p.id = jt.person"},
		{"after another JSON_TABLE",
			"SELECT jt1.d, jt2.v FROM JSON_TABLE('[[1,2],[3]]', '$[*]' COLUMNS (d JSON PATH '$')) jt1, JSON_TABLE(jt1.d, '$[*]' COLUMNS (v INT PATH '$')) jt2",
			"SELECT '[1, 2]', 1 UNION ALL SELECT '[1, 2]', 2 UNION ALL SELECT '[3]', 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, want := sorted(rowTexts(t, db, c.query)), sorted(rowTexts(t, db, c.same))
			if !slices.Equal(got, want) || len(got) == 0 {
				t.Errorf("got %d rows %v, want %d %v", len(got), head(got), len(want), head(want))
			}
		})
	}
}

// TestJSONTableRowLimit: the rows of one document, and the rows a lateral join makes, count
// against maxRows.
func TestJSONTableRowLimit(t *testing.T) {
	db, _ := openDemo(t, "maxRows=40")
	for _, q := range []string{
		"SELECT * FROM JSON_TABLE(CONCAT('[', REPEAT('1,', 60), '1]'), '$[*]' COLUMNS (v INT PATH '$')) jt",
		"SELECT t.Name, jt.tag FROM Tasks t, JSON_TABLE(t.Tags, '$[*]' COLUMNS (tag VARCHAR(9) PATH '$')) jt",
	} {
		rows, err := db.Query(q)
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "maxRows") {
			t.Errorf("%s: got %v, want the maxRows error", q, err)
		}
	}
	if got := rowTexts(t, db, "SELECT COUNT(*) FROM JSON_TABLE('[1, 2, 3]', '$[*]' COLUMNS (v INT PATH '$')) jt"); !slices.Equal(got, []string{"3"}) {
		t.Errorf("got %v, want [3]", got)
	}
}

// TestExplainJSONTable: EXPLAIN shows a JSON_TABLE as written — a leaf whose rows are made once,
// or a lateral join made per row so far — and the request of the table its document reads (the
// field it needs, the WHERE pushed), sending nothing.
func TestExplainJSONTable(t *testing.T) {
	db, srv := openDemo(t, "")
	warmSchema(t, db, srv)
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"SELECT jt.tag, COUNT(*) FROM Tasks t JOIN JSON_TABLE(t.Tags, '$[*]' COLUMNS (tag VARCHAR(50) PATH '$')) jt WHERE t.Priority > 2 GROUP BY jt.tag",
			[]string{"operator|    lateral join: cross: join json_table(t.Tags, '$[*]' columns (`tag` varchar(50) path '$')) jt; for each row of Tasks t, its rows are made from the document read in that row (no request)",
				"filterByFormula|{Priority}>2", "fields[]|Tags"}},
		{"SELECT * FROM JSON_TABLE('[1, 2]', '$[*]' COLUMNS (n FOR ORDINALITY, v INT PATH '$' DEFAULT '0' ON EMPTY)) AS jt WHERE v > 1",
			[]string{"operator|    json table: json_table('[1, 2]', '$[*]' columns (`n` for ordinality, `v` int path '$' default '0' on empty)) jt: its rows are made from the document once (no request)"}},
	} {
		t.Run(c.query, func(t *testing.T) {
			got := rowTexts(t, db, "EXPLAIN "+c.query)
			for _, w := range c.want {
				if !slices.Contains(got, w) {
					t.Errorf("no row %q in\n%s", w, strings.Join(got, "\n"))
				}
			}
			if reqs := dataRequests(srv); len(reqs) != 0 {
				t.Errorf("EXPLAIN sent %d data requests, want none", len(reqs))
			}
		})
	}
}

// TestJSONTableInWrites: a JSON_TABLE feeds INSERT … SELECT and the IN subquery of UPDATE and
// DELETE (a list bound as one JSON argument, unnested into rows).
func TestJSONTableInWrites(t *testing.T) {
	db, _ := openDemo(t, "")
	list := `["Zed A", "Zed B", "Zed C"]`
	for _, c := range []struct {
		stmt string
		args []any
		n    int64
	}{
		{"INSERT INTO People (Name) SELECT jt.v FROM JSON_TABLE(?, '$[*]' COLUMNS (v VARCHAR(50) PATH '$')) jt", []any{list}, 3},
		// A literal document: an UPDATE whose WHERE subquery reads a ? fails today whatever the
		// subquery ("argument 1 is not used": the SET's plan is given the search's arguments).
		{"UPDATE People SET Name = CONCAT(Name, '!') WHERE Name IN (SELECT jt.v FROM JSON_TABLE('" + list + "', '$[0]' COLUMNS (v VARCHAR(50) PATH '$')) jt)", nil, 1},
		{"DELETE FROM People WHERE Name IN (SELECT v FROM JSON_TABLE(?, '$[1]' COLUMNS (v VARCHAR(50) PATH '$')) jt)", []any{list}, 1},
	} {
		res, err := db.Exec(c.stmt, c.args...)
		if err != nil {
			t.Fatalf("%s: %v", c.stmt, err)
		}
		if n, _ := res.RowsAffected(); n != c.n {
			t.Errorf("%s: %d rows affected, want %d", c.stmt, n, c.n)
		}
	}
	if got := rowTexts(t, db, "SELECT Name FROM People WHERE Name LIKE 'Zed%' ORDER BY Name"); !slices.Equal(got, []string{"Zed A!", "Zed C"}) {
		t.Errorf("got %v, want [Zed A! Zed C]", got)
	}
	// A JSON_TABLE joined in UPDATE and in DELETE … USING picks the records written.
	ids := rowTexts(t, db, "SELECT id FROM People WHERE Name LIKE 'Zed%' ORDER BY Name")
	doc := `[{"id": "` + ids[0] + `"}, {"id": "` + ids[1] + `"}]`
	for _, c := range []struct {
		stmt string
		n    int64
	}{
		{"UPDATE People p JOIN JSON_TABLE('" + doc + "', '$[*]' COLUMNS (id VARCHAR(20) PATH '$.id')) jt ON p.id = jt.id SET p.Name = 'Zed'", 2},
		{"DELETE FROM People USING People, JSON_TABLE('" + doc + "', '$[0]' COLUMNS (id VARCHAR(20) PATH '$.id')) jt WHERE People.id = jt.id", 1},
	} {
		res, err := db.Exec(c.stmt)
		if err != nil {
			t.Fatalf("%s: %v", c.stmt, err)
		}
		if n, _ := res.RowsAffected(); n != c.n {
			t.Errorf("%s: %d rows affected, want %d", c.stmt, n, c.n)
		}
	}
	if got := rowTexts(t, db, "SELECT id, Name FROM People WHERE Name LIKE 'Zed%'"); !slices.Equal(got, []string{ids[1] + "|Zed"}) {
		t.Errorf("got %v, want [%s|Zed]", got, ids[1])
	}
}

// TestJSONTableBindJoin: a JSON_TABLE that reads no table is read first in a join, so its values
// narrow the other table's request like any table's (a bind join): a bound list of record ids
// selects those records with one request.
func TestJSONTableBindJoin(t *testing.T) {
	db, srv := openDemo(t, "")
	warmSchema(t, db, srv)
	ids := rowTexts(t, db, "SELECT id FROM Tasks ORDER BY id LIMIT 2")
	want := rowTexts(t, db, "SELECT Name, id FROM Tasks WHERE id IN (?, ?)", ids[0], ids[1])
	srv.ResetRequests()
	got := rowTexts(t, db, "SELECT t.Name, jt.v FROM Tasks t JOIN JSON_TABLE(?, '$[*]' COLUMNS (v VARCHAR(20) PATH '$')) jt ON t.id = jt.v",
		`["`+ids[0]+`", "`+ids[1]+`", "recNOSUCH00000000"]`)
	if !slices.Equal(sorted(got), sorted(want)) || len(got) != 2 {
		t.Errorf("got %v, want %v", got, want)
	}
	reqs := dataRequests(srv)
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1 (the ids pushed into the formula)", len(reqs))
	}
	if f := formulaOf(t, reqs[0]); !strings.Contains(f, "RECORD_ID()='"+ids[0]+"'") || !strings.Contains(f, "RECORD_ID()='"+ids[1]+"'") {
		t.Errorf("formula %q, want the ids pushed", f)
	}
}
