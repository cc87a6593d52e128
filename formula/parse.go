package formula

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is a formula that cannot be compiled: a syntax error, an unknown field or function, or a
// call with the wrong number of arguments. Msg is worded like the service's detail in its
// INVALID_FILTER_BY_FORMULA error ("Unknown field names: a, b"); Pos is the byte offset in the
// source where the problem starts, and Error() names both.
type Error struct {
	Pos int
	Msg string
}

// Error returns Msg followed by the byte position.
func (e *Error) Error() string {
	return fmt.Sprintf("%s (at byte %d of the formula)", e.Msg, e.Pos)
}

// syntaxError words a syntax error as the service does, then says what exactly was wrong.
func syntaxError(pos int, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: "Invalid formula. Please check your formula text: " + fmt.Sprintf(format, args...)}
}

// Node is a parsed formula expression: *NumberLit, *StringLit, *Reference, *Call, *Unary or *Binary.
// String writes it back as formula text, fully parenthesized, that parses to the same tree.
type Node interface {
	Pos() int // byte offset of the node's first character in the source
	String() string
}

// NumberLit is a number literal such as 3 or 3.5.
type NumberLit struct {
	At    int
	Value float64
}

// StringLit is a string literal, single- or double-quoted, with escapes resolved.
type StringLit struct {
	At    int
	Value string
}

// Reference is a field reference: {Field Name}, a field id, or a bare one-word name.
type Reference struct {
	At     int
	Name   string
	Braced bool
}

// Call is a function call; Name is upper-cased.
type Call struct {
	At   int
	Name string
	Args []Node
}

// Unary is unary minus.
type Unary struct {
	At int
	Op string
	X  Node
}

// Binary is an operator: + - * / & = != < > <= >=.
type Binary struct {
	At   int // the operator's offset
	Op   string
	L, R Node
}

// The Pos and String methods implement Node.

func (n *NumberLit) Pos() int { return n.At }
func (n *StringLit) Pos() int { return n.At }
func (n *Reference) Pos() int { return n.At }
func (n *Call) Pos() int      { return n.At }
func (n *Unary) Pos() int     { return n.At }
func (n *Binary) Pos() int    { return n.L.Pos() }

func (n *NumberLit) String() string { return numberText(n.Value) }
func (n *StringLit) String() string { return Quote(n.Value) }
func (n *Reference) String() string { return "{" + escapeBraced(n.Name) + "}" }
func (n *Call) String() string {
	args := make([]string, len(n.Args))
	for i, a := range n.Args {
		args[i] = a.String()
	}
	return n.Name + "(" + strings.Join(args, ", ") + ")"
}
func (n *Unary) String() string  { return "(" + n.Op + n.X.String() + ")" }
func (n *Binary) String() string { return "(" + n.L.String() + " " + n.Op + " " + n.R.String() + ")" }

type tokenKind uint8

const (
	tokEOF tokenKind = iota
	tokNumber
	tokString
	tokField // {...}
	tokIdent // bare word
	tokOp    // operators, parentheses, comma
)

type token struct {
	kind tokenKind
	pos  int
	text string // operator text, identifier, or resolved string/field content
	num  float64
}

// lexer splits a formula into tokens. Whitespace (including newlines) separates tokens.
type lexer struct {
	src string
	pos int
}

func (l *lexer) next() (token, *Error) {
	for l.pos < len(l.src) {
		r, size := utf8.DecodeRuneInString(l.src[l.pos:])
		if !unicode.IsSpace(r) {
			break
		}
		l.pos += size
	}
	start := l.pos
	if l.pos >= len(l.src) {
		return token{kind: tokEOF, pos: start}, nil
	}
	c := l.src[l.pos]
	switch {
	case c >= '0' && c <= '9' || c == '.' && l.pos+1 < len(l.src) && isDigit(l.src[l.pos+1]):
		return l.number()
	case c == '\'' || c == '"':
		s, err := l.quoted(c, "string literal")
		return token{kind: tokString, pos: start, text: s}, err
	case c == '{':
		s, err := l.quoted('}', "field reference")
		if err == nil && s == "" {
			err = syntaxError(start, "empty field reference {}")
		}
		return token{kind: tokField, pos: start, text: s}, err
	}
	for _, op := range [...]string{"!=", "<=", ">=", "+", "-", "*", "/", "&", "=", "<", ">", "(", ")", ","} {
		if strings.HasPrefix(l.src[l.pos:], op) {
			l.pos += len(op)
			return token{kind: tokOp, pos: start, text: op}, nil
		}
	}
	for l.pos < len(l.src) {
		r, size := utf8.DecodeRuneInString(l.src[l.pos:])
		if !isWordRune(r) || r == utf8.RuneError && size == 1 {
			break
		}
		l.pos += size
	}
	if l.pos == start {
		r, _ := utf8.DecodeRuneInString(l.src[start:])
		return token{}, syntaxError(start, "unexpected character %q", r)
	}
	return token{kind: tokIdent, pos: start, text: l.src[start:l.pos]}, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isWordRune reports whether r can be part of a bare name or function name.
func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// number reads 12, 1.5, .5 and 1e3 (scientific notation is accepted, see the package doc).
func (l *lexer) number() (token, *Error) {
	start := l.pos
	for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
		l.pos++
	}
	if l.pos < len(l.src) && l.src[l.pos] == '.' {
		l.pos++
		for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
			l.pos++
		}
	}
	if l.pos < len(l.src) && (l.src[l.pos] == 'e' || l.src[l.pos] == 'E') {
		p := l.pos + 1
		if p < len(l.src) && (l.src[p] == '+' || l.src[p] == '-') {
			p++
		}
		if p < len(l.src) && isDigit(l.src[p]) {
			for p < len(l.src) && isDigit(l.src[p]) {
				p++
			}
			l.pos = p
		}
	}
	if l.pos < len(l.src) {
		if r, _ := utf8.DecodeRuneInString(l.src[l.pos:]); isWordRune(r) {
			return token{}, syntaxError(start, "a number runs into a name: %q", l.src[start:l.pos+utf8.RuneLen(r)])
		}
	}
	f, err := strconv.ParseFloat(l.src[start:l.pos], 64)
	if err != nil {
		return token{}, syntaxError(start, "number %q out of range", l.src[start:l.pos])
	}
	return token{kind: tokNumber, pos: start, num: f}, nil
}

// quoted reads from an opening character (the current byte) to the closing byte end, resolving
// backslash escapes: \n \t \r stand for newline, tab and carriage return, and any other \x for x.
func (l *lexer) quoted(end byte, what string) (string, *Error) {
	start := l.pos
	l.pos++
	var b strings.Builder
	plain := l.pos // start of the run not yet copied
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == end:
			s := l.src[plain:l.pos]
			if b.Len() > 0 {
				b.WriteString(s)
				s = b.String()
			}
			l.pos++
			return s, nil
		case c == '\\':
			if l.pos+1 >= len(l.src) {
				return "", syntaxError(start, "unterminated %s", what)
			}
			b.WriteString(l.src[plain:l.pos])
			switch e := l.src[l.pos+1]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(e)
			}
			l.pos += 2
			plain = l.pos
		default:
			l.pos++
		}
	}
	return "", syntaxError(start, "unterminated %s", what)
}

// parser is a recursive-descent parser over the lexer's tokens, one token of look-ahead.
//
// Precedence, lowest first: comparisons (= != < > <= >=), &, + and -, * and /, unary minus;
// all binary operators are left-associative.
type parser struct {
	lex   lexer
	tok   token
	depth int
}

// maxDepth bounds nesting, and maxChain the operators of one chain (a+b+c...), so that hostile
// input cannot exhaust the stack.
const (
	maxDepth = 200
	maxChain = 10000
)

// Parse parses a formula and returns its syntax tree. It checks syntax only: field names, function
// names and argument counts are checked by Compile.
func Parse(src string) (Node, error) {
	n, err := parse(src)
	if err != nil {
		return nil, err
	}
	return n, nil
}

func parse(src string) (Node, *Error) {
	p := &parser{lex: lexer{src: src}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind == tokEOF {
		return nil, syntaxError(0, "the formula is empty")
	}
	n, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tokEOF {
		return nil, syntaxError(p.tok.pos, "unexpected %s after the end of the expression", p.describe())
	}
	return n, nil
}

func (p *parser) advance() *Error {
	t, err := p.lex.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) describe() string {
	switch p.tok.kind {
	case tokEOF:
		return "end of formula"
	case tokNumber:
		return "number " + p.lex.src[p.tok.pos:p.lex.pos]
	case tokString:
		return "string " + Quote(p.tok.text)
	case tokField:
		return "field reference " + p.lex.src[p.tok.pos:p.lex.pos]
	case tokIdent:
		return "name " + p.tok.text
	}
	return strconv.Quote(p.tok.text)
}

// binaryLevels lists the binary operators by precedence level, lowest first.
var binaryLevels = [...][]string{
	{"=", "!=", "<", ">", "<=", ">="},
	{"&"},
	{"+", "-"},
	{"*", "/"},
}

func (p *parser) expr(level int) (Node, *Error) {
	if level == len(binaryLevels) {
		return p.unary()
	}
	left, err := p.expr(level + 1)
	if err != nil {
		return nil, err
	}
	chain := 0
	for p.tok.kind == tokOp && isOneOf(p.tok.text, binaryLevels[level]) {
		op := p.tok
		// A chain a+b+c+... is a left-deep tree that compiling and evaluating walk recursively.
		if chain++; chain > maxChain {
			return nil, syntaxError(op.pos, "more than %d operators in a row", maxChain)
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		right, err := p.expr(level + 1)
		if err != nil {
			return nil, err
		}
		left = &Binary{At: op.pos, Op: op.text, L: left, R: right}
	}
	return left, nil
}

func isOneOf(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

func (p *parser) unary() (Node, *Error) {
	if p.tok.kind == tokOp && p.tok.text == "-" {
		at := p.tok.pos
		if err := p.enter(at); err != nil {
			return nil, err
		}
		defer p.leave()
		if err := p.advance(); err != nil {
			return nil, err
		}
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &Unary{At: at, Op: "-", X: x}, nil
	}
	return p.primary()
}

func (p *parser) enter(pos int) *Error {
	p.depth++
	if p.depth > maxDepth {
		return syntaxError(pos, "the formula is nested more than %d levels deep", maxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) primary() (Node, *Error) {
	t := p.tok
	switch t.kind {
	case tokNumber:
		return &NumberLit{At: t.pos, Value: t.num}, p.advance()
	case tokString:
		return &StringLit{At: t.pos, Value: t.text}, p.advance()
	case tokField:
		return &Reference{At: t.pos, Name: t.text, Braced: true}, p.advance()
	case tokIdent:
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.tok.kind == tokOp && p.tok.text == "(" {
			return p.call(t)
		}
		return &Reference{At: t.pos, Name: t.text}, nil
	case tokOp:
		if t.text == "(" {
			if err := p.enter(t.pos); err != nil {
				return nil, err
			}
			defer p.leave()
			if err := p.advance(); err != nil {
				return nil, err
			}
			n, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			if p.tok.kind != tokOp || p.tok.text != ")" {
				return nil, syntaxError(p.tok.pos, "expected ) to close the ( at byte %d, found %s", t.pos, p.describe())
			}
			return n, p.advance()
		}
	}
	return nil, syntaxError(t.pos, "expected a value, found %s", p.describe())
}

// call parses the arguments of a function call; the current token is its "(".
func (p *parser) call(name token) (Node, *Error) {
	if err := p.enter(name.pos); err != nil {
		return nil, err
	}
	defer p.leave()
	c := &Call{At: name.pos, Name: strings.ToUpper(name.text)}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind == tokOp && p.tok.text == ")" {
		return c, p.advance()
	}
	for {
		arg, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, arg)
		if p.tok.kind == tokOp && p.tok.text == "," {
			if err := p.advance(); err != nil {
				return nil, err
			}
			continue
		}
		if p.tok.kind == tokOp && p.tok.text == ")" {
			return c, p.advance()
		}
		return nil, syntaxError(p.tok.pos, "expected , or ) in the arguments of %s, found %s", c.Name, p.describe())
	}
}
