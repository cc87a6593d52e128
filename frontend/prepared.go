package frontend

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"
)

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
	text
	Kind PreparedKind
	Name string // the prepared statement's name, lower-cased (names are read regardless of case)
	// PREPARE: the statement's text (FROM 'text'), or the user variable holding it (FROM @var,
	// lower-cased, without the @).
	SQL, FromVar string
	Using        []string // EXECUTE … USING: the user variables, lower-cased, without the @
}

// readPrepared reads PREPARE, EXECUTE and DEALLOCATE PREPARE with sqlparser's tokenizer. ok is
// false for any other statement; err describes a malformed one (a *SyntaxError-worthy message,
// returned as an error whose text starts "translate: ").
func (s *source) readPrepared() (cmd *PreparedCommand, err error) {
	query := s.rest(0)
	type tok struct {
		typ int
		val string
	}
	toks := make([]tok, len(s.toks))
	for i, t := range s.toks {
		toks[i] = tok{t.typ, t.raw}
	}
	if len(toks) < 2 {
		return nil, fmtErr("%s: write PREPARE name FROM 'statement', EXECUTE name [USING @a, …] or DEALLOCATE PREPARE name", strings.TrimSpace(query))
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
			return nil, malformed(form)
		}
		cmd := &PreparedCommand{Kind: Prepare, Name: n}
		if toks[3].typ == sqlparser.STRING {
			cmd.SQL = toks[3].val
		} else if v, ok := userVar(3); ok {
			cmd.FromVar = v
		} else {
			return nil, malformed(form)
		}
		return cmd, nil
	case word(0, "execute"):
		const form = "EXECUTE name or EXECUTE name USING @a, @b"
		n, ok := name(1)
		if !ok {
			return nil, malformed(form)
		}
		cmd := &PreparedCommand{Kind: Execute, Name: n}
		if len(toks) == 2 {
			return cmd, nil
		}
		if toks[2].typ != sqlparser.USING {
			return nil, malformed(form)
		}
		for i := 3; ; i += 2 {
			v, ok := userVar(i)
			if !ok {
				return nil, malformed(form + " (EXECUTE takes its values from user variables)")
			}
			cmd.Using = append(cmd.Using, v)
			if i+1 == len(toks) {
				return cmd, nil
			}
			if toks[i+1].typ != ',' {
				return nil, malformed(form)
			}
		}
	case word(0, "deallocate") || toks[0].typ == sqlparser.DROP:
		if !word(1, "prepare") {
			if toks[0].typ == sqlparser.DROP {
				return nil, fmtErr("%s: write DROP PREPARE name", strings.TrimSpace(query))
			}
			return nil, malformed("DEALLOCATE PREPARE name")
		}
		n, ok := name(2)
		if !ok || len(toks) != 3 {
			return nil, malformed("DEALLOCATE PREPARE name or DROP PREPARE name")
		}
		return &PreparedCommand{Kind: Deallocate, Name: n}, nil
	}
	return nil, fmtErr("%s: not a PREPARE, EXECUTE or DEALLOCATE PREPARE statement", strings.TrimSpace(query))
}

// String is the statement in SQL.
func (c *PreparedCommand) String() string {
	name := quoteName(c.Name)
	switch c.Kind {
	case Prepare:
		if c.FromVar != "" {
			return fmt.Sprintf("PREPARE %s FROM %s", name, quoteUserVar(c.FromVar))
		}
		return fmt.Sprintf("PREPARE %s FROM '%s'", name, strings.NewReplacer(`\`, `\\`, "'", "''").Replace(c.SQL))
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

// setAssignEdits rewrites SET @a := 1 as SET @a = 1: MySQL takes both in SET, the grammar only
// '='. The tokenizer read the ':' of ":=" outside strings, names and comments as a token of its
// own (an error token); it is blanked. Anything but a SET is left alone.
func (s *source) setAssignEdits() []textEdit {
	if len(s.toks) == 0 || s.toks[0].typ != sqlparser.SET {
		return nil
	}
	var edits []textEdit
	for i, t := range s.toks {
		if t.typ == sqlparser.LEX_ERROR && t.raw == ":" && i+1 < len(s.toks) && s.toks[i+1].typ == '=' && s.toks[i+1].start == t.end {
			edits = append(edits, textEdit{start: t.start, end: t.end, text: " "})
		}
	}
	return edits
}
