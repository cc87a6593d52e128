package translate

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// TestGolden translates each testdata/golden/*.sql (an optional first line "-- args: [...]", then
// one statement) and compares the rendered plan with the .golden file next to it.
func TestGolden(t *testing.T) {
	schema := loadSchema(t)
	inputs, err := filepath.Glob("testdata/golden/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) == 0 {
		t.Fatal("no golden inputs")
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".sql")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			sql := string(data)
			args := Args{Now: testNow}
			if first, rest, ok := strings.Cut(sql, "\n"); ok && strings.HasPrefix(first, "-- args:") {
				args.Positional = goldenArgs(t, strings.TrimPrefix(first, "-- args:"))
				sql = rest
			} else if ok && strings.HasPrefix(first, "-- named:") {
				if err := json.Unmarshal([]byte(strings.TrimPrefix(first, "-- named:")), &args.Named); err != nil {
					t.Fatal(err)
				}
				sql = rest
			}
			got := "-- " + strings.ReplaceAll(strings.TrimSpace(sql), "\n", "\n-- ") + "\n" +
				translateAny(strings.TrimSpace(sql), schema, args)
			out := strings.TrimSuffix(in, ".sql") + ".golden"
			if *update {
				if err := os.WriteFile(out, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("plan differs from %s (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", out, got, want)
			}
		})
	}
}
