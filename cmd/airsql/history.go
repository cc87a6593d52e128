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
	h.trim()
	return h
}

func (h *fileHistory) trim() {
	if len(h.entries) > historyLimit {
		h.entries = h.entries[len(h.entries)-historyLimit:]
	}
}

// Add records a line and appends it to the file. Blank lines and repeats of the last line are
// not kept. A history that cannot be written is not worth interrupting the user for.
func (h *fileHistory) Add(entry string) {
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
