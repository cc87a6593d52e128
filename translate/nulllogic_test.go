package translate

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/formula"
)

// formulaSchema lets formula.Compile resolve the test table's fields.
type formulaSchema struct{ t *Table }

func (s formulaSchema) LookupField(nameOrID string) (formula.FieldInfo, bool) {
	for _, f := range s.t.Fields {
		if f.Name == nameOrID || f.ID == nameOrID {
			return formula.FieldInfo{ID: f.ID, Name: f.Name, Type: f.Type, Options: f.Options}, true
		}
	}
	return formula.FieldInfo{}, false
}

// formulaRecord is a test row as the formula evaluator reads it.
type formulaRecord struct{ r Row }

func (r formulaRecord) RecordID() string            { return r.r.ID }
func (r formulaRecord) CreatedTime() time.Time      { return r.r.CreatedTime }
func (r formulaRecord) LastModifiedTime() time.Time { return r.r.CreatedTime }
func (r formulaRecord) Cell(f formula.FieldInfo) formula.Value {
	return formula.FromCell(f, r.r.Fields[f.Name])
}

// nullLogicRows are rows mixing blanks, zeros, case variants and special values. Each field cycles
// through its own list, so the rows combine them in many ways.
func nullLogicRows() []Row {
	values := map[string][]any{
		"Name":       {nil, "a", "A", "b", "abc", "a%c", "it's", "ABC", "a_c", "x\ny", "Ünï", "ab"},
		"Notes":      {nil, "50% off", "note", "NOTE", "", "50 off"},
		"Priority":   {nil, 0.0, 1.0, 2.0, -3.0, 5.0, 2.0},
		"Estimate":   {nil, 0.0, 1.5, -2.25, 2.25, 0.1},
		"Done":       {nil, true},
		"Status":     {nil, "Todo", "Done"},
		"Tags":       {nil, []any{"x"}, []any{"x", "y"}},
		"Due":        {nil, "2024-01-05", "2023-12-31", "2024-02-01", "2024-01-01"},
		"Updated At": {nil, "2024-01-05T10:00:00.000Z", "2024-03-01T12:00:00.000Z", "2024-03-01T11:59:59.999Z"},
		"Score":      {nil, 4.0, map[string]any{"specialValue": "NaN"}, 0.0, map[string]any{"error": "#ERROR!"}},
		"Rating":     {nil, 1.0, 3.0, 5.0},
		"Seq":        {1.0},
		"Owner":      {nil, []any{"recPERSON00000001"}, []any{"recPERSON00000001", "recPERSON00000002"}},
		"Created":    {"2024-01-01T00:00:00.000Z", "2024-01-10T00:00:00.000Z", "2024-02-01T08:30:00.000Z"},
		"a}b}c":      {nil, "x", "y"},
	}
	var rows []Row
	for i := range 30 {
		r := Row{
			ID:          fmt.Sprintf("rec%014d", i),
			CreatedTime: time.Date(2024, 1, 1+i, 0, 0, 0, 0, time.UTC),
			Fields:      map[string]any{},
		}
		for name, vs := range values {
			// Different strides so that the fields do not move in lockstep.
			v := vs[(i*(1+len(name)%3)+len(name))%len(vs)]
			if name == "Seq" {
				v = float64(i + 1)
			}
			if v != nil && v != "" {
				r.Fields[name] = v
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// nullLogicConditions are WHERE clauses over every operator and field type.
var nullLogicConditions = []string{
	"Name = 'a'", "Name <> 'a'", "Name = 'A'", "Name = ''", "Name <> ''", "Name IN ('a', 'b')", "Name NOT IN ('a', 'b')",
	"Name NOT IN ('a', NULL)", "Name IN ('a', NULL)", "Name = NULL", "Name <> NULL",
	"Name LIKE 'a%'", "Name LIKE 'A_C'", "Name NOT LIKE '%c'", "Name LIKE '%'", "Name LIKE ''", "Name LIKE 'a\\\\%c'",
	"Name LIKE 'x_y'", "Notes LIKE '%50\\\\%%'", "Notes NOT LIKE '%'",
	"Name IS NULL", "Name IS NOT NULL", "Notes IS NULL",
	"Priority = 0", "Priority <> 0", "Priority < 1", "Priority <= 0", "Priority > 0", "Priority >= -3", "Priority <> 2",
	"Priority IN (0, 2)", "Priority NOT IN (0, 2)", "Priority BETWEEN 0 AND 2", "Priority NOT BETWEEN 0 AND 2",
	"Priority IS NULL", "Priority IS NOT NULL", "Priority", "NOT Priority", "Priority - 2", "Estimate * 2", "Priority IS TRUE", "(Priority - 2) IS NOT FALSE",
	"Estimate = 0.1", "Estimate < 0", "Estimate >= -2.25", "Estimate BETWEEN -1.5 AND 2.25",
	"Priority + Estimate > 1", "Priority - 1 = 0", "Priority * 2 < 3", "Priority / Estimate > 1", "Priority / 2 = 1", "-Priority > 0",
	"Done", "NOT Done", "Done = TRUE", "Done = FALSE", "Done <> TRUE", "Done IS TRUE", "Done IS NOT TRUE", "Done IS FALSE",
	"Status = 'Todo'", "Status <> 'Todo'", "Status IS NULL",
	"Tags IS NULL", "Tags IS NOT NULL", "Tags = '[\"x\"]'",
	"Due = '2024-01-05'", "Due < '2024-01-05'", "Due >= '2024-01-01'", "Due <> '2024-01-05'", "Due IS NULL",
	"`Updated At` < NOW()", "`Updated At` >= '2024-03-01T12:00:00Z'", "`Updated At` = '2024-01-05T10:00:00Z'",
	"createdTime > '2024-01-10'", "createdTime <= '2024-01-10T00:00:00Z'",
	"Score > 2", "Score = 0", "Score IS NULL", "Score IS NOT NULL", "Score <> 4",
	"Rating >= 3", "Rating IS NULL", "Seq > 10", "Seq % 2 = 0", "Seq DIV 3 = 1",
	"Owner IS NULL", "Owner IS NOT NULL", "Created >= '2024-01-10'", "Created < '2024-02-01T08:30:00Z'", "`a}b}c` = 'x'", "`a}b}c` <> 'x'",
	"id = 'rec00000000000003'", "id <> 'rec00000000000003'", "id IN ('rec00000000000003', 'rec00000000000004')", "id LIKE 'REC%1'",
	"LOWER(Name) = 'abc'", "UPPER(Name) <> 'ABC'", "CONCAT(Name, Notes) = 'anote'", "CONCAT(Name, '!') <> 'a!'",
	"ABS(Priority) = 3", "ABS(Estimate) > 2", "COALESCE(Priority, 0) = 0", "IFNULL(Name, 'none') = 'none'",
	"COALESCE(Priority, Rating) > 2", "COALESCE(Priority, Rating, 0) = 0", "IFNULL(Name, Notes) <> 'note'",
	"YEAR(Due) = 2024", "MONTH(Due) = 1", "DAY(Due) = 5", "HOUR(`Updated At`) = 10", "MINUTE(`Updated At`) = 59", "SECOND(`Updated At`) <> 0",
	"LENGTH(Name) > 2", "TRIM(Name) = 'a'", "SUBSTRING(Name, 1, 1) = 'a'", "ROUND(Estimate) = 2",
	"Name = 'a' AND Priority = 0", "Name = 'a' OR Priority = 0", "Name <> 'a' OR Priority IS NULL",
	"(Name = 'a' OR Name = 'b') AND NOT (Priority > 1)", "NOT (Name = 'a' AND Priority = 0)", "NOT (Name = 'a' OR Priority = 0)",
	"Name = 'a' OR Tags IS NULL", "NOT (Tags IS NULL)", "NOT (Score > 2)", "Name < 'b' OR Priority = 1", "NOT (Name < 'b' AND Done)",
	"TRUE", "FALSE", "NULL", "NOT NULL", "1 = 1", "(Priority = 0) IS NOT TRUE", "(Name = 'a') IS FALSE", "(Name = 'a') IS NOT FALSE",
}

// TestNullLogic proves pushdown exact where the plan says so: for every condition and its negation,
// the formula (run by the formula package's evaluator) selects exactly the rows the local SQL
// evaluation keeps, or, when the plan is not exact, a superset of them.
func TestNullLogic(t *testing.T) {
	schema := loadSchema(t)
	table, _ := schema.Table("Tasks")
	rows := nullLogicRows()
	env := &formula.Env{}
	for _, cond := range nullLogicConditions {
		for _, where := range []string{cond, "NOT (" + cond + ")"} {
			t.Run(where, func(t *testing.T) {
				sel := parseSelect(t, "SELECT Name FROM Tasks WHERE "+where)
				plan, err := selectPlan(sel, schema, Args{Now: testNow})
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				for _, r := range rows {
					v, err := plan.where.eval(&r)
					if err != nil {
						t.Fatal(err)
					}
					if v == true {
						want = append(want, r.ID)
					}
				}
				var got []string
				switch {
				case plan.NoRows:
				case plan.RecordIDs != nil:
					got = plan.RecordIDs
				case plan.Request.Formula == "":
					for _, r := range rows {
						got = append(got, r.ID)
					}
				default:
					prog, err := formula.Compile(plan.Request.Formula, formulaSchema{table})
					if err != nil {
						t.Fatalf("formula %s does not compile: %v", plan.Request.Formula, err)
					}
					for _, r := range rows {
						if prog.Match(formulaRecord{r}, env) {
							got = append(got, r.ID)
						}
					}
				}
				if plan.Exact {
					if !slices.Equal(got, want) {
						t.Errorf("exact plan, formula %q\nselects %v\nSQL keeps %v", plan.Request.Formula, got, want)
					}
					return
				}
				for _, id := range want {
					if !slices.Contains(got, id) {
						t.Errorf("inexact plan, formula %q misses %s, which SQL keeps (selects %v, SQL keeps %v)", plan.Request.Formula, id, got, want)
					}
				}
			})
		}
	}
}

// TestKeepSemantics checks the local evaluator itself against hand-computed SQL answers.
func TestKeepSemantics(t *testing.T) {
	schema := loadSchema(t)
	rows := []Row{
		{ID: "recBLANK000000000", Fields: map[string]any{}},
		{ID: "recZERO0000000000", Fields: map[string]any{"Priority": 0.0, "Name": "a", "Done": true}},
		{ID: "recTWO00000000000", Fields: map[string]any{"Priority": 2.0, "Name": "A", "Notes": "50% off"}},
		{ID: "recNAN00000000000", Fields: map[string]any{"Score": map[string]any{"specialValue": "NaN"}, "Name": "b"}},
	}
	tests := []struct {
		where string
		want  []string // row ids, without the "rec" prefix and padding: BLANK, ZERO, TWO, NAN
	}{
		{"Name <> 'a'", []string{"TWO", "NAN"}},
		{"Priority = 0", []string{"ZERO"}},
		{"NOT (Name = 'a')", []string{"TWO", "NAN"}},
		{"Priority IS NULL", []string{"BLANK", "NAN"}},
		{"Done", []string{"ZERO"}},
		{"NOT Done", []string{"BLANK", "TWO", "NAN"}},
		{"Name LIKE 'a'", []string{"ZERO", "TWO"}},
		{"Notes LIKE '50\\\\%%'", []string{"TWO"}},
		{"Notes LIKE '50\\\\_%'", nil},
		{"Score IS NULL", []string{"BLANK", "ZERO", "TWO", "NAN"}},
		{"Priority NOT IN (1, NULL)", nil},
		{"Priority IN (2, NULL)", []string{"TWO"}},
		{"Name = 'a' OR Priority > 1", []string{"ZERO", "TWO"}},
		{"NOT (Name = 'a' OR Priority > 1)", nil}, // NAN: FALSE OR UNKNOWN
		{"Name < 'a'", []string{"TWO"}},           // 'A' < 'a' by code point
		{"COALESCE(Priority, -1) < 0", []string{"BLANK", "NAN"}},
		{"Priority / 0 IS NULL", []string{"BLANK", "ZERO", "TWO", "NAN"}},
	}
	for _, tt := range tests {
		t.Run(tt.where, func(t *testing.T) {
			plan, err := selectPlan(parseSelect(t, "SELECT Name FROM Tasks WHERE "+tt.where), schema, Args{})
			if err != nil {
				t.Fatal(err)
			}
			plan.Exact = false // make Keep evaluate
			var got []string
			for _, r := range rows {
				ok, err := plan.Keep(r)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					got = append(got, strings.TrimRight(strings.TrimPrefix(r.ID, "rec"), "0"))
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
