package translate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/airsql/airsql/sqlvalue"
	"github.com/xwb1989/sqlparser"
)

// Linked records. A multipleRecordLinks field holds the ids of the records it links (an array).
// SQL code means membership when it compares such a field with a record id: t.Assignee = 'rec…',
// t.Assignee = p.id, JOIN People p ON p.id = t.Assignee. So = between a link field and a text value
// is compiled as "the link holds that id" (exLinkHas), and a join on it gives one row per linked
// record, as a junction table would. Its explicit MySQL forms are JSON_CONTAINS(t.Assignee,
// JSON_QUOTE(p.id)) (also JSON_CONTAINS(t.Assignee, '"rec…"')) and MEMBER OF is not parsed by this
// parser. Any other comparison of a link field with text is refused rather than silently matching
// nothing (the field's text is its JSON array, never equal to one id).

// isLinkField reports a linked-record field read from a record.
func isLinkField(e *expr) bool {
	return e != nil && (e.kind == exField || e.kind == exDerived || e.kind == exOuter) && e.field != nil && e.field.Type == "multipleRecordLinks"
}

// linkCompare compiles a comparison with a link field on one side and a text value on the other:
// = is membership; other operators are refused. ok is false when neither side is a link field
// compared with text.
func linkCompare(op string, left, right *expr) (*expr, bool, error) {
	link, other := left, right
	if !isLinkField(link) {
		link, other = right, left
	}
	if !isLinkField(link) || isLinkField(other) || other.typ == typeJSON || other.typ == typeNull {
		return nil, false, nil
	}
	if other.kind == exConst {
		if text, ok := other.val.(string); ok && strings.HasPrefix(strings.TrimSpace(text), "[") {
			return nil, false, nil // the whole link as JSON text: '["rec…"]' compares as text
		}
	}
	if other.typ != typeText {
		return nil, true, fmt.Errorf("translate: cannot compare the linked-record field %s with %s (%s): a link holds record ids; compare it with an id, e.g. %s = 'rec…'",
			describe(link), describe(other), other.typ, describe(link))
	}
	switch op {
	case "=":
		return linkHas(link, other), true, nil
	case "<>":
		return nil, true, fmt.Errorf("translate: %s <> %s on the linked-record field %s is ambiguous (a link holds several ids): write NOT JSON_CONTAINS(%s, JSON_QUOTE(%s)) for \"does not link it\"",
			describe(link), describe(other), describe(link), describe(link), describe(other))
	}
	return nil, true, fmt.Errorf("translate: %s %s %s: a linked-record field holds record ids and compares with = only (= means the link holds the id)",
		describe(link), op, describe(other))
}

func linkHas(link, id *expr) *expr {
	return &expr{kind: exLinkHas, typ: typeCond, nullable: true, args: []*expr{link, id},
		sql: describe(link) + " holds " + describe(id)}
}

// linkIDs reads the record ids a link field holds in a row (nil when it is empty or NULL).
func (e *expr) linkIDs(r *Row) ([]string, bool) {
	if e.tab > 0 && r.Sides != nil {
		if r = r.Sides[e.tab-1]; r == nil {
			return nil, false
		}
	}
	var ids []string
	if e.kind == exDerived || e.kind == exOuter { // a link column of a derived table or the outer query: its JSON text
		text, _ := e.eval(r)
		s, _ := text.(string)
		if s == "" || json.Unmarshal([]byte(s), &ids) != nil {
			return nil, false
		}
		return ids, true
	}
	switch v := r.cell(e.field.Name).(type) {
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				ids = append(ids, s)
			}
		}
	case []string:
		ids = v
	case nil:
		return nil, false
	}
	return ids, true
}

// linkCell is linkIDs for a link field whose cell is the records API's []any of ids: the cell
// itself, not a copy (callers only read it). ok is false for any other form; linkIDs reads those.
func (e *expr) linkCell(r *Row) ([]any, bool) {
	if e.kind == exDerived || e.kind == exOuter {
		return nil, false
	}
	if e.tab > 0 && r.Sides != nil {
		if r = r.Sides[e.tab-1]; r == nil {
			return nil, true
		}
	}
	cell, ok := r.cell(e.field.Name).([]any)
	if !ok {
		return nil, false
	}
	for _, x := range cell {
		if _, isID := x.(string); !isID {
			return nil, false
		}
	}
	return cell, true
}

// findInSetLink compiles FIND_IN_SET(id, link): the position of the id among the link's ids
// (1-based), 0 when it does not hold it, NULL when either is NULL — MySQL's answer for the link
// written as its comma-separated ids. ok is false when the second argument is not a link field.
func (s *scope) findInSetLink(f *sqlparser.FuncExpr) (*expr, bool, error) {
	a0, ok0 := f.Exprs[0].(*sqlparser.AliasedExpr)
	a1, ok1 := f.Exprs[1].(*sqlparser.AliasedExpr)
	if !ok0 || !ok1 {
		return nil, false, nil
	}
	if _, isCol := a1.Expr.(*sqlparser.ColName); !isCol {
		return nil, false, nil
	}
	link, err := s.compile(a1.Expr)
	if err != nil || !isLinkField(link) {
		return nil, false, nil // compiled again (and its error reported) as an ordinary call
	}
	id, err := s.compile(a0.Expr)
	if err != nil {
		return nil, true, err
	}
	if id.typ != typeText && id.typ != typeNull {
		return nil, true, fmt.Errorf("translate: %s: a record id (text) is looked up in a linked-record field, got %s", sqlparser.String(f), id.typ)
	}
	return &expr{kind: exLinkHas, op: "find_in_set", typ: typeInt, nullable: true, args: []*expr{link, id}, sql: sqlparser.String(f)}, true, nil
}

// evalLinkHas is JSON_CONTAINS(link, JSON_QUOTE(id)): NULL when the id or the link is NULL (a blank
// link is SQL NULL, and JSON_CONTAINS of NULL is NULL), so that NOT and IS [NOT] FALSE treat a blank
// link as MySQL treats any NULL. A join on the link still gives a blank link no row.
func (e *expr) evalLinkHas(r *Row) (any, error) {
	v, err := e.args[1].eval(r)
	if err != nil || v == nil {
		return nil, err
	}
	id, _ := v.(string)
	ids, present := e.args[0].linkIDs(r)
	if e.op == "find_in_set" {
		if !present {
			return nil, nil
		}
		for i, x := range ids {
			if x == id {
				return int64(i + 1), nil
			}
		}
		return int64(0), nil
	}
	if !present {
		return nil, nil
	}
	has := false
	for _, x := range ids {
		if x == id {
			has = true
			break
		}
	}
	if e.op == "json_contains" {
		return sqlvalue.BoolInt(has), nil
	}
	return has != e.negated, nil
}

// jsonContainsLink compiles JSON_CONTAINS(link, JSON_QUOTE(x)) and JSON_CONTAINS(link, '"rec…"') on a
// link field into membership; ok is false for any other call.
func (s *scope) jsonContainsLink(f *sqlparser.FuncExpr) (*expr, bool, error) {
	if strings.EqualFold(f.Name.String(), "find_in_set") && len(f.Exprs) == 2 && f.Qualifier.IsEmpty() {
		return s.findInSetLink(f)
	}
	if !strings.EqualFold(f.Name.String(), "json_contains") || len(f.Exprs) != 2 || !f.Qualifier.IsEmpty() {
		return nil, false, nil
	}
	a0, ok0 := f.Exprs[0].(*sqlparser.AliasedExpr)
	a1, ok1 := f.Exprs[1].(*sqlparser.AliasedExpr)
	if !ok0 || !ok1 {
		return nil, false, nil
	}
	link, err := s.compile(a0.Expr)
	if err != nil {
		return nil, true, err
	}
	if !isLinkField(link) {
		return nil, false, nil // any other document: the function itself (sqlvalue/funcs_json.go)
	}
	switch x := a1.Expr.(type) {
	case *sqlparser.FuncExpr:
		if strings.EqualFold(x.Name.String(), "json_quote") && len(x.Exprs) == 1 {
			if ae, ok := x.Exprs[0].(*sqlparser.AliasedExpr); ok {
				id, err := s.compile(ae.Expr)
				if err != nil {
					return nil, true, err
				}
				if id.typ != typeText && id.typ != typeNull {
					return nil, true, fmt.Errorf("translate: %s: JSON_QUOTE takes text (a record id), got %s", sqlparser.String(f), id.typ)
				}
				return containsValue(linkHas(link, id)), true, nil
			}
		}
	case *sqlparser.SQLVal:
		if text := string(x.Val); x.Type == sqlparser.StrVal && len(text) >= 2 && strings.HasPrefix(text, `"`) && strings.HasSuffix(text, `"`) {
			return containsValue(linkHas(link, &expr{kind: exConst, typ: typeText, val: text[1 : len(text)-1], sql: sqlparser.String(x)})), true, nil
		}
	}
	return nil, false, nil // another candidate: the function over the link's JSON text
}

// containsValue is membership written as JSON_CONTAINS: its value is MySQL's integer 1 or 0 (a
// BIGINT column, not a boolean); as a condition (asCondition) it is the membership itself, which
// joins and pushdown read.
func containsValue(has *expr) *expr {
	has.op, has.typ = "json_contains", typeInt
	return has
}

// linkIn compiles link [NOT] IN (id, …) as membership of any of the ids; ok is false when the left
// side is not a link field or an item is not a record id.
func (s *scope) linkIn(left *expr, tuple sqlparser.ValTuple, negated bool) (*expr, bool, error) {
	if !isLinkField(left) {
		return nil, false, nil
	}
	var items []*expr
	for _, item := range tuple {
		x, err := s.compile(item)
		if err != nil {
			return nil, true, err
		}
		has, ok, err := linkCompare("=", left, x)
		if err != nil || !ok {
			return nil, ok, err
		}
		items = append(items, has)
	}
	in := &expr{kind: exOr, typ: typeCond, nullable: true, args: items}
	if len(items) == 1 {
		in = items[0]
	}
	if negated {
		return &expr{kind: exNot, typ: typeCond, nullable: true, args: []*expr{in}}, true, nil
	}
	return in, true, nil
}
