package formula

import (
	"strings"
	"time"
)

// parseISO reads an ISO 8601 date or date-time: YYYY-MM-DD, optionally followed by T or a space,
// HH:mm, optional :ss and fraction, and an optional zone (Z, ±HH:MM, ±HHMM, ±HH). Times without a
// zone are read in loc. It does not allocate.
func parseISO(s string, loc *time.Location) (time.Time, bool) {
	s = strings.TrimSpace(s)
	p := isoScanner{s: s}
	year, ok1 := p.digits(4)
	ok2 := p.byte('-')
	month, ok3 := p.digits(2)
	ok4 := p.byte('-')
	day, ok5 := p.digits(2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5) || month < 1 || month > 12 || day < 1 || day > daysIn(time.Month(month), year) {
		return time.Time{}, false
	}
	if p.done() {
		return time.Date(year, time.Month(month), day, 0, 0, 0, 0, loc), true
	}
	if !p.byte('T') && !p.byte(' ') && !p.byte('t') {
		return time.Time{}, false
	}
	hour, ok1 := p.digits(2)
	ok2 = p.byte(':')
	minute, ok3 := p.digits(2)
	if !(ok1 && ok2 && ok3) || hour > 24 || minute > 59 {
		return time.Time{}, false
	}
	sec, nsec := 0, 0
	if p.byte(':') {
		var ok bool
		if sec, ok = p.digits(2); !ok || sec > 59 {
			return time.Time{}, false
		}
		if p.byte('.') || p.byte(',') {
			var next int
			if nsec, next = fractionDigits(p.s, p.i); next == p.i {
				return time.Time{}, false
			}
			p.i = next
		}
	}
	if hour == 24 && (minute != 0 || sec != 0 || nsec != 0) {
		return time.Time{}, false
	}
	zone := loc
	if !p.done() {
		switch p.s[p.i] {
		case 'Z', 'z':
			p.i++
			zone = time.UTC
		case '+', '-':
			sign := 1
			if p.s[p.i] == '-' {
				sign = -1
			}
			p.i++
			zh, ok := p.digits(2)
			if !ok || zh > 23 {
				return time.Time{}, false
			}
			zm := 0
			colon := p.byte(':')
			if !p.done() || colon {
				if zm, ok = p.digits(2); !ok || zm > 59 {
					return time.Time{}, false
				}
			}
			zone = fixedZone(sign * (zh*3600 + zm*60))
		default:
			return time.Time{}, false
		}
		if !p.done() {
			return time.Time{}, false
		}
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, zone), true
}

// fixedZone returns UTC for a zero offset, so that common inputs share one location.
func fixedZone(offset int) *time.Location {
	if offset == 0 {
		return time.UTC
	}
	return time.FixedZone("", offset)
}

func daysIn(m time.Month, year int) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

type isoScanner struct {
	s string
	i int
}

// fractionDigits reads the digits of a fraction of a second at s[i:] as nanoseconds (digits past
// the ninth are read and dropped); next is the index after them, i when there are none.
func fractionDigits(s string, i int) (nsec, next int) {
	scale := 100000000
	for next = i; next < len(s) && isDigit(s[next]); next++ {
		nsec += int(s[next]-'0') * scale
		scale /= 10
	}
	return nsec, next
}

func (p *isoScanner) done() bool { return p.i >= len(p.s) }

func (p *isoScanner) byte(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *isoScanner) digits(n int) (int, bool) {
	if p.i+n > len(p.s) {
		return 0, false
	}
	v := 0
	for k := 0; k < n; k++ {
		c := p.s[p.i+k]
		if !isDigit(c) {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	p.i += n
	return v, true
}
