package main

import "strings"

// splitter collects input lines into complete statements: a statement ends at a `;` that is
// not inside a quoted string, a backticked name or a comment.
type splitter struct {
	buf   strings.Builder
	quote byte // the open quote character, or 0
	block bool // inside /* ... */
}

// add feeds one line (without its newline) and returns the statements it completed.
func (s *splitter) add(line string) []string {
	var done []string
	start := 0
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case s.block:
			if c == '*' && i+1 < len(line) && line[i+1] == '/' {
				s.block = false
				i++
			}
		case s.quote != 0:
			if c == '\\' && s.quote != '`' {
				i++ // the next character is escaped
			} else if c == s.quote {
				s.quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			s.quote = c
		case c == '/' && i+1 < len(line) && line[i+1] == '*':
			s.block = true
			i++
		case c == '-' && strings.HasPrefix(line[i:], "-- "), c == '#':
			i = len(line) // the rest of the line is a comment
		case c == ';':
			s.buf.WriteString(line[start:i])
			if stmt := strings.TrimSpace(s.buf.String()); stmt != "" {
				done = append(done, stmt)
			}
			s.buf.Reset()
			start = i + 1
		}
	}
	s.buf.WriteString(line[start:])
	s.buf.WriteByte('\n')
	return done
}

// pending reports whether part of a statement has been read.
func (s *splitter) pending() bool { return strings.TrimSpace(s.buf.String()) != "" }
