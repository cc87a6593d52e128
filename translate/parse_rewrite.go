package translate

import (
	"strings"

	"github.com/xwb1989/sqlparser"
)

// The pinned sqlparser's grammar reads some MySQL function calls only in a narrow form:
// SUBSTRING/SUBSTR take only a column as their first argument (SUBSTR(LTRIM(Code), 4, 2) is a syntax
// error), and TRIM(LEADING 'x' FROM s), SUBSTRING(s FROM 2 FOR 3), POSITION(a IN b),
// EXTRACT(unit FROM d), CAST(x AS DOUBLE), SCHEMA() and CURRENT_TIMESTAMP(fsp) are not read at all. rewriteCalls reads the
// statement with the parser's own tokenizer and rewrites each such call into an ordinary call of a
// backquoted name that the grammar reads (`SUBSTRING`(LTRIM(Code), 4, 2), `TRIM LEADING`('x', s)),
// which funcTable knows. Only whole tokens are replaced, so strings, identifiers and comments are
// never touched; a statement without such a call is returned as it is.

// token is one token of the statement and its byte span.
type token struct {
	typ        int
	val        string // lower case for keywords and identifiers
	start, end int
}

// tokenize reads the statement's tokens; false when the tokenizer fails or the statement holds a
// MySQL-specific comment (/*! … */), whose tokens have no position in the text.
func tokenize(sql string) ([]token, bool) {
	if strings.Contains(sql, "/*!") {
		return nil, false
	}
	tkn := sqlparser.NewStringTokenizer(sql)
	var toks []token
	prevEnd := 0
	for {
		typ, val := tkn.Scan()
		if typ == 0 {
			return toks, true
		}
		if typ == sqlparser.LEX_ERROR {
			return nil, false
		}
		start := prevEnd
		for start < len(sql) && (sql[start] == ' ' || sql[start] == '\n' || sql[start] == '\r' || sql[start] == '\t') {
			start++
		}
		end := min(tkn.Position-1, len(sql))
		if end < start {
			return nil, false
		}
		toks = append(toks, token{typ: typ, val: strings.ToLower(string(val)), start: start, end: end})
		prevEnd = end
	}
}

// startsWithWord reports whether the statement's first token is the keyword word (lower case),
// reading that token only: the statement-kind checks that run before the parser must not tokenise
// the whole text of every statement (a 10 MB literal would be copied once per check).
func startsWithWord(sql, word string) (yes bool) {
	defer func() {
		if recover() != nil { // the tokenizer panics on some MySQL-specific comments ("/*!*/")
			yes = false
		}
	}()
	tkn := sqlparser.NewStringTokenizer(sql)
	typ, val := tkn.Scan()
	for typ == sqlparser.COMMENT {
		typ, val = tkn.Scan()
	}
	return typ != 0 && typ != sqlparser.LEX_ERROR && typ != sqlparser.STRING && strings.EqualFold(string(val), word)
}

// edit replaces the text of one token.
type edit struct {
	tok  int
	text string
}

// rewriteCalls rewrites the calls the grammar cannot read (see above).
func rewriteCalls(sql string) string {
	// Cheap test first: most statements hold none of these words.
	if !containsAnyWordFold(sql, "substr", "trim", "position", "extract", "cast", "convert", "schema", "collate", "timestamp", "localtime") {
		return sql
	}
	toks, ok := tokenize(sql)
	if !ok {
		return sql
	}
	// depth[i]: parentheses open before token i; match[i]: the ) closing the ( at i.
	depth := make([]int, len(toks))
	match := make([]int, len(toks))
	var open []int
	for i, t := range toks {
		depth[i] = len(open)
		match[i] = -1
		switch t.typ {
		case '(':
			open = append(open, i)
		case ')':
			if len(open) > 0 {
				match[open[len(open)-1]] = i
				open = open[:len(open)-1]
			}
		}
	}
	var edits []edit
	// SET NAMES 'utf8mb4' COLLATE 'utf8mb4_unicode_ci': the grammar takes the collation only as a
	// bare word.
	if len(toks) > 0 && toks[0].val == "set" {
		for i := 1; i+1 < len(toks); i++ {
			if toks[i].typ == sqlparser.COLLATE && toks[i+1].typ == sqlparser.STRING && !strings.ContainsAny(toks[i+1].val, "`\\") {
				edits = append(edits, edit{i + 1, "`" + toks[i+1].val + "`"})
			}
		}
	}
	for i := 0; i+1 < len(toks); i++ {
		if toks[i+1].typ != '(' || match[i+1] < 0 {
			continue
		}
		lo, hi := i+2, match[i+1] // the call's inner tokens: toks[lo:hi]
		inner := depth[i+1] + 1
		// at finds the call's own tokens (not those of nested parentheses) that satisfy f.
		at := func(f func(t token) bool) []int {
			var out []int
			for k := lo; k < hi; k++ {
				if depth[k] == inner && f(toks[k]) {
					out = append(out, k)
				}
			}
			return out
		}
		isKeyword := func(typ int) func(t token) bool { return func(t token) bool { return t.typ == typ } }
		t := toks[i]
		switch {
		case t.typ == sqlparser.SUBSTR || t.typ == sqlparser.SUBSTRING:
			edits = append(edits, edit{i, "`SUBSTRING`"})
			for _, k := range at(func(t token) bool { return t.typ == sqlparser.FROM || t.typ == sqlparser.FOR }) {
				edits = append(edits, edit{k, ","})
			}
		case t.typ == sqlparser.ID && t.val == "trim" && lo < hi:
			side := "BOTH"
			first := toks[lo]
			hasSide := first.typ == sqlparser.UNUSED && (first.val == "both" || first.val == "leading" || first.val == "trailing")
			if hasSide {
				side = strings.ToUpper(first.val)
			}
			froms := at(isKeyword(sqlparser.FROM))
			if len(froms) != 1 {
				continue // TRIM(s): the grammar reads it
			}
			edits = append(edits, edit{i, "`TRIM " + side + "`"})
			if hasSide {
				edits = append(edits, edit{lo, ""})
			}
			if froms[0] == lo || (hasSide && froms[0] == lo+1) {
				edits = append(edits, edit{froms[0], ""}) // no remstr: TRIM(LEADING FROM s)
			} else {
				edits = append(edits, edit{froms[0], ","})
			}
		case t.typ == sqlparser.ID && t.val == "position":
			ins := at(isKeyword(sqlparser.IN))
			if len(ins) != 1 {
				continue
			}
			edits = append(edits, edit{i, "`POSITION IN`"}, edit{ins[0], ","})
		case t.typ == sqlparser.ID && t.val == "extract":
			froms := at(isKeyword(sqlparser.FROM))
			if len(froms) != 1 || froms[0] != lo+1 {
				continue
			}
			unit := strings.ToUpper(toks[lo].val)
			if !intervalUnits[unit] {
				continue
			}
			edits = append(edits, edit{i, "`EXTRACT FROM`"}, edit{lo, "'" + unit + "'"}, edit{froms[0], ","})
		case t.typ == sqlparser.CAST || t.typ == sqlparser.CONVERT:
			// CAST(x AS DOUBLE), CONVERT(x, DOUBLE); FLOAT and REAL too.
			if hi-1 < lo {
				continue
			}
			last := toks[hi-1]
			if depth[hi-1] != inner || (last.val != "double" && last.val != "float" && last.val != "real") {
				continue
			}
			sep := toks[hi-2]
			if hi-2 < lo || depth[hi-2] != inner || !(t.typ == sqlparser.CAST && sep.typ == sqlparser.AS || t.typ == sqlparser.CONVERT && sep.typ == ',') {
				continue
			}
			edits = append(edits, edit{i, "`CAST DOUBLE`"}, edit{hi - 2, ""}, edit{hi - 1, ""})
		case t.typ == sqlparser.SCHEMA && hi == lo:
			edits = append(edits, edit{i, "`SCHEMA`"})
		case (t.typ == sqlparser.CURRENT_TIMESTAMP || t.typ == sqlparser.LOCALTIME || t.typ == sqlparser.LOCALTIMESTAMP ||
			t.typ == sqlparser.UTC_TIMESTAMP) && hi == lo+1:
			// NOW's synonyms with a precision, CURRENT_TIMESTAMP(3): the grammar takes only ().
			edits = append(edits, edit{i, "`" + strings.ToUpper(t.val) + "`"})
		}
	}
	if len(edits) == 0 {
		return sql
	}
	replace := make(map[int]string, len(edits))
	for _, e := range edits {
		replace[e.tok] = e.text
	}
	var b strings.Builder
	b.Grow(len(sql) + 16*len(edits))
	pos := 0
	for i, t := range toks {
		text, ok := replace[i]
		if !ok {
			continue
		}
		b.WriteString(sql[pos:t.start])
		b.WriteString(text)
		pos = t.end
	}
	b.WriteString(sql[pos:])
	return b.String()
}

// containsAnyWordFold reports whether s contains one of the lower-case ASCII words in any case,
// without copying s (a statement can be a large INSERT).
func containsAnyWordFold(s string, words ...string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20 // ASCII lower case (other bytes never match a word's first letter)
		for _, w := range words {
			if c == w[0] && len(s)-i >= len(w) && strings.EqualFold(s[i:i+len(w)], w) {
				return true
			}
		}
	}
	return false
}

// parserLimitation names a construct of the statement that the pinned parser cannot read, for the
// message of a syntax error ("" when none is recognised).
func parserLimitation(sql string) string {
	toks, ok := tokenize(sql)
	if !ok {
		return ""
	}
	for i, t := range toks {
		next := func(k int) token {
			if i+k < len(toks) {
				return toks[i+k]
			}
			return token{}
		}
		switch {
		case t.typ == sqlparser.AS && i > 0 && (next(1).val == "year" || next(1).val == "float" && next(2).typ == '('):
			return "CAST to " + strings.ToUpper(next(1).val)
		case t.val == "interval" && next(1).typ == '(' && i > 0 && toks[i-1].typ != '+' && toks[i-1].typ != '-':
			return "INTERVAL() as a function"
		case t.val == "insert" && i > 0 && next(1).typ == '(':
			return "INSERT() as a function"
		case t.typ == sqlparser.ID && t.val == "json_table":
			return "JSON_TABLE"
		case t.typ == sqlparser.ID && t.val == "lateral":
			return "LATERAL"
		}
	}
	return ""
}

// sqlString is sqlparser.String, except that the calls rewriteCalls made are written back in their
// SQL form (TRIM(LEADING 'x' FROM s), not `TRIM LEADING`('x', s)), for column names and messages.
func sqlString(node sqlparser.SQLNode) string {
	buf := sqlparser.NewTrackedBuffer(formatRewritten)
	buf.Myprintf("%v", node)
	return buf.String()
}

func formatRewritten(buf *sqlparser.TrackedBuffer, node sqlparser.SQLNode) {
	f, ok := node.(*sqlparser.FuncExpr)
	if !ok || !f.Qualifier.IsEmpty() {
		node.Format(buf)
		return
	}
	if formatWindowCall(buf, f) {
		return
	}
	args := f.Exprs
	switch name := f.Name.String(); {
	case strings.HasPrefix(name, "TRIM ") && len(args) == 2:
		buf.Myprintf("TRIM(%s %v FROM %v)", name[len("TRIM "):], args[0], args[1])
	case strings.HasPrefix(name, "TRIM ") && len(args) == 1:
		buf.Myprintf("TRIM(%s FROM %v)", name[len("TRIM "):], args[0])
	case name == "POSITION IN" && len(args) == 2:
		buf.Myprintf("POSITION(%v IN %v)", args[0], args[1])
	case name == "CAST DOUBLE" && len(args) == 1:
		buf.Myprintf("CAST(%v AS DOUBLE)", args[0])
	case name == "EXTRACT FROM" && len(args) == 2:
		unit := ""
		if ae, ok := args[0].(*sqlparser.AliasedExpr); ok {
			if v, ok := ae.Expr.(*sqlparser.SQLVal); ok {
				unit = string(v.Val)
			}
		}
		buf.Myprintf("EXTRACT(%s FROM %v)", unit, args[1])
	default:
		node.Format(buf)
	}
}
