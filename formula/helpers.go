package formula

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// This file holds the seed's formula builders (seed §10). They build formula text; most of them do
// not quote their arguments, exactly as the seed specifies: pass values through StrValue, Quote or
// ToAirtableValue and field names through Field or FieldRef.

// EscapeQuotes escapes single quotes with a backslash so that the result can stand between single
// quotes. As the seed requires, a quote that is already escaped (`\'`) is kept as it is. Unlike
// pyairtable 1.5, every other backslash is doubled, so that no input can end the literal early: a
// trailing `\` would otherwise escape the closing quote, and `\\'` would leave a bare quote.
//
// Read back between single quotes, the result is the input with each `\'` turned into `'`.
//
//	EscapeQuotes("player's name")    == `player\'s name`
//	EscapeQuotes(`player\'s name`)   == `player\'s name`
//	EscapeQuotes(`C:\dir\`)          == `C:\\dir\\`
func EscapeQuotes(value string) string {
	if !strings.ContainsAny(value, `'\`) {
		return value
	}
	var b strings.Builder
	b.Grow(len(value) + 4)
	for i := 0; i < len(value); i++ {
		switch c := value[i]; {
		case c == '\\' && i+1 < len(value) && value[i+1] == '\'':
			b.WriteString(`\'`) // already escaped: keep
			i++
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\'':
			b.WriteString(`\'`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// StrValue wraps value in single quotes, escaping it with EscapeQuotes: StrValue("A") == "'A'".
// Use Quote when the literal must read back as exactly value, already-escaped quotes included.
func StrValue(value string) string {
	return "'" + EscapeQuotes(value) + "'"
}

// Field is the seed's FIELD(name): "{name}" with quotes escaped as the seed specifies
// (Field("Guest's Name") == `{Guest\'s Name}`), and also `}` escaped as `\}` so that no name can
// end the reference early. FieldRef is the stricter variant for names that come from data: Field
// writes every name, even those a service ignoring brace escapes could misread, and Field("") is
// "{}", which does not parse.
func Field(name string) string {
	return "{" + strings.ReplaceAll(EscapeQuotes(name), "}", `\}`) + "}"
}

// ToAirtableValue casts a Go value for use in a formula, as the seed's to_airtable_value: a bool
// becomes the integer 1 or 0, a string becomes a quoted literal (StrValue), anything else is
// returned unchanged. Match uses formulaText, which writes every Go value as formula text.
//
//	ToAirtableValue(true) == 1; ToAirtableValue("it's") == `'it\'s'`; ToAirtableValue(3.5) == 3.5
func ToAirtableValue(value any) any {
	switch v := value.(type) {
	case bool:
		if v {
			return 1
		}
		return 0
	case string:
		return StrValue(v)
	}
	return value
}

// Match returns a formula that is true when every field of values equals its value:
// one `{Name}=value` per entry, in sorted key order, joined as AND(a,b) with no spaces; a single
// entry is returned bare, and an empty map gives "". Values are written as formula text:
// strings quoted (StrValue), bools as 1/0, numbers as numbers, time.Time as DATETIME_PARSE('…')
// in UTC with milliseconds, nil as BLANK(); any other type as the quoted text of fmt.Sprint.
//
//	Match(map[string]any{"A": "1", "B": 2}) == "AND({A}='1',{B}=2)"
//	Match(map[string]any{"Done": true})     == "{Done}=1"
func Match(values map[string]any) string {
	return match(values, "AND")
}

// MatchAny is Match joined with OR: true when any field equals its value.
func MatchAny(values map[string]any) string {
	return match(values, "OR")
}

func match(values map[string]any, join string) string {
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = Equal(Field(name), formulaText(values[name]))
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return join + "(" + strings.Join(parts, ",") + ")"
}

// formulaText writes a Go value as formula text that evaluates to it.
func formulaText(value any) string {
	switch v := value.(type) {
	case nil:
		return "BLANK()"
	case string:
		return StrValue(v)
	case bool:
		if v {
			return "1"
		}
		return "0"
	case time.Time:
		return "DATETIME_PARSE('" + v.UTC().Format(isoMillis) + "')"
	case json.Number:
		if f, err := v.Float64(); err == nil {
			return numberText(f)
		}
		return StrValue(v.String())
	case float64:
		return numberText(v)
	case float32:
		return numberText(float64(v))
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case []byte:
		return StrValue(string(v))
	}
	rv := reflect.ValueOf(value)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(rv.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return numberText(rv.Float())
	case reflect.Bool:
		return formulaText(rv.Bool())
	case reflect.String:
		return StrValue(rv.String())
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return "BLANK()"
		}
		return formulaText(rv.Elem().Interface())
	}
	if s, ok := value.(fmt.Stringer); ok {
		return StrValue(s.String())
	}
	return StrValue(fmt.Sprint(value))
}

// numberText writes a float as a formula number; NaN and the infinities, which have no literal,
// as the divisions that produce them.
func numberText(f float64) string {
	switch {
	case math.IsNaN(f):
		return "(0/0)"
	case math.IsInf(f, 1):
		return "(1/0)"
	case math.IsInf(f, -1):
		return "(-1/0)"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// Equal returns "left=right", unquoted.
func Equal(left, right string) string { return left + "=" + right }

// And returns "AND(a, b, ...)": the arguments joined by a comma and a space.
func And(args ...string) string { return "AND(" + strings.Join(args, ", ") + ")" }

// Or returns "OR(a, b, ...)".
func Or(args ...string) string { return "OR(" + strings.Join(args, ", ") + ")" }

// If returns "IF(cond, a, b)".
func If(cond, a, b string) string { return "IF(" + cond + ", " + a + ", " + b + ")" }

// Find returns "FIND(what, where)", or "FIND(what, where, start)" when start is not zero.
// Neither argument is quoted: Find(StrValue("2021"), Field("D"), 0) == "FIND('2021', {D})".
func Find(what, where string, start int) string {
	if start != 0 {
		return "FIND(" + what + ", " + where + ", " + strconv.Itoa(start) + ")"
	}
	return "FIND(" + what + ", " + where + ")"
}

// Lower returns "LOWER(value)", unquoted: Lower("{Name}") == "LOWER({Name})".
func Lower(value string) string { return "LOWER(" + value + ")" }

const isoMillis = "2006-01-02T15:04:05.000Z07:00"
