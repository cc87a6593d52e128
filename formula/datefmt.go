package formula

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Airtable's DATETIME_FORMAT and DATETIME_PARSE take moment.js format strings. This file
// implements moment's tokens:
//
//	year     YYYY YY Y           quarter  Q Qo
//	month    M Mo MM MMM MMMM    day      D Do DD   day of year  DDD DDDo DDDD
//	weekday  d do dd ddd dddd e E
//	week     w wo ww (locale: weeks start Sunday, the week with 1 January is week 1)
//	         W Wo WW (ISO)       week year  gggg gg GGGG GG
//	hour     H HH h hh k kk      minute m mm   second s ss   fraction S SS SSS ... (up to 9)
//	am/pm    A a                 zone   Z (+07:00) ZZ (+0700) z zz (abbreviation)
//	unix     X (seconds) x (milliseconds)
//	locale   LT LTS L LL LLL LLLL l ll lll llll (expanded with the locale's formats, locales.go)
//
// Text in [brackets] is literal; any other character stands for itself.

var formatTokens = []string{
	"YYYYYY", "YYYY", "YY", "Y",
	"Qo", "Q",
	"MMMM", "MMM", "MM", "Mo", "M",
	"DDDD", "DDDo", "DDD", "DD", "Do", "D",
	"dddd", "ddd", "dd", "do", "d", "e", "E",
	"ww", "wo", "w", "WW", "Wo", "W",
	"gggg", "gg", "GGGG", "GG",
	"HH", "H", "hh", "h", "kk", "k",
	"mm", "m", "ss", "s",
	"SSSSSSSSS", "SSSSSSSS", "SSSSSSS", "SSSSSS", "SSSSS", "SSSS", "SSS", "SS", "S",
	"A", "a", "ZZ", "Z", "zz", "z", "X", "x",
	"LLLL", "LLL", "LL", "LTS", "LT", "L", "llll", "lll", "ll", "l",
}

type formatPart struct {
	token   string // "" for literal text
	literal string
}

// splitFormat splits a moment format string into tokens and literal text; the locale tokens
// (L, LL, ..., LT) are expanded with the locale's formats.
func splitFormat(format string, names *localeNames) []formatPart {
	var parts []formatPart
	lit := func(s string) {
		if n := len(parts); n > 0 && parts[n-1].token == "" {
			parts[n-1].literal += s
			return
		}
		parts = append(parts, formatPart{literal: s})
	}
	for i := 0; i < len(format); {
		if format[i] == '[' {
			if j := strings.IndexByte(format[i:], ']'); j > 0 {
				lit(format[i+1 : i+j])
				i += j + 1
				continue
			}
		}
		matched := ""
		for _, tok := range formatTokens {
			if strings.HasPrefix(format[i:], tok) {
				matched = tok
				break
			}
		}
		if matched == "" {
			lit(format[i : i+1])
			i++
			continue
		}
		if exp, ok := names.longFormat(matched); ok {
			parts = append(parts, splitFormat(exp, names)...)
		} else {
			parts = append(parts, formatPart{token: matched})
		}
		i += len(matched)
	}
	return parts
}

// formatTime writes t (already in the zone to show) with a moment format.
func formatTime(t time.Time, format string, names *localeNames) string {
	var b strings.Builder
	for _, p := range splitFormat(format, names) {
		if p.token == "" {
			b.WriteString(p.literal)
			continue
		}
		b.WriteString(formatToken(t, p.token, names))
	}
	return b.String()
}

func pad(n, width int) string {
	s := strconv.Itoa(abs(n))
	for len(s) < width {
		s = "0" + s
	}
	if n < 0 {
		return "-" + s
	}
	return s
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// englishOrdinal is moment's English ordinal: 1st 2nd 3rd 4th 11th 12th 13th 21st.
func englishOrdinal(n int, _ string) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

// localeWeek is moment's English week: weeks start on Sunday and the week holding 1 January is
// week 1. It returns the week-year and the week.
func localeWeek(t time.Time) (int, int) {
	// The week's Saturday decides the year: the week holding 1 January ends in that year.
	sat := t.AddDate(0, 0, 6-int(t.Weekday()))
	year := sat.Year()
	jan1 := time.Date(year, 1, 1, 0, 0, 0, 0, t.Location())
	firstSunday := jan1.AddDate(0, 0, -int(jan1.Weekday()))
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
	return year, int(math.Round(day.Sub(firstSunday).Hours()/24))/7 + 1
}

// formatToken writes one token of a moment format: a part of the date, of its week, or of the
// time of day and zone; anything else as written.
func formatToken(t time.Time, tok string, names *localeNames) string {
	if s, ok := formatDateToken(t, tok, names); ok {
		return s
	}
	if s, ok := formatWeekToken(t, tok, names); ok {
		return s
	}
	if s, ok := formatClockToken(t, tok); ok {
		return s
	}
	if tok[0] == 'S' { // fractional seconds, as many digits as S's
		digits := pad(t.Nanosecond(), 9)
		return digits[:len(tok)]
	}
	return tok
}

// formatDateToken writes the year, quarter, month, day or weekday tokens.
func formatDateToken(t time.Time, tok string, names *localeNames) (string, bool) {
	switch tok {
	case "YYYYYY":
		if t.Year() < 0 {
			return pad(t.Year(), 6), true
		}
		return "+" + pad(t.Year(), 6), true
	case "YYYY":
		return pad(t.Year(), 4), true
	case "YY":
		return pad(abs(t.Year())%100, 2), true
	case "Y":
		return strconv.Itoa(t.Year()), true
	case "Q":
		return strconv.Itoa((int(t.Month())-1)/3 + 1), true
	case "Qo":
		return names.ordinal((int(t.Month())-1)/3+1, "Q"), true
	case "MMMM":
		return names.months[t.Month()-1], true
	case "MMM":
		return names.shortMonths[t.Month()-1], true
	case "MM":
		return pad(int(t.Month()), 2), true
	case "Mo":
		return names.ordinal(int(t.Month()), "M"), true
	case "M":
		return strconv.Itoa(int(t.Month())), true
	case "DDDD":
		return pad(t.YearDay(), 3), true
	case "DDDo":
		return names.ordinal(t.YearDay(), "DDD"), true
	case "DDD":
		return strconv.Itoa(t.YearDay()), true
	case "DD":
		return pad(t.Day(), 2), true
	case "Do":
		return names.ordinal(t.Day(), "D"), true
	case "D":
		return strconv.Itoa(t.Day()), true
	case "dddd":
		return names.weekdays[t.Weekday()], true
	case "ddd":
		return names.shortWeekdays[t.Weekday()], true
	case "dd":
		return names.minWeekdays[t.Weekday()], true
	case "do":
		return names.ordinal(int(t.Weekday()), "d"), true
	case "d", "e":
		return strconv.Itoa(int(t.Weekday())), true
	case "E":
		return strconv.Itoa((int(t.Weekday())+6)%7 + 1), true
	}
	return "", false
}

// formatWeekToken writes the week and week-year tokens (locale weeks and ISO weeks).
func formatWeekToken(t time.Time, tok string, names *localeNames) (string, bool) {
	switch tok {
	case "w", "ww", "wo":
		_, w := localeWeek(t)
		switch tok {
		case "ww":
			return pad(w, 2), true
		case "wo":
			return names.ordinal(w, "w"), true
		}
		return strconv.Itoa(w), true
	case "W", "WW", "Wo":
		_, w := t.ISOWeek()
		switch tok {
		case "WW":
			return pad(w, 2), true
		case "Wo":
			return names.ordinal(w, "W"), true
		}
		return strconv.Itoa(w), true
	case "gggg", "gg":
		y, _ := localeWeek(t)
		if tok == "gg" {
			return pad(abs(y)%100, 2), true
		}
		return pad(y, 4), true
	case "GGGG", "GG":
		y, _ := t.ISOWeek()
		if tok == "GG" {
			return pad(abs(y)%100, 2), true
		}
		return pad(y, 4), true
	}
	return "", false
}

// formatClockToken writes the time of day, AM/PM, zone and Unix time tokens.
func formatClockToken(t time.Time, tok string) (string, bool) {
	h := t.Hour()
	h12 := h % 12
	if h12 == 0 {
		h12 = 12
	}
	switch tok {
	case "HH":
		return pad(h, 2), true
	case "H":
		return strconv.Itoa(h), true
	case "hh":
		return pad(h12, 2), true
	case "h":
		return strconv.Itoa(h12), true
	case "kk":
		return pad(h24(h), 2), true
	case "k":
		return strconv.Itoa(h24(h)), true
	case "mm":
		return pad(t.Minute(), 2), true
	case "m":
		return strconv.Itoa(t.Minute()), true
	case "ss":
		return pad(t.Second(), 2), true
	case "s":
		return strconv.Itoa(t.Second()), true
	case "A", "a":
		s := "AM"
		if h >= 12 {
			s = "PM"
		}
		if tok == "a" {
			return strings.ToLower(s), true
		}
		return s, true
	case "Z", "ZZ":
		_, off := t.Zone()
		sign := "+"
		if off < 0 {
			sign, off = "-", -off
		}
		if tok == "Z" {
			return sign + pad(off/3600, 2) + ":" + pad(off%3600/60, 2), true
		}
		return sign + pad(off/3600, 2) + pad(off%3600/60, 2), true
	case "z", "zz":
		name, _ := t.Zone()
		return name, true
	case "X":
		return strconv.FormatInt(t.Unix(), 10), true
	case "x":
		return strconv.FormatInt(t.UnixMilli(), 10), true
	}
	return "", false
}

func h24(h int) int {
	if h == 0 {
		return 24
	}
	return h
}

// parseWithFormat reads s with a moment format, forgivingly as moment does: separators in the input
// need not match those of the format. As in moment, missing leading date parts (year, then month,
// then day) are now's, the other missing parts are the start of their unit (1 January, midnight).
// Times without a zone token are read in loc.
func parseWithFormat(s, format string, loc *time.Location, names *localeNames, now time.Time) (time.Time, bool) {
	p := dateParser{s: s, names: names}
	d := parsedDate{year: 1970, month: 1, day: 1}
	for _, part := range splitFormat(format, names) {
		if part.token == "" {
			p.literal(part.literal)
			continue
		}
		p.skipSeparators()
		read, ok := d.readDate(&p, part.token)
		if !read {
			ok = d.readClock(&p, part.token, loc)
		}
		if !ok {
			return time.Time{}, false
		}
	}
	if d.unix != nil {
		return *d.unix, true
	}
	if !d.yearSet && !d.monthSet && !d.daySet && p.parsedNothing() {
		return time.Time{}, false
	}
	return d.time(now, loc)
}

// parsedDate is what parseWithFormat has read so far.
type parsedDate struct {
	year, month, day          int
	yearSet, monthSet, daySet bool
	hour, minute, sec, nsec   int
	pm, ampm                  bool
	zoneOffset                int
	zoned                     bool
	unix                      *time.Time // X or x: the whole time
}

// readDate reads a token of the date (year, quarter, month, day, weekday, week); read is false
// for a token of the time of day.
func (d *parsedDate) readDate(p *dateParser, token string) (read, ok bool) {
	switch token {
	case "YYYYYY", "YYYY", "Y", "gggg", "GGGG":
		v, ok := p.signedNumber(1, 6)
		d.year, d.yearSet = v, true
		return true, ok
	case "YY", "gg", "GG":
		v, ok := p.number(2, 2)
		if v > 68 {
			d.year = 1900 + v
		} else {
			d.year = 2000 + v
		}
		d.yearSet = true
		return true, ok
	case "Q", "Qo":
		v, ok := p.number(1, 1)
		if !ok || v < 1 || v > 4 {
			return true, false
		}
		p.ordinalSuffix(token == "Qo")
		d.month, d.monthSet = (v-1)*3+1, true
	case "MM", "M", "Mo":
		v, ok := p.number(1, 2)
		if !ok || v < 1 || v > 12 {
			return true, false
		}
		p.ordinalSuffix(token == "Mo")
		d.month, d.monthSet = v, true
	case "MMMM", "MMM":
		v, ok := p.name(p.names.months[:], p.names.shortMonths[:])
		d.month, d.monthSet = v+1, true
		return true, ok
	case "DD", "D", "Do":
		v, ok := p.number(1, 2)
		if !ok || v < 1 || v > 31 {
			return true, false
		}
		p.ordinalSuffix(token == "Do")
		d.day, d.daySet = v, true
	case "DDDD", "DDD", "DDDo":
		v, ok := p.number(1, 3)
		if !ok || v < 1 || v > 366 {
			return true, false
		}
		p.ordinalSuffix(token == "DDDo")
		d.month, d.day, d.monthSet, d.daySet = 1, v, true, true
	case "dddd", "ddd", "dd":
		_, ok := p.name(p.names.weekdays[:], p.names.shortWeekdays[:], p.names.minWeekdays[:])
		return true, ok
	case "d", "do", "e", "E", "w", "wo", "ww", "W", "Wo", "WW":
		// Weekday and week numbers are read but, as in moment's forgiving mode, do not move the date.
		if _, ok := p.number(1, 2); !ok {
			return true, false
		}
		p.ordinalSuffix(strings.HasSuffix(token, "o"))
	default:
		return false, false
	}
	return true, true
}

// readClock reads a token of the time of day, AM/PM, the zone, a Unix time or a fraction of a
// second.
func (d *parsedDate) readClock(p *dateParser, token string, loc *time.Location) bool {
	switch token {
	case "HH", "H", "hh", "h", "kk", "k":
		v, ok := p.number(1, 2)
		if !ok || v > 24 {
			return false
		}
		d.hour = v
		if token[0] == 'k' && v == 24 {
			d.hour = 0
		}
	case "mm", "m":
		v, ok := p.number(1, 2)
		d.minute = v
		return ok && v <= 59
	case "ss", "s":
		v, ok := p.number(1, 2)
		d.sec = v
		return ok && v <= 59
	case "A", "a":
		switch {
		case p.prefixFold("am"), p.prefixFold("a.m."), p.prefixFold("a"):
			d.ampm, d.pm = true, false
		case p.prefixFold("pm"), p.prefixFold("p.m."), p.prefixFold("p"):
			d.ampm, d.pm = true, true
		default:
			return false
		}
	case "Z", "ZZ":
		off, ok := p.zone()
		d.zoneOffset, d.zoned = off, ok
		return ok
	case "z", "zz":
		p.word() // zone abbreviations are ambiguous; moment ignores them when parsing too
	case "X", "x":
		f, ok := p.decimal()
		if !ok {
			return false
		}
		ms := f * 1000
		if token == "x" {
			ms = f
		}
		t := time.UnixMilli(int64(ms)).In(loc)
		d.unix = &t
	default: // S...: fraction of a second
		frac, next := fractionDigits(p.s, p.i)
		if next == p.i {
			return false
		}
		d.nsec += frac
		p.i = next
	}
	return true
}

// time is the time read: a 12-hour clock made 24-hour, a day past its month's end refused, the
// missing leading date parts now's.
func (d *parsedDate) time(now time.Time, loc *time.Location) (time.Time, bool) {
	hour := d.hour
	if d.ampm {
		if hour > 12 || hour == 0 {
			return time.Time{}, false
		}
		if d.pm && hour < 12 {
			hour += 12
		} else if !d.pm && hour == 12 {
			hour = 0
		}
	}
	year, month, day := d.year, d.month, d.day
	if d.monthSet && d.daySet && day > daysIn(time.Month(month), year) && day <= 31 {
		return time.Time{}, false
	}
	if !d.yearSet {
		cy, cm, cd := now.In(loc).Date()
		year = cy
		if !d.monthSet {
			month = int(cm)
			if !d.daySet {
				day = cd
			}
		}
	}
	zone := loc
	if d.zoned {
		zone = fixedZone(d.zoneOffset)
	}
	return time.Date(year, time.Month(month), day, hour, d.minute, d.sec, d.nsec, zone), true
}

type dateParser struct {
	s      string
	i      int
	names  *localeNames
	tokens int
}

func (p *dateParser) parsedNothing() bool { return p.tokens == 0 }

func (p *dateParser) skipSeparators() {
	for p.i < len(p.s) {
		c := p.s[p.i]
		if isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || c == '+' || c == '-' && p.i+1 < len(p.s) && isDigit(p.s[p.i+1]) {
			return
		}
		p.i++
	}
}

// literal consumes format text when the input has it; otherwise it is skipped (forgiving mode).
func (p *dateParser) literal(lit string) {
	if strings.HasPrefix(p.s[p.i:], lit) {
		p.i += len(lit)
	}
}

func (p *dateParser) number(minDigits, maxDigits int) (int, bool) {
	start := p.i
	v := 0
	for p.i < len(p.s) && p.i-start < maxDigits && isDigit(p.s[p.i]) {
		v = v*10 + int(p.s[p.i]-'0')
		p.i++
	}
	if p.i-start < minDigits {
		p.i = start
		return 0, false
	}
	p.tokens++
	return v, true
}

func (p *dateParser) signedNumber(minDigits, maxDigits int) (int, bool) {
	sign := 1
	if p.i < len(p.s) && (p.s[p.i] == '-' || p.s[p.i] == '+') {
		if p.s[p.i] == '-' {
			sign = -1
		}
		p.i++
	}
	v, ok := p.number(minDigits, maxDigits)
	return sign * v, ok
}

func (p *dateParser) decimal() (float64, bool) {
	start := p.i
	if p.i < len(p.s) && p.s[p.i] == '-' {
		p.i++
	}
	for p.i < len(p.s) && (isDigit(p.s[p.i]) || p.s[p.i] == '.') {
		p.i++
	}
	f, err := strconv.ParseFloat(p.s[start:p.i], 64)
	if err != nil {
		p.i = start
		return 0, false
	}
	p.tokens++
	return f, true
}

func (p *dateParser) ordinalSuffix(expected bool) {
	if !expected {
		return
	}
	// The suffixes of the known locales' ordinals, longest first.
	for _, suf := range [...]string{"ste", "st", "nd", "rd", "th", "er", "re", "de", ":e", ":a", "e", "º", "."} {
		if p.prefixFold(suf) {
			return
		}
	}
}

// prefixFold consumes s when the input continues with it, ignoring case.
func (p *dateParser) prefixFold(s string) bool {
	if len(p.s)-p.i >= len(s) && strings.EqualFold(p.s[p.i:p.i+len(s)], s) {
		p.i += len(s)
		return true
	}
	return false
}

// name consumes the longest of the given names (case-insensitive) and returns its index.
func (p *dateParser) name(lists ...[]string) (int, bool) {
	best, bestLen := -1, 0
	for _, list := range lists {
		for i, n := range list {
			if n == "" {
				continue
			}
			if len(n) > bestLen && len(p.s)-p.i >= len(n) && strings.EqualFold(p.s[p.i:p.i+len(n)], n) {
				best, bestLen = i, len(n)
			}
			// Short names may be written without their final period: "janv" for "janv.".
			if t := strings.TrimSuffix(n, "."); t != n && len(t) > bestLen && len(p.s)-p.i >= len(t) && strings.EqualFold(p.s[p.i:p.i+len(t)], t) {
				best, bestLen = i, len(t)
			}
		}
	}
	if best < 0 {
		return 0, false
	}
	p.i += bestLen
	p.tokens++
	return best, true
}

func (p *dateParser) word() {
	for p.i < len(p.s) && (p.s[p.i] >= 'A' && p.s[p.i] <= 'Z' || p.s[p.i] >= 'a' && p.s[p.i] <= 'z') {
		p.i++
	}
}

// zone reads Z, ±HH:MM, ±HHMM or ±HH and returns the offset in seconds.
func (p *dateParser) zone() (int, bool) {
	if p.prefixFold("Z") {
		return 0, true
	}
	if p.i >= len(p.s) || p.s[p.i] != '+' && p.s[p.i] != '-' {
		return 0, false
	}
	sign := 1
	if p.s[p.i] == '-' {
		sign = -1
	}
	p.i++
	h, ok := p.number(2, 2)
	if !ok {
		return 0, false
	}
	if p.i < len(p.s) && p.s[p.i] == ':' {
		p.i++
	}
	m := 0
	if p.i < len(p.s) && isDigit(p.s[p.i]) {
		if m, ok = p.number(2, 2); !ok {
			return 0, false
		}
	}
	return sign * (h*3600 + m*60), true
}

// defaultParseFormats are tried, in order, by DATETIME_PARSE without a format when the text is not
// ISO 8601; the whole text must be consumed.
var defaultParseFormats = []string{
	"M/D/YYYY h:mm:ss A", "M/D/YYYY h:mm A", "M/D/YYYY H:mm:ss", "M/D/YYYY H:mm", "M/D/YYYY",
	"YYYY/M/D H:mm:ss", "YYYY/M/D H:mm", "YYYY/M/D",
	"MMMM D, YYYY h:mm A", "MMMM D, YYYY", "MMMM D YYYY", "D MMMM YYYY H:mm", "D MMMM YYYY",
	"dddd, MMMM D, YYYY h:mm A", "dddd, MMMM D, YYYY", "ddd, D MMM YYYY HH:mm:ss Z", "ddd MMM D YYYY HH:mm:ss",
	"MMMM YYYY", "YYYY-MM", "YYYY",
}

// parseDateText reads text as a date: ISO 8601 first, then the default formats above.
func parseDateText(s string, loc *time.Location) (time.Time, bool) {
	if t, ok := parseISO(s, loc); ok {
		return t, true
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	en := locales["en"]
	for _, f := range defaultParseFormats {
		if t, ok := parseWholeWithFormat(s, f, loc, en); ok {
			return t, true
		}
	}
	return time.Time{}, false
}

// parseWholeWithFormat is parseWithFormat that also requires every character to be consumed and
// every token to be present: the strict check used when guessing among formats.
func parseWholeWithFormat(s, format string, loc *time.Location, names *localeNames) (time.Time, bool) {
	t, ok := parseWithFormat(s, format, loc, names, time.Time{}) // every default format has a year
	if !ok {
		return time.Time{}, false
	}
	// Re-format and compare loosely: the same digits and names in the same order.
	if !sameShape(s, format, t, names) {
		return time.Time{}, false
	}
	return t, true
}

// sameShape reports whether formatting t with format reproduces s, ignoring case, padding zeros and
// separators: the cheap way to know the format consumed all of s.
func sameShape(s, format string, t time.Time, names *localeNames) bool {
	return normalizeShape(s) == normalizeShape(formatTime(t, format, names))
}

func normalizeShape(s string) string {
	var b strings.Builder
	var num []byte
	inNum, afterNum := false, false // afterNum: the last item was a number, only separators since
	flush := func() {
		if inNum {
			digits := strings.TrimLeft(string(num), "0")
			if digits == "" {
				digits = "0"
			}
			b.WriteString(digits)
			inNum, afterNum = false, true
		}
	}
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= '0' && r <= '9':
			if !inNum {
				if afterNum {
					b.WriteByte('|')
				}
				inNum, num = true, num[:0]
			}
			num = append(num, byte(r))
		case r >= 'a' && r <= 'z' || r >= 0x80:
			flush()
			afterNum = false
			b.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return b.String()
}
