package sqlvalue

import (
	"encoding/json"
	"time"
)

// What the planner's JSON_TABLE (translate/jsontable.go) reads of JSON values and paths: the
// document and path readers, MySQL's JSON errors and number forms, and the walk of a row path.

// JSONPath is a parsed MySQL JSON path ($.a[1], $[*], …).
type JSONPath = jsonPath

// ParseJSONPath reads a MySQL JSON path; a malformed one is MySQL's error 3143.
func ParseJSONPath(text string) (*JSONPath, error) { return parseJSONPath(text) }

// ParseJSON reads one JSON document, as MySQL reads JSON text (numbers kept as json.Number).
func ParseJSON(text string) (any, error) { return parseJSON(text) }

// JSONErrorf is a *JSONError with MySQL's error number code.
func JSONErrorf(code int, format string, a ...any) error { return jsonErrorf(code, format, a...) }

// JSONNumberIsInt reports whether a JSON number is an integer as MySQL stores it.
func JSONNumberIsInt(n json.Number) bool { return jsonNumberIsInt(n) }

// JSONIntText is an integer JSON number as MySQL writes it.
func JSONIntText(n json.Number) string { return jsonIntText(n) }

// JSONNumberFloat is a JSON number as a DOUBLE.
func JSONNumberFloat(n json.Number) float64 { return jsonNumberFloat(n) }

// RoundDecimal rounds (or, with trunc, truncates) x to d decimals as MySQL's ROUND/TRUNCATE do.
func RoundDecimal(x float64, d int64, trunc bool) float64 { return roundDecimal(x, d, trunc) }

// ParseMySQLTime reads text as MySQL reads a date or datetime literal.
func ParseMySQLTime(s string) (time.Time, bool) {
	mt, ok := parseMySQLTime(s)
	return mt.t, ok
}

// Each calls fn with each value the path finds in doc, in document order: the row paths
// JSON_TABLE is mostly given ($, $.key, $[*]) directly, without the matches' own paths that find
// writes for JSON_SEARCH.
func (p *jsonPath) Each(doc any, fn func(v any) error) error {
	switch {
	case len(p.legs) == 0:
		return fn(doc)
	case len(p.legs) == 1 && p.legs[0].kind == legAnyIndex:
		a, _ := doc.([]any)
		for _, v := range a {
			if err := fn(v); err != nil {
				return err
			}
		}
		return nil
	case len(p.legs) == 1 && p.legs[0].kind == legKey:
		if m, ok := doc.(map[string]any); ok {
			if v, ok := m[p.legs[0].key]; ok {
				return fn(v)
			}
		}
		return nil
	}
	for _, m := range p.find(doc) {
		if err := fn(m.val); err != nil {
			return err
		}
	}
	return nil
}
