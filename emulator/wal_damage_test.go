package emulator

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeThree writes three one-record creates to a new data file and returns its path and lines.
func writeThree(t *testing.T) (string, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.log")
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
	if len(lines) != 4 {
		t.Fatalf("want 3 lines, got %q", raw)
	}
	return path, lines[:3]
}

// A complete last line whose checksum fails was acknowledged: it is not dropped silently.
func TestDataFileDamagedLastLineRefusedUnlessRepair(t *testing.T) {
	path, lines := writeThree(t)
	bad := []byte(lines[2])
	bad[len(bad)-5] ^= 0x01
	data := lines[0] + lines[1] + string(bad)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	_, err := New(WithFixture(smallFixture(t)), WithDataFile(path), WithWarnings(&warn))
	if err == nil || !strings.Contains(err.Error(), "line 3 is damaged") || !strings.Contains(err.Error(), "-repair") {
		t.Fatalf("err %v, want line 3 refused with a hint at -repair", err)
	}

	s, err := New(WithFixture(smallFixture(t)), WithDataFile(path), WithWarnings(&warn), WithRepair(), WithRate(0, 0), WithTokenRate(0))
	if err != nil {
		t.Fatalf("with repair: %v", err)
	}
	got := listAll(t, s)
	s.Close()
	if !strings.Contains(got, "two") || strings.Contains(got, "three") {
		t.Fatalf("after repair: %s", got)
	}
	if w := warn.String(); !strings.Contains(w, "dropped 1 damaged line(s) (line 3;") || !strings.Contains(w, "about 1 change(s)") {
		t.Fatalf("warning %q", w)
	}
	// The file was rewritten without the damaged line: the next start is clean and silent.
	warn.Reset()
	s2, err := New(WithFixture(smallFixture(t)), WithDataFile(path), WithWarnings(&warn))
	if err != nil || warn.Len() != 0 {
		t.Fatalf("start after repair: %v, warnings %q", err, warn.String())
	}
	s2.Close()
}

// A damaged line in the middle is skipped by -repair, and the good lines after it are kept.
func TestDataFileRepairKeepsLinesAfterTheDamage(t *testing.T) {
	path, lines := writeThree(t)
	bad := []byte(lines[1])
	bad[len(bad)-5] = 'X'
	if err := os.WriteFile(path, []byte(lines[0]+string(bad)+lines[2]), 0o644); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	s, err := New(WithFixture(smallFixture(t)), WithDataFile(path), WithWarnings(&warn), WithRepair(), WithRate(0, 0), WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := listAll(t, s)
	if !strings.Contains(got, "one") || strings.Contains(got, `"two"`) || !strings.Contains(got, "three") {
		t.Fatalf("after repair: %s", got)
	}
	if !strings.Contains(warn.String(), "line 2") {
		t.Fatalf("warning %q", warn.String())
	}
}

// A file cut part-way starts with what precedes the cut, and says on stderr what it dropped.
func TestDataFileCutPartWayIsReported(t *testing.T) {
	path, lines := writeThree(t)
	data := lines[0] + lines[1][:len(lines[1])/2]
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	s, err := New(WithFixture(smallFixture(t)), WithDataFile(path), WithWarnings(&warn), WithRate(0, 0), WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := listAll(t, s); !strings.Contains(got, "one") || strings.Contains(got, "two") {
		t.Fatalf("records %s", got)
	}
	w := warn.String()
	if !strings.Contains(w, "line 2") || !strings.Contains(w, "incomplete") || !strings.Contains(w, "about 1 change(s)") {
		t.Fatalf("warning %q, want the cut line reported with its changes", w)
	}
}
