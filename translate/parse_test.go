package translate

import (
	"math"
	"strings"
	"testing"

	"github.com/airsql/airsql/formula"
)

// TestParseEmptyVersionComments: the inputs on which the pinned sqlparser panics (an empty MySQL
// comment "/*!*/") are read as MySQL reads them: the comment holds nothing.
func TestParseEmptyVersionComments(t *testing.T) {
	if _, err := Parse("/*!*/"); err == nil {
		t.Error(`Parse("/*!*/"): no error, want one: the statement is empty`)
	}
	for _, sql := range []string{"SELECT 1 /*!*/", "SELECT Name FROM Tasks"} {
		if _, err := Parse(sql); err != nil {
			t.Errorf("Parse(%q): %v", sql, err)
		}
	}
}

func TestArgumentBinding(t *testing.T) {
	schema := loadSchema(t)
	tests := []struct {
		sql     string
		args    Args
		formula string
		err     string
	}{
		{"SELECT Name FROM Tasks WHERE Name = ? AND Status = ?", Args{Positional: []any{"a", "Todo"}}, "AND({Name}='a', {Status}='Todo')", ""},
		{"SELECT Name FROM Tasks WHERE Name = :who", Args{Named: map[string]any{"who": "b"}}, "{Name}='b'", ""},
		{"SELECT Name FROM Tasks WHERE Name = :who", Args{Named: map[string]any{":who": "c"}}, "{Name}='c'", ""},
		{"SELECT Name FROM Tasks WHERE Name = :v1", Args{Named: map[string]any{"v1": "d"}}, "{Name}='d'", ""},
		{"SELECT Name FROM Tasks WHERE Name = ? AND Status = :s", Args{Positional: []any{"e"}, Named: map[string]any{"s": "Done"}}, "AND({Name}='e', {Status}='Done')", ""},
		{"SELECT Name FROM Tasks WHERE Name = ? AND Status = ?", Args{Positional: []any{"a"}}, "", "placeholder 2 has no argument"},
		{"SELECT Name FROM Tasks WHERE Name = :who", Args{}, "", `no argument named "who"`},
		{"SELECT Name FROM Tasks WHERE Name = ?", Args{Positional: []any{make(chan int)}}, "", "unsupported Go type"},
		// A slice for one placeholder: refused against a text column (it would match nothing), taken
		// as the whole value for a JSON column.
		{"SELECT Name FROM Tasks WHERE Name IN (?)", Args{Positional: []any{[]string{"a", "b"}}}, "", "sqlx.In"},
		{"SELECT Name FROM Tasks WHERE Name = ?", Args{Positional: []any{[]string{"a"}}}, "", "one placeholder per value"},
		{"SELECT Name FROM Tasks WHERE Name LIKE ?", Args{Positional: []any{[]any{"a%"}}}, "", "list or JSON value"},
		{"SELECT Name FROM Tasks WHERE Priority IN (?)", Args{Positional: []any{[]string{"1"}}}, "", "IN (?, ?, …)"},
		{"SELECT Name FROM Tasks WHERE Name IN (?, ?)", Args{Positional: []any{"a", "b"}}, "OR({Name}='a', {Name}='b')", ""},
		// An argument the statement does not read is an error, not silently dropped.
		{"SELECT Name FROM Tasks WHERE Name = ?", Args{Positional: []any{"a", "b"}}, "", "argument 2 is not used"},
		{"SELECT Name FROM Tasks", Args{Positional: []any{"a"}}, "", "argument 1 is not used"},
		{"SELECT Name FROM Tasks WHERE Name = :who", Args{Named: map[string]any{"who": "a", "whom": "b"}}, "", `"whom" is not used`},
		{"SELECT Name FROM Tasks WHERE Name = ? OR Notes = ?", Args{Positional: []any{"a", "a"}}, "OR({Name}='a', {Notes}='a')", ""},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			plan, err := selectPlan(parseSelect(t, tt.sql), schema, tt.args)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if plan.Request.Formula != tt.formula {
				t.Errorf("formula %q, want %q", plan.Request.Formula, tt.formula)
			}
		})
	}
}

// TestNumberLiterals checks that numbers reach formulas unchanged: each literal, compared with a cell
// holding the same float64, is equal in the formula package's evaluator.
func TestNumberLiterals(t *testing.T) {
	schema := loadSchema(t)
	table, _ := schema.Table("Tasks")
	for _, f := range []float64{0, 0.1, -0.1, 1.5, -2.25, 1e21, 1e-7, 123456789.123456789, 1.7976931348623157e308, 5e-324, -1e300, 1 << 53, 0.30000000000000004} {
		plan, err := selectPlan(parseSelect(t, "SELECT Name FROM Tasks WHERE Estimate = ?"), schema, Args{Positional: []any{f}})
		if err != nil {
			t.Fatal(err)
		}
		prog, err := formula.Compile(plan.Request.Formula, formulaSchema{table})
		if err != nil {
			t.Fatalf("%v: formula %q: %v", f, plan.Request.Formula, err)
		}
		if literal := plan.Request.Formula[strings.LastIndex(plan.Request.Formula, "=")+1:]; strings.ContainsAny(literal, "eE") {
			t.Errorf("%v: formula %q has an exponent", f, plan.Request.Formula)
		}
		row := Row{Fields: map[string]any{"Estimate": f}}
		if !prog.Match(formulaRecord{row}, &formula.Env{}) {
			t.Errorf("%v: formula %q does not match a cell holding %v", f, plan.Request.Formula, f)
		}
		row.Fields["Estimate"] = math.Nextafter(f, math.Inf(1))
		if prog.Match(formulaRecord{row}, &formula.Env{}) {
			t.Errorf("%v: formula %q matches the next float %v", f, plan.Request.Formula, row.Fields["Estimate"])
		}
	}
	// Integers beyond 2^53 are not exact as the service's numbers: compared locally.
	plan, err := selectPlan(parseSelect(t, "SELECT Name FROM Tasks WHERE Priority = ?"), schema, Args{Positional: []any{int64(1<<53 + 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Exact || plan.Request.Formula != "" {
		t.Errorf("2^53+1: exact %v formula %q, want a local comparison", plan.Exact, plan.Request.Formula)
	}
}
