package translate

import (
	"slices"
	"testing"

	"github.com/airsql/airsql/formula"
)

// Regression tests for differences the MariaDB oracle (internal/oracle, issue 11) found.

// TestOracleConstantInColumnList: a constant on the left of IN with a column among the items
// ('2024-01-05' IN (Due, …)) was refused ("cannot compare TEXT with DATE"): the constant took the
// left operand's place and could not take the type of each item. MySQL converts it per item.
func TestOracleConstantInColumnList(t *testing.T) {
	schema := loadSchema(t)
	table, _ := schema.Table("Tasks")
	rows := []Row{
		{ID: "recBLANK000000000", Fields: map[string]any{}},
		{ID: "recJAN05000000000", Fields: map[string]any{"Due": "2024-01-05", "Priority": 2.0}},
		{ID: "recFEB01000000000", Fields: map[string]any{"Due": "2024-02-01"}},
		{ID: "recDEC31000000000", Fields: map[string]any{"Due": "2023-12-31", "Priority": 1.0}},
	}
	tests := []struct {
		where string
		want  []string
	}{
		{"'2024-01-05' IN (Due, '2024-02-01')", []string{"recJAN05000000000"}},
		{"'2024-01-05' NOT IN (Due, '2024-02-01')", []string{"recFEB01000000000", "recDEC31000000000"}},
		{"'2024-01-05' IN (Due)", []string{"recJAN05000000000"}},
		{"NOT ('2024-01-05' IN (Due, NULL))", nil},
		{"'2' IN (Priority, 7)", []string{"recJAN05000000000"}},
		{"1 NOT IN (Priority)", []string{"recJAN05000000000"}},
	}
	env := &formula.Env{}
	for _, tt := range tests {
		t.Run(tt.where, func(t *testing.T) {
			plan, err := Select(parseSelect(t, "SELECT Name FROM Tasks WHERE "+tt.where), schema, Args{})
			if err != nil {
				t.Fatal(err)
			}
			var kept, selected []string
			var prog *formula.Program
			if plan.Request.Formula != "" {
				if prog, err = formula.Compile(plan.Request.Formula, formulaSchema{table}); err != nil {
					t.Fatalf("formula %s: %v", plan.Request.Formula, err)
				}
			}
			for _, r := range rows {
				v, err := plan.where.eval(&r)
				if err != nil {
					t.Fatal(err)
				}
				if v == true {
					kept = append(kept, r.ID)
				}
				if !plan.NoRows && (prog == nil || prog.Match(formulaRecord{r}, env)) {
					selected = append(selected, r.ID)
				}
			}
			if !slices.Equal(kept, tt.want) {
				t.Errorf("SQL keeps %v, want %v", kept, tt.want)
			}
			if plan.Exact && !slices.Equal(selected, tt.want) {
				t.Errorf("exact formula %q selects %v, want %v", plan.Request.Formula, selected, tt.want)
			}
		})
	}
}
