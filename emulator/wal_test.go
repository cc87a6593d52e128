package emulator

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func openData(t *testing.T, path string) *Server {
	t.Helper()
	s, err := New(WithFixture(smallFixture(t)), WithDataFile(path), WithRate(0, 0), WithTokenRate(0), WithWarnings(io.Discard))
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

// lineCount is the number of lines of the data file.
func lineCount(t *testing.T, path string) int {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(raw), "\n")
}

// TestDataFileCompactedAtStart: a restart rewrites a log of many changes to the same records into
// their outcome, and the data are the same after it, after another restart, and after more writes.
func TestDataFileCompactedAtStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.log")
	s := openData(t, path)
	write := func(s *Server, method, p string, body any) response {
		t.Helper()
		r := do(t, s, DefaultToken, method, testBase+p, body)
		mustStatus(t, r, 200)
		return r
	}
	// A person linked from tasks (links change both sides), a typecast choice, many updates of the
	// same records, deletes of old and of new records, and a runtime fixture in the middle.
	person := write(s, "POST", "/People", map[string]any{"fields": map[string]any{"Name": "Pat"}}).body["id"].(string)
	var made []string
	for i := range 6 {
		r := write(s, "POST", "/Tasks", map[string]any{"typecast": true, "fields": map[string]any{
			"Name": fmt.Sprint("task ", i), "Status": fmt.Sprint("S", i%2), "Owner": []any{person}}})
		made = append(made, r.body["id"].(string))
	}
	for i := range 20 {
		write(s, "PATCH", "/Tasks/recTASK0000000001", map[string]any{"fields": map[string]any{"Priority": i}})
		write(s, "PATCH", "/Tasks/"+made[1], map[string]any{"fields": map[string]any{"Priority": i * 2}})
	}
	write(s, "DELETE", "/Tasks/recTASK0000000002", nil) // from the fixture
	write(s, "DELETE", "/Tasks/"+made[2], nil)          // created in this run
	add, err := ParseFixture([]byte(`{"bases":[{"id":"appTEST0000000001","tables":[{"name":"Tasks","records":[{"id":"recMERGED00000001","fields":{"Name":"merged"}}]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.LoadFixture(add); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		write(s, "PATCH", "/Tasks/recMERGED00000001", map[string]any{"fields": map[string]any{"Priority": 100 + i}})
	}
	write(s, "PUT", "/Tasks/"+made[3], map[string]any{"typecast": true, "fields": map[string]any{"Name": "replaced", "Status": "S9"}})
	last := write(s, "POST", "/Tasks", map[string]any{"fields": map[string]any{"Name": "last"}}).body["id"].(string)
	write(s, "DELETE", "/Tasks/"+last, nil) // holds the highest autoNumber: it must not be handed out again
	snapshot := func(s *Server) string {
		t.Helper()
		people, _ := pagesRaw(t, s, DefaultToken, testBase+"/People?pageSize=100")
		schema := do(t, s, DefaultToken, "GET", "/v0/meta/bases/appTEST0000000001/tables", nil)
		return fmt.Sprint(people) + listAll(t, s) + schema.raw + fmt.Sprint(records(t, do(t, s, DefaultToken, "GET", testBase+"/People", nil)))
	}
	want := snapshot(s)
	before := lineCount(t, path)
	s.Close()

	s2 := openData(t, path)
	if got := snapshot(s2); got != want {
		t.Fatalf("after the compacting restart:\n%s\nwant\n%s", got, want)
	}
	if after := lineCount(t, path); after >= before/4 {
		t.Fatalf("the log has %d lines after compaction, %d before", after, before)
	}
	if _, err := os.Stat(path + ".compacting"); !os.IsNotExist(err) {
		t.Fatalf("the temporary file is left: %v", err)
	}
	s2.Close()

	// The second start replays the compacted log (the first replayed the original, then compacted).
	s3 := openData(t, path)
	if got := snapshot(s3); got != want {
		t.Fatalf("after a restart from the compacted log:\n%s\nwant\n%s", got, want)
	}
	// Writes after a compaction are appended and survive as before; autoNumbers go on after the
	// deleted record that had the highest.
	r := write(s3, "POST", "/Tasks", map[string]any{"fields": map[string]any{"Name": "after", "Status": "S9"}})
	if n := fieldsOf(r.body)["Num"]; n != 12.0 { // 3 from the fixture, 6 + merged + last = 11 before
		t.Fatalf("autoNumber after compaction %v, want 12", n)
	}
	want = snapshot(s3)
	s3.Close()
	s4 := openData(t, path)
	if got := snapshot(s4); got != want {
		t.Fatalf("after a write and another restart:\n%s\nwant\n%s", got, want)
	}
}

// TestDataFileUnfinishedCompaction: a crash during a compaction, before its rename, leaves the
// temporary file next to an intact data file; the next start ignores and removes it.
func TestDataFileUnfinishedCompaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.log")
	s := openData(t, path)
	for i := range 3 { // distinct records: nothing to compact, so no compaction replaces the file
		mustStatus(t, do(t, s, DefaultToken, "POST", testBase+"/Tasks", map[string]any{"fields": map[string]any{"Name": fmt.Sprint("v", i)}}), 200)
	}
	s.Close()
	if err := os.WriteFile(path+".compacting", []byte("0000 half a compaction"), 0o644); err != nil {
		t.Fatal(err)
	}
	s2 := openData(t, path)
	if got := listAll(t, s2); !strings.Contains(got, "Name:v2") {
		t.Fatalf("after restart: %s", got)
	}
	if _, err := os.Stat(path + ".compacting"); !os.IsNotExist(err) {
		t.Fatalf("the unfinished compaction is left: %v", err)
	}
}

// TestCompactWALKeepsOrderAndFixtures checks the log transformation itself.
func TestCompactWALKeepsOrderAndFixtures(t *testing.T) {
	put := func(id string, auto int, name string) walOp {
		return walOp{Kind: "put", Base: "appA", Table: "tblT", Record: &walRecord{ID: id, AutoNumber: auto, Cells: map[string]any{"n": name}}}
	}
	del := func(id string) walOp { return walOp{Kind: "delete", Base: "appA", Table: "tblT", ID: id} }
	fix := walOp{Kind: "fixture", Fixture: []byte(`{}`)}
	lines := [][]walOp{
		{put("recOLD", 1, "old v2")},
		{put("recB", 5, "b1")},
		{put("recA", 6, "a1")},
		{put("recB", 5, "b2"), {Kind: "choices", Base: "appA", Table: "tblT", Field: "fldS", Choices: []any{"x"}}},
		{{Kind: "choices", Base: "appA", Table: "tblT", Field: "fldS", Choices: []any{"x", "y"}}},
		{del("recOLD")},
		{put("recTOP", 7, "top"), del("recTOP")},
		{fix},
		{put("recA", 6, "a2")},
		{put("recA", 6, "a3")},
	}
	out, shorter := compactWAL(lines)
	if !shorter {
		t.Fatal("not compacted")
	}
	var got []string
	for _, line := range out {
		var parts []string
		for _, op := range line {
			switch op.Kind {
			case "put":
				parts = append(parts, "put "+op.Record.ID+" "+fmt.Sprint(op.Record.Cells["n"]))
			case "delete":
				parts = append(parts, "delete "+op.ID)
			case "choices":
				parts = append(parts, fmt.Sprint("choices ", op.Choices))
			default:
				parts = append(parts, op.Kind)
			}
		}
		got = append(got, strings.Join(parts, ", "))
	}
	want := []string{
		"choices [x y], put recB b2, put recA a1, put recTOP top, delete recOLD, delete recTOP",
		"fixture",
		"put recA a3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("compacted:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, shorter := compactWAL([][]walOp{{put("recA", 1, "a")}, {put("recB", 2, "b")}}); shorter {
		t.Fatal("a log of distinct records was rewritten for nothing")
	}
}

// TestDataFileFixtureNotLoadedWhenNotSaved: a runtime fixture that cannot be written to the data
// file is not loaded either; served, later writes to its tables would be logged and the file
// would no longer replay.
func TestDataFileFixtureNotLoadedWhenNotSaved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.log")
	s, err := New(WithDataFile(path), WithRate(0, 0), WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.wal.close() // every append fails from now on, as on a full disk
	err = s.LoadFixture(smallFixture(t))
	if err == nil || !strings.Contains(err.Error(), "not loaded") {
		t.Fatalf("LoadFixture: %v, want an error saying it was not loaded", err)
	}
	if r := do(t, s, DefaultToken, "GET", testBase+"/Tasks", nil); r.status != 401 {
		t.Fatalf("the unsaved fixture is served: status %d %s", r.status, r.raw)
	}
}
