package sqlvalue

import (
	"math"
	"strconv"
	"testing"
)

// TestFloatText holds FloatText to MySQL 8's my_gcvt (String::set_real's wide buffer). Every
// want is the answer of MariaDB 10.11 to SELECT of the same literal as a DOUBLE (the same
// my_gcvt), e.g. SELECT 1e15, 3703703669999999.5e0, 1.2345678901234567e-10.
func TestFloatText(t *testing.T) {
	for _, c := range []struct {
		name string
		f    float64
		want string
	}{
		{"zero", 0, "0"},
		{"negative zero", math.Copysign(0, -1), "0"},
		{"integer", 42, "42"},
		{"fraction", 1.5, "1.5"},
		{"1e14 has 15 integer digits", 1e14, "100000000000000"},
		{"largest positional integer", 999999999999999, "999999999999999"},
		{"1e15 has 16 integer digits", 1e15, "1e15"},
		{"-1e15", -1e15, "-1e15"},
		{"16 integer digits with a fraction", 3703703669999999.5, "3703703669999999.5"},
		{"negative, the oracle's seed 216892", -3703703669999999.5, "-3703703669999999.5"},
		{"17 digits, no fraction", 12345678901234567, "1.2345678901234568e16"},
		{"1e16 + 0.5 rounds to 1e16", 1e16 + 0.5, "1e16"},
		{"123456789012345678e0", 123456789012345678, "1.2345678901234568e17"},
		{"1e20", 1e20, "1e20"},
		{"three-digit exponent", 1.5e300, "1.5e300"},
		{"0.0001", 0.0001, "0.0001"},
		{"1e-5", 1e-5, "0.00001"},
		{"1.25e-7", 1.25e-7, "0.000000125"},
		{"17 digits after 9 zeros", 1.2345678901234567e-10, "0.00000000012345678901234568"},
		{"1e-15, the smallest positional", 1e-15, "0.000000000000001"},
		{"1e-16", 1e-16, "1e-16"},
		{"-3e-300", -3e-300, "-3e-300"},
		{"largest double", math.MaxFloat64, "1.7976931348623157e308"},
		{"smallest subnormal", 5e-324, "5e-324"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := FloatText(c.f); got != c.want {
				t.Errorf("FloatText(%v): got %q, want %q", c.f, got, c.want)
			}
			if got := TextOf(c.f); got != c.want { // a DOUBLE stored in a text cell, LIKE's text
				t.Errorf("TextOf(%v): got %q, want %q", c.f, got, c.want)
			}
		})
	}
}

// FuzzFloatText: the text reads back to the same float (the shortest digits that do), has no
// '+' and no leading zero in its exponent, and is positional exactly where my_gcvt is.
func FuzzFloatText(f *testing.F) {
	for _, seed := range []float64{0, 1, -1.5, 1e14, math.Nextafter(1e14, 0), 99999999999999.99, 1e-14, math.Nextafter(1e-14, 0), -2.5e-14, 1e15, 3703703669999999.5, 1e16 + 2, 123456789012345678, 1e-5, 1e-15, 1e-16, 5e-324, math.MaxFloat64} {
		f.Add(math.Float64bits(seed))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return
		}
		s := FloatText(x)
		if x != 0 { // the positional shortcut writes what placing the point from the exponent writes
			if general := string(appendFloatTextExp(nil, x)); s != general {
				t.Fatalf("FloatText(%v) = %q, placing the point from the exponent gives %q", x, s, general)
			}
		}
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || back != x {
			t.Fatalf("FloatText(%v) = %q reads back as %v (%v)", x, s, back, err)
		}
		if shortest := strconv.FormatFloat(x, 'e', -1, 64); len(mantissaDigits(s)) != len(mantissaDigits(shortest)) && x != 0 {
			t.Fatalf("FloatText(%v) = %q: got %d significant digits, want %d (%s)", x, s, len(mantissaDigits(s)), len(mantissaDigits(shortest)), shortest)
		}
		a := math.Abs(x)
		positional := a >= 1e-15 && (a < 1e15 || x != math.Trunc(x))
		if x == 0 {
			positional = true
		}
		for i := 0; i < len(s); i++ {
			if s[i] == 'e' {
				if positional {
					t.Fatalf("FloatText(%v) = %q: got an exponent, want positional", x, s)
				}
				if exp := s[i+1:]; exp[0] == '+' || exp[0] == '0' || (exp[0] == '-' && exp[1] == '0') {
					t.Fatalf("FloatText(%v) = %q: exponent %q has a '+' or a leading zero", x, s, exp)
				}
				return
			}
		}
		if !positional {
			t.Fatalf("FloatText(%v) = %q: got positional, want an exponent", x, s)
		}
	})
}

// mantissaDigits returns the significant digits of a decimal number's text.
func mantissaDigits(s string) string {
	var d []byte
	for i := 0; i < len(s) && s[i] != 'e' && s[i] != 'E'; i++ {
		if s[i] >= '0' && s[i] <= '9' {
			d = append(d, s[i])
		}
	}
	for len(d) > 0 && d[0] == '0' {
		d = d[1:]
	}
	for len(d) > 0 && d[len(d)-1] == '0' {
		d = d[:len(d)-1]
	}
	return string(d)
}
