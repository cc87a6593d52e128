package formula

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/internal/clock"
)

// testSchema resolves names case-sensitively and ids exactly, as the emulator does.
type testSchema []FieldInfo

func (s testSchema) LookupField(nameOrID string) (FieldInfo, bool) {
	for _, f := range s {
		if f.Name == nameOrID || f.ID == nameOrID {
			return f, true
		}
	}
	return FieldInfo{}, false
}

type testRecord struct {
	id       string
	created  time.Time
	modified time.Time
	cells    map[string]any // by field name, in the API's JSON form
}

func (r *testRecord) RecordID() string            { return r.id }
func (r *testRecord) CreatedTime() time.Time      { return r.created }
func (r *testRecord) LastModifiedTime() time.Time { return r.modified }
func (r *testRecord) Cell(f FieldInfo) Value      { return FromCell(f, r.cells[f.Name]) }
func (r *testRecord) with(cells map[string]any) *testRecord {
	c := *r
	c.cells = cells
	return &c
}

var schema = testSchema{
	{ID: "fldNAME0000000001", Name: "Name", Type: "singleLineText"},
	{ID: "fldNOTES000000001", Name: "Notes", Type: "multilineText"},
	{ID: "fldPRIORITY000001", Name: "Priority", Type: "number", Options: map[string]any{"precision": 0.0}},
	{ID: "fldPRICE000000001", Name: "Price", Type: "currency"},
	{ID: "fldPERCENT0000001", Name: "Percent", Type: "percent"},
	{ID: "fldDURATION000001", Name: "Duration", Type: "duration"},
	{ID: "fldRATING00000001", Name: "Rating", Type: "rating"},
	{ID: "fldSTATUS00000001", Name: "Status", Type: "singleSelect"},
	{ID: "fldTAGS0000000001", Name: "Tags", Type: "multipleSelects"},
	{ID: "fldDONE0000000001", Name: "Done", Type: "checkbox"},
	{ID: "fldDUE00000000001", Name: "Due", Type: "date"},
	{ID: "fldAT000000000001", Name: "At", Type: "dateTime"},
	{ID: "fldOWNER000000001", Name: "Owner", Type: "multipleRecordLinks"},
	{ID: "fldPERSON00000001", Name: "Person", Type: "singleCollaborator"},
	{ID: "fldPEOPLE00000001", Name: "People", Type: "multipleCollaborators"},
	{ID: "fldFILES000000001", Name: "Files", Type: "multipleAttachments"},
	{ID: "fldLOOKUP00000001", Name: "Hours", Type: "multipleLookupValues", Options: map[string]any{"result": map[string]any{"type": "number"}}},
	{ID: "fldROLLUP00000001", Name: "Total", Type: "rollup", Options: map[string]any{"result": map[string]any{"type": "number"}}},
	{ID: "fldFORMULA0000001", Name: "Score", Type: "formula", Options: map[string]any{"result": map[string]any{"type": "number"}}},
	{ID: "fldCOUNT000000001", Name: "Count", Type: "count"},
	{ID: "fldAUTO0000000001", Name: "Auto", Type: "autoNumber"},
	{ID: "fldCREATED0000001", Name: "Created", Type: "createdTime"},
	{ID: "fldBARCODE0000001", Name: "Barcode", Type: "barcode"},
	{ID: "fldBUTTON00000001", Name: "Button", Type: "button"},
	{ID: "fldEMAIL000000001", Name: "Email", Type: "email"},
	{ID: "fldAI000000000001", Name: "Summary", Type: "aiText"},
	{ID: "fldSPACE000000001", Name: "Due Date", Type: "date"},
	{ID: "fldODD0000000001}", Name: "odd}name", Type: "singleLineText"},
}

var baseRecord = &testRecord{
	id:       "recTEST0000000001",
	created:  time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
	modified: time.Date(2024, 2, 3, 4, 5, 6, 0, time.UTC),
	cells: map[string]any{
		"Name":     "Write Spec",
		"Notes":    "line one\nline two",
		"Priority": 3.0,
		"Price":    json.Number("6.5"),
		"Percent":  0.25,
		"Duration": 4980.0,
		"Rating":   4.0,
		"Status":   "Done",
		"Tags":     []any{"Red", "Green"},
		"Done":     true,
		"Due":      "2024-03-15",
		"At":       "2024-03-15T13:45:30.000Z",
		"Owner":    []any{"Ada Lovelace", "Alan Turing"},
		"Person":   map[string]any{"id": "usrPnLezZNh82BzJC", "email": "b@example.com", "name": "Brian Leonard"},
		"People":   []any{map[string]any{"id": "usr1", "name": "Ann"}, map[string]any{"id": "usr2", "email": "bob@example.com"}},
		"Files":    []any{map[string]any{"id": "att1", "url": "https://x/a.png", "filename": "a.png"}},
		"Hours":    []any{2.0, 3.5},
		"Total":    540.8333333333334,
		"Score":    map[string]any{"specialValue": "NaN"},
		"Count":    0.0,
		"Auto":     7.0,
		"Created":  "2021-12-28T19:00:56.000Z",
		"Barcode":  map[string]any{"text": "A234567"},
		"Button":   map[string]any{"label": "Open URL", "url": "https://example.com"},
		"Email":    "a@example.com",
		"Summary":  map[string]any{"state": "generated", "isStale": false, "value": "Short text"},
		"Due Date": "2024-12-31",
		"odd}name": "odd",
	},
}

var fixedNow = time.Date(2024, 3, 10, 12, 0, 0, 0, time.UTC)

func testEnv() *Env { return &Env{Clock: clock.NewFake(fixedNow)} }

func nan() map[string]any { return map[string]any{"specialValue": "NaN"} }

var errCell = map[string]any{"error": "#ERROR!"}

type evalCase struct {
	src  string
	want any // the result's Cell()
}

func runEvalCases(t *testing.T, rec Record, env *Env, cases []evalCase) {
	t.Helper()
	for _, tc := range cases {
		p, err := Compile(tc.src, schema)
		if err != nil {
			t.Errorf("Compile(%q): %v", tc.src, err)
			continue
		}
		got := p.Eval(rec, env)
		if !reflect.DeepEqual(got.Cell(), tc.want) {
			t.Errorf("%s = %#v (%s), want %#v", tc.src, got.Cell(), got, tc.want)
		}
	}
}

func TestOperators(t *testing.T) {
	runEvalCases(t, baseRecord, testEnv(), []evalCase{
		{"1 + 2 * 3", 7.0},
		{"(1 + 2) * 3", 9.0},
		{"10 - 2 - 3", 5.0},
		{"12 / 4 / 3", 1.0},
		{"-2 * 3", -6.0},
		{"--2", 2.0},
		{"2 - -2", 4.0},
		{"1 / 0", map[string]any{"specialValue": "Infinity"}},
		{"0 / 0", nan()},
		{"1.5e3", 1500.0},
		{".5 + 1", 1.5},
		{"'a' & 'b' & 1 + 2", "ab3"}, // + binds tighter than &
		{"1 & 2 = '12'", true},       // & binds tighter than =
		{"1 < 2 = 1", true},          // comparisons are left-associative: (1<2)=1
		{"'3' + 4", 7.0},             // numeric text is a number in arithmetic
		{"'x' + 1", errCell},         // other text is not
		{"BLANK() + 1", 1.0},
		{"TRUE() + TRUE()", 2.0},
		{"3 & ''", "3"},
		{"0.1 + 0.2 & ''", "0.30000000000000004"},
		{"1e21 & ''", "1e+21"},
		{"TRUE() & ''", "1"},
		{"BLANK() & 'x'", "x"},
		{"{Due} & ''", "2024-03-15"},
		{"{At} & ''", "2024-03-15T13:45:30.000Z"},
		{"{Tags} & ''", "Red, Green"},
		{"{Owner} & ''", "Ada Lovelace, Alan Turing"},
		{"'a\\'b' & \"c\\\"d\"", `a'bc"d`},
		{"'multi\nline'", "multi\nline"},
		{"'tab\\tnew\\nline\\\\'", "tab\tnew\nline\\"},
		{"ERROR() & 'x'", errCell},
		{"-'x'", errCell},
	})
}

func TestComparisons(t *testing.T) {
	blank := baseRecord.with(map[string]any{})
	runEvalCases(t, blank, testEnv(), []evalCase{
		{"BLANK() = 0", true},
		{"BLANK() = ''", true},
		{"{Priority} = 0", true},
		{"{Priority} = BLANK()", true},
		{"{Name} = ''", true},
		{"{Name} = 0", true},
		{"{Name} != 'a'", true},
		{"{Done} = FALSE()", true},
		{"{Done} = 0", true},
		{"{Due} = BLANK()", true},
		{"{Tags} = ''", true},
	})
	runEvalCases(t, baseRecord, testEnv(), []evalCase{
		{"{Status} = 'Done'", true},
		{"{Status} = 'done'", nil}, // = on text is case-sensitive
		{"{Status} != 'done'", true},
		{"{Priority} = 3", true},
		{"{Priority} >= 2", true},
		{"{Priority} > 3", nil},
		{"{Priority} <= 3", true},
		{"{Priority} < 3", nil},
		{"{Priority} = '3'", true}, // text that reads as the number
		{"'3.0' = 3", true},
		{"'abc' = 0", nil},
		{"'10' > 9", true}, // numeric text compares as a number
		{"'b' > 'a'", true},
		{"'B' < 'a'", true}, // by code point
		{"'abc' > 5", true}, // text that is not a number compares as text with "5"
		{"{Done} = TRUE()", true},
		{"{Done} = 1", true},
		{"{Due} = '2024-03-15'", true},
		{"{Due} < '2024-03-16'", true},
		{"{At} = '2024-03-15T13:45:30Z'", true},
		{"{At} > {Due}", true},
		{"{Due} = 0", nil},
		{"{Due} = 'March 15, 2024'", nil},          // operators read only ISO 8601 text as a date
		{"IS_SAME({Due}, 'March 15, 2024')", true}, // date functions read common formats too
		{"{Due} > 0", nil},
		{"{Score} = {Score}", nil}, // NaN equals nothing
		{"{Score} < 1", nil},
		{"{Hours} = 2", nil}, // a two-element array is its text "2, 3.5"
		{"{Hours} = '2, 3.5'", true},
		{"ARRAYSLICE({Hours}, 1, 1) = 2", true}, // a one-element array is its element
		{"{Name} = 'Write Spec'", true},
		{"ERROR() = 1", errCell},
		{"1 < ERROR()", errCell},
	})
}

func TestTruthinessOfMatch(t *testing.T) {
	env := testEnv()
	cases := []struct {
		src  string
		want bool
	}{
		{"0", false}, {"1", true}, {"-1", true}, {"''", false}, {"'0'", true}, {"' '", true},
		{"FALSE()", false}, {"TRUE()", true}, {"BLANK()", false}, {"0/0", false}, {"ERROR()", false},
		{"ARRAYCOMPACT('')", false}, {"{Hours}", true}, {"TODAY()", true}, {"1/0", true},
	}
	for _, tc := range cases {
		p, err := Compile(tc.src, schema)
		if err != nil {
			t.Fatalf("Compile(%q): %v", tc.src, err)
		}
		if got := p.Match(baseRecord, env); got != tc.want {
			t.Errorf("Match(%s) = %v, want %v", tc.src, got, tc.want)
		}
	}
}

func TestLogicalFunctions(t *testing.T) {
	runEvalCases(t, baseRecord, testEnv(), []evalCase{
		{"AND(1, 'x', TRUE())", true},
		{"AND(1, 0)", nil},
		{"AND({Hours})", true},
		{"AND(ARRAYCOMPACT(''))", nil},
		{"OR(0, '', BLANK())", nil},
		{"OR(0, 2)", true},
		{"AND(1, ERROR())", errCell},
		{"XOR(1, 1)", nil},
		{"XOR(1, 0, 0)", true},
		{"NOT({Done})", nil},
		{"NOT('')", true},
		{"IF({Priority} > 2, 'high', 'low')", "high"},
		{"IF(0, 'x')", nil},
		{"IF(0, ERROR(), 'ok')", "ok"}, // only the chosen branch is evaluated
		{"SWITCH({Status}, 'Todo', 1, 'Done', 2, 0)", 2.0},
		{"SWITCH('zz', 'Todo', 1, 'Done', 2, 0)", 0.0},
		{"SWITCH('zz', 'Todo', 1)", nil},
		{"SWITCH('zz', 'default')", "default"},
		{"ISERROR(ERROR())", true},
		{"ISERROR(1/0)", nil},
		{"ISERROR('x' + 1)", true},
		{"TRUE()", true},
		{"FALSE()", nil},
		{"RECORD_ID()", "recTEST0000000001"},
		{"OR(RECORD_ID() = 'recX', RECORD_ID() = 'recTEST0000000001')", true},
	})
}

func TestTextFunctions(t *testing.T) {
	runEvalCases(t, baseRecord, testEnv(), []evalCase{
		{"CONCATENATE('a', 1, BLANK(), 'b')", "a1b"},
		{"ENCODE_URL_COMPONENT('a b&c/é!')", "a%20b%26c%2F%C3%A9!"},
		{"FIND('Spec', {Name})", 7.0},
		{"FIND('spec', {Name})", 0.0}, // case-sensitive
		{"FIND('spec', LOWER({Name}))", 7.0},
		{"FIND('é', LOWER('ÀÉ'))", 2.0},
		{"FIND('x', 'axbx', 3)", 4.0},
		{"FIND('x', 'axbx', 5)", 0.0},
		{"FIND('', 'abc')", 1.0},
		{"FIND('本', '日本語')", 2.0}, // characters, not bytes
		{"SEARCH('Spec', {Name})", 7.0},
		{"SEARCH('zz', {Name})", nil}, // blank when not found
		{"LEFT('日本語', 2)", "日本"},
		{"LEFT('abc', 10)", "abc"},
		{"RIGHT('abcdef', 2)", "ef"},
		{"RIGHT('ab', 5)", "ab"},
		{"MID('abcdef', 2, 3)", "bcd"},
		{"MID('abc', 5, 3)", nil},
		{"LEFT('abc', -1)", errCell},
		{"LEN('日本語')", 3.0},
		{"LEN({Notes})", 17.0},
		{"LOWER('ÀB')", "àb"},
		{"UPPER('àb')", "ÀB"},
		{"REPLACE('abcdef', 2, 3, 'X')", "aXef"},
		{"REPT('ab', 3)", "ababab"},
		{"REPT('ab', 0)", nil},
		{"REPT('ab', 1e9)", errCell},
		{"SUBSTITUTE('a-b-c', '-', '+')", "a+b+c"},
		{"SUBSTITUTE('a-b-c', '-', '+', 2)", "a-b+c"},
		{"SUBSTITUTE('a-b-c', '-', '+', 3)", "a-b-c"},
		// Every text result stays within 1 MiB: 1,000,000 bytes and 100,000 more are too many.
		{"SUBSTITUTE(REPT('ab', 500000), 'a', 'xy')", errCell},
		{"SUBSTITUTE(REPT('ab', 500000), 'a', REPT('x', 100000), 1)", errCell},
		{"REPLACE(REPT('ab', 500000), 1, 1, REPT('x', 100000))", errCell},
		{"LEN(SUBSTITUTE(REPT('ab', 500000), 'a', 'x'))", 1000000.0},
		{"T('x')", "x"},
		{"T(1)", nil},
		{"TRIM('  a b  ')", "a b"},
		{"REGEX_MATCH({Email}, '^[a-z]+@example\\\\.com$')", true},
		{"REGEX_MATCH('abc', 'd')", nil},
		{"REGEX_EXTRACT('order 1234 shipped', '[0-9]+')", "1234"},
		{"REGEX_EXTRACT('none', '[0-9]+')", errCell},
		{"REGEX_REPLACE('a1b22', '[0-9]+', '#')", "a#b#"},
		{"REGEX_REPLACE('John Smith', '(\\\\w+) (\\\\w+)', '$2, $1')", "Smith, John"},
		{"REGEX_REPLACE('ab', '(a)(?P<second>b)', '$2$1x $<second> $& $$ $3 $0')", "bax b ab $ $3 $0"},
		{"REGEX_REPLACE('2024-03-15', '(\\\\d+)-(\\\\d+)-(\\\\d+)', '$3/$2/$1')", "15/03/2024"},
		{"REGEX_MATCH('a', '(')", errCell},
		{"REGEX_MATCH('a', CONCATENATE('(', ''))", errCell}, // a computed pattern, compiled at evaluation
		{"REGEX_MATCH('abc', CONCATENATE('^a', 'b'))", true},
		{"REGEX_REPLACE(REPT('a', 100000), 'a$', REPT('$`', 100000))", errCell}, // 10 GB if not bounded
		{"REGEX_MATCH('a(', CONCATENATE('\\\\', '('))", true},
		{"LOWER({Tags})", "red, green"},
		{"FIND('Green', {Tags})", 6.0},
	})
}

func TestNumericFunctions(t *testing.T) {
	runEvalCases(t, baseRecord, testEnv(), []evalCase{
		{"ABS(-2.5)", 2.5},
		{"AVERAGE(1, 2, 3, 'x')", 2.0},
		{"AVERAGE({Hours})", 2.75},
		{"AVERAGE(ARRAYCOMPACT(''))", nan()},
		{"CEILING(2.1)", 3.0},
		{"CEILING(7, 5)", 10.0},
		{"CEILING(0.15, 0.1)", 0.2},
		{"FLOOR(7.9)", 7.0},
		{"FLOOR(17, 5)", 15.0},
		{"COUNT(1, 'a', BLANK(), 2)", 2.0},
		{"COUNTA(1, 'a', BLANK(), '', 2)", 3.0},
		{"COUNTALL(1, 'a', BLANK(), 2)", 4.0},
		{"COUNT({Hours})", 2.0},
		{"EVEN(1.5)", 2.0},
		{"EVEN(3)", 4.0},
		{"EVEN(-1)", -2.0},
		{"ODD(2)", 3.0},
		{"ODD(1.2)", 3.0},
		{"EXP(0)", 1.0},
		{"INT(-1.5)", -2.0},
		{"LOG(1000)", 3.0},
		{"LOG(8, 2)", 3.0},
		{"MAX(1, 5, 3)", 5.0},
		{"MAX({Hours}, 1)", 3.5},
		{"MIN(4, 2, 8)", 2.0},
		{"MOD(7, 2)", 1.0},
		{"MOD(-7, 2)", -1.0},
		{"POWER(2, 10)", 1024.0},
		{"ROUND(2.5, 0)", 3.0},
		{"ROUND(-2.5, 0)", -2.0},
		{"ROUND(1.005, 2)", 1.01},
		{"ROUND(1234.5678, -2)", 1200.0},
		{"ROUNDUP(1.21, 1)", 1.3},
		{"ROUNDUP(-1.21, 1)", -1.3},
		{"ROUNDDOWN(1.29, 1)", 1.2},
		{"ROUNDDOWN(-1.29, 1)", -1.2},
		{"SQRT(16)", 4.0},
		{"SQRT(-1)", nan()},
		{"SUM(1, 2, 3)", 6.0},
		{"SUM({Hours})", 5.5},
		{"SUM({Hours}, {Priority})", 8.5},
		{"VALUE('1,000.50')", 1000.5},
		{"VALUE('$12')", 12.0},
		{"VALUE('10%')", 0.1},
		{"VALUE('(3)')", -3.0},
		{"VALUE('abc')", errCell},
		{"{Price} * 2", 13.0},
		{"{Percent} * 100", 25.0},
		{"{Duration} / 60", 83.0},
		{"{Total}", 540.8333333333334},
		{"{Score}", nan()},
		{"{Count} = 0", true},
		{"{Auto} + {Rating}", 11.0},
	})
}

func TestArrayFunctions(t *testing.T) {
	rec := baseRecord.with(map[string]any{
		"Hours": []any{1.0, nil, "", false, 1.0, []any{2.0, 3.0}},
		"Tags":  []any{"A", "B", "C", "D"},
	})
	runEvalCases(t, rec, testEnv(), []evalCase{
		{"ARRAYCOMPACT({Tags})", []any{"A", "B", "C", "D"}},
		{"ARRAYJOIN({Tags})", "A, B, C, D"},
		{"ARRAYJOIN({Tags}, '; ')", "A; B; C; D"},
		{"ARRAYSLICE({Tags}, 2, 3)", []any{"B", "C"}},
		{"ARRAYSLICE({Tags}, -2)", []any{"C", "D"}},
		{"ARRAYSLICE({Tags}, 1, -2)", []any{"A", "B", "C"}},
		{"ARRAYSLICE({Tags}, 3, 2)", nil},
		{"ARRAYUNIQUE(ARRAYFLATTEN({Tags}))", []any{"A", "B", "C", "D"}},
		{"ARRAYJOIN('x')", "x"},
	})
	runEvalCases(t, baseRecord, testEnv(), []evalCase{
		{"ARRAYJOIN({Files}, '|')", "a.png (https://x/a.png)"},
		{"ARRAYJOIN({People})", "Ann, bob@example.com"},
	})
	lookup := FieldInfo{Name: "L", Type: "multipleLookupValues"}
	v := FromCell(lookup, []any{1.0, nil, "", false, 1.0, []any{2.0, 3.0}})
	p := mustCompile(t, "ARRAYCOMPACT(values)", valuesSchema(lookup))
	got := p.Eval(cellRecord{lookup.Name: v}, testEnv())
	if want := []any{1.0, nil, 1.0, []any{2.0, 3.0}}; !reflect.DeepEqual(got.Cell(), want) {
		// false is kept (its cell form is nil), "" and blanks are dropped
		t.Errorf("ARRAYCOMPACT = %#v, want %#v", got.Cell(), want)
	}
	if n := len(got.Elems()); n != 4 {
		t.Errorf("ARRAYCOMPACT kept %d elements, want 4 (false kept)", n)
	}
	for src, want := range map[string]any{
		"ARRAYFLATTEN(values)":              []any{1.0, nil, nil, nil, 1.0, 2.0, 3.0},
		"ARRAYUNIQUE(ARRAYFLATTEN(values))": []any{1.0, nil, nil, nil, 2.0, 3.0},
	} {
		if got := mustCompile(t, src, valuesSchema(lookup)).Eval(cellRecord{lookup.Name: v}, nil); !reflect.DeepEqual(got.Cell(), want) {
			t.Errorf("%s = %#v, want %#v", src, got.Cell(), want)
		}
	}
}

// valuesSchema resolves the bare name `values` to f, as a caller evaluating a rollup's
// aggregation formula does.
type valuesSchema FieldInfo

func (s valuesSchema) LookupField(name string) (FieldInfo, bool) {
	if name == "values" {
		return FieldInfo(s), true
	}
	return FieldInfo{}, false
}

// cellRecord is a record whose cells are already formula values, by field name.
type cellRecord map[string]Value

func (cellRecord) RecordID() string            { return "recCELLS000000001" }
func (cellRecord) CreatedTime() time.Time      { return time.Time{} }
func (cellRecord) LastModifiedTime() time.Time { return time.Time{} }
func (r cellRecord) Cell(f FieldInfo) Value    { return r[f.Name] }

func mustCompile(t testing.TB, src string, s Schema) *Program {
	t.Helper()
	p, err := Compile(src, s)
	if err != nil {
		t.Fatalf("Compile(%q): %v", src, err)
	}
	return p
}

func TestRollupValues(t *testing.T) {
	linked := FieldInfo{Name: "Hours", Type: "multipleLookupValues", Options: map[string]any{"result": map[string]any{"type": "number"}}}
	rec := cellRecord{"Hours": FromCell(linked, []any{2.0, 3.5, 4.5})}
	for src, want := range map[string]any{
		"SUM(values)":              10.0,
		"MAX(values)":              4.5,
		"AVERAGE(values)":          10.0 / 3,
		"COUNTALL(values)":         3.0,
		"ARRAYJOIN(values, '+')":   "2+3.5+4.5",
		"AND(values)":              true,
		"CONCATENATE(values, '!')": "2, 3.5, 4.5!",
	} {
		p := mustCompile(t, src, valuesSchema(linked))
		if got := p.Eval(rec, nil).Cell(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", src, got, want)
		}
		if fs := p.Fields(); len(fs) != 1 || fs[0].Name != "Hours" {
			t.Errorf("%s: Fields() = %v, want the rollup's field", src, fs)
		}
	}
}

func TestCellValuesAsOperands(t *testing.T) {
	runEvalCases(t, baseRecord, testEnv(), []evalCase{
		{"{Person}", "Brian Leonard"},
		{"{People} & ''", "Ann, bob@example.com"},
		{"{Files} & ''", "a.png (https://x/a.png)"},
		{"{Barcode}", "A234567"},
		{"{Button}", "Open URL"},
		{"{Summary}", "Short text"},
		{"{Created}", "2021-12-28T19:00:56.000Z"},
		{"{Owner}", []any{"Ada Lovelace", "Alan Turing"}},
		{"FIND('Alan', {Owner})", 15.0},
		{"{Tags}", []any{"Red", "Green"}},
		{"{Hours}", []any{2.0, 3.5}},
		{"{Due}", "2024-03-15"},
		{"{Due Date}", "2024-12-31"},
		{"{fldPRIORITY000001} * 2", 6.0},
		{"fldPRIORITY000001 * 2", 6.0}, // a bare id resolves too when the Schema knows it
		{"Priority * 2", 6.0},
		{"{odd\\}name}", "odd"},
		{"{Done}", true},
	})
	formulaErr := FieldInfo{Name: "F", Type: "formula"}
	if v := FromCell(formulaErr, map[string]any{"error": "#ERROR!"}); v.Kind() != KindError {
		t.Errorf("formula error cell: kind %v, want error", v.Kind())
	}
	lookupErr := FieldInfo{Name: "L", Type: "multipleLookupValues"}
	v := FromCell(lookupErr, []any{map[string]any{"error": "#ERROR!"}})
	if got := v.Cell(); !reflect.DeepEqual(got, []any{errCell}) {
		t.Errorf("lookup of errors: %#v", got)
	}
}

func TestDateFunctions(t *testing.T) {
	runEvalCases(t, baseRecord, testEnv(), []evalCase{
		{"NOW()", "2024-03-10T12:00:00.000Z"},
		{"TODAY()", "2024-03-10"},
		{"CREATED_TIME()", "2024-01-02T03:04:05.000Z"},
		{"LAST_MODIFIED_TIME()", "2024-02-03T04:05:06.000Z"},
		{"LAST_MODIFIED_TIME({Name})", "2024-02-03T04:05:06.000Z"},
		{"YEAR({Due})", 2024.0},
		{"MONTH({Due})", 3.0},
		{"DAY({Due})", 15.0},
		{"HOUR({At})", 13.0},
		{"MINUTE({At})", 45.0},
		{"SECOND({At})", 30.0},
		{"YEAR('2020-02-29')", 2020.0},
		{"DATESTR({At})", "2024-03-15"},
		{"TIMESTR({At})", "13:45:30"},
		{"WEEKDAY({Due})", 5.0}, // Friday
		{"WEEKDAY({Due}, 'Monday')", 4.0},
		{"WEEKDAY({Due}, 'Tuesday')", errCell},
		{"WEEKNUM('2024-01-01')", 1.0},
		{"WEEKNUM('2024-01-07')", 2.0},
		{"WEEKNUM('2024-01-07', 'Monday')", 1.0},
		{"DATEADD({Due}, 10, 'days')", "2024-03-25"},
		{"DATEADD('2024-01-31', 1, 'month')", "2024-02-29"},
		{"DATEADD('2023-01-31', 1, 'M')", "2023-02-28"},
		{"DATEADD({At}, 90, 'minutes')", "2024-03-15T15:15:30.000Z"},
		{"DATEADD({At}, -1, 'years')", "2023-03-15T13:45:30.000Z"},
		{"DATEADD({Due}, 2, 'quarters')", "2024-09-15"},
		{"DATEADD({Due}, 1, 'fortnight')", errCell},
		{"DATETIME_DIFF('2024-03-15', '2024-03-01', 'days')", 14.0},
		{"DATETIME_DIFF('2024-03-01', '2024-03-15', 'days')", -14.0},
		{"DATETIME_DIFF({At}, {Due}, 'hours')", 13.0},
		{"DATETIME_DIFF({At}, {Due})", 49530.0},
		{"DATETIME_DIFF('2024-03-31', '2024-01-31', 'months')", 2.0},
		{"DATETIME_DIFF('2024-03-30', '2024-01-31', 'months')", 1.0},
		{"DATETIME_DIFF('2025-03-01', '2024-03-02', 'years')", 0.0},
		{"DATETIME_DIFF('2025-03-02', '2024-03-02', 'years')", 1.0},
		{"DATETIME_DIFF('2024-03-15', '2024-03-01', 'w')", 2.0},
		{"IS_AFTER({At}, {Due})", true},
		{"IS_BEFORE({Due}, TODAY())", nil},
		{"IS_SAME({At}, {Due}, 'day')", true},
		{"IS_SAME({At}, '2024-03-20', 'month')", true},
		{"IS_SAME({At}, '2024-03-20', 'week')", nil},
		{"IS_SAME('2024-03-17', '2024-03-16', 'week')", nil},     // Sunday starts a week
		{"IS_SAME('2024-03-17', '2024-03-16', 'isoWeek')", true}, // Monday starts an ISO week
		{"DATEADD('2024-03-15', 2, 'W')", "2024-03-29"},
		{"IS_SAME({At}, {At})", true},
		{"IS_SAME({At}, {Due})", nil},
		{"TONOW('2024-03-01')", 9.0},
		{"FROMNOW('2024-03-20')", 9.0},
		{"DATETIME_FORMAT({At}, 'YYYY-MM-DD HH:mm')", "2024-03-15 13:45"},
		{"DATETIME_FORMAT({At}, 'dddd, MMMM Do YYYY, h:mm:ss a')", "Friday, March 15th 2024, 1:45:30 pm"},
		{"DATETIME_FORMAT({At}, 'ddd MMM D YY [at] H[h]')", "Fri Mar 15 24 at 13h"},
		{"DATETIME_FORMAT({At}, 'LLLL')", "Friday, March 15, 2024 1:45 PM"},
		{"DATETIME_FORMAT({At}, 'L')", "03/15/2024"},
		{"DATETIME_FORMAT({At}, 'Q DDD DDDD E e W w X x SSS Z ZZ')", "1 75 075 5 5 11 11 1710510330 1710510330000 000 +00:00 +0000"},
		{"DATETIME_FORMAT({At})", "2024-03-15T13:45:30.000Z"},
		{"DATETIME_FORMAT(SET_TIMEZONE({At}, 'America/New_York'), 'YYYY-MM-DD HH:mm Z')", "2024-03-15 09:45 -04:00"},
		{"DATETIME_FORMAT(SET_TIMEZONE({At}, 'Asia/Kolkata'), 'HH:mm')", "19:15"},
		{"HOUR(SET_TIMEZONE({At}, 'Asia/Tokyo'))", 22.0},
		{"SET_TIMEZONE({At}, 'Mars/Olympus')", errCell},
		{"SET_TIMEZONE({At}, CONCATENATE('Mars/', 'Olympus'))", errCell}, // a computed zone, loaded at evaluation
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'fr'), 'dddd D MMMM')", "vendredi 15 mars"},
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'de'), 'dddd, D. MMMM')", "Freitag, 15. März"},
		{"DATETIME_PARSE('2024-03-15')", "2024-03-15T00:00:00.000Z"},
		{"DATETIME_PARSE('15/03/2024 14:30', 'DD/MM/YYYY HH:mm')", "2024-03-15T14:30:00.000Z"},
		{"DATETIME_PARSE('March 15, 2024')", "2024-03-15T00:00:00.000Z"},
		{"DATETIME_PARSE('3/15/2024 2:30 PM')", "2024-03-15T14:30:00.000Z"},
		{"DATETIME_PARSE('15 mars 2024', 'D MMMM YYYY', 'fr')", "2024-03-15T00:00:00.000Z"},
		{"DATETIME_PARSE('4 Mar 2024 5pm', 'D MMM YYYY ha')", "2024-03-04T17:00:00.000Z"},
		{"DATETIME_PARSE('2024-03-15T10:00:00+02:00')", "2024-03-15T08:00:00.000Z"},
		{"DATETIME_PARSE('1710510330', 'X')", "2024-03-15T13:45:30.000Z"},
		{"DATETIME_PARSE('14:30', 'HH:mm')", "2024-03-10T14:30:00.000Z"}, // today, as moment
		{"DATETIME_PARSE('7', 'D')", "2024-03-07T00:00:00.000Z"},         // this month
		{"DATETIME_PARSE('7 2020', 'M YYYY')", "2020-07-01T00:00:00.000Z"},
		{"DATETIME_PARSE('075 2024', 'DDDD YYYY')", "2024-03-15T00:00:00.000Z"},
		{"DATETIME_PARSE('Q3 2024', '[Q]Q YYYY')", "2024-07-01T00:00:00.000Z"},
		{"DATETIME_PARSE('12:30 am 1/2/2024', 'h:mm a M/D/YYYY')", "2024-01-02T00:30:00.000Z"},
		{"DATETIME_PARSE('2024-03-15 10:00 +0530', 'YYYY-MM-DD HH:mm ZZ')", "2024-03-15T04:30:00.000Z"},
		{"DATETIME_PARSE('not a date')", errCell},
		{"DATETIME_PARSE('2024-02-30')", errCell},
		{"WORKDAY('2024-03-15', 1)", "2024-03-18"},
		{"WORKDAY('2024-03-15', 5)", "2024-03-22"},
		{"WORKDAY('2024-03-18', -1)", "2024-03-15"},
		{"WORKDAY('2024-03-15', 1, '2024-03-18, 2024-03-19')", "2024-03-20"},
		{"WORKDAY_DIFF('2024-03-01', '2024-03-31')", 21.0},
		{"WORKDAY_DIFF('2024-03-31', '2024-03-01')", -21.0},
		{"WORKDAY_DIFF('2024-03-01', '2024-03-31', '2024-03-29')", 20.0},
		{"DATETIME_DIFF('9999-01-01', '0001-01-01', 'days')", 3651694.0}, // beyond time.Duration's 292 years
		{"DATETIME_DIFF('9999-01-01', '0001-01-01')", 315506361600.0},
		{"DATETIME_DIFF('0001-01-01', '9999-01-01', 'weeks')", -521670.0},
		{"WORKDAY_DIFF('0001-01-01', '9999-12-31')", 2608615.0},
		{"YEAR(BLANK())", errCell},
		{"YEAR(5)", errCell},
	})
}

func TestDatesInEnvLocation(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Clock: clock.NewFake(time.Date(2024, 3, 10, 2, 0, 0, 0, time.UTC)), Location: ny}
	runEvalCases(t, baseRecord, env, []evalCase{
		{"TODAY()", "2024-03-09"}, // still the 9th in New York
		{"HOUR({At})", 9.0},
		{"DATETIME_FORMAT({At}, 'HH:mm Z')", "09:45 -04:00"},
		{"DATESTR({Due})", "2024-03-15"}, // a date has no zone
		{"DATETIME_PARSE('2024-03-15 08:00')", "2024-03-15T12:00:00.000Z"},
		{"DATETIME_DIFF('2024-03-11 00:00', '2024-03-10 00:00', 'days')", 1.0}, // across the DST change
	})
}

func TestNowAndTodayReadTheClock(t *testing.T) {
	fake := clock.NewFake(time.Date(2024, 12, 31, 23, 0, 0, 0, time.UTC))
	env := &Env{Clock: fake}
	p := mustCompile(t, "IS_SAME(TODAY(), '2024-12-31', 'day')", nil)
	if !p.Match(nil, env) {
		t.Fatal("TODAY() is not 2024-12-31")
	}
	fake.Advance(2 * time.Hour)
	if p.Match(nil, env) {
		t.Fatal("TODAY() did not follow the clock to 2025-01-01")
	}
}

func TestEveryReferenceFunctionExists(t *testing.T) {
	f, err := os.Open("testdata/reference-functions.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		name := strings.TrimSpace(sc.Text())
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		n++
		if _, ok := functions[name]; !ok {
			t.Errorf("function %s of the reference is missing", name)
		}
	}
	if n < 70 {
		t.Fatalf("read only %d function names", n)
	}
}

func TestValueCell(t *testing.T) {
	tests := []struct {
		v    Value
		want any
	}{
		{Number(2), 2.0},
		{Number(math.NaN()), nan()},
		{Text("x"), "x"},
		{Text(""), nil},
		{Bool(true), true},
		{Bool(false), nil},
		{Blank(), nil},
		{Date(time.Date(2024, 1, 2, 23, 0, 0, 0, time.UTC)), "2024-01-02"},
		{DateTime(time.Date(2024, 1, 2, 3, 4, 5, 6e6, time.FixedZone("", 3600))), "2024-01-02T02:04:05.006Z"},
		{Array([]Value{Number(1), Text("a")}), []any{1.0, "a"}},
		{Array(nil), nil},
		{ErrorValue("x"), errCell},
	}
	for _, tt := range tests {
		if got := tt.v.Cell(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%v.Cell() = %#v, want %#v", tt.v, got, tt.want)
		}
	}
}

func TestProgramIsSafeForConcurrentUse(t *testing.T) {
	p := mustCompile(t, "AND(REGEX_MATCH({Name}, CONCATENATE('^', LEFT({Name}, 1))), HOUR(SET_TIMEZONE({At}, CONCATENATE('Europe/', 'Paris'))) = 14, FIND('spec', LOWER({Name})))", schema)
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			ok := true
			for i := 0; i < 200; i++ {
				ok = ok && p.Match(baseRecord, testEnv())
			}
			done <- ok
		}()
	}
	for g := 0; g < 4; g++ {
		if !<-done {
			t.Error("a concurrent evaluation did not match")
		}
	}
}

func TestNilEnvUsesRealClockAndUTC(t *testing.T) {
	before := time.Now()
	v := mustCompile(t, "NOW()", nil).Eval(nil, nil)
	got, ok := v.Time()
	if !ok || got.Before(before.Add(-time.Second)) || got.After(time.Now().Add(time.Second)) {
		t.Fatalf("NOW() with a nil Env = %v", v)
	}
	if h := mustCompile(t, "HOUR('2024-01-01T05:00:00Z')", nil).Eval(nil, nil); h.Num() != 5 {
		t.Fatalf("HOUR in UTC = %v", h)
	}
}

// fieldTimesRecord is a record that knows when each field last changed.
type fieldTimesRecord struct {
	*testRecord
	changed map[string]time.Time // by field name; missing: never changed
}

func (r fieldTimesRecord) FieldModifiedTime(f FieldInfo) time.Time { return r.changed[f.Name] }

func TestLastModifiedTimeOfFields(t *testing.T) {
	rec := fieldTimesRecord{baseRecord, map[string]time.Time{
		"Name":     time.Date(2024, 1, 5, 0, 0, 0, 0, time.UTC),
		"Priority": time.Date(2024, 1, 9, 0, 0, 0, 0, time.UTC),
	}}
	runEvalCases(t, rec, testEnv(), []evalCase{
		{"LAST_MODIFIED_TIME()", "2024-02-03T04:05:06.000Z"}, // no fields: the record's time
		{"LAST_MODIFIED_TIME({Name})", "2024-01-05T00:00:00.000Z"},
		{"LAST_MODIFIED_TIME({Name}, Priority)", "2024-01-09T00:00:00.000Z"},
		{"LAST_MODIFIED_TIME({Notes})", nil}, // never changed
		{"LAST_MODIFIED_TIME({Notes}, {Name})", "2024-01-05T00:00:00.000Z"},
	})
	// A record that keeps one time answers with it whatever the fields.
	runEvalCases(t, baseRecord, testEnv(), []evalCase{
		{"LAST_MODIFIED_TIME({Notes}, {Name})", "2024-02-03T04:05:06.000Z"},
	})
	for _, src := range []string{"LAST_MODIFIED_TIME('Name')", "LAST_MODIFIED_TIME({Name}, 1 + 1)"} {
		_, err := Compile(src, schema)
		if err == nil || !strings.Contains(err.Error(), "field references") {
			t.Errorf("Compile(%s) = %v, want an error asking for field references", src, err)
		}
	}
	if _, err := Compile("LAST_MODIFIED_TIME({Nope})", schema); err == nil || !strings.Contains(err.Error(), "Unknown field names: nope") {
		t.Errorf("unknown field in LAST_MODIFIED_TIME: %v", err)
	}
}

func TestDateLocales(t *testing.T) {
	// {At} is Friday 15 March 2024, 13:45:30 UTC.
	runEvalCases(t, baseRecord, testEnv(), []evalCase{
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'fr'), 'LL')", "15 mars 2024"},
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'fr'), 'LLLL')", "vendredi 15 mars 2024 13:45"},
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'fr'), 'L ll')", "15/03/2024 15 mars 2024"},
		{"DATETIME_FORMAT(SET_LOCALE('2024-03-01', 'fr'), 'Do MMMM, Mo [mois]')", "1er mars, 3e mois"},
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'fr-CA'), 'dddd')", "vendredi"}, // by its language
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'de'), 'L, LLLL, Do')", "15.03.2024, Freitag, 15. März 2024 13:45, 15."},
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'es'), 'LL, Do')", "15 de marzo de 2024, 15º"},
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'es'), 'll')", "15 de mar. de 2024"},
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'it'), 'dddd D MMMM, L')", "venerdì 15 marzo, 15/03/2024"},
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'pt'), 'LL')", "15 de março de 2024"},
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'pt-BR'), 'LLL, dddd')", "15 de março de 2024 às 13:45, sexta-feira"},
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'nl'), 'L, LL, Do')", "15-03-2024, 15 maart 2024, 15de"},
		{"DATETIME_FORMAT(SET_LOCALE('2024-03-01', 'nl'), 'Do')", "1ste"},
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'sv'), 'L, LLL, Do, dddd')", "2024-03-15, 15 mars 2024 kl. 13:45, 15:e, fredag"},
		{"DATETIME_FORMAT(SET_LOCALE('2024-03-22', 'sv'), 'Do')", "22:a"},
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'da'), 'LLLL')", "fredag d. 15. marts 2024 kl. 13:45"},
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'nb'), 'LL, ddd')", "15. mars 2024, fr."},
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'no'), 'MMMM')", "mars"},
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'en-GB'), 'L, LLLL')", "15/03/2024, Friday, 15 March 2024 13:45"},
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'en'), 'L, ll')", "03/15/2024, Mar 15, 2024"},
		{"DATETIME_FORMAT(SET_LOCALE({At}, 'ja'), 'MMMM')", "March"}, // unknown: English
		{"DATETIME_PARSE('15 marzo 2024', 'D MMMM YYYY', 'it')", "2024-03-15T00:00:00.000Z"},
		{"DATETIME_PARSE('1er mars 2024', 'Do MMMM YYYY', 'fr')", "2024-03-01T00:00:00.000Z"},
		{"DATETIME_PARSE('15.03.2024 13:45', 'L LT', 'de')", "2024-03-15T13:45:00.000Z"},
		{"DATETIME_PARSE('22:a mars 2024', 'Do MMMM YYYY', 'sv')", "2024-03-22T00:00:00.000Z"},
		{"DATETIME_PARSE('8ste maart 2024', 'Do MMMM YYYY', 'nl')", "2024-03-08T00:00:00.000Z"},
	})
}

func TestShortenLongFormat(t *testing.T) {
	for in, want := range map[string]string{
		"MM/DD/YYYY":                 "M/D/YYYY",
		"dddd, MMMM D, YYYY h:mm A":  "ddd, MMM D, YYYY h:mm A",
		"D [de] MMMM [de] YYYY H:mm": "D [de] MMM [de] YYYY H:mm",
		"dddd [DD MM] D. MMMM YYYY":  "ddd [DD MM] D. MMM YYYY",
		"DDDD YYYY-MM-DD":            "DDDD YYYY-M-D",
	} {
		if got := shortenLongFormat(in); got != want {
			t.Errorf("shortenLongFormat(%q) = %q, want %q", in, got, want)
		}
	}
}
