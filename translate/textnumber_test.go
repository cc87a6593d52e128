package translate

import (
	"slices"
	"testing"
)

// TestTextWithNumberKeep: text compared with a number follows MySQL locally, and is not pushed.
func TestTextWithNumberKeep(t *testing.T) {
	schema := loadSchema(t)
	rows := []Row{
		{ID: "recONE0000000000a", Fields: map[string]any{"Name": "1.0"}},
		{ID: "recABC0000000000a", Fields: map[string]any{"Name": "abc"}},
		{ID: "recTWO0000000000a", Fields: map[string]any{"Name": " 2x", "Priority": 2.0}},
		{ID: "recBLANK00000000a", Fields: map[string]any{}},
	}
	for _, tt := range []struct {
		where string
		want  []string
		local bool // numeric: not pushed
	}{
		{"Name = 1", []string{"recONE0000000000a"}, true},
		{"Name = 0", []string{"recABC0000000000a"}, true},
		{"Name <> 0", []string{"recONE0000000000a", "recTWO0000000000a"}, true},
		{"Name = Priority", []string{"recTWO0000000000a"}, true},
		{"Name IN (2, 'abc')", []string{"recABC0000000000a", "recTWO0000000000a"}, true}, // 'abc' is 0 too: mixed IN compares numbers
		{"Name IN ('abc', '1.0')", []string{"recONE0000000000a", "recABC0000000000a"}, false},
		{"1 = Name", []string{"recONE0000000000a"}, true},
		{"Name = '1'", nil, false},
	} {
		plan, err := selectPlan(parseSelect(t, "SELECT Name FROM Tasks WHERE "+tt.where), schema, Args{})
		if err != nil {
			t.Fatalf("%s: %v", tt.where, err)
		}
		if tt.local {
			if plan.Exact || plan.Request.Formula != "" {
				t.Errorf("%s: pushed as %q (exact %v); the service's text-to-number rules are not MySQL's", tt.where, plan.Request.Formula, plan.Exact)
			}
		}
		plan.Exact = false
		var got []string
		for _, r := range rows {
			if ok, err := plan.Keep(r); err != nil {
				t.Fatal(err)
			} else if ok {
				got = append(got, r.ID)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.where, got, tt.want)
		}
	}
}
