package formula

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

func TestSeedHelpers(t *testing.T) {
	tests := []struct {
		name      string
		got, want string
	}{
		{"EscapeQuotes plain", EscapeQuotes("hello"), "hello"},
		{"EscapeQuotes quote", EscapeQuotes("player's name"), `player\'s name`},
		{"EscapeQuotes already escaped", EscapeQuotes(`player\'s name`), `player\'s name`},
		{"EscapeQuotes trailing backslash", EscapeQuotes(`x\`), `x\\`},
		{"EscapeQuotes backslash pair before quote", EscapeQuotes(`x\\'y`), `x\\\'y`},
		{"EscapeQuotes other backslash", EscapeQuotes(`a\b`), `a\\b`},
		{"EscapeQuotes double quote", EscapeQuotes(`say "hi"`), `say "hi"`},
		{"Match two", Match(map[string]any{"A": "1", "B": 2}), "AND({A}='1',{B}=2)"},
		{"MatchAny two", MatchAny(map[string]any{"A": "1", "B": 2}), "OR({A}='1',{B}=2)"},
		{"Match sorted keys", Match(map[string]any{"b": 1, "a": 2, "C": 3}), "AND({C}=3,{a}=2,{b}=1)"},
		{"Match bool", Match(map[string]any{"Done": true}), "{Done}=1"},
		{"Match false", Match(map[string]any{"Done": false}), "{Done}=0"},
		{"Match one string", Match(map[string]any{"First Name": "John"}), "{First Name}='John'"},
		{"MatchAny one", MatchAny(map[string]any{"First Name": "John"}), "{First Name}='John'"},
		{"Match empty", Match(map[string]any{}), ""},
		{"Match quote in name", Match(map[string]any{"Owner's Name": "Mike"}), `{Owner\'s Name}='Mike'`},
		{"Match nil", Match(map[string]any{"N": nil}), "{N}=BLANK()"},
		{"Match time", Match(map[string]any{"D": time.Date(2021, 1, 2, 3, 4, 5, 0, time.FixedZone("", 3600))}), "{D}=DATETIME_PARSE('2021-01-02T02:04:05.000Z')"},
		{"Match float", Match(map[string]any{"N": 3.5}), "{N}=3.5"},
		{"Match negative", Match(map[string]any{"N": -2}), "{N}=-2"},
		{"Match big float", Match(map[string]any{"N": 1e21}), "{N}=1000000000000000000000"},
		{"Match NaN", Match(map[string]any{"N": math.NaN()}), "{N}=(0/0)"},
		{"Match uint8", Match(map[string]any{"N": uint8(7)}), "{N}=7"},
		{"Match json.Number", Match(map[string]any{"N": json.Number("12.5")}), "{N}=12.5"},
		{"Match pointer", Match(map[string]any{"N": ptr(4)}), "{N}=4"},
		{"Match nil pointer", Match(map[string]any{"N": (*int)(nil)}), "{N}=BLANK()"},
		{"Match other type", Match(map[string]any{"N": []int{1, 2}}), "{N}='[1 2]'"},
		{"Match trailing backslash", Match(map[string]any{"A": `x\`, "B": ",TRUE(),"}), `AND({A}='x\\',{B}=',TRUE(),')`},
		{"And", And("A", "B", "C"), "AND(A, B, C)"},
		{"Or", Or("A", "B", "C"), "OR(A, B, C)"},
		{"If", If("1", "0", "1"), "IF(1, 0, 1)"},
		{"Equal", Equal("A", "B"), "A=B"},
		{"Field", Field("Guest's Name"), `{Guest\'s Name}`},
		{"Field plain", Field("Name"), "{Name}"},
		{"Field brace", Field("a}b"), `{a\}b}`},
		{"StrValue", StrValue("A"), "'A'"},
		{"Lower", Lower("{Name}"), "LOWER({Name})"},
		{"Lower bare", Lower("TestValue"), "LOWER(TestValue)"},
		{"Find", Find("'2021'", "{D}", 0), "FIND('2021', {D})"},
		{"Find start", Find("'2021'", "{D}", 2), "FIND('2021', {D}, 2)"},
		{"Find helpers", Find(StrValue("2021"), Field("DatetimeCol"), 0), "FIND('2021', {DatetimeCol})"},
		{"combination", And(Equal(Field("First Name"), StrValue("A")), Equal(Field("Age"), StrValue("15"))), "AND({First Name}='A', {Age}='15')"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, tt.got, tt.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestToAirtableValue(t *testing.T) {
	tests := []struct {
		in, want any
	}{
		{true, 1}, {false, 0}, {"it's", `'it\'s'`}, {3.5, 3.5}, {7, 7}, {nil, nil},
	}
	for _, tt := range tests {
		if got := ToAirtableValue(tt.in); got != tt.want {
			t.Errorf("ToAirtableValue(%#v) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

// TestMatchEvaluates checks that Match's text is a valid formula selecting exactly the equal records.
func TestMatchEvaluates(t *testing.T) {
	s := testSchema{
		{Name: "Name", Type: "singleLineText"},
		{Name: "N", Type: "number"},
		{Name: "Done", Type: "checkbox"},
		{Name: "At", Type: "dateTime"},
		{Name: "Guest's Name", Type: "singleLineText"},
		{Name: "a}b", Type: "singleLineText"},
	}
	at := time.Date(2021, 1, 2, 3, 4, 5, 0, time.UTC)
	rec := &testRecord{cells: map[string]any{
		"Name": `it's \ tricky'`, "N": -2.5, "Done": true, "At": "2021-01-02T03:04:05.000Z",
		"Guest's Name": "Ann", "a}b": "x",
	}}
	match := map[string]any{"Name": `it's \ tricky'`, "N": -2.5, "Done": true, "At": at, "Guest's Name": "Ann", "a}b": "x"}
	p := mustCompile(t, Match(match), s)
	if !p.Match(rec, nil) {
		t.Errorf("%s does not match the record it was built from", p)
	}
	match["N"] = 2.5
	if p := mustCompile(t, Match(match), s); p.Match(rec, nil) {
		t.Errorf("%s matches a record with N=-2.5", p)
	}
	if p := mustCompile(t, MatchAny(match), s); !p.Match(rec, nil) {
		t.Errorf("%s does not match", p)
	}
	if p := mustCompile(t, Match(map[string]any{"Name": nil}), s); p.Match(rec, nil) {
		t.Errorf("%s matches a non-empty name", p)
	}
}

type namedString string
type namedBool bool
type stringer struct{ s string }

func (s stringer) String() string { return s.s }

// TestMatchWritesEveryGoValue checks the text Match writes for each kind of Go value, and that it
// evaluates to the value.
func TestMatchWritesEveryGoValue(t *testing.T) {
	tests := []struct {
		value any
		text  string // Match(map[string]any{"V": value}) is "{V}=" + text
		eval  string // the text evaluates to this (TextOf)
	}{
		{int8(-8), "-8", "-8"},
		{int16(16), "16", "16"},
		{int32(32), "32", "32"},
		{int64(-64), "-64", "-64"},
		{uint(7), "7", "7"},
		{uint64(18446744073709551615), "18446744073709551615", "18446744073709552000"},
		{float32(0.5), "0.5", "0.5"},
		{1e-7, "0.0000001", "1e-7"},
		{math.Inf(1), "(1/0)", "Infinity"},
		{math.Inf(-1), "(-1/0)", "-Infinity"},
		{math.Copysign(0, -1), "-0", "0"},
		{namedString("it's"), `'it\'s'`, "it's"},
		{namedBool(true), "1", "1"},
		{[]byte(`a\`), `'a\\'`, `a\`},
		{json.Number("1e400"), `'1e400'`, "1e400"}, // not a float64: its text
		{stringer{"x'y"}, `'x\'y'`, "x'y"},
		{map[string]int{"a": 1}, `'map[a:1]'`, "map[a:1]"},
		{ptr("s"), "'s'", "s"},
		{time.Date(2024, 3, 15, 13, 45, 30, 0, time.UTC), "DATETIME_PARSE('2024-03-15T13:45:30.000Z')", "2024-03-15T13:45:30.000Z"},
		{nil, "BLANK()", ""},
	}
	for _, tt := range tests {
		src := Match(map[string]any{"V": tt.value})
		if want := "{V}=" + tt.text; src != want {
			t.Errorf("Match(%#v) = %s, want %s", tt.value, src, want)
			continue
		}
		if got := TextOf(mustCompile(t, tt.text, nil).Eval(nil, nil)); got != tt.eval {
			t.Errorf("%s evaluates to %q, want %q", tt.text, got, tt.eval)
		}
	}
}
