package main

import (
	"strings"

	"github.com/airsql/airsql/frontend"
)

// splitter collects input lines into complete statements: a statement ends at a ';' that is not
// inside a quoted string, a backquoted name or a comment, as the front end reads it
// (frontend.Split).
type splitter struct {
	buf strings.Builder // what was read after the last statement's ';'
}

// add feeds one line (without its newline) and returns the statements it completed.
func (s *splitter) add(line string) []string {
	s.buf.WriteString(line)
	s.buf.WriteByte('\n')
	if !strings.Contains(line, ";") {
		return nil // nothing can end here: a long statement is not read again at each line
	}
	stmts, rest := frontend.Split(s.buf.String())
	s.buf.Reset()
	s.buf.WriteString(rest)
	return stmts
}

// pending reports whether part of a statement has been read.
func (s *splitter) pending() bool { return strings.TrimSpace(s.buf.String()) != "" }
