package translate

import (
	"strings"

	"github.com/airsql/airsql/frontend"
	"github.com/xwb1989/sqlparser"
	"unicode/utf8"
)

// JSON functions (MySQL 8 manual, 14.17 "JSON Functions") over the cells that hold lists and
// objects — multiple selects, collaborators, attachments, links, lookups, typed JSON — and over
// JSON text. Values and paths are read by json.go; a result of type JSON is written as MySQL
// writes it ([1, 2], {"a": 1}). col->'$.p' and col->>'$.p' reach here as JSON_EXTRACT and
// JSON_UNQUOTE(JSON_EXTRACT(…)) (jsonArrow: the grammar reads them after a column, as MySQL), and
// x MEMBER OF(arr) as `MEMBER OF`(x, arr) (the front end's memberOfEdits).

func init() {
	jsonType := typeOf(typeJSON)
	register("JSON_EXTRACT", &funcDef{min: 2, max: -1, typ: withConstPaths(jsonType, 1), mayBeNull: true, eval: func(e *expr, v []any) any {
		doc, err := jsonDoc(e, v, 0, "json_extract")
		if err != nil {
			return err
		}
		var found []any
		wrap := len(v) > 2
		for i := 1; i < len(v); i++ {
			p, err := jsonPathArg(e, v, i)
			if err != nil {
				return err
			}
			wrap = wrap || p.wildcard()
			for _, m := range p.find(doc) {
				found = append(found, m.val)
			}
		}
		switch {
		case len(found) == 0:
			return nil
		case !wrap:
			return jsonFormat(found[0])
		}
		return jsonFormat(found)
	}})
	register("JSON_UNQUOTE", &funcDef{min: 1, max: 1, typ: typeOf(typeText), eval: func(e *expr, v []any) any {
		s, ok := v[0].(string)
		if !ok {
			return textArg(e, v, 0)
		}
		if e.args[0].typ == typeJSON {
			doc, err := parseJSON(s)
			if err != nil {
				return jsonErrorf(3141, "invalid JSON text in argument 1 to function json_unquote: %v", err)
			}
			if str, ok := doc.(string); ok {
				return str
			}
			return jsonFormat(doc)
		}
		if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
			doc, err := parseJSON(s)
			str, ok := doc.(string)
			if err != nil || !ok {
				return jsonErrorf(3141, "invalid JSON text in argument 1 to function json_unquote: %q is not a JSON string", s)
			}
			return str
		}
		return s // text that is not a quoted string is itself
	}})
	register("JSON_QUOTE", &funcDef{min: 1, max: 1, typ: typeOf(typeText), eval: func(e *expr, v []any) any {
		var b strings.Builder
		writeJSONString(&b, textArg(e, v, 0))
		return b.String()
	}})
	register("JSON_LENGTH", &funcDef{min: 1, max: 2, typ: withConstPaths(typeOf(typeInt), 1), mayBeNull: true, eval: func(e *expr, v []any) any {
		val, found, err := jsonAt(e, v, "json_length")
		if err != nil || !found {
			return err
		}
		switch x := val.(type) {
		case []any:
			return int64(len(x))
		case map[string]any:
			return int64(len(x))
		}
		return int64(1)
	}})
	register("JSON_TYPE", &funcDef{min: 1, max: 1, typ: typeOf(typeText), eval: func(e *expr, v []any) any {
		doc, err := jsonDoc(e, v, 0, "json_type")
		if err != nil {
			return err
		}
		return jsonTypeName(doc)
	}})
	register("JSON_VALID", &funcDef{min: 1, max: 1, typ: typeOf(typeInt), eval: func(e *expr, v []any) any {
		s, ok := v[0].(string)
		if !ok {
			return int64(0) // a number or a date is not JSON text
		}
		_, err := parseJSON(s)
		return boolInt(err == nil)
	}})
	register("JSON_KEYS", &funcDef{min: 1, max: 2, typ: withConstPaths(jsonType, 1), mayBeNull: true, eval: func(e *expr, v []any) any {
		val, found, err := jsonAt(e, v, "json_keys")
		if err != nil || !found {
			return err
		}
		m, ok := val.(map[string]any)
		if !ok {
			return nil
		}
		keys := []any{}
		for _, k := range jsonKeysSorted(m) {
			keys = append(keys, k)
		}
		return jsonFormat(keys)
	}})
	register("JSON_CONTAINS", &funcDef{min: 2, max: 3, typ: withConstPaths(typeOf(typeInt), 2), mayBeNull: true, eval: func(e *expr, v []any) any {
		cand, err := jsonDoc(e, v, 1, "json_contains")
		if err != nil {
			return err
		}
		var target any
		found := true
		if len(v) == 3 {
			target, found, err = jsonAtPath(e, v, 0, 2, "json_contains")
		} else {
			target, err = jsonDoc(e, v, 0, "json_contains")
		}
		if err != nil || !found {
			return err
		}
		return boolInt(jsonContains(target, cand))
	}})
	register("JSON_CONTAINS_PATH", &funcDef{min: 3, max: -1, typ: withConstPaths(typeOf(typeInt), 2), eval: func(e *expr, v []any) any {
		doc, err := jsonDoc(e, v, 0, "json_contains_path")
		if err != nil {
			return err
		}
		all, err := oneOrAll(e, v, 1, "json_contains_path")
		if err != nil {
			return err
		}
		for i := 2; i < len(v); i++ {
			p, err := jsonPathArg(e, v, i)
			if err != nil {
				return err
			}
			has := len(p.find(doc)) > 0
			if has && !all {
				return int64(1)
			}
			if !has && all {
				return int64(0)
			}
		}
		return boolInt(all)
	}})
	register("JSON_SEARCH", &funcDef{min: 3, max: -1, typ: withConstPaths(jsonType, 4), nullArgs: true, mayBeNull: true, eval: func(e *expr, v []any) any {
		for i, x := range v {
			if x == nil && i != 3 {
				return nil // a NULL document, mode, search string or path; a NULL escape is '\'
			}
		}
		doc, err := jsonDoc(e, v, 0, "json_search")
		if err != nil {
			return err
		}
		all, err := oneOrAll(e, v, 1, "json_search")
		if err != nil {
			return err
		}
		escape := '\\'
		if len(v) > 3 && v[3] != nil {
			switch esc := textArg(e, v, 3); utf8.RuneCountInString(esc) {
			case 0:
			case 1:
				escape, _ = utf8.DecodeRuneInString(esc)
			default:
				return jsonErrorf(1210, "incorrect arguments to ESCAPE: JSON_SEARCH's escape is one character, got %q", esc)
			}
		}
		paths := []*jsonPath{{text: "$"}}
		if len(v) > 4 {
			paths = paths[:0]
			for i := 4; i < len(v); i++ {
				p, err := jsonPathArg(e, v, i)
				if err != nil {
					return err
				}
				paths = append(paths, p)
			}
		}
		pattern := textArg(e, v, 2)
		var hits []any
		seen := map[string]bool{}
		for _, p := range paths {
			for _, start := range p.find(doc) {
				for _, m := range (&jsonPath{legs: []pathLeg{{kind: legAnyDepth}}}).findUnder(start) {
					s, ok := m.val.(string)
					if !ok || seen[m.path] || !likeMatchBinary(pattern, s, escape) {
						continue
					}
					seen[m.path] = true
					hits = append(hits, m.path)
					if !all {
						return jsonFormat(hits[0])
					}
				}
			}
		}
		switch len(hits) {
		case 0:
			return nil
		case 1:
			return jsonFormat(hits[0])
		}
		return jsonFormat(hits)
	}})
	register("JSON_ARRAY", &funcDef{min: 0, max: -1, typ: jsonType, nullArgs: true, nullable: neverNull, eval: func(e *expr, v []any) any {
		items := make([]any, len(v))
		for i := range v {
			item, err := jsonOfValue(e.args[i], v[i])
			if err != nil {
				return err
			}
			items[i] = item
		}
		return jsonFormat(items)
	}})
	register("JSON_OBJECT", &funcDef{min: 0, max: -1, typ: func(fc *funcCall) (sqlType, error) {
		if len(fc.args)%2 != 0 {
			return 0, &JSONError{Code: 1582, Msg: "incorrect parameter count in the call to native function 'JSON_OBJECT': it takes key, value pairs (" + fc.text + ")"}
		}
		return typeJSON, nil
	}, nullArgs: true, nullable: neverNull, eval: func(e *expr, v []any) any {
		obj := map[string]any{}
		for i := 0; i+1 < len(v); i += 2 {
			if v[i] == nil {
				return jsonErrorf(3158, "JSON documents may not contain NULL member names (%s)", e.sql)
			}
			val, err := jsonOfValue(e.args[i+1], v[i+1])
			if err != nil {
				return err
			}
			obj[textArg(e, v, i)] = val // a repeated key: the last one wins, as in MySQL 8
		}
		return jsonFormat(obj)
	}})
	register(frontend.MemberOf, &funcDef{min: 2, max: 2, typ: typeOf(typeInt), eval: func(e *expr, v []any) any {
		val, err := jsonOfValue(e.args[0], v[0])
		if err != nil {
			return err
		}
		arr, err := jsonDoc(e, v, 1, "member of")
		if err != nil {
			return err
		}
		items, ok := arr.([]any)
		if !ok {
			return boolInt(jsonEqual(val, arr))
		}
		for _, item := range items {
			if jsonEqual(val, item) {
				return int64(1)
			}
		}
		return int64(0)
	}})
}

func neverNull([]*expr) bool { return false }

// findUnder is find starting from a match: the paths it gives continue the match's own.
func (p *jsonPath) findUnder(start pathMatch) []pathMatch {
	found := p.find(start.val)
	for i := range found {
		found[i].path = start.path + strings.TrimPrefix(found[i].path, "$")
	}
	return found
}

// jsonAt is the value of the document (argument 0) at the path (argument 1, when given): found
// is false when the path matches nothing (the function's answer is then NULL). The path may not
// have wildcards (MySQL's error 3149).
func jsonAt(e *expr, v []any, fn string) (any, bool, error) {
	if len(v) < 2 {
		doc, err := jsonDoc(e, v, 0, fn)
		return doc, err == nil, err
	}
	return jsonAtPath(e, v, 0, 1, fn)
}

func jsonAtPath(e *expr, v []any, docArg, pathArg int, fn string) (any, bool, error) {
	doc, err := jsonDoc(e, v, docArg, fn)
	if err != nil {
		return nil, false, err
	}
	p, err := jsonPathArg(e, v, pathArg)
	if err != nil {
		return nil, false, err
	}
	if p.wildcard() {
		return nil, false, jsonErrorf(3149, "in this situation, path expressions may not contain the * and ** tokens or an array range (%s in %s)", p.text, strings.ToUpper(fn))
	}
	found := p.find(doc)
	if len(found) == 0 {
		return nil, false, nil
	}
	return found[0].val, true, nil
}

// oneOrAll reads the 'one' or 'all' argument of JSON_CONTAINS_PATH and JSON_SEARCH.
func oneOrAll(e *expr, v []any, i int, fn string) (bool, error) {
	switch strings.ToLower(textArg(e, v, i)) {
	case "one":
		return false, nil
	case "all":
		return true, nil
	}
	return false, jsonErrorf(3154, "the oneOrAll argument to %s may take these values: 'one' or 'all' (got %q)", fn, textArg(e, v, i))
}

// jsonArrow compiles col->'path' as JSON_EXTRACT(col, 'path') and col->>'path' as
// JSON_UNQUOTE(JSON_EXTRACT(col, 'path')).
func (s *scope) jsonArrow(e *sqlparser.BinaryExpr) (*expr, error) {
	doc, err := s.compile(e.Left)
	if err != nil {
		return nil, err
	}
	path, err := s.compile(e.Right)
	if err != nil {
		return nil, err
	}
	text := sqlparser.String(e)
	x, err := s.call("JSON_EXTRACT", []*expr{doc, path}, text)
	if err != nil || e.Operator == sqlparser.JSONExtractOp {
		return x, err
	}
	return s.call("JSON_UNQUOTE", []*expr{x}, text)
}

// jsonAggregates are the JSON aggregates, which the grammar's list of aggregates lacks.
var jsonAggregates = map[string]bool{"json_arrayagg": true, "json_objectagg": true}

// jsonArrayAcc is JSON_ARRAYAGG(x): the rows' values as a JSON array in the order the rows come,
// a NULL as null (MySQL keeps them); NULL for no rows.
type jsonArrayAcc struct {
	a     *Aggregate
	items []any
}

func (j *jsonArrayAcc) Add(r *Row) (int, error) {
	v, err := j.a.args[0].eval(r)
	if err != nil {
		return 0, err
	}
	item, err := jsonOfValue(j.a.args[0], v)
	if err != nil {
		return 0, err
	}
	j.items = append(j.items, item)
	return 1, nil
}

func (j *jsonArrayAcc) Result() any {
	if j.items == nil {
		return nil
	}
	return jsonFormat(j.items)
}

// jsonObjectAcc is JSON_OBJECTAGG(key, value): an object of the rows' pairs, the last value of a
// repeated key winning; a NULL key is MySQL's error 3158; NULL for no rows.
type jsonObjectAcc struct {
	a   *Aggregate
	obj map[string]any
}

func (j *jsonObjectAcc) Add(r *Row) (int, error) {
	k, err := j.a.args[0].eval(r)
	if err != nil {
		return 0, err
	}
	if k == nil {
		return 0, jsonErrorf(3158, "JSON documents may not contain NULL member names (%s)", j.a.SQL)
	}
	v, err := j.a.args[1].eval(r)
	if err != nil {
		return 0, err
	}
	val, err := jsonOfValue(j.a.args[1], v)
	if err != nil {
		return 0, err
	}
	if j.obj == nil {
		j.obj = map[string]any{}
	}
	key := valueText(j.a.args[0], k)
	_, had := j.obj[key]
	j.obj[key] = val
	if had {
		return 0, nil
	}
	return 1, nil
}

func (j *jsonObjectAcc) Result() any {
	if j.obj == nil {
		return nil
	}
	return jsonFormat(j.obj)
}

// jsonScalarCompare refuses a comparison of a JSON function's result (JSON_EXTRACT, col->'$.p', …)
// with a value that is not JSON: MySQL compares them as JSON values (the JSON string "x" equals the
// text 'x', an array equals no text), which comparing the JSON's text would not give. A list or
// object column compared with text keeps its meaning (its text; links: membership), and a JSON
// constant (a bound list, a call of constants) is refused by listArgument.
func jsonScalarCompare(op string, left, right *expr) error {
	for _, pair := range [][2]*expr{{left, right}, {right, left}} {
		j, other := pair[0], pair[1]
		if j.kind != exFunc || j.typ != typeJSON || other.typ == typeJSON || other.typ == typeNull {
			continue
		}
		return unsupported("comparing a JSON value with "+other.typ.String(), describe(j)+" "+op+" "+describe(other),
			"MySQL compares them as JSON values; compare the unquoted value: col->>'$.path' or JSON_UNQUOTE(JSON_EXTRACT(…)) "+op+" …")
	}
	return nil
}
