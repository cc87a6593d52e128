package airsql

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/airsql/airsql/engine"
)

// TestCorrelatedSubqueries: subqueries that read columns of the outer query — a count per row in
// the select list, a comparison with a per-group average, correlated IN / NOT IN with SQL's NULL
// rules, EXISTS with HAVING or LIMIT, correlation through a linked-record field, an outer join or
// grouped outer query, two levels of nesting — against answers computed in Go from whole-table
// reads; each table is requested once (one scan, its pages), however many outer rows there are.
func TestCorrelatedSubqueries(t *testing.T) {
	db, srv := openDemo(t, "")
	people := readDemo(t, db, "People", []string{"Name", "Role"}, nil)
	projects := readDemo(t, db, "Projects", []string{"Name"}, []string{"Lead"})
	tasks := readDemo(t, db, "Tasks", []string{"Name", "Priority", "Estimate Hours", "Done"}, []string{"Project", "Assignee"})
	num := func(s string) (float64, bool) {
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil
	}
	byProject := map[string][]demoRecord{}
	byAssignee := map[string][]demoRecord{}
	for _, tk := range tasks {
		for _, p := range tk.links["Project"] {
			byProject[p] = append(byProject[p], tk)
		}
		for _, a := range tk.links["Assignee"] {
			byAssignee[a] = append(byAssignee[a], tk)
		}
	}
	projectName := map[string]string{}
	for _, p := range projects {
		projectName[p.id] = p.fields["Name"]
	}

	var perProject, perProjectEmpty, leadIn, leadNotIn, countMax []string
	for _, p := range projects {
		perProject = append(perProject, fmt.Sprintf("%s|%d", p.fields["Name"], len(byProject[p.id])))
		top := "NULL"
		for _, tk := range byProject[p.id] {
			if f, ok := num(tk.fields["Priority"]); ok {
				if g, ok := num(top); !ok || f > g {
					top = tk.fields["Priority"]
				}
			}
		}
		countMax = append(countMax, fmt.Sprintf("%s|%d|%s", p.fields["Name"], len(byProject[p.id]), top))
		perProjectEmpty = append(perProjectEmpty, p.fields["Name"]+"|0|NULL|NULL")
		lead := p.links["Lead"][0]
		in, null := false, false
		for _, tk := range byProject[p.id] {
			if len(tk.links["Assignee"]) == 0 {
				null = true
			}
			if slices.Contains(tk.links["Assignee"], lead) {
				in = true
			}
		}
		if in {
			leadIn = append(leadIn, p.fields["Name"])
		} else if !null || len(byProject[p.id]) == 0 {
			leadNotIn = append(leadNotIn, p.fields["Name"])
		}
	}
	above := 0
	for _, tk := range tasks {
		if len(tk.links["Project"]) == 0 {
			continue
		}
		sum, n := 0.0, 0
		for _, o := range byProject[tk.links["Project"][0]] {
			if f, ok := num(o.fields["Estimate Hours"]); ok {
				sum, n = sum+f, n+1
			}
		}
		if f, ok := num(tk.fields["Estimate Hours"]); ok && n > 0 && f > sum/float64(n) {
			above++
		}
	}
	var busy, withDone, withPriority, taskProject []string
	for _, p := range people {
		if len(byAssignee[p.id]) > 8 {
			busy = append(busy, p.fields["Name"])
		}
		done, prio := false, false
		for _, tk := range byAssignee[p.id] {
			done = done || tk.fields["Done"] == "true"
			_, ok := num(tk.fields["Priority"])
			prio = prio || ok
		}
		if done {
			withDone = append(withDone, p.fields["Name"])
		}
		if prio {
			withPriority = append(withPriority, p.fields["Name"])
		}
	}
	for _, tk := range tasks {
		name := "NULL"
		if ps := tk.links["Project"]; len(ps) > 0 {
			name = projectName[ps[0]]
		}
		taskProject = append(taskProject, tk.fields["Name"]+"|"+name)
	}
	var leadTasks []string
	for _, p := range projects {
		lead := p.links["Lead"][0]
		n := 0
		for _, tk := range byProject[p.id] {
			if slices.Contains(tk.links["Assignee"], lead) {
				n++
			}
		}
		for _, pe := range people {
			if pe.id == lead {
				leadTasks = append(leadTasks, fmt.Sprintf("%s|%s|%d", p.fields["Name"], pe.fields["Name"], n))
			}
		}
	}
	roles := map[string]int{}
	for _, p := range people {
		roles[p.fields["Role"]]++
	}
	var perRole []string
	for r, n := range roles {
		same := n
		if r == "NULL" {
			same = 0 // NULL = NULL is not true
		}
		perRole = append(perRole, fmt.Sprintf("%s|%d|%d", r, n, same))
	}

	for _, tc := range []struct {
		query string
		want  []string
		reqs  map[string]int // requests per table
	}{
		{"SELECT p.Name, (SELECT COUNT(*) FROM Tasks t WHERE t.Project = p.id) AS n FROM Projects p", perProject,
			map[string]int{"tblPROJECTS": 1, "tblTASKS": 3}},
		// Two subqueries on Tasks read it once (their fields joined in one request).
		{"SELECT p.Name, (SELECT COUNT(*) FROM Tasks t WHERE t.Project = p.id), (SELECT MAX(t.Priority) FROM Tasks t WHERE t.Project = p.id) FROM Projects p",
			countMax, map[string]int{"tblPROJECTS": 1, "tblTASKS": 3}},
		// An outer column in a grouped subquery's select list is one value per run.
		{"SELECT p.Name, (SELECT COUNT(*) + CHAR_LENGTH(p.Name) - CHAR_LENGTH(p.Name) FROM Tasks t WHERE t.Project = p.id) FROM Projects p", perProject, nil},
		// COUNT over no rows is 0, other aggregates and a scalar without a row NULL.
		{"SELECT p.Name, (SELECT COUNT(*) FROM Tasks t WHERE t.Project = p.id AND t.Priority > 100), " +
			"(SELECT MAX(t.Priority) FROM Tasks t WHERE t.Project = p.id AND t.Priority > 100), " +
			"(SELECT t.Name FROM Tasks t WHERE t.Project = p.id AND t.Priority > 100) FROM Projects p", perProjectEmpty,
			map[string]int{"tblPROJECTS": 1, "tblTASKS": 1}}, // the three subqueries send one request: read once
		{"SELECT COUNT(*) FROM Tasks t WHERE t.`Estimate Hours` > (SELECT AVG(t2.`Estimate Hours`) FROM Tasks t2 WHERE t2.Project = t.Project)",
			[]string{fmt.Sprint(above)}, map[string]int{"tblTASKS": 6}},
		{"SELECT pr.Name FROM Projects pr WHERE pr.Lead IN (SELECT t.Assignee FROM Tasks t WHERE t.Project = pr.id)", leadIn,
			map[string]int{"tblPROJECTS": 1, "tblTASKS": 3}},
		{"SELECT pr.Name FROM Projects pr WHERE pr.Lead NOT IN (SELECT t.Assignee FROM Tasks t WHERE t.Project = pr.id)", leadNotIn, nil},
		{"SELECT p.Name FROM People p WHERE EXISTS (SELECT COUNT(*) FROM Tasks t WHERE t.Assignee = p.id HAVING COUNT(*) > 8)", busy,
			map[string]int{"tblPEOPLE": 1, "tblTASKS": 3}},
		{"SELECT p.Name FROM People p WHERE EXISTS (SELECT 1 FROM Tasks t WHERE t.Assignee = p.id AND t.Done = TRUE LIMIT 1)", withDone, nil},
		{"SELECT COUNT(*) FROM People p WHERE NOT EXISTS (SELECT COUNT(*) FROM Tasks t WHERE t.Assignee = p.id)", []string{"0"}, nil},
		// The outer column is a link: the subquery reads the project it holds.
		{"SELECT t.Name, (SELECT p.Name FROM Projects p WHERE p.id = t.Project) FROM Tasks t", taskProject,
			map[string]int{"tblPROJECTS": 1, "tblTASKS": 3}},
		{"SELECT p.Name, pe.Name, (SELECT COUNT(*) FROM Tasks t WHERE t.Project = p.id AND t.Assignee = pe.id) FROM Projects p JOIN People pe ON pe.id = p.Lead",
			leadTasks, nil},
		{"SELECT p.Role, COUNT(*), (SELECT COUNT(*) FROM People q WHERE q.Role = p.Role) FROM People p GROUP BY p.Role", perRole,
			map[string]int{"tblPEOPLE": 2}},
		// Two levels: the innermost subquery reads the outermost query's p.id.
		{"SELECT p.Name FROM People p WHERE EXISTS (SELECT 1 FROM Tasks t WHERE t.Assignee = p.id AND " +
			"t.Priority = (SELECT MAX(t2.Priority) FROM Tasks t2 WHERE t2.Assignee = p.id))", withPriority, nil},
	} {
		t.Run(tc.query, func(t *testing.T) {
			srv.ResetRequests()
			got := rowTexts(t, db, tc.query)
			if !slices.Equal(sorted(got), sorted(tc.want)) {
				t.Errorf("got %d rows %v\nwant %d rows %v", len(got), sorted(got), len(tc.want), sorted(tc.want))
			}
			if tc.reqs == nil {
				return
			}
			count := map[string]int{}
			for _, r := range dataRequests(srv) {
				for table := range tc.reqs {
					if strings.Contains(r.Path, table) {
						count[table]++
					}
				}
			}
			for table, n := range tc.reqs {
				if count[table] != n {
					t.Errorf("%d requests to %s, want %d (one scan, its pages): %v", count[table], table, n, dataRequests(srv))
				}
			}
		})
	}

	// The uncorrelated conditions go into the subquery's one request.
	srv.ResetRequests()
	rowTexts(t, db, "SELECT p.Name FROM People p WHERE EXISTS (SELECT 1 FROM Tasks t WHERE t.Assignee = p.id AND t.Done = TRUE LIMIT 1)")
	for _, r := range dataRequests(srv) {
		if strings.Contains(r.Path, "tblTASKS") && formulaOf(t, r) != "{Done}" {
			t.Errorf("Tasks request formula %q, want {Done}", formulaOf(t, r))
		}
	}

	// EXPLAIN says how the subquery runs.
	plan := strings.Join(rowTexts(t, db, "EXPLAIN SELECT p.Name, (SELECT COUNT(*) FROM Tasks t WHERE t.Project = p.id) FROM Projects p"), "\n")
	for _, want := range []string{"correlated subquery", "reads p.id of the outer query", "indexed by t.Project holds p.id"} {
		if !strings.Contains(plan, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, plan)
		}
	}

	for _, tc := range []struct{ query, want string }{
		{"SELECT p.Name, (SELECT t.Name FROM Tasks t WHERE t.Project = p.id) FROM Projects p", "subquery returns more than 1 row"},
		{"SELECT p.Name FROM Projects p WHERE p.id IN (SELECT t.Project, t.Name FROM Tasks t WHERE t.Project = p.id)", "operand should contain 1 column(s)"},
		{"SELECT p.Name FROM Projects p WHERE EXISTS (SELECT 1 FROM Tasks t WHERE t.Project = p.nothing)", "unknown column"},
		{"SELECT p.Name FROM Projects p WHERE EXISTS (SELECT 1 FROM (SELECT Name FROM Tasks t WHERE t.Project = p.id) d)", "p.id"},
		{"SELECT p.Role, (SELECT COUNT(*) FROM People q WHERE q.Name = p.Name) FROM People p GROUP BY p.Role", "GROUP BY"},
	} {
		err := queryErr(db, tc.query)
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.want)) {
			t.Errorf("%s: error %v, want one containing %q", tc.query, err, tc.want)
		}
	}

	// The kept rows count against maxRows.
	small, _ := openDemo(t, "maxRows=100")
	err := queryErr(small, "SELECT p.Name, (SELECT COUNT(*) FROM Tasks t WHERE t.Project = p.id) FROM Projects p")
	var rl *engine.RowLimitError
	if !errors.As(err, &rl) || rl.Limit != 100 || !strings.Contains(err.Error(), "correlated subquery") {
		t.Errorf("maxRows=100: error %v, want a RowLimitError naming the limit and the correlated subquery", err)
	}
}
