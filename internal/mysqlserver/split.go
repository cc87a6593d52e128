package mysqlserver

import (
	"strconv"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// splitStatements splits a COM_QUERY text into its statements with sqlparser's tokenizer, so
// that a ';' inside a string, an identifier or a comment does not split. Empty statements are
// dropped. Text the tokenizer cannot read is kept whole: the driver then reports what is wrong.
func splitStatements(text string) []string {
	pieces, err := sqlparser.SplitStatementToPieces(text)
	if err != nil {
		return []string{text}
	}
	out := pieces[:0]
	for _, p := range pieces {
		if strings.TrimSpace(p) != "" && !onlyComments(p) {
			out = append(out, strings.TrimSpace(p))
		}
	}
	if len(out) == 0 {
		return []string{strings.TrimSpace(text)}
	}
	return out
}

// onlyComments reports whether a piece holds nothing but comments (as a client's trailing
// "-- done" after the last ';' does).
func onlyComments(s string) bool {
	tkn := sqlparser.NewStringTokenizer(s)
	for {
		typ, _ := tkn.Scan()
		switch typ {
		case sqlparser.COMMENT:
			continue
		case 0:
			return tkn.LastError == nil
		}
		return false
	}
}

// tokens returns a statement's first n tokens (fewer when it is shorter), comments skipped,
// keywords and identifiers as written.
func tokens(stmt string, n int) []token {
	tkn := sqlparser.NewStringTokenizer(stmt)
	var out []token
	for len(out) < n {
		typ, val := tkn.Scan()
		if typ == sqlparser.COMMENT {
			continue
		}
		if typ == 0 || tkn.LastError != nil {
			break
		}
		out = append(out, token{typ: typ, val: string(val)})
	}
	return out
}

type token struct {
	typ int
	val string
}

func (t token) is(word string) bool { return strings.EqualFold(t.val, word) }

// countPlaceholders counts the '?' placeholders of a statement: the parameter count that
// COM_STMT_PREPARE answers. The tokenizer numbers them :v1, :v2, … and skips those inside
// strings and comments.
func countPlaceholders(stmt string) int {
	tkn := sqlparser.NewStringTokenizer(stmt)
	n := 0
	for {
		typ, val := tkn.Scan()
		if typ == 0 || tkn.LastError != nil {
			return n
		}
		if typ == sqlparser.VALUE_ARG && string(val) == ":v"+strconv.Itoa(n+1) {
			n++
		}
	}
}

// killStatement recognises KILL [CONNECTION | QUERY] id: the server answers it, since it is
// about the server's connections, not about a base.
func killStatement(stmt string) (id uint64, queryOnly, ok bool) {
	toks := tokens(stmt, 4)
	if len(toks) < 2 || !toks[0].is("kill") {
		return 0, false, false
	}
	rest := toks[1:]
	switch {
	case rest[0].is("query"):
		queryOnly = true
		rest = rest[1:]
	case rest[0].is("connection"):
		rest = rest[1:]
	}
	if len(rest) != 1 || rest[0].typ != sqlparser.INTEGRAL {
		return 0, false, false
	}
	id, err := strconv.ParseUint(rest[0].val, 10, 32)
	if err != nil {
		return 0, false, false
	}
	return id, queryOnly, true
}

// useStatement recognises USE db (the name plain or in backquotes).
func useStatement(stmt string) (db string, ok bool) {
	toks := tokens(stmt, 3)
	if len(toks) != 2 || !toks[0].is("use") {
		return "", false
	}
	if toks[1].typ < 256 { // punctuation; names, keywords and strings are above
		return "", false
	}
	return toks[1].val, true
}

// showDatabases recognises SHOW DATABASES / SHOW SCHEMAS with nothing after it.
func showDatabases(stmt string) bool {
	toks := tokens(stmt, 3)
	return len(toks) == 2 && toks[0].is("show") && (toks[1].is("databases") || toks[1].is("schemas"))
}
