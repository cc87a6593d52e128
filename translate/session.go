package translate

import (
	"fmt"
	"strings"
	"time"

	"github.com/xwb1989/sqlparser"
)

// User variables and SQL-level prepared statements.
//
// SET @name = <constant expression> keeps a typed value in the connection's session, and @name
// reads it anywhere a constant may stand (NULL when never set, as in MySQL). PREPARE, EXECUTE …
// USING @a, @b and DEALLOCATE PREPARE let a client without a prepared-statement API — the mariadb
// command-line client, a SQL script — bind values: ParsePrepared reads those statements (sqlparser
// has no grammar for them) and the root package keeps the prepared statements of each connection.

// Limits of one session: MySQL bounds prepared statements too (max_prepared_stmt_count); these
// keep a connection's memory bounded whatever a client sends.
const (
	MaxUserVariables      = 1024
	MaxUserVariableBytes  = 16 << 20 // the text of all of a connection's user variables
	MaxPreparedStatements = 1024
	MaxPreparedBytes      = 16 << 20 // the text of all of a connection's prepared statements
	maxUserVariableName   = 64       // MySQL's limit on a user variable's name
)

// userVar is a user variable's value and its SQL type.
type userVar struct {
	val any
	typ sqlType
}

// UserVariable is the value of @name: nil when it was never set (or set to NULL). Names are read
// regardless of case, as MySQL reads them.
func (sess *Session) UserVariable(name string) any {
	v, _ := sess.userVariable(name)
	return v.val
}

func (sess *Session) userVariable(name string) (userVar, bool) {
	if sess == nil {
		return userVar{typ: typeNull}, false
	}
	key := strings.ToLower(name)
	if v, ok := sess.pendingUser[key]; ok {
		return v, true
	}
	v, ok := sess.user[key]
	if !ok {
		return userVar{typ: typeNull}, false
	}
	return v, true
}

// userValue checks and normalises the value of SET @name = …: MySQL keeps integers, decimals,
// strings and NULL; a boolean is the integer 1 or 0 and JSON its text. Dates and times keep their
// type, so that a variable compared with a date field compares as a date.
func userValue(x *expr) userVar {
	switch v := x.val.(type) {
	case nil:
		return userVar{typ: typeNull}
	case bool:
		return userVar{val: boolInt(v), typ: typeInt}
	case time.Time:
		return userVar{val: v, typ: x.typ}
	}
	if x.typ == typeJSON {
		return userVar{val: x.val, typ: typeText}
	}
	return userVar{val: x.val, typ: x.typ}
}

// setUser checks a user variable's name and records its new value among the pending ones of a SET.
func (sess *Session) setUser(name string, x *expr) error {
	key := strings.ToLower(strings.TrimPrefix(name, "@"))
	if key == "" || len(key) > maxUserVariableName {
		return fmtErr("SET %s: a user variable's name has 1 to %d characters", name, maxUserVariableName)
	}
	if _, exists := sess.user[key]; !exists {
		if _, pending := sess.pendingUser[key]; !pending && len(sess.user)+len(sess.pendingUser) >= MaxUserVariables {
			return fmtErr("SET %s: the connection already has %d user variables (MaxUserVariables): reuse one, or open a new connection", name, MaxUserVariables)
		}
	}
	sess.pendingUser[key] = userValue(x)
	return nil
}

// size is what a value holds in memory beyond its fixed part: a string's bytes.
func (v userVar) size() int {
	if s, ok := v.val.(string); ok {
		return len(s)
	}
	return 0
}

// checkUserBytes refuses a SET whose pending values would take the connection's user variables
// past MaxUserVariableBytes.
func (sess *Session) checkUserBytes() error {
	total := sess.userBytes
	for k, v := range sess.pendingUser {
		total += v.size() - sess.user[k].size()
	}
	if total > MaxUserVariableBytes {
		return fmtErr("SET: the connection's user variables would hold %d bytes of text, more than %d (MaxUserVariableBytes): SET large ones to NULL first", total, MaxUserVariableBytes)
	}
	return nil
}

// compileUserVariable compiles @name: the session's value, a constant for the statement.
func (s *scope) compileUserVariable(name, text string) (*expr, error) {
	v, _ := s.session().userVariable(strings.TrimPrefix(name, "@"))
	return &expr{kind: exConst, typ: v.typ, val: v.val, nullable: v.val == nil, sql: text}, nil
}

// PreparedKind says which statement a PreparedCommand is.
type PreparedKind uint8

const (
	Prepare    PreparedKind = iota + 1 // PREPARE name FROM 'text' | @var
	Execute                            // EXECUTE name [USING @a, @b, …]
	Deallocate                         // DEALLOCATE PREPARE name | DROP PREPARE name
)

func (k PreparedKind) String() string {
	switch k {
	case Prepare:
		return "PREPARE"
	case Execute:
		return "EXECUTE"
	}
	return "DEALLOCATE PREPARE"
}

// PreparedCommand is a PREPARE, EXECUTE or DEALLOCATE PREPARE statement.
type PreparedCommand struct {
	Kind PreparedKind
	Name string // the prepared statement's name, lower-cased (names are read regardless of case)
	// PREPARE: the statement's text (FROM 'text'), or the user variable holding it (FROM @var,
	// lower-cased, without the @).
	Text, FromVar string
	Using         []string // EXECUTE … USING: the user variables, lower-cased, without the @
}

// ParsePrepared reads PREPARE, EXECUTE and DEALLOCATE PREPARE with sqlparser's tokenizer. ok is
// false for any other statement; err describes a malformed one (a *SyntaxError-worthy message,
// returned as an error whose text starts "translate: ").
func ParsePrepared(query string) (cmd *PreparedCommand, ok bool, err error) {
	defer func() {
		if r := recover(); r != nil { // the tokenizer panics on some inputs ("/*!*/")
			cmd, ok, err = nil, false, nil
		}
	}()
	type tok struct {
		typ int
		val string
	}
	tkn := sqlparser.NewStringTokenizer(query)
	var toks []tok
	for {
		typ, val := tkn.Scan()
		if typ == 0 {
			break
		}
		if typ == sqlparser.LEX_ERROR {
			return nil, false, nil
		}
		toks = append(toks, tok{typ, string(val)})
		if len(toks) == 1 && !(typ == sqlparser.ID && (strings.EqualFold(string(val), "prepare") ||
			strings.EqualFold(string(val), "execute") || strings.EqualFold(string(val), "deallocate")) || typ == sqlparser.DROP) {
			return nil, false, nil // the common case: not one of these statements
		}
	}
	if n := len(toks); n > 0 && toks[n-1].typ == ';' {
		toks = toks[:n-1]
	}
	if len(toks) < 2 {
		return nil, false, nil
	}
	word := func(i int, w string) bool {
		return i < len(toks) && toks[i].typ == sqlparser.ID && strings.EqualFold(toks[i].val, w)
	}
	// name reads a statement name at i: an identifier (backquoted or not), or a word sqlparser
	// takes for a keyword (add, status): the position leaves no doubt that it is a name.
	name := func(i int) (string, bool) {
		if i >= len(toks) {
			return "", false
		}
		t := toks[i]
		if t.typ == sqlparser.ID && !strings.HasPrefix(t.val, "@") || t.typ != sqlparser.STRING && isWord(t.val) {
			return strings.ToLower(t.val), true
		}
		return "", false
	}
	userVar := func(i int) (string, bool) {
		if i < len(toks) && toks[i].typ == sqlparser.ID && strings.HasPrefix(toks[i].val, "@") && !strings.HasPrefix(toks[i].val, "@@") && len(toks[i].val) > 1 {
			return strings.ToLower(toks[i].val[1:]), true
		}
		return "", false
	}
	malformed := func(form string) error {
		return fmtErr("%s: write %s", strings.TrimSpace(query), form)
	}
	switch {
	case word(0, "prepare"):
		const form = "PREPARE name FROM 'statement' or PREPARE name FROM @variable"
		n, ok := name(1)
		if !ok || len(toks) != 4 || toks[2].typ != sqlparser.FROM {
			return nil, true, malformed(form)
		}
		cmd := &PreparedCommand{Kind: Prepare, Name: n}
		if toks[3].typ == sqlparser.STRING {
			cmd.Text = toks[3].val
		} else if v, ok := userVar(3); ok {
			cmd.FromVar = v
		} else {
			return nil, true, malformed(form)
		}
		return cmd, true, nil
	case word(0, "execute"):
		const form = "EXECUTE name or EXECUTE name USING @a, @b"
		n, ok := name(1)
		if !ok {
			return nil, true, malformed(form)
		}
		cmd := &PreparedCommand{Kind: Execute, Name: n}
		if len(toks) == 2 {
			return cmd, true, nil
		}
		if toks[2].typ != sqlparser.USING {
			return nil, true, malformed(form)
		}
		for i := 3; ; i += 2 {
			v, ok := userVar(i)
			if !ok {
				return nil, true, malformed(form + " (EXECUTE takes its values from user variables)")
			}
			cmd.Using = append(cmd.Using, v)
			if i+1 == len(toks) {
				return cmd, true, nil
			}
			if toks[i+1].typ != ',' {
				return nil, true, malformed(form)
			}
		}
	case word(0, "deallocate") || toks[0].typ == sqlparser.DROP:
		if !word(1, "prepare") {
			if toks[0].typ == sqlparser.DROP {
				return nil, false, nil // DROP TABLE and the others
			}
			return nil, true, malformed("DEALLOCATE PREPARE name")
		}
		n, ok := name(2)
		if !ok || len(toks) != 3 {
			return nil, true, malformed("DEALLOCATE PREPARE name or DROP PREPARE name")
		}
		return &PreparedCommand{Kind: Deallocate, Name: n}, true, nil
	}
	return nil, false, nil
}

// String is the statement in SQL.
func (c *PreparedCommand) String() string {
	name := quoteName(c.Name)
	switch c.Kind {
	case Prepare:
		if c.FromVar != "" {
			return fmt.Sprintf("PREPARE %s FROM %s", name, quoteUserVar(c.FromVar))
		}
		return fmt.Sprintf("PREPARE %s FROM '%s'", name, strings.NewReplacer(`\`, `\\`, "'", "''").Replace(c.Text))
	case Execute:
		if len(c.Using) == 0 {
			return "EXECUTE " + name
		}
		vars := make([]string, len(c.Using))
		for i, v := range c.Using {
			vars[i] = quoteUserVar(v)
		}
		return "EXECUTE " + name + " USING " + strings.Join(vars, ", ")
	}
	return "DEALLOCATE PREPARE " + name
}

func quoteName(n string) string { return "`" + strings.ReplaceAll(n, "`", "``") + "`" }

// quoteUserVar writes @name.
func quoteUserVar(n string) string { return "@" + n }

// isWord reports a keyword's text: letters, digits and underscores, not starting with a digit.
func isWord(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// rewriteSetAssign rewrites SET @a := 1 as SET @a = 1: MySQL takes both in SET, the grammar only
// '='. The tokenizer finds the ":=" outside strings, names and comments; anything but a SET is
// left alone.
func rewriteSetAssign(sql string) (out string) {
	if !strings.Contains(sql, ":=") {
		return sql
	}
	defer func() {
		if recover() != nil { // the tokenizer panics on some inputs ("/*!*/"): leave those to Parse
			out = sql
		}
	}()
	tkn := sqlparser.NewStringTokenizer(sql)
	var colons []int // byte offsets of the ':' of each ":="
	first := true
	for {
		start := tkn.Position
		typ, val := tkn.Scan()
		if typ == 0 {
			break
		}
		if first {
			if typ != sqlparser.SET {
				return sql
			}
			first = false
		}
		if typ == sqlparser.LEX_ERROR && string(val) == ":" {
			// The ':' is the last one the tokenizer read in this token's span (which starts
			// with what it skipped: blanks, comments); '=' must follow it at once.
			at := -1
			for i := min(tkn.Position, len(sql)-1) - 1; i >= max(start-1, 0); i-- {
				if sql[i] == ':' {
					at = i
					break
				}
			}
			if at < 0 || sql[at+1] != '=' {
				return sql
			}
			colons = append(colons, at)
		}
	}
	if len(colons) == 0 {
		return sql
	}
	b := []byte(sql)
	for _, at := range colons {
		b[at] = ' '
	}
	return string(b)
}
