package formula

import (
	"strings"
	"testing"
)

// literalValue parses src, which must be exactly one string literal, and returns its value.
func literalValue(t testing.TB, src string) string {
	t.Helper()
	n, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	lit, ok := n.(*StringLit)
	if !ok {
		t.Fatalf("Parse(%q) = %T %v, want one string literal", src, n, n)
	}
	return lit.Value
}

// referenceName parses src, which must be exactly one braced field reference, and returns its name.
func referenceName(t testing.TB, src string) string {
	t.Helper()
	n, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	ref, ok := n.(*Reference)
	if !ok || !ref.Braced {
		t.Fatalf("Parse(%q) = %T %v, want one braced field reference", src, n, n)
	}
	return ref.Name
}

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `''`},
		{"abc", `'abc'`},
		{"it's", `'it\'s'`},
		{`say "hi"`, `'say "hi"'`},
		{`x\`, `'x\\'`},
		{`\'`, `'\\\''`},
		{"a\nb\rc\td", `'a\nb\rc\td'`},
		{"nul\x00bell\x07", "'nul\x00bell\x07'"},
		{"é日本", "'é日本'"},
		{"bad\xffutf8", "'bad\xffutf8'"}, // invalid UTF-8 is copied unchanged
		{"', TRUE(), '", `'\', TRUE(), \''`},
	}
	for _, tt := range tests {
		got := Quote(tt.in)
		if got != tt.want {
			t.Errorf("Quote(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if back := literalValue(t, got); back != tt.in {
			t.Errorf("Quote(%q) reads back as %q", tt.in, back)
		}
	}
}

func TestQuoteInvalidUTF8EvaluatesToSameBytes(t *testing.T) {
	s := "\xff\xfe'\\"
	p, err := Compile(Quote(s)+" & ''", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Eval(nil, nil); got.Str() != s {
		t.Errorf("got %q, want %q", got.Str(), s)
	}
}

func TestFieldRef(t *testing.T) {
	tests := []struct{ name, want string }{
		{"Name", "{Name}"},
		{"Due Date", "{Due Date}"},
		{"Guest's Name", "{Guest's Name}"},
		{`say "hi"`, `{say "hi"}`},
		{`a\b`, `{a\\b}`},
		{"a}b", `{a\}b}`},
		{`back\slash}`, `{back\\slash\}}`},
		{"日本", "{日本}"},
		{"fldXl5MmXYEVxSdkP", "{fldXl5MmXYEVxSdkP}"},
	}
	for _, tt := range tests {
		got, err := FieldRef(tt.name)
		if err != nil {
			t.Errorf("FieldRef(%q): %v", tt.name, err)
			continue
		}
		if got != tt.want {
			t.Errorf("FieldRef(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if back := referenceName(t, got); back != tt.name {
			t.Errorf("FieldRef(%q) reads back as %q", tt.name, back)
		}
	}
}

func TestFieldRefRefusesUnsafeNames(t *testing.T) {
	for _, name := range []string{"", "a{b", "a}}b", "}x}", "a}'", `"}`, "new\nline", "tab\t", "bad\xff"} {
		got, err := FieldRef(name)
		if err == nil {
			t.Errorf("FieldRef(%q) = %q, want an error", name, got)
			continue
		}
		if !strings.Contains(err.Error(), "field id") && !strings.Contains(err.Error(), "its id") {
			t.Errorf("FieldRef(%q) error %q does not tell to use the field id", name, err)
		}
	}
}
