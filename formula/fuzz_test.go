package formula

import (
	"math"
	"sort"
	"strings"
	"testing"
	"time"
)

var tricky = []string{
	"", "a", "it's", `x\`, `\'`, `\\'`, `'`, `"`, "}", "{", `\}`, "a}b", "', TRUE(), '", "\n\r\t\x00",
	"é日本", "\xff\xfe", "}, TRUE(), {", `\`, `\\`, "' & '", "{Name}", "AND(", ")",
}

// callArgs parses src and returns the arguments of its top-level call named name.
func callArgs(t *testing.T, src, name string) []Node {
	t.Helper()
	n, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	c, ok := n.(*Call)
	if !ok || c.Name != name {
		t.Fatalf("Parse(%q) = %v, want a call of %s", src, n, name)
	}
	return c.Args
}

func FuzzQuote(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		if got := literalValue(t, q); got != s {
			t.Fatalf("Quote(%q) = %s reads back as %q", s, q, got)
		}
		// Inside a larger formula it stays one argument.
		args := callArgs(t, "AND("+q+", "+q+" = 'x', 1)", "AND")
		if len(args) != 3 {
			t.Fatalf("Quote(%q) changed the structure: %d arguments", s, len(args))
		}
		if lit, ok := args[0].(*StringLit); !ok || lit.Value != s {
			t.Fatalf("Quote(%q): first argument is %v", s, args[0])
		}
		p, err := Compile(q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Eval(nil, nil); got.Kind() != KindText && s != "" || got.Str() != s {
			t.Fatalf("Quote(%q) evaluates to %v", s, got)
		}
	})
}

func FuzzStrValue(f *testing.F) {
	for _, s := range tricky {
		f.Add(s, "other")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		// The seed's rule: the literal reads back as the value with each \' read as '.
		want := strings.ReplaceAll(a, `\'`, `'`)
		if got := literalValue(t, StrValue(a)); got != want {
			t.Fatalf("StrValue(%q) = %s reads back as %q, want %q", a, StrValue(a), got, want)
		}
		// Match never lets data change the formula's structure.
		src := Match(map[string]any{"A": a, "B": b})
		args := callArgs(t, src, "AND")
		if len(args) != 2 {
			t.Fatalf("Match built %s with %d arguments", src, len(args))
		}
		for _, arg := range args {
			bin, ok := arg.(*Binary)
			if !ok || bin.Op != "=" {
				t.Fatalf("Match built %s: argument %v is not an equality", src, arg)
			}
			if _, ok := bin.R.(*StringLit); !ok {
				t.Fatalf("Match built %s: the value side is %v", src, bin.R)
			}
		}
	})
}

func FuzzFieldRef(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		ref, err := FieldRef(name)
		if err != nil {
			if !strings.Contains(err.Error(), "{fldXXXXXXXXXXXXXX}") {
				t.Fatalf("FieldRef(%q) error %q does not point to the field id", name, err)
			}
			return
		}
		if got := referenceName(t, ref); got != name {
			t.Fatalf("FieldRef(%q) = %s reads back as %q", name, ref, got)
		}
		args := callArgs(t, "OR("+ref+" = 'x', "+ref+")", "OR")
		if len(args) != 2 {
			t.Fatalf("FieldRef(%q) changed the structure", name)
		}
		// A service that ignores escapes inside braces (the first } ends the name) must not read a
		// formula of another structure: it fails to parse or reads the same shape (possibly naming a
		// field with doubled backslashes, which then is an unknown field).
		if shape, ok := naiveShape("OR(" + ref + " = 'x', 1)"); ok && shape != "OR(({f} = 'x'), 1)" {
			t.Fatalf("FieldRef(%q) = %s reads as %s to an escape-unaware service", name, ref, shape)
		}
	})
}

// naiveShape parses src with field references ending at the first } (no escapes in braces), each
// reference replaced by the placeholder f, and returns the printed tree.
func naiveShape(src string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '{':
			end := strings.IndexByte(src[i:], '}')
			if end < 0 {
				return "", false
			}
			b.WriteString(" f ")
			i += end
		case '\'', '"':
			// Copy the literal with its escapes.
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) {
				return "", false
			}
			b.WriteString(src[i : j+1])
			i = j
		default:
			b.WriteByte(c)
		}
	}
	n, err := Parse(b.String())
	if err != nil {
		return "", false
	}
	return n.String(), true
}

func FuzzField(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if name == "" || strings.Count(name, `\'`) > 0 && strings.ReplaceAll(name, `\'`, `'`) == "" {
			return
		}
		want := strings.ReplaceAll(name, `\'`, `'`)
		src := "AND(" + Field(name) + " = 1, 1)"
		args := callArgs(t, src, "AND")
		if len(args) != 2 {
			t.Fatalf("Field(%q) changed the structure of %s", name, src)
		}
		bin, ok := args[0].(*Binary)
		if !ok {
			t.Fatalf("%s: %v", src, args[0])
		}
		if ref, ok := bin.L.(*Reference); !ok || ref.Name != want {
			t.Fatalf("Field(%q) = %s reads as %v, want %q", name, Field(name), bin.L, want)
		}
	})
}

func FuzzParse(f *testing.F) {
	seeds := []string{
		"AND({Status}='Done', {Priority} >= 2, FIND('x', LOWER({Name})))",
		"IF({Due} < TODAY(), 'late', 'ok')",
		"DATETIME_FORMAT(SET_TIMEZONE(NOW(), 'Europe/Paris'), 'LLLL')",
		"-(-1) * 2 & 'x' != \"y\"",
		"{a\\}b} = 'it\\'s'",
		"SWITCH(Status, 'a', 1, 2)",
		"ARRAYJOIN(ARRAYSLICE({Tags}, -2), '; ')",
		"REGEX_REPLACE({Name}, '(\\\\w+)', '$1$1')",
		"((1", "'", "{", "1e", "1e+", ".5.5", "AND(,)", "\x00", "\xff",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		n, err := Parse(src)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Parse(%q) error %T, want *Error", src, err)
			}
			return
		}
		printed := n.String()
		n2, err := Parse(printed)
		if err != nil {
			t.Fatalf("Parse(%q) printed %q, which does not parse: %v", src, printed, err)
		}
		if again := n2.String(); again != printed {
			t.Fatalf("print is not stable: %q then %q", printed, again)
		}
		p, err := Compile(src, schema)
		if err != nil {
			return
		}
		env := testEnv()
		p.Eval(baseRecord, env)
		p.Eval(baseRecord.with(map[string]any{}), env)
		p.Match(nil, env)
	})
}

func FuzzDateFormat(f *testing.F) {
	f.Add("YYYY-MM-DD HH:mm:ss", "2024-03-15 13:45:30", uint8(0))
	f.Add("dddd, MMMM Do YYYY h:mm a [at] Z", "Friday, March 15th 2024 1:45 pm at +01:00", uint8(0))
	f.Add("X", "1710510330", uint8(0))
	f.Add("[", "", uint8(0))
	f.Add("LLLL", "Friday, March 15, 2024 1:45 PM", uint8(0))
	f.Add("llll Do Wo", "ven. 15 mars 2024 13:45 15 11e", uint8(5))
	f.Add("LLLL", "fredag d. 15. marts 2024 kl. 13:45", uint8(1))
	tags := make([]string, 0, len(locales))
	for tag := range locales {
		tags = append(tags, tag)
	}
	sort.Strings(tags)
	f.Fuzz(func(t *testing.T, format, input string, locale uint8) {
		names := locales[tags[int(locale)%len(tags)]]
		at := time.Date(2024, 3, 15, 13, 45, 30, 123456789, time.UTC)
		out := formatTime(at, format, names)
		if len(format) < 64 && len(out) > 64*len(format)+64 {
			t.Fatalf("format %q produced %d bytes", format, len(out))
		}
		parseWithFormat(input, format, time.UTC, names, at)
		parseDateText(input, time.UTC)
		// Formatting with the numeric tokens and reading back gives the same instant.
		if format == "YYYY-MM-DD HH:mm:ss" || format == "L LTS" {
			back, ok := parseWithFormat(out, format, time.UTC, names, at)
			if !ok || !back.Equal(at.Truncate(time.Second)) {
				t.Fatalf("round trip with %s: %q -> %v %v", format, out, back, ok)
			}
		}
	})
}

func TestDeepNestingCompilesQuickly(t *testing.T) {
	src := "'a'"
	for i := 0; i < 60; i++ {
		src = "FIND('x', LOWER(" + src + "))"
	}
	// 60 levels of FIND(LOWER(...)) is 120 calls; exponential compilation would never finish.
	if _, err := Compile(src, nil); err != nil {
		t.Fatal(err)
	}
}

// FuzzMatch builds formulas from data with every seed helper (field names included, which
// FuzzStrValue keeps fixed) and checks that the text parses to exactly the intended structure and
// that numbers read back as themselves.
func FuzzMatch(f *testing.F) {
	for _, s := range tricky {
		f.Add(s, s, 1.5, 2)
	}
	f.Add(`Name\`, `x\`, math.NaN(), 0)
	f.Add(`a\'b}`, `'`, math.Inf(-1), -3)
	f.Add("Owner's Name", "O'Brien", math.Copysign(0, -1), 1)
	f.Fuzz(func(t *testing.T, name, value string, num float64, start int) {
		if name == "" {
			return // Field("") is "{}", documented as not parsing; FieldRef refuses it
		}
		wantName := strings.ReplaceAll(name, `\'`, `'`)
		wantValue := strings.ReplaceAll(value, `\'`, `'`)
		for _, join := range []string{"AND", "OR"} {
			values := map[string]any{name: value, name + "#": num}
			src := Match(values)
			if join == "OR" {
				src = MatchAny(values)
			}
			args := callArgs(t, src, join)
			if len(args) != 2 {
				t.Fatalf("%s has %d arguments, want 2", src, len(args))
			}
			for _, arg := range args {
				bin, ok := arg.(*Binary)
				if !ok || bin.Op != "=" {
					t.Fatalf("%s: argument %v is not an equality", src, arg)
				}
				ref, ok := bin.L.(*Reference)
				if !ok || !ref.Braced {
					t.Fatalf("%s: the field side is %v", src, bin.L)
				}
				switch ref.Name {
				case wantName:
					if lit, ok := bin.R.(*StringLit); !ok || lit.Value != wantValue {
						t.Fatalf("%s: the value side is %v, want the literal %q", src, bin.R, wantValue)
					}
				case wantName + "#":
					got := mustCompile(t, bin.R.String(), nil).Eval(nil, nil)
					if got.Kind() != KindNumber || got.Num() != num && !(math.IsNaN(num) && got.IsNaN()) ||
						math.Signbit(got.Num()) != math.Signbit(num) && !math.IsNaN(num) {
						t.Fatalf("%s: the number %v reads back as %v", src, num, got)
					}
				default:
					t.Fatalf("%s: field %q, want %q or %q", src, ref.Name, wantName, wantName+"#")
				}
			}
		}
		if lit, ok := mustParse(t, ToAirtableValue(value).(string)).(*StringLit); !ok || lit.Value != wantValue {
			t.Fatalf("ToAirtableValue(%q) = %v", value, ToAirtableValue(value))
		}
		// The builders keep their arguments' structure: each stays one argument.
		src := And(
			Equal(Field(name), StrValue(value)),
			Find(StrValue(value), Lower(Field(name)), start),
			If(Field(name), Quote(value), StrValue(value)),
		)
		args := callArgs(t, src, "AND")
		if len(args) != 3 {
			t.Fatalf("%s has %d arguments, want 3", src, len(args))
		}
		find, ok := args[1].(*Call)
		if wantArgs := 2 + btoi(start != 0); !ok || find.Name != "FIND" || len(find.Args) != wantArgs {
			t.Fatalf("%s: FIND is %v", src, args[1])
		}
		if c, ok := args[2].(*Call); !ok || c.Name != "IF" || len(c.Args) != 3 {
			t.Fatalf("%s: IF is %v", src, args[2])
		} else if lit, ok := c.Args[1].(*StringLit); !ok || lit.Value != value {
			t.Fatalf("%s: Quote(%q) reads as %v", src, value, c.Args[1])
		}
	})
}

func mustParse(t *testing.T, src string) Node {
	t.Helper()
	n, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return n
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
