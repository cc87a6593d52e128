package frontend

import (
	"reflect"
	"strings"
	"testing"

	"github.com/xwb1989/sqlparser"
)

// jsonTableSpecs finds the JSON_TABLE calls the front end wrote into a parsed statement: their
// document's SQL and their specification.
func jsonTableSpecs(t testing.TB, st sqlparser.Statement) (docs []string, specs []*JSONTableSpec) {
	t.Helper()
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		call, ok := n.(*sqlparser.FuncExpr)
		if !ok || call.Name.String() != JSONTableCall {
			return true, nil
		}
		if len(call.Exprs) != 2 {
			t.Fatalf("%s: %d arguments, want 2", sqlparser.String(call), len(call.Exprs))
		}
		lit := call.Exprs[1].(*sqlparser.AliasedExpr).Expr.(*sqlparser.SQLVal)
		spec, err := DecodeJSONTableSpec(string(lit.Val))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, sqlparser.String(call.Exprs[0]))
		specs = append(specs, spec)
		return true, nil
	}, st)
	return docs, specs
}

func TestReadJSONTable(t *testing.T) {
	varchar50 := &JSONTableType{Name: "varchar", Length: 50, Scale: -1, Text: "varchar(50)"}
	intType := &JSONTableType{Name: "int", Length: -1, Scale: -1, Text: "int"}
	for _, tt := range []struct {
		name, sql string
		doc       string // the document as the grammar reads it
		spec      *JSONTableSpec
		err       string
	}{
		{name: "lateral, comma", sql: "SELECT t.Name, jt.tag FROM Tasks t, JSON_TABLE(t.Tags, '$[*]' COLUMNS (tag VARCHAR(50) PATH '$')) AS jt",
			doc:  "t.Tags",
			spec: &JSONTableSpec{Path: "$[*]", Columns: []JSONTableColumn{{Kind: "path", Name: "tag", Type: varchar50, Path: "$"}}}},
		{name: "every column kind", sql: "SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (n FOR ORDINALITY, `a b` INT EXISTS PATH '$.x', d DECIMAL(10, 2) UNSIGNED PATH \"$.d\" DEFAULT '1' ON EMPTY ERROR ON ERROR, NESTED '$.n[*]' COLUMNS (v INT PATH '$' NULL ON ERROR))) jt",
			doc: "'[1]'",
			spec: &JSONTableSpec{Path: "$[*]", Columns: []JSONTableColumn{
				{Kind: "ordinality", Name: "n"},
				{Kind: "exists", Name: "a b", Type: intType, Path: "$.x"},
				{Kind: "path", Name: "d", Type: &JSONTableType{Name: "decimal", Length: 10, Scale: 2, Unsigned: true, Text: "decimal(10, 2) unsigned"}, Path: "$.d",
					OnEmpty: &JSONTableResponse{Kind: "default", Default: "1"}, OnError: &JSONTableResponse{Kind: "error"}},
				{Kind: "nested", Path: "$.n[*]", Columns: []JSONTableColumn{{Kind: "path", Name: "v", Type: intType, Path: "$", OnError: &JSONTableResponse{Kind: "null"}}}},
			}}},
		{name: "LEFT JOIN with a placeholder", sql: "SELECT * FROM Tasks t LEFT JOIN JSON_TABLE(?, '$' COLUMNS (c VARCHAR(3) CHARACTER SET utf8mb4 PATH '$' NULL ON EMPTY)) jt ON TRUE",
			doc: ":v1", spec: &JSONTableSpec{Path: "$", Columns: []JSONTableColumn{{Kind: "path", Name: "c",
				Type: &JSONTableType{Name: "varchar", Length: 3, Scale: -1, Charset: "utf8mb4", Text: "varchar(3) character set utf8mb4"}, Path: "$", OnEmpty: &JSONTableResponse{Kind: "null"}}}}},
		{name: "inside a parenthesised join", sql: "SELECT * FROM (Tasks t JOIN JSON_TABLE(CONCAT('[', t.x, ']'), '$[*]' COLUMNS (v DOUBLE PRECISION PATH '$')) jt)",
			doc: "CONCAT('[', t.x, ']')", spec: &JSONTableSpec{Path: "$[*]", Columns: []JSONTableColumn{{Kind: "path", Name: "v",
				Type: &JSONTableType{Name: "double", Length: -1, Scale: -1, Text: "double precision"}, Path: "$"}}}},
		{name: "a string with a LIKE escape in a path", sql: "SELECT * FROM JSON_TABLE(x, '$.\"a\\%\"' COLUMNS (v INT PATH '$')) AS jt WHERE y LIKE 'a\\%'",
			doc: "x", spec: &JSONTableSpec{Path: `$."a\%"`, Columns: []JSONTableColumn{{Kind: "path", Name: "v", Type: intType, Path: "$"}}}},
		{name: "in UPDATE's tables", sql: "UPDATE t, JSON_TABLE(t.a, '$' COLUMNS (v INT PATH '$')) jt SET t.b = jt.v",
			doc: "t.a", spec: &JSONTableSpec{Path: "$", Columns: []JSONTableColumn{{Kind: "path", Name: "v", Type: intType, Path: "$"}}}},
		{name: "in DELETE … USING", sql: "DELETE FROM t USING t, JSON_TABLE('[1]', '$' COLUMNS (v INT PATH '$')) jt WHERE t.n = jt.v",
			doc: "'[1]'", spec: &JSONTableSpec{Path: "$", Columns: []JSONTableColumn{{Kind: "path", Name: "v", Type: intType, Path: "$"}}}},
		{name: "no alias", sql: "SELECT * FROM JSON_TABLE('[1]', '$' COLUMNS (a INT PATH '$'))", err: "Every table function must have an alias"},
		{name: "no COLUMNS", sql: "SELECT * FROM JSON_TABLE('[1]', '$') AS jt", err: "COLUMNS (…) must follow the path"},
		{name: "a path that is not a literal", sql: "SELECT * FROM JSON_TABLE('[1]', CONCAT('$') COLUMNS (a INT PATH '$')) AS jt", err: "the row path of JSON_TABLE must be a string literal"},
		{name: "no type", sql: "SELECT * FROM JSON_TABLE('[1]', '$' COLUMNS (a PATH '$')) AS jt", err: "a column type is expected"},
		{name: "ON in the wrong place", sql: "SELECT * FROM JSON_TABLE('[1]', '$' COLUMNS (a INT PATH '$' ERROR ON ERROR NULL ON EMPTY)) AS jt", err: "a column definition ends with , or )"},
		{name: "FOR without ORDINALITY", sql: "SELECT * FROM JSON_TABLE('[1]', '$' COLUMNS (a FOR x)) AS jt", err: "FOR must be followed by ORDINALITY"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, err := ParseSQL(tt.sql)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want an error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			docs, specs := jsonTableSpecs(t, st)
			if len(specs) != 1 {
				t.Fatalf("got %d JSON_TABLE calls in %s, want 1", len(specs), sqlparser.String(st))
			}
			if docs[0] != tt.doc {
				t.Errorf("document %s, want %s", docs[0], tt.doc)
			}
			if !reflect.DeepEqual(specs[0], tt.spec) {
				t.Errorf("got %+v, want %+v", specs[0], tt.spec)
			}
		})
	}
}

// TestJSONTableOnlyWhereATableGoes: json_table elsewhere is not rewritten (MySQL has no such
// function; the grammar refuses it).
func TestJSONTableOnlyWhereATableGoes(t *testing.T) {
	for _, sql := range []string{
		"SELECT JSON_TABLE('[1]', '$' COLUMNS (a INT PATH '$')) AS x FROM t",
		"SELECT a FROM t WHERE b = 1 AND JSON_TABLE('[1]', '$' COLUMNS (a INT PATH '$')) AS x",
	} {
		st, err := ParseSQL(sql)
		if err == nil {
			if _, specs := jsonTableSpecs(t, st); len(specs) > 0 {
				t.Errorf("%s: rewritten as a table: %s", sql, sqlparser.String(st))
			}
		}
	}
}

// FuzzJSONTable: reading a JSON_TABLE never panics; what the front end writes, the grammar reads;
// and a specification written back as SQL (JSONTableSpec.SQL) reads as the same specification.
func FuzzJSONTable(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM t, JSON_TABLE(t.a, '$[*]' COLUMNS (x VARCHAR(5) PATH '$')) AS jt",
		"SELECT * FROM JSON_TABLE('[1]', '$' COLUMNS (n FOR ORDINALITY, e INT EXISTS PATH '$.a', NESTED PATH '$.b' COLUMNS (c JSON PATH '$' DEFAULT '{}' ON EMPTY NULL ON ERROR))) jt",
		"SELECT * FROM JSON_TABLE(", "FROM JSON_TABLE('x', 'y' COLUMNS (", "FROM JSON_TABLE(a, 'p' COLUMNS (b DECIMAL(3, PATH 'q')) t",
		"SELECT * FROM a JOIN JSON_TABLE(a.b, '$' COLUMNS (`x``y` CHAR CHARSET latin1 PATH 'it''s')) AS jt ON TRUE",
		"SELECT * FROM JSON_TABLE(?, '$' COLUMNS (a INT PATH '$' ERROR ON EMPTY DEFAULT '\\'' ON ERROR)) AS jt",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		src, err := lex(sql)
		if err != nil || len(src.toks) == 0 {
			return
		}
		for i := range src.toks {
			if !src.jsonTableStart(i) {
				continue
			}
			jt, err := src.readJSONTable(i)
			if err != nil {
				continue
			}
			spec := jt.spec
			again := "SELECT * FROM JSON_TABLE('[]', " + spec.SQL() + ") AS jt"
			st, err := ParseSQL(again)
			if err != nil {
				t.Fatalf("%q: the specification written back (%s) does not read: %v", sql, again, err)
			}
			_, specs := jsonTableSpecs(t, st)
			if len(specs) != 1 || !sameSpec(specs[0], &spec) {
				t.Fatalf("%q: written back as %s, read as %+v, want %+v", sql, again, specs, spec)
			}
		}
		_, _ = ParseSQL(sql) // never panics (ParseSQL recovers the grammar's own panics)
	})
}

// sameSpec compares two specifications, a type's text aside (SQL writes it as read, in lower case
// and with MySQL's spacing).
func sameSpec(a, b *JSONTableSpec) bool {
	strip := func(s *JSONTableSpec) JSONTableSpec {
		var walk func(cols []JSONTableColumn) []JSONTableColumn
		walk = func(cols []JSONTableColumn) []JSONTableColumn {
			out := make([]JSONTableColumn, len(cols))
			for i, c := range cols {
				if c.Type != nil {
					typ := *c.Type
					typ.Text = ""
					c.Type = &typ
				}
				c.Columns = walk(c.Columns)
				out[i] = c
			}
			return out
		}
		return JSONTableSpec{Path: s.Path, Columns: walk(s.Columns)}
	}
	return reflect.DeepEqual(strip(a), strip(b))
}
