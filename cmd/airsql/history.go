package main

import (
	"bufio"
	"os"
	"strings"
)

const historyLimit = 1000

// fileHistory is the shell's line history, kept in a file between runs.
// It implements term.History.
type fileHistory struct {
	path    string
	entries []string // oldest first
}

func loadHistory(path string) *fileHistory {
	h := &fileHistory{path: path}
	if path == "" {
		return h
	}
	f, err := os.Open(path)
	if err != nil {
		return h // no history yet
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		h.entries = append(h.entries, sc.Text())
	}
	if len(h.entries) > historyLimit {
		// Keep the file from growing without end: rewrite it with what is kept.
		h.trim()
		os.WriteFile(path, []byte(strings.Join(h.entries, "\n")+"\n"), 0o600)
	}
	return h
}

func (h *fileHistory) trim() {
	if len(h.entries) > historyLimit {
		h.entries = h.entries[len(h.entries)-historyLimit:]
	}
}

// Add is called by the terminal for every line read. The shell keeps whole statements
// instead (record), so that Up recalls a statement typed over several lines at once.
func (h *fileHistory) Add(string) {}

// record keeps one statement or command, on one line, and appends it to the file. Blank
// entries and repeats of the last one are not kept. A history that cannot be written is not
// worth interrupting the user for.
func (h *fileHistory) record(entry string) {
	entry = strings.Join(strings.Fields(entry), " ")
	if strings.TrimSpace(entry) == "" || (len(h.entries) > 0 && h.entries[len(h.entries)-1] == entry) {
		return
	}
	h.entries = append(h.entries, entry)
	h.trim()
	if h.path == "" {
		return
	}
	if f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		f.WriteString(entry + "\n")
		f.Close()
	}
}

func (h *fileHistory) Len() int { return len(h.entries) }

// At returns entry idx, 0 being the most recent.
func (h *fileHistory) At(idx int) string { return h.entries[len(h.entries)-1-idx] }
