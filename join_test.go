package airsql

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/engine"
)

// openDemo serves the emulator's demo base (40 people, 20 projects, 300 tasks, linked records) and
// opens a database on it.
func openDemo(t testing.TB, params string, opts ...emulator.Option) (*sql.DB, *emulator.Server) {
	t.Helper()
	all := append([]emulator.Option{emulator.WithDemo(), emulator.WithRate(0, 0), emulator.WithTokenRate(0)}, opts...)
	srv, err := emulator.New(all...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	dsn := "airtable://" + emulator.DemoToken + "@localhost/" + emulator.DemoBaseID + "?tls=false"
	if params != "" {
		dsn += "&" + params
	}
	db, _ := openDSN(t, dsn, srv.Client())
	return db, srv
}

// demoRecord is one record of the demo base read by a single-table SELECT (the reference for
// joins computed here in Go).
type demoRecord struct {
	id     string
	fields map[string]string
	links  map[string][]string
}

func readDemo(t *testing.T, db *sql.DB, table string, cols []string, linkCols []string) []demoRecord {
	t.Helper()
	all := append(append([]string{"id"}, cols...), linkCols...)
	quoted := make([]string, len(all))
	for i, c := range all {
		quoted[i] = "`" + c + "`"
	}
	rows, err := db.Query("SELECT " + strings.Join(quoted, ", ") + " FROM `" + table + "`")
	if err != nil {
		t.Fatal(err)
	}
	var out []demoRecord
	for _, row := range scanAll(t, rows) {
		r := demoRecord{id: row[0].(string), fields: map[string]string{}, links: map[string][]string{}}
		for i, c := range cols {
			if row[i+1] == nil {
				r.fields[c] = "NULL"
			} else {
				r.fields[c] = toString(row[i+1])
			}
		}
		for i, c := range linkCols {
			if v := row[1+len(cols)+i]; v != nil {
				var ids []string
				if err := json.Unmarshal([]byte(toString(v)), &ids); err != nil {
					t.Fatalf("%s.%s: %v", table, c, err)
				}
				r.links[c] = ids
			}
		}
		out = append(out, r)
	}
	return out
}

// formulaOf returns a request's filterByFormula.
func formulaOf(t *testing.T, r emulator.Request) string {
	t.Helper()
	v, err := url.ParseQuery(r.Query)
	if err != nil {
		t.Fatal(err)
	}
	if f := v.Get("filterByFormula"); f != "" {
		return f
	}
	var body struct {
		FilterByFormula string `json:"filterByFormula"`
	}
	_ = json.Unmarshal([]byte(r.Body), &body)
	return body.FilterByFormula
}

// TestJoinLinkedRecords: the report — tasks of QA people — reads People with {Role}='QA'
// first, then only the tasks linked to them (two requests instead of a scan of each table), and
// gives the rows a join computed in Go from whole-table reads gives.
func TestJoinLinkedRecords(t *testing.T) {
	db, srv := openDemo(t, "")
	people := readDemo(t, db, "People", []string{"Name", "Role", "Email"}, nil)
	tasks := readDemo(t, db, "Tasks", []string{"Name"}, []string{"Assignee", "Project"})
	byID := map[string]demoRecord{}
	for _, p := range people {
		byID[p.id] = p
	}
	var want []string
	for _, tk := range tasks {
		for _, a := range tk.links["Assignee"] {
			if p := byID[a]; p.fields["Role"] == "QA" {
				want = append(want, tk.fields["Name"]+"|"+p.fields["Name"])
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("the demo base has no task of a QA person")
	}

	for _, query := range []string{
		"SELECT t.Name, p.Name FROM Tasks t JOIN People p ON p.id = t.Assignee WHERE p.Role = 'QA'",
		"SELECT t.Name, p.Name FROM Tasks AS t INNER JOIN People AS p ON t.Assignee = p.id AND p.Role = 'QA'",
		"SELECT t.Name, p.Name FROM Tasks t, People p WHERE p.id = t.Assignee AND p.Role = 'QA'",
		"SELECT t.Name, p.Name FROM Tasks t JOIN People p ON JSON_CONTAINS(t.Assignee, JSON_QUOTE(p.id)) WHERE p.Role = 'QA'",
	} {
		t.Run(query, func(t *testing.T) {
			srv.ResetRequests()
			got := rowTexts(t, db, query)
			if !slices.Equal(sorted(got), sorted(want)) {
				t.Fatalf("got %d rows %v\nwant %d rows %v", len(got), sorted(got), len(want), sorted(want))
			}
			reqs := dataRequests(srv)
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2 (People filtered, then the tasks of its keys): %v", len(reqs), reqs)
			}
			if f := formulaOf(t, reqs[0]); f != "{Role}='QA'" || !strings.Contains(reqs[0].Path, "tblPEOPLE") {
				t.Errorf("first request %s formula %q, want People with {Role}='QA'", reqs[0].Path, f)
			}
			f := formulaOf(t, reqs[1])
			if !strings.Contains(reqs[1].Path, "tblTASKS") || !strings.HasPrefix(f, "OR(FIND(") || !strings.Contains(f, "{Assignee}&''") {
				t.Errorf("second request %s formula %q, want Tasks with the QA people's primary values pushed", reqs[1].Path, f)
			}
		})
	}

	// The other direction: People joined to the tasks that link them pushes the tasks' ids
	// exactly, OR(RECORD_ID()='rec…', …).
	t.Run("ids pushed", func(t *testing.T) {
		var want []string
		for _, tk := range tasks {
			if !strings.HasPrefix(tk.fields["Name"], "Fix ") {
				continue
			}
			for _, a := range tk.links["Assignee"] {
				want = append(want, byID[a].fields["Email"]+"|"+tk.fields["Name"])
			}
		}
		srv.ResetRequests()
		got := rowTexts(t, db, "SELECT p.Email, t.Name FROM People p JOIN Tasks t ON p.id = t.Assignee WHERE t.Name LIKE 'Fix %'")
		if !slices.Equal(sorted(got), sorted(want)) || len(want) == 0 {
			t.Fatalf("got %v\nwant %v", sorted(got), sorted(want))
		}
		reqs := dataRequests(srv)
		if len(reqs) != 2 || !strings.HasPrefix(formulaOf(t, reqs[1]), "OR(RECORD_ID()='rec") {
			t.Fatalf("requests %v: want Tasks then People by id", reqs)
		}
	})

	// = with an id means membership, never nothing at all.
	t.Run("membership", func(t *testing.T) {
		qa := ""
		for _, p := range people {
			if p.fields["Role"] == "QA" {
				qa = p.id
				break
			}
		}
		n := 0
		for _, tk := range tasks {
			if slices.Contains(tk.links["Assignee"], qa) {
				n++
			}
		}
		if n == 0 {
			t.Fatal("no task of that person")
		}
		for _, q := range []string{
			"SELECT COUNT(*) FROM Tasks WHERE Assignee = ?",
			"SELECT COUNT(*) FROM Tasks WHERE ? = Assignee",
			"SELECT COUNT(*) FROM Tasks WHERE JSON_CONTAINS(Assignee, JSON_QUOTE(?))",
			"SELECT COUNT(*) FROM Tasks t WHERE t.Assignee IN (?) OR FALSE",
			"SELECT COUNT(*) FROM Tasks WHERE FIND_IN_SET(?, Assignee)",
			"SELECT COUNT(*) FROM Tasks WHERE FIND_IN_SET(?, Assignee) = 1",
		} {
			if got := rowTexts(t, db, q, qa); !slices.Equal(got, []string{fmt.Sprint(n)}) {
				t.Errorf("%s: got %v, want %d", q, got, n)
			}
		}
		if got := rowTexts(t, db, "SELECT COUNT(*) FROM Tasks t JOIN People p ON FIND_IN_SET(p.id, t.Assignee) > 0 WHERE p.id = ?", qa); !slices.Equal(got, []string{fmt.Sprint(n)}) {
			t.Errorf("JOIN ON FIND_IN_SET: got %v, want %d", got, n)
		}
		if got := rowTexts(t, db, "SELECT COUNT(*) FROM Tasks WHERE NOT JSON_CONTAINS(Assignee, JSON_QUOTE(?))", qa); len(got) != 1 || got[0] == "0" {
			t.Errorf("NOT JSON_CONTAINS: %v", got)
		}
		if _, err := db.Query("SELECT Name FROM Tasks WHERE Assignee <> ?", qa); err == nil || !strings.Contains(err.Error(), "JSON_CONTAINS") {
			t.Errorf("Assignee <> id: %v, want a refusal naming JSON_CONTAINS", err)
		}
	})
}

// TestJoinShapes: LEFT JOIN, three tables, self-joins, USING, t.* and *, each checked against a
// join computed in Go.
func TestJoinShapes(t *testing.T) {
	db, _ := openDemo(t, "")
	people := readDemo(t, db, "People", []string{"Name", "Role", "Email"}, nil)
	projects := readDemo(t, db, "Projects", []string{"Name"}, []string{"Lead"})
	tasks := readDemo(t, db, "Tasks", []string{"Name"}, []string{"Assignee", "Project"})
	person := map[string]demoRecord{}
	for _, p := range people {
		person[p.id] = p
	}
	project := map[string]demoRecord{}
	for _, p := range projects {
		project[p.id] = p
	}

	// LEFT JOIN: every project, with its lead's email or NULL.
	var want []string
	for _, pr := range projects {
		leads := pr.links["Lead"]
		if len(leads) == 0 {
			want = append(want, pr.fields["Name"]+"|NULL")
		}
		for _, l := range leads {
			want = append(want, pr.fields["Name"]+"|"+person[l].fields["Email"])
		}
	}
	got := rowTexts(t, db, "SELECT pr.Name, p.Email FROM Projects pr LEFT JOIN People p ON p.id = pr.Lead")
	if !slices.Equal(sorted(got), sorted(want)) {
		t.Errorf("LEFT JOIN: got %v\nwant %v", sorted(got), sorted(want))
	}
	// A condition on the right table in ON filters its rows before the match: every project stays.
	want = want[:0]
	for _, pr := range projects {
		email := "NULL"
		for _, l := range pr.links["Lead"] {
			if person[l].fields["Role"] == "Manager" {
				email = person[l].fields["Email"]
			}
		}
		want = append(want, pr.fields["Name"]+"|"+email)
	}
	got = rowTexts(t, db, "SELECT pr.Name, p.Email FROM Projects pr LEFT OUTER JOIN People p ON p.id = pr.Lead AND p.Role = 'Manager'")
	if !slices.Equal(sorted(got), sorted(want)) {
		t.Errorf("LEFT JOIN … AND: got %v\nwant %v", sorted(got), sorted(want))
	}
	// … and in WHERE it removes the NULL rows.
	got = rowTexts(t, db, "SELECT pr.Name, p.Email FROM Projects pr LEFT JOIN People p ON p.id = pr.Lead WHERE p.Email IS NULL")
	var wantNull []string
	for _, pr := range projects {
		if len(pr.links["Lead"]) == 0 {
			wantNull = append(wantNull, pr.fields["Name"]+"|NULL")
		}
	}
	if !slices.Equal(sorted(got), sorted(wantNull)) {
		t.Errorf("LEFT JOIN … IS NULL: got %v, want %v", got, wantNull)
	}

	// RIGHT JOIN: every person, with the projects they lead (NULL when none); columns in FROM's order.
	want = want[:0]
	leads := map[string][]string{}
	for _, pr := range projects {
		for _, l := range pr.links["Lead"] {
			leads[l] = append(leads[l], pr.fields["Name"])
		}
	}
	for _, p := range people {
		if len(leads[p.id]) == 0 {
			want = append(want, "NULL|"+p.fields["Email"])
		}
		for _, name := range leads[p.id] {
			want = append(want, name+"|"+p.fields["Email"])
		}
	}
	got = rowTexts(t, db, "SELECT pr.Name, p.Email FROM Projects pr RIGHT JOIN People p ON p.id = pr.Lead")
	if !slices.Equal(sorted(got), sorted(want)) {
		t.Errorf("RIGHT JOIN: got %v\nwant %v", sorted(got), sorted(want))
	}

	// Three tables, grouped: tasks per project lead's role.
	count := map[string]int{}
	for _, tk := range tasks {
		for _, prID := range tk.links["Project"] {
			for _, l := range project[prID].links["Lead"] {
				count[person[l].fields["Role"]]++
			}
		}
	}
	want = want[:0]
	for role, n := range count {
		want = append(want, fmt.Sprintf("%s|%d", role, n))
	}
	got = rowTexts(t, db, "SELECT p.Role, COUNT(*) FROM Tasks t JOIN Projects pr ON pr.id = t.Project JOIN People p ON p.id = pr.Lead GROUP BY p.Role ORDER BY p.Role")
	if !slices.Equal(got, sorted(want)) {
		t.Errorf("three tables: got %v, want %v", got, sorted(want))
	}

	// Self-join with USING: pairs of people with the same role.
	roles := map[string]int{}
	for _, p := range people {
		roles[p.fields["Role"]]++
	}
	pairs := 0
	for r, n := range roles {
		if r != "NULL" {
			pairs += n * n
		}
	}
	for _, q := range []string{
		"SELECT COUNT(*) FROM People a JOIN People b USING (Role)",
		"SELECT COUNT(*) FROM People a JOIN People b ON a.Role = b.Role",
		"SELECT COUNT(*) FROM People a CROSS JOIN People b WHERE a.Role = b.Role",
	} {
		if got := rowTexts(t, db, q); !slices.Equal(got, []string{fmt.Sprint(pairs)}) {
			t.Errorf("%s: got %v, want %d", q, got, pairs)
		}
	}
	if got := rowTexts(t, db, "SELECT COUNT(*) FROM People a CROSS JOIN Projects b"); !slices.Equal(got, []string{fmt.Sprint(len(people) * len(projects))}) {
		t.Errorf("CROSS JOIN: %v", got)
	}
	// A non-equality condition.
	lower := 0
	for _, a := range people {
		for _, b := range people {
			if a.fields["Email"] < b.fields["Email"] && a.fields["Role"] == "QA" && b.fields["Role"] == "QA" {
				lower++
			}
		}
	}
	if got := rowTexts(t, db, "SELECT COUNT(*) FROM People a JOIN People b ON a.Email < b.Email WHERE a.Role = 'QA' AND b.Role = 'QA'"); !slices.Equal(got, []string{fmt.Sprint(lower)}) {
		t.Errorf("non-equality join: got %v, want %d", got, lower)
	}

	// t.* and *: the columns of each table, named as the fields.
	rows, err := db.Query("SELECT p.*, pr.Name FROM Projects pr JOIN People p ON p.id = pr.Lead LIMIT 1")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	rows.Close()
	if len(cols) < 4 || cols[0] != "id" || cols[1] != "Name" || cols[len(cols)-1] != "Name" {
		t.Errorf("p.*, pr.Name columns: %v", cols)
	}
	rows, err = db.Query("SELECT * FROM People a JOIN People b ON a.id = b.id LIMIT 1")
	if err != nil {
		t.Fatal(err)
	}
	all, _ := rows.Columns()
	rows.Close()
	if len(all) != 2*(len(cols)-1) {
		t.Errorf("SELECT * of a self-join: %d columns %v, want twice People's %d", len(all), all, len(cols)-1)
	}
}

// TestJoinErrors: what MySQL refuses, refused with its reason; what is not built, refused by name.
func TestJoinErrors(t *testing.T) {
	db, _ := openDemo(t, "maxRows=1000")
	for _, tc := range []struct{ query, want string }{
		{"SELECT Name FROM Tasks t JOIN People p ON p.id = t.Assignee", "column 'Name' is ambiguous: tables t and p"},
		{"SELECT t.Name FROM Tasks t JOIN People p ON p.id = t.Assignee WHERE x.Name = 'a'", `no table or alias "x"`},
		{"SELECT t.Nope FROM Tasks t JOIN People p ON p.id = t.Assignee", `unknown column "Nope" in table "Tasks"`},
		{"SELECT 1 FROM Tasks t JOIN People t ON t.id = t.id", "not unique table/alias: 't'"},
		{"SELECT 1 FROM Tasks t, Projects pr RIGHT JOIN People p ON p.id = pr.Lead", "RIGHT JOIN after a comma join"},
		{"SELECT 1 FROM Tasks t LEFT JOIN (People p LEFT JOIN Projects pr ON pr.Lead = p.id) ON p.id = t.Assignee", "an outer join or USING around a parenthesised join"},
		{"SELECT 1 FROM People a JOIN People b USING (Role, Role)", "duplicate column name 'Role' in USING"},
		{"SELECT 1 FROM Tasks t JOIN People p USING (Nope)", "unknown column 'Nope'"},
		{"SELECT x.* FROM Tasks t JOIN People p ON p.id = t.Assignee", "unknown table 'x'"},
		{"SELECT 1 FROM Tasks t JOIN (SELECT id, Name AS id FROM People) p ON p.id = t.Assignee", "duplicate column name 'id' in the derived table p"},
	} {
		err := queryErr(db, tc.query)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.query, err, tc.want)
		}
	}
	// 300 × 300 rows pass maxRows=1000: an error naming the limit and the join, not an OOM.
	err := queryErr(db, "SELECT COUNT(*) FROM Tasks a CROSS JOIN Tasks b")
	var limit *engine.RowLimitError
	if !errors.As(err, &limit) || limit.Limit != 1000 || !strings.Contains(err.Error(), "join of Tasks a with Tasks b") {
		t.Fatalf("error %v, want a row limit error naming the join", err)
	}
}

// queryErr runs a query to its end and returns its error, from Query or from the rows.
func queryErr(db *sql.DB, query string, args ...any) error {
	rows, err := db.Query(query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

// TestSubqueries: IN / NOT IN with SQL's NULL rules, EXISTS / NOT EXISTS (correlated ones as
// semi- and anti-joins), scalar subqueries, against the answers computed in Go; IN (SELECT …) on
// ids pushes the values into the outer request.
func TestSubqueries(t *testing.T) {
	db, srv := openDemo(t, "")
	people := readDemo(t, db, "People", []string{"Name", "Role"}, nil)
	tasks := readDemo(t, db, "Tasks", []string{"Name", "Estimate Hours"}, []string{"Assignee"})
	role := map[string]string{}
	for _, p := range people {
		role[p.id] = p.fields["Role"]
	}
	qaTasks, unassigned := 0, 0
	hasTask := map[string]bool{}
	fixers := map[string]bool{}
	for _, tk := range tasks {
		if len(tk.links["Assignee"]) == 0 {
			unassigned++
		}
		for _, a := range tk.links["Assignee"] {
			hasTask[a] = true
			if role[a] == "QA" {
				qaTasks++
			}
			if strings.HasPrefix(tk.fields["Name"], "Fix ") {
				fixers[a] = true
			}
		}
	}
	idle := len(people) - len(hasTask)
	var fixerNames []string
	for _, p := range people {
		if fixers[p.id] {
			fixerNames = append(fixerNames, p.fields["Name"])
		}
	}
	notIn := "0" // NOT IN over a set holding NULL (an unassigned task) is never TRUE
	if unassigned == 0 {
		notIn = fmt.Sprint(idle)
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"SELECT COUNT(*) FROM Tasks WHERE Assignee IN (SELECT id FROM People WHERE Role = 'QA')", []string{fmt.Sprint(qaTasks)}},
		{"SELECT COUNT(*) FROM Tasks t WHERE EXISTS (SELECT 1 FROM People p WHERE p.id = t.Assignee AND p.Role = 'QA')", []string{fmt.Sprint(qaTasks)}},
		{"SELECT COUNT(*) FROM People p WHERE NOT EXISTS (SELECT * FROM Tasks t WHERE t.Assignee = p.id)", []string{fmt.Sprint(idle)}},
		{"SELECT COUNT(*) FROM People p WHERE EXISTS (SELECT * FROM Tasks t WHERE p.id = t.Assignee)", []string{fmt.Sprint(len(hasTask))}},
		{"SELECT COUNT(*) FROM People WHERE id NOT IN (SELECT Assignee FROM Tasks)", []string{notIn}},
		{"SELECT COUNT(*) FROM People WHERE id NOT IN (SELECT Assignee FROM Tasks WHERE Assignee IS NOT NULL)", []string{fmt.Sprint(idle)}},
		{"SELECT COUNT(*) FROM People WHERE (id IN (SELECT Assignee FROM Tasks)) IS NULL", []string{fmt.Sprint(idle * min(unassigned, 1))}},
		{"SELECT COUNT(*) FROM People WHERE EXISTS (SELECT 1 FROM Tasks WHERE Name = 'no such task')", []string{"0"}},
		{"SELECT COUNT(*) FROM People WHERE NOT EXISTS (SELECT 1 FROM Tasks WHERE Name = 'no such task')", []string{fmt.Sprint(len(people))}},
		{"SELECT (SELECT COUNT(*) FROM Tasks), (SELECT Name FROM People WHERE Name = 'nobody')", []string{fmt.Sprint(len(tasks)) + "|NULL"}},
		{"SELECT Name FROM People WHERE id IN (SELECT Assignee FROM Tasks WHERE Name LIKE 'Fix %')", fixerNames},
	} {
		srv.ResetRequests()
		got := rowTexts(t, db, tc.query)
		if !slices.Equal(sorted(got), sorted(tc.want)) {
			t.Errorf("%s: got %v, want %v", tc.query, got, tc.want)
		}
	}
	// The last one: Tasks filtered first, then People by the ids it gave, OR(RECORD_ID()=…).
	reqs := dataRequests(srv)
	if len(reqs) != 2 || !strings.Contains(reqs[1].Path, "tblPEOPLE") || !strings.HasPrefix(formulaOf(t, reqs[1]), "OR(RECORD_ID()='rec") {
		t.Errorf("IN (SELECT …) requests: %v, want Tasks then People by id", reqs)
	}

	// Above the average: a scalar subquery in WHERE.
	sum, n := 0.0, 0
	for _, tk := range tasks {
		if v := tk.fields["Estimate Hours"]; v != "NULL" {
			var f float64
			fmt.Sscan(v, &f)
			sum += f
			n++
		}
	}
	above := 0
	for _, tk := range tasks {
		if v := tk.fields["Estimate Hours"]; v != "NULL" {
			var f float64
			fmt.Sscan(v, &f)
			if f > sum/float64(n) {
				above++
			}
		}
	}
	if got := rowTexts(t, db, "SELECT COUNT(*) FROM Tasks WHERE `Estimate Hours` > (SELECT AVG(`Estimate Hours`) FROM Tasks)"); !slices.Equal(got, []string{fmt.Sprint(above)}) {
		t.Errorf("above the average: got %v, want %d", got, above)
	}

	for _, tc := range []struct{ query, want string }{
		{"SELECT Name FROM People WHERE id = (SELECT Assignee FROM Tasks)", "subquery returns more than 1 row"},
		{"SELECT Name FROM People WHERE id IN (SELECT id, Name FROM People)", "operand should contain 1 column(s)"},
		{"SELECT Name FROM People WHERE `Hourly Rate` IN (SELECT Name FROM People)", "cannot compare"},
	} {
		err := queryErr(db, tc.query)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.query, err, tc.want)
		}
	}
}

// TestUnionDerivedWith: UNION / UNION ALL with ORDER BY and LIMIT on the whole, derived tables and
// WITH queries, against answers computed in Go; the branches of a UNION and the scans of a join
// without keys to push are requested at the same time.
func TestUnionDerivedWith(t *testing.T) {
	db, srv := openDemo(t, "")
	people := readDemo(t, db, "People", []string{"Name", "Role"}, nil)
	projects := readDemo(t, db, "Projects", []string{"Name", "Status"}, []string{"Lead"})
	tasks := readDemo(t, db, "Tasks", []string{"Name"}, []string{"Assignee"})

	var list []string
	roles, statuses := map[string]int{}, map[string]bool{}
	for _, p := range people {
		if p.fields["Role"] == "QA" {
			list = append(list, p.fields["Name"]+"|person")
		}
		roles[p.fields["Role"]]++
	}
	for _, p := range projects {
		if p.fields["Status"] == "Done" {
			list = append(list, p.fields["Name"]+"|project")
		}
		statuses[p.fields["Status"]] = true
	}
	list = sorted(list)
	distinct := map[string]bool{}
	for r := range roles {
		distinct[r] = true
	}
	for s := range statuses {
		distinct[s] = true
	}
	var words []string
	for w := range distinct {
		words = append(words, w)
	}
	perPerson := map[string]int{}
	for _, tk := range tasks {
		for _, a := range tk.links["Assignee"] {
			perPerson[a]++
		}
	}
	busy := 0
	for _, n := range perPerson {
		if n >= 10 {
			busy++
		}
	}
	bigRoles := []string{}
	for r, n := range roles {
		if n > 5 {
			bigRoles = append(bigRoles, fmt.Sprintf("%s|%d", r, n))
		}
	}

	for _, tc := range []struct {
		query   string
		args    []any
		want    []string
		ordered bool
	}{
		{query: "SELECT Name, 'person' FROM People WHERE Role = 'QA' UNION ALL SELECT Name, 'project' FROM Projects WHERE Status = 'Done' ORDER BY 1, 2", want: list, ordered: true},
		{query: "(SELECT Name, 'person' AS kind FROM People WHERE Role = 'QA') UNION ALL (SELECT Name, 'project' FROM Projects WHERE Status = 'Done') ORDER BY kind DESC, Name LIMIT 2",
			want: func() []string {
				var ps []string
				for _, l := range list {
					if strings.HasSuffix(l, "|project") {
						ps = append(ps, l)
					}
				}
				return ps[:min(2, len(ps))]
			}(), ordered: true},
		{query: "SELECT Role FROM People UNION SELECT Status FROM Projects", want: words},
		{query: "SELECT Role FROM People UNION DISTINCT SELECT Role FROM People UNION ALL SELECT 'QA'", want: append(func() []string {
			var rs []string
			for r := range roles {
				rs = append(rs, r)
			}
			return rs
		}(), "QA")},
		{query: "SELECT d.Role, d.n FROM (SELECT Role, COUNT(*) AS n FROM People GROUP BY Role) AS d WHERE d.n > 5", want: bigRoles},
		{query: "SELECT COUNT(*) FROM People p JOIN (SELECT Assignee, COUNT(*) AS n FROM Tasks GROUP BY Assignee) d ON p.id = d.Assignee WHERE d.n >= 10", want: []string{fmt.Sprint(busy)}},
		{query: "WITH r (role, n) AS (SELECT Role, COUNT(*) FROM People GROUP BY Role), big AS (SELECT role, n FROM r WHERE n > ?) SELECT * FROM big", args: []any{5}, want: bigRoles},
		{query: "WITH load AS (SELECT Assignee, COUNT(*) AS n FROM Tasks GROUP BY Assignee) SELECT COUNT(*) FROM People p JOIN load ON p.id = load.Assignee WHERE load.n >= ?", args: []any{10}, want: []string{fmt.Sprint(busy)}},
	} {
		got := rowTexts(t, db, tc.query, tc.args...)
		want := tc.want
		if !tc.ordered {
			got, want = sorted(got), sorted(want)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s:\ngot  %v\nwant %v", tc.query, got, want)
		}
	}

	// Both branches of a UNION are requested before either is read to its end.
	srv.ResetRequests()
	rowTexts(t, db, "SELECT Name FROM People UNION ALL SELECT Name FROM Projects")
	if reqs := dataRequests(srv); len(reqs) != 2 {
		t.Errorf("UNION requests: %v", reqs)
	}

	for _, tc := range []struct{ query, want string }{
		{"SELECT Name, Role FROM People UNION SELECT Name FROM Projects", "different number of columns"},
		{"SELECT Name FROM People UNION SELECT Budget FROM Projects", "CAST"},
		{"SELECT Name FROM People UNION SELECT Name FROM Projects ORDER BY People.Name", "cannot be used in the ORDER BY of a UNION"},
		{"WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r", "WITH RECURSIVE"},
		{"WITH a AS (SELECT 1), a AS (SELECT 2) SELECT * FROM a", "not unique"},
		{"WITH a (x, y) AS (SELECT 1) SELECT * FROM a", "names 2 columns"},
		{"SELECT * FROM (SELECT Name FROM People) AS d WHERE d.Nope = 1", `unknown column "Nope" in "d"`},
	} {
		err := queryErr(db, tc.query)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.query, err, tc.want)
		}
	}
}

// TestJoinExplain: EXPLAIN shows the join order, which table is read first and how its keys are
// pushed into the other's request.
func TestJoinExplain(t *testing.T) {
	db, _ := openDemo(t, "")
	text := strings.Join(rowTexts(t, db, "EXPLAIN SELECT t.Name, p.Name FROM Tasks t JOIN People p ON p.id = t.Assignee WHERE p.Role = 'QA'"), "\n")
	for _, want := range []string{
		"operator|  join: inner: join People as p; hash on t.Assignee = p.id; reads People p first, then pushes its distinct keys into Tasks t's request as OR(FIND('primary value', {Assignee}&''), …)",
		"in batches of up to 12000 characters, unless a scan takes fewer requests",
		"operator|    scan: Tasks\noperator|    scan: People",
		"filterByFormula|{Role}='QA'",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, text)
		}
	}
	text = strings.Join(rowTexts(t, db, "EXPLAIN SELECT p.Email, t.Name FROM People p JOIN Tasks t ON p.id = t.Assignee WHERE t.Name LIKE 'Fix %'"), "\n")
	if !strings.Contains(text, "reads Tasks t first, then pushes its distinct keys into People p's request as OR(RECORD_ID()='rec…', …)") {
		t.Errorf("EXPLAIN of the id bind join:\n%s", text)
	}
	text = strings.Join(rowTexts(t, db, "EXPLAIN SELECT pr.Name, p.Email FROM Projects pr LEFT JOIN People p ON p.id = pr.Lead"), "\n")
	if !strings.Contains(text, "reads Projects pr first, then pushes their distinct keys into People p's request as OR(RECORD_ID()='rec…', …)") {
		t.Errorf("EXPLAIN of a LEFT JOIN:\n%s", text)
	}
}

// TestJoinReadsFilteredTableFirst: written with the filtered table first, the join still reads it
// first and pushes its keys into the other table's request.
func TestJoinReadsFilteredTableFirst(t *testing.T) {
	db, srv := openDemo(t, "")
	warmSchema(t, db, srv)
	a := rowTexts(t, db, "SELECT p.Name, t.Name FROM People p JOIN Tasks t ON p.id = t.Assignee WHERE p.Role = 'QA'")
	reqs := dataRequests(srv)
	if len(reqs) != 2 || formulaOf(t, reqs[0]) != "{Role}='QA'" || !strings.HasPrefix(formulaOf(t, reqs[1]), "OR(FIND(") {
		t.Fatalf("requests %v: want People with {Role}='QA', then the linked tasks", reqs)
	}
	b := rowTexts(t, db, "SELECT p.Name, t.Name FROM Tasks t JOIN People p ON p.id = t.Assignee WHERE p.Role = 'QA'")
	if !slices.Equal(sorted(a), sorted(b)) || len(a) == 0 {
		t.Fatalf("the two orders differ: %v / %v", a, b)
	}
	rows, err := db.Query("SELECT * FROM People p JOIN Tasks t ON p.id = t.Assignee WHERE p.Role = 'QA' LIMIT 1")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	rows.Close()
	if cols[1] != "Name" || cols[2] != "Email" { // People's columns first, as written
		t.Errorf("SELECT * columns %v", cols)
	}
}

// TestBlankLinkIsNull: a blank link compared with an id is NULL, as JSON_CONTAINS of NULL is in
// MySQL (found by the MariaDB oracle, seeds 8052, 14722, 22226): NOT (Assignee = 'x') keeps no
// blank-link row, and (Assignee = 'x') IS NOT FALSE keeps every one.
func TestBlankLinkIsNull(t *testing.T) {
	db, _ := openDemo(t, "")
	count := func(where string) int {
		t.Helper()
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM Tasks WHERE " + where).Scan(&n); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		return n
	}
	blank, all := count("Assignee IS NULL"), count("1 = 1")
	if blank == 0 || blank == all {
		t.Fatalf("the demo base should have tasks with and without an assignee (%d of %d blank)", blank, all)
	}
	if got := count("NOT (Assignee = 'recNOSUCH0000000')"); got != all-blank {
		t.Errorf("NOT (Assignee = id): %d rows, want %d (every task with an assignee, no blank one)", got, all-blank)
	}
	if got := count("(Assignee = 'recNOSUCH0000000') IS NOT FALSE"); got != blank {
		t.Errorf("(Assignee = id) IS NOT FALSE: %d rows, want the %d blank ones (NULL is not FALSE)", got, blank)
	}
}
