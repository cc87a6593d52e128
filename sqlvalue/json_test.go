package sqlvalue

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// FuzzJSONPath checks that any path text is either refused with error 3143 or read into a path
// whose search of a document never panics and whose wildcard flag agrees with its matches.
func FuzzJSONPath(f *testing.F) {
	for _, seed := range []string{"$", "$.a", `$."a b"`, "$[0]", "$[*]", "$.*", "$**.a", "$[last]", "$[last-1 to last]",
		"$[1 to 3]", "$ . a [ 2 ]", "$.é", "$**", "$[", `$."`, "$[last -", "$.a.b.c[0][1]"} {
		f.Add(seed)
	}
	doc, _ := parseJSON(`{"a": [1, {"b": [2, 3]}, "x"], "a b": {"c": null}, "é": [[]]}`)
	f.Fuzz(func(t *testing.T, text string) {
		p, err := parseJSONPath(text)
		if err != nil {
			var je *JSONError
			if !errors.As(err, &je) || je.Code != 3143 {
				t.Fatalf("%q: got %v, want error 3143", text, err)
			}
			return
		}
		found := p.find(doc)
		if !p.wildcard() && len(found) > 1 {
			t.Fatalf("%q: a path without wildcards matched %d values", text, len(found))
		}
		for _, m := range found {
			again, err := parseJSONPath(m.path)
			if err != nil {
				t.Fatalf("%q: the match's path %q does not read back: %v", text, m.path, err)
			}
			if back := again.find(doc); len(back) != 1 || JSONFormat(back[0].val) != JSONFormat(m.val) {
				t.Fatalf("%q: the match's path %q finds %v, want %s", text, m.path, back, JSONFormat(m.val))
			}
		}
	})
}

// TestJSONDoubleText checks doubles in JSON text against MySQL 8's: my_gcvt's text (the
// shortest digits that read back, positional from 1e-15 up to 15 integer digits, else with an
// exponent) and ".0" where that has no point and no exponent (Json_wrapper's J_DOUBLE in
// mysql-server's sql-common/json_dom.cc). MariaDB 10.11's JSON_ARRAY of the same doubles prints
// the same text except the ".0" (1234560000000 where MySQL writes 1234560000000.0).
func TestJSONDoubleText(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{1e300, "1e300"},
		{0.1, "0.1"},
		{1.0 / 3, "0.3333333333333333"},
		{1e-7, "0.0000001"},
		{1.5e-5, "0.000015"},
		{1e-5, "0.00001"},
		{1e-15, "0.000000000000001"},
		{1e-16, "1e-16"},
		{123456789012345678.0, "1.2345678901234568e17"},
		{math.Copysign(0, -1), "-0.0"},
		{0, "0.0"},
		{100, "100.0"},
		{-1.5, "-1.5"},
		{1234560000000, "1234560000000.0"},
		{999999999999999, "999999999999999.0"},
		{1e15, "1e15"},
		{1e16, "1e16"},
		{3703703669999999.5, "3703703669999999.5"},
		{-2.5e-300, "-2.5e-300"},
		{1.7976931348623157e308, "1.7976931348623157e308"},
		{5e-324, "5e-324"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := formatJSONFloat(tt.f); got != tt.want {
				t.Errorf("formatJSONFloat(%v) = %s, want %s", tt.f, got, tt.want)
			}
		})
	}
	// A double read from JSON text is written the same way (JSON_EXTRACT of a document).
	doc, err := parseJSON(`[1e300, 0.1, 1e-7, 1.0, -0.0, 1E2, 12345678901234567890, 1.5e-5, 1e16, 123456789012345678901234]`)
	if err != nil {
		t.Fatal(err)
	}
	want := `[1e300, 0.1, 0.0000001, 1.0, -0.0, 100.0, 12345678901234567890, 0.000015, 1e16, 1.2345678901234569e23]`
	if got := JSONFormat(doc); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// FuzzJSONDoubleText checks that every double's JSON text reads back as the same double and
// still reads as a double (a point or an exponent).
func FuzzJSONDoubleText(f *testing.F) {
	for _, seed := range []float64{0, 1, -1, 0.1, 1e-7, 1e15, 1e16, 1e-15, 1e-16, 1e300, 5e-324, 3703703669999999.5, math.MaxFloat64} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return // no SQL value
		}
		text := formatJSONFloat(x)
		back, err := strconv.ParseFloat(text, 64)
		if err != nil || back != x || math.Signbit(back) != math.Signbit(x) {
			t.Fatalf("%v: %s reads back as %v (%v)", x, text, back, err)
		}
		if !strings.ContainsAny(text, ".e") {
			t.Fatalf("%v: %s reads as an integer", x, text)
		}
	})
}
