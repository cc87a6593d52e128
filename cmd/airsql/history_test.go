package main

import (
	"path/filepath"
	"testing"
)

func TestHistoryKeepsStatementsAcrossRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	h := loadHistory(path)
	h.Add("a line the terminal reports") // ignored: the shell records whole statements
	h.record("SELECT Name\n  FROM Tasks;")
	h.record("SELECT Name FROM Tasks;") // the same statement again
	h.record("   ")
	h.record(".tables")
	if h.Len() != 2 || h.At(0) != ".tables" || h.At(1) != "SELECT Name FROM Tasks;" {
		t.Fatalf("entries = %q", h.entries)
	}
	again := loadHistory(path)
	if again.Len() != 2 || again.At(1) != "SELECT Name FROM Tasks;" {
		t.Fatalf("reloaded entries = %q", again.entries)
	}
}

func TestHistoryIsBounded(t *testing.T) {
	h := loadHistory("")
	for i := 0; i < historyLimit+10; i++ {
		h.record(string(rune('a'+i%26)) + string(rune('0'+i%10)) + string(rune(i)))
	}
	if h.Len() != historyLimit {
		t.Fatalf("len = %d", h.Len())
	}
}
