package formula

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Quote returns a single-quoted string literal that this package's parser reads back as exactly s,
// for every s. It escapes the backslash (\\), the single quote (\') and newline, carriage return and
// tab (\n, \r, \t); every other byte, double quotes and other control characters included, is written
// as it is, and a raw byte inside a literal stands for itself. (Airtable is known to honour \' and
// \\; \n is reported to work; were \n, \r or \t not honoured, the service would read the letter
// instead of the control character, which changes the value but never the formula's structure.)
//
// Invalid UTF-8 is not repaired: its bytes are copied unchanged, so the literal still reads back as s
// byte for byte here. The real service receives the formula as percent-encoded bytes and may replace
// such bytes with U+FFFD; pass strings.ToValidUTF8(s, "\uFFFD") first if that matters.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// FieldRef returns a reference "{name}" to the field called name, escaping `\` as `\\` and `}` as `\}`
// inside the braces (this package's parser and the emulator read both escapes).
//
// Airtable's own handling of escapes inside braces is unconfirmed (pyairtable notes that a name with
// more than one `}` cannot be written at all), so FieldRef refuses the names whose reference could be
// read differently by a service that ignores the escapes: names containing `{`, more than one `}`, or a
// `}` together with a quote character; and names that are empty, contain control characters or are
// not valid UTF-8. For those it returns an error, and the caller should refer to the field by its id
// instead: "{fldXXXXXXXXXXXXXX}".
func FieldRef(name string) (string, error) {
	if reason := unsafeFieldName(name); reason != "" {
		return "", fmt.Errorf("formula: field name %q cannot be written safely in a formula (%s); refer to the field by its id, as {fldXXXXXXXXXXXXXX}", name, reason)
	}
	return "{" + escapeBraced(name) + "}", nil
}

// unsafeFieldName says why name cannot be written as a braced reference, or "" when it can.
func unsafeFieldName(name string) string {
	switch {
	case name == "":
		return "the name is empty"
	case !utf8.ValidString(name):
		return "the name is not valid UTF-8"
	case strings.Contains(name, "{"):
		return "it contains '{'"
	case strings.Count(name, "}") > 1:
		return "it contains more than one '}'"
	case strings.Contains(name, "}") && strings.ContainsAny(name, `'"`):
		return "it contains '}' together with a quote"
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return "it contains a control character"
		}
	}
	return ""
}

// escapeBraced escapes the two characters that are special inside braces.
func escapeBraced(name string) string {
	if !strings.ContainsAny(name, `\}`) {
		return name
	}
	var b strings.Builder
	b.Grow(len(name) + 4)
	for i := 0; i < len(name); i++ {
		if c := name[i]; c == '\\' || c == '}' {
			b.WriteByte('\\')
		}
		b.WriteByte(name[i])
	}
	return b.String()
}
