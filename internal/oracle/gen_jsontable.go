package oracle

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// JSON_TABLE (issue 22): a table's list cells (multiple selects, links) unnested row by row —
// with a comma, [CROSS] JOIN or LEFT JOIN … ON TRUE, a WHERE on the table, and GROUP BY the
// unnested value — and constant documents with NESTED PATHs, in the shapes where MariaDB 10.11
// answers as MySQL 8: text columns wide enough for every value, integers read from integers,
// DEFAULT only for numbers (MariaDB reads a DEFAULT as SQL text, MySQL as JSON), no JSON columns
// (MariaDB prints JSON scalars as written). Every answer is ordered by unique keys.
//
// MariaDB gives a JSON_TABLE text column its charset's default collation, which folds case: its
// side compares and orders them with COLLATE utf8mb4_nopad_bin, as the driver does.

// TagJSONTable: a JSON_TABLE in FROM, which the driver reads before its parser does.
const TagJSONTable = "json-table"

// JSONTableQuery generates a query whose subject is JSON_TABLE (the seed alone reproduces it).
func (g *Generator) JSONTableQuery(seed uint64) *Query {
	r := rand.New(rand.NewPCG(seed, 0x7ab1e))
	q := &Query{Seed: seed, Constructs: []string{"JSON_TABLE"}, Tags: map[string]bool{TagJSONTable: true}, Ordered: true}
	p := &parts{g: g, r: r, q: q, alias: "t", qualify: true}
	var d, m string
	if r.IntN(4) == 0 {
		d = constantJSONTable(r)
		m = d
	} else {
		var tables []*Table
		for _, t := range g.Schema.Tables {
			if len(listColumns(t)) > 0 {
				tables = append(tables, t)
			}
		}
		if len(tables) == 0 {
			panic("oracle: the fixture has no list column for JSON_TABLE")
		}
		p.t = tables[r.IntN(len(tables))]
		d, m = p.lateralJSONTable()
	}
	var argsM []any
	q.Driver, q.Args = p.placeholders(d, false)
	q.MariaDB, argsM = p.placeholders(m, true)
	if fmt.Sprint(q.Args) != fmt.Sprint(argsM) {
		panic(fmt.Sprintf("oracle: the MariaDB form of JSON_TABLE seed %d binds its arguments in another order", seed))
	}
	return q
}

// listColumns are a table's multiple selects and links: JSON arrays of strings.
func listColumns(t *Table) []*Column {
	var out []*Column
	for _, c := range t.Columns {
		if c.AirType == "multipleSelects" || c.AirType == "multipleRecordLinks" {
			out = append(out, c)
		}
	}
	return out
}

// lateralJSONTable unnests a list column of p.t.
func (p *parts) lateralJSONTable() (d, m string) {
	r := p.r
	lists := listColumns(p.t)
	list := lists[r.IntN(len(lists))]
	cols := []string{"jt_n FOR ORDINALITY", "jt_v VARCHAR(64) PATH '$'"}
	extra := []string{}
	if r.IntN(3) == 0 {
		cols = append(cols, "jt_e INT EXISTS PATH '$[0]'")
		extra = append(extra, "jt.jt_e")
	}
	if r.IntN(3) == 0 {
		cols = append(cols, fmt.Sprintf("jt_d INT PATH '$.x' DEFAULT '%d' ON EMPTY", r.IntN(100)-50))
		extra = append(extra, "jt.jt_d")
	}
	jt := "JSON_TABLE(t." + quoteName(list.Name) + ", '$[*]' COLUMNS (" + strings.Join(cols, ", ") + ")) AS jt"
	join, on := ", ", ""
	left := false
	switch r.IntN(4) {
	case 1:
		join = " JOIN "
		if r.IntN(2) == 0 {
			join = " CROSS JOIN "
		}
	case 2:
		join, on, left = " LEFT JOIN ", " ON TRUE", true
	}
	from := quoteName(p.t.Name) + " AS t" + join + jt + on
	where, whereM := "", ""
	if r.IntN(2) == 0 {
		c := p.cond(1)
		where, whereM = " WHERE "+c.d, " WHERE "+c.m
	}
	if r.IntN(3) == 0 {
		// The unnested value also filtered: a bound text, compared as the driver compares text.
		v := p.bind(p.tagValue())
		cond := "jt.jt_v <> " + v
		if where == "" {
			where, whereM = " WHERE "+cond, " WHERE "+cond
		} else {
			where, whereM = where+" AND "+cond, whereM+" AND "+cond
		}
	}
	if r.IntN(3) == 0 {
		// Grouped by the unnested value: counts per tag (NULL: the rows LEFT JOIN kept).
		agg := "COUNT(*), COUNT(DISTINCT t.id), MIN(jt.jt_n), MAX(jt.jt_n)"
		d = "SELECT jt.jt_v, " + agg + " FROM " + from + where + " GROUP BY jt.jt_v ORDER BY jt.jt_v"
		// MariaDB: grouped and ordered by the column in the driver's collation (GROUP BY 1: an
		// expression of the select list, which ONLY_FULL_GROUP_BY accepts).
		m = "SELECT jt.jt_v COLLATE " + TextCollation + " AS jt_v, " + agg + " FROM " + from + whereM + " GROUP BY 1 ORDER BY 1"
		return d, m
	}
	sel := "t.id, jt.jt_n, jt.jt_v"
	if len(extra) > 0 {
		sel += ", " + strings.Join(extra, ", ")
	}
	order := " ORDER BY t.id, jt.jt_n"
	if left && r.IntN(2) == 0 {
		order = " ORDER BY t.id, jt.jt_n DESC" // the NULL row of an empty cell last
	}
	limit := ""
	if r.IntN(4) == 0 {
		limit = fmt.Sprintf(" LIMIT %d", 1+r.IntN(20))
	}
	return "SELECT " + sel + " FROM " + from + where + order + limit, "SELECT " + sel + " FROM " + from + whereM + order + limit
}

// tagValue is a value a list cell may hold: one of the fixture's tags, or a text none holds.
func (p *parts) tagValue() string {
	vals := []string{"red", "Red", "blue", "x%y", "a_b", "ünï", "none"}
	return vals[p.r.IntN(len(vals))]
}

// constantJSONTable writes a JSON_TABLE over a constant document: an array of objects with a
// number, a text and a list, one or two NESTED PATHs over the list (siblings take turns).
func constantJSONTable(r *rand.Rand) string {
	var items []string
	for i := range r.IntN(5) {
		var fields []string
		if r.IntN(5) > 0 {
			fields = append(fields, fmt.Sprintf(`"a": %d`, r.IntN(200)-100))
		}
		if r.IntN(4) > 0 {
			fields = append(fields, fmt.Sprintf(`"s": "w%d"`, i))
		}
		if r.IntN(4) > 0 {
			var list []string
			for range r.IntN(4) {
				list = append(list, fmt.Sprint(r.IntN(50)))
			}
			fields = append(fields, `"b": [`+strings.Join(list, ", ")+`]`)
		}
		items = append(items, "{"+strings.Join(fields, ", ")+"}")
	}
	doc := "[" + strings.Join(items, ", ") + "]"
	cols := []string{"i FOR ORDINALITY", "a INT PATH '$.a'", "s VARCHAR(10) PATH '$.s'"}
	if r.IntN(2) == 0 {
		cols = append(cols, "hb INT EXISTS PATH '$.b'")
	}
	cols = append(cols, "NESTED PATH '$.b[*]' COLUMNS (k FOR ORDINALITY, b INT PATH '$')")
	if r.IntN(2) == 0 {
		cols = append(cols, "NESTED PATH '$.b[*]' COLUMNS (b2 INT PATH '$')")
	}
	q := "SELECT * FROM JSON_TABLE('" + doc + "', '$[*]' COLUMNS (" + strings.Join(cols, ", ") + ")) AS jt"
	if r.IntN(3) == 0 {
		q += fmt.Sprintf(" WHERE a > %d", r.IntN(200)-100)
	}
	return q
}
