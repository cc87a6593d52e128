package airsql

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestUsingNaturalNested: USING and NATURAL make one column of the same-named columns (first in
// SELECT *, then the left side's other columns, then the joined table's; for a RIGHT JOIN the
// joined table's before the left side's), a bare name reads it without ambiguity, and NATURAL
// joins on every column in common; an inner join of a parenthesised inner join gives the rows of
// the flat join. Checked against answers computed in Go.
func TestUsingNaturalNested(t *testing.T) {
	db, _ := openDemo(t, "")
	people := readDemo(t, db, "People", []string{"Name", "Role"}, nil)
	projects := readDemo(t, db, "Projects", []string{"Name"}, []string{"Lead"})
	tasks := readDemo(t, db, "Tasks", []string{"Name"}, []string{"Assignee", "Project"})
	roles := map[string]int{}
	maxName := map[string]string{}
	for _, p := range people {
		r := p.fields["Role"]
		roles[r]++
		if p.fields["Name"] > maxName[r] {
			maxName[r] = p.fields["Name"]
		}
	}
	var squared, natural, naturalLeft, naturalRight []string
	for r, n := range roles {
		if r == "NULL" {
			continue // NULL never matches
		}
		squared = append(squared, fmt.Sprintf("%s|%d", r, n*n))
		natural = append(natural, fmt.Sprintf("%s|%d|%s", r, n, maxName[r]))
		q := "NULL"
		if r == "QA" {
			q = fmt.Sprint(n)
		}
		naturalLeft = append(naturalLeft, fmt.Sprintf("%s|%d|%s", r, n, q))
		naturalRight = append(naturalRight, fmt.Sprintf("%s|%d|%s", r, n, q))
	}
	if n := roles["NULL"]; n > 0 {
		naturalLeft = append(naturalLeft, fmt.Sprintf("NULL|%d|NULL", n))
		naturalRight = append(naturalRight, fmt.Sprintf("NULL|%d|NULL", n))
	}
	lead := map[string]string{}
	for _, pr := range projects {
		lead[pr.id] = pr.links["Lead"][0]
	}
	name := map[string]string{}
	for _, p := range people {
		name[p.id] = p.fields["Name"]
	}
	var ledTasks []string
	for _, tk := range tasks {
		for _, a := range tk.links["Assignee"] {
			for _, pr := range tk.links["Project"] {
				if lead[pr] == a {
					ledTasks = append(ledTasks, tk.fields["Name"]+"|"+name[a])
				}
			}
		}
	}

	const all = "(SELECT Role, COUNT(*) AS n FROM People GROUP BY Role)"
	const qa = "(SELECT Role, COUNT(*) AS q FROM People WHERE Role = 'QA' GROUP BY Role)"
	for _, tc := range []struct {
		query   string
		columns []string // nil: not checked
		want    []string
	}{
		{"SELECT Role, COUNT(*) FROM People a JOIN People b USING (Role) GROUP BY Role", []string{"Role", "COUNT(*)"}, squared},
		{"SELECT * FROM " + all + " x NATURAL JOIN (SELECT Role, MAX(Name) AS m FROM People GROUP BY Role) y", []string{"Role", "n", "m"}, natural},
		{"SELECT * FROM " + all + " x NATURAL LEFT JOIN " + qa + " y", []string{"Role", "n", "q"}, naturalLeft},
		{"SELECT * FROM " + qa + " y NATURAL RIGHT JOIN " + all + " x", []string{"Role", "n", "q"}, naturalRight},
		{"SELECT * FROM " + qa + " y RIGHT JOIN " + all + " x USING (Role)", []string{"Role", "n", "q"}, naturalRight},
		{"SELECT Role, n, q FROM " + qa + " y JOIN (SELECT 1 AS k) z RIGHT JOIN " + all + " x USING (Role)", nil, naturalRight},
		{"SELECT COUNT(*) FROM Tasks t NATURAL JOIN People p", nil, []string{"0"}},
		{"SELECT t.Name, p.Name FROM Tasks t JOIN (People p JOIN Projects pr ON pr.Lead = p.id) ON p.id = t.Assignee AND pr.id = t.Project", nil, ledTasks},
		{"SELECT t.Name, p.Name FROM Tasks t CROSS JOIN (People p JOIN Projects pr ON pr.Lead = p.id) WHERE p.id = t.Assignee AND pr.id = t.Project", nil, ledTasks},
	} {
		t.Run(tc.query, func(t *testing.T) {
			rows, err := db.Query(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			cols, _ := rows.Columns()
			rows.Close()
			if tc.columns != nil && !slices.Equal(cols, tc.columns) {
				t.Errorf("columns %v, want %v", cols, tc.columns)
			}
			got := rowTexts(t, db, tc.query)
			if !slices.Equal(sorted(got), sorted(tc.want)) {
				t.Errorf("got %d rows %v\nwant %d rows %v", len(got), sorted(got), len(tc.want), sorted(tc.want))
			}
		})
	}

	// SELECT * over USING: the common column, then each table's others in FROM order.
	rows, err := db.Query("SELECT * FROM People a JOIN Projects b USING (Name) LIMIT 1")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	rows.Close()
	if len(cols) < 3 || cols[0] != "Name" || cols[1] != "id" || slices.Index(cols[1:], "Name") >= 0 {
		t.Errorf("SELECT * … USING (Name): columns %v, want Name first and once", cols)
	}
	if err := queryErr(db, "SELECT Name FROM People a JOIN Projects b USING (Role)"); err == nil || !strings.Contains(err.Error(), "'Role' in 'from clause'") {
		t.Errorf("USING a column one side lacks: %v", err)
	}
}

// TestUsingNaturalColumnsAsMariaDB: the columns and rows of USING and NATURAL joins, as MariaDB
// 10/11 answers them for t1 (a, b, c) and t2 (d, c, a) (recorded from mariadbd): the common
// columns in the order of the side whose rows are all kept, then that side's other columns, then
// the other side's.
func TestUsingNaturalColumnsAsMariaDB(t *testing.T) {
	db, _ := openDemo(t, "")
	const t1 = "(SELECT 1 AS a, 10 AS b, 100 AS c UNION ALL SELECT 2, 20, 200) t1"
	const t2 = "(SELECT 7 AS d, 100 AS c, 1 AS a UNION ALL SELECT 8, 300, 3) t2"
	for _, tc := range []struct {
		join    string
		columns string
		rows    []string
	}{
		{"NATURAL JOIN", "a c b d", []string{"1|100|10|7"}},
		{"NATURAL LEFT JOIN", "a c b d", []string{"1|100|10|7", "2|200|20|NULL"}},
		{"NATURAL RIGHT JOIN", "c a d b", []string{"100|1|7|10", "300|3|8|NULL"}},
		{"RIGHT JOIN %s USING (c)", "c d a a b", []string{"100|7|1|1|10", "300|8|3|NULL|NULL"}},
		{"JOIN %s USING (c, a)", "a c b d", []string{"1|100|10|7"}},
		{"LEFT JOIN %s USING (a)", "a b c d c", []string{"1|10|100|7|100", "2|20|200|NULL|NULL"}},
		{"RIGHT JOIN %s USING (a)", "a d c b c", []string{"1|7|100|10|100", "3|8|300|NULL|NULL"}},
	} {
		join := tc.join
		if !strings.Contains(join, "%s") {
			join += " %s"
		}
		query := "SELECT * FROM " + t1 + " " + fmt.Sprintf(join, t2)
		rows, err := db.Query(query)
		if err != nil {
			t.Errorf("%s: %v", query, err)
			continue
		}
		cols, _ := rows.Columns()
		rows.Close()
		if got := strings.Join(cols, " "); got != tc.columns {
			t.Errorf("%s: columns %s, want %s", tc.join, got, tc.columns)
		}
		if got := rowTexts(t, db, query); !slices.Equal(sorted(got), sorted(tc.rows)) {
			t.Errorf("%s: rows %v, want %v", tc.join, got, tc.rows)
		}
	}
	if got := rowTexts(t, db, "SELECT a FROM "+t1+" RIGHT JOIN "+t2+" USING (a)"); !slices.Equal(sorted(got), []string{"1", "3"}) {
		t.Errorf("a bare USING column of a RIGHT JOIN: %v, want the right table's 1 and 3", got)
	}
}

// TestLeftJoinOfParenthesisedJoin: a LEFT JOIN (b JOIN c ON x) ON y keeps every row of a, with
// the rows of the inner join b ⋈ c where y holds and NULL for both tables where none does; a
// WHERE condition on b or c is checked after it. Checked against the join computed in Go.
func TestLeftJoinOfParenthesisedJoin(t *testing.T) {
	db, _ := openDemo(t, "")
	people := readDemo(t, db, "People", []string{"Name"}, nil)
	projects := readDemo(t, db, "Projects", []string{"Name"}, []string{"Lead"})
	tasks := readDemo(t, db, "Tasks", []string{"Name"}, []string{"Assignee"})
	name := map[string]string{}
	for _, p := range people {
		name[p.id] = p.fields["Name"]
	}
	var want, idle []string
	for _, pr := range projects {
		lead := pr.links["Lead"][0]
		n := 0
		for _, tk := range tasks {
			if slices.Contains(tk.links["Assignee"], lead) {
				want = append(want, pr.fields["Name"]+"|"+name[lead]+"|"+tk.fields["Name"])
				n++
			}
		}
		if n == 0 {
			want = append(want, pr.fields["Name"]+"|NULL|NULL")
			idle = append(idle, pr.fields["Name"])
		}
	}
	const q = "SELECT pr.Name, p.Name, t.Name FROM Projects pr LEFT JOIN (People p JOIN Tasks t ON t.Assignee = p.id) ON p.id = pr.Lead"
	if got := rowTexts(t, db, q); !slices.Equal(sorted(got), sorted(want)) {
		t.Errorf("got %d rows %v\nwant %d rows %v", len(got), sorted(got), len(want), sorted(want))
	}
	if got := rowTexts(t, db, "SELECT pr.Name FROM Projects pr LEFT JOIN (People p JOIN Tasks t ON t.Assignee = p.id) ON p.id = pr.Lead WHERE t.id IS NULL"); !slices.Equal(sorted(got), sorted(idle)) {
		t.Errorf("WHERE t.id IS NULL: got %v, want %v", got, idle)
	}
	plan := strings.Join(rowTexts(t, db, "EXPLAIN "+q), "\n")
	if !strings.Contains(plan, "join: left:") || !strings.Contains(plan, "join: inner:") {
		t.Errorf("EXPLAIN:\n%s", plan)
	}
}
