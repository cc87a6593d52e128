package emulator

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// The demo base: a project tracker, generated from a fixed seed so that it is the same on every
// start. README.md lists its tables, fields and views.
const (
	DemoBaseID = "appDEMO0000000001"
	DemoToken  = "patDEMO.secret"

	demoPeopleTable   = "tblPEOPLE00000001"
	demoProjectsTable = "tblPROJECTS000001"
	demoTasksTable    = "tblTASKS000000001"

	demoPeople   = 40
	demoProjects = 20
	demoTasks    = 300
)

var demoFirst = []string{"Ada", "Grace", "Alan", "Linus", "Barbara", "Ken", "Margaret", "Dennis", "Frances", "Edsger",
	"Radia", "Donald", "Sophie", "Tim", "Hedy", "John", "Katherine", "Niklaus", "Anita", "Bjarne"}
var demoLast = []string{"Lovelace", "Hopper", "Turing", "Torvalds", "Liskov", "Thompson", "Hamilton", "Ritchie",
	"Allen", "Dijkstra", "Perlman", "Knuth", "Wilson", "Berners-Lee", "Lamarr", "Backus", "Johnson", "Wirth", "Borg", "Stroustrup"}
var demoProjectWords = []string{"Apollo", "Borealis", "Cascade", "Delta", "Ember", "Falcon", "Granite", "Harbor", "Iris",
	"Juniper", "Kestrel", "Lumen", "Meridian", "Nimbus", "Orion", "Pioneer", "Quartz", "Radiant", "Summit", "Tundra"}
var demoVerbs = []string{"Design", "Build", "Test", "Review", "Document", "Deploy", "Refactor", "Measure", "Plan", "Fix"}
var demoObjects = []string{"login page", "billing export", "search index", "onboarding flow", "API client", "audit log",
	"dashboard", "sync job", "mobile layout", "report builder", "cache layer", "email templates"}

// demoUsers are the collaborators of the demo base.
var demoUsers = []map[string]any{
	{"id": "usrDEMOADA0000001", "email": "ada@example.com", "name": "Ada Lovelace"},
	{"id": "usrDEMOGRACE00001", "email": "grace@example.com", "name": "Grace Hopper"},
	{"id": "usrDEMOALAN000001", "email": "alan@example.com", "name": "Alan Turing"},
	{"id": "usrDEMOLINUS00001", "email": "linus@example.com", "name": "Linus Torvalds"},
	{"id": "usrDEMOBARBARA001", "email": "barbara@example.com", "name": "Barbara Liskov"},
}

func demoRecordID(tableID string, i int) string {
	return derivedID("rec", fmt.Sprintf("%s/%d", tableID, i))
}

func choices(names ...string) map[string]any {
	list := make([]any, len(names))
	for i, n := range names {
		list[i] = map[string]any{"name": n}
	}
	return map[string]any{"choices": list}
}

// demoFixture builds the demo base. Same seed, same base: nothing here reads the clock. The
// tables' records are drawn in this order (people, projects, tasks) from one generator.
func demoFixture() *Fixture {
	g := &demoGen{rng: rand.New(rand.NewPCG(20240101, 42)), day0: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
	people := demoPeopleSchema()
	people.Records = g.people()
	projects := demoProjectsSchema()
	projects.Records = g.projects()
	tasks := demoTasksSchema()
	tasks.Records = g.tasks()
	return &Fixture{
		Tokens: []FixtureToken{{Token: DemoToken, Bases: []string{DemoBaseID}, Scopes: []string{
			// Every scope a README example needs: schema changes (DDL), comments, webhooks, USER().
			scopeRecordsRead, scopeRecordsWrite, scopeSchemaRead, scopeSchemaWrite, scopeCommentsRead, scopeCommentsWrite,
			scopeWebhookManage, "user.email:read"}, UserID: "usrDEMOADA0000001", Email: "ada@example.com"}},
		Bases: []FixtureBase{{ID: DemoBaseID, Name: "Demo: Project Tracker", Tables: []FixtureTable{people, projects, tasks}}},
	}
}

// demoGen draws the demo base's records from a fixed seed.
type demoGen struct {
	rng  *rand.Rand
	day0 time.Time
}

// date is the day d days after 1 January 2024, as a date cell.
func (g *demoGen) date(d int) string { return g.day0.AddDate(0, 0, d).Format("2006-01-02") }

func (g *demoGen) pick(list []string) string { return list[g.rng.IntN(len(list))] }

// demoPeopleSchema is the People table without its records.
func demoPeopleSchema() FixtureTable {
	return FixtureTable{
		ID: demoPeopleTable, Name: "People", Description: "Everyone who works on projects.",
		Fields: []FixtureField{
			{Name: "Name", Type: "singleLineText"},
			{Name: "Email", Type: "email"},
			{Name: "Role", Type: "singleSelect", Options: choices("Engineer", "Designer", "Manager", "QA")},
			{Name: "Active", Type: "checkbox", Options: map[string]any{"icon": "check", "color": "greenBright"}},
			{Name: "Hourly Rate", Type: "currency", Options: map[string]any{"precision": 2, "symbol": "$"}},
			{Name: "Joined", Type: "date", Options: map[string]any{"dateFormat": map[string]any{"name": "iso", "format": "YYYY-MM-DD"}}},
			{Name: "Phone", Type: "phoneNumber"},
			{Name: "Account", Type: "singleCollaborator"},
			{Name: "Photo", Type: "multipleAttachments"},
			{Name: "Tasks", Type: "multipleRecordLinks", Options: map[string]any{"linkedTableId": demoTasksTable}},
			{Name: "Projects Led", Type: "multipleRecordLinks", Options: map[string]any{"linkedTableId": demoProjectsTable}},
			{Name: "Task Count", Type: "count", Options: map[string]any{"recordLinkFieldId": "Tasks"}},
		},
		Views: []FixtureView{
			{Name: "Grid view"},
			{Name: "Active people", FilterByFormula: "{Active}", Sort: []FixtureSort{{Field: "Name"}}},
		},
	}
}

// people draws the People records.
func (g *demoGen) people() []FixtureRecord {
	var records []FixtureRecord
	for i := range demoPeople {
		first, last := demoFirst[i%len(demoFirst)], demoLast[(i*7+i/len(demoFirst))%len(demoLast)]
		name := first + " " + last
		if i >= len(demoFirst) {
			name = fmt.Sprintf("%s %s %d", first, last, i/len(demoFirst)+1)
		}
		f := map[string]any{
			"Name":        name,
			"Email":       fmt.Sprintf("person%02d@example.com", i+1),
			"Role":        []string{"Engineer", "Engineer", "Designer", "Manager", "QA"}[g.rng.IntN(5)],
			"Hourly Rate": float64(40+g.rng.IntN(80)) + float64(g.rng.IntN(4))*0.25,
			"Joined":      g.date(-g.rng.IntN(2000)),
			"Phone":       fmt.Sprintf("(555) 01%02d-%04d", i, g.rng.IntN(10000)),
		}
		if g.rng.IntN(10) < 8 {
			f["Active"] = true
		}
		if i < len(demoUsers) {
			f["Account"] = demoUsers[i]
		}
		if i%4 == 0 {
			f["Photo"] = []any{map[string]any{"url": fmt.Sprintf("https://example.com/photos/person%02d.png", i+1), "filename": fmt.Sprintf("person%02d.png", i+1)}}
		}
		records = append(records, FixtureRecord{ID: demoRecordID(demoPeopleTable, i),
			CreatedTime: g.day0.Add(time.Duration(i) * time.Hour).Format(time.RFC3339), Fields: f})
	}
	return records
}

// demoProjectsSchema is the Projects table without its records.
func demoProjectsSchema() FixtureTable {
	return FixtureTable{
		ID: demoProjectsTable, Name: "Projects",
		Fields: []FixtureField{
			{Name: "Name", Type: "singleLineText"},
			{Name: "Description", Type: "multilineText"},
			{Name: "Status", Type: "singleSelect", Options: choices("Planning", "Active", "On Hold", "Done")},
			{Name: "Budget", Type: "currency", Options: map[string]any{"precision": 0, "symbol": "$"}},
			{Name: "Start", Type: "date", Options: map[string]any{"dateFormat": map[string]any{"name": "iso", "format": "YYYY-MM-DD"}}},
			{Name: "Due", Type: "date", Options: map[string]any{"dateFormat": map[string]any{"name": "iso", "format": "YYYY-MM-DD"}}},
			{Name: "Lead", Type: "multipleRecordLinks", Options: map[string]any{"linkedTableId": demoPeopleTable, "inverseLinkFieldId": "Projects Led", "prefersSingleRecordLink": true}},
			{Name: "Tasks", Type: "multipleRecordLinks", Options: map[string]any{"linkedTableId": demoTasksTable}},
			{Name: "Tags", Type: "multipleSelects", Options: choices("internal", "customer", "infra", "research", "urgent")},
			{Name: "Website", Type: "url"},
			{Name: "Progress", Type: "percent", Options: map[string]any{"precision": 0}},
			{Name: "Lead Email", Type: "multipleLookupValues", Options: map[string]any{"recordLinkFieldId": "Lead", "fieldIdInLinkedTable": "Email"}},
			{Name: "Task Count", Type: "count", Options: map[string]any{"recordLinkFieldId": "Tasks"}},
			{Name: "Estimated Hours", Type: "rollup", Options: map[string]any{"recordLinkFieldId": "Tasks", "fieldIdInLinkedTable": "Estimate Hours", "formula": "SUM(values)",
				"result": map[string]any{"type": "number", "options": map[string]any{"precision": 1}}}},
			{Name: "Created", Type: "createdTime", Options: map[string]any{"result": map[string]any{"type": "dateTime"}}},
		},
		Views: []FixtureView{
			{Name: "Grid view"},
			{Name: "Active projects", FilterByFormula: "{Status} = 'Active'", Sort: []FixtureSort{{Field: "Due"}}},
			{Name: "By budget", Sort: []FixtureSort{{Field: "Budget", Direction: "desc"}}},
		},
	}
}

// projects draws the Projects records.
func (g *demoGen) projects() []FixtureRecord {
	var records []FixtureRecord
	for i := range demoProjects {
		start := g.rng.IntN(300)
		f := map[string]any{
			"Name":        fmt.Sprintf("Project %s", demoProjectWords[i%len(demoProjectWords)]),
			"Description": fmt.Sprintf("Project %s.\nOwned by the %s team.", demoProjectWords[i%len(demoProjectWords)], g.pick([]string{"platform", "growth", "payments", "mobile"})),
			"Status":      []string{"Planning", "Active", "Active", "On Hold", "Done"}[g.rng.IntN(5)],
			"Budget":      float64(5000 * (1 + g.rng.IntN(40))),
			"Start":       g.date(start),
			"Due":         g.date(start + 30 + g.rng.IntN(120)),
			"Lead":        []any{demoRecordID(demoPeopleTable, g.rng.IntN(demoPeople))},
			"Progress":    float64(g.rng.IntN(101)) / 100,
		}
		tags := []any{}
		for _, tg := range []string{"internal", "customer", "infra", "research", "urgent"} {
			if g.rng.IntN(3) == 0 {
				tags = append(tags, tg)
			}
		}
		if len(tags) > 0 {
			f["Tags"] = tags
		}
		if i%3 == 0 {
			f["Website"] = fmt.Sprintf("https://example.com/projects/%d", i+1)
		}
		records = append(records, FixtureRecord{ID: demoRecordID(demoProjectsTable, i),
			CreatedTime: g.day0.AddDate(0, 0, i).Format(time.RFC3339), Fields: f})
	}
	return records
}

// demoTasksSchema is the Tasks table without its records.
func demoTasksSchema() FixtureTable {
	return FixtureTable{
		ID: demoTasksTable, Name: "Tasks", PrimaryFieldID: "fldNAME0000000001",
		Fields: []FixtureField{
			{ID: "fldNAME0000000001", Name: "Name", Type: "singleLineText"},
			{Name: "Notes", Type: "multilineText"},
			{Name: "Status", Type: "singleSelect", Options: choices("Todo", "In Progress", "Blocked", "Done")},
			{Name: "Priority", Type: "number", Options: map[string]any{"precision": 0}},
			{Name: "Done", Type: "checkbox", Options: map[string]any{"icon": "check", "color": "greenBright"}},
			{Name: "Due", Type: "date", Options: map[string]any{"dateFormat": map[string]any{"name": "iso", "format": "YYYY-MM-DD"}}},
			{Name: "Started At", Type: "dateTime", Options: map[string]any{"timeZone": "utc", "dateFormat": map[string]any{"name": "iso"}, "timeFormat": map[string]any{"name": "24hour"}}},
			{Name: "Estimate", Type: "duration", Options: map[string]any{"durationFormat": "h:mm"}},
			{Name: "Estimate Hours", Type: "number", Options: map[string]any{"precision": 1}},
			{Name: "Effort", Type: "rating", Options: map[string]any{"max": 5, "icon": "star", "color": "yellowBright"}},
			{Name: "Tags", Type: "multipleSelects", Options: choices("bug", "feature", "chore", "docs", "security")},
			{Name: "Project", Type: "multipleRecordLinks", Options: map[string]any{"linkedTableId": demoProjectsTable, "inverseLinkFieldId": "Tasks", "prefersSingleRecordLink": true}},
			{Name: "Assignee", Type: "multipleRecordLinks", Options: map[string]any{"linkedTableId": demoPeopleTable, "inverseLinkFieldId": "Tasks", "prefersSingleRecordLink": true}},
			{Name: "Project Status", Type: "multipleLookupValues", Options: map[string]any{"recordLinkFieldId": "Project", "fieldIdInLinkedTable": "Status"}},
			{Name: "Assignee Rate", Type: "multipleLookupValues", Options: map[string]any{"recordLinkFieldId": "Assignee", "fieldIdInLinkedTable": "Hourly Rate"}},
			{Name: "Score", Type: "formula", Options: map[string]any{"formula": "{Priority} * 2", "result": map[string]any{"type": "number", "options": map[string]any{"precision": 0}}}},
			{Name: "Label", Type: "formula", Options: map[string]any{"formula": "{Name} & \" (\" & {Status} & \")\"", "result": map[string]any{"type": "singleLineText"}}},
			{Name: "Reviewer", Type: "singleCollaborator"},
			{Name: "Watchers", Type: "multipleCollaborators"},
			{Name: "Spec", Type: "url"},
			{Name: "Reporter Email", Type: "email"},
			{Name: "Attachments", Type: "multipleAttachments"},
			{Name: "Task ID", Type: "autoNumber"},
			{Name: "Created", Type: "createdTime", Options: map[string]any{"result": map[string]any{"type": "dateTime"}}},
			{Name: "Last Modified", Type: "lastModifiedTime", Options: map[string]any{"result": map[string]any{"type": "dateTime"}}},
		},
		Views: []FixtureView{
			{Name: "Grid view"},
			{Name: "Open", FilterByFormula: "NOT({Done})", Sort: []FixtureSort{{Field: "Priority", Direction: "desc"}},
				VisibleFieldIDs: []string{"Name", "Status", "Priority", "Due", "Assignee"}},
			{Name: "By due date", Sort: []FixtureSort{{Field: "Due"}, {Field: "Priority", Direction: "desc"}}},
			{Name: "Done", FilterByFormula: "{Done}"},
			{Name: "Board", Type: "kanban"},
		},
	}
}

// tasks draws the Tasks records.
func (g *demoGen) tasks() []FixtureRecord {
	var records []FixtureRecord
	statuses := []string{"Todo", "Todo", "In Progress", "Blocked", "Done", "Done"}
	for i := range demoTasks {
		status := statuses[g.rng.IntN(len(statuses))]
		hours := float64(1+g.rng.IntN(40)) / 2
		f := map[string]any{
			"Name":           fmt.Sprintf("%s %s #%d", g.pick(demoVerbs), g.pick(demoObjects), i+1),
			"Status":         status,
			"Priority":       float64(1 + g.rng.IntN(5)),
			"Due":            g.date(g.rng.IntN(365)),
			"Estimate":       hours * 3600,
			"Estimate Hours": hours,
			"Project":        []any{demoRecordID(demoProjectsTable, g.rng.IntN(demoProjects))},
		}
		if status == "Done" {
			f["Done"] = true
		}
		if status != "Todo" {
			f["Started At"] = g.day0.Add(time.Duration(g.rng.IntN(365*24)) * time.Hour).Add(time.Duration(g.rng.IntN(60)) * time.Minute).Format(time.RFC3339)
		}
		if g.rng.IntN(8) > 0 { // some tasks are unassigned
			f["Assignee"] = []any{demoRecordID(demoPeopleTable, g.rng.IntN(demoPeople))}
		}
		if g.rng.IntN(3) > 0 {
			f["Effort"] = float64(1 + g.rng.IntN(5))
		}
		if i%5 == 0 {
			f["Notes"] = fmt.Sprintf("Details for task %d.\nSee the spec.", i+1)
			f["Spec"] = fmt.Sprintf("https://example.com/specs/%d", i+1)
		}
		var tags []any
		for _, tg := range []string{"bug", "feature", "chore", "docs", "security"} {
			if g.rng.IntN(4) == 0 {
				tags = append(tags, tg)
			}
		}
		if tags != nil {
			f["Tags"] = tags
		}
		if i%7 == 0 {
			f["Reviewer"] = demoUsers[g.rng.IntN(len(demoUsers))]
			f["Watchers"] = []any{demoUsers[g.rng.IntN(len(demoUsers))], demoUsers[g.rng.IntN(len(demoUsers))]}
		}
		if i%11 == 0 {
			f["Reporter Email"] = fmt.Sprintf("reporter%d@example.com", i)
			f["Attachments"] = []any{map[string]any{"url": fmt.Sprintf("https://example.com/files/task%d.pdf", i+1), "filename": fmt.Sprintf("task%d.pdf", i+1)}}
		}
		records = append(records, FixtureRecord{ID: demoRecordID(demoTasksTable, i),
			CreatedTime: g.day0.Add(time.Duration(i) * 7 * time.Hour).Format(time.RFC3339), Fields: f})
	}
	return records
}

// DemoFixture is the demo base as a fixture (a new copy each call), for a test that serves it
// beside other bases from one emulator (WithFixture of their union).
func DemoFixture() *Fixture { return demoFixture() }
