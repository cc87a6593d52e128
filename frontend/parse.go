package frontend

import (
	"fmt"
	"sort"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// ParseSQL parses one SQL statement with sqlparser: the text is read once (lex), the rewrites the
// pinned grammar needs are applied (parseAST), and the parser's own panics become errors (the
// pinned sqlparser panics on some inputs, and a driver must not crash on a query string). Read uses
// the same path for a client's statement; translate uses ParseSQL for the SQL it writes itself.
func ParseSQL(sql string) (stmt sqlparser.Statement, err error) {
	src, err := lex(sql)
	if err != nil {
		return nil, fmt.Errorf("translate: cannot parse the statement (%v)", err)
	}
	return src.parseAST()
}

// textEdit replaces the text [start, end) of the statement (an insertion when start == end).
type textEdit struct {
	start, end int
	text       string
}

// The rewrites the pinned grammar needs, each a named step that reads the statement's tokens and
// returns the edits it makes; they touch disjoint tokens, so their order does not matter:
//
//	setAssignEdits   SET @a := 1 is SET @a = 1
//	offsetEdits      OFFSET without LIMIT gets MySQL's LIMIT 18446744073709551615
//	likeEscapeEdits  '50\%' keeps its backslash, as MySQL reads it
//	callEdits        calls the grammar reads only narrowly (TRIM(LEADING x FROM s), …)
//	placeholderEdits a ? of a part parsed on its own (WITH's queries) keeps its number
//	grammarEdits     MySQL 8 grammar the pinned one lacks (parse_grammar.go)
//	jsonTableEdits   JSON_TABLE(…) AS t is a derived table of a `JSON TABLE` call (parse_jsontable.go)
//
// WITH is read by parseWith, which parses each of its parts with the same rewrites.
func (s *source) edits() []textEdit {
	var edits []textEdit
	edits = append(edits, s.setAssignEdits()...)
	edits = append(edits, s.offsetEdits()...)
	edits = append(edits, s.likeEscapeEdits()...)
	edits = append(edits, s.callEdits()...)
	edits = append(edits, s.grammarEdits()...)
	edits = append(edits, s.jsonTableEdits()...)
	if s.from > 0 {
		edits = append(edits, s.placeholderEdits()...)
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	return edits
}

// rewritten is the statement's text (from its start to its last token) with the edits applied.
func (s *source) rewritten() string { return s.applyEdits(s.edits()) }

// applyEdits is the statement's text (from its start to its last token) with edits, sorted by
// their start, applied.
func (s *source) applyEdits(edits []textEdit) string {
	end := s.toks[len(s.toks)-1].end
	if len(edits) == 0 {
		return s.text[s.from:end]
	}
	var b strings.Builder
	b.Grow(end - s.from + 32*len(edits))
	pos := s.from
	for _, e := range edits {
		if e.start < pos {
			continue // inside the span an earlier edit replaced (a JSON_TABLE's columns)
		}
		b.WriteString(s.text[pos:e.start])
		b.WriteString(e.text)
		pos = e.end
	}
	b.WriteString(s.text[pos:end])
	return b.String()
}

// parseAST parses the statement with the grammar after the rewrites (window functions first:
// windowsRewritten); a syntax error caused by a construct the grammar cannot read at all names it.
func (s *source) parseAST() (stmt sqlparser.Statement, err error) {
	defer func() {
		if r := recover(); r != nil {
			stmt, err = nil, fmt.Errorf("translate: cannot parse the statement (the SQL parser failed: %v)", r)
		}
	}()
	if len(s.toks) == 0 {
		return sqlparser.Parse("")
	}
	if s.word(0, "with") {
		return s.parseWith()
	}
	if s.hasSetOps() {
		return s.parseSetOps()
	}
	if stmt, ok, err := s.parseSetOpSubqueries(); ok {
		return stmt, err
	}
	var text string
	if s.hasWindows() {
		if text, err = s.windowsRewritten(); err != nil {
			return nil, err
		}
	} else {
		text = s.rewritten()
	}
	stmt, err = sqlparser.Parse(text)
	if err != nil {
		if jerr := s.jsonTableSyntax(); jerr != nil {
			return nil, jerr
		}
		if what, hint := s.parserLimitation(); what != "" {
			return nil, &UnsupportedError{Construct: what, Hint: "the SQL parser (MySQL 5.7's grammar) cannot read it (" + err.Error() + "); " + hint}
		}
	}
	return stmt, err
}

// likeEscapeEdits keeps the backslash of \% and \_ in string literals (keepLikeEscapes).
func (s *source) likeEscapeEdits() []textEdit {
	var edits []textEdit
	for _, t := range s.toks {
		if t.typ != sqlparser.STRING {
			continue
		}
		if lit := s.text[t.start:t.end]; strings.Contains(lit, `\%`) || strings.Contains(lit, `\_`) {
			edits = append(edits, textEdit{start: t.start, end: t.end, text: keepLikeEscapes(lit)})
		}
	}
	return edits
}

// placeholderEdits writes each ? as the number the tokenizer gave it in the whole statement
// (:v1, :v2, …), for a part of it parsed on its own.
func (s *source) placeholderEdits() []textEdit {
	var edits []textEdit
	for _, t := range s.toks {
		if t.typ == sqlparser.VALUE_ARG && s.text[t.start:t.end] == "?" {
			edits = append(edits, textEdit{start: t.start, end: t.end, text: t.val})
		}
	}
	return edits
}

// keepLikeEscapes rewrites \% and \_ inside quoted strings as \\% and \\_, which sqlparser reads as
// MySQL reads \% and \_: a backslash followed by the character. Identifiers in backquotes and
// comments are left alone; other escapes (\\, \', \n, …) are copied unchanged.
func keepLikeEscapes(sql string) string {
	if !strings.Contains(sql, `\%`) && !strings.Contains(sql, `\_`) {
		return sql
	}
	var b strings.Builder
	b.Grow(len(sql) + 8)
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			b.WriteByte(c)
			for j < len(sql) {
				d := sql[j]
				if d == '\\' && j+1 < len(sql) {
					if n := sql[j+1]; n == '%' || n == '_' {
						b.WriteString(`\\`)
						b.WriteByte(n)
					} else {
						b.WriteString(sql[j : j+2])
					}
					j += 2
					continue
				}
				b.WriteByte(d)
				j++
				if d == c {
					if j < len(sql) && sql[j] == c { // a doubled quote stays inside the string
						b.WriteByte(c)
						j++
						continue
					}
					break
				}
			}
			i = j
		case c == '`':
			j := skipTo(sql, i+1, "`")
			b.WriteString(sql[i:j])
			i = j
		case c == '#', c == '-' && strings.HasPrefix(sql[i:], "--"):
			j := skipTo(sql, i+1, "\n")
			b.WriteString(sql[i:j])
			i = j
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			j := skipTo(sql, i+2, "*/")
			b.WriteString(sql[i:j])
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// skipTo returns the index just past the first end at or after from (len(s) if there is none).
// A doubled backquote inside an identifier is two ends in a row, which the caller's next step
// reads as the start of the identifier's rest: the copy is the same either way.
func skipTo(s string, from int, end string) int {
	if k := strings.Index(s[from:], end); k >= 0 {
		return from + k + len(end)
	}
	return len(s)
}

// windowsRewritten is rewritten for a statement with window functions: their calls and WINDOW
// clauses are rewritten first, over the text as written (so a window's text, which names its
// column, is the statement's own), and the other steps then read the result as a statement of its
// own. A ? of a part parsed on its own is numbered before, as in the whole statement.
func (s *source) windowsRewritten() (string, error) {
	text := s.text[s.from:s.toks[len(s.toks)-1].end]
	if s.from > 0 {
		text = s.applyEdits(s.placeholderEdits())
	}
	windowed, err := rewriteWindows(text)
	if err != nil {
		return "", err
	}
	src, err := lex(windowed)
	if err != nil || len(src.toks) == 0 {
		return windowed, nil // the parser says what is wrong
	}
	return src.rewritten(), nil
}

// hasWindows reports whether the statement may hold a window function or a WINDOW clause, for
// which rewriteWindows reads the rewritten text once more.
func (s *source) hasWindows() bool {
	for _, t := range s.toks {
		if t.typ == sqlparser.ID && (t.val == "over" || t.val == "window") {
			return true
		}
	}
	return false
}
