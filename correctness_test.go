package airsql

import (
	"database/sql"
	"fmt"

	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
)

// Issue 17 and issue 15 item 4: each minimal example of a wrong result found by differential
// testing, as a query through sql.Open against the emulator. The expected answers are computed
// here from the records' Go values with SQL's rules, independently of translate.

const itemsBase = "appCORRECTNESS001"

// item is one record of the Items table as Go values; nil pointers are blank cells.
type item struct {
	id          string
	n           int
	name        *string
	qty, price  *float64
	at          *time.Time // dateTime
	due         *time.Time // date
	done        bool
	ratioFinite bool    // Ratio = {Price}/{Qty} is a finite number (else Infinity, NaN: NULL in SQL)
	ratio       float64 // when ratioFinite
	hasDays     bool    // Days = DATETIME_DIFF({At}, {Due}, 'days') is a number (else #ERROR!: NULL)
	days        int
	code        *string // text that MySQL reads as the number codeNumbers gives
}

// codeNumbers: text and the number MySQL reads it as in a numeric comparison (by hand, from MySQL's
// rules: the longest numeric prefix after leading spaces, else 0).
var codeNumbers = map[string]float64{"1": 1, "1.0": 1, " 1": 1, "1abc": 1, "abc": 0, "2e1": 20, "-0": 0, ".5": 0.5, "0x10": 0, "12": 12, "+3.": 3}

var codeTexts = []string{"1", "1.0", " 1", "1abc", "abc", "2e1", "-0", ".5", "0x10", "12", "+3."}

// correctnessItems is 60 records whose fields are blank on different strides, so that blanks meet
// every other field; Qty 0 makes Ratio Infinity (Price > 0) or NaN (Price 0 or blank).
func correctnessItems() []item {
	var out []item
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 60 {
		it := item{id: fmt.Sprintf("recITEM%010d", i), n: i, done: i%2 == 0}
		if i%9 != 0 {
			s := fmt.Sprintf("item %02d", i)
			if i%10 == 3 {
				s = "a\uFFFDb" // stored replacement character: LIKE with invalid UTF-8 must not match it
			}
			it.name = &s
		}
		if i%3 != 0 {
			q := float64(i % 5)
			it.qty = &q
		}
		if i%7 != 0 {
			p := float64(i%4) * 1.5
			it.price = &p
		}
		if i%4 != 0 {
			at := base.Add(time.Duration(i*13) * time.Hour)
			it.at = &at
		}
		if i%5 != 0 {
			d := base.AddDate(0, 0, (i*7)%40)
			it.due = &d
		}
		// The formula's arithmetic reads blank as 0.
		var p, q float64
		if it.price != nil {
			p = *it.price
		}
		if it.qty != nil {
			q = *it.qty
		}
		if q != 0 {
			it.ratio, it.ratioFinite = p/q, true
		}
		if i%6 != 5 {
			c := codeTexts[i%len(codeTexts)]
			it.code = &c
		}
		if it.at != nil && it.due != nil {
			it.days, it.hasDays = int(it.at.Sub(*it.due)/(24*time.Hour)), true
		}
		out = append(out, it)
	}
	return out
}

func openItems(t *testing.T) (*sql.DB, *emulator.Server, []item) {
	t.Helper()
	items := correctnessItems()
	table := emulator.FixtureTable{ID: "tblITEMS000000001", Name: "Items", Fields: []emulator.FixtureField{
		{Name: "Name", Type: "singleLineText"},
		{Name: "N", Type: "number", Options: map[string]any{"precision": 0}},
		{Name: "Qty", Type: "number", Options: map[string]any{"precision": 0}},
		{Name: "Price", Type: "number", Options: map[string]any{"precision": 2}},
		{Name: "At", Type: "dateTime", Options: map[string]any{"timeZone": "utc"}},
		{Name: "Due", Type: "date"},
		{Name: "Done", Type: "checkbox"},
		{Name: "Code", Type: "singleLineText"},
		{Name: "Ratio", Type: "formula", Options: map[string]any{"formula": "{Price} / {Qty}",
			"result": map[string]any{"type": "number", "options": map[string]any{"precision": 2}}}},
		{Name: "Days", Type: "formula", Options: map[string]any{"formula": "DATETIME_DIFF({At}, {Due}, 'days')",
			"result": map[string]any{"type": "number", "options": map[string]any{"precision": 0}}}},
	}}
	for _, it := range items {
		f := map[string]any{"N": float64(it.n)}
		if it.name != nil {
			f["Name"] = *it.name
		}
		if it.qty != nil {
			f["Qty"] = *it.qty
		}
		if it.price != nil {
			f["Price"] = *it.price
		}
		if it.at != nil {
			f["At"] = it.at.Format("2006-01-02T15:04:05.000Z")
		}
		if it.due != nil {
			f["Due"] = it.due.Format("2006-01-02")
		}
		if it.done {
			f["Done"] = true
		}
		if it.code != nil {
			f["Code"] = *it.code
		}
		table.Records = append(table.Records, emulator.FixtureRecord{ID: it.id, Fields: f})
	}
	fixture := &emulator.Fixture{Bases: []emulator.FixtureBase{{ID: itemsBase, Name: "Correctness", Tables: []emulator.FixtureTable{table}}}}
	srv, err := emulator.New(emulator.WithFixture(fixture), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	db, _ := openDSN(t, "airtable://"+emulator.DefaultToken+"@localhost/"+itemsBase+"?tls=false", srv.Client())
	return db, srv, items
}

// idsWhere lists the ids of the items keep accepts, in record order.
func idsWhere(items []item, keep func(it item) bool) []string {
	var out []string
	for _, it := range items {
		if keep(it) {
			out = append(out, it.id)
		}
	}
	return out
}

func TestIssue17Regressions(t *testing.T) {
	db, _, items := openItems(t)
	all := func(item) bool { return true }
	tests := []struct {
		query string
		args  []any
		want  []string // ids, any order
	}{
		// Item 1: a blank date inside OR or NOT must not drop the rows the other side keeps.
		{query: "SELECT id FROM Items WHERE Qty IS NULL OR At <= At",
			want: idsWhere(items, func(it item) bool { return it.qty == nil || it.at != nil })},
		{query: "SELECT id FROM Items WHERE (Due < At) IS NOT TRUE",
			want: idsWhere(items, func(it item) bool { return !(it.due != nil && it.at != nil && it.due.Before(*it.at)) })},
		{query: "SELECT id FROM Items WHERE NOT (Due >= At)",
			want: idsWhere(items, func(it item) bool { return it.due != nil && it.at != nil && it.due.Before(*it.at) })},
		{query: "SELECT id FROM Items WHERE Done OR YEAR(At) = 2024",
			want: idsWhere(items, func(it item) bool { return it.done || it.at != nil && it.at.Year() == 2024 })},
		{query: "SELECT id FROM Items WHERE NOT (MONTH(Due) = 1) OR Qty = 1",
			want: idsWhere(items, func(it item) bool {
				return it.due != nil && it.due.Month() != 1 || it.qty != nil && *it.qty == 1
			})},
		{query: "SELECT id FROM Items WHERE Qty = 2 OR Ratio > 1",
			want: idsWhere(items, func(it item) bool { return it.qty != nil && *it.qty == 2 || it.ratioFinite && it.ratio > 1 })},
		{query: "SELECT id FROM Items WHERE (Ratio > 1) IS NOT TRUE",
			want: idsWhere(items, func(it item) bool { return !(it.ratioFinite && it.ratio > 1) })},
		{query: "SELECT id FROM Items WHERE Price / Qty > 1 OR Done",
			want: idsWhere(items, func(it item) bool {
				return it.done || it.price != nil && it.qty != nil && *it.qty != 0 && *it.price / *it.qty > 1
			})},
		{query: "SELECT id FROM Items WHERE NOT (YEAR(Due) = 2024 AND HOUR(At) < 12)",
			want: idsWhere(items, func(it item) bool {
				return it.due != nil && it.due.Year() != 2024 || it.at != nil && it.at.Hour() >= 12
			})},
		// A formula field that is #ERROR! (DATETIME_DIFF of a blank date) inside OR and NOT.
		{query: "SELECT id FROM Items WHERE Qty = 2 OR Days > 3",
			want: idsWhere(items, func(it item) bool { return it.qty != nil && *it.qty == 2 || it.hasDays && it.days > 3 })},
		{query: "SELECT id FROM Items WHERE (Days > 3) IS NOT TRUE",
			want: idsWhere(items, func(it item) bool { return !(it.hasDays && it.days > 3) })},
		{query: "SELECT id FROM Items WHERE NOT (Days <= 3) OR Done",
			want: idsWhere(items, func(it item) bool { return it.done || it.hasDays && it.days > 3 })},
		// Item 4: a checkbox is 0 or 1, compared as a number.
		{query: "SELECT id FROM Items WHERE Done <> 2", want: idsWhere(items, all)},
		{query: "SELECT id FROM Items WHERE Done = 5", want: nil},
		{query: "SELECT id FROM Items WHERE Done = 1", want: idsWhere(items, func(it item) bool { return it.done })},
		{query: "SELECT id FROM Items WHERE Done = 0", want: idsWhere(items, func(it item) bool { return !it.done })},
		{query: "SELECT id FROM Items WHERE Done = 0.5", want: nil},
		{query: "SELECT id FROM Items WHERE Done < 2", want: idsWhere(items, all)},
		{query: "SELECT id FROM Items WHERE Done > 0.5", want: idsWhere(items, func(it item) bool { return it.done })},
		{query: "SELECT id FROM Items WHERE Done >= -1", want: idsWhere(items, all)},
		{query: "SELECT id FROM Items WHERE 1 > Done", want: idsWhere(items, func(it item) bool { return !it.done })},
		{query: "SELECT id FROM Items WHERE Done IN (2, 3)", want: nil},
		{query: "SELECT id FROM Items WHERE Done NOT IN (2, 0)", want: idsWhere(items, func(it item) bool { return it.done })},
		{query: "SELECT id FROM Items WHERE Done = ?", args: []any{int64(7)}, want: nil},
		{query: "SELECT id FROM Items WHERE Done = '1'", want: idsWhere(items, func(it item) bool { return it.done })},
		{query: "SELECT id FROM Items WHERE NOT (Done = 2)", want: idsWhere(items, all)},
		// Item 5: text compared with a number compares as numbers, as in MySQL.
		{query: "SELECT id FROM Items WHERE Code = 1",
			want: idsWhere(items, func(it item) bool { return it.code != nil && codeNumbers[*it.code] == 1 })},
		{query: "SELECT id FROM Items WHERE Code = 0",
			want: idsWhere(items, func(it item) bool { return it.code != nil && codeNumbers[*it.code] == 0 })},
		{query: "SELECT id FROM Items WHERE Code > 2 OR Code IS NULL",
			want: idsWhere(items, func(it item) bool { return it.code == nil || codeNumbers[*it.code] > 2 })},
		{query: "SELECT id FROM Items WHERE Code IN (20, 0.5)",
			want: idsWhere(items, func(it item) bool {
				return it.code != nil && (codeNumbers[*it.code] == 20 || codeNumbers[*it.code] == 0.5)
			})},
		{query: "SELECT id FROM Items WHERE Code IN ('1', 3)",
			want: idsWhere(items, func(it item) bool {
				return it.code != nil && (codeNumbers[*it.code] == 1 || codeNumbers[*it.code] == 3)
			})},
		{query: "SELECT id FROM Items WHERE Code = N",
			want: idsWhere(items, func(it item) bool { return it.code != nil && codeNumbers[*it.code] == float64(it.n) })},
		{query: "SELECT id FROM Items WHERE Done = Code",
			want: idsWhere(items, func(it item) bool {
				return it.code != nil && codeNumbers[*it.code] == map[bool]float64{false: 0, true: 1}[it.done]
			})},
		{query: "SELECT id FROM Items WHERE Code = '1'",
			want: idsWhere(items, func(it item) bool { return it.code != nil && *it.code == "1" })},
		// Issue 15 item 4: LIKE with invalid UTF-8 matches no stored text, as = does not.
		{query: "SELECT id FROM Items WHERE Name = ?", args: []any{"a\xffb"}, want: nil},
		{query: "SELECT id FROM Items WHERE Name LIKE ?", args: []any{"a\xffb"}, want: nil},
		{query: "SELECT id FROM Items WHERE Name <> ?", args: []any{"a\xffb"},
			want: idsWhere(items, func(it item) bool { return it.name != nil })},
		{query: "SELECT id FROM Items WHERE Name IN (?, ?)", args: []any{"a\xffb", "item 01"},
			want: idsWhere(items, func(it item) bool { return it.name != nil && *it.name == "item 01" })},
		{query: "SELECT id FROM Items WHERE NOT (Name LIKE ?) OR Done", args: []any{"%\xff"},
			want: idsWhere(items, func(it item) bool { return it.name != nil || it.done })},
		{query: "SELECT id FROM Items WHERE Name LIKE ?", args: []any{"%\xff%"}, want: nil},
		{query: "SELECT id FROM Items WHERE Name NOT LIKE ?", args: []any{"a\xffb"},
			want: idsWhere(items, func(it item) bool { return it.name != nil })},
		{query: "SELECT id FROM Items WHERE Name LIKE ?", args: []any{"a_b"},
			want: idsWhere(items, func(it item) bool { return it.name != nil && *it.name == "a\uFFFDb" })},
		{query: "SELECT id FROM Items WHERE Name LIKE ?", args: []any{"a\uFFFDb"},
			want: idsWhere(items, func(it item) bool { return it.name != nil && *it.name == "a\uFFFDb" })},
	}
	for _, tt := range tests {
		t.Run(tt.query+fmt.Sprint(tt.args), func(t *testing.T) {
			got := queryColumn(t, db, tt.query, tt.args...)
			if !slices.Equal(sorted(got), sorted(tt.want)) {
				t.Errorf("got %d rows, want %d\ngot  %v\nwant %v", len(got), len(tt.want), got, tt.want)
			}
		})
	}
}

// TestIssue17FormulaSort (item 2): a sort on a numeric formula field whose records include
// Infinity and NaN comes back in SQL's order, and the driver does not hand that sort to the
// service, whose order of special values is not known.
func TestIssue17FormulaSort(t *testing.T) {
	db, srv, items := openItems(t)
	var finite []item
	for _, it := range items {
		if it.ratioFinite {
			finite = append(finite, it)
		}
	}
	slices.SortStableFunc(finite, func(a, b item) int {
		if c := cmpFloat(a.ratio, b.ratio); c != 0 {
			return c
		}
		return a.n - b.n
	})
	for _, q := range []struct {
		sql  string
		want []item
	}{
		{"SELECT id FROM Items WHERE Ratio IS NOT NULL AND N >= 0 ORDER BY Ratio, N", finite},
		{"SELECT id FROM Items WHERE Ratio IS NOT NULL AND N >= 0 ORDER BY Ratio, N LIMIT 5", finite[:5]},
		{"SELECT id FROM Items WHERE Ratio > 0 AND N >= 0 ORDER BY Ratio DESC, N", reverseRatio(finite)},
	} {
		t.Run(q.sql, func(t *testing.T) {
			srv.ResetRequests()
			got := queryColumn(t, db, q.sql)
			var want []string
			for _, it := range q.want {
				want = append(want, it.id)
			}
			if !slices.Equal(got, want) {
				t.Errorf("got  %v\nwant %v", got, want)
			}
			for _, r := range dataRequests(srv) {
				if v := queryValues(t, r); v.Get("sort[0][field]") == "Ratio" {
					t.Errorf("the sort on the formula field Ratio was sent to the service: %s", r.Query)
				}
			}
		})
	}
}

func reverseRatio(finite []item) []item {
	var out []item
	for _, it := range finite {
		if it.ratio > 0 {
			out = append(out, it)
		}
	}
	slices.SortStableFunc(out, func(a, b item) int {
		if c := cmpFloat(b.ratio, a.ratio); c != 0 {
			return c
		}
		return a.n - b.n
	})
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestIssue17ExplainFormulaSort: EXPLAIN says the formula field's order is made locally.
func TestIssue17ExplainFormulaSort(t *testing.T) {
	db, _, _ := openItems(t)
	rows, err := db.Query("EXPLAIN SELECT id FROM Items WHERE Ratio IS NOT NULL ORDER BY Ratio LIMIT 3")
	if err != nil {
		t.Fatal(err)
	}
	var text []string
	for _, r := range scanAll(t, rows) {
		text = append(text, fmt.Sprint(r...))
	}
	all := strings.Join(text, "\n")
	if !strings.Contains(all, "sort by") || strings.Contains(all, "maxRecords") {
		t.Errorf("EXPLAIN does not show a local sort without maxRecords:\n%s", all)
	}
}
