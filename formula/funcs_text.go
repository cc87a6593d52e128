package formula

import (
	"math"
	"regexp"
	"strings"
	"unicode/utf8"
)

// maxTextLen bounds the text REPT and CONCATENATE may build, so that one formula cannot exhaust
// memory; longer results are #ERROR!.
const maxTextLen = 1 << 20

// textFunctions are the text functions, one entry each.
var textFunctions = []funcEntry{
	{"CONCATENATE", 1, -1, fnN(func(_ *Env, args []Value) Value {
		var b strings.Builder
		for _, a := range args {
			b.WriteString(TextOf(a))
			if b.Len() > maxTextLen {
				return ErrorValue("CONCATENATE: the result is too long")
			}
		}
		return Text(b.String())
	})},
	{"ENCODE_URL_COMPONENT", 1, 1, fn1(func(_ *Env, a Value) Value { return Text(encodeURIComponent(TextOf(a))) })},
	{"FIND", 2, 3, buildFind("FIND")},
	{"SEARCH", 2, 3, buildFind("SEARCH")},
	{"LEFT", 2, 2, fn2(func(_ *Env, s, n Value) Value {
		count, bad := toCount(n, "LEFT")
		if bad.kind == KindError {
			return bad
		}
		str := TextOf(s)
		return Text(str[:runeOffset(str, count)])
	})},
	{"RIGHT", 2, 2, fn2(func(_ *Env, s, n Value) Value {
		count, bad := toCount(n, "RIGHT")
		if bad.kind == KindError {
			return bad
		}
		str := TextOf(s)
		total := utf8.RuneCountInString(str)
		if count >= total {
			return Text(str)
		}
		return Text(str[runeOffset(str, total-count):])
	})},
	{"MID", 3, 3, fn3(func(_ *Env, s, start, n Value) Value {
		from, bad := toCount(start, "MID")
		if bad.kind == KindError {
			return bad
		}
		count, bad := toCount(n, "MID")
		if bad.kind == KindError {
			return bad
		}
		if from < 1 {
			from = 1
		}
		str := TextOf(s)
		i := runeOffset(str, from-1)
		return Text(str[i : i+runeOffset(str[i:], count)])
	})},
	{"LEN", 1, 1, fn1(func(_ *Env, s Value) Value { return Number(float64(utf8.RuneCountInString(TextOf(s)))) })},
	{"LOWER", 1, 1, fn1(func(_ *Env, s Value) Value { return Text(strings.ToLower(TextOf(s))) })},
	{"UPPER", 1, 1, fn1(func(_ *Env, s Value) Value { return Text(strings.ToUpper(TextOf(s))) })},
	{"TRIM", 1, 1, fn1(func(_ *Env, s Value) Value { return Text(strings.TrimSpace(TextOf(s))) })},
	{"T", 1, 1, fn1(func(_ *Env, v Value) Value {
		if v = scalar(v); v.kind == KindText {
			return v
		}
		return Value{}
	})},
	{"REPLACE", 4, 4, fnN(func(_ *Env, args []Value) Value {
		from, bad := toCount(args[1], "REPLACE")
		if bad.kind == KindError {
			return bad
		}
		count, bad := toCount(args[2], "REPLACE")
		if bad.kind == KindError {
			return bad
		}
		if from < 1 {
			from = 1
		}
		str := TextOf(args[0])
		i := runeOffset(str, from-1)
		j := i + runeOffset(str[i:], count)
		repl := TextOf(args[3])
		if i+len(repl)+len(str)-j > maxTextLen {
			return ErrorValue("REPLACE: the result is too long")
		}
		return Text(str[:i] + repl + str[j:])
	})},
	{"REPT", 2, 2, fn2(func(_ *Env, s, n Value) Value {
		count, bad := toCount(n, "REPT")
		if bad.kind == KindError {
			return bad
		}
		str := TextOf(s)
		if len(str)*count > maxTextLen {
			return ErrorValue("REPT: the result is too long")
		}
		return Text(strings.Repeat(str, count))
	})},
	{"SUBSTITUTE", 3, 4, fnN(func(_ *Env, args []Value) Value {
		str, old, repl := TextOf(args[0]), TextOf(args[1]), TextOf(args[2])
		if old == "" {
			return Text(str)
		}
		idx, given := optional(args, 3)
		if !given {
			if len(str)+strings.Count(str, old)*(len(repl)-len(old)) > maxTextLen {
				return ErrorValue("SUBSTITUTE: the result is too long")
			}
			return Text(strings.ReplaceAll(str, old, repl))
		}
		nth, bad := toCount(idx, "SUBSTITUTE")
		if bad.kind == KindError {
			return bad
		}
		off := 0
		for k := 1; ; k++ {
			i := strings.Index(str[off:], old)
			if i < 0 || nth < 1 {
				return Text(str)
			}
			if k == nth {
				if len(str)+len(repl)-len(old) > maxTextLen {
					return ErrorValue("SUBSTITUTE: the result is too long")
				}
				return Text(str[:off+i] + repl + str[off+i+len(old):])
			}
			off += i + len(old)
		}
	})},
	{"REGEX_MATCH", 2, 2, buildRegex(2, func(re *regexp.Regexp, args []Value) Value {
		return Bool(re.MatchString(TextOf(args[0])))
	})},
	{"REGEX_EXTRACT", 2, 2, buildRegex(2, func(re *regexp.Regexp, args []Value) Value {
		s := TextOf(args[0])
		loc := re.FindStringIndex(s)
		if loc == nil {
			return ErrorValue("REGEX_EXTRACT: no match")
		}
		return Text(s[loc[0]:loc[1]])
	})},
	{"REGEX_REPLACE", 3, 3, buildRegex(2, func(re *regexp.Regexp, args []Value) Value {
		out := replaceJS(re, TextOf(args[0]), TextOf(args[2]))
		if len(out) > maxTextLen {
			return ErrorValue("REGEX_REPLACE: the result is too long")
		}
		return Text(out)
	})},
}

func init() { registerAll(textFunctions) }

// toCount reads a character count or position: a number truncated toward zero, at least 0.
func toCount(v Value, fn string) (int, Value) {
	f, bad := toNumber(v)
	if bad.kind == KindError {
		return 0, bad
	}
	switch {
	case math.IsNaN(f):
		return 0, ErrorValue(fn + ": NaN is not a count")
	case f < 0:
		return 0, ErrorValue(fn + ": negative count")
	case f > maxTextLen:
		return maxTextLen + 1, Value{}
	}
	return int(f), Value{}
}

// runeOffset returns the byte offset of the n-th character of s (len(s) when s is shorter).
func runeOffset(s string, n int) int {
	if n <= 0 {
		return 0
	}
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// findText returns the 1-based character position of needle in hay at or after the character
// position start (values below 1 mean 1), or 0. An empty needle is found at start, as in JavaScript.
func findText(needle, hay string, start int) int {
	off := 0
	if start > 1 {
		off = runeOffset(hay, start-1)
		if off == len(hay) && utf8.RuneCountInString(hay) < start-1 {
			return 0
		}
	}
	i := strings.Index(hay[off:], needle)
	if i < 0 {
		return 0
	}
	return utf8.RuneCountInString(hay[:off+i]) + 1
}

// buildFind builds FIND (0 when not found) and SEARCH (blank when not found); both are
// case-sensitive. FIND('literal', LOWER(x)) with a lower-case literal compiles to a search that
// folds ASCII case on the fly, so that the common case-insensitive filter does not allocate.
func buildFind(name string) builder {
	notFound := Number(0)
	if name == "SEARCH" {
		notFound = Value{}
	}
	result := func(pos int) Value {
		if pos == 0 {
			return notFound
		}
		return Number(float64(pos))
	}
	return func(c *compiler, call *Call, args []evalFn) (evalFn, *Error) {
		if len(args) == 2 {
			lit, isLit := call.Args[0].(*StringLit)
			inner, isCall := call.Args[1].(*Call)
			if isLit && isCall && inner.Name == "LOWER" && len(inner.Args) == 1 && lit.Value == strings.ToLower(lit.Value) {
				hay, err := c.compile(inner.Args[0])
				if err != nil {
					return nil, err
				}
				needle := lit.Value
				return func(rec Record, env *Env) Value {
					h := hay(rec, env)
					if h.kind == KindError {
						return h
					}
					var s string
					if h.kind == KindText {
						s = h.str
					} else {
						s = TextOf(h)
					}
					if isASCII(s) {
						return result(indexFoldASCII(s, needle) + 1)
					}
					return result(findText(needle, strings.ToLower(s), 1))
				}, nil
			}
		}
		what, where := args[0], args[1]
		var from evalFn
		if len(args) == 3 {
			from = args[2]
		}
		return func(rec Record, env *Env) Value {
			n := what(rec, env)
			if n.kind == KindError {
				return n
			}
			h := where(rec, env)
			if h.kind == KindError {
				return h
			}
			start := 1
			if from != nil {
				f, bad := toNumber(from(rec, env))
				if bad.kind == KindError {
					return bad
				}
				if f > 1 && f < math.MaxInt32 {
					start = int(f)
				} else if f >= math.MaxInt32 {
					return notFound
				}
			}
			return result(findText(textNoAlloc(n), textNoAlloc(h), start))
		}, nil
	}
}

// textNoAlloc is TextOf without the conversion for the common case of a text value.
func textNoAlloc(v Value) string {
	if v.kind == KindText {
		return v.str
	}
	return TextOf(v)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// indexFoldASCII returns the byte index of needle in the ASCII string s with s's upper-case letters
// read as lower-case, or -1.
func indexFoldASCII(s, needle string) int {
	n := len(needle)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for ; j < n; j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != needle[j] {
				break
			}
		}
		if j == n {
			return i
		}
	}
	return -1
}

// encodeURIComponent is JavaScript's: everything but A-Z a-z 0-9 - _ . ! ~ * ' ( ) is
// percent-encoded as UTF-8 bytes.
func encodeURIComponent(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// buildRegex builds a REGEX_* function. The pattern (argument patternArg, 1-based) uses RE2 syntax,
// which is Go's and, as Airtable documents, Airtable's. A constant pattern is compiled once; an
// invalid pattern makes the result #ERROR!.
func buildRegex(patternArg int, f func(re *regexp.Regexp, args []Value) Value) builder {
	return func(c *compiler, call *Call, args []evalFn) (evalFn, *Error) {
		compile := textResolver(call.Args[patternArg-1], regexp.Compile)
		inner, _ := fnN(func(_ *Env, vals []Value) Value {
			re, err := compile(TextOf(vals[patternArg-1]))
			if err != nil {
				return ErrorValue("invalid regular expression: " + err.Error())
			}
			return f(re, vals)
		})(c, call, args)
		return inner, nil
	}
}

// replaceJS replaces every match of re in s, expanding repl as JavaScript's String.replace does:
// $$ is $, $& the match, $` and $' the text before and after it, $1..$99 a group, $<name> a named
// group; anything else is literal.
func replaceJS(re *regexp.Regexp, s, repl string) string {
	matches := re.FindAllStringSubmatchIndex(s, -1)
	if matches == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range matches {
		b.WriteString(s[last:m[0]])
		expandJS(&b, re, s, repl, m)
		last = m[1]
		if b.Len() > maxTextLen {
			break
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

func expandJS(b *strings.Builder, re *regexp.Regexp, s, repl string, m []int) {
	group := func(i int) {
		if 2*i+1 < len(m) && m[2*i] >= 0 {
			b.WriteString(s[m[2*i]:m[2*i+1]])
		}
	}
	groups := re.NumSubexp()
	for i := 0; i < len(repl); i++ {
		if b.Len() > maxTextLen {
			return // $` and $' copy the whole text: a long replacement could write gigabytes
		}
		if repl[i] != '$' || i+1 == len(repl) {
			b.WriteByte(repl[i])
			continue
		}
		switch c := repl[i+1]; {
		case c == '$':
			b.WriteByte('$')
			i++
		case c == '&':
			group(0)
			i++
		case c == '`':
			b.WriteString(s[:m[0]])
			i++
		case c == '\'':
			b.WriteString(s[m[1]:])
			i++
		case isDigit(c):
			n := int(c - '0')
			width := 1
			if i+2 < len(repl) && isDigit(repl[i+2]) && n*10+int(repl[i+2]-'0') <= groups {
				n, width = n*10+int(repl[i+2]-'0'), 2
			}
			if n == 0 || n > groups {
				b.WriteByte('$')
				continue
			}
			group(n)
			i += width
		case c == '<':
			end := strings.IndexByte(repl[i:], '>')
			if end < 0 {
				b.WriteByte('$')
				continue
			}
			if idx := re.SubexpIndex(repl[i+2 : i+end]); idx > 0 {
				group(idx)
			}
			i += end
		default:
			b.WriteByte('$')
		}
	}
}
