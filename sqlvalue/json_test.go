package sqlvalue

import (
	"errors"
	"testing"
)

// FuzzJSONPath checks that any path text is either refused with error 3143 or read into a path
// whose search of a document never panics and whose wildcard flag agrees with its matches.
func FuzzJSONPath(f *testing.F) {
	for _, seed := range []string{"$", "$.a", `$."a b"`, "$[0]", "$[*]", "$.*", "$**.a", "$[last]", "$[last-1 to last]",
		"$[1 to 3]", "$ . a [ 2 ]", "$.é", "$**", "$[", `$."`, "$[last -", "$.a.b.c[0][1]"} {
		f.Add(seed)
	}
	doc, _ := parseJSON(`{"a": [1, {"b": [2, 3]}, "x"], "a b": {"c": null}, "é": [[]]}`)
	f.Fuzz(func(t *testing.T, text string) {
		p, err := parseJSONPath(text)
		if err != nil {
			var je *JSONError
			if !errors.As(err, &je) || je.Code != 3143 {
				t.Fatalf("%q: got %v, want error 3143", text, err)
			}
			return
		}
		found := p.find(doc)
		if !p.wildcard() && len(found) > 1 {
			t.Fatalf("%q: a path without wildcards matched %d values", text, len(found))
		}
		for _, m := range found {
			again, err := parseJSONPath(m.path)
			if err != nil {
				t.Fatalf("%q: the match's path %q does not read back: %v", text, m.path, err)
			}
			if back := again.find(doc); len(back) != 1 || JSONFormat(back[0].val) != JSONFormat(m.val) {
				t.Fatalf("%q: the match's path %q finds %v, want %s", text, m.path, back, JSONFormat(m.val))
			}
		}
	})
}
