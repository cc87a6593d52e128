package translate

import (
	"strings"
	"testing"

	"github.com/airsql/airsql/formula"
)

func TestGuardedAndOr(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{guardedAnd("{D}&''!=''", "YEAR({D})=1", false), "AND({D}&''!='', YEAR({D})=1)"},
		{guardedAnd("{D}&''!=''", "YEAR({D})=1", true), "IF({D}&''!='', YEAR({D})=1, FALSE())"},
		{guardedAnd(formulaAll, "YEAR({D})=1", true), "YEAR({D})=1"},
		{guardedAnd(formulaNone, "YEAR({D})=1", true), formulaNone},
		{guardedOr("{N}&''=''", "{N}=0", false), "OR({N}&''='', {N}=0)"},
		{guardedOr("{N}&''=''", "YEAR({D})=0", true), "IF({N}&''='', TRUE(), YEAR({D})=0)"},
		{guardedOr(formulaAll, "YEAR({D})=0", true), formulaAll},
		{guardedOr(formulaNone, "YEAR({D})=0", true), "YEAR({D})=0"},
		{noErrors("{F}", typeFloat), "IF(ISERROR({F}+0), BLANK(), {F})"},
		{noErrors("{F}", typeDate), "IF(ISERROR(YEAR({F})), BLANK(), {F})"},
		{noErrors("{F}", typeText), "IF(ISERROR({F}), BLANK(), {F})"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %s, want %s", tt.got, tt.want)
		}
	}
}

// TestCheckboxAgainstNumbers: a checkbox is 0 or 1 compared as a number (MySQL's BOOL), with every
// operator and constant, locally and in the pushed formula, which is exact.
func TestCheckboxAgainstNumbers(t *testing.T) {
	schema := testSchema{errorFreeTable}
	rows := []Row{{ID: "recCHECKED0000000", Fields: map[string]any{"B": true}}, {ID: "recUNCHECKED00000", Fields: map[string]any{}}}
	consts := map[string]float64{"0": 0, "1": 1, "2": 2, "5": 5, "-1": -1, "0.5": 0.5, "1.0": 1, "TRUE": 1, "FALSE": 0, "'1'": 1, "' 2 '": 2}
	ops := map[string]func(a, b float64) bool{
		"=": func(a, b float64) bool { return a == b }, "<>": func(a, b float64) bool { return a != b },
		"<": func(a, b float64) bool { return a < b }, "<=": func(a, b float64) bool { return a <= b },
		">": func(a, b float64) bool { return a > b }, ">=": func(a, b float64) bool { return a >= b },
	}
	for c, cv := range consts {
		for op, holds := range ops {
			for _, swapped := range []bool{false, true} {
				where := "B " + op + " " + c
				if swapped {
					where = c + " " + op + " B"
				}
				plan, err := selectPlan(parseSelect(t, "SELECT T FROM X WHERE "+where), schema, Args{})
				if err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				if !plan.Exact {
					t.Errorf("%s: not exact", where)
				}
				var prog *formula.Program
				if !plan.NoRows && plan.Request.Formula != "" {
					if prog, err = formula.Compile(plan.Request.Formula, formulaSchema{errorFreeTable}); err != nil {
						t.Fatal(err)
					}
				}
				for _, r := range rows {
					b := 0.0
					if r.Fields["B"] == true {
						b = 1
					}
					want := holds(b, cv)
					if swapped {
						want = holds(cv, b)
					}
					v, err := plan.where.eval(&r)
					if err != nil || v != want {
						t.Errorf("%s on %s: SQL gives %v (%v), want %v", where, r.ID, v, err, want)
					}
					pushed := !plan.NoRows && (prog == nil || prog.Match(formulaRecord{r}, nil))
					if pushed != want {
						t.Errorf("%s on %s: formula %q selects %v, want %v", where, r.ID, plan.Request.Formula, pushed, want)
					}
				}
			}
		}
	}
	if _, err := selectPlan(parseSelect(t, "SELECT T FROM X WHERE B = 'yes'"), schema, Args{}); err == nil {
		t.Error("B = 'yes' translated; want an error naming the text")
	} else if !strings.Contains(err.Error(), "'yes'") {
		t.Errorf("B = 'yes': the error %q does not name the text", err)
	}
}
