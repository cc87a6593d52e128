package sqlvalue

import (
	"math"
	"strings"
	"unicode/utf8"
)

// String functions (MySQL 8 manual, 14.8 "String Functions and Operators"). Arguments of any type
// are read as text (a number as its digits, a date as 2006-01-02); positions and lengths count
// characters, except LENGTH, which counts bytes of UTF-8. Text compares case-sensitively (the
// driver's _bin collation), so REPLACE, LOCATE, INSTR and FIND_IN_SET match case.

// stringFuncs is this file's part of the function table (funcTable), by name.
var stringFuncs = map[string]*Func{
	"CONCAT": {Min: 1, Max: -1, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		var b strings.Builder
		for i := range v {
			b.WriteString(textArg(e, v, i))
		}
		return b.String()
	}},
	"CONCAT_WS": {Min: 2, Max: -1, Type: typeOf(Text), NullArgs: true, Eval: func(e *Call, v []any) any {
		if v[0] == nil {
			return nil
		}
		sep := textArg(e, v, 0)
		var b strings.Builder
		first := true
		for i := 1; i < len(v); i++ {
			if v[i] == nil {
				continue // CONCAT_WS skips NULL values after the separator
			}
			if !first {
				b.WriteString(sep)
			}
			first = false
			b.WriteString(textArg(e, v, i))
		}
		return b.String()
	}},
	"LENGTH": {Min: 1, Max: 1, Type: typeOf(Int), Eval: func(e *Call, v []any) any {
		return int64(len(textArg(e, v, 0)))
	}},
	"CHAR_LENGTH": {Min: 1, Max: 1, Type: typeOf(Int), Eval: func(e *Call, v []any) any {
		return int64(utf8.RuneCountInString(textArg(e, v, 0)))
	}},
	"LOWER": {Min: 1, Max: 1, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		return strings.ToLower(textArg(e, v, 0))
	}},
	"UPPER": {Min: 1, Max: 1, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		return strings.ToUpper(textArg(e, v, 0))
	}},
	// TRIM, LTRIM and RTRIM remove spaces only (not tabs or newlines), as MySQL does.
	"TRIM": {Min: 1, Max: 1, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		return strings.Trim(textArg(e, v, 0), " ")
	}},
	"LTRIM": {Min: 1, Max: 1, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		return strings.TrimLeft(textArg(e, v, 0), " ")
	}},
	"RTRIM": {Min: 1, Max: 1, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		return strings.TrimRight(textArg(e, v, 0), " ")
	}},
	// TRIM([BOTH | LEADING | TRAILING] [remstr] FROM str)
	"TRIM BOTH":     trimSide("BOTH"),
	"TRIM LEADING":  trimSide("LEADING"),
	"TRIM TRAILING": trimSide("TRAILING"),
	"SUBSTRING": {Min: 2, Max: 3, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		return substring(textArg(e, v, 0), v[1:])
	}},
	"LEFT": {Min: 2, Max: 2, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		r := []rune(textArg(e, v, 0))
		n := ToInt(v[1])
		if n <= 0 {
			return ""
		}
		if n < int64(len(r)) {
			r = r[:n]
		}
		return string(r)
	}},
	"RIGHT": {Min: 2, Max: 2, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		r := []rune(textArg(e, v, 0))
		n := ToInt(v[1])
		if n <= 0 {
			return ""
		}
		if n < int64(len(r)) {
			r = r[int64(len(r))-n:]
		}
		return string(r)
	}},
	"REPLACE": {Min: 3, Max: 3, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		s, from := textArg(e, v, 0), textArg(e, v, 1)
		if from == "" {
			return s
		}
		return strings.ReplaceAll(s, from, textArg(e, v, 2))
	}},
	"LOCATE": {Min: 2, Max: 3, Type: typeOf(Int), Eval: func(e *Call, v []any) any {
		start := int64(1)
		if len(v) == 3 {
			start = ToInt(v[2])
		}
		return locate(textArg(e, v, 0), textArg(e, v, 1), start)
	}},
	"INSTR": {Min: 2, Max: 2, Type: typeOf(Int), Eval: func(e *Call, v []any) any {
		return locate(textArg(e, v, 1), textArg(e, v, 0), 1)
	}},
	"LPAD": {Min: 3, Max: 3, Type: typeOf(Text), MayBeNull: true, Eval: func(e *Call, v []any) any {
		return pad(textArg(e, v, 0), ToInt(v[1]), textArg(e, v, 2), true)
	}},
	"RPAD": {Min: 3, Max: 3, Type: typeOf(Text), MayBeNull: true, Eval: func(e *Call, v []any) any {
		return pad(textArg(e, v, 0), ToInt(v[1]), textArg(e, v, 2), false)
	}},
	"REPEAT": {Min: 2, Max: 2, Type: typeOf(Text), MayBeNull: true, Eval: func(e *Call, v []any) any {
		s, n := textArg(e, v, 0), ToInt(v[1])
		if n <= 0 || s == "" {
			return ""
		}
		if n > maxStringResult/int64(len(s)) {
			return nil
		}
		return strings.Repeat(s, int(n))
	}},
	"REVERSE": {Min: 1, Max: 1, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		r := []rune(textArg(e, v, 0))
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return string(r)
	}},
	"FIND_IN_SET": {Min: 2, Max: 2, Type: typeOf(Int), Eval: func(e *Call, v []any) any {
		s, list := textArg(e, v, 0), textArg(e, v, 1)
		if strings.Contains(s, ",") || list == "" {
			return int64(0) // MySQL: a needle with a comma is never found
		}
		for i, item := range strings.Split(list, ",") {
			if item == s {
				return int64(i + 1)
			}
		}
		return int64(0)
	}},
	"SUBSTRING_INDEX": {Min: 3, Max: 3, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		return substringIndex(textArg(e, v, 0), textArg(e, v, 1), ToInt(v[2]))
	}},
	// FIELD(s, s1, s2, …): the position of s among the others, 0 when absent or NULL. All text
	// compares as text (case-sensitively), all numbers as numbers, any other mix as DOUBLE, as MySQL.
	"FIELD": {Min: 2, Max: -1, Type: typeOf(Int), NullArgs: true,
		Nullable: func([]Arg) bool { return false }, Eval: func(e *Call, v []any) any {
			if v[0] == nil {
				return int64(0)
			}
			asText, asNumber := true, true
			for _, a := range e.Args {
				asText = asText && (a.Type == Text || a.Type.Temporal() || a.Type == JSON || a.Type == Null)
				asNumber = asNumber && (a.Type.Numeric() || a.Type == Null)
			}
			for i := 1; i < len(v); i++ {
				if v[i] == nil {
					continue
				}
				var same bool
				switch {
				case asText:
					same = textArg(e, v, 0) == textArg(e, v, i)
				case asNumber:
					same = Compare(v[0], v[i]) == 0
				default:
					a, _ := ToFloat(v[0])
					b, _ := ToFloat(v[i])
					same = a == b
				}
				if same {
					return int64(i)
				}
			}
			return int64(0)
		}},
	// ELT(n, s1, s2, …): sn as text; NULL when n is NULL or names no argument.
	"ELT": {Min: 2, Max: -1, Type: typeOf(Text), NullArgs: true, MayBeNull: true, Eval: func(e *Call, v []any) any {
		if v[0] == nil {
			return nil
		}
		n := ToInt(v[0])
		if n < 1 || n >= int64(len(v)) || v[n] == nil {
			return nil
		}
		return textArg(e, v, int(n))
	}},
	"ASCII": {Min: 1, Max: 1, Type: typeOf(Int), Eval: func(e *Call, v []any) any {
		s := textArg(e, v, 0)
		if s == "" {
			return int64(0)
		}
		return int64(s[0])
	}},
	"SPACE": {Min: 1, Max: 1, Type: typeOf(Text), MayBeNull: true, Eval: func(e *Call, v []any) any {
		n := ToInt(v[0])
		if n <= 0 {
			return ""
		}
		if n > maxStringResult {
			return nil
		}
		return strings.Repeat(" ", int(n))
	}},
}

// trimSide is TRIM(side [remstr] FROM str), which Parse reads as `TRIM BOTH`([remstr,] str) …:
// remstr (a space by default) is removed as a whole string, as often as it repeats.
func trimSide(side string) *Func {
	return &Func{Min: 1, Max: 2, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		s, rem := textArg(e, v, len(v)-1), " "
		if len(v) == 2 {
			rem = textArg(e, v, 0)
		}
		if rem == "" {
			return s
		}
		if side != "TRAILING" {
			for strings.HasPrefix(s, rem) {
				s = s[len(rem):]
			}
		}
		if side != "LEADING" {
			for strings.HasSuffix(s, rem) {
				s = s[:len(s)-len(rem)]
			}
		}
		return s
	}}
}

// substringIndex is SUBSTRING_INDEX(s, delim, count): s before the count-th delim, or after the
// count-th delim from the end when count is negative; all of s when there are fewer. Occurrences
// do not overlap, counted from the end where count is negative, as MySQL's byte search does.
func substringIndex(s, delim string, count int64) string {
	if s == "" || delim == "" || count == 0 {
		return ""
	}
	if count > 0 {
		for pos := 0; ; {
			i := strings.Index(s[pos:], delim)
			if i < 0 {
				return s
			}
			if count--; count == 0 {
				return s[:pos+i]
			}
			pos += i + len(delim)
		}
	}
	for end := len(s); end > 0; {
		i := strings.LastIndex(s[:end], delim)
		if i < 0 {
			return s
		}
		if count++; count == 0 {
			return s[i+len(delim):]
		}
		end = i
	}
	return s
}

// locate is LOCATE(sub, s, start): the 1-based character position of sub in s at or after start,
// 0 when absent or when start is out of range. The empty string is found at start (up to one past
// the end).
func locate(sub, s string, start int64) any {
	r := []rune(s)
	if start < 1 || start > int64(len(r))+1 {
		return int64(0)
	}
	rest := string(r[start-1:])
	i := strings.Index(rest, sub)
	if i < 0 {
		return int64(0)
	}
	return start + int64(utf8.RuneCountInString(rest[:i]))
}

// pad is LPAD/RPAD: s padded with repetitions of p to n characters, or cut to n characters when
// longer. NULL for a negative n, an empty p that would be needed, or a result past the limit.
func pad(s string, n int64, p string, left bool) any {
	r := []rune(s)
	switch {
	case n < 0:
		return nil
	case n <= int64(len(r)):
		return string(r[:n])
	case p == "":
		return nil
	case n*4 > maxStringResult:
		return nil
	}
	pr := []rune(p)
	fill := make([]rune, 0, n-int64(len(r)))
	for int64(len(fill)) < n-int64(len(r)) {
		fill = append(fill, pr[len(fill)%len(pr)])
	}
	if left {
		return string(fill) + s
	}
	return s + string(fill)
}

// substring is MySQL SUBSTRING(s, pos[, len]) on characters: pos counts from 1, or from the end when
// negative; pos 0 gives "".
func substring(s string, args []any) string {
	runes := []rune(s)
	pos, ok := IntOf(args[0])
	if !ok {
		pos = int64(math.Round(FloatOf(args[0])))
	}
	n := int64(len(runes))
	var start int64
	switch {
	case pos > 0:
		start = pos - 1
	case pos < 0:
		start = n + pos
		if start < 0 {
			return ""
		}
	default:
		return ""
	}
	if start >= n {
		return ""
	}
	end := n
	if len(args) > 1 {
		count, ok := IntOf(args[1])
		if !ok {
			count = int64(math.Round(FloatOf(args[1])))
		}
		if count <= 0 {
			return ""
		}
		if start+count < end {
			end = start + count
		}
	}
	return string(runes[start:end])
}
