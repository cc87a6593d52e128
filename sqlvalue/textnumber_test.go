package sqlvalue

import (
	"math"
	"regexp"
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
		if got := TextNumber(tt.in); got != tt.want {
			t.Errorf("TextNumber(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// decimalText is what TextNumber reads whole.
var decimalText = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// FuzzMySQLNumber: never panics; a whole decimal reads as strconv reads it; trailing text after a
// decimal that ends in a digit changes nothing.
func FuzzMySQLNumber(f *testing.F) {
	for _, s := range []string{"1", " -2.5e3", "abc", ".", "1e", "0x1p3", "Inf", "NaN", "1_000", "\xff1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := TextNumber(s)
		if math.IsNaN(got) || math.IsInf(got, 0) {
			t.Fatalf("TextNumber(%q) = %v", s, got)
		}
		trimmed := strings.TrimLeft(s, " \t\n\r\f\v")
		if decimalText.MatchString(trimmed) {
			want, err := strconv.ParseFloat(trimmed, 64)
			if err != nil {
				want = math.Copysign(math.MaxFloat64, want)
			}
			if got != want {
				t.Fatalf("TextNumber(%q) = %v, strconv reads %v", s, got, want)
			}
			if last := trimmed[len(trimmed)-1]; last >= '0' && last <= '9' {
				if g := TextNumber(s + "x1"); g != got {
					t.Fatalf("TextNumber(%q) = %v but TextNumber(%q) = %v", s, got, s+"x1", g)
				}
			}
		}
	})
}
