package sqlvalue

import (
	"unicode/utf8"
)

// Like is SQL LIKE: % any run, _ one character, ASCII letters match either case, and the
// escape character makes the next character literal.
func Like(pattern, s string, escape rune) bool {
	return likeMatchCase(pattern, s, escape, foldASCII)
}

// LikeBinary is LIKE BINARY: LIKE matching case.
func LikeBinary(pattern, s string, escape rune) bool {
	return likeMatchCase(pattern, s, escape, func(r rune) rune { return r })
}

// likeMatchCase is LIKE with a given folding of characters.
func likeMatchCase(pattern, s string, escape rune, fold func(rune) rune) bool {
	p := LikeRunes(pattern)
	t := LikeRunes(s)
	// Iterative matching with backtracking to the last %, linear in practice.
	pi, ti := 0, 0
	starP, starT := -1, 0
	for ti < len(t) {
		if pi < len(p) {
			c := p[pi]
			switch {
			case c == escape && pi+1 < len(p):
				if fold(p[pi+1]) == fold(t[ti]) {
					pi += 2
					ti++
					continue
				}
			case c == '%':
				starP, starT = pi, ti
				pi++
				continue
			case c == '_':
				pi++
				ti++
				continue
			default:
				if fold(c) == fold(t[ti]) {
					pi++
					ti++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		starT++
		pi, ti = starP+1, starT
	}
	for pi < len(p) && p[pi] == '%' {
		pi++
	}
	return pi == len(p)
}

// LikeRunes splits text into the characters LIKE compares. A byte that is not part of valid UTF-8
// is a character of its own, distinct from every real character and from U+FFFD, which []rune
// would turn it into: 'a\xffb' LIKE 'a\uFFFDb' is FALSE, as 'a\xffb' = 'a\uFFFDb' is.
func LikeRunes(s string) []rune {
	out := make([]rune, 0, len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			r = invalidByteRune + rune(s[i])
		}
		out = append(out, r)
		i += size
	}
	return out
}

// invalidByteRune + b stands for the invalid byte b in LikeRunes: past the last code point.
const invalidByteRune = utf8.MaxRune + 1

func foldASCII(r rune) rune {
	if r >= 'A' && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}
