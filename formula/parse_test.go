package formula

import (
	"errors"
	"strings"
	"testing"
)

func TestParseTree(t *testing.T) {
	tests := []struct{ src, want string }{
		{"1 + 2 * 3", "(1 + (2 * 3))"},
		{"1 * 2 + 3", "((1 * 2) + 3)"},
		{"1 - 2 - 3", "((1 - 2) - 3)"},
		{"-1 * -2", "((-1) * (-2))"},
		{"'a' & 1 + 2", "('a' & (1 + 2))"},
		{"{A} & 'x' = 'yx'", "(({A} & 'x') = 'yx')"},
		{"a <= b != c", "(({a} <= {b}) != {c})"},
		{"and(1, 2)", "AND(1, 2)"},
		{"NOW()", "NOW()"},
		{"  \n{Due Date}\t>=\r\nTODAY()  ", "({Due Date} >= TODAY())"},
		{`"double \"quoted\""`, `'double "quoted"'`},
		{`'it\'s'`, `'it\'s'`},
		{`{a\}b}`, `{a\}b}`},
		{"fldXl5MmXYEVxSdkP", "{fldXl5MmXYEVxSdkP}"},
		{"Prix_TTC * 1", "({Prix_TTC} * 1)"},
		{"((((1))))", "1"},
		{"1e3", "1000"},
		{"0.5", "0.5"},
		{"IF(1,)", ""}, // error, see below
	}
	for _, tt := range tests {
		n, err := Parse(tt.src)
		if tt.want == "" {
			if err == nil {
				t.Errorf("Parse(%q) = %v, want an error", tt.src, n)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.src, err)
			continue
		}
		if got := n.String(); got != tt.want {
			t.Errorf("Parse(%q) = %s, want %s", tt.src, got, tt.want)
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		src     string
		pos     int
		mention string
	}{
		{"", 0, "empty"},
		{"   ", 0, "empty"},
		{"1 +", 3, "expected a value"},
		{"(1 + 2", 6, "expected )"},
		{"AND(1, 2", 8, "expected , or )"},
		{"AND(1 2)", 6, "expected , or )"},
		{"'abc", 0, "unterminated string"},
		{`"abc\"`, 0, "unterminated string"},
		{"{Name", 0, "unterminated field reference"},
		{"{}", 0, "empty field reference"},
		{"1 2", 2, "after the end"},
		{"1 # 2", 2, "unexpected character"},
		{"1 == 2", 3, "expected a value"},
		{"3abc", 0, "runs into a name"},
		{"'it''s'", 4, "after the end"}, // a doubled quote is not an escape
		{"a ! b", 2, "unexpected character"},
		{strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), 200, "nested"},
		{strings.Repeat("-", 300) + "1", 200, "nested"},
		{"1" + strings.Repeat("+1", 10001), 20001, "operators in a row"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.src)
		var fe *Error
		if !errors.As(err, &fe) {
			t.Errorf("Parse(%q) error = %v, want *Error", tt.src, err)
			continue
		}
		if fe.Pos != tt.pos || !strings.Contains(fe.Msg, tt.mention) {
			t.Errorf("Parse(%q) = %q at %d, want %q at %d", tt.src, fe.Msg, fe.Pos, tt.mention, tt.pos)
		}
		if !strings.HasPrefix(fe.Msg, "Invalid formula. Please check your formula text") {
			t.Errorf("Parse(%q) message %q does not start as the service's", tt.src, fe.Msg)
		}
		if !strings.Contains(fe.Error(), "byte") {
			t.Errorf("Error() %q does not name the position", fe.Error())
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		src string
		pos int
		msg string
	}{
		{"{id}=recyaAPrk3b74OnGz", 0, "Unknown field names: id, recyaaprk3b74ongz"},
		{"AND({Nope} = 1, {Name} = 'x', {NOPE} = 2, Other)", 4, "Unknown field names: nope, other"},
		{"{name} = 'x'", 0, "Unknown field names: name"}, // the test schema is case-sensitive
		{"FOO(1)", 0, "Unknown field names: foo()"},
		{"1 + bar()", 4, "Unknown field names: bar()"},
		{"id() = 'x'", 0, "Unknown field names: id()"}, // the service's wording (reference §2.2)
		{"FOO({Nope}) & {Name} & Foo(Other) & {nope}", 0, "Unknown field names: foo(), nope, other"},
		{"IF(FOO(1), NOT(1, 2))", 11, "Wrong number of arguments to NOT: it takes 1 argument, got 2"},
		{"FIND('x')", 0, "Wrong number of arguments to FIND: it takes 2 or 3 arguments, got 1"},
		{"NOT(1, 2)", 0, "Wrong number of arguments to NOT: it takes 1 argument, got 2"},
		{"AND()", 0, "Wrong number of arguments to AND: it takes at least 1 argument, got 0"},
		{"TODAY(1)", 0, "Wrong number of arguments to TODAY: it takes 0 arguments, got 1"},
		{"IF(1, REPLACE('a', 1))", 6, "Wrong number of arguments to REPLACE: it takes 4 arguments, got 2"},
		{"DATETIME_PARSE()", 0, "Wrong number of arguments to DATETIME_PARSE: it takes 1 to 3 arguments, got 0"},
	}
	for _, tt := range tests {
		_, err := Compile(tt.src, schema)
		var fe *Error
		if !errors.As(err, &fe) {
			t.Errorf("Compile(%q) error = %v, want *Error", tt.src, err)
			continue
		}
		if fe.Pos != tt.pos || fe.Msg != tt.msg {
			t.Errorf("Compile(%q) = %q at %d, want %q at %d", tt.src, fe.Msg, fe.Pos, tt.msg, tt.pos)
		}
	}
}

func TestCompileNilSchema(t *testing.T) {
	if _, err := Compile("1 + 1", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Compile("{A}", nil); err == nil || !strings.Contains(err.Error(), "Unknown field names: a") {
		t.Fatalf("got %v, want unknown field a", err)
	}
}

func TestFunctionNamesAreCaseInsensitive(t *testing.T) {
	p := mustCompile(t, "if(and(1, true()), lower('X'), 'n')", nil)
	if got := p.Eval(nil, nil).Str(); got != "x" {
		t.Fatalf("got %q", got)
	}
}

func TestFields(t *testing.T) {
	p := mustCompile(t, "AND({Status} = 'Done', Priority >= 2, {fldSTATUS00000001} != '', FIND('x', LOWER({Name})))", schema)
	var names []string
	for _, f := range p.Fields() {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "Status,Priority,Name" {
		t.Fatalf("Fields() = %s, want Status,Priority,Name", got)
	}
	if p.String() == "" {
		t.Fatal("String() is empty")
	}
}

func TestFunctionNamesSorted(t *testing.T) {
	names := FunctionNames()
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Fatalf("not sorted at %d: %s, %s", i, names[i-1], names[i])
		}
	}
}
