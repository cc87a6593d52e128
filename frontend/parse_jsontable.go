package frontend

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/airsql/airsql/sqlvalue"
	"github.com/xwb1989/sqlparser"
)

// JSON_TABLE (MySQL 8 manual, 14.17.6 "JSON Table Functions"). The pinned grammar has no table
// functions, so jsonTableEdits reads each
//
//	JSON_TABLE(expr, 'path' COLUMNS (column_list)) [AS] alias
//
// where a table goes (after FROM, JOIN, a comma of FROM or an opening parenthesis there) and
// writes it as a derived table the grammar reads, the document expression left as written (other
// steps still apply to it: placeholders, LIKE escapes) and everything after it — the path and the
// column definitions, all literals in MySQL's grammar — in one string literal, a JSONTableSpec as
// JSON:
//
//	(SELECT `JSON TABLE`(expr, '{"path":"$[*]","columns":[…]}')) AS alias
//
// The specification travels in the statement itself, as windows do; the planner reads it back
// with JSONTableCall and DecodeJSONTableSpec.

// JSONTableCall is the name of the call jsonTableEdits writes.
const JSONTableCall = "JSON TABLE"

// JSONTableSpec is what a JSON_TABLE says besides its document: the row path and the columns.
type JSONTableSpec struct {
	Path    string            `json:"path"`
	Columns []JSONTableColumn `json:"columns"`
}

// JSONTableColumn is one column definition: Kind "ordinality" (name FOR ORDINALITY), "path"
// (name type PATH 'p' [on empty] [on error]), "exists" (name type EXISTS PATH 'p') or "nested"
// (NESTED [PATH] 'p' COLUMNS (…), which has Columns and no name).
type JSONTableColumn struct {
	Kind    string             `json:"kind"`
	Name    string             `json:"name,omitempty"`
	Type    *JSONTableType     `json:"type,omitempty"`
	Path    string             `json:"path,omitempty"`
	OnEmpty *JSONTableResponse `json:"onEmpty,omitempty"`
	OnError *JSONTableResponse `json:"onError,omitempty"`
	Columns []JSONTableColumn  `json:"columns,omitempty"`
}

// JSONTableType is a column's declared type as written: its name in lower case (varchar, int,
// decimal, …), its parameters (-1 when absent), UNSIGNED, and a character set or collation if
// one was named.
type JSONTableType struct {
	Name     string `json:"name"`
	Length   int    `json:"length"`
	Scale    int    `json:"scale"`
	Unsigned bool   `json:"unsigned,omitempty"`
	Charset  string `json:"charset,omitempty"`
	Text     string `json:"text"` // as written, for messages
}

// JSONTableResponse is an ON EMPTY or ON ERROR clause: Kind "null", "error" or "default" (with
// Default, the JSON text of the value).
type JSONTableResponse struct {
	Kind    string `json:"kind"`
	Default string `json:"default,omitempty"`
}

// JSONTableError is a JSON_TABLE MySQL refuses with its own error number (3667: no alias). Match
// it with errors.As; the server sends Code.
type JSONTableError struct {
	Code    int
	Message string
}

func (e *JSONTableError) Error() string { return "translate: " + e.Message }

// DecodeJSONTableSpec reads back the specification jsonTableEdits wrote.
func DecodeJSONTableSpec(text string) (*JSONTableSpec, error) {
	var spec JSONTableSpec
	if err := json.Unmarshal([]byte(text), &spec); err != nil {
		return nil, fmt.Errorf("translate: the JSON_TABLE specification cannot be read (%v)", err)
	}
	return &spec, nil
}

// SQL writes the specification as MySQL prints it (after the document): '$[*]' columns (…).
func (s *JSONTableSpec) SQL() string {
	var b strings.Builder
	b.WriteString(sqlvalue.QuoteText(s.Path) + " columns (")
	writeJSONTableColumns(&b, s.Columns)
	b.WriteString(")")
	return b.String()
}

func writeJSONTableColumns(b *strings.Builder, cols []JSONTableColumn) {
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		switch c.Kind {
		case "ordinality":
			b.WriteString(quoteName(c.Name) + " for ordinality")
		case "exists":
			b.WriteString(quoteName(c.Name) + " " + c.Type.Text + " exists path " + sqlvalue.QuoteText(c.Path))
		case "path":
			b.WriteString(quoteName(c.Name) + " " + c.Type.Text + " path " + sqlvalue.QuoteText(c.Path))
			for _, r := range []struct {
				resp *JSONTableResponse
				on   string
			}{{c.OnEmpty, "empty"}, {c.OnError, "error"}} {
				if r.resp == nil {
					continue
				}
				switch r.resp.Kind {
				case "default":
					b.WriteString(" default " + sqlvalue.QuoteText(r.resp.Default))
				default:
					b.WriteString(" " + r.resp.Kind)
				}
				b.WriteString(" on " + r.on)
			}
		case "nested":
			b.WriteString("nested path " + sqlvalue.QuoteText(c.Path) + " columns (")
			writeJSONTableColumns(b, c.Columns)
			b.WriteString(")")
		}
	}
}

// jsonTableAt is one JSON_TABLE of the statement: its tokens json_table … ) and the comma after
// its document.
type jsonTableAt struct {
	name, comma, close int
	spec               JSONTableSpec
}

// jsonTableEdits rewrites each JSON_TABLE in a table position (see above). A malformed one is
// left as written: the grammar then refuses it, and jsonTableSyntax says what is wrong.
func (s *source) jsonTableEdits() []textEdit {
	var edits []textEdit
	for i := range s.toks {
		if !s.jsonTableStart(i) {
			continue
		}
		jt, err := s.readJSONTable(i)
		if err != nil {
			continue
		}
		text, _ := json.Marshal(jt.spec)
		name, comma, closing := s.toks[jt.name], s.toks[jt.comma], s.toks[jt.close]
		edits = append(edits,
			textEdit{start: name.start, end: name.end, text: "(SELECT `" + JSONTableCall + "`"},
			textEdit{start: comma.start, end: closing.end, text: ", " + sqlQuote(string(text)) + "))"})
	}
	return edits
}

// jsonTableSyntax is the error of the first malformed JSON_TABLE of the statement, nil if none.
func (s *source) jsonTableSyntax() error {
	for i := range s.toks {
		if s.jsonTableStart(i) {
			if _, err := s.readJSONTable(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonTableStart reports whether token i starts a JSON_TABLE where a table goes.
func (s *source) jsonTableStart(i int) bool {
	if !s.word(i, "json_table") || i == 0 || i+1 >= len(s.toks) || s.toks[i+1].typ != '(' {
		return false
	}
	switch s.toks[i-1].typ {
	case sqlparser.FROM, sqlparser.JOIN, sqlparser.STRAIGHT_JOIN:
		return true
	case ',', '(':
		return s.inFrom(i - 1)
	}
	return false
}

// inFrom reports whether token i (a comma or an opening parenthesis) is in a list of tables: the
// nearest clause keyword before it at its own level — or, out of a parenthesis, at the level
// around it — is FROM, UPDATE (UPDATE t1, JSON_TABLE(…) jt SET …) or USING (DELETE … USING).
func (s *source) inFrom(i int) bool {
	depth := 0
	for k := i - 1; k >= 0; k-- {
		switch t := s.toks[k]; t.typ {
		case ')':
			depth++
		case '(':
			if depth > 0 {
				depth--
			}
		case sqlparser.FROM, sqlparser.UPDATE, sqlparser.USING:
			if depth == 0 {
				return true
			}
		case sqlparser.SELECT, sqlparser.WHERE, sqlparser.GROUP, sqlparser.HAVING, sqlparser.ORDER, sqlparser.LIMIT,
			sqlparser.SET, sqlparser.VALUES, sqlparser.UNION:
			if depth == 0 {
				return false
			}
		}
	}
	return false
}

// jsonTableReader reads the tokens of one JSON_TABLE.
type jsonTableReader struct {
	s   *source
	i   int
	end int // the ) closing JSON_TABLE( (or the COLUMNS list being read)
}

func (r *jsonTableReader) errorf(format string, a ...any) error {
	near := "the end of JSON_TABLE"
	if r.i < r.end {
		near = "'" + cut(r.s.span(r.i, min(r.i+4, r.end))) + "'"
	}
	return fmtErr("JSON_TABLE: "+format+" (near %s); write JSON_TABLE(expr, '$[*]' COLUMNS (name type PATH '$', …)) AS alias", append(a, near)...)
}

func (r *jsonTableReader) word(w string) bool {
	if r.i < r.end && r.s.word(r.i, w) {
		r.i++
		return true
	}
	return false
}

func (r *jsonTableReader) tok(typ int) bool {
	if r.i < r.end && r.s.toks[r.i].typ == typ {
		r.i++
		return true
	}
	return false
}

// str reads a string literal (MySQL's text_literal: adjacent strings are one).
func (r *jsonTableReader) str(what string) (string, error) {
	if r.i >= r.end || r.s.toks[r.i].typ != sqlparser.STRING {
		return "", r.errorf("%s must be a string literal", what)
	}
	var b strings.Builder
	for r.i < r.end && r.s.toks[r.i].typ == sqlparser.STRING {
		b.WriteString(literalValue(r.s.text, r.s.toks[r.i]))
		r.i++
	}
	return b.String(), nil
}

// literalValue is a string literal's value as MySQL reads it: the tokenizer's, except that \% and
// \_ keep their backslash (keepLikeEscapes).
func literalValue(text string, t token) string {
	lit := text[t.start:t.end]
	if !strings.Contains(lit, `\%`) && !strings.Contains(lit, `\_`) {
		return t.raw
	}
	if src, err := lex(keepLikeEscapes(lit)); err == nil && len(src.toks) == 1 {
		return src.toks[0].raw
	}
	return t.raw
}

// readJSONTable reads the JSON_TABLE whose name is token i.
func (s *source) readJSONTable(i int) (*jsonTableAt, error) {
	jt := &jsonTableAt{name: i}
	end := s.closing(i + 1)
	if end >= len(s.toks) {
		return nil, fmtErr("JSON_TABLE( is not closed with )")
	}
	jt.close = end
	// The document: the expression up to the first comma outside parentheses.
	items := topLevelItems(end-(i+2), func(k int) int { return s.toks[i+2+k].typ })
	comma := -1
	if len(items) > 1 {
		comma = i + 2 + items[0][1]
	}
	if comma < 0 || comma == i+2 {
		return nil, fmtErr("JSON_TABLE takes a JSON document, a path and COLUMNS (…): write JSON_TABLE(expr, '$[*]' COLUMNS (name type PATH '$')) AS alias")
	}
	jt.comma = comma
	r := &jsonTableReader{s: s, i: comma + 1, end: end}
	path, err := r.str("the row path of JSON_TABLE")
	if err != nil {
		return nil, err
	}
	jt.spec.Path = path
	if jt.spec.Columns, err = r.columns(); err != nil {
		return nil, err
	}
	if r.i != end {
		return nil, r.errorf("nothing may follow COLUMNS (…) inside JSON_TABLE")
	}
	if end+1 >= len(s.toks) || s.toks[end+1].typ != sqlparser.AS && s.toks[end+1].typ != sqlparser.ID {
		return nil, &JSONTableError{Code: 3667, Message: "Every table function must have an alias: write JSON_TABLE(…) AS jt"}
	}
	return jt, nil
}

// columns reads COLUMNS (column, …).
func (r *jsonTableReader) columns() ([]JSONTableColumn, error) {
	if !r.word("columns") {
		return nil, r.errorf("COLUMNS (…) must follow the path")
	}
	if r.i >= r.end || r.s.toks[r.i].typ != '(' {
		return nil, r.errorf("COLUMNS takes a parenthesised list of columns")
	}
	rparen := r.s.closing(r.i)
	if rparen > r.end {
		return nil, r.errorf("COLUMNS ( is not closed with )")
	}
	outer := r.end
	r.i++
	r.end = rparen
	var cols []JSONTableColumn
	for {
		c, err := r.column()
		if err != nil {
			return nil, err
		}
		cols = append(cols, c)
		if r.tok(',') {
			continue
		}
		if r.i != rparen {
			return nil, r.errorf("a column definition ends with , or )")
		}
		break
	}
	r.i, r.end = rparen+1, outer
	return cols, nil
}

// column reads one column definition.
func (r *jsonTableReader) column() (JSONTableColumn, error) {
	if r.i >= r.end {
		return JSONTableColumn{}, r.errorf("a column definition is expected")
	}
	if r.s.word(r.i, "nested") {
		r.i++
		r.word("path")
		path, err := r.str("the path of NESTED PATH")
		if err != nil {
			return JSONTableColumn{}, err
		}
		cols, err := r.columns()
		if err != nil {
			return JSONTableColumn{}, err
		}
		return JSONTableColumn{Kind: "nested", Path: path, Columns: cols}, nil
	}
	t := r.s.toks[r.i]
	if !isName(t) {
		return JSONTableColumn{}, r.errorf("a column name is expected")
	}
	c := JSONTableColumn{Name: nameOf(r.s.text, t)}
	r.i++
	if r.tok(sqlparser.FOR) {
		if !r.word("ordinality") {
			return c, r.errorf("FOR must be followed by ORDINALITY")
		}
		c.Kind = "ordinality"
		return c, nil
	}
	typ, err := r.dataType()
	if err != nil {
		return c, err
	}
	c.Type = typ
	if r.tok(sqlparser.EXISTS) {
		c.Kind = "exists"
	} else {
		c.Kind = "path"
	}
	if !r.word("path") {
		return c, r.errorf("the type of column %s must be followed by PATH 'path' or EXISTS PATH 'path'", c.Name)
	}
	if c.Path, err = r.str("the path of column " + c.Name); err != nil {
		return c, err
	}
	if c.Kind == "exists" {
		return c, nil
	}
	// [on_empty] [on_error], in this order.
	for _, on := range []string{"empty", "error"} {
		save := r.i
		resp, ok, err := r.response(on)
		if err != nil {
			return c, err
		}
		if !ok {
			r.i = save
			continue
		}
		if on == "empty" {
			c.OnEmpty = resp
		} else {
			c.OnError = resp
		}
	}
	return c, nil
}

// response reads {NULL | ERROR | DEFAULT 'json'} ON on; ok is false when the next tokens are not
// one for on.
func (r *jsonTableReader) response(on string) (*JSONTableResponse, bool, error) {
	var resp JSONTableResponse
	switch {
	case r.tok(sqlparser.NULL):
		resp.Kind = "null"
	case r.word("error"):
		resp.Kind = "error"
	case r.tok(sqlparser.DEFAULT):
		resp.Kind = "default"
		v, err := r.str("the value of DEFAULT")
		if err != nil {
			return nil, false, err
		}
		resp.Default = v
	default:
		return nil, false, nil
	}
	if !r.tok(sqlparser.ON) {
		return nil, false, r.errorf("%s must be followed by ON EMPTY or ON ERROR", strings.ToUpper(resp.Kind))
	}
	if !r.word(on) {
		return nil, false, nil
	}
	return &resp, true, nil
}

// dataType reads a column's type: a name, (n) or (p, s), and the attributes MySQL's grammar takes
// there (UNSIGNED, SIGNED, ZEROFILL, PRECISION, BINARY, CHARACTER SET / CHARSET x, COLLATE x).
func (r *jsonTableReader) dataType() (*JSONTableType, error) {
	start := r.i
	if r.i >= r.end || r.s.toks[r.i].typ == sqlparser.STRING || !isName(r.s.toks[r.i]) {
		return nil, r.errorf("a column type is expected")
	}
	t := &JSONTableType{Name: r.s.toks[r.i].val, Length: -1, Scale: -1}
	if t.Name == "exists" || t.Name == "path" {
		return nil, r.errorf("a column type is expected")
	}
	r.i++
	if t.Name == "double" {
		r.word("precision")
	}
	if r.tok('(') {
		n, ok := r.integer()
		if !ok {
			return nil, r.errorf("the length of %s must be a number", strings.ToUpper(t.Name))
		}
		t.Length = n
		if r.tok(',') {
			if t.Scale, ok = r.integer(); !ok {
				return nil, r.errorf("the scale of %s must be a number", strings.ToUpper(t.Name))
			}
		}
		if !r.tok(')') {
			return nil, r.errorf("the parameters of %s end with )", strings.ToUpper(t.Name))
		}
	}
	for r.i < r.end {
		switch {
		case r.word("unsigned"):
			t.Unsigned = true
		case r.word("signed"), r.word("zerofill"), r.word("binary"):
		case r.word("character"):
			if !r.tok(sqlparser.SET) {
				return nil, r.errorf("CHARACTER must be followed by SET")
			}
			fallthrough
		case r.word("charset"), r.word("collate"):
			if r.i >= r.end || r.s.toks[r.i].typ == sqlparser.STRING || !isName(r.s.toks[r.i]) {
				return nil, r.errorf("a character set or collation name is expected")
			}
			t.Charset = r.s.toks[r.i].val
			r.i++
		default:
			t.Text = strings.ToLower(r.s.span(start, r.i))
			return t, nil
		}
	}
	t.Text = strings.ToLower(r.s.span(start, r.i))
	return t, nil
}

func (r *jsonTableReader) integer() (int, bool) {
	if r.i >= r.end || r.s.toks[r.i].typ != sqlparser.INTEGRAL {
		return 0, false
	}
	var n int
	if _, err := fmt.Sscan(r.s.toks[r.i].val, &n); err != nil || n < 0 {
		return 0, false
	}
	r.i++
	return n, true
}
