package emulator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func openData(t *testing.T, path string) *Server {
	t.Helper()
	s, err := New(WithFixture(smallFixture(t)), WithDataFile(path), WithRate(0, 0))
	if err != nil {
		t.Fatalf("New with data file: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestDataFileSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.log")
	s := openData(t, path)
	created := do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"typecast": true, "records": []any{
		rec(map[string]any{"Name": "kept", "Status": "NewChoice"}), rec(map[string]any{"Name": "deleted"})}})
	mustStatus(t, created, 200)
	ids := []string{records(t, created)[0]["id"].(string), records(t, created)[1]["id"].(string)}
	mustStatus(t, do(t, s, DefaultToken, "PATCH", testBase+"/Tasks/recTASK0000000001", map[string]any{"fields": map[string]any{"Priority": 42}}), 200)
	mustStatus(t, do(t, s, DefaultToken, "DELETE", testBase+"/Tasks/"+ids[1], nil), 200)
	before := listAll(t, s)
	// No Close: as if the process were killed right after the last answer.

	s2 := openData(t, path)
	defer s2.Close()
	if after := listAll(t, s2); after != before {
		t.Fatalf("after restart:\n%s\nwant\n%s", after, before)
	}
	// The typecast choice is in the schema again, and new autoNumbers continue after the old ones.
	mustStatus(t, do(t, s2, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Status": "NewChoice"}}), 200)
	r := do(t, s2, DefaultToken, "GET", testBase+"/Tasks?sort%5B0%5D%5Bfield%5D=Num&sort%5B0%5D%5Bdirection%5D=desc&maxRecords=1", nil)
	if n := fieldsOf(records(t, r)[0])["Num"]; n != 6.0 {
		t.Fatalf("autoNumber after restart %v, want 6", n)
	}
}

func listAll(t *testing.T, s *Server) string {
	t.Helper()
	_, all := pagesRaw(t, s, DefaultToken, testBase+"/Tasks?pageSize=100")
	return all
}

func TestDataFileTornWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data.log")
	s := openData(t, path)
	for _, name := range []string{"one", "two", "three"} {
		mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Name": name}}), 200)
	}
	s.Close()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	if len(lines) != 4 || lines[3] != "" {
		t.Fatalf("want 3 lines, got %q", raw)
	}
	keep := len(lines[0]) + len(lines[1])
	for _, cut := range []int{keep + 1, keep + len(lines[2])/2, keep + len(lines[2]) - 1} {
		if err := os.WriteFile(path, raw[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		s2 := openData(t, path)
		got := listAll(t, s2)
		if !strings.Contains(got, "two") || strings.Contains(got, "three") {
			t.Fatalf("cut at %d: records %s", cut, got)
		}
		// The torn tail is gone, so a new write starts a clean line and survives.
		mustStatus(t, do(t, s2, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Name": "four"}}), 200)
		s2.Close()
		s3 := openData(t, path)
		if got := listAll(t, s3); !strings.Contains(got, "four") {
			t.Fatalf("cut at %d: write after repair lost", cut)
		}
		s3.Close()
	}
}

func TestDataFileCorruptInTheMiddle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.log")
	s := openData(t, path)
	for _, name := range []string{"one", "two"} {
		mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Name": name}}), 200)
	}
	s.Close()
	raw, _ := os.ReadFile(path)
	raw[20] ^= 0x01 // flip a bit in the first line
	os.WriteFile(path, raw, 0o644)
	_, err := New(WithFixture(smallFixture(t)), WithDataFile(path))
	if err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("err %v, want a damaged line 1", err)
	}
}

func TestDataFileKeepsRuntimeFixtures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.log")
	s, err := New(WithDataFile(path))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.LoadFixture(smallFixture(t)); err != nil {
		t.Fatal(err)
	}
	mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Name": "later"}}), 200)
	s2, err := New(WithDataFile(path))
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got := listAll(t, s2); !strings.Contains(got, "later") || !strings.Contains(got, "Write spec") {
		t.Fatalf("after restart: %s", got)
	}
}

func TestDataFileKeepsMergedFixtures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.log")
	s := openData(t, path)
	mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Name": "before"}}), 200)
	add, err := ParseFixture([]byte(`{"bases":[{"id":"appTEST0000000001","tables":[{"name":"Tasks","records":[{"fields":{"Name":"merged"}}]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.LoadFixture(add); err != nil {
		t.Fatal(err)
	}
	mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Name": "after"}}), 200)
	want := listAll(t, s)
	s2 := openData(t, path)
	if got := listAll(t, s2); got != want {
		t.Fatalf("after restart:\n%s\nwant\n%s", got, want)
	}
}
