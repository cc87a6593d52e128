// Package formula is the one place of airsql that knows Airtable's formula language: it builds
// formula text safely, and it parses and evaluates formulas the way filterByFormula does.
//
// # Building formulas
//
// Quote and FieldRef are the safe building blocks: whatever the data, their output is exactly one
// string literal or one field reference.
//
//	formula.Quote(`it's \ here`)        // 'it\'s \\ here'
//	formula.FieldRef("Due Date")        // {Due Date}, nil
//	formula.FieldRef("a}b")             // {a\}b}, nil
//	formula.FieldRef("{x}}")            // "", error: refer to the field by its id, {fldXXXXXXXXXXXXXX}
//
// The seed's helpers (seed §10) build formula text as pyairtable 1.5 does, without its injection
// bug: a value ending in a backslash cannot escape the closing quote.
//
//	formula.ToAirtableValue(true)                  // 1 (and false: 0)
//	formula.ToAirtableValue("it's")                // 'it\'s'
//	formula.ToAirtableValue(3.5)                   // 3.5
//	formula.EscapeQuotes("player's name")          // player\'s name
//	formula.EscapeQuotes(`player\'s name`)         // unchanged: an escaped quote is kept
//	formula.Match(map[string]any{"A": "1", "B": 2}) // AND({A}='1',{B}=2)
//	formula.MatchAny(map[string]any{"A": "1", "B": 2}) // OR({A}='1',{B}=2)
//	formula.Match(map[string]any{"Done": true})    // {Done}=1
//	formula.Match(map[string]any{})                // ""
//	formula.And("A", "B", "C")                     // AND(A, B, C)
//	formula.Or("A", "B", "C")                      // OR(A, B, C)
//	formula.If("1", "0", "1")                      // IF(1, 0, 1)
//	formula.Equal("A", "B")                        // A=B
//	formula.Field("Guest's Name")                  // {Guest\'s Name}
//	formula.StrValue("A")                          // 'A'
//	formula.Lower("{Name}")                        // LOWER({Name})
//	formula.Find("'2021'", "{D}", 0)               // FIND('2021', {D})
//	formula.Find("'2021'", "{D}", 2)               // FIND('2021', {D}, 2)
//
// Match writes every Go value as formula text: numbers as numbers, bools as 1 and 0,
// time.Time as DATETIME_PARSE('2024-03-15T00:00:00.000Z'), nil as BLANK(), NaN as (0/0), other
// types as the quoted fmt.Sprint text. EscapeQuotes keeps the seed's rule that `\'` is already
// escaped and doubles every other backslash, so its output between single quotes always reads
// back as the input with `\'` read as `'`. Quote, unlike StrValue, reads back as exactly its input.
//
// # Evaluating formulas
//
// Compile parses a formula once and resolves its field names through a Schema; Program.Match then
// applies filterByFormula's truthiness to a Record, and Program.Eval returns the Value. A Program is
// immutable and safe for concurrent use. Errors are *Error values with a byte position; their Msg
// is worded like the service's detail, e.g. "Unknown field names: id, recyaaprk3b74ongz" (names
// lower-cased, in order of appearance; an unknown function is listed there too, as "foo()"),
// "Wrong number of arguments to FIND: it takes 2 or 3 arguments, got 1", or "Invalid formula.
// Please check your formula text: ..." for syntax. Unknown names and wrong argument counts are found when compiling, never while
// evaluating; an error while evaluating is the value #ERROR!, which Match counts as false.
//
// {Field Name}, {fldXXXXXXXXXXXXXX} and bare one-word names all go through Schema.LookupField, so
// the caller decides case rules and what an id resolves to; a rollup's aggregation formula reads
// its values as the bare name `values`, which the caller's Schema resolves.
//
// Values follow Airtable, not SQL: blank equals both 0 and "", `&` turns anything into text, and
// there is no three-valued logic. Record.Cell supplies a field's value; FromCell converts a cell in
// the API's JSON form (every field type of the reference's §4.4: a link reads as the linked records'
// primary values, a multiple select as an array that is ", "-joined text in text contexts, lookups
// and rollups as arrays). Value.Cell converts a result back, as a formula field returns it.
// NOW() and TODAY() read Env.Clock, so tests use clock.NewFake.
//
// Every function of the reference's §5.5 is implemented; FunctionNames lists them.
//
// # Choices where Airtable's behaviour is unconfirmed
//
// The reference (airtable-api.md §5) marks these [UNCONFIRMED]; this package chooses:
//
//   - Precedence, lowest first: comparisons (= != < > <= >=), then &, then + and -, then * and /,
//     then unary minus. All binary operators are left-associative, so 1 < 2 = 1 is (1<2)=1, and
//     'a' & 1 + 2 is 'a3'.
//   - String escapes: \\ \' \" \n \t \r; any other \x stands for x. A raw newline may appear in a
//     literal. Inside braces the same escapes apply, so {a\}b} names the field "a}b". A doubled
//     quote (two single quotes in a row, seen in one third-party snippet) is not an escape: it
//     ends one literal and starts another, a syntax error.
//   - Field ids: {fldXXXXXXXXXXXXXX} and a bare fldXXXXXXXXXXXXXX (reported not to work on the
//     service) are both passed to Schema.LookupField like names, so a Schema that resolves ids
//     accepts both; FieldRef's error points callers to the braced form, which is documented.
//   - Numbers: 12, 1.5, .5 and scientific notation (1e3). A number directly followed by a letter
//     (3abc) is a syntax error.
//   - Function names are case-insensitive (lower(x) is LOWER(x)).
//   - = on text is case-sensitive and compares bytes; < and > on text order by code point. (The
//     reference suggests a switch for case-insensitive =; Env, fixed by docs/contracts.md, has
//     none, so a caller wanting it compiles LOWER({A}) = LOWER('x').)
//   - Text against a number: the text is read as a number ("" is 0, surrounding spaces ignored);
//     "1" = 1 is true, "abc" = 0 false. If the text is not a number, < and > compare the number's
//     text with it. In arithmetic, numeric text is a number and other text gives #ERROR!.
//   - A date against text in = < > ...: the text is read as an ISO 8601 date or date-time (other
//     text is never equal and not ordered); a date against a number is never equal and not
//     ordered. Date functions (YEAR, IS_SAME, DATEADD, ...) read text more forgivingly: ISO 8601,
//     then common formats such as "March 15, 2024" and "3/15/2024 2:30 PM".
//   - Booleans: TRUE() and FALSE() are booleans that count as 1 and 0 in arithmetic and comparisons
//     and read "1" and "0" as text; an unchecked checkbox is false, not blank.
//   - An array operand of an operator is its element when it has one, blank when empty, and its
//     ", "-joined text otherwise. AND, OR and XOR count the elements of an array argument.
//   - Division by zero follows JavaScript: 1/0 is Infinity, 0/0 is NaN (Value.Cell gives
//     {"specialValue":"Infinity"} and {"specialValue":"NaN"}). MOD takes the sign of the dividend.
//   - Numbers become text as in JavaScript (0.1+0.2 is 0.30000000000000004, 1e21 is 1e+21).
//   - Text positions (FIND, MID, LEN, ...) count Unicode code points. FIND of "" is the start
//     position. SEARCH is case-sensitive like FIND, but is blank instead of 0 when not found.
//   - ARRAYJOIN's default separator is ", ". ARRAYCOMPACT drops blanks and "" but keeps false.
//   - REGEX_* use RE2 syntax (Go's regexp); an invalid pattern gives #ERROR!, as does REGEX_EXTRACT
//     without a match. REGEX_REPLACE expands its replacement as JavaScript does: $1..$99, $<name>,
//     $&, $$. Since \d in a string literal is d (the escape rule above), a regular expression
//     writes its backslashes doubled: REGEX_MATCH({Code}, '^\\d+$').
//   - Dates: a date field's value is a calendar day (no zone). Date-times are shown and taken apart
//     (HOUR, DATETIME_FORMAT, IS_SAME by day, ...) in Env.Location (UTC when nil), or in the zone
//     set by SET_TIMEZONE. DATETIME_PARSE reads zone-less text in Env.Location. DATETIME_FORMAT
//     without a format writes ISO 8601 with milliseconds.
//   - DATETIME_FORMAT and DATETIME_PARSE take moment.js tokens (see datefmt.go for the list);
//     parsing is forgiving about separators, as moment's is, and a format without a year takes
//     the missing leading parts from today, as moment does. SET_LOCALE and DATETIME_PARSE's locale
//     know moment's month and weekday names, long formats (L, LL, LLLL, LT, ...) and ordinals of
//     en, en-gb, fr, de, es, it, pt, pt-br, nl, sv, da and nb (no); a tag such as fr-CA uses its
//     language; any other locale formats and parses in English.
//   - DATETIME_DIFF(a, b, unit) is moment's a.diff(b, unit) truncated toward zero, seconds by
//     default. TONOW(d) is the whole days from d to now, FROMNOW(d) from now to d.
//   - WEEKNUM counts like a spreadsheet (the week of 1 January is week 1; weeks start Sunday, or
//     Monday when asked). WORKDAY and WORKDAY_DIFF skip Saturdays, Sundays and the holidays given
//     as dates or as text of comma-separated dates; WORKDAY_DIFF counts both ends.
//   - LAST_MODIFIED_TIME({A}, {B}) takes field references only. It is the latest change of those
//     fields when the Record implements FieldModifiedTimer (blank if none changed), and otherwise
//     the record's LastModifiedTime, since Record keeps one time per record.
//   - Field names: FieldRef refuses names that a service ignoring brace escapes could read as a
//     different formula (containing "{", more than one "}", or "}" with a quote), and empty names,
//     names with control characters or invalid UTF-8; use the field id for those.
//   - Quote copies invalid UTF-8 bytes unchanged: the literal reads back byte for byte here, but
//     the real service may replace them with U+FFFD.
//   - Error wording: unknown fields as the service words them, and an unknown function among
//     them as the service reported one in 2021: FOO(1) = {x} gives "Unknown field names: foo(), x"
//     (callers matching the service's detail see the same text). Syntax errors start with the
//     service's "Invalid formula. Please check your formula text" and then say what was wrong;
//     the wording of a wrong argument count is this package's own.
//   - Results of REPT, CONCATENATE, &, REPLACE, SUBSTITUTE, ARRAYJOIN and REGEX_REPLACE are
//     limited to 1 MiB (else #ERROR!), and formulas to 200 levels of nesting, so hostile input
//     stays cheap.
package formula
