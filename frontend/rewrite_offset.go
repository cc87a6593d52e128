package frontend

import "github.com/xwb1989/sqlparser"

// Query builders write OFFSET without LIMIT (goqu's and squirrel's Offset alone: "… ORDER BY name
// OFFSET 4"), which the pinned grammar cannot read, nor can MySQL; MySQL's manual gives the
// equivalent "LIMIT 18446744073709551615 OFFSET 4" (every row after the first 4), and that is
// what rewriteOffset writes: it adds the LIMIT before each OFFSET that has none at its level of
// parentheses (offsetEdits). Only whole tokens are looked at, so strings and names are never touched.

// allRows is the LIMIT MySQL's manual gives for "to the end": the largest unsigned BIGINT.
const allRows = "18446744073709551615"

func (s *source) offsetEdits() []textEdit {
	depth := 0
	limitAt := []bool{false} // per open parenthesis level: a LIMIT was seen
	var inserts []textEdit   // "LIMIT … " before an OFFSET
	for i, t := range s.toks {
		switch t.typ {
		case '(':
			depth++
			limitAt = append(limitAt, false)
		case ')':
			if depth > 0 {
				depth--
				limitAt = limitAt[:len(limitAt)-1]
			}
		case sqlparser.LIMIT:
			limitAt[depth] = true
		case sqlparser.UNION:
			limitAt[depth] = false
		case sqlparser.OFFSET:
			if i > 0 && s.toks[i-1].typ == sqlparser.AS {
				continue // an alias: AS offset (keywordAliasEdits quotes it)
			}
			if !limitAt[depth] {
				inserts = append(inserts, textEdit{start: t.start, end: t.start, text: "LIMIT " + allRows + " "})
			}
			limitAt[depth] = false
		}
	}
	return inserts
}
