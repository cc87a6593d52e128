package sqlvalue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MySQL's JSON values (MySQL 8 manual, 13.5 "The JSON Data Type" and 14.17 "JSON Functions"): a
// JSON document is read into Go values — nil (JSON null), bool, json.Number, string, []any and
// map[string]any — and written back as MySQL writes it: ", " between items, ": " after a key, the
// keys of an object sorted by length and then bytewise (the order MySQL stores them in), so a
// document compares and prints the same however it was written.

// JSONError is an error MySQL raises for a JSON argument, with MySQL's own error number: 3141
// (invalid JSON text), 3143 (invalid path), 3146 (not a JSON value), 3149 (a wildcard where none
// is allowed), 3154 (not 'one' or 'all'), 3158 (a NULL member name), 1582 (wrong argument count).
type JSONError struct {
	Code int
	Msg  string
}

func (e *JSONError) Error() string { return "translate: " + e.Msg }

func jsonErrorf(code int, format string, a ...any) error {
	return &JSONError{Code: code, Msg: fmt.Sprintf(format, a...)}
}

// parseJSON reads one JSON document; anything after it but blanks is an error, as in MySQL.
func parseJSON(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("the document is followed by more text")
	}
	if !utf8.ValidString(text) {
		return nil, fmt.Errorf("the text is not valid UTF-8")
	}
	return v, nil
}

// jsonDoc reads argument i of a JSON function as a document: a JSON value (a JSON column or the
// result of a JSON function) or text holding one. A number or a date is not a JSON document
// (MySQL's error 3146); text that is not JSON is error 3141.
func jsonDoc(e *Call, v []any, i int, fn string) (any, error) {
	switch x := v[i].(type) {
	case string:
		doc, err := parseJSON(x)
		if err != nil {
			return nil, jsonErrorf(3141, "invalid JSON text in argument %d to function %s: %v", i+1, strings.ToLower(fn), err)
		}
		return doc, nil
	}
	return nil, jsonErrorf(3146, "invalid data type for JSON data in argument %d to function %s; a JSON string or JSON type is required", i+1, strings.ToLower(fn))
}

// JSONOfValue is a SQL value as a JSON value, as JSON_ARRAY, JSON_OBJECT and MEMBER OF take it:
// NULL is null, a number is a number, a boolean true or false, a JSON value itself, and anything
// else its text as a JSON string.
func JSONOfValue(a Arg, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch x := v.(type) {
	case bool:
		return x, nil
	case int64:
		return json.Number(strconv.FormatInt(x, 10)), nil
	case float64:
		return json.Number(formatJSONFloat(x)), nil
	case string:
		if a.Type == JSON {
			doc, err := parseJSON(x)
			if err != nil {
				return nil, jsonErrorf(3141, "invalid JSON text: %v", err)
			}
			return doc, nil
		}
		return x, nil
	}
	return a.Text(v), nil
}

// formatJSONFloat writes a double as MySQL 8 writes one in a JSON document (Json_wrapper's
// J_DOUBLE in sql-common/json_dom.cc): my_gcvt's text, as a DOUBLE is written anywhere else
// (AppendFloatText: positional from 1e-15 up to 15 integer digits, 1e-7 is 0.0000001, 1e15 and
// 1e-16 with an exponent), with ".0" added when that text has neither a point nor an exponent,
// so that it still reads as a double (1e2 is 100.0). my_gcvt keeps the sign of -0: -0.0.
func formatJSONFloat(f float64) string {
	var buf [32]byte
	b := AppendFloatText(buf[:0], f)
	if f == 0 && math.Signbit(f) {
		b = append(buf[:0], "-0"...)
	}
	if bytes.IndexAny(b, ".e") < 0 {
		b = append(b, ".0"...)
	}
	return string(b)
}

// jsonNumberIsInt says whether a number read from JSON text is an integer (MySQL's INTEGER,
// as opposed to DOUBLE): written without a fraction or an exponent, and in range.
func jsonNumberIsInt(n json.Number) bool {
	if strings.ContainsAny(string(n), ".eE") {
		return false
	}
	if _, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return true
	}
	_, err := strconv.ParseUint(string(n), 10, 64)
	return err == nil
}

// jsonIntText is an integer's canonical digits (-0 is 0).
func jsonIntText(n json.Number) string {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return strconv.FormatInt(i, 10)
	}
	u, _ := strconv.ParseUint(string(n), 10, 64)
	return strconv.FormatUint(u, 10)
}

// jsonNumberFloat is a JSON number's value as a double.
func jsonNumberFloat(n json.Number) float64 {
	f, _ := strconv.ParseFloat(string(n), 64)
	return f
}

// jsonKeysSorted is an object's keys in MySQL's order: shorter first, then bytewise.
func jsonKeysSorted(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) < len(keys[j])
		}
		return keys[i] < keys[j]
	})
	return keys
}

// JSONFormat writes a JSON value as MySQL prints it.
func JSONFormat(v any) string {
	var b strings.Builder
	writeJSON(&b, v)
	return b.String()
}

func writeJSON(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		if jsonNumberIsInt(x) {
			b.WriteString(jsonIntText(x))
		} else {
			b.WriteString(formatJSONFloat(jsonNumberFloat(x)))
		}
	case string:
		writeJSONString(b, x)
	case []any:
		b.WriteByte('[')
		for i, item := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSON(b, item)
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range jsonKeysSorted(x) {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSONString(b, k)
			b.WriteString(": ")
			writeJSON(b, x[k])
		}
		b.WriteByte('}')
	}
}

// writeJSONString quotes a string as MySQL does: " and \ escaped, control characters as \n, \t,
// … or \u00XX, everything else (non-ASCII included) as it is.
func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// jsonTypeName is JSON_TYPE's name of a value.
func jsonTypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case bool:
		return "BOOLEAN"
	case json.Number:
		if jsonNumberIsInt(x) {
			if strings.HasPrefix(string(x), "-") {
				return "INTEGER"
			}
			if _, err := strconv.ParseInt(string(x), 10, 64); err != nil {
				return "UNSIGNED INTEGER"
			}
			return "INTEGER"
		}
		return "DOUBLE"
	case string:
		return "STRING"
	case []any:
		return "ARRAY"
	case map[string]any:
		return "OBJECT"
	}
	return "NULL"
}

// jsonEqual compares two JSON values as MySQL does: numbers by value (1 = 1.0), strings by
// bytes, arrays item by item, objects key by key.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if jsonNumberIsInt(x) && jsonNumberIsInt(y) {
			return jsonIntText(x) == jsonIntText(y)
		}
		return jsonNumberFloat(x) == jsonNumberFloat(y)
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// jsonContains is JSON_CONTAINS's rule (MySQL 8 manual): a scalar contains an equal scalar; an
// array contains an array when it contains each of its items, and a non-array when one of its
// items contains it; an object contains an object when each key of the candidate is in it and
// its value there contains the candidate's.
func jsonContains(target, cand any) bool {
	switch t := target.(type) {
	case []any:
		if c, ok := cand.([]any); ok {
			for _, ci := range c {
				if !jsonContains(t, ci) {
					return false
				}
			}
			return true
		}
		for _, ti := range t {
			if jsonContains(ti, cand) {
				return true
			}
		}
		return false
	case map[string]any:
		c, ok := cand.(map[string]any)
		if !ok {
			return false
		}
		for k, cv := range c {
			tv, ok := t[k]
			if !ok || !jsonContains(tv, cv) {
				return false
			}
		}
		return true
	}
	switch cand.(type) {
	case []any, map[string]any:
		return false
	}
	return jsonEqual(target, cand)
}

// A JSON path (MySQL 8 manual, 13.5 "Searching and Modifying JSON Values"): $ followed by legs —
// .key, ."quoted key", .*, [n], [last], [last-n], [m to n], [*] and ** (any depth, never last).
type jsonPath struct {
	text string
	legs []pathLeg
}

type legKind uint8

const (
	legKey      legKind = iota // .key
	legAnyKey                  // .*
	legIndex                   // [n], [last-n], [m to n]
	legAnyIndex                // [*]
	legAnyDepth                // **
)

// pathIndex is one end of an array index: n, or last-n when fromLast.
type pathIndex struct {
	n        int
	fromLast bool
}

func (p pathIndex) resolve(length int) int {
	if p.fromLast {
		return length - 1 - p.n
	}
	return p.n
}

type pathLeg struct {
	kind     legKind
	key      string
	from, to pathIndex // legIndex; to equals from for a single index
}

// wildcard says whether the path may match more than one value.
func (p *jsonPath) wildcard() bool {
	for _, l := range p.legs {
		if l.kind == legAnyKey || l.kind == legAnyIndex || l.kind == legAnyDepth || l.kind == legIndex && l.from != l.to {
			return true
		}
	}
	return false
}

// parseJSONPath reads a path; an error is MySQL's 3143.
func parseJSONPath(text string) (*jsonPath, error) {
	p := &jsonPath{text: text}
	bad := func(at int) error {
		return jsonErrorf(3143, "invalid JSON path expression %q: the error is around character position %d (a path is $ followed by .key, .\"key\", .*, [n], [last], [m to n], [*] or **)", text, at)
	}
	i := skipJSONBlanks(text, 0)
	if i >= len(text) || text[i] != '$' {
		return nil, bad(i)
	}
	i++
	for {
		i = skipJSONBlanks(text, i)
		if i >= len(text) {
			break
		}
		switch {
		case text[i] == '.':
			i = skipJSONBlanks(text, i+1)
			if i >= len(text) {
				return nil, bad(i)
			}
			switch {
			case text[i] == '*':
				p.legs = append(p.legs, pathLeg{kind: legAnyKey})
				i++
			case text[i] == '"':
				end := i + 1
				for end < len(text) && text[end] != '"' {
					if text[end] == '\\' {
						end++
					}
					end++
				}
				if end >= len(text) {
					return nil, bad(i)
				}
				var key string
				if err := json.Unmarshal([]byte(text[i:end+1]), &key); err != nil {
					return nil, bad(i)
				}
				p.legs = append(p.legs, pathLeg{kind: legKey, key: key})
				i = end + 1
			default:
				start := i
				for i < len(text) {
					r, size := utf8.DecodeRuneInString(text[i:])
					if !(r == '_' || r == '$' || unicode.IsLetter(r) || i > start && unicode.IsDigit(r)) {
						break
					}
					i += size
				}
				if i == start {
					return nil, bad(start)
				}
				p.legs = append(p.legs, pathLeg{kind: legKey, key: text[start:i]})
			}
		case text[i] == '[':
			i = skipJSONBlanks(text, i+1)
			if i < len(text) && text[i] == '*' {
				i = skipJSONBlanks(text, i+1)
				if i >= len(text) || text[i] != ']' {
					return nil, bad(i)
				}
				p.legs = append(p.legs, pathLeg{kind: legAnyIndex})
				i++
				continue
			}
			from, next, ok := parsePathIndex(text, i)
			if !ok {
				return nil, bad(i)
			}
			to := from
			i = skipJSONBlanks(text, next)
			if strings.HasPrefix(text[i:], "to") && i+2 < len(text) && isJSONBlank(text[i+2]) {
				to, next, ok = parsePathIndex(text, skipJSONBlanks(text, i+2))
				if !ok {
					return nil, bad(i)
				}
				i = skipJSONBlanks(text, next)
				if !from.fromLast && !to.fromLast && from.n > to.n {
					return nil, bad(i)
				}
			}
			if i >= len(text) || text[i] != ']' {
				return nil, bad(i)
			}
			p.legs = append(p.legs, pathLeg{kind: legIndex, from: from, to: to})
			i++
		case strings.HasPrefix(text[i:], "**"):
			p.legs = append(p.legs, pathLeg{kind: legAnyDepth})
			i += 2
		default:
			return nil, bad(i)
		}
	}
	if n := len(p.legs); n > 0 && p.legs[n-1].kind == legAnyDepth {
		return nil, bad(len(text))
	}
	return p, nil
}

// parsePathIndex reads n, last or last - n at i.
func parsePathIndex(text string, i int) (pathIndex, int, bool) {
	var idx pathIndex
	if strings.HasPrefix(text[i:], "last") {
		idx.fromLast = true
		i = skipJSONBlanks(text, i+4)
		if i >= len(text) || text[i] != '-' {
			return idx, i, true
		}
		i = skipJSONBlanks(text, i+1)
	}
	start := i
	for i < len(text) && text[i] >= '0' && text[i] <= '9' {
		i++
	}
	if i == start {
		return idx, i, false
	}
	n, err := strconv.Atoi(text[start:i])
	if err != nil || n > math.MaxInt32 {
		return idx, i, false
	}
	idx.n = n
	return idx, i, true
}

func isJSONBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipJSONBlanks(text string, i int) int {
	for i < len(text) && isJSONBlank(text[i]) {
		i++
	}
	return i
}

// pathMatch is one value a path found, with the path that leads to it (for JSON_SEARCH).
type pathMatch struct {
	val  any
	path string
}

// find gives the values the path matches in doc, in document order, without duplicates (** can
// reach a value twice). A scalar read with [0] or [last] is itself, as MySQL wraps it in an array.
func (p *jsonPath) find(doc any) []pathMatch {
	var out []pathMatch
	seen := map[string]bool{}
	var walk func(v any, at string, legs []pathLeg)
	walk = func(v any, at string, legs []pathLeg) {
		if len(legs) == 0 {
			if !seen[at] {
				seen[at] = true
				out = append(out, pathMatch{val: v, path: at})
			}
			return
		}
		leg, rest := legs[0], legs[1:]
		switch leg.kind {
		case legKey:
			if m, ok := v.(map[string]any); ok {
				if x, ok := m[leg.key]; ok {
					walk(x, at+"."+jsonPathKey(leg.key), rest)
				}
			}
		case legAnyKey:
			if m, ok := v.(map[string]any); ok {
				for _, k := range jsonKeysSorted(m) {
					walk(m[k], at+"."+jsonPathKey(k), rest)
				}
			}
		case legAnyIndex:
			if a, ok := v.([]any); ok {
				for i, x := range a {
					walk(x, at+"["+strconv.Itoa(i)+"]", rest)
				}
			}
		case legIndex:
			a, isArray := v.([]any)
			if !isArray {
				a = []any{v} // auto-wrapping: a scalar or an object is an array of itself
			}
			from, to := leg.from.resolve(len(a)), leg.to.resolve(len(a))
			if from < 0 {
				from = 0
			}
			if to >= len(a) {
				to = len(a) - 1
			}
			for i := from; i <= to; i++ {
				if isArray {
					walk(a[i], at+"["+strconv.Itoa(i)+"]", rest)
				} else {
					walk(a[i], at, rest)
				}
			}
		case legAnyDepth:
			var descend func(x any, xat string)
			descend = func(x any, xat string) {
				walk(x, xat, rest)
				switch c := x.(type) {
				case []any:
					for i, y := range c {
						descend(y, xat+"["+strconv.Itoa(i)+"]")
					}
				case map[string]any:
					for _, k := range jsonKeysSorted(c) {
						descend(c[k], xat+"."+jsonPathKey(k))
					}
				}
			}
			descend(v, at)
		}
	}
	walk(doc, "$", p.legs)
	return out
}

// jsonPathKey is a key as a path leg writes it: bare when it reads as an identifier, quoted
// otherwise.
func jsonPathKey(k string) string {
	ok := k != ""
	for i, r := range k {
		if !(r == '_' || r == '$' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			ok = false
			break
		}
	}
	if ok {
		return k
	}
	var b strings.Builder
	writeJSONString(&b, k)
	return b.String()
}
