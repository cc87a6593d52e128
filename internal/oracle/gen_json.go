package oracle

import (
	"fmt"
	"slices"
	"strings"
)

// The JSON functions of issue 22 over the fixture's list cells (multiple selects and links: JSON
// arrays of strings), JSON text constants and NULL, with MySQL's paths ($, .key, [n], [last],
// [last-n], [m to n], [*], .*, **.key, **[n]): in the select list, WHERE, GROUP BY and ORDER BY.
//
// MariaDB 10.11 answers otherwise than MySQL 8 in ways its side (e.m) writes around:
//   - JSON results: MySQL prints every JSON value in its normal form (", " and ": ", object keys
//     by length, then bytes); MariaDB prints a value as it was written (a cell's compact text,
//     keys in their order). MariaDB's side is jsonNormal(x): JSON_COMPACT, then ", " and ": "
//     put back — exact because no string of the fixture's lists or of the constants here holds
//     a comma or a colon — and constant objects and JSON_OBJECT's pairs are written on its side
//     with their keys in MySQL's order (the driver's side keeps them in a random order).
//   - no -> and ->>: JSON_EXTRACT and JSON_UNQUOTE(JSON_EXTRACT(…)).
//   - no MEMBER OF: JSON_CONTAINS(doc, JSON_QUOTE(x)), the same for the flat documents it is
//     written over here (JSON_CONTAINS also looks into nested arrays, MEMBER OF does not).
//   - [last] (resolved once per query over a column; missed in a constant with a nested array),
//     a scalar or object read as an array of itself with [last] or a range, JSON_CONTAINS with a
//     path that finds nothing (0, MySQL: NULL), JSON_SEARCH's '%' matching numbers, several
//     paths' values in document order (MySQL: path after path), $**[n] over an object: see
//     jsonPath, jsonScalar, jsonSearchDoc and jsonExtract.
//   - JSON_UNQUOTE's utf8mb4_bin, which MariaDB will not compare with the connection's
//     collation, and its ONLY_FULL_GROUP_BY, which does not match a JSON expression in GROUP BY
//     with its select item: COLLATE utf8mb4_nopad_bin, GROUP BY 1 (jsonText, jsonGroup).

// TagJSON: a JSON function.
const TagJSON = "json"

// jsonDoc is a JSON document written for both sides, with what the paths may find in it.
type jsonDoc struct {
	e
	column bool // a column: -> and ->> apply
	scalar bool // a scalar: no ranges or wildcards (MariaDB does not wrap a scalar in an array for them)
	strs   bool // every scalar in it is a string
	flat   bool // an array of scalars, a scalar or NULL: MEMBER OF means JSON_CONTAINS of it
	object bool
}

// jsonConstants are JSON texts: arrays flat and nested, objects (driver's key order, MySQL's key
// order), scalars. No string holds a comma or a colon (jsonNormal).
var jsonConstants = []struct {
	d, m                 string
	flat, object, scalar bool
	strs                 bool // every scalar in it is a string (JSON_SEARCH)
}{
	{`'["red", "blue", "x%y"]'`, `'["red", "blue", "x%y"]'`, true, false, false, true},
	{`'[]'`, `'[]'`, true, false, false, true},
	{`'[1, 2, 3]'`, `'[1, 2, 3]'`, true, false, false, false},
	{`'[true, false, null, "Red"]'`, `'[true, false, null, "Red"]'`, true, false, false, false},
	{`'["a_b", ["red", "Red"], 7]'`, `'["a_b", ["red", "Red"], 7]'`, false, false, false, false},
	{`'"red"'`, `'"red"'`, true, false, true, true},
	{`'5'`, `'5'`, true, false, true, false},
	{`'{"b": ["red", "blue"], "a": 1}'`, `'{"a": 1, "b": ["red", "blue"]}'`, false, true, false, false},
	{`'{"kk": {"a": "x"}, "b": null, "a": [1, 2]}'`, `'{"a": [1, 2], "b": null, "kk": {"a": "x"}}'`, false, true, false, false},
	{`'{"tags": ["red", "ünï"], "id": "recX", "n": 3}'`, `'{"n": 3, "id": "recX", "tags": ["red", "ünï"]}'`, false, true, false, false},
	{`'{"b": ["red", "blue"], "a": "x%y"}'`, `'{"a": "x%y", "b": ["red", "blue"]}'`, false, true, false, true},
	{`'{"a": {"b": {"a": true}}}'`, `'{"a": {"b": {"a": true}}}'`, false, true, false, false},
}

// jsonPaths are MySQL's path forms; wild ones (wildcards, ranges) only where MySQL takes them.
var jsonPaths = []string{"$", "$[0]", "$[1]", "$[2]", "$[last]", "$[last-1]", "$[1][0]", "$.a", "$.b", "$.b[0]", "$.b[last]",
	"$.kk.a", `$."n"`, "$.tags[1]", "$.zz", "$[5]"}

var jsonWildPaths = []string{"$[0 to 1]", "$[1 to last]", "$[last-1 to last]", "$[*]", "$.*", "$**.a", "$.tags[*]", "$.b[*]", "$**[0]", "$**[1]"}

// jsonNormal is MariaDB's side of a JSON result: MySQL's text of it.
func jsonNormal(m string) string {
	return "REPLACE(REPLACE(JSON_COMPACT(" + m + ") COLLATE " + TextCollation + ", ',', ', '), ':', ': ')"
}

// jsonDoc picks a document: a list column of the table (most often), a constant or NULL.
func (p *parts) jsonDoc() jsonDoc {
	r := p.r
	lists := listColumns(p.t)
	if len(lists) > 0 && r.IntN(3) != 0 {
		c := p.column(lists[r.IntN(len(lists))])
		return jsonDoc{e: c, column: true, flat: true, strs: true}
	}
	if r.IntN(12) == 0 {
		return jsonDoc{e: e{d: "NULL", m: "NULL", k: JSON, nullable: true, isNull: true}, flat: true, strs: true}
	}
	c := jsonConstants[r.IntN(len(jsonConstants))]
	return jsonDoc{e: e{d: c.d, m: c.m, k: JSON}, flat: c.flat, object: c.object, scalar: c.scalar, strs: c.strs}
}

// jsonSearchDoc is a document of JSON_SEARCH: strings only (MariaDB matches '%' to a number,
// seed 454).
func (p *parts) jsonSearchDoc() jsonDoc {
	for {
		if doc := p.jsonDoc(); doc.strs {
			return doc
		}
	}
}

// jsonPath is a path for doc in quotes, written for both sides; wild ones too when wild, none
// with [last] over a column when noLast.
//
// MariaDB 10.11 resolves [last] once, for the first row's array, and reads every later row's
// cell at that index (seeds 80, 107, 141 of the first run), and misses it in a constant with a
// nested array (seed 687). Its side computes the index per row from JSON_LENGTH, as MySQL's Json_array_index does: [last-k] past the start
// names nothing, as the start of a range it is 0. That path is NULL where the prefix is missing
// (JSON_LENGTH is NULL), which gives MySQL's answer (no match: NULL) except where one path of
// several misses (JSON_EXTRACT of two paths, JSON_CONTAINS_PATH): those pass noLast.
func (p *parts) jsonPath(doc jsonDoc, wild, noLast bool) (d, m string) {
	for {
		path := p.pick(jsonPaths...)
		if wild && !doc.scalar && p.r.IntN(3) == 0 {
			path = p.pick(jsonWildPaths...)
		}
		switch {
		case doc.scalar && !slices.Contains([]string{"$", "$[0]", "$[1]", "$.a"}, path):
			continue // MariaDB reads a scalar as an array of itself with [0] only
		case doc.object && (strings.HasPrefix(path, "$[") || strings.HasPrefix(path, "$**[")):
			// MariaDB never reads an object as an array of itself, and $**[0] over an object
			// also gives the arrays below it (seeds 2005, 14484 of the second run).
			continue
		case !strings.Contains(path, "last"):
			return "'" + path + "'", "'" + path + "'"
		case noLast:
			continue
		}
		n := "JSON_LENGTH(" + doc.m + ")"
		switch path {
		case "$[last]":
			return "'" + path + "'", "CONCAT('$[', IF(" + n + " > 0, " + n + " - 1, 1000000), ']')"
		case "$[last-1]":
			return "'" + path + "'", "CONCAT('$[', IF(" + n + " > 1, " + n + " - 2, 1000000), ']')"
		case "$.b[last]":
			nb := "JSON_LENGTH(" + doc.m + ", '$.b')"
			return "'" + path + "'", "CONCAT('$.b[', IF(" + nb + " > 0, " + nb + " - 1, 1000000), ']')"
		case "$[1 to last]":
			return "'" + path + "'", "IF(" + n + " > 1, CONCAT('$[1 to ', " + n + " - 1, ']'), '$[1000000]')"
		case "$[last-1 to last]":
			return "'" + path + "'", "IF(" + n + " > 0, CONCAT('$[', GREATEST(" + n + " - 2, 0), ' to ', " + n + " - 1, ']'), '$[1000000]')"
		}
		panic("oracle: no MariaDB form of the JSON path " + path)
	}
}

// jsonExtract is JSON_EXTRACT(doc, path…) or doc->'path': a JSON result, MariaDB's side as it
// prints it (jsonNormal makes it MySQL's text).
func (p *parts) jsonExtract(doc jsonDoc) e {
	if doc.column && p.r.IntN(2) == 0 {
		pd, pm := p.jsonPath(doc, true, false)
		return e{d: doc.d + "->" + pd, m: "JSON_EXTRACT(" + doc.m + ", " + pm + ")", k: JSON, nullable: true}
	}
	pd, pm := p.jsonPath(doc, true, false)
	if p.r.IntN(4) == 0 {
		// Several paths: an array of what each finds, path after path (MySQL's Item_func_json_extract:
		// JSON_EXTRACT('[1, 2]', '$[1]', '$[*]') is [2, 1, 2]). MariaDB puts the values in the
		// document's order, once each: its side concatenates what each path finds.
		pd, pm = p.jsonPath(doc, true, true)
		d2, m2 := p.jsonPath(doc, true, true)
		found := func(path string) string {
			if strings.ContainsAny(path, "*") || strings.Contains(path, " to ") {
				return "COALESCE(JSON_EXTRACT(" + doc.m + ", " + path + "), JSON_ARRAY())"
			}
			return "IF(JSON_CONTAINS_PATH(" + doc.m + ", 'one', " + path + "), JSON_ARRAY(JSON_EXTRACT(" + doc.m + ", " + path + ")), JSON_ARRAY())"
		}
		m := "IF(" + doc.m + " IS NULL, NULL, NULLIF(JSON_MERGE_PRESERVE(" + found(pm) + ", " + found(m2) + "), '[]'))"
		return e{d: "JSON_EXTRACT(" + doc.d + ", " + pd + ", " + d2 + ")", m: m, k: JSON, nullable: true}
	}
	return e{d: "JSON_EXTRACT(" + doc.d + ", " + pd + ")", m: "JSON_EXTRACT(" + doc.m + ", " + pm + ")", k: JSON, nullable: true}
}

// jsonText is doc->>'path' or JSON_UNQUOTE(JSON_EXTRACT(doc, 'path')): text.
func (p *parts) jsonText(doc jsonDoc, wild bool) e {
	pd, pm := p.jsonPath(doc, wild, false)
	// MariaDB's JSON_UNQUOTE is utf8mb4_bin, which it will not compare with the connection's
	// utf8mb4_nopad_bin ('red', IN (…), JSON_OBJECT's keys): the driver's collation.
	m := "JSON_UNQUOTE(" + jsonNormal("JSON_EXTRACT("+doc.m+", "+pm+")") + ") COLLATE " + TextCollation
	if doc.column && p.r.IntN(2) == 0 {
		return e{d: doc.d + "->>" + pd, m: m, k: Text, nullable: true}
	}
	return e{d: "JSON_UNQUOTE(JSON_EXTRACT(" + doc.d + ", " + pd + "))", m: m, k: Text, nullable: true}
}

// jsonCandidate is a candidate of JSON_CONTAINS; bound only when bind (a GROUP BY key is
// written twice on the driver's side and once on MariaDB's).
func (p *parts) jsonCandidate(bind bool) e {
	switch p.r.IntN(4) {
	case 0:
		if !bind {
			return lit("JSON_QUOTE('"+p.tagValue()+"')", JSON)
		}
		v := p.bind(p.tagValue())
		return e{d: "JSON_QUOTE(" + v + ")", m: "JSON_QUOTE(" + v + ")", k: JSON}
	case 1:
		return lit("JSON_ARRAY("+p.pick("'red'", "'blue'", "'red', 'blue'", "'Red', 'a_b'")+")", JSON)
	}
	return lit(p.pick(`'"red"'`, `'"Red"'`, `'"x%y"'`, `'["red", "blue"]'`, `'[]'`, `'1'`, `'{"a": 1}'`, `'[1, 3]'`, `'null'`,
		`'"recPEOPLE00000001"'`), JSON)
}

// jsonMember is x MEMBER OF(doc) over a flat document (MariaDB: JSON_CONTAINS(doc, JSON_QUOTE(x))).
func (p *parts) jsonMember() e {
	doc := p.jsonDoc()
	for !doc.flat {
		doc = p.jsonDoc()
	}
	var x, xm string
	switch p.r.IntN(3) {
	case 0:
		x = p.bind(p.tagValue())
		xm = "JSON_QUOTE(" + x + ")"
	case 1:
		// A record id the links may hold.
		x = p.bind(recordID(p.pick("People", "Projects"), p.r.IntN(30)))
		xm = "JSON_QUOTE(" + x + ")"
	default:
		n := fmt.Sprint(p.r.IntN(4))
		x, xm = n, "'"+n+"'"
	}
	p.q.tag(TagMySQLGrammar) // the pinned parser reads MEMBER OF after the driver's rewrite
	return e{d: "(" + x + " MEMBER OF(" + doc.d + "))", m: "JSON_CONTAINS(" + doc.m + ", " + xm + ")", k: Bool, nullable: true}
}

// jsonScalar is a JSON function with a text or integer result.
func (p *parts) jsonScalar() e {
	r := p.r
	doc := p.jsonDoc()
	switch r.IntN(9) {
	case 0, 1:
		return p.jsonText(doc, true)
	case 2:
		if r.IntN(2) == 0 {
			return call("JSON_LENGTH", Int, doc.e)
		}
		pd, pm := p.jsonPath(doc, false, false)
		return call("JSON_LENGTH", Int, doc.e, e{d: pd, m: pm})
	case 3:
		args := []e{doc.e, p.jsonCandidate(true)}
		if r.IntN(3) == 0 {
			// A path that finds nothing: MySQL gives NULL, MariaDB 0.
			pd, pm := p.jsonPath(doc, false, false)
			x := call("JSON_CONTAINS", Int, doc.e, p.jsonCandidate(true), e{d: pd, m: pm})
			x.m = "IF(JSON_CONTAINS_PATH(" + doc.m + ", 'one', " + pm + "), " + x.m + ", NULL)"
			return x
		}
		return call("JSON_CONTAINS", Int, args...)
	case 4:
		pd, pm := p.jsonPath(doc, true, true)
		args := []e{doc.e, lit(p.pick("'one'", "'all'"), Text), {d: pd, m: pm}}
		if r.IntN(2) == 0 {
			pd, pm := p.jsonPath(doc, true, true)
			args = append(args, e{d: pd, m: pm})
		}
		return call("JSON_CONTAINS_PATH", Int, args...)
	case 5:
		// JSON_TYPE's names are MySQL's for every value written here (no DOUBLE, no dates).
		return call("JSON_TYPE", Text, p.jsonExtract(doc))
	case 6:
		if r.IntN(2) == 0 {
			return call("JSON_VALID", Int, doc.e)
		}
		c := p.columnOf(Text)
		if c == nil {
			return call("JSON_VALID", Int, doc.e)
		}
		return call("JSON_VALID", Int, p.column(c))
	case 7:
		x := p.jsonText(doc, false)
		if r.IntN(2) == 0 {
			v := p.bind(p.tagValue())
			x = e{d: v, m: v, k: Text}
		}
		return e{d: "JSON_QUOTE(" + x.d + ")", m: "JSON_QUOTE(" + x.m + ")", k: Text, nullable: x.nullable}
	default:
		return p.jsonMember()
	}
}

// jsonValue is a JSON function with a JSON result; MariaDB's side gives MySQL's text of it.
func (p *parts) jsonValue() e {
	r := p.r
	var x e
	switch r.IntN(5) {
	case 0, 1:
		x = p.jsonExtract(p.jsonDoc())
	case 2:
		// JSON_SEARCH: the path of the first or of every match (one path unwrapped).
		doc := p.jsonSearchDoc()
		pat := p.pick("'red'", "'R%'", "'%e%'", "'a_b'", "'_ed'", "'recPEOPLE%'", "'none'", "'%'", "'x\\%y'")
		x = call("JSON_SEARCH", JSON, doc.e, lit(p.pick("'one'", "'all'"), Text), lit(pat, Text))
		x.nullable = true
	case 3:
		// JSON_ARRAY of list cells, what paths find in them, numbers, comparisons (true or false
		// in MySQL and MariaDB: is_bool_func), tags and NULL.
		var args []e
		for range 1 + r.IntN(3) {
			switch r.IntN(5) {
			case 0:
				args = append(args, p.jsonArg())
			case 1:
				args = append(args, p.jsonExtract(p.jsonDoc()))
			case 2:
				args = append(args, lit(fmt.Sprint(r.IntN(10)-3), Int))
			case 3:
				if c := p.columnOf(Int); c != nil {
					x := p.column(c)
					op, n := p.pick(" > ", " = ", " <= "), fmt.Sprint(r.IntN(6))
					args = append(args, e{d: "(" + x.d + op + n + ")", m: "(" + x.m + op + n + ")", k: Bool})
					continue
				}
				args = append(args, lit(fmt.Sprint(r.IntN(10)-3), Int))
			default:
				args = append(args, lit(p.pick("'red'", "'ünï'", "NULL", "'x%y'"), Text))
			}
		}
		x = call("JSON_ARRAY", JSON, args...)
		x.nullable = false
	default:
		// JSON_OBJECT: MySQL orders the keys (by length, then bytes); MariaDB's side is written
		// in that order, the driver's in a random one.
		keys := slices.Clone([]string{"a", "b", "kk", "n"})
		p.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		keys = keys[:1+r.IntN(len(keys))]
		vals := map[string]e{}
		var ds []string
		for _, k := range keys {
			v := p.jsonArg()
			if r.IntN(2) == 0 {
				// Text: a tag, or an element of a list cell (no comma or colon in it: jsonNormal).
				v = lit(p.pick("'red'", "'ünï'", "NULL", "'a_b'"), Text)
				if lists := listColumns(p.t); len(lists) > 0 && r.IntN(2) == 0 {
					l := p.column(lists[r.IntN(len(lists))])
					i := p.pick("'$[0]'", "'$[1]'")
					v = e{d: "JSON_UNQUOTE(JSON_EXTRACT(" + l.d + ", " + i + "))", m: "JSON_UNQUOTE(JSON_EXTRACT(" + l.m + ", " + i + ")) COLLATE " + TextCollation, k: Text}
				}
			}
			vals[k] = v
			ds = append(ds, "'"+k+"', "+v.d)
		}
		slices.SortFunc(keys, func(a, b string) int {
			if len(a) != len(b) {
				return len(a) - len(b)
			}
			return strings.Compare(a, b)
		})
		var ms []string
		for _, k := range keys {
			ms = append(ms, "'"+k+"', "+vals[k].m)
		}
		x = e{d: "JSON_OBJECT(" + strings.Join(ds, ", ") + ")", m: "JSON_OBJECT(" + strings.Join(ms, ", ") + ")", k: JSON}
	}
	if r.IntN(6) == 0 {
		// JSON_KEYS of a constant object (its keys in MySQL's order on MariaDB's side).
		var objs []int
		for i, c := range jsonConstants {
			if c.object {
				objs = append(objs, i)
			}
		}
		c := jsonConstants[objs[r.IntN(len(objs))]]
		path := ""
		if r.IntN(3) == 0 {
			path = ", " + p.pick("'$.kk'", "'$.a'", "'$.b'", "'$'")
		}
		x = e{d: "JSON_KEYS(" + c.d + path + ")", m: "JSON_KEYS(" + c.m + path + ")", k: JSON, nullable: true}
	}
	x.m = jsonNormal(x.m)
	return x
}

// jsonArg is a JSON value as an argument of JSON_ARRAY or JSON_OBJECT: a list cell, NULL, or a
// constant read as JSON (JSON_EXTRACT(c, '$'): a text argument alone is a JSON string).
func (p *parts) jsonArg() e {
	doc := p.jsonDoc()
	if doc.column || doc.isNull {
		return doc.e
	}
	return e{d: "JSON_EXTRACT(" + doc.d + ", '$')", m: "JSON_EXTRACT(" + doc.m + ", '$')", k: JSON}
}

// jsonCond is a condition on JSON functions.
func (p *parts) jsonCond() e {
	r := p.r
	switch r.IntN(6) {
	case 0:
		return p.jsonMember()
	case 1:
		doc := p.jsonDoc()
		x := call("JSON_CONTAINS", Bool, doc.e, p.jsonCandidate(true))
		if r.IntN(3) == 0 {
			x = e{d: "NOT " + x.d, m: "NOT " + x.m, k: Bool}
		}
		return x
	case 2:
		n := fmt.Sprint(r.IntN(4))
		x := call("JSON_LENGTH", Int, p.jsonDoc().e)
		op := p.pick(" > ", " = ", " < ", " >= ")
		return e{d: x.d + op + n, m: x.m + op + n, k: Bool}
	case 3:
		x := p.jsonText(p.jsonDoc(), false)
		switch r.IntN(3) {
		case 0:
			v := p.bind(p.tagValue())
			return e{d: x.d + " = " + v, m: x.m + " = " + v, k: Bool}
		case 1:
			return e{d: x.d + " IN ('red', 'blue', 'a_b')", m: x.m + " IN ('red', 'blue', 'a_b')", k: Bool}
		default:
			return e{d: x.d + " IS NULL", m: x.m + " IS NULL", k: Bool}
		}
	case 4:
		x := call("JSON_SEARCH", JSON, p.jsonSearchDoc().e, lit("'one'", Text), lit(p.pick("'red'", "'R%'", "'%e%'", "'rec%1'"), Text))
		return e{d: x.d + " IS NOT NULL", m: x.m + " IS NOT NULL", k: Bool}
	default:
		x := call("JSON_TYPE", Text, p.jsonExtract(p.jsonDoc()))
		t := p.pick("'ARRAY'", "'STRING'", "'INTEGER'", "'OBJECT'")
		return e{d: x.d + " = " + t, m: x.m + " = " + t, k: Bool}
	}
}

// addJSON selects, filters by, groups by or orders by JSON functions (gen_json.go).
func addJSON(g *Generator, p *parts) {
	p.q.tag(TagJSON)
	plain := !p.rebuilt && !p.qualify && p.groupBy == "" && !p.distinct && p.union == "" && p.with == "" && p.offset == ""
	switch n := p.r.IntN(10); {
	case n < 2 && plain:
		p.jsonGroup()
	case n < 3 && plain && p.count == nil:
		p.jsonOrder()
	case n < 6:
		p.addItemOrCond(p.jsonCond(), true)
	case n < 8:
		p.addItemOrCond(p.jsonScalar(), false)
	default:
		p.addItemOrCond(p.jsonValue(), false)
	}
}

// jsonKey is a grouping or ordering key: text or a number computed from a list cell.
func (p *parts) jsonKey() e {
	lists := listColumns(p.t)
	doc := jsonDoc{e: p.column(lists[p.r.IntN(len(lists))]), column: true, flat: true}
	switch p.r.IntN(5) {
	case 0, 1:
		return p.jsonText(doc, false)
	case 2:
		return call("JSON_LENGTH", Int, doc.e)
	case 3:
		return call("JSON_CONTAINS", Int, doc.e, p.jsonCandidate(false))
	default:
		return call("JSON_TYPE", Text, p.jsonExtract(doc))
	}
}

// jsonGroup makes the query GROUP BY a JSON key, ordered by it (unique per group), with
// aggregates over list cells.
func (p *parts) jsonGroup() {
	k := p.jsonKey()
	lists := listColumns(p.t)
	l := p.ref(lists[p.r.IntN(len(lists))])
	aggs := [][2]string{{"COUNT(*)", "COUNT(*)"}}
	switch p.r.IntN(5) {
	case 0:
		aggs = append(aggs, [2]string{"MAX(JSON_LENGTH(" + l + "))", "MAX(JSON_LENGTH(" + l + "))"})
	case 1:
		aggs = append(aggs, [2]string{"SUM(JSON_CONTAINS(" + l + `, '"red"'))`, "SUM(JSON_CONTAINS(" + l + `, '"red"'))`})
	case 2:
		// The array's order is the rows' (MySQL: unspecified); its length and what it holds are not.
		aggs = append(aggs, [2]string{"JSON_LENGTH(JSON_ARRAYAGG(" + l + "))", "JSON_LENGTH(JSON_ARRAYAGG(" + l + "))"})
		x := "JSON_UNQUOTE(JSON_EXTRACT(" + l + ", '$[0]'))"
		aggs = append(aggs, [2]string{"JSON_CONTAINS(JSON_ARRAYAGG(" + l + "->>'$[0]'), '\"blue\"')", "JSON_CONTAINS(JSON_ARRAYAGG(" + x + "), '\"blue\"')"})
	case 3:
		// JSON_OBJECTAGG by id: MySQL orders its keys (all of one length: by bytes), whatever the
		// rows' order; MariaDB keeps the rows' order, which JSON_NORMALIZE sorts.
		id := p.ref(p.t.Column("id"))
		x := "JSON_UNQUOTE(JSON_EXTRACT(" + l + ", '$[0]'))"
		aggs = append(aggs, [2]string{"JSON_OBJECTAGG(" + id + ", " + l + "->>'$[0]')",
			"REPLACE(REPLACE(JSON_NORMALIZE(JSON_OBJECTAGG(" + id + ", " + x + ")) COLLATE " + TextCollation + ", ',', ', '), ':', ': ')"})
	}
	p.star, p.count, p.selectAll = false, nil, false
	p.items = []e{{d: k.d, m: k.m, k: k.k}}
	for _, a := range aggs {
		p.items = append(p.items, e{d: a[0], m: a[1], k: Int})
	}
	// MariaDB: GROUP BY 1 and ORDER BY 1 (its ONLY_FULL_GROUP_BY does not see that the select
	// item is the GROUP BY expression: error 1055).
	p.groupBy, p.groupByM = k.d, "1"
	dir := p.pick("", " DESC")
	p.orderBy, p.orderM = []string{k.d + dir}, []string{"1" + dir}
	if p.r.IntN(2) == 0 {
		p.orderBy = []string{"1" + dir}
	}
	p.q.Ordered = true
}

// jsonOrder orders the rows by a JSON key first (then as they were, ending with the unique key).
func (p *parts) jsonOrder() {
	if !p.q.Ordered {
		p.order()
	}
	k := p.jsonKey()
	dir := p.pick("", " DESC")
	p.orderBy = append([]string{k.d + dir}, p.orderBy...)
	p.orderM = append([]string{k.m + dir}, p.orderM...)
}
