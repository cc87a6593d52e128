package translate

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/airsql/airsql/emulator"
)

const emulatorBaseID = "appTRANSLATE00001"

// emulatorWithTasks serves the test schema with the NULL-logic rows (computed fields left for the
// emulator to compute).
func emulatorWithTasks(t *testing.T, schema testSchema) *emulator.Server {
	t.Helper()
	base := emulator.FixtureBase{ID: emulatorBaseID, Name: "Translate"}
	for _, table := range schema {
		ft := emulator.FixtureTable{ID: table.ID, Name: table.Name, PrimaryFieldID: table.PrimaryFieldID}
		for _, f := range table.Fields {
			ft.Fields = append(ft.Fields, emulator.FixtureField{ID: f.ID, Name: f.Name, Type: f.Type, Options: f.Options})
		}
		for _, v := range table.Views {
			ft.Views = append(ft.Views, emulator.FixtureView{ID: v.ID, Name: v.Name})
		}
		switch table.Name {
		case "Tasks":
			for _, r := range nullLogicRows() {
				fields := map[string]any{}
				for name, v := range r.Fields {
					switch name {
					case "Score", "Seq", "Created":
						continue // computed by the emulator
					}
					fields[name] = v
				}
				ft.Records = append(ft.Records, emulator.FixtureRecord{ID: r.ID, CreatedTime: r.CreatedTime.Format("2006-01-02T15:04:05.000Z"), Fields: fields})
			}
		case "People":
			for i := 1; i <= 2; i++ {
				ft.Records = append(ft.Records, emulator.FixtureRecord{ID: fmt.Sprintf("recPERSON%08d", i), Fields: map[string]any{"Name": fmt.Sprint("P", i)}})
			}
		}
		base.Tables = append(base.Tables, ft)
	}
	srv, err := emulator.New(emulator.WithFixture(&emulator.Fixture{Bases: []emulator.FixtureBase{base}}), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// list runs one list request (all pages) against the emulator, as the root package would.
func list(t *testing.T, client *http.Client, table string, req Request) []Row {
	t.Helper()
	q := url.Values{}
	if req.Formula != "" {
		q.Set("filterByFormula", req.Formula)
	}
	for _, f := range req.Fields {
		q.Add("fields[]", f)
	}
	for i, s := range req.Sort {
		q.Set(fmt.Sprintf("sort[%d][field]", i), s.Field)
		if s.Desc {
			q.Set(fmt.Sprintf("sort[%d][direction]", i), "desc")
		}
	}
	if req.MaxRecords > 0 {
		q.Set("maxRecords", strconv.Itoa(req.MaxRecords))
	}
	if req.View != "" {
		q.Set("view", req.View)
	}
	var rows []Row
	for {
		httpReq, err := http.NewRequest("GET", emulator.InProcessURL+"/v0/"+emulatorBaseID+"/"+url.PathEscape(table)+"?"+q.Encode(), nil)
		if err != nil {
			t.Fatal(err)
		}
		httpReq.Header.Set("Authorization", "Bearer "+emulator.DefaultToken)
		resp, err := client.Do(httpReq)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("list %v: %s %s", q, resp.Status, body)
		}
		var page struct {
			Records []struct {
				ID          string
				CreatedTime string
				Fields      map[string]any
			}
			Offset string
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Records {
			created, _ := parseTime(r.CreatedTime)
			rows = append(rows, Row{ID: r.ID, CreatedTime: created, Fields: r.Fields})
		}
		if page.Offset == "" {
			return rows
		}
		q.Set("offset", page.Offset)
	}
}

// TestAgainstEmulator sends each plan's request to the emulator and checks that, after Keep, the
// rows are exactly those SQL selects from the whole table, in SQL order, at most LIMIT of them.
func TestAgainstEmulator(t *testing.T) {
	schema := loadSchema(t)
	srv := emulatorWithTasks(t, schema)
	client := srv.Client()
	all := list(t, client, "Tasks", Request{})
	if len(all) != len(nullLogicRows()) {
		t.Fatalf("emulator has %d records, want %d", len(all), len(nullLogicRows()))
	}
	var queries []string
	for _, cond := range nullLogicConditions {
		queries = append(queries, "SELECT id, Name FROM Tasks WHERE "+cond, "SELECT id FROM Tasks WHERE NOT ("+cond+")")
	}
	queries = append(queries,
		"SELECT id, Priority FROM Tasks WHERE Priority >= 0 ORDER BY Priority DESC LIMIT 4",
		"SELECT id FROM Tasks WHERE Estimate IS NOT NULL ORDER BY Estimate, Seq DESC LIMIT 5",
		"SELECT id FROM Tasks ORDER BY Seq DESC LIMIT 3",
		"SELECT id FROM Tasks ORDER BY Name, Seq LIMIT 7",
		"SELECT id FROM Tasks WHERE Name IS NOT NULL ORDER BY Name DESC, Seq",
		"SELECT id FROM Tasks ORDER BY Status, Seq",
		"SELECT id FROM Tasks ORDER BY Priority DESC, id LIMIT 6",
		"SELECT id FROM Tasks WHERE Name < 'b' ORDER BY Seq LIMIT 2",
		"SELECT id FROM Tasks WHERE Due > '2024-01-01' ORDER BY Due, Seq",
		"SELECT id FROM Tasks WHERE `Updated At` IS NOT NULL ORDER BY `Updated At` DESC, Seq LIMIT 3",
		"SELECT id FROM Tasks WHERE Score > 0 ORDER BY Score, Seq",
		"SELECT id FROM Tasks WHERE Rating > 1 ORDER BY Rating DESC, Seq LIMIT 4",
		"SELECT id FROM Tasks ORDER BY createdTime DESC LIMIT 3",
		"SELECT id FROM Tasks USE INDEX (`Open`) WHERE Done ORDER BY Seq",
		// Nullable first keys: split into the non-blank rows and the blank ones.
		"SELECT id FROM Tasks WHERE Done = TRUE ORDER BY Priority DESC LIMIT 3",
		"SELECT id FROM Tasks ORDER BY Priority LIMIT 3",
		"SELECT id FROM Tasks ORDER BY Priority DESC, Seq LIMIT 40",
		"SELECT id FROM Tasks ORDER BY Estimate, Seq",
		"SELECT id FROM Tasks WHERE Name <> 'a' ORDER BY Due DESC, Seq LIMIT 6",
	)
	for _, sql := range queries {
		t.Run(sql, func(t *testing.T) {
			plan, err := selectPlan(parseSelect(t, sql), schema, Args{Now: testNow})
			if err != nil {
				t.Fatal(err)
			}
			// What SQL answers, from the whole table.
			var want []Row
			for _, r := range all {
				if plan.where == nil {
					want = append(want, r)
					continue
				}
				v, err := plan.where.eval(&r)
				if err != nil {
					t.Fatal(err)
				}
				if v == true {
					want = append(want, r)
				}
			}
			plan.SortRows(want)
			if plan.Limit >= 0 && len(want) > plan.Limit {
				want = want[:plan.Limit]
			}
			// What the plan gets.
			var fetched []Row
			switch {
			case plan.NoRows:
			case plan.RecordIDs != nil:
				for _, r := range all {
					if slices.Contains(plan.RecordIDs, r.ID) {
						fetched = append(fetched, r)
					}
				}
			case plan.Split != nil:
				fetched = listSplit(t, client, plan.Plan)
			default:
				fetched = list(t, client, "Tasks", plan.Request)
			}
			var got []Row
			for _, r := range fetched {
				ok, err := plan.Keep(r)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					got = append(got, r)
				}
			}
			if plan.Exact && len(got) != len(fetched) {
				t.Errorf("exact plan, but Keep dropped %d of %d rows", len(fetched)-len(got), len(fetched))
			}
			if plan.SortLocally {
				plan.SortRows(got)
			}
			if plan.Limit >= 0 && len(got) > plan.Limit {
				got = got[:plan.Limit]
			}
			if len(got) != len(want) {
				t.Fatalf("got %d rows %v, want %d %v (formula %q)", len(got), ids(got), len(want), ids(want), plan.Request.Formula)
			}
			if len(plan.Order) == 0 {
				gotIDs, wantIDs := ids(got), ids(want)
				slices.Sort(gotIDs)
				slices.Sort(wantIDs)
				if !slices.Equal(gotIDs, wantIDs) {
					t.Errorf("got %v, want %v (formula %q)", gotIDs, wantIDs, plan.Request.Formula)
				}
				return
			}
			// Ordered: the same sequence of sort keys (ties may come in any order). The keys are read
			// from the full records, since a pushed sort does not fetch them.
			full := map[string]Row{}
			for _, r := range all {
				full[r.ID] = r
			}
			for i := range got {
				if plan.Compare(full[got[i].ID], want[i]) != 0 {
					t.Fatalf("row %d: got %s, want %s in SQL order (sort %v, local %v)\ngot  %v\nwant %v", i, got[i].ID, want[i].ID, plan.Request.Sort, plan.SortLocally, ids(got), ids(want))
				}
			}
		})
	}
}

// listSplit runs a split plan's requests as the root package does: the blank rows first when
// ascending, the second request only while LIMIT is not reached, with maxRecords lowered.
func listSplit(t *testing.T, client *http.Client, plan *Plan) []Row {
	t.Helper()
	reqs := []Request{plan.Request, plan.Split.Blanks}
	if plan.Split.BlanksFirst {
		reqs[0], reqs[1] = reqs[1], reqs[0]
	}
	rows := list(t, client, "Tasks", reqs[0])
	if plan.Limit >= 0 && len(rows) >= plan.Limit {
		return rows
	}
	second := reqs[1]
	if plan.Limit >= 0 {
		second.MaxRecords = plan.Limit - len(rows)
	}
	return append(rows, list(t, client, "Tasks", second)...)
}

func ids(rows []Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.ID
	}
	return out
}
