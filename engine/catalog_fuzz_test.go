package engine

import (
	"testing"
	"unicode/utf8"

	"github.com/airsql/airsql/frontend"
)

// FuzzChoiceList: a select's choices written as information_schema's enum(…) read back, through
// the DDL reader, as exactly those choices (SHOW CREATE TABLE's round trip).
func FuzzChoiceList(f *testing.F) {
	for _, s := range []string{"a", "b'c", `back\slash`, "two\nlines", "''", `\'`, "ü", "a,b", ")"} {
		f.Add(s, "second")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if a == "" || b == "" || a == b || !utf8.ValidString(a+b) {
			return
		}
		opts := map[string]any{"choices": []any{map[string]any{"name": a}, map[string]any{"name": b}}}
		d, ok, err := readDDL("CREATE TABLE t (n text, s enum(" + choiceList(opts) + "))")
		if !ok || err != nil {
			t.Fatalf("enum(%s): %v", choiceList(opts), err)
		}
		choices, _ := d.Fields[1].Options["choices"].([]any)
		if len(choices) != 2 || choices[0].(map[string]any)["name"] != a || choices[1].(map[string]any)["name"] != b {
			t.Fatalf("enum(%s) reads back as %v, want %q, %q", choiceList(opts), choices, a, b)
		}
	})
}

// readDDL reads a DDL statement through the front end; ok is false for any other statement.
func readDDL(q string) (d *frontend.DDL, ok bool, err error) {
	st, err := frontend.Read(q)
	if err != nil {
		return nil, true, err
	}
	d, ok = st.(*frontend.DDL)
	return d, ok, nil
}
