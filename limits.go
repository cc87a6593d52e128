package airsql

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/translate"
	"github.com/airsql/airsql/transport"
)

// maxValueBytes is the largest value (argument or literal) a statement may carry: every value goes
// into a request — a written cell or a filterByFormula — and no request to the service may exceed
// 5 MiB (transport.MaxRequestBodyBytes; it answers 413 beyond). A larger value is refused before
// anything is built from it: escaping and formula building multiply its size many times over.
const maxValueBytes = transport.MaxRequestBodyBytes

// ValueTooLargeError refuses a value that no request to the service could carry.
type ValueTooLargeError struct {
	What  string // "argument 2", "argument :name", "a string literal"
	Bytes int
}

func (e *ValueTooLargeError) Error() string {
	return fmt.Sprintf("airsql: %s is %d bytes: a request to Airtable carries at most %d bytes (5 MiB; the service answers 413 beyond), "+
		"so a value this long can be neither written nor used in a filter; pass a shorter one", e.What, e.Bytes, maxValueBytes)
}

// valueBytes is how many bytes of text a bound argument holds (numbers and times are small).
func valueBytes(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case []byte:
		return len(x)
	case []string:
		n := 0
		for _, s := range x {
			n += len(s)
		}
		return n
	case []any:
		n := 0
		for _, e := range x {
			n += valueBytes(e)
		}
		return n
	case map[string]any:
		n := 0
		for k, e := range x {
			n += len(k) + valueBytes(e)
		}
		return n
	}
	return 0
}

// checkLiteralSizes refuses a statement holding a literal longer than maxValueBytes.
func checkLiteralSizes(ast sqlparser.SQLNode) error {
	var tooLarge error
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if v, ok := node.(*sqlparser.SQLVal); ok && len(v.Val) > maxValueBytes {
			tooLarge = &ValueTooLargeError{What: "a literal", Bytes: len(v.Val)}
			return false, tooLarge
		}
		return true, nil
	}, ast)
	return tooLarge
}

// likeRegexpBytes is the length of the regular expression a LIKE pattern becomes in a formula
// (translate's likeRegexp: a letter matches both cases as [Aa], % is .*, a metacharacter is
// escaped), computed without building it.
func likeRegexpBytes(pattern string, escape rune) int {
	n := len("^(?s:)$")
	escaped := false
	for _, c := range pattern {
		switch {
		case escaped:
			escaped = false
			n += literalBytes(c)
		case c == escape:
			escaped = true
		case c == '%':
			n += 2
		case c == '_':
			n++
		default:
			n += literalBytes(c)
		}
	}
	if escaped { // an escape character at the end stands for itself
		n += literalBytes(escape)
	}
	return n
}

func literalBytes(c rune) int {
	switch {
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		return 4
	case c < 0x80 && strings.ContainsRune(`\.+*?()|[]{}^$`, c):
		return 2
	}
	return utf8.RuneLen(max(c, 0))
}

// checkLikeSizes refuses a LIKE whose pattern (a literal or an argument) would become a formula
// longer than a request can carry, before the formula is built: every letter of the pattern
// takes four bytes of it, so a pattern of a little more than 1 MB is already too long.
func checkLikeSizes(ast sqlparser.SQLNode, args translate.Args) error {
	if ast == nil {
		return nil
	}
	var tooLarge error
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		c, ok := node.(*sqlparser.ComparisonExpr)
		if !ok || (c.Operator != sqlparser.LikeStr && c.Operator != sqlparser.NotLikeStr) {
			return true, nil
		}
		v, ok := c.Right.(*sqlparser.SQLVal)
		if !ok {
			return true, nil
		}
		var pattern string
		switch v.Type {
		case sqlparser.StrVal:
			pattern = string(v.Val)
		case sqlparser.ValArg:
			a, ok := likeArg(string(v.Val), args)
			if !ok {
				return true, nil
			}
			pattern = a
		default:
			return true, nil
		}
		escape := '\\'
		if e, ok := c.Escape.(*sqlparser.SQLVal); ok && e.Type == sqlparser.StrVal {
			if r := []rune(string(e.Val)); len(r) == 1 {
				escape = r[0]
			}
		}
		if n := likeRegexpBytes(pattern, escape); n > maxValueBytes {
			tooLarge = fmt.Errorf("airsql: a LIKE pattern of %d bytes becomes a filter formula of at least %d bytes (each letter matches both cases), "+
				"beyond the %d bytes (5 MiB) a request to Airtable carries; use a shorter pattern", len(pattern), n, maxValueBytes)
			return false, tooLarge
		}
		return true, nil
	}, ast)
	return tooLarge
}

// likeArg is the text of the argument a placeholder (:v1 for the first ?, or :name) stands for.
func likeArg(name string, args translate.Args) (string, bool) {
	var v any
	if n, err := strconv.Atoi(strings.TrimPrefix(name, ":v")); err == nil && strings.HasPrefix(name, ":v") && n >= 1 && n <= len(args.Positional) {
		v = args.Positional[n-1]
	} else if a, ok := args.Named[strings.TrimPrefix(name, ":")]; ok {
		v = a
	}
	s, ok := v.(string)
	return s, ok
}
