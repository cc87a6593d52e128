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
