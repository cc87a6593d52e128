package sqlvalue

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// TIME values (MySQL 8 manual, 13.2.3 and 14.7): SEC_TO_TIME, TIME_TO_SEC, MAKETIME, TIMEDIFF,
// ADDTIME, SUBTIME and TIME_FORMAT, and the date functions MAKEDATE and TIMESTAMP. A TIME is a
// signed duration from -838:59:59 to 838:59:59 (larger results are clamped there, as MySQL
// does); the driver has no TIME column type, so a TIME is its text, 'HH:MM:SS[.ffffff]', as
// CURTIME() and STR_TO_DATE with a time-only format already are (README: deliberate differences).

// maxTimeMicros is 838:59:59, TIME's largest value.
const maxTimeMicros = ((838*60+59)*60 + 59) * 1_000_000

// duration is a TIME value: a signed count of microseconds, and the fraction digits it is written with.
type duration struct {
	micros int64
	digits int
}

// clamp limits d to TIME's range as MySQL's adjust_time_range: beyond it, ±838:59:59 with no
// fraction (written with d's fraction digits, .000).
func (d duration) clamp() duration {
	d.micros = max(min(d.micros, maxTimeMicros), -maxTimeMicros)
	return d
}

// String writes the TIME as MySQL does: [-]HH:MM:SS, more hour digits when needed, and digits
// fraction digits.
func (d duration) String() string {
	m, sign := d.micros, ""
	if m < 0 {
		m, sign = -m, "-"
	}
	s := m / 1_000_000
	out := fmt.Sprintf("%s%02d:%02d:%02d", sign, s/3600, s/60%60, s%60)
	if d.digits > 0 {
		frac := fmt.Sprintf("%06d", m%1_000_000)
		out += "." + frac[:min(d.digits, 6)]
	}
	return out
}

// timeOfDay is the TIME of a date or datetime: its time of day.
func timeOfDay(t time.Time, digits int) duration {
	t = t.UTC()
	return duration{micros: int64(t.Hour()*3600+t.Minute()*60+t.Second())*1_000_000 + int64(t.Nanosecond()/1000), digits: digits}
}

// fractionDigits is the number of digits after the point of a number's text, at most 6.
func fractionDigits(text string) int {
	if _, frac, ok := strings.Cut(text, "."); ok {
		n := 0
		for n < len(frac) && frac[n] >= '0' && frac[n] <= '9' {
			n++
		}
		return min(n, 6)
	}
	return 0
}

// clockDigits is the number of fraction digits of a datetime's text (after its seconds).
func clockDigits(s string) int {
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		return fractionDigits(s[i:])
	}
	return 0
}

// parseDuration reads a TIME from text as MySQL does: [-][D ]H[H…]:MM[:SS[.f]], or the number
// form [-]HHMMSS[.f] (SS, MMSS, HHMMSS), or a datetime's time of day. ok is false for anything else.
func parseDuration(s string) (duration, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return duration{}, false
	}
	if strings.Count(s, "-") >= 2 || (strings.Contains(s, "-") && !strings.HasPrefix(s, "-")) {
		if mt, ok := parseMySQLTime(s); ok && !mt.dateOnly {
			return timeOfDay(mt.t, fractionDigits(s)), true
		}
		return duration{}, false
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var days int64
	if d, rest, ok := strings.Cut(s, " "); ok && strings.Contains(rest, ":") {
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil || n > 34 {
			return duration{}, false
		}
		days, s = n, strings.TrimSpace(rest)
	}
	whole, frac, _ := strings.Cut(s, ".")
	digits := len(frac)
	if digits > 0 {
		for _, c := range frac {
			if c < '0' || c > '9' {
				return duration{}, false
			}
		}
	}
	var h, m, sec int64
	if strings.Contains(whole, ":") {
		parts := strings.Split(whole, ":")
		if len(parts) > 3 {
			return duration{}, false
		}
		nums := make([]int64, 3)
		for i, p := range parts {
			n, err := strconv.ParseInt(p, 10, 64)
			if err != nil || n < 0 || p == "" {
				return duration{}, false
			}
			nums[i] = n
		}
		h, m, sec = nums[0], nums[1], nums[2]
	} else {
		n, err := strconv.ParseInt(whole, 10, 64)
		if err != nil || n < 0 {
			return duration{}, false
		}
		h, m, sec = n/10000, n/100%100, n%100
	}
	if m > 59 || sec > 59 {
		return duration{}, false
	}
	micros := ((days*24+h)*3600 + m*60 + sec) * 1_000_000
	if digits > 0 {
		f := frac + "000000"
		n, _ := strconv.ParseInt(f[:6], 10, 64)
		micros += n
	}
	if neg {
		micros = -micros
	}
	return duration{micros: micros, digits: min(digits, 6)}.clamp(), true
}

// toDuration reads an argument as a TIME: text as parseDuration, a date or datetime by its time
// of day, a number as [-]HHMMSS[.f].
func toDuration(a Arg, v any) (duration, bool) {
	switch x := v.(type) {
	case time.Time:
		return timeOfDay(x, max(a.Fsp, 0)), true
	case string:
		return parseDuration(x)
	case bool:
		return parseDuration(strconv.FormatInt(BoolInt(x), 10))
	case int64:
		return parseDuration(strconv.FormatInt(x, 10))
	case float64:
		return parseDuration(strconv.FormatFloat(x, 'f', -1, 64))
	}
	return duration{}, false
}

// isDatetimeText reports whether text reads as a date and time (ADDTIME's first argument then
// gives a DATETIME, not a TIME).
func isDatetimeText(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "-") || strings.HasPrefix(s, "-") {
		return time.Time{}, false
	}
	mt, ok := parseMySQLTime(s)
	return mt.t, ok
}

// secondsDigits is the fraction digits of a number of seconds: none for an integer, a decimal
// literal's own, six for any other DOUBLE or text (MySQL's NOT_FIXED_DEC).
func secondsDigits(a Arg) int {
	switch {
	case a.Type.Integer():
		return 0
	case a.Type == Float && a.Const && !strings.ContainsAny(a.SQL, "eE"):
		return fractionDigits(a.SQL)
	}
	return 6
}

// typedLiteral is the entry of DATE 'str', TIME 'str' or TIMESTAMP 'str' (typedLiteralEdits):
// the text must be a literal of that type, else the statement is refused as MySQL refuses it.
func typedLiteral(typ Type, kind string) *Func {
	read := func(s string) (any, bool) {
		if kind == "TIME" {
			d, ok := parseDuration(s)
			return d.String(), ok
		}
		mt, ok := parseMySQLTime(s)
		if !ok || kind == "DATE" && !mt.dateOnly {
			return nil, false
		}
		return mt.t, true
	}
	return &Func{Min: 1, Max: 1, Type: func(fc *Check) (Type, error) {
		a := fc.Args[0]
		s, isText := a.Value.(string)
		if !a.Const || !isText {
			return 0, fc.Errorf("%s takes a quoted literal", kind)
		}
		if _, ok := read(s); !ok {
			return 0, fc.Errorf("incorrect %s value: %s", kind, QuoteText(s))
		}
		return typ, nil
	}, Eval: func(e *Call, v []any) any {
		out, _ := read(v[0].(string))
		return out
	}}
}

// timeFuncs is this file's part of the function table (funcTable), by name.
var timeFuncs = map[string]*Func{
	DateLiteral:      typedLiteral(Date, "DATE"),
	TimeLiteral:      typedLiteral(Text, "TIME"),
	TimestampLiteral: typedLiteral(DateTime, "TIMESTAMP"),
	"MAKEDATE": {Min: 2, Max: 2, Type: typeOf(Date), MayBeNull: true, Eval: func(e *Call, v []any) any {
		y, d := ToInt(v[0]), ToInt(v[1])
		if d <= 0 || y < 0 || y > 9999 {
			return nil
		}
		if y < 100 {
			y = int64(twoDigitYear(int(y)))
		}
		t := time.Date(int(y), 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(min(d, 3_660_000))-1)
		if t.Year() > 9999 {
			return nil
		}
		return t
	}},
	// TIMESTAMP(expr) is expr as a DATETIME; TIMESTAMP(expr, time) adds the TIME to it.
	"TIMESTAMP": {Min: 1, Max: 2, MayBeNull: true, Type: func(fc *Check) (Type, error) {
		return DateTime, dateArgs(0)(fc)
	}, Eval: func(e *Call, v []any) any {
		t, ok := ToTime(v[0])
		if !ok {
			return nil
		}
		if len(v) == 2 {
			d, ok := toDuration(e.Args[1], v[1])
			if !ok {
				return nil
			}
			t = t.Add(time.Duration(d.micros) * time.Microsecond)
			if t.Year() > 9999 || t.Year() < 1 {
				return nil
			}
		}
		return t
	}},
	"MAKETIME": {Min: 3, Max: 3, Type: typeOf(Text), MayBeNull: true, Eval: func(e *Call, v []any) any {
		h, m := ToInt(v[0]), ToInt(v[1])
		s, _ := ToFloat(v[2])
		if m < 0 || m > 59 || s < 0 || s >= 60 {
			return nil
		}
		micros := int64(math.Round(s * 1e6))
		h = min(max(h, -1000), 1000) // beyond ±838 hours the result is clamped anyway
		d := duration{micros: (h*3600+m*60)*1_000_000 + micros, digits: secondsDigits(e.Args[2])}
		if h < 0 { // MAKETIME(-1, 5, 3) is -01:05:03: the sign applies to the whole time
			d.micros = (h*3600-m*60)*1_000_000 - micros
		}
		return d.clamp().String()
	}},
	"SEC_TO_TIME": {Min: 1, Max: 1, Type: typeOf(Text), Eval: func(e *Call, v []any) any {
		s, _ := ToFloat(v[0])
		micros := float64(maxTimeMicros + 1)
		if math.Abs(s) < 1e7 {
			micros = math.Round(s * 1e6)
		}
		return duration{micros: int64(math.Copysign(math.Min(math.Abs(micros), maxTimeMicros+1), micros)), digits: secondsDigits(e.Args[0])}.clamp().String()
	}},
	// TIME_TO_SEC: an integer, or a DOUBLE when the TIME has a fraction of a second.
	"TIME_TO_SEC": {Min: 1, Max: 1, Type: typeOf(Float), MayBeNull: true, Eval: func(e *Call, v []any) any {
		d, ok := toDuration(e.Args[0], v[0])
		if !ok {
			return nil
		}
		return float64(d.micros) / 1e6
	}},
	"TIMEDIFF": {Min: 2, Max: 2, Type: typeOf(Text), MayBeNull: true, Eval: func(e *Call, v []any) any {
		a, aKind := timeOrDatetime(e.Args[0], v[0])
		b, bKind := timeOrDatetime(e.Args[1], v[1])
		if a == nil || b == nil || aKind != bKind {
			return nil // a TIME and a DATETIME, a DATE and a DATETIME: MySQL gives NULL
		}
		return duration{micros: a.micros - b.micros, digits: max(a.digits, b.digits)}.clamp().String()
	}},
	"ADDTIME": {Min: 2, Max: 2, Type: addTimeType, MayBeNull: true, Eval: func(e *Call, v []any) any {
		return addTime(e, v, 1)
	}},
	"SUBTIME": {Min: 2, Max: 2, Type: addTimeType, MayBeNull: true, Eval: func(e *Call, v []any) any {
		return addTime(e, v, -1)
	}},
	"TIME_FORMAT": {Min: 2, Max: 2, Type: typeOf(Text), MayBeNull: true, Eval: func(e *Call, v []any) any {
		d, ok := toDuration(e.Args[0], v[0])
		if !ok {
			return nil
		}
		return timeFormat(d, textArg(e, v, 1))
	}},
}

// timeOrDatetime reads TIMEDIFF's argument as MySQL's get_time: a TIME, a DATE or a DATETIME
// (kind), as microseconds since 0001-01-01 for the last two; nil when it is none.
func timeOrDatetime(a Arg, v any) (d *duration, kind Type) {
	epoch := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	switch x := v.(type) {
	case time.Time:
		return &duration{micros: x.UnixMicro() - epoch, digits: max(a.Fsp, 0)}, a.Type
	case string:
		if t, ok := isDatetimeText(x); ok {
			kind := DateTime
			if mt, _ := parseMySQLTime(x); mt.dateOnly {
				kind = Date
			}
			return &duration{micros: t.UnixMicro() - epoch, digits: clockDigits(x)}, kind
		}
	}
	if dur, ok := toDuration(a, v); ok {
		return &dur, Text
	}
	return nil, Null
}

// addTimeType types ADDTIME and SUBTIME: a DATETIME when the first argument is a date or datetime,
// else text (a TIME, or a datetime's text when the text reads as one).
func addTimeType(fc *Check) (Type, error) {
	if fc.Args[0].Type.Temporal() {
		return DateTime, nil
	}
	return Text, nil
}

// addTime is ADDTIME (sign 1) and SUBTIME (sign -1).
func addTime(e *Call, v []any, sign int64) any {
	d, ok := toDuration(e.Args[1], v[1])
	if !ok {
		return nil
	}
	if s, isText := v[0].(string); isText {
		if t, ok := isDatetimeText(s); ok {
			r := t.Add(time.Duration(sign*d.micros) * time.Microsecond)
			if r.Year() > 9999 || r.Year() < 1 {
				return nil
			}
			return FormatFsp(r, DateTime, max(clockDigits(s), d.digits))
		}
	}
	if t, ok := v[0].(time.Time); ok {
		r := t.Add(time.Duration(sign*d.micros) * time.Microsecond)
		if r.Year() > 9999 || r.Year() < 1 {
			return nil
		}
		return r
	}
	a, ok := toDuration(e.Args[0], v[0])
	if !ok {
		return nil
	}
	return duration{micros: a.micros + sign*d.micros, digits: max(a.digits, d.digits)}.clamp().String()
}

// timeFormat is TIME_FORMAT(t, format): DATE_FORMAT's hour, minute, second and fraction
// specifiers, with hours past 23 written as they are (%H, %k) or modulo 12 (%h, %I, %l); a date
// specifier makes the result NULL, as in MySQL.
func timeFormat(d duration, format string) any {
	m := d.micros
	neg := m < 0
	if neg {
		m = -m
	}
	s := m / 1_000_000
	h, mi, sec := s/3600, s/60%60, s%60
	h12 := h % 12
	if h12 == 0 {
		h12 = 12
	}
	ampm := "AM"
	if h%24 >= 12 {
		ampm = "PM"
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		switch format[i] {
		case 'H':
			fmt.Fprintf(&b, "%02d", h)
		case 'k':
			b.WriteString(strconv.FormatInt(h, 10))
		case 'h', 'I':
			fmt.Fprintf(&b, "%02d", h12)
		case 'l':
			b.WriteString(strconv.FormatInt(h12, 10))
		case 'i':
			fmt.Fprintf(&b, "%02d", mi)
		case 'S', 's':
			fmt.Fprintf(&b, "%02d", sec)
		case 'f':
			fmt.Fprintf(&b, "%06d", m%1_000_000)
		case 'p':
			b.WriteString(ampm)
		case 'r':
			fmt.Fprintf(&b, "%02d:%02d:%02d %s", h12, mi, sec, ampm)
		case 'T':
			fmt.Fprintf(&b, "%02d:%02d:%02d", h, mi, sec)
		case 'a', 'b', 'c', 'D', 'd', 'e', 'j', 'M', 'm', 'U', 'u', 'V', 'v', 'W', 'w', 'X', 'x', 'Y', 'y':
			return nil
		default:
			b.WriteByte(format[i])
		}
	}
	return b.String()
}
