package sqlvalue

import (
	"strconv"
	"strings"
	"time"
)

// Reading a date, datetime or time of day from text or a number, as MySQL reads literals.

// mysqlTime is a time read from text, and whether the text had no time of day.
type mysqlTime struct {
	t        time.Time
	dateOnly bool
}

// parseMySQLTime reads a date or datetime literal as MySQL does.
func parseMySQLTime(s string) (mysqlTime, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return mysqlTime{}, false
	}
	if strings.Trim(s, "0123456789") == "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return mysqlTime{}, false
		}
		switch len(s) {
		case 8, 14, 6, 12:
			return timeFromNumber(n, len(s))
		}
		return mysqlTime{}, false
	}
	// Y-M-D[( |T)h:m[:s[.f]]][Z|±hh:mm]; the date's delimiters may be any punctuation.
	r := &timeReader{s: s}
	var parts [7]int
	if !r.date(&parts) {
		return mysqlTime{}, false
	}
	dateOnly := true
	if r.i < len(s) && (s[r.i] == ' ' || s[r.i] == 'T') {
		dateOnly = false
		if !r.clock(&parts) {
			return mysqlTime{}, false
		}
	}
	offset, ok := zoneOffset(s[r.i:])
	if !ok {
		return mysqlTime{}, false
	}
	t, ok := validTime(parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], parts[6])
	if !ok {
		return mysqlTime{}, false
	}
	return mysqlTime{t: t.Add(-time.Duration(offset) * time.Second), dateOnly: dateOnly}, true
}

// timeReader reads a date or datetime literal: s from i.
type timeReader struct {
	s string
	i int
}

// number reads up to maxDigits digits: the number, how many digits, and whether there was one.
func (r *timeReader) number(maxDigits int) (int, int, bool) {
	start := r.i
	n := 0
	for r.i < len(r.s) && r.s[r.i] >= '0' && r.s[r.i] <= '9' && r.i-start < maxDigits {
		n = n*10 + int(r.s[r.i]-'0')
		r.i++
	}
	return n, r.i - start, r.i > start
}

// date reads Y-M-D into parts[0:3]: a two-digit year is 1970-2069, the delimiters any punctuation.
func (r *timeReader) date(parts *[7]int) bool {
	for field := 0; field < 3; field++ {
		max := 2
		if field == 0 {
			max = 4
		}
		n, digits, ok := r.number(max)
		if !ok {
			return false
		}
		if field == 0 && digits <= 2 {
			// Two-digit years: 70-99 are 1970-1999, 00-69 are 2000-2069.
			if n < 70 {
				n += 2000
			} else {
				n += 1900
			}
		}
		parts[field] = n
		if field < 2 {
			if r.i >= len(r.s) || !isDatePunct(r.s[r.i]) {
				return false
			}
			r.i++
		}
	}
	return true
}

// clock reads ( |T)h:m[:s[.f]] into parts[3:7] (the fraction in nanoseconds).
func (r *timeReader) clock(parts *[7]int) bool {
	s := r.s
	r.i++
	for r.i < len(s) && s[r.i] == ' ' {
		r.i++
	}
	for field := 3; field < 6; field++ {
		n, _, ok := r.number(2)
		if !ok {
			if field == 5 { // seconds are optional
				break
			}
			return false
		}
		parts[field] = n
		if field < 5 {
			if r.i >= len(s) || s[r.i] != ':' {
				if field == 4 {
					break
				}
				return false
			}
			r.i++
		}
	}
	if r.i < len(s) && s[r.i] == '.' {
		r.i++
		start := r.i
		n := 0
		for r.i < len(s) && s[r.i] >= '0' && s[r.i] <= '9' {
			if r.i-start < 9 {
				n = n*10 + int(s[r.i]-'0')
			}
			r.i++
		}
		for d := min(r.i-start, 9); d < 9; d++ {
			n *= 10
		}
		parts[6] = n
	}
	return true
}

// zoneOffset reads what may follow a datetime literal: nothing, Z, or ±hh:mm; in seconds east.
func zoneOffset(rest string) (int, bool) {
	switch {
	case rest == "" || rest == "Z" || rest == "z":
		return 0, true
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		h, err1 := strconv.Atoi(rest[1:3])
		m, err2 := strconv.Atoi(rest[4:6])
		if err1 != nil || err2 != nil || h > 14 || m > 59 {
			return 0, false
		}
		offset := h*3600 + m*60
		if rest[0] == '-' {
			offset = -offset
		}
		return offset, true
	}
	return 0, false
}

func isDatePunct(c byte) bool {
	return c == '-' || c == '/' || c == '.' || c == ':' || c == '_' || c == '\\' || c == '^' || c == '@' || c == '+' || c == '='
}

// timeFromNumber reads YYYYMMDD, YYMMDD, YYYYMMDDhhmmss or YYMMDDhhmmss.
func timeFromNumber(n int64, digits int) (mysqlTime, bool) {
	var hms int64 = -1
	if digits > 8 {
		hms, n = n%1000000, n/1000000
		digits -= 6
	}
	y, m, d := int(n/10000), int(n/100%100), int(n%100)
	if digits == 6 {
		if y < 70 {
			y += 2000
		} else {
			y += 1900
		}
	}
	var h, mi, sec int
	if hms >= 0 {
		h, mi, sec = int(hms/10000), int(hms/100%100), int(hms%100)
	}
	t, ok := validTime(y, m, d, h, mi, sec, 0)
	return mysqlTime{t: t, dateOnly: hms < 0}, ok
}

// validTime builds a UTC time from its parts, or reports false when the date does not exist (a
// zero month or day, February 30) or the year is outside 1 to 9999.
func validTime(y, m, d, h, mi, s, ns int) (time.Time, bool) {
	if y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > daysIn(y, time.Month(m)) || h > 23 || mi > 59 || s > 59 {
		return time.Time{}, false
	}
	return time.Date(y, time.Month(m), d, h, mi, s, ns, time.UTC), true
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }
