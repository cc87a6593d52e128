package frontend

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Window functions. The pinned grammar reads neither "f(args) OVER (…)" nor "WINDOW w AS (…)", so
// rewriteWindows reads them with the parser's own tokenizer and writes each window call as one
// ordinary call of a backquoted name that the grammar reads, the whole window specification
// inside it, named windows resolved:
//
//	SUM(x) OVER (PARTITION BY g ORDER BY d DESC ROWS 2 PRECEDING)
//	`OVER WINDOW`(SUM(x), `WINDOW SPEC`('', `PARTITION BY`(g), `ORDER BY`(`DESC KEY`(d)),
//	    `ROWS FRAME`(`N PRECEDING`(2), `CURRENT ROW`())), 'SUM(x) OVER (PARTITION BY g …)')
//
// The specification travels in the statement itself (no state on the side), so a statement
// parsed once is planned any number of times, and derived tables and WITH queries carry theirs.
// The planner (window.go) reads the call back; sqlString writes it in its SQL form again.
// WINDOW clauses are removed; each OVER w and OVER (w …) is replaced by the definition it names,
// with MySQL's rules (and error numbers) for what a window may add to the one it names.

// Names of the calls the rewrite writes (spaces keep them apart from any real function).
const (
	WindowCall      = "OVER WINDOW"
	WindowSpecCall  = "WINDOW SPEC"
	WindowPartition = "PARTITION BY"
	WindowOrder     = "ORDER BY"
	WindowDescKey   = "DESC KEY"
	WindowRows      = "ROWS FRAME"
	WindowRange     = "RANGE FRAME"
	BoundUnbPrec    = "UNBOUNDED PRECEDING"
	BoundUnbFoll    = "UNBOUNDED FOLLOWING"
	BoundCurrent    = "CURRENT ROW"
	BoundPreceding  = "N PRECEDING"
	BoundFollowing  = "N FOLLOWING"
)

// WindowError is a misuse of window functions that MySQL refuses with its own error number
// (Code: 3579 unknown window name, 3593 a window function where none may be, …). Match it with
// errors.As; the server sends Code.
type WindowError struct {
	Code    int
	Message string
}

func (e *WindowError) Error() string { return "translate: " + e.Message }

func windowErrorf(code int, format string, args ...any) error {
	return &WindowError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// tokRange is a span of tokens, toks[lo:hi].
type tokRange struct{ lo, hi int }

// windowBound is one end of a frame.
type windowBound struct {
	kind string   // BoundUnbPrec, BoundCurrent, …
	expr tokRange // the offset of N PRECEDING/FOLLOWING
}

// windowSpec is a window specification as written: its parts by token spans.
type windowSpec struct {
	name      string // the WINDOW clause's name, "" for OVER (…)
	ref       string // OVER (w …): the window it starts from
	partition []tokRange
	order     []tokRange
	desc      []bool
	frameUnit string // "", "ROWS" or "RANGE"
	start     windowBound
	end       windowBound
}

// windowCallAt is one "f(args) [modifiers] OVER …" of the statement.
type windowCallAt struct {
	lo, hi int // the tokens replaced: from f to the end of the window
	fnHi   int // the call f(args) is toks[lo:fnHi]
	spec   windowSpec
	block  int // the query block whose WINDOW clause names resolve in
}

// windowRewriter holds one statement's tokens while they are rewritten.
type windowRewriter struct {
	sql    string
	toks   []token
	match  []int // match[i]: the ) closing the ( at i, or the ( opening the ) at i; -1
	block  []int // the query block of each token (see blocks)
	calls  map[int]*windowCallAt
	drop   map[int]int                   // WINDOW clauses removed: first token -> end
	named  map[int]map[string]windowSpec // per query block: its WINDOW clause
	inSpec int                           // > 0 while a specification's expressions are written
}

// rewriteWindows rewrites the window calls and WINDOW clauses of a statement (see above). A
// statement without the word OVER is returned as it is.
func rewriteWindows(sql string) (string, error) {
	src, err := lex(sql)
	if err != nil || len(src.toks) == 0 {
		return sql, nil
	}
	toks := src.toks
	w := &windowRewriter{sql: sql, toks: toks, calls: map[int]*windowCallAt{}, drop: map[int]int{}, named: map[int]map[string]windowSpec{}}
	w.matchParens()
	w.blocks()
	if err := w.windowClauses(); err != nil {
		return "", err
	}
	found := false
	for i, t := range toks {
		if t.typ != sqlparser.ID || t.val != "over" || i == 0 || i+1 >= len(toks) {
			continue
		}
		c, err := w.overCall(i)
		if err != nil {
			return "", err
		}
		if c != nil {
			if prev, dup := w.calls[c.lo]; dup && prev.hi >= c.hi {
				continue
			}
			w.calls[c.lo] = c
			found = true
		}
	}
	if !found && len(w.drop) == 0 {
		return sql, nil
	}
	for _, c := range w.calls {
		if err := w.resolve(&c.spec, c.block, map[string]bool{}); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	b.WriteString(sql[:toks[0].start])
	if err := w.render(&b, 0, len(toks)); err != nil {
		return "", err
	}
	// What follows the last token (a comment, spaces) is kept.
	b.WriteString(sql[toks[len(toks)-1].end:])
	return b.String(), nil
}

func (w *windowRewriter) matchParens() {
	w.match = make([]int, len(w.toks))
	var open []int
	for i, t := range w.toks {
		w.match[i] = -1
		switch t.typ {
		case '(':
			open = append(open, i)
		case ')':
			if n := len(open); n > 0 {
				w.match[open[n-1]], w.match[i] = i, open[n-1]
				open = open[:n-1]
			}
		}
	}
}

// blocks numbers the query blocks: the statement, each parenthesised SELECT, and each branch of a
// UNION; a token belongs to the innermost block around it. A WINDOW clause's names are seen by
// the window calls of its own block only.
func (w *windowRewriter) blocks() {
	w.block = make([]int, len(w.toks))
	next := 0
	stack := []int{0}           // the block of each open parenthesis level
	parenBlock := []bool{false} // whether that level opened a block
	for i, t := range w.toks {
		switch t.typ {
		case '(':
			opens := i+1 < len(w.toks) && w.toks[i+1].typ == sqlparser.SELECT
			cur := stack[len(stack)-1]
			if opens {
				next++
				cur = next
			}
			w.block[i] = stack[len(stack)-1]
			stack = append(stack, cur)
			parenBlock = append(parenBlock, opens)
			continue
		case ')':
			if len(stack) > 1 {
				stack, parenBlock = stack[:len(stack)-1], parenBlock[:len(parenBlock)-1]
			}
		case sqlparser.UNION:
			next++
			stack[len(stack)-1] = next
		}
		w.block[i] = stack[len(stack)-1]
	}
}

// windowClauses reads every "WINDOW name AS (spec) [, name AS (spec)]…" and marks it for removal.
func (w *windowRewriter) windowClauses() error {
	toks := w.toks
	for i := 0; i+3 < len(toks); i++ {
		if toks[i].val != "window" || toks[i+2].typ != sqlparser.AS || toks[i+3].typ != '(' || !isName(toks[i+1]) {
			continue
		}
		blk := w.block[i]
		defs := w.named[blk]
		if defs == nil {
			defs = map[string]windowSpec{}
			w.named[blk] = defs
		}
		k := i + 1
		for {
			if k+2 >= len(toks) || !isName(toks[k]) || toks[k+1].typ != sqlparser.AS || toks[k+2].typ != '(' || w.match[k+2] < 0 {
				return windowErrorf(1064, "WINDOW: name AS (window specification) is expected at position %d", posOf(toks, k, w.sql))
			}
			name := nameOf(w.sql, toks[k])
			spec, err := w.readSpec(k+3, w.match[k+2])
			if err != nil {
				return err
			}
			spec.name = name
			if _, dup := defs[strings.ToLower(name)]; dup {
				return windowErrorf(3591, "Window '%s' is defined twice.", name)
			}
			defs[strings.ToLower(name)] = spec
			k = w.match[k+2] + 1
			if k < len(toks) && toks[k].typ == ',' {
				k++
				continue
			}
			break
		}
		w.drop[i] = k
		i = k - 1
	}
	return nil
}

// isName: an identifier, or a keyword used as one (a window may be named like a keyword MySQL
// does not reserve).
func isName(t token) bool {
	if t.typ == sqlparser.ID {
		return true
	}
	if t.typ < sqlparser.LEX_ERROR || t.val == "" {
		return false
	}
	for _, c := range t.val {
		if !(c >= 'a' && c <= 'z' || c == '_') {
			return false
		}
	}
	return true
}

// nameOf is a name token's text as written, without backquotes.
func nameOf(sql string, t token) string {
	s := sql[t.start:t.end]
	if strings.HasPrefix(s, "`") {
		return strings.ReplaceAll(strings.Trim(s, "`"), "``", "`")
	}
	return s
}

// overCall reads the window call whose OVER is toks[i]; nil when OVER is not one (a column named
// over).
func (w *windowRewriter) overCall(i int) (*windowCallAt, error) {
	toks := w.toks
	// The call's modifiers between ) and OVER: NTH_VALUE's FROM FIRST|LAST, RESPECT|IGNORE NULLS.
	k := i - 1
	for k >= 1 && toks[k].typ != ')' {
		switch v := toks[k].val; {
		case v == "nulls" && (toks[k-1].val == "respect" || toks[k-1].val == "ignore"):
			if toks[k-1].val == "ignore" {
				return nil, windowErrorf(1235, "This version of MySQL doesn't yet support 'IGNORE NULLS': window functions respect NULLs")
			}
			k -= 2
		case (v == "first" || v == "last") && toks[k-1].typ == sqlparser.FROM:
			if v == "last" {
				return nil, windowErrorf(1235, "This version of MySQL doesn't yet support 'FROM LAST': NTH_VALUE counts from the first row of the frame")
			}
			k -= 2
		default:
			return nil, nil
		}
	}
	if k < 1 || toks[k].typ != ')' || w.match[k] < 1 {
		return nil, nil
	}
	open := w.match[k]
	name := open - 1
	if !isName(toks[name]) { // a function name (some are keywords of the grammar: COUNT, IF, …)
		return nil, nil
	}
	c := &windowCallAt{lo: name, fnHi: k + 1, block: w.block[i]}
	switch next := toks[i+1]; {
	case next.typ == '(' && w.match[i+1] > 0:
		spec, err := w.readSpec(i+2, w.match[i+1])
		if err != nil {
			return nil, err
		}
		c.spec, c.hi = spec, w.match[i+1]+1
	case isName(next):
		c.spec, c.hi = windowSpec{ref: nameOf(w.sql, next)}, i+2
	default:
		return nil, nil
	}
	return c, nil
}

// readSpec reads a window specification, toks[lo:hi]:
// [name] [PARTITION BY e, …] [ORDER BY e [ASC|DESC], …] [ROWS|RANGE frame].
func (w *windowRewriter) readSpec(lo, hi int) (windowSpec, error) {
	toks := w.toks
	var s windowSpec
	k := lo
	clause := func(v string) bool { return k < hi && toks[k].val == v }
	if k < hi && isName(toks[k]) && !clause("partition") && !clause("order") && !clause("rows") && !clause("range") {
		s.ref = nameOf(w.sql, toks[k])
		k++
	}
	// list reads comma-separated expressions at this level up to one of the stop words.
	list := func(stops ...string) []tokRange {
		var out []tokRange
		start := k
		for ; k < hi; k++ {
			if toks[k].typ == '(' && w.match[k] > 0 {
				k = w.match[k]
				continue
			}
			if toks[k].typ == ',' {
				out = append(out, tokRange{start, k})
				start = k + 1
				continue
			}
			stop := false
			for _, sw := range stops {
				stop = stop || toks[k].val == sw
			}
			if stop {
				break
			}
		}
		return append(out, tokRange{start, k})
	}
	if clause("partition") {
		if k+1 >= hi || toks[k+1].typ != sqlparser.BY {
			return s, windowErrorf(1064, "PARTITION BY is expected at position %d", posOf(toks, k, w.sql))
		}
		k += 2
		s.partition = list("order", "rows", "range")
	}
	if clause("order") {
		if k+1 >= hi || toks[k+1].typ != sqlparser.BY {
			return s, windowErrorf(1064, "ORDER BY is expected at position %d", posOf(toks, k, w.sql))
		}
		k += 2
		for _, r := range list("rows", "range") {
			desc := false
			if r.hi > r.lo && (toks[r.hi-1].typ == sqlparser.DESC || toks[r.hi-1].typ == sqlparser.ASC) {
				desc = toks[r.hi-1].typ == sqlparser.DESC
				r.hi--
			}
			s.order = append(s.order, r)
			s.desc = append(s.desc, desc)
		}
	}
	if clause("rows") || clause("range") {
		s.frameUnit = strings.ToUpper(toks[k].val)
		k++
		if k < hi && toks[k].typ == sqlparser.BETWEEN {
			and := k + 1
			for and < hi && toks[and].typ != sqlparser.AND {
				and++
			}
			var err error
			if s.start, err = w.readBound(k+1, and); err != nil {
				return s, err
			}
			if s.end, err = w.readBound(and+1, hi); err != nil {
				return s, err
			}
		} else {
			var err error
			if s.start, err = w.readBound(k, hi); err != nil {
				return s, err
			}
			s.end = windowBound{kind: BoundCurrent}
		}
		k = hi
	}
	for _, r := range append(append([]tokRange{}, s.partition...), s.order...) {
		if r.hi <= r.lo {
			return s, windowErrorf(1064, "the window specification lacks an expression at position %d", posOf(toks, r.lo, w.sql))
		}
	}
	if k != hi {
		return s, windowErrorf(1064, "the window specification cannot read %q at position %d: [name] [PARTITION BY …] [ORDER BY …] [ROWS|RANGE …] is expected",
			w.sql[toks[k].start:toks[k].end], posOf(toks, k, w.sql))
	}
	return s, nil
}

// readBound reads a frame bound, toks[lo:hi].
func (w *windowRewriter) readBound(lo, hi int) (windowBound, error) {
	toks := w.toks
	if hi-lo == 2 {
		switch a, b := toks[lo].val, toks[lo+1].val; {
		case a == "unbounded" && b == "preceding":
			return windowBound{kind: BoundUnbPrec}, nil
		case a == "unbounded" && b == "following":
			return windowBound{kind: BoundUnbFoll}, nil
		case a == "current" && b == "row":
			return windowBound{kind: BoundCurrent}, nil
		}
	}
	if hi-lo >= 2 && (toks[hi-1].val == "preceding" || toks[hi-1].val == "following") {
		kind := BoundPreceding
		if toks[hi-1].val == "following" {
			kind = BoundFollowing
		}
		return windowBound{kind: kind, expr: tokRange{lo, hi - 1}}, nil
	}
	at := lo
	if at >= len(toks) {
		at = len(toks) - 1
	}
	return windowBound{}, windowErrorf(1064, "a frame bound (UNBOUNDED PRECEDING, n PRECEDING, CURRENT ROW, n FOLLOWING, UNBOUNDED FOLLOWING) is expected at position %d", posOf(toks, at, w.sql))
}

// resolve replaces a reference to a named window by its definition, with MySQL's rules: the
// named window must exist (3579), a window that adds to another cannot partition (3581), cannot
// reuse one with a frame (3582) and cannot order one already ordered (3583).
func (w *windowRewriter) resolve(s *windowSpec, blk int, seen map[string]bool) error {
	if s.ref == "" {
		return nil
	}
	key := strings.ToLower(s.ref)
	if seen[key] {
		return windowErrorf(3580, "There is a circularity in the window dependency graph.")
	}
	seen[key] = true
	base, ok := w.named[blk][key]
	if !ok {
		return windowErrorf(3579, "Window name '%s' is not defined.", s.ref)
	}
	if err := w.resolve(&base, blk, seen); err != nil {
		return err
	}
	bare := len(s.partition) == 0 && len(s.order) == 0 && s.frameUnit == ""
	switch {
	case bare: // OVER w: the window itself
		name := s.name
		*s = base
		if name != "" {
			s.name = name
		}
		return nil
	case len(s.partition) > 0:
		return windowErrorf(3581, "A window which depends on another cannot define partitioning.")
	case base.frameUnit != "":
		return windowErrorf(3582, "Window '%s' has a frame definition, so cannot be referenced by another window.", base.name)
	case len(s.order) > 0 && len(base.order) > 0:
		name := s.name
		if name == "" {
			name = "<unnamed window>"
		}
		return windowErrorf(3583, "Window '%s' cannot inherit '%s' since both contain an ORDER BY clause.", name, base.name)
	}
	s.partition = base.partition
	if len(s.order) == 0 {
		s.order, s.desc = base.order, base.desc
	}
	s.ref = ""
	return nil
}

// render writes toks[lo:hi] with the window calls replaced and the WINDOW clauses left out.
func (w *windowRewriter) render(b *strings.Builder, lo, hi int) error {
	pos := w.toks[lo].start
	for i := lo; i < hi; i++ {
		if end, ok := w.drop[i]; ok {
			b.WriteString(w.sql[pos:w.toks[i].start])
			i = end - 1
			if end < len(w.toks) {
				pos = w.toks[end].start
			} else {
				pos = w.toks[len(w.toks)-1].end
			}
			continue
		}
		c, ok := w.calls[i]
		if !ok || c.hi > hi {
			continue
		}
		b.WriteString(w.sql[pos:w.toks[i].start])
		if err := w.renderCall(b, c); err != nil {
			return err
		}
		i = c.hi - 1
		pos = w.toks[c.hi-1].end
	}
	if hi > lo && pos < w.toks[hi-1].end {
		b.WriteString(w.sql[pos:w.toks[hi-1].end])
	}
	return nil
}

func (w *windowRewriter) renderCall(b *strings.Builder, c *windowCallAt) error {
	b.WriteString("`" + WindowCall + "`(")
	if err := w.render(b, c.lo, c.fnHi); err != nil {
		return err
	}
	s := c.spec
	name := s.name
	b.WriteString(", `" + WindowSpecCall + "`(" + sqlQuote(name))
	if len(s.partition) > 0 {
		b.WriteString(", `" + WindowPartition + "`(")
		for k, r := range s.partition {
			if k > 0 {
				b.WriteString(", ")
			}
			if err := w.render(b, r.lo, r.hi); err != nil {
				return err
			}
		}
		b.WriteString(")")
	}
	if len(s.order) > 0 {
		b.WriteString(", `" + WindowOrder + "`(")
		for k, r := range s.order {
			if k > 0 {
				b.WriteString(", ")
			}
			if s.desc[k] {
				b.WriteString("`" + WindowDescKey + "`(")
			}
			if err := w.render(b, r.lo, r.hi); err != nil {
				return err
			}
			if s.desc[k] {
				b.WriteString(")")
			}
		}
		b.WriteString(")")
	}
	if s.frameUnit != "" {
		unit := WindowRows
		if s.frameUnit == "RANGE" {
			unit = WindowRange
		}
		b.WriteString(", `" + unit + "`(")
		for k, bound := range []windowBound{s.start, s.end} {
			if k > 0 {
				b.WriteString(", ")
			}
			b.WriteString("`" + bound.kind + "`(")
			if bound.kind == BoundPreceding || bound.kind == BoundFollowing {
				if err := w.render(b, bound.expr.lo, bound.expr.hi); err != nil {
					return err
				}
			}
			b.WriteString(")")
		}
		b.WriteString(")")
	}
	// The call as written, for its column name (MySQL names an unaliased column by its text).
	b.WriteString("), " + sqlQuote(w.sql[w.toks[c.lo].start:w.toks[c.hi-1].end]) + ")")
	return nil
}

// sqlQuote writes s as a string literal.
func sqlQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''") + "'"
}
