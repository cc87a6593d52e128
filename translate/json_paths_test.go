package translate

import (
	"errors"
	"strings"
	"testing"

	"github.com/airsql/airsql/sqlvalue"
)

// TestConstantJSONPathsParsedOnce: a literal path is parsed when the call is compiled (kept in the
// call), a path from a column or an argument is read per row, and an invalid literal path is still
// MySQL's error 3143 when a row is read.
func TestConstantJSONPathsParsedOnce(t *testing.T) {
	schema := loadSchema(t)
	for _, tt := range []struct {
		expr   string
		parsed []int // argument positions parsed at compile time
	}{
		{"JSON_EXTRACT(Tags, '$[1]', '$[0]')", []int{1, 2}},
		{"Tags->'$[1]'", []int{1}},
		{"JSON_LENGTH(Tags, '$')", []int{1}},
		{"JSON_CONTAINS(Tags, '\"x\"', '$')", []int{2}},
		{"JSON_CONTAINS_PATH(Tags, 'one', '$[0]', '$[9]')", []int{2, 3}},
		{"JSON_SEARCH(Tags, 'one', 'x', NULL, '$')", []int{4}},
		{"JSON_EXTRACT(Tags, Name)", nil},
		{"JSON_EXTRACT(Tags, ?)", []int{1}}, // a bound argument is a constant of the statement
		{"JSON_EXTRACT(Tags, 'x')", nil},
	} {
		t.Run(tt.expr, func(t *testing.T) {
			args := Args{Now: testNow}
			if strings.Contains(tt.expr, "?") {
				args.Positional = []any{"$"}
			}
			q, err := NewQuery(parseSelect(t, "SELECT "+tt.expr+" FROM Tasks"), schema, args)
			if err != nil {
				t.Fatal(err)
			}
			e := q.Outputs[0].e
			for e.kind == exFunc && e.op == "JSON_UNQUOTE" {
				e = e.args[0]
			}
			got := sqlvalue.ConstPathArgs(e.val)
			if len(got) != len(tt.parsed) {
				t.Fatalf("parsed at compile time: arguments %v, want %v", got, tt.parsed)
			}
			for i := range got {
				if got[i] != tt.parsed[i] {
					t.Fatalf("parsed at compile time: arguments %v, want %v", got, tt.parsed)
				}
			}
		})
	}
	_, _, err := evalOn(t, jsonRow, "JSON_EXTRACT(Tags, 'x')")
	var je *JSONError
	if !errors.As(err, &je) || je.Code != 3143 {
		t.Errorf("an invalid literal path: got %v, want error 3143", err)
	}
}
