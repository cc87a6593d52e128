package translate

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Parse parses one SQL statement with sqlparser, turning the parser's own panics into errors: the
// pinned sqlparser panics on some inputs (an empty MySQL comment "/*!*/" slices out of range), and a
// driver must not crash on a query string.
//
// String literals keep \% and \_ as MySQL does: in MySQL '50\%' is the three characters 50\%, so
// that LIKE '50\%' matches a literal percent sign. The pinned sqlparser drops the backslash
// (reading '50\%' as 50%, a wildcard), which would silently widen a LIKE; Parse doubles those
// backslashes first so that the parser keeps them.
//
// Calls the parser's grammar reads only in a narrow form (SUBSTRING of an expression, TRIM(LEADING
// x FROM s), POSITION(a IN b), EXTRACT(unit FROM d), …) are rewritten first (rewriteCalls), and so
// are window functions and WINDOW clauses (rewriteWindows); a syntax error caused by a construct
// the parser cannot read at all names it.
func Parse(sql string) (stmt sqlparser.Statement, err error) {
	defer func() {
		if r := recover(); r != nil {
			stmt, err = nil, fmt.Errorf("translate: cannot parse the statement (the SQL parser failed: %v)", r)
		}
	}()
	if st, isWith, werr := parseWith(sql); isWith {
		return st, werr
	}
	windowed, werr := rewriteWindows(sql)
	if werr != nil {
		return nil, werr
	}
	stmt, err = sqlparser.Parse(rewriteCalls(keepLikeEscapes(rewriteOffset(rewriteSetAssign(windowed)))))
	if err != nil {
		if what := parserLimitation(sql); what != "" {
			return nil, fmt.Errorf("translate: %s: the SQL parser does not read %s; rewrite the query without it", err, what)
		}
	}
	return stmt, err
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
