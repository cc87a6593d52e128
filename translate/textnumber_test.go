package translate

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestMySQLNumber(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
	}{
		{"1", 1}, {"1.0", 1}, {" 1", 1}, {"\t\n-2.5x", -2.5}, {"1abc", 1}, {"abc", 0}, {"", 0}, {"-", 0},
		{".", 0}, {".5", 0.5}, {"5.", 5}, {"+3", 3}, {"2e1", 20}, {"2e", 2}, {"2e+", 2}, {"2E-1x", 0.2},
		{"0x10", 0}, {"1,5", 1}, {"- 1", 0}, {"1e999", math.MaxFloat64}, {"-1e999", -math.MaxFloat64},
		{"١", 0}, // Arabic-Indic digit: not a digit for MySQL
	} {
		if got := mysqlNumber(tt.in); got != tt.want {
			t.Errorf("mysqlNumber(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// decimalText is what mysqlNumber reads whole.
var decimalText = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// FuzzMySQLNumber: never panics; a whole decimal reads as strconv reads it; trailing text after a
// decimal that ends in a digit changes nothing.
func FuzzMySQLNumber(f *testing.F) {
	for _, s := range []string{"1", " -2.5e3", "abc", ".", "1e", "0x1p3", "Inf", "NaN", "1_000", "\xff1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := mysqlNumber(s)
		if math.IsNaN(got) || math.IsInf(got, 0) {
			t.Fatalf("mysqlNumber(%q) = %v", s, got)
		}
		trimmed := strings.TrimLeft(s, " \t\n\r\f\v")
		if decimalText.MatchString(trimmed) {
			want, err := strconv.ParseFloat(trimmed, 64)
			if err != nil {
				want = math.Copysign(math.MaxFloat64, want)
			}
			if got != want {
				t.Fatalf("mysqlNumber(%q) = %v, strconv reads %v", s, got, want)
			}
			if last := trimmed[len(trimmed)-1]; last >= '0' && last <= '9' {
				if g := mysqlNumber(s + "x1"); g != got {
					t.Fatalf("mysqlNumber(%q) = %v but mysqlNumber(%q) = %v", s, got, s+"x1", g)
				}
			}
		}
	})
}

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
