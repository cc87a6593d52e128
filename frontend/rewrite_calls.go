package frontend

import (
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/sqlvalue"
)

// The pinned sqlparser's grammar reads some MySQL function calls only in a narrow form:
// SUBSTRING/SUBSTR take only a column as their first argument (SUBSTR(LTRIM(Code), 4, 2) is a syntax
// error), and TRIM(LEADING 'x' FROM s), SUBSTRING(s FROM 2 FOR 3), POSITION(a IN b),
// // EXTRACT(unit FROM d), CAST(x AS DOUBLE), SCHEMA() and CURRENT_TIMESTAMP(fsp) are not read at all.
// callEdits reads the statement's tokens and rewrites each such call into an ordinary call of a
// backquoted name that the grammar reads (`SUBSTRING`(LTRIM(Code), 4, 2), `TRIM LEADING`('x', s)),
// which funcTable knows. Only whole tokens are replaced, so strings, identifiers and comments are
// never touched.

// edit replaces the text of one token.
type edit struct {
	tok  int
	text string
}

// callEdits rewrites the calls the grammar cannot read (see above).
func (s *source) callEdits() []textEdit {
	toks := s.toks
	depth, match := parentheses(toks)
	edits := setNamesCollateEdits(toks)
	for i := 0; i+1 < len(toks); i++ {
		if toks[i+1].typ != '(' || match[i+1] < 0 {
			continue
		}
		c := call{toks: toks, depth: depth, i: i, lo: i + 2, hi: match[i+1], inner: depth[i+1] + 1}
		t := toks[i]
		switch {
		case t.typ == sqlparser.SUBSTR || t.typ == sqlparser.SUBSTRING:
			edits = append(edits, edit{i, "`SUBSTRING`"})
			for _, k := range c.at(func(t token) bool { return t.typ == sqlparser.FROM || t.typ == sqlparser.FOR }) {
				edits = append(edits, edit{k, ","})
			}
		case t.typ == sqlparser.ID && t.val == "trim" && c.lo < c.hi:
			edits = append(edits, c.trim()...)
		case t.typ == sqlparser.ID && t.val == "position":
			if ins := c.at(isKeyword(sqlparser.IN)); len(ins) == 1 {
				edits = append(edits, edit{i, "`POSITION IN`"}, edit{ins[0], ","})
			}
		case t.typ == sqlparser.ID && t.val == "extract":
			edits = append(edits, c.extract()...)
		case t.typ == sqlparser.CAST || t.typ == sqlparser.CONVERT:
			edits = append(edits, c.castDouble()...)
		case t.typ == sqlparser.SCHEMA && c.hi == c.lo:
			edits = append(edits, edit{i, "`SCHEMA`"})
		case (t.typ == sqlparser.CURRENT_TIMESTAMP || t.typ == sqlparser.LOCALTIME || t.typ == sqlparser.LOCALTIMESTAMP ||
			t.typ == sqlparser.UTC_TIMESTAMP) && c.hi == c.lo+1:
			// NOW's synonyms with a precision, CURRENT_TIMESTAMP(3): the grammar takes only ().
			edits = append(edits, edit{i, "`" + strings.ToUpper(t.val) + "`"})
		}
	}
	return s.tokenEdits(edits)
}

// parentheses returns, for each token, the parentheses open before it (depth) and, for each (,
// the token of the ) that closes it (match; -1 for other tokens and a ( never closed).
func parentheses(toks []token) (depth, match []int) {
	depth = make([]int, len(toks))
	match = make([]int, len(toks))
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
	return depth, match
}

// setNamesCollateEdits: SET NAMES 'utf8mb4' COLLATE 'utf8mb4_unicode_ci': the grammar takes the
// collation only as a bare word.
func setNamesCollateEdits(toks []token) []edit {
	if len(toks) == 0 || toks[0].val != "set" {
		return nil
	}
	var edits []edit
	for i := 1; i+1 < len(toks); i++ {
		if toks[i].typ == sqlparser.COLLATE && toks[i+1].typ == sqlparser.STRING && !strings.ContainsAny(toks[i+1].val, "`\\") {
			edits = append(edits, edit{i + 1, "`" + strings.ToLower(toks[i+1].val) + "`"})
		}
	}
	return edits
}

// call is one call in the statement's tokens: its name toks[i], then ( and its inner tokens
// toks[lo:hi], at parenthesis depth inner.
type call struct {
	toks             []token
	depth            []int
	i, lo, hi, inner int
}

// at finds the call's own tokens (not those of nested parentheses) that satisfy f.
func (c call) at(f func(t token) bool) []int {
	var out []int
	for k := c.lo; k < c.hi; k++ {
		if c.depth[k] == c.inner && f(c.toks[k]) {
			out = append(out, k)
		}
	}
	return out
}

func isKeyword(typ int) func(t token) bool { return func(t token) bool { return t.typ == typ } }

// trim rewrites TRIM([BOTH|LEADING|TRAILING] [remstr] FROM s) as `TRIM side`(remstr, s); TRIM(s)
// is left to the grammar.
func (c call) trim() []edit {
	side := "BOTH"
	first := c.toks[c.lo]
	hasSide := first.typ == sqlparser.UNUSED && (first.val == "both" || first.val == "leading" || first.val == "trailing")
	if hasSide {
		side = strings.ToUpper(first.val)
	}
	froms := c.at(isKeyword(sqlparser.FROM))
	if len(froms) != 1 {
		return nil // TRIM(s): the grammar reads it
	}
	edits := []edit{{c.i, "`TRIM " + side + "`"}}
	if hasSide {
		edits = append(edits, edit{c.lo, ""})
	}
	if froms[0] == c.lo || (hasSide && froms[0] == c.lo+1) {
		return append(edits, edit{froms[0], ""}) // no remstr: TRIM(LEADING FROM s)
	}
	return append(edits, edit{froms[0], ","})
}

// extract rewrites EXTRACT(unit FROM d) as `EXTRACT FROM`('UNIT', d).
func (c call) extract() []edit {
	froms := c.at(isKeyword(sqlparser.FROM))
	if len(froms) != 1 || froms[0] != c.lo+1 {
		return nil
	}
	unit := strings.ToUpper(c.toks[c.lo].val)
	if !sqlvalue.IntervalUnits[unit] {
		return nil
	}
	return []edit{{c.i, "`EXTRACT FROM`"}, {c.lo, "'" + unit + "'"}, {froms[0], ","}}
}

// castDouble rewrites CAST(x AS DOUBLE) and CONVERT(x, DOUBLE) (FLOAT and REAL too) as
// `CAST DOUBLE`(x).
func (c call) castDouble() []edit {
	lo, hi := c.lo, c.hi
	if hi-1 < lo {
		return nil
	}
	last := c.toks[hi-1]
	if c.depth[hi-1] != c.inner || (last.val != "double" && last.val != "float" && last.val != "real") {
		return nil
	}
	sep := c.toks[hi-2]
	name := c.toks[c.i].typ
	if hi-2 < lo || c.depth[hi-2] != c.inner || !(name == sqlparser.CAST && sep.typ == sqlparser.AS || name == sqlparser.CONVERT && sep.typ == ',') {
		return nil
	}
	return []edit{{c.i, "`CAST DOUBLE`"}, {hi - 2, ""}, {hi - 1, ""}}
}

// parserLimitation names a construct of the statement that the pinned parser cannot read, for the
// refusal of a statement that failed to parse ("" when none is recognised), and what to do.
func (s *source) parserLimitation() (construct, hint string) {
	toks := s.toks
	const rewrite = "rewrite the query without it"
	for i, t := range toks {
		next := func(k int) token {
			if i+k < len(toks) {
				return toks[i+k]
			}
			return token{}
		}
		switch {
		case t.typ == sqlparser.AS && i > 0 && (next(1).val == "year" || next(1).val == "float" && next(2).typ == '('):
			return "CAST to " + strings.ToUpper(next(1).val), rewrite
		case t.val == "insert" && i > 0 && next(1).typ == '(':
			return "INSERT() as a function", rewrite
		case t.typ == sqlparser.ID && t.val == "json_table" && !s.jsonTableStart(i):
			return "JSON_TABLE", rewrite
		case t.typ == sqlparser.ID && t.val == "lateral":
			return "LATERAL", rewrite
		case t.typ == sqlparser.ID && next(1).typ == sqlparser.LEX_ERROR && next(1).raw == "$" && next(1).start == t.end:
			return "a comments table named without backquotes", "the SQL parser does not read $ in a bare name: write `" + t.raw + "$comments`"
		}
	}
	return "", ""
}
