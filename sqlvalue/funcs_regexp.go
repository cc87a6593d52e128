package sqlvalue

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Regular expressions (MySQL 8 manual, 14.8.2): REGEXP, RLIKE, NOT REGEXP, REGEXP_LIKE,
// REGEXP_REPLACE, REGEXP_SUBSTR and REGEXP_INSTR. MySQL runs ICU's regular expressions; the driver
// runs Go's (RE2), whose syntax is ICU's for everything reports use (classes, [[:alpha:]],
// anchors, alternation, repetition, groups, \d \w \s, (?i)). What RE2 lacks — backreferences,
// lookahead and lookbehind, possessive quantifiers — is an error naming the pattern, never a
// different match; README's deliberate differences list the rest. Matching is case-sensitive by
// default, as the driver's text comparisons are (MySQL with a _bin collation); the match_type
// argument takes MySQL's letters c, i, m, n and u. Positions count characters from 1.

// RuntimeError is an error MySQL also raises while it runs a statement, for a row's values: an
// invalid regular expression read from a column, a search position out of the text's bounds.
type RuntimeError struct{ Msg string }

func (e *RuntimeError) Error() string { return "translate: " + e.Msg }

func runtimeErrorf(format string, a ...any) error {
	return &RuntimeError{Msg: fmt.Sprintf(format, a...)}
}

// regexpMatcher is a compiled pattern, kept in the call's val when the pattern and match_type are
// constants, so that it is compiled once.
type regexpMatcher struct{ re *regexp.Regexp }

// compileRegexp compiles a MySQL pattern with its match_type letters.
func compileRegexp(pattern, matchType string) (*regexp.Regexp, error) {
	if pattern == "" {
		// MySQL: "Illegal argument to a regular expression."
		return nil, runtimeErrorf("the regular expression is empty: MySQL refuses an empty pattern; write one that matches something")
	}
	caseless, multiline, dotAll := false, false, false
	for _, c := range matchType {
		switch c {
		case 'c':
			caseless = false
		case 'i':
			caseless = true
		case 'm':
			multiline = true
		case 'n':
			dotAll = true
		case 'u': // Unix line endings: Go's regexp knows only \n
		default:
			return nil, runtimeErrorf("the regular expression match type %q: %q is not one of MySQL's c, i, m, n, u", matchType, c)
		}
	}
	flags := ""
	if caseless {
		flags += "i"
	}
	if multiline {
		flags += "m"
	}
	if dotAll {
		flags += "s"
	}
	if flags != "" {
		pattern = "(?" + flags + ")" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, runtimeErrorf("the regular expression %q: %v (the driver runs Go's RE2 syntax: no backreferences, lookahead or lookbehind)", pattern, err)
	}
	return re, nil
}

// regexpType types a function of the family: the pattern (argument 1) and the match type (argument
// matchArg, when given) compiled once when they are constants.
func regexpType(result Type, matchArg int) func(fc *Check) (Type, error) {
	return func(fc *Check) (Type, error) {
		pat := fc.Args[1]
		pattern, ok := pat.Value.(string)
		if !pat.Const || pat.Type == Null {
			return result, nil
		}
		if !ok {
			pattern = pat.Text(pat.Value)
		}
		matchType := ""
		if matchArg < len(fc.Args) {
			m := fc.Args[matchArg]
			if !m.Const {
				return result, nil
			}
			if m.Value == nil {
				return result, nil
			}
			matchType = m.Text(m.Value)
		}
		re, err := compileRegexp(pattern, matchType)
		if err != nil {
			return 0, fmt.Errorf("%w (in %s)", err, fc.SQL)
		}
		fc.Param = regexpMatcher{re: re}
		return result, nil
	}
}

// regexpOf is the call's pattern: compiled at translation, or now from the row's values.
func regexpOf(e *Call, v []any, matchArg int) (*regexp.Regexp, error) {
	if m, ok := e.Param.(regexpMatcher); ok {
		return m.re, nil
	}
	matchType := ""
	if matchArg < len(v) {
		matchType = textArg(e, v, matchArg)
	}
	return compileRegexp(textArg(e, v, 1), matchType)
}

// runeOffset is the byte offset of character pos (1-based) of s; ok is false past one after the end.
func runeOffset(s string, pos int64) (int, bool) {
	if pos < 1 {
		return 0, false
	}
	off := 0
	for i := int64(1); i < pos; i++ {
		if off >= len(s) {
			return 0, false
		}
		_, size := utf8.DecodeRuneInString(s[off:])
		off += size
	}
	return off, true
}

// regexpStart reads the optional position argument: the byte offset where the search starts.
func regexpStart(e *Call, v []any, i int, s string) (int, error) {
	if i >= len(v) {
		return 0, nil
	}
	pos := ToInt(v[i])
	off, ok := runeOffset(s, pos)
	if !ok {
		return 0, runtimeErrorf("%s: the position %d is out of the text's bounds (1 to %d), which MySQL refuses (Index out of bounds in regular expression search)",
			e.SQL, pos, utf8.RuneCountInString(s)+1)
	}
	return off, nil
}

// regexpOccurrence reads the optional occurrence argument (1 when absent; below 1 reads as 1).
func regexpOccurrence(v []any, i int) int64 {
	if i >= len(v) {
		return 1
	}
	return max(ToInt(v[i]), 1)
}

// nthMatch is the byte span of the n-th match (1-based) of re in s at or after off; nil when none.
// Matches do not overlap, and ^ anchors at off only (one search, as ICU's).
func nthMatch(re *regexp.Regexp, s string, off int, n int64) []int {
	all := re.FindAllStringIndex(s[off:], int(min(n, 1<<20)))
	if int64(len(all)) < n {
		return nil
	}
	m := all[n-1]
	return []int{m[0] + off, m[1] + off}
}

// regexpSearch is the search of REGEXP_INSTR and REGEXP_SUBSTR (expr, pat[, pos[, occurrence …]]):
// the text and the byte span of the match asked for (nil when none).
func regexpSearch(e *Call, v []any, matchArg int) (string, []int, error) {
	re, err := regexpOf(e, v, matchArg)
	if err != nil {
		return "", nil, err
	}
	s := textArg(e, v, 0)
	off, err := regexpStart(e, v, 2, s)
	if err != nil {
		return "", nil, err
	}
	return s, nthMatch(re, s, off, regexpOccurrence(v, 3)), nil
}

// expandReplacement writes ICU's replacement text: $n is group n, \c is the character c.
func expandReplacement(b *strings.Builder, repl, s string, groups []int) {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		switch {
		case c == '\\' && i+1 < len(repl):
			i++
			b.WriteByte(repl[i])
		case c == '$' && i+1 < len(repl) && repl[i+1] >= '0' && repl[i+1] <= '9':
			// ICU takes as many digits as still name a group.
			n, j := int(repl[i+1]-'0'), i+2
			for j < len(repl) && repl[j] >= '0' && repl[j] <= '9' && (n*10+int(repl[j]-'0'))*2 < len(groups) {
				n, j = n*10+int(repl[j]-'0'), j+1
			}
			if 2*n+1 < len(groups) && groups[2*n] >= 0 {
				b.WriteString(s[groups[2*n]:groups[2*n+1]])
			}
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
}

// regexpFuncs is this file's part of the function table (funcTable), by name.
var regexpFuncs = map[string]*Func{
	"REGEXP_LIKE": {Min: 2, Max: 3, Type: regexpType(Cond, 2), Eval: func(e *Call, v []any) any {
		re, err := regexpOf(e, v, 2)
		if err != nil {
			return err
		}
		return re.MatchString(textArg(e, v, 0))
	}},
	"REGEXP_INSTR": {Min: 2, Max: 6, Type: regexpType(Int, 5), Eval: func(e *Call, v []any) any {
		s, m, err := regexpSearch(e, v, 5)
		if err != nil {
			return err
		}
		if m == nil {
			return int64(0)
		}
		at := m[0]
		if len(v) > 4 && ToInt(v[4]) == 1 {
			at = m[1] // return_option 1: the position after the match
		} else if len(v) > 4 && ToInt(v[4]) != 0 {
			return runtimeErrorf("%s: the return option must be 0 or 1, as in MySQL", e.SQL)
		}
		return int64(utf8.RuneCountInString(s[:at]) + 1)
	}},
	"REGEXP_SUBSTR": {Min: 2, Max: 5, Type: regexpType(Text, 4), MayBeNull: true, Eval: func(e *Call, v []any) any {
		s, m, err := regexpSearch(e, v, 4)
		if err != nil {
			return err
		}
		if m == nil {
			return nil // MySQL 8: no match is NULL
		}
		return s[m[0]:m[1]]
	}},
	"REGEXP_REPLACE": {Min: 3, Max: 6, Type: regexpType(Text, 5), Eval: func(e *Call, v []any) any {
		re, err := regexpOf(e, v, 5)
		if err != nil {
			return err
		}
		s, repl := textArg(e, v, 0), textArg(e, v, 2)
		off, err := regexpStart(e, v, 3, s)
		if err != nil {
			return err
		}
		occurrence := int64(0) // every match
		if len(v) > 4 {
			occurrence = max(ToInt(v[4]), 0)
		}
		// One search over the text from the position on (so that ^ anchors once), as ICU's
		// replace: matches do not overlap, an empty match next to the previous one is skipped.
		var b strings.Builder
		b.WriteString(s[:off])
		rest := s[off:]
		done := 0
		for k, m := range re.FindAllStringSubmatchIndex(rest, -1) {
			if occurrence != 0 && int64(k+1) != occurrence {
				continue
			}
			b.WriteString(rest[done:m[0]])
			expandReplacement(&b, repl, rest, m)
			done = m[1]
			if occurrence != 0 {
				break
			}
		}
		b.WriteString(rest[done:])
		return b.String()
	}},
}
