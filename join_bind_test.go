package airsql

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestBindLaterJoins: the keys of the rows so far are pushed into the request of a table joined
// after the first join, and into the right table of a LEFT JOIN — ids exactly, a link as its
// records' primary values (a superset the join checks again) — unless the table's known size says
// one request reads it whole. Rows checked against joins computed in Go.
func TestBindLaterJoins(t *testing.T) {
	ref, _ := openDemo(t, "")
	db, srv := openDemo(t, "") // no table size learnt yet: one batch of keys is always pushed
	people := readDemo(t, ref, "People", []string{"Name", "Role", "Email"}, nil)
	projects := readDemo(t, ref, "Projects", []string{"Name", "Status"}, []string{"Lead"})
	tasks := readDemo(t, ref, "Tasks", []string{"Name"}, []string{"Assignee", "Project"})
	person := map[string]demoRecord{}
	for _, p := range people {
		person[p.id] = p
	}
	project := map[string]demoRecord{}
	for _, pr := range projects {
		project[pr.id] = pr
	}
	var three, leftLead, leftTasks []string
	for _, tk := range tasks {
		for _, a := range tk.links["Assignee"] {
			if person[a].fields["Role"] != "QA" {
				continue
			}
			for _, pr := range tk.links["Project"] {
				three = append(three, tk.fields["Name"]+"|"+person[a].fields["Name"]+"|"+project[pr].fields["Name"])
			}
		}
	}
	for _, pr := range projects {
		if pr.fields["Status"] == "Done" {
			leftLead = append(leftLead, pr.fields["Name"]+"|"+person[pr.links["Lead"][0]].fields["Email"])
		}
	}
	for _, p := range people {
		if p.fields["Role"] != "QA" {
			continue
		}
		n := 0
		for _, tk := range tasks {
			if slices.Contains(tk.links["Assignee"], p.id) {
				leftTasks = append(leftTasks, p.fields["Name"]+"|"+tk.fields["Name"])
				n++
			}
		}
		if n == 0 {
			leftTasks = append(leftTasks, p.fields["Name"]+"|NULL")
		}
	}

	for _, tc := range []struct {
		query string
		want  []string
		reqs  []string // per request: table, then the formula's prefix
	}{
		{"SELECT t.Name, p.Name, pr.Name FROM Tasks t JOIN People p ON p.id = t.Assignee JOIN Projects pr ON pr.id = t.Project WHERE p.Role = 'QA'", three,
			[]string{"tblPEOPLE {Role}='QA'", "tblTASKS OR(FIND(", "tblPROJECTS OR(RECORD_ID()='rec"}},
		{"SELECT pr.Name, p.Email FROM Projects pr LEFT JOIN People p ON p.id = pr.Lead WHERE pr.Status = 'Done'", leftLead,
			[]string{"tblPROJECTS {Status}='Done'", "tblPEOPLE OR(RECORD_ID()='rec"}},
		{"SELECT p.Name, t.Name FROM People p LEFT JOIN Tasks t ON t.Assignee = p.id WHERE p.Role = 'QA'", leftTasks,
			[]string{"tblPEOPLE {Role}='QA'", "tblTASKS OR(FIND("}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			srv.ResetRequests()
			got := rowTexts(t, db, tc.query)
			if !slices.Equal(sorted(got), sorted(tc.want)) {
				t.Errorf("got %d rows %v\nwant %d rows %v", len(got), sorted(got), len(tc.want), sorted(tc.want))
			}
			reqs := dataRequests(srv)
			if len(reqs) != len(tc.reqs) {
				t.Fatalf("%d requests, want %d: %v", len(reqs), len(tc.reqs), reqs)
			}
			for i, want := range tc.reqs {
				table, prefix, _ := strings.Cut(want, " ")
				if f := formulaOf(t, reqs[i]); !strings.Contains(reqs[i].Path, table) || !strings.HasPrefix(f, prefix) {
					t.Errorf("request %d: %s %q, want %s with a formula starting %q", i, reqs[i].Path, f, table, prefix)
				}
			}
		})
	}
	plan := strings.Join(rowTexts(t, db, "EXPLAIN SELECT pr.Name, p.Email FROM Projects pr LEFT JOIN People p ON p.id = pr.Lead WHERE pr.Status = 'Done'"), "\n")
	if !strings.Contains(plan, "reads Projects pr first, then pushes their distinct keys into People p's request") {
		t.Errorf("EXPLAIN:\n%s", plan)
	}

	// Once People is known to take one request, its keys are not pushed: both tables are read at once.
	rowTexts(t, db, "SELECT COUNT(*) FROM People")
	srv.ResetRequests()
	if got := rowTexts(t, db, "SELECT pr.Name, p.Email FROM Projects pr LEFT JOIN People p ON p.id = pr.Lead WHERE pr.Status = 'Done'"); !slices.Equal(sorted(got), sorted(leftLead)) {
		t.Errorf("unbound: got %v", got)
	}
	for _, r := range dataRequests(srv) {
		if strings.Contains(r.Path, "tblPEOPLE") && formulaOf(t, r) != "" {
			t.Errorf("People request formula %q, want a scan", formulaOf(t, r))
		}
	}
}

// TestBindLinkLookups: link IN (SELECT id FROM Linked …) also selects the linked records' primary
// values and narrows the request to the links that read as one of them; a lone link = 'rec…'
// looks the record's primary value up first (one GET) when the table's scan may take more than
// two requests. Both formulas are supersets: the rows are checked again by id.
func TestBindLinkLookups(t *testing.T) {
	ref, _ := openDemo(t, "")
	db, srv := openDemo(t, "")
	people := readDemo(t, ref, "People", []string{"Name", "Role"}, nil)
	projects := readDemo(t, ref, "Projects", []string{"Name"}, []string{"Lead"})
	tasks := readDemo(t, ref, "Tasks", []string{"Name"}, []string{"Assignee"})
	qa := map[string]bool{}
	for _, p := range people {
		qa[p.id] = p.fields["Role"] == "QA"
	}
	someone := people[3]
	var qaTasks, theirs []string
	for _, tk := range tasks {
		for _, a := range tk.links["Assignee"] {
			if qa[a] {
				qaTasks = append(qaTasks, tk.fields["Name"])
				break
			}
		}
		if slices.Contains(tk.links["Assignee"], someone.id) {
			theirs = append(theirs, tk.fields["Name"])
		}
	}
	var led []string
	for _, pr := range projects {
		if slices.Contains(pr.links["Lead"], someone.id) {
			led = append(led, pr.fields["Name"])
		}
	}

	check := func(query string, want []string, reqs []string) {
		t.Helper()
		srv.ResetRequests()
		got := rowTexts(t, db, query)
		if !slices.Equal(sorted(got), sorted(want)) {
			t.Errorf("%s: got %v, want %v", query, sorted(got), sorted(want))
		}
		rs := dataRequests(srv)
		if len(rs) != len(reqs) {
			t.Fatalf("%s: %d requests, want %d: %v", query, len(rs), len(reqs), rs)
		}
		for i, w := range reqs {
			table, prefix, _ := strings.Cut(w, " ")
			if f := formulaOf(t, rs[i]); !strings.Contains(rs[i].Path, table) || !strings.HasPrefix(f, prefix) {
				t.Errorf("%s: request %d %s %q, want %s with a formula starting %q", query, i, rs[i].Path, f, table, prefix)
			}
		}
	}
	check("SELECT Name FROM Tasks WHERE Assignee IN (SELECT id FROM People WHERE Role = 'QA')", qaTasks,
		[]string{"tblPEOPLE {Role}='QA'", "tblTASKS OR(FIND("})
	check("SELECT Name FROM Tasks t WHERE t.Assignee IN (SELECT p.id FROM People p WHERE p.Role = 'QA') AND t.Name <> ''", qaTasks,
		[]string{"tblPEOPLE {Role}='QA'", "tblTASKS AND("})
	check("SELECT Name FROM Tasks WHERE Assignee = '"+someone.id+"'", theirs,
		[]string{someone.id + " ", "tblTASKS FIND('" + strings.ReplaceAll(someone.fields["Name"], "'", "\\'") + "',{Assignee}&'')"})
	plan := strings.Join(rowTexts(t, db, "EXPLAIN SELECT Name FROM Tasks WHERE Assignee IN (SELECT id FROM People WHERE Role = 'QA')"), "\n")
	if !strings.Contains(plan, "primary values of the records of (select id from People where Role = 'QA') are pushed") {
		t.Errorf("EXPLAIN:\n%s", plan)
	}

	// Projects is known to take one request: no lookup, one scan.
	rowTexts(t, db, "SELECT COUNT(*) FROM Projects")
	check("SELECT Name FROM Projects WHERE Lead = '"+someone.id+"'", led, []string{"tblPROJECTS "})
}

// TestNestedSubqueryBindsItsOwnScan: a subquery's IN subquery narrows the subquery's request, not
// the statement's (all subqueries run first, at the statement's level).
func TestNestedSubqueryBindsItsOwnScan(t *testing.T) {
	db, _ := openDemo(t, "")
	tasks := readDemo(t, db, "Tasks", []string{"Name", "Priority"}, []string{"Assignee"})
	urgent := map[string]bool{}
	for _, tk := range tasks {
		if p, err := strconv.Atoi(tk.fields["Priority"]); err == nil && p > 3 {
			urgent[tk.fields["Name"]] = true
		}
	}
	busy := map[string]bool{}
	for _, tk := range tasks {
		if urgent[tk.fields["Name"]] {
			for _, a := range tk.links["Assignee"] {
				busy[a] = true
			}
		}
	}
	got := rowTexts(t, db, "SELECT COUNT(*) FROM People WHERE id IN (SELECT Assignee FROM Tasks WHERE Name IN (SELECT Name FROM Tasks WHERE Priority > 3))")
	if want := []string{strconv.Itoa(len(busy))}; !slices.Equal(got, want) || len(busy) == 0 {
		t.Errorf("got %v, want %v", got, want)
	}
}
