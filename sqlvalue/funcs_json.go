package sqlvalue

import (
	"strings"
	"unicode/utf8"
)

// JSON functions (MySQL 8 manual, 14.17 "JSON Functions") over the cells that hold lists and
// objects — multiple selects, collaborators, attachments, links, lookups, typed JSON — and over
// JSON text. Values and paths are read by json.go; a result of type JSON is written as MySQL
// writes it ([1, 2], {"a": 1}). col->'$.p' and col->>'$.p' reach here as JSON_EXTRACT and
// JSON_UNQUOTE(JSON_EXTRACT(…)) (jsonArrow: the grammar reads them after a column, as MySQL), and
// x MEMBER OF(arr) as `MEMBER OF`(x, arr) (the front end's memberOfEdits).

// jsonFuncs is this file's part of the function table (funcTable), by name.
var jsonFuncs = map[string]*Func{
	"JSON_EXTRACT": {Min: 2, Max: -1, Type: withConstPaths(typeOf(JSON), 1), MayBeNull: true, Eval: func(e *Call, v []any) any {
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
			return JSONFormat(found[0])
		}
		return JSONFormat(found)
	}},
	"JSON_UNQUOTE": {Min: 1, Max: 1, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		s, ok := v[0].(string)
		if !ok {
			return textArg(e, v, 0)
		}
		if e.Args[0].Type == JSON {
			doc, err := parseJSON(s)
			if err != nil {
				return jsonErrorf(3141, "invalid JSON text in argument 1 to function json_unquote: %v", err)
			}
			if str, ok := doc.(string); ok {
				return str
			}
			return JSONFormat(doc)
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
	}},
	"JSON_QUOTE": {Min: 1, Max: 1, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		var b strings.Builder
		writeJSONString(&b, textArg(e, v, 0))
		return b.String()
	}},
	"JSON_LENGTH": {Min: 1, Max: 2, Type: withConstPaths(typeOf(Int), 1), MayBeNull: true, Eval: func(e *Call, v []any) any {
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
	}},
	"JSON_TYPE": {Min: 1, Max: 1, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		doc, err := jsonDoc(e, v, 0, "json_type")
		if err != nil {
			return err
		}
		return jsonTypeName(doc)
	}},
	"JSON_VALID": {Min: 1, Max: 1, Type: typeOf(Int), Eval: func(e *Call, v []any) any {
		s, ok := v[0].(string)
		if !ok {
			return int64(0) // a number or a date is not JSON text
		}
		_, err := parseJSON(s)
		return BoolInt(err == nil)
	}},
	"JSON_KEYS": {Min: 1, Max: 2, Type: withConstPaths(typeOf(JSON), 1), MayBeNull: true, Eval: func(e *Call, v []any) any {
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
		return JSONFormat(keys)
	}},
	"JSON_CONTAINS": {Min: 2, Max: 3, Type: withConstPaths(typeOf(Int), 2), MayBeNull: true, Eval: func(e *Call, v []any) any {
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
		return BoolInt(jsonContains(target, cand))
	}},
	"JSON_CONTAINS_PATH": {Min: 3, Max: -1, Type: withConstPaths(typeOf(Int), 2), Eval: func(e *Call, v []any) any {
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
		return BoolInt(all)
	}},
	"JSON_SEARCH": {Min: 3, Max: -1, Type: withConstPaths(typeOf(JSON), 4), NullArgs: true, MayBeNull: true, Eval: func(e *Call, v []any) any {
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
					if !ok || seen[m.path] || !LikeBinary(pattern, s, escape) {
						continue
					}
					seen[m.path] = true
					hits = append(hits, m.path)
					if !all {
						return JSONFormat(hits[0])
					}
				}
			}
		}
		switch len(hits) {
		case 0:
			return nil
		case 1:
			return JSONFormat(hits[0])
		}
		return JSONFormat(hits)
	}},
	"JSON_ARRAY": {Min: 0, Max: -1, Type: typeOf(JSON), NullArgs: true, Nullable: neverNull, Eval: func(e *Call, v []any) any {
		items := make([]any, len(v))
		for i := range v {
			item, err := JSONOfValue(e.Args[i], v[i])
			if err != nil {
				return err
			}
			items[i] = item
		}
		return JSONFormat(items)
	}},
	"JSON_OBJECT": {Min: 0, Max: -1, Type: func(fc *Check) (Type, error) {
		if len(fc.Args)%2 != 0 {
			return 0, &JSONError{Code: 1582, Msg: "incorrect parameter count in the call to native function 'JSON_OBJECT': it takes key, value pairs (" + fc.SQL + ")"}
		}
		return JSON, nil
	}, NullArgs: true, Nullable: neverNull, Eval: func(e *Call, v []any) any {
		obj := map[string]any{}
		for i := 0; i+1 < len(v); i += 2 {
			if v[i] == nil {
				return jsonErrorf(3158, "JSON documents may not contain NULL member names (%s)", e.SQL)
			}
			val, err := JSONOfValue(e.Args[i+1], v[i+1])
			if err != nil {
				return err
			}
			obj[textArg(e, v, i)] = val // a repeated key: the last one wins, as in MySQL 8
		}
		return JSONFormat(obj)
	}},
	MemberOf: {Min: 2, Max: 2, Type: typeOf(Int), Eval: func(e *Call, v []any) any {
		val, err := JSONOfValue(e.Args[0], v[0])
		if err != nil {
			return err
		}
		arr, err := jsonDoc(e, v, 1, "member of")
		if err != nil {
			return err
		}
		items, ok := arr.([]any)
		if !ok {
			return BoolInt(jsonEqual(val, arr))
		}
		for _, item := range items {
			if jsonEqual(val, item) {
				return int64(1)
			}
		}
		return int64(0)
	}},
}

func neverNull([]Arg) bool { return false }

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
func jsonAt(e *Call, v []any, fn string) (any, bool, error) {
	if len(v) < 2 {
		doc, err := jsonDoc(e, v, 0, fn)
		return doc, err == nil, err
	}
	return jsonAtPath(e, v, 0, 1, fn)
}

func jsonAtPath(e *Call, v []any, docArg, pathArg int, fn string) (any, bool, error) {
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
func oneOrAll(e *Call, v []any, i int, fn string) (bool, error) {
	switch strings.ToLower(textArg(e, v, i)) {
	case "one":
		return false, nil
	case "all":
		return true, nil
	}
	return false, jsonErrorf(3154, "the oneOrAll argument to %s may take these values: 'one' or 'all' (got %q)", fn, textArg(e, v, i))
}
