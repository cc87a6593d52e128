package translate

import (
	"errors"
	"fmt"
	"testing"
)

// jsonRow is a task whose multiple select and link hold lists.
var jsonRow = Row{ID: "recJSON0000000001", CreatedTime: testNow, Fields: map[string]any{
	"Name": "Ship", "Priority": 3.0, "Tags": []any{"urgent", "x", "y"}, "Owner": []any{"recP1", "recP2"},
}}

// evalOn evaluates one SQL expression on row through Select and Plan.Values, as the driver does.
func evalOn(t *testing.T, row Row, sqlExpr string) (any, Column, error) {
	t.Helper()
	stmt, err := Parse("SELECT " + sqlExpr + " FROM Tasks")
	if err != nil {
		return nil, Column{}, err
	}
	sel, ok := stmtSelect(stmt)
	if !ok {
		t.Fatalf("%s: not a SELECT", sqlExpr)
	}
	plan, err := selectPlan(sel, loadSchema(t), Args{Now: testNow})
	if err != nil {
		return nil, Column{}, err
	}
	dest := make([]any, len(plan.Columns))
	if err := plan.Values(row, dest); err != nil {
		return nil, Column{}, err
	}
	return dest[0], plan.Columns[0], nil
}

// Collaborators and attachments as the API gives them.
const (
	collabs = `'[{"id": "usrA", "email": "ada@example.com", "name": "Ada Lovelace"}, {"id": "usrG", "email": "grace@example.com", "name": "Grace Hopper"}]'`
	attach  = `'[{"id": "attA", "url": "https://x/a.png", "filename": "a.png", "size": 1024, "type": "image/png"}]'`
)

// TestJSONFunctions checks every JSON function against MySQL 8's answers (the manual's examples
// of section 14.17 and NULL, list and object cases): value and column type; a NULL want is SQL NULL.
func TestJSONFunctions(t *testing.T) {
	tests := []struct {
		sql  string
		want any
		typ  string
	}{
		// JSON_EXTRACT and its paths
		{`JSON_EXTRACT('[10, 20, [30, 40]]', '$[1]')`, "20", "JSON"},
		{`JSON_EXTRACT('[10, 20, [30, 40]]', '$[1]', '$[0]')`, "[20, 10]", "JSON"},
		{`JSON_EXTRACT('[10, 20, [30, 40]]', '$[2][*]')`, "[30, 40]", "JSON"},
		{`JSON_EXTRACT('[10, 20, [30, 40]]', '$[3]')`, nil, "JSON"},
		{`JSON_EXTRACT('[10, 20, [30, 40]]', '$[last]')`, "[30, 40]", "JSON"},
		{`JSON_EXTRACT('[1, 2, 3, 4, 5]', '$[1 to 3]')`, "[2, 3, 4]", "JSON"},
		{`JSON_EXTRACT('[1, 2, 3, 4, 5]', '$[last-3 to last-1]')`, "[2, 3, 4]", "JSON"},
		// MySQL's Json_array_index: an index before the start names nothing alone, and is 0 as
		// the start of a range; a range's end past the array stops at its end.
		{`JSON_EXTRACT('["a"]', '$[last-1]')`, nil, "JSON"},
		{`JSON_EXTRACT('"s"', '$[last-1]')`, nil, "JSON"},
		{`JSON_EXTRACT('["a", "b"]', '$[last-2]')`, nil, "JSON"},
		{`JSON_EXTRACT('["a"]', '$[last-1 to last]')`, `["a"]`, "JSON"},
		{`JSON_EXTRACT('["a", "b"]', '$[last-5 to last-3]')`, nil, "JSON"},
		{`JSON_EXTRACT('["a", "b"]', '$[1 to 5]')`, `["b"]`, "JSON"},
		{`JSON_EXTRACT('["a", "b"]', '$[5 to 7]')`, nil, "JSON"},
		{`JSON_EXTRACT('["a"]', '$[1 to last]')`, nil, "JSON"},
		// ** then [0]: every first element, and every scalar as an array of itself, once
		// (MySQL's answer, quoted in tikv/tikv#13297).
		{`JSON_EXTRACT('[[0,1],[2,3],[4,[5,6]]]', '$**[0]')`, "[[0, 1], 0, 1, 2, 3, 4, 5, 6]", "JSON"},
		{`JSON_EXTRACT('[1]', '$**[0]')`, "[1]", "JSON"},
		{`JSON_EXTRACT('{"a": 1, "b": {"c": [1, 2]}}', '$.b.c[1]')`, "2", "JSON"},
		{`JSON_EXTRACT('{"a": {"b": 1}, "c": {"b": 2}}', '$**.b')`, "[1, 2]", "JSON"},
		{`JSON_EXTRACT('{"a": 1, "bb": 2, "c": 3}', '$.*')`, "[1, 3, 2]", "JSON"},
		{`JSON_EXTRACT('{"a b": "sp"}', '$."a b"')`, `"sp"`, "JSON"},
		{`JSON_EXTRACT('"s"', '$[0]')`, `"s"`, "JSON"}, // a scalar is an array of itself
		{`JSON_EXTRACT('{"a":null}', '$.a')`, "null", "JSON"},
		{`JSON_EXTRACT(NULL, '$')`, nil, "JSON"},
		{`JSON_EXTRACT('[1]', NULL)`, nil, "JSON"},
		{`JSON_EXTRACT('{"z":1,"a":[1,{"bb":2,"c":3}],"yy":1.50}', '$')`, `{"a": [1, {"c": 3, "bb": 2}], "z": 1, "yy": 1.5}`, "JSON"},
		{`JSON_EXTRACT('[1e2, -0, "\\u00e9\\n"]', '$')`, `[100.0, 0, "é\n"]`, "JSON"},
		{`JSON_EXTRACT(Tags, '$[0]')`, `"urgent"`, "JSON"},
		{`JSON_EXTRACT(Tags, '$')`, `["urgent", "x", "y"]`, "JSON"},
		{`JSON_EXTRACT(Owner, '$[1]')`, `"recP2"`, "JSON"},
		{`JSON_EXTRACT(` + collabs + `, '$[*].email')`, `["ada@example.com", "grace@example.com"]`, "JSON"},
		{`JSON_EXTRACT(` + attach + `, '$[0].size')`, "1024", "JSON"},
		// -> and ->>
		{`Tags->'$[1]'`, `"x"`, "JSON"},
		{`Tags->>'$[1]'`, "x", "TEXT"},
		{`Tags->>'$[9]'`, nil, "TEXT"},
		{`Owner->>'$[0]'`, "recP1", "TEXT"},
		// JSON_UNQUOTE and JSON_QUOTE
		{`JSON_UNQUOTE('"abc"')`, "abc", "TEXT"},
		{`JSON_UNQUOTE('[1, 2]')`, "[1, 2]", "TEXT"},
		{`JSON_UNQUOTE('"\\t\\u0032"')`, "\t2", "TEXT"},
		{`JSON_UNQUOTE(JSON_EXTRACT('{"a": [1,2]}', '$.a'))`, "[1, 2]", "TEXT"},
		{`JSON_UNQUOTE(NULL)`, nil, "TEXT"},
		{`JSON_UNQUOTE('"abc')`, `"abc`, "TEXT"}, // not a quoted string: itself
		{`JSON_QUOTE('null')`, `"null"`, "TEXT"},
		{`JSON_QUOTE('"a"\\b')`, `"\"a\"\\b"`, "TEXT"},
		{`JSON_QUOTE(NULL)`, nil, "TEXT"},
		// JSON_LENGTH
		{`JSON_LENGTH('[1, 2, {"a": 3}]')`, int64(3), "INT64"},
		{`JSON_LENGTH('{"a": 1, "b": {"c": 30}}', '$.b')`, int64(1), "INT64"},
		{`JSON_LENGTH('7')`, int64(1), "INT64"},
		{`JSON_LENGTH('[]')`, int64(0), "INT64"},
		{`JSON_LENGTH('{"a": 1}', '$.z')`, nil, "INT64"},
		{`JSON_LENGTH(Tags)`, int64(3), "INT64"},
		{`JSON_LENGTH(NULL)`, nil, "INT64"},
		{`JSON_LENGTH(` + collabs + `)`, int64(2), "INT64"},
		// JSON_CONTAINS
		{`JSON_CONTAINS('{"a": 1, "b": 2, "c": {"d": 4}}', '1', '$.a')`, int64(1), "INT64"},
		{`JSON_CONTAINS('{"a": 1, "b": 2, "c": {"d": 4}}', '1', '$.b')`, int64(0), "INT64"},
		{`JSON_CONTAINS('{"a": 1, "b": 2, "c": {"d": 4}}', '{"d": 4}', '$.a')`, int64(0), "INT64"},
		{`JSON_CONTAINS('{"a": 1, "b": 2, "c": {"d": 4}}', '{"d": 4}', '$.c')`, int64(1), "INT64"},
		{`JSON_CONTAINS('[1, 2, [3, 4]]', '[1, 3]')`, int64(1), "INT64"},
		{`JSON_CONTAINS('[1, 2]', '1.0')`, int64(1), "INT64"},
		{`JSON_CONTAINS('[1, 2]', '"1"')`, int64(0), "INT64"},
		{`JSON_CONTAINS('{"a": 1}', '1', '$.z')`, nil, "INT64"},
		{`JSON_CONTAINS(Tags, '"urgent"')`, int64(1), "INT64"},
		{`JSON_CONTAINS(Tags, '["x", "urgent"]')`, int64(1), "INT64"},
		{`JSON_CONTAINS(Tags, '"z"')`, int64(0), "INT64"},
		{`JSON_CONTAINS(NULL, '1')`, nil, "INT64"},
		{`JSON_CONTAINS(Owner, '["recP2", "recP1"]')`, int64(1), "INT64"}, // a link: its ids
		{`JSON_CONTAINS(Owner, '"recP9"')`, int64(0), "INT64"},            // a link with one id: membership (link.go), MySQL's integer
		{`JSON_LENGTH(Owner)`, int64(2), "INT64"},
		{`JSON_CONTAINS(` + collabs + `, '{"email": "ada@example.com"}')`, int64(1), "INT64"},
		// JSON_CONTAINS_PATH
		{`JSON_CONTAINS_PATH('{"a": 1, "b": 2, "c": {"d": 4}}', 'one', '$.a', '$.e')`, int64(1), "INT64"},
		{`JSON_CONTAINS_PATH('{"a": 1, "b": 2, "c": {"d": 4}}', 'all', '$.a', '$.e')`, int64(0), "INT64"},
		{`JSON_CONTAINS_PATH('{"a": 1, "b": 2, "c": {"d": 4}}', 'ONE', '$.c.d')`, int64(1), "INT64"},
		{`JSON_CONTAINS_PATH(Tags, 'one', '$[2]')`, int64(1), "INT64"},
		{`JSON_CONTAINS_PATH(NULL, 'one', '$')`, nil, "INT64"},
		// JSON_SEARCH
		{`JSON_SEARCH('["abc", [{"k": "10"}, "def"], {"x":"abc"}, {"y":"bcd"}]', 'one', 'abc')`, `"$[0]"`, "JSON"},
		{`JSON_SEARCH('["abc", [{"k": "10"}, "def"], {"x":"abc"}, {"y":"bcd"}]', 'all', 'abc')`, `["$[0]", "$[2].x"]`, "JSON"},
		{`JSON_SEARCH('["abc", [{"k": "10"}, "def"], {"x":"abc"}, {"y":"bcd"}]', 'all', 'ghi')`, nil, "JSON"},
		{`JSON_SEARCH('["abc", [{"k": "10"}, "def"], {"x":"abc"}, {"y":"bcd"}]', 'all', '10')`, `"$[1][0].k"`, "JSON"},
		{`JSON_SEARCH('["abc", [{"k": "10"}, "def"], {"x":"abc"}, {"y":"bcd"}]', 'all', '%b%', NULL, '$[3]')`, `"$[3].y"`, "JSON"},
		{`JSON_SEARCH('["abc", [{"k": "10"}, "def"], {"x":"abc"}, {"y":"bcd"}]', 'all', '%b%', '', '$[2]')`, `"$[2].x"`, "JSON"},
		{`JSON_SEARCH('["abc", [{"k": "10"}, "def"], {"x":"abc"}, {"y":"bcd"}]', 'all', '%1%', '', '$[*]')`, `"$[1][0].k"`, "JSON"},
		{`JSON_SEARCH('["a%c", "abc"]', 'all', 'a|%c', '|')`, `"$[0]"`, "JSON"},
		{`JSON_SEARCH('{"a b": "v"}', 'one', 'v')`, `"$.\"a b\""`, "JSON"},
		{`JSON_SEARCH(Tags, 'one', 'ur%')`, `"$[0]"`, "JSON"},
		{`JSON_SEARCH(` + collabs + `, 'one', 'grace@%')`, `"$[1].email"`, "JSON"},
		{`JSON_SEARCH(NULL, 'one', 'a')`, nil, "JSON"},
		{`JSON_SEARCH('["a"]', 'one', NULL)`, nil, "JSON"},
		// JSON_KEYS
		{`JSON_KEYS('{"a": 1, "b": {"c": 30}}')`, `["a", "b"]`, "JSON"},
		{`JSON_KEYS('{"a": 1, "b": {"c": 30}}', '$.b')`, `["c"]`, "JSON"},
		{`JSON_KEYS('[1]')`, nil, "JSON"},
		{`JSON_KEYS(` + attach + `, '$[0]')`, `["id", "url", "size", "type", "filename"]`, "JSON"},
		{`JSON_KEYS(NULL)`, nil, "JSON"},
		// JSON_ARRAY and JSON_OBJECT
		{`JSON_ARRAY(1, 'abc', NULL, TRUE, 2.5)`, `[1, "abc", null, true, 2.5]`, "JSON"},
		{`JSON_ARRAY()`, `[]`, "JSON"},
		{`JSON_ARRAY(Tags, Name)`, `[["urgent", "x", "y"], "Ship"]`, "JSON"},
		{`JSON_ARRAY('[1]')`, `["[1]"]`, "JSON"}, // text stays a string
		{`JSON_OBJECT('id', 87, 'name', 'carrot')`, `{"id": 87, "name": "carrot"}`, "JSON"},
		{`JSON_OBJECT('a', 1, 'a', 2)`, `{"a": 2}`, "JSON"},
		{`JSON_OBJECT('b', NULL, 'tags', Tags)`, `{"b": null, "tags": ["urgent", "x", "y"]}`, "JSON"},
		{`JSON_OBJECT()`, `{}`, "JSON"},
		// JSON_TYPE and JSON_VALID
		{`JSON_TYPE('{"a": [10, true]}')`, "OBJECT", "TEXT"},
		{`JSON_TYPE(JSON_EXTRACT('{"a": [10, true]}', '$.a'))`, "ARRAY", "TEXT"},
		{`JSON_TYPE(JSON_EXTRACT('{"a": [10, true]}', '$.a[0]'))`, "INTEGER", "TEXT"},
		{`JSON_TYPE(JSON_EXTRACT('{"a": [10, true]}', '$.a[1]'))`, "BOOLEAN", "TEXT"},
		{`JSON_TYPE('1.5')`, "DOUBLE", "TEXT"},
		{`JSON_TYPE('"x"')`, "STRING", "TEXT"},
		{`JSON_TYPE('null')`, "NULL", "TEXT"},
		{`JSON_TYPE(Tags)`, "ARRAY", "TEXT"},
		{`JSON_TYPE(NULL)`, nil, "TEXT"},
		{`JSON_VALID('{"a": 1}')`, int64(1), "INT64"},
		{`JSON_VALID('hello')`, int64(0), "INT64"},
		{`JSON_VALID('"hello"')`, int64(1), "INT64"},
		{`JSON_VALID('[1] x')`, int64(0), "INT64"},
		{`JSON_VALID(Tags)`, int64(1), "INT64"},
		{`JSON_VALID(NULL)`, nil, "INT64"},
		// MEMBER OF
		{`17 MEMBER OF('[23, "abc", 17, "ab", 10]')`, int64(1), "INT64"},
		{`'ab' MEMBER OF('[23, "abc", 17, "ab", 10]')`, int64(1), "INT64"},
		{`'17' MEMBER OF('[23, "abc", 17, "ab", 10]')`, int64(0), "INT64"},
		{`'urgent' MEMBER OF(Tags)`, int64(1), "INT64"},
		{`'recP2' MEMBER OF (Owner)`, int64(1), "INT64"},
		{`Name MEMBER OF(Tags)`, int64(0), "INT64"},
		{`LOWER('URGENT') MEMBER OF(Tags)`, int64(1), "INT64"},
		{`NULL MEMBER OF(Tags)`, nil, "INT64"},
		{`5 MEMBER OF('5')`, int64(1), "INT64"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			got, col, err := evalOn(t, jsonRow, tc.sql)
			if err != nil {
				t.Fatalf("got error %v, want %#v", err, tc.want)
			}
			if got != tc.want {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
			if col.DatabaseType != tc.typ {
				t.Errorf("got type %s, want %s", col.DatabaseType, tc.typ)
			}
		})
	}
}

// TestJSONErrors checks that MySQL's refusals carry MySQL's error numbers.
func TestJSONErrors(t *testing.T) {
	tests := []struct {
		sql  string
		code int
	}{
		{`JSON_EXTRACT('[1', '$')`, 3141},
		{`JSON_EXTRACT('{"a": 1} x', '$')`, 3141},
		{`JSON_LENGTH('nope')`, 3141},
		{`JSON_UNQUOTE('"a"b"')`, 3141},
		{`JSON_EXTRACT('[1]', 'a')`, 3143},
		{`JSON_EXTRACT('[1]', '$.')`, 3143},
		{`JSON_EXTRACT('[1]', '$**')`, 3143},
		{`JSON_EXTRACT('[1]', '$[')`, 3143},
		{`JSON_EXTRACT('[1]', '$[3 to 1]')`, 3143},
		{`JSON_EXTRACT(5, '$')`, 3146},
		{`JSON_LENGTH('[1]', '$[*]')`, 3149},
		{`JSON_CONTAINS('[1]', '1', '$**.a')`, 3149},
		{`JSON_CONTAINS_PATH('[1]', 'any', '$')`, 3154},
		{`JSON_SEARCH('[1]', 'some', 'a')`, 3154},
		{`JSON_SEARCH('["a"]', 'one', 'a', 'xy')`, 1210},
		{`JSON_OBJECT(NULL, 1)`, 3158},
		{`JSON_OBJECT('a')`, 1582},
		{`JSON_EXTRACT(Name, '$')`, 3141}, // the row's text is not JSON
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			got, _, err := evalOn(t, jsonRow, tc.sql)
			var je *JSONError
			if !errors.As(err, &je) {
				t.Fatalf("got %#v, %v, want error %d", got, err, tc.code)
			}
			if je.Code != tc.code {
				t.Errorf("got error %d (%v), want %d", je.Code, err, tc.code)
			}
		})
	}
}

// TestJSONCompareRefused checks that a JSON result compared with text is refused rather than
// compared as text ('"x"' = 'x' would be FALSE where MySQL says TRUE), and that ->> compares.
func TestJSONCompareRefused(t *testing.T) {
	for _, tc := range []struct {
		sql     string
		refused bool
		want    any
	}{
		{`Tags->'$[0]' = 'urgent'`, true, nil},
		{`JSON_EXTRACT(Tags, '$[0]') <> 'x'`, true, nil},
		{`Tags->>'$[0]' = 'urgent'`, false, int64(1)},
		{`JSON_UNQUOTE(JSON_EXTRACT(Tags, '$[1]')) = 'x'`, false, int64(1)},
		{`JSON_EXTRACT(Tags, '$') = JSON_ARRAY('urgent', 'x', 'y')`, false, int64(1)},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			got, _, err := evalOn(t, jsonRow, tc.sql)
			var ue *UnsupportedError
			if refused := errors.As(err, &ue); refused != tc.refused {
				t.Fatalf("got %v, %v; want refused %v", got, err, tc.refused)
			}
			if !tc.refused && got != tc.want {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

// TestJSONAggregates: JSON_ARRAYAGG keeps NULLs as null and each value's JSON type (a JSON cell
// nested, text a string); JSON_OBJECTAGG's last value of a key wins and a NULL key is error 3158;
// over no rows both are NULL.
func TestJSONAggregates(t *testing.T) {
	run := func(name string, cols []*expr, rows ...[]any) (any, error) {
		acc := (&Aggregate{Name: name, args: cols}).NewAccumulator()
		for _, r := range rows {
			if _, err := acc.Add(&Row{Values: r}); err != nil {
				return nil, err
			}
		}
		return acc.Result(), nil
	}
	text := &expr{kind: exSlot, slot: 0, typ: typeText}
	tags := &expr{kind: exSlot, slot: 1, typ: typeJSON}
	num := &expr{kind: exSlot, slot: 1, typ: typeFloat}
	for _, tc := range []struct {
		name string
		cols []*expr
		rows [][]any
		want any
		code int
	}{
		{"JSON_ARRAYAGG", []*expr{text}, [][]any{{"a"}, {nil}, {"b"}}, `["a", null, "b"]`, 0},
		{"JSON_ARRAYAGG", []*expr{tags}, [][]any{{nil, `["x","y"]`}, {nil, nil}}, `[["x", "y"], null]`, 0},
		{"JSON_ARRAYAGG", []*expr{text}, nil, nil, 0},
		{"JSON_OBJECTAGG", []*expr{text, num}, [][]any{{"b", 1.5}, {"a", nil}, {"b", 2.0}}, `{"a": null, "b": 2.0}`, 0},
		{"JSON_OBJECTAGG", []*expr{text, tags}, [][]any{{"t", `["urgent"]`}}, `{"t": ["urgent"]}`, 0},
		{"JSON_OBJECTAGG", []*expr{text, num}, [][]any{{nil, 1.0}}, nil, 3158},
		{"JSON_OBJECTAGG", []*expr{text, num}, nil, nil, 0},
	} {
		t.Run(fmt.Sprint(tc.name, tc.rows), func(t *testing.T) {
			got, err := run(tc.name, tc.cols, tc.rows...)
			var je *JSONError
			if tc.code != 0 {
				if !errors.As(err, &je) || je.Code != tc.code {
					t.Fatalf("got %v, %v, want error %d", got, err, tc.code)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %#v, %v, want %#v", got, err, tc.want)
			}
		})
	}
}

// BenchmarkJSONExtract reads a collaborator's email out of a list cell per row, as
// Watchers->>'$[0].email' does: the document and the path are read on each call.
func BenchmarkJSONExtract(b *testing.B) {
	sel := parseSelect(b, "SELECT Tags->>'$[1]', JSON_CONTAINS(Tags, '\"y\"'), JSON_LENGTH(Tags) FROM Tasks")
	plan, err := selectPlan(sel, loadSchema(b), Args{Now: testNow})
	if err != nil {
		b.Fatal(err)
	}
	dest := make([]any, len(plan.Columns))
	b.ReportAllocs()
	for b.Loop() {
		if err := plan.Values(jsonRow, dest); err != nil {
			b.Fatal(err)
		}
	}
}
