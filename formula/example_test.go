package formula_test

import (
	"fmt"
	"time"

	"github.com/airsql/airsql/formula"
	"github.com/airsql/airsql/internal/clock"
)

func ExampleMatch() {
	fmt.Println(formula.Match(map[string]any{"Status": "Done", "Priority": 2}))
	fmt.Println(formula.MatchAny(map[string]any{"Owner's Name": "O'Brien", "Done": true}))
	fmt.Println(formula.Match(map[string]any{"Due": time.Date(2024, 3, 15, 0, 0, 0, 0, time.UTC), "Notes": nil}))
	fmt.Printf("%q\n", formula.Match(map[string]any{}))
	// Output:
	// AND({Priority}=2,{Status}='Done')
	// OR({Done}=1,{Owner\'s Name}='O\'Brien')
	// AND({Due}=DATETIME_PARSE('2024-03-15T00:00:00.000Z'),{Notes}=BLANK())
	// ""
}

func ExampleQuote() {
	fmt.Println(formula.Quote(`it's a \ backslash`))
	fmt.Println(formula.Quote("two\nlines"))
	// Output:
	// 'it\'s a \\ backslash'
	// 'two\nlines'
}

func ExampleFieldRef() {
	ref, _ := formula.FieldRef("Due Date")
	fmt.Println(ref)
	ref, _ = formula.FieldRef(`50% } off`)
	fmt.Println(ref)
	_, err := formula.FieldRef("{odd}}")
	fmt.Println(err != nil)
	// Output:
	// {Due Date}
	// {50% \} off}
	// true
}

func ExampleAnd() {
	f := formula.And(
		formula.Equal(formula.Field("Status"), formula.StrValue("Done")),
		formula.Find(formula.StrValue("x"), formula.Lower(formula.Field("Name")), 0),
	)
	fmt.Println(f)
	fmt.Println(formula.If("{Done}", formula.Quote("yes"), formula.Quote("no")))
	// Output:
	// AND({Status}='Done', FIND('x', LOWER({Name})))
	// IF({Done}, 'yes', 'no')
}

// fields is a Schema over a fixed list of fields, matched by exact name or id.
type fields []formula.FieldInfo

func (fs fields) LookupField(nameOrID string) (formula.FieldInfo, bool) {
	for _, f := range fs {
		if f.Name == nameOrID || f.ID == nameOrID {
			return f, true
		}
	}
	return formula.FieldInfo{}, false
}

// record holds cells in the API's JSON form, by field name.
type record struct {
	id    string
	cells map[string]any
}

func (r record) RecordID() string            { return r.id }
func (r record) CreatedTime() time.Time      { return time.Time{} }
func (r record) LastModifiedTime() time.Time { return time.Time{} }
func (r record) Cell(f formula.FieldInfo) formula.Value {
	return formula.FromCell(f, r.cells[f.Name])
}

func ExampleProgram_Match() {
	schema := fields{
		{ID: "fldSTATUS00000001", Name: "Status", Type: "singleSelect"},
		{ID: "fldPRIORITY000001", Name: "Priority", Type: "number"},
		{ID: "fldDUE00000000001", Name: "Due", Type: "date"},
	}
	p, err := formula.Compile("AND({Status} != 'Done', Priority >= 2, IS_BEFORE({Due}, TODAY()))", schema)
	if err != nil {
		panic(err)
	}
	env := &formula.Env{Clock: clock.NewFake(time.Date(2024, 3, 10, 12, 0, 0, 0, time.UTC))}
	for _, r := range []record{
		{"rec1", map[string]any{"Status": "Todo", "Priority": 3.0, "Due": "2024-03-01"}},
		{"rec2", map[string]any{"Status": "Done", "Priority": 3.0, "Due": "2024-03-01"}},
		{"rec3", map[string]any{"Status": "Todo", "Due": "2024-03-01"}}, // blank priority is 0
		{"rec4", map[string]any{"Status": "Todo", "Priority": 5.0}},     // blank date: #ERROR!, excluded
	} {
		fmt.Println(r.id, p.Match(r, env))
	}
	_, err = formula.Compile("{Nope} = 1 & Other", schema)
	fmt.Println(err)
	// Output:
	// rec1 true
	// rec2 false
	// rec3 false
	// rec4 false
	// Unknown field names: nope, other (at byte 0 of the formula)
}

func ExampleProgram_Eval() {
	p, _ := formula.Compile(`DATETIME_FORMAT(SET_TIMEZONE(DATEADD('2024-01-31', 1, 'month'), 'Europe/Paris'), 'dddd D MMMM YYYY, HH:mm')`, nil)
	fmt.Println(p.Eval(nil, nil))
	p, _ = formula.Compile(`ARRAYJOIN(ARRAYSLICE(values, 2, 3), ' / ')`, fields{{Name: "values", Type: "multipleLookupValues"}})
	fmt.Println(p.Eval(record{cells: map[string]any{"values": []any{"A", "B", "C", "D"}}}, nil))
	// Output:
	// Thursday 29 February 2024, 01:00
	// B / C
}
