package sqlvalue

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DATE_FORMAT and STR_TO_DATE: MySQL's format specifiers, written and read.

var (
	monthNames = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	dayNames   = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
)

// dateFormat is DATE_FORMAT(t, format) with every specifier of the MySQL manual; %x for any other
// character x is x.
func dateFormat(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		b.WriteString(formatSpecifier(t, format[i]))
	}
	return b.String()
}

// formatSpecifier is what %c writes of t in DATE_FORMAT.
func formatSpecifier(t time.Time, c byte) string {
	switch c {
	case 'a':
		return t.Weekday().String()[:3]
	case 'b':
		return t.Month().String()[:3]
	case 'c':
		return strconv.Itoa(int(t.Month()))
	case 'D':
		return strconv.Itoa(t.Day()) + ordinalSuffix(t.Day())
	case 'd':
		return zeroPad(t.Day(), 2)
	case 'e':
		return strconv.Itoa(t.Day())
	case 'f':
		return zeroPad(t.Nanosecond()/1000, 6)
	case 'H':
		return zeroPad(t.Hour(), 2)
	case 'h', 'I':
		return zeroPad(hour12(t), 2)
	case 'i':
		return zeroPad(t.Minute(), 2)
	case 'j':
		return zeroPad(t.YearDay(), 3)
	case 'k':
		return strconv.Itoa(t.Hour())
	case 'l':
		return strconv.Itoa(hour12(t))
	case 'M':
		return t.Month().String()
	case 'm':
		return zeroPad(int(t.Month()), 2)
	case 'p':
		return ampm(t)
	case 'r':
		return fmt.Sprintf("%02d:%02d:%02d %s", hour12(t), t.Minute(), t.Second(), ampm(t))
	case 'S', 's':
		return zeroPad(t.Second(), 2)
	case 'T':
		return fmt.Sprintf("%02d:%02d:%02d", t.Hour(), t.Minute(), t.Second())
	case 'U':
		w, _ := calcWeek(t, weekFirstWeekday)
		return zeroPad(w, 2)
	case 'u':
		w, _ := calcWeek(t, weekMondayFirst)
		return zeroPad(w, 2)
	case 'V':
		w, _ := calcWeek(t, weekYear|weekFirstWeekday)
		return zeroPad(w, 2)
	case 'v':
		w, _ := calcWeek(t, weekMondayFirst|weekYear)
		return zeroPad(w, 2)
	case 'W':
		return t.Weekday().String()
	case 'w':
		return strconv.Itoa(int(t.Weekday()))
	case 'X':
		_, y := calcWeek(t, weekYear|weekFirstWeekday)
		return zeroPad(y, 4)
	case 'x':
		_, y := calcWeek(t, weekMondayFirst|weekYear)
		return zeroPad(y, 4)
	case 'Y':
		return zeroPad(t.Year(), 4)
	case 'y':
		return zeroPad(t.Year()%100, 2)
	}
	return string([]byte{c}) // the byte as it is: part of a character of several bytes, or one
}

// zeroPad writes n (not negative) with at least width digits.
func zeroPad(n, width int) string {
	s := strconv.Itoa(n)
	if len(s) >= width {
		return s
	}
	return "000000"[:width-len(s)] + s
}

// hour12 is t's hour on a 12-hour clock, 1 to 12.
func hour12(t time.Time) int {
	h := t.Hour() % 12
	if h == 0 {
		h = 12
	}
	return h
}

func ampm(t time.Time) string {
	if t.Hour() < 12 {
		return "AM"
	}
	return "PM"
}

// ordinalSuffix is the English suffix of a day of the month: 1st, 2nd, 3rd, 11th, 22nd.
func ordinalSuffix(d int) string {
	if d/10 != 1 {
		switch d % 10 {
		case 1:
			return "st"
		case 2:
			return "nd"
		case 3:
			return "rd"
		}
	}
	return "th"
}

// formatParts reports whether a STR_TO_DATE format names date parts and time parts.
func formatParts(format string) (date, clock bool) {
	for i := 0; i+1 < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		switch format[i] {
		case 'Y', 'y', 'm', 'c', 'd', 'e', 'M', 'b', 'D', 'j', 'X', 'x', 'V', 'v', 'U', 'u':
			date = true
		case 'H', 'k', 'h', 'I', 'l', 'i', 's', 'S', 'f', 'p', 'T', 'r':
			clock = true
		}
	}
	return date, clock
}

// dateParts are the fields STR_TO_DATE reads.
type dateParts struct {
	year, month, day, hour, minute, second, micro int
	pm, hasAMPM, hour12                           bool
	yearDay                                       int
	// A week date (MySQL's extract_date_time): week is -1 when no %U %u %V %v was read; weekday
	// is 1 (Monday) to 7 (Sunday), 0 when none was read; weekYear is %X or %x's year, -1 when
	// none. sundayFirst: %U or %V; strictWeek: %V or %v (which need %X or %x); weekYearSunday:
	// the year was %X.
	week, weekday, weekYear                 int
	sundayFirst, strictWeek, weekYearSunday bool
}

// strToDate reads s by a DATE_FORMAT format, as MySQL's STR_TO_DATE: numbers take up to their
// field's width of digits, names match case-insensitively, a space in the format skips any white
// space, other characters must match, and text after the format is ignored.
func strToDate(s, format string) (dateParts, bool) {
	r := &dateReader{dateParts: dateParts{week: -1, weekYear: -1}, s: s}
	for f := 0; f < len(format); f++ {
		c := format[f]
		// White space in the text is skipped before each part of the format, as MySQL does.
		r.skipSpace()
		if c == ' ' || c == '\t' || c == '\n' {
			r.skipSpace()
			continue
		}
		if c != '%' || f+1 == len(format) {
			if !r.literal(c) {
				return r.dateParts, false
			}
			continue
		}
		f++
		if ok, known := r.numberField(format[f]); known && !ok || !known && !r.otherField(format[f]) {
			return r.dateParts, false
		}
	}
	return r.dateParts, r.finish()
}

// dateReader reads the text of STR_TO_DATE: s from i, into the fields read so far.
type dateReader struct {
	dateParts
	s string
	i int
}

func (r *dateReader) skipSpace() {
	for r.i < len(r.s) && (r.s[r.i] == ' ' || r.s[r.i] == '\t' || r.s[r.i] == '\n') {
		r.i++
	}
}

// literal reads the character c.
func (r *dateReader) literal(c byte) bool {
	if r.i >= len(r.s) || r.s[r.i] != c {
		return false
	}
	r.i++
	return true
}

// num reads a number of up to maxDigits digits.
func (r *dateReader) num(maxDigits int) (int, bool) {
	start, n := r.i, 0
	for r.i < len(r.s) && r.s[r.i] >= '0' && r.s[r.i] <= '9' && r.i-start < maxDigits {
		n = n*10 + int(r.s[r.i]-'0')
		r.i++
	}
	return n, r.i > start
}

// name reads one of names (or of their three-letter abbreviations), in any case; its index.
func (r *dateReader) name(names []string, abbrev bool) (int, bool) {
	for k, full := range names {
		n := full
		if abbrev {
			n = full[:3]
		}
		if len(r.s)-r.i >= len(n) && strings.EqualFold(r.s[r.i:r.i+len(n)], n) {
			r.i += len(n)
			return k, true
		}
	}
	return 0, false
}

// numberField reads the field of a numeric specifier (%Y, %m, %d, %H, …); known is false for
// the other specifiers.
func (r *dateReader) numberField(c byte) (ok, known bool) {
	known = true
	switch c {
	case 'Y':
		start := r.i
		if r.year, ok = r.num(4); !ok {
			return false, true
		}
		if r.i-start <= 2 {
			r.year = twoDigitYear(r.year)
		}
	case 'y':
		if r.year, ok = r.num(2); !ok {
			return false, true
		}
		r.year = twoDigitYear(r.year)
	case 'm', 'c':
		if r.month, ok = r.num(2); !ok {
			return false, true
		}
	case 'd', 'e':
		if r.day, ok = r.num(2); !ok {
			return false, true
		}
	case 'D':
		if r.day, ok = r.num(2); !ok {
			return false, true
		}
		if len(r.s)-r.i >= 2 {
			r.i += 2 // st, nd, rd, th
		}
	case 'j':
		if r.yearDay, ok = r.num(3); !ok {
			return false, true
		}
	case 'H', 'k':
		if r.hour, ok = r.num(2); !ok {
			return false, true
		}
	case 'h', 'I', 'l':
		if r.hour, ok = r.num(2); !ok {
			return false, true
		}
		r.hour12 = true
	case 'i':
		if r.minute, ok = r.num(2); !ok {
			return false, true
		}
	case 's', 'S':
		if r.second, ok = r.num(2); !ok {
			return false, true
		}
	case 'f':
		start := r.i
		if r.micro, ok = r.num(6); !ok {
			return false, true
		}
		for range 6 - (r.i - start) {
			r.micro *= 10
		}
	case 'w':
		d, ok := r.num(1)
		if !ok || d > 6 {
			return false, true
		}
		r.weekday = d
		if d == 0 {
			r.weekday = 7 // %w's Sunday is 0; %W's scale is 1 to 7
		}
	case 'U', 'u', 'V', 'v':
		r.sundayFirst, r.strictWeek = c == 'U' || c == 'V', c == 'V' || c == 'v'
		if r.week, ok = r.num(2); !ok || r.week > 53 || r.strictWeek && r.week == 0 {
			return false, true
		}
	case 'X', 'x':
		r.weekYearSunday = c == 'X'
		if r.weekYear, ok = r.num(4); !ok {
			return false, true
		}
	default:
		return false, false
	}
	return true, true
}

// otherField reads the field of a specifier that is not a number: AM/PM, names, %T, %r, %% and
// any other character, which must match itself.
func (r *dateReader) otherField(c byte) bool {
	switch c {
	case 'p':
		if len(r.s)-r.i < 2 {
			return false
		}
		switch strings.ToUpper(r.s[r.i : r.i+2]) {
		case "AM":
		case "PM":
			r.pm = true
		default:
			return false
		}
		r.hasAMPM = true
		r.i += 2
	case 'M':
		m, ok := r.name(monthNames, false)
		if !ok {
			return false
		}
		r.month = m + 1
	case 'b':
		m, ok := r.name(monthNames, true)
		if !ok {
			return false
		}
		r.month = m + 1
	case 'W', 'a':
		d, ok := r.name(dayNames, c == 'a')
		if !ok {
			return false
		}
		r.weekday = d + 1
	case 'T':
		sub, ok := strToDate(r.s[r.i:], "%H:%i:%s")
		if !ok {
			return false
		}
		r.hour, r.minute, r.second = sub.hour, sub.minute, sub.second
		r.i += timeTextLen(r.s[r.i:])
	case 'r':
		sub, ok := strToDate(r.s[r.i:], "%h:%i:%s %p")
		if !ok {
			return false
		}
		r.hour, r.minute, r.second, r.hour12, r.pm, r.hasAMPM = sub.hour, sub.minute, sub.second, true, sub.pm, true
		r.i += timeTextLen(r.s[r.i:])
		for r.i < len(r.s) && r.s[r.i] == ' ' {
			r.i++
		}
		r.i = min(r.i+2, len(r.s))
	case '%':
		if r.i >= len(r.s) || r.s[r.i] != '%' {
			return false
		}
		r.i++
	default:
		if r.i >= len(r.s) || r.s[r.i] != c {
			return false
		}
		r.i++
	}
	return true
}

// finish checks and completes the fields read: the hour by AM/PM, the month and day of a day of
// the year, a week date.
func (r *dateReader) finish() bool {
	if r.hour12 || r.hasAMPM {
		if r.hour < 1 || r.hour > 12 {
			return false
		}
		r.hour %= 12
		if r.pm {
			r.hour += 12
		}
	}
	if r.yearDay > 0 {
		if r.year == 0 || r.yearDay > int(daysInYear(r.year)) {
			return false
		}
		t := time.Date(r.year, 1, r.yearDay, 0, 0, 0, 0, time.UTC)
		r.month, r.day = int(t.Month()), t.Day()
	}
	if r.week >= 0 && r.weekday > 0 && !r.weekDate() {
		return false
	}
	if r.hour > 23 || r.minute > 59 || r.second > 59 {
		return false
	}
	return true
}

// weekDate sets the date from a week number and a weekday, as MySQL's extract_date_time: %V and
// %v count weeks of the year %X and %x name (and need them), %U and %u weeks of %Y.
func (p *dateParts) weekDate() bool {
	if p.strictWeek && (p.weekYear < 0 || p.weekYearSunday != p.sundayFirst) || !p.strictWeek && p.weekYear >= 0 {
		return false
	}
	year := p.year
	if p.strictWeek {
		year = p.weekYear
	}
	jan1 := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC)
	firstWeekday := int(calcWeekday(dayNumber(jan1), p.sundayFirst)) // of January 1st
	var days int
	if p.sundayFirst {
		if firstWeekday != 0 {
			days = 7
		}
		days += -firstWeekday + (p.week-1)*7 + p.weekday%7
	} else {
		if firstWeekday > 3 {
			days = 7
		}
		days += -firstWeekday + (p.week-1)*7 + p.weekday - 1
	}
	// MySQL's get_date_from_daynr gives the zero date for day numbers of year 0 and past 9999,
	// which is NULL under the default sql_mode.
	if n := dayNumber(jan1) + int64(days); n <= 365 || n >= 3652500 {
		return false
	}
	t := jan1.AddDate(0, 0, days)
	p.year, p.month, p.day = t.Year(), int(t.Month()), t.Day()
	return true
}

// timeTextLen is the length of the h:m:s at the start of s.
func timeTextLen(s string) int {
	i, colons := 0, 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == ':' && colons < 2) {
		if s[i] == ':' {
			colons++
		}
		i++
	}
	return i
}

func twoDigitYear(y int) int {
	if y < 70 {
		return y + 2000
	}
	return y + 1900
}
