package frontend

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/sysvar"
)

// source is a statement's text read once with sqlparser's tokenizer.
type source struct {
	// text is the statement as the client sent it, except that every comment is blanked out
	// (replaced by spaces, so that every byte keeps its position) and the markers of a version
	// comment that applies (/*!NNNNN and its */) are blanked too, leaving its text in place.
	text string
	orig string // the text as the client sent it
	// toks are its tokens, comments left out; a final ';' is dropped.
	toks []token
	// from is where the statement starts in text: 0, or the inner statement's first token for
	// EXPLAIN's.
	from int
}

// token is one token of the statement and its byte span in the text.
type token struct {
	typ        int
	val        string // lower case for keywords and identifiers (as compared), the tokenizer's value otherwise
	raw        string // the tokenizer's value: an identifier as written, a string's content unescaped
	start, end int
}

// word reports whether the token is the unquoted keyword or identifier w (lower case).
func (s *source) word(i int, w string) bool {
	if i < 0 || i >= len(s.toks) {
		return false
	}
	t := s.toks[i]
	return t.val == w && t.typ != sqlparser.STRING && s.text[t.start] != '`'
}

// span is the text of tokens [from, to), as written (comments blanked).
func (s *source) span(from, to int) string {
	if from >= to || from >= len(s.toks) {
		return ""
	}
	return s.text[s.toks[from].start:s.toks[to-1].end]
}

// rest is the text from token i to the end of the statement.
func (s *source) rest(i int) string { return s.span(i, len(s.toks)) }

// isBlank is the tokenizer's own blank (its skipBlank).
func isBlank(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// lex reads the statement: its tokens with their spans, each comment blanked once. A version
// comment /*!NNNNN text */ is read as MySQL reads it: when NNNNN is at most the server's
// version (or absent) its text is part of the statement (mysqldump writes /*!40101 SET … */ and
// /*!50003 CREATE … */), otherwise it is a comment. The tokenizer reads such a comment's text on
// its own, without positions, so lex blanks its markers and reads the text as part of the rest.
func lex(text string) (*source, error) {
	src, err := lexAll(text)
	if err != nil {
		return nil, err
	}
	if n := len(src.toks); n > 0 && src.toks[n-1].typ == ';' {
		src.toks = src.toks[:n-1]
	}
	return src, nil
}

// lexAll is lex keeping a final ';'.
func lexAll(text string) (src *source, err error) {
	defer func() {
		if r := recover(); r != nil { // the pinned tokenizer panics on some inputs
			src, err = nil, fmt.Errorf("cannot read the statement (the SQL tokenizer failed: %v)", r)
		}
	}()
	bt := &blankedText{text: text}
	var toks []token
	base, prevEnd := 0, 0
	tkn := sqlparser.NewStringTokenizer(text)
	for {
		start := prevEnd
		if start > base && start < len(text) && bt.at(start) == 0 {
			start++ // the tokenizer takes a NUL where a token starts for "nothing read yet"
		}
		for start < len(text) && isBlank(bt.at(start)) {
			start++
		}
		if start+2 < len(text) && bt.at(start) == '/' && bt.at(start+1) == '*' && bt.at(start+2) == '!' {
			if err := bt.versionComment(start); err != nil {
				return nil, err
			}
			// Read on from the comment's start in the blanked text.
			base, prevEnd = start, start
			tkn = sqlparser.NewStringTokenizer(bt.current()[start:])
			continue
		}
		typ, val := tkn.Scan()
		if typ == 0 {
			break
		}
		end := min(base+tkn.Position-1, len(text))
		if end < start {
			return nil, fmt.Errorf("cannot read the statement near byte %d", start+1)
		}
		prevEnd = end
		if typ == sqlparser.COMMENT {
			bt.blank(start, end)
			continue
		}
		raw, lower := tokenValue(typ, val, text[start:end])
		toks = append(toks, token{typ: typ, val: lower, raw: raw, start: start, end: end})
		if typ == sqlparser.LEX_ERROR && end >= len(text) {
			break // an unterminated string or comment: the parser says what is wrong
		}
	}
	numberPlaceholders(toks, text)
	return &source{text: bt.current(), orig: text, toks: toks}, nil
}

// blankedText is a statement's text with its comments blanked (line breaks kept, so that
// positions do not move), copied at the first comment.
type blankedText struct {
	text    string
	blanked []byte
}

func (b *blankedText) blank(from, to int) {
	if b.blanked == nil {
		b.blanked = []byte(b.text)
	}
	for k := from; k < to; k++ {
		if b.blanked[k] != '\n' {
			b.blanked[k] = ' '
		}
	}
}

func (b *blankedText) at(i int) byte {
	if b.blanked == nil {
		return b.text[i]
	}
	return b.blanked[i]
}

func (b *blankedText) current() string {
	if b.blanked == nil {
		return b.text
	}
	return string(b.blanked)
}

// versionComment reads the version comment /*!NNNNN … */ at start as MySQL does: its text is
// part of the statement when the server's version is at least NNNNN (or none is written), else
// it is a comment. Its markers (or all of it) are blanked.
func (b *blankedText) versionComment(start int) error {
	text := b.text
	end := strings.Index(text[start+3:], "*/")
	if end < 0 {
		return fmt.Errorf("the version comment at byte %d is not closed with */", start+1)
	}
	end += start + 3
	digits := start + 3
	for digits < end && digits-start-3 < 6 && text[digits] >= '0' && text[digits] <= '9' {
		digits++
	}
	version := 0
	if n := digits - start - 3; n == 5 || n == 6 {
		fmt.Sscan(text[start+3:digits], &version)
	} else {
		digits = start + 3 // no version: always read, as MySQL does
	}
	if version > sysvar.VersionID {
		b.blank(start, end+2) // for a later server: a comment
	} else {
		b.blank(start, digits)
		b.blank(end, end+2)
	}
	return nil
}

// tokenValue is a token's text as written (raw) and as compared (lower case but for a string),
// without a copy where it is the text itself (names, numbers, punctuation) or a keyword (the
// tokenizer's value, lower case): a long INSERT is mostly such tokens.
func tokenValue(typ int, val []byte, text string) (raw, lower string) {
	raw = text
	if kw := sqlparser.KeywordString(typ); kw != "" && strings.EqualFold(kw, raw) {
		raw = kw
	} else if string(val) != raw {
		raw = string(val)
	}
	lower = raw
	if typ != sqlparser.STRING {
		lower = strings.ToLower(raw)
	}
	return raw, lower
}

// numberPlaceholders numbers each ? (:v1, :v2, …) as the grammar does. The tokenizer does too,
// but one started again after a version comment counts from 1, so they are numbered here, in the
// whole statement.
func numberPlaceholders(toks []token, text string) {
	n := 0
	for i, t := range toks {
		if t.typ == sqlparser.VALUE_ARG && text[t.start:t.end] == "?" {
			n++
			toks[i].val = ":v" + strconv.Itoa(n)
			toks[i].raw = toks[i].val
		}
	}
}

// Split splits a text into its statements at each ';' that is not inside a string, a name or a
// comment, as a client's multi-statement text or a script is split: the complete statements,
// trimmed (their comments kept), leaving out those of nothing but blanks and comments, and the
// text after the last ';' — a statement not ended yet, or nothing. A text the tokenizer cannot
// read (an unclosed version comment) is all rest.
func Split(text string) (stmts []string, rest string) {
	src, err := lexAll(text)
	if err != nil {
		return nil, text
	}
	start, tokens := 0, 0
	for _, t := range src.toks {
		if t.typ != ';' {
			tokens++
			continue
		}
		if piece := strings.TrimSpace(text[start:t.start]); tokens > 0 && piece != "" {
			stmts = append(stmts, piece)
		}
		start, tokens = t.end, 0
	}
	return stmts, text[start:]
}

// Statements splits a multi-statement text (a COM_QUERY with multi-statements on) into its
// statements: Split's, and the text after the last ';' when it holds more than blanks and
// comments. A text the tokenizer cannot read, or one of no statement, is one statement, for the
// driver to say what is wrong with it.
func Statements(text string) []string {
	stmts, rest := Split(text)
	if src, err := lexAll(rest); err != nil || len(src.toks) > 0 {
		if r := strings.TrimSpace(rest); r != "" {
			stmts = append(stmts, r)
		}
	}
	if len(stmts) == 0 {
		return []string{strings.TrimSpace(text)}
	}
	return stmts
}

// Placeholders counts the ? placeholders of a statement, those outside strings and comments: the
// parameter count COM_STMT_PREPARE answers.
func Placeholders(stmt string) int {
	src, err := lexAll(stmt)
	if err != nil {
		return 0
	}
	n := 0
	for _, t := range src.toks {
		if t.typ == sqlparser.VALUE_ARG && src.text[t.start:t.end] == "?" {
			n++
		}
	}
	return n
}
