package translate

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONTextOfLists: a list of plain strings (a link's ids) is written without json.Marshal,
// and reads exactly as json.Marshal writes it; any other list goes through json.Marshal.
func TestJSONTextOfLists(t *testing.T) {
	for _, tc := range []struct {
		cell any
		want string
	}{
		{[]any{"recA1", "recB2"}, `["recA1","recB2"]`},
		{[]any{}, `[]`},
		{[]any(nil), `null`},
		{[]any{"a<b"}, `["a\u003cb"]`},
		{[]any{"é"}, `["é"]`},
		{[]any{"rec1", 2.5}, `["rec1",2.5]`},
		{[]any{""}, `[""]`},
	} {
		if got := jsonText(tc.cell); got != tc.want {
			t.Errorf("jsonText(%#v): got %s, want %s", tc.cell, got, tc.want)
		}
	}
}

// FuzzPlainStringsJSON: whenever the fast path writes a list of strings, json.Marshal writes
// the same text.
func FuzzPlainStringsJSON(f *testing.F) {
	for _, seed := range []string{"recA1,recB2", "", "a<b", "x\"y", "é,rec", "rec\u2028", ",,"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, joined string) {
		var list []any
		for _, s := range strings.Split(joined, ",") {
			list = append(list, s)
		}
		got, ok := plainStringsJSON(list)
		if !ok {
			return
		}
		want, err := json.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Fatalf("plainStringsJSON(%q): got %s, want %s", list, got, want)
		}
	})
}
