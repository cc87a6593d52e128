package frontend

import (
	"strings"

	"github.com/xwb1989/sqlparser"
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
				edits = append(edits, edit{i + 1, "`" + strings.ToLower(toks[i+1].val) + "`"})
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
			if !IntervalUnits[unit] {
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
	return s.tokenEdits(edits)
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
