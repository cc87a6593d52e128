package sqlvalue

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Date and time functions (MySQL 8 manual, 14.7 "Date and Time Functions"). Every time is UTC (the
// session's time_zone is UTC; see translate/sysvars.go), NOW() and its kin are the statement's clock
// (Args.Now, from the connector's clock), fixed for the whole statement as in MySQL. Text reads as
// a date or datetime as MySQL reads literals ('2024-03-01', '2024-03-01 12:00:00', '20240301', ISO
// with Z); text that does not, and impossible dates ('2023-02-29'), give NULL, as do results outside
// the years 1 to 9999. Zero dates ('0000-00-00') are NULL, as under MySQL 8's default sql_mode.

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

// ToTime reads a value as a time: a time as it is, text as a MySQL literal, an integer as YYYYMMDD
// or YYYYMMDDhhmmss. It reports false for anything else (then the function gives NULL).
func ToTime(v any) (time.Time, bool) {
	switch v := v.(type) {
	case time.Time:
		return v.UTC(), true
	case string:
		mt, ok := parseMySQLTime(v)
		return mt.t, ok
	case int64:
		if v <= 0 {
			return time.Time{}, false
		}
		mt, ok := timeFromNumber(v, len(strconv.FormatInt(v, 10)))
		return mt.t, ok
	case float64:
		if v <= 0 || v >= 1e15 {
			return time.Time{}, false
		}
		return ToTime(int64(v))
	}
	return time.Time{}, false
}

// dateArgs checks that the arguments at the given positions can be times: times, text, numbers or
// NULL. Anything that is not a time may not read as one, so the result may be NULL.
func dateArgs(positions ...int) func(fc *Check) error {
	return func(fc *Check) error {
		for _, i := range positions {
			if i >= len(fc.Args) {
				continue
			}
			a := fc.Args[i]
			switch {
			case a.Type.Temporal():
			case a.Type == Text || a.Type == Null || a.Type == Int || a.Type == Float:
				fc.Nullable = true
			default:
				return fc.Errorf("%s needs a date, but %s is %s", fc.Name, Describe(a), a.Type)
			}
		}
		return nil
	}
}

// dateFunc is a function of one date argument (and optional others).
func dateFunc(min, max int, result Type, f func(t time.Time, e *Call, v []any) any) *Func {
	check := dateArgs(0)
	return &Func{Min: min, Max: max, Type: func(fc *Check) (Type, error) {
		return result, check(fc)
	}, Eval: func(e *Call, v []any) any {
		t, ok := ToTime(v[0])
		if !ok {
			return nil
		}
		return f(t, e, v)
	}}
}

// dayNumber is MySQL's calc_daynr: days since year 0 (0000-01-01 is day 1 of the proleptic calendar
// MySQL uses; 1970-01-01 is 719528).
func dayNumber(t time.Time) int64 {
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return floorDiv(d.Unix(), 86400) + 719528
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// Week modes (MySQL's sql_time.h).
const (
	weekMondayFirst  = 1
	weekYear         = 2
	weekFirstWeekday = 4
)

// weekMode turns WEEK()'s mode argument into calcWeek's flags (MySQL's week_mode).
func weekMode(mode int64) int {
	f := int(mode & 7)
	if f&weekMondayFirst == 0 {
		f ^= weekFirstWeekday
	}
	return f
}

// calcWeek is MySQL's calc_week: the week number of t and the year it belongs to.
func calcWeek(t time.Time, flags int) (week, year int) {
	daynr := dayNumber(t)
	firstDaynr := dayNumber(time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC))
	mondayFirst := flags&weekMondayFirst != 0
	wYear := flags&weekYear != 0
	firstWeekday := flags&weekFirstWeekday != 0
	weekday := calcWeekday(firstDaynr, !mondayFirst)
	year = t.Year()
	if t.Month() == 1 && int64(t.Day()) <= 7-weekday {
		if !wYear && ((firstWeekday && weekday != 0) || (!firstWeekday && weekday >= 4)) {
			return 0, year
		}
		wYear = true
		year--
		days := daysInYear(year)
		firstDaynr -= days
		weekday = (weekday + 53*7 - days) % 7
	}
	var days int64
	if (firstWeekday && weekday != 0) || (!firstWeekday && weekday >= 4) {
		days = daynr - (firstDaynr + (7 - weekday))
	} else {
		days = daynr - (firstDaynr - weekday)
	}
	if wYear && days >= 52*7 {
		weekday = (weekday + daysInYear(year)) % 7
		if (!firstWeekday && weekday < 4) || (firstWeekday && weekday == 0) {
			return 1, year + 1
		}
	}
	return int(days/7 + 1), year
}

// calcWeekday is MySQL's calc_weekday: 0 is Monday, or Sunday when sundayFirst.
func calcWeekday(daynr int64, sundayFirst bool) int64 {
	s := int64(0)
	if sundayFirst {
		s = 1
	}
	return (daynr + 5 + s) % 7
}

func daysInYear(y int) int64 {
	if isLeap(y) {
		return 366
	}
	return 365
}

// unitHasTime: the unit adds hours, minutes or seconds (a DATE plus it is a DATETIME).
func unitHasTime(unit string) bool {
	switch unit {
	case "DAY", "WEEK", "MONTH", "QUARTER", "YEAR", "YEAR_MONTH":
		return false
	}
	return true
}

// Interval is an amount of time to add: months (calendar), then microseconds.
type Interval struct {
	Months int64
	Micros int64
}

// ParseInterval reads INTERVAL amount unit. A composite unit reads its parts from text
// ('1:30' HOUR_MINUTE), the leftmost parts left out when fewer are given, as MySQL does.
func ParseInterval(amount any, unit string) (Interval, bool) {
	const (
		us  = int64(1)
		sec = 1_000_000 * us
		mn  = 60 * sec
		hr  = 60 * mn
		day = 24 * hr
	)
	simple := map[string]int64{"MICROSECOND": us, "SECOND": sec, "MINUTE": mn, "HOUR": hr, "DAY": day, "WEEK": 7 * day}
	switch unit {
	case "MONTH", "QUARTER", "YEAR":
		n := ToInt(amount)
		m := map[string]int64{"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit]
		if n > math.MaxInt64/12 || n < math.MinInt64/12 {
			return Interval{}, false
		}
		return Interval{Months: n * m}, true
	case "SECOND":
		f, _ := ToFloat(amount)
		if math.Abs(f) > 1e14 {
			return Interval{}, false
		}
		return Interval{Micros: int64(math.Round(f * 1e6))}, true
	}
	if step, ok := simple[unit]; ok {
		n := ToInt(amount)
		if n > math.MaxInt64/step || n < math.MinInt64/step {
			return Interval{}, false
		}
		return Interval{Micros: n * step}, true
	}
	// Composite units: the fields of the text, right-aligned to the unit's fields.
	fields := map[string][]int64{
		"YEAR_MONTH": {12, 1}, "DAY_HOUR": {day, hr}, "DAY_MINUTE": {day, hr, mn}, "DAY_SECOND": {day, hr, mn, sec},
		"HOUR_MINUTE": {hr, mn}, "HOUR_SECOND": {hr, mn, sec}, "MINUTE_SECOND": {mn, sec},
		"DAY_MICROSECOND": {day, hr, mn, sec, us}, "HOUR_MICROSECOND": {hr, mn, sec, us},
		"MINUTE_MICROSECOND": {mn, sec, us}, "SECOND_MICROSECOND": {sec, us},
	}[unit]
	if fields == nil {
		return Interval{}, false
	}
	text := Format(amount, Text)
	neg := false
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "-") {
		neg, text = true, text[1:]
	}
	var nums []int64
	var lens []int
	for i := 0; i < len(text); {
		if text[i] < '0' || text[i] > '9' {
			i++
			continue
		}
		j := i
		var n int64
		for j < len(text) && text[j] >= '0' && text[j] <= '9' {
			if n > 1e15 {
				return Interval{}, false
			}
			n = n*10 + int64(text[j]-'0')
			j++
		}
		nums, lens = append(nums, n), append(lens, j-i)
		i = j
	}
	if len(nums) == 0 || len(nums) > len(fields) {
		return Interval{}, false
	}
	off := len(fields) - len(nums)
	var iv Interval
	for k, n := range nums {
		step := fields[off+k]
		if strings.HasSuffix(unit, "_MICROSECOND") && off+k == len(fields)-1 && lens[k] < 6 {
			// A fraction of a second: '1.5' SECOND_MICROSECOND is 1.5 seconds.
			for range 6 - lens[k] {
				n *= 10
			}
		}
		if unit == "YEAR_MONTH" {
			iv.Months += n * step
		} else {
			iv.Micros += n * step
		}
	}
	if neg {
		iv.Months, iv.Micros = -iv.Months, -iv.Micros
	}
	return iv, true
}

// AddInterval adds iv (times sign) to t: months first, the day kept or clamped to the month's
// last day (2024-01-31 + 1 MONTH is 2024-02-29), then the rest. False outside years 1 to 9999.
func AddInterval(t time.Time, iv Interval, sign int64) (time.Time, bool) {
	if iv.Months != 0 {
		total := int64(t.Year())*12 + int64(t.Month()) - 1 + sign*iv.Months
		if total < 12 || total >= 10000*12 {
			return time.Time{}, false
		}
		y, m := int(total/12), time.Month(total%12+1)
		d := min(t.Day(), daysIn(y, m))
		t = time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	}
	if iv.Micros != 0 {
		const maxMicros = 10000 * 366 * 86400 * 1_000_000
		if iv.Micros > maxMicros || iv.Micros < -maxMicros {
			return time.Time{}, false
		}
		// In two steps of seconds and microseconds: time.Duration holds only ±292 years.
		secs, rest := iv.Micros/1_000_000, iv.Micros%1_000_000
		t = t.Add(time.Duration(sign*secs) * time.Second).Add(time.Duration(sign*rest) * time.Microsecond)
	}
	if t.Year() < 1 || t.Year() > 9999 {
		return time.Time{}, false
	}
	return t, true
}

// monthsBetween is TIMESTAMPDIFF(MONTH, a, b): whole months from a to b, a month counted only
// when the day and time of day of b reach those of a.
func monthsBetween(a, b time.Time) int64 {
	months := int64(b.Year()*12+int(b.Month())) - int64(a.Year()*12+int(a.Month()))
	rest := func(t time.Time) int64 {
		return int64(t.Day())*86400_000_000 + int64(t.Hour()*3600+t.Minute()*60+t.Second())*1_000_000 + int64(t.Nanosecond()/1000)
	}
	if !b.Before(a) {
		if rest(b) < rest(a) {
			months--
		}
	} else if rest(b) > rest(a) {
		months++
	}
	return months
}

// unitName reads the unit argument of TIMESTAMPDIFF, TIMESTAMPADD and EXTRACT: a bare word
// (compiled into a text constant by specialCall).
func unitName(fc *Check, i int) (string, error) {
	a := fc.Args[i]
	u, ok := a.Value.(string)
	if !a.Const || !ok || !IntervalUnits[strings.ToUpper(u)] {
		return "", fc.Errorf("%s is not a time unit (MICROSECOND, SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR, or a compound such as HOUR_MINUTE)", Describe(a))
	}
	return strings.ToUpper(u), nil
}

// curdate is CURDATE(): the statement's day.
var curdate = &Func{Min: 0, Max: 0, Type: func(fc *Check) (Type, error) {
	n := fc.Env.Now()
	fc.Param = time.Date(n.Year(), n.Month(), n.Day(), 0, 0, 0, 0, time.UTC)
	return Date, nil
}, Eval: func(e *Call, v []any) any { return e.Param }}

// curtime is CURTIME(): the statement's time of day, as text.
var curtime = &Func{Min: 0, Max: 0, Type: func(fc *Check) (Type, error) {
	fc.Param = fc.Env.Now().Format(time.TimeOnly)
	return Text, nil
}, Eval: func(e *Call, v []any) any { return e.Param }}

// part is a function of a date's part, an integer (YEAR, MONTH, …).
func part(f func(t time.Time) int64) *Func {
	return dateFunc(1, 1, Int, func(t time.Time, e *Call, v []any) any { return f(t) })
}

// dateAddFunc is DATE_ADD (sign 1) or DATE_SUB (sign -1).
func dateAddFunc(sign int64) *Func {
	return &Func{Min: 3, Max: 3, Type: dateAddType, MayBeNull: true, Eval: func(e *Call, v []any) any {
		return dateAdd(e, v, sign)
	}}
}

// statementNow is NOW(): the statement's clock to the second, or to fsp digits with NOW(fsp).
func statementNow(fc *Check) time.Time {
	n := fc.Env.Now()
	digits := int64(0)
	if len(fc.Args) == 1 {
		digits, _ = fc.Args[0].Value.(int64)
	}
	step := time.Second
	for range min(max(digits, 0), 6) {
		step /= 10
	}
	return n.Truncate(step)
}

// dateFuncs is this file's part of the function table (funcTable), by name.
var dateFuncs = map[string]*Func{
	"NOW": {Min: 0, Max: 1, Type: func(fc *Check) (Type, error) {
		fc.Param = statementNow(fc)
		return DateTime, nil
	}, Eval: func(e *Call, v []any) any { return e.Param }},
	"UTC_TIMESTAMP": {Min: 0, Max: 1, Type: func(fc *Check) (Type, error) {
		fc.Param = statementNow(fc)
		return DateTime, nil
	}, Eval: func(e *Call, v []any) any { return e.Param }},
	"CURDATE":  curdate,
	"UTC_DATE": curdate,
	// CURTIME() is a TIME in MySQL; the driver has no TIME type and gives its text, hh:mm:ss.
	"CURTIME":  curtime,
	"UTC_TIME": curtime,
	"UNIX_TIMESTAMP": {Min: 0, Max: 1, Type: func(fc *Check) (Type, error) {
		if len(fc.Args) == 0 {
			fc.Param = fc.Env.Now().Unix()
			return Int, nil
		}
		if err := dateArgs(0)(fc); err != nil {
			return 0, err
		}
		// A time with a fraction of a second gives a fraction (MySQL: a DECIMAL with the fraction's
		// digits); the driver's datetime columns carry milliseconds, so they are FLOAT64.
		if fc.Args[0].Type == DateTime || fc.Args[0].Type == Text {
			return Float, nil
		}
		return Int, nil
	}, Eval: func(e *Call, v []any) any {
		if len(v) == 0 {
			return e.Param
		}
		t, ok := ToTime(v[0])
		if !ok {
			return nil
		}
		// Out of the TIMESTAMP range (1970 to 3001-01-19 03:14:07.999999 UTC): 0, as MySQL gives.
		if t.Before(time.Unix(0, 0)) || t.After(time.Date(3001, 1, 19, 3, 14, 7, 999999000, time.UTC)) {
			if e.Type == Float {
				return float64(0)
			}
			return int64(0)
		}
		if e.Type == Float {
			return float64(t.UnixMicro()) / 1e6
		}
		return t.Unix()
	}},
	// CONVERT_TZ(dt, from, to): the wall time dt in zone from, as a wall time in zone to. Zones are
	// offsets ('+05:30') or names ('Europe/Paris', from Go's zone database); an unknown zone gives
	// NULL, as in MySQL.
	"CONVERT_TZ": {Min: 3, Max: 3, Type: func(fc *Check) (Type, error) {
		return DateTime, dateArgs(0)(fc)
	}, MayBeNull: true, Eval: func(e *Call, v []any) any {
		t, ok := ToTime(v[0])
		from, okFrom := zoneOf(textArg(e, v, 1))
		to, okTo := zoneOf(textArg(e, v, 2))
		if !ok || !okFrom || !okTo {
			return nil
		}
		wall := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), from).In(to)
		r := time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), wall.Nanosecond(), time.UTC)
		if r.Year() < 1 || r.Year() > 9999 {
			return nil
		}
		return r
	}},
	"FROM_UNIXTIME": {Min: 1, Max: 1, Type: typeOf(DateTime), MayBeNull: true, Eval: func(e *Call, v []any) any {
		f, _ := ToFloat(v[0])
		if f < 0 || f > 32536771199.999999 {
			return nil
		}
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(math.Round(frac*1e6))*1000).UTC()
	}},
	"YEAR":        part(func(t time.Time) int64 { return int64(t.Year()) }),
	"MONTH":       part(func(t time.Time) int64 { return int64(t.Month()) }),
	"DAY":         part(func(t time.Time) int64 { return int64(t.Day()) }),
	"HOUR":        part(func(t time.Time) int64 { return int64(t.Hour()) }),
	"MINUTE":      part(func(t time.Time) int64 { return int64(t.Minute()) }),
	"SECOND":      part(func(t time.Time) int64 { return int64(t.Second()) }),
	"MICROSECOND": part(func(t time.Time) int64 { return int64(t.Nanosecond() / 1000) }),
	"QUARTER":     part(func(t time.Time) int64 { return int64(t.Month()+2) / 3 }),
	"DAYOFYEAR":   part(func(t time.Time) int64 { return int64(t.YearDay()) }),
	"WEEKDAY":     part(func(t time.Time) int64 { return calcWeekday(dayNumber(t), false) }),
	"DAYOFWEEK":   part(func(t time.Time) int64 { return calcWeekday(dayNumber(t), true) + 1 }),
	"WEEKOFYEAR":  part(func(t time.Time) int64 { w, _ := calcWeek(t, weekMode(3)); return int64(w) }),
	"TO_DAYS":     part(func(t time.Time) int64 { return dayNumber(t) }),
	"DAYNAME":     dateFunc(1, 1, Text, func(t time.Time, e *Call, v []any) any { return t.Weekday().String() }),
	"MONTHNAME":   dateFunc(1, 1, Text, func(t time.Time, e *Call, v []any) any { return t.Month().String() }),
	"LAST_DAY": dateFunc(1, 1, Date, func(t time.Time, e *Call, v []any) any {
		return time.Date(t.Year(), t.Month(), daysIn(t.Year(), t.Month()), 0, 0, 0, 0, time.UTC)
	}),
	"DATE": dateFunc(1, 1, Date, func(t time.Time, e *Call, v []any) any {
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}),
	// WEEK(d[, mode]): mode 0 by default (default_week_format, which SET can change).
	"WEEK": {Min: 1, Max: 2, Type: func(fc *Check) (Type, error) {
		fc.Param = fc.Env.WeekFormat()
		return Int, dateArgs(0)(fc)
	}, Eval: func(e *Call, v []any) any {
		t, ok := ToTime(v[0])
		if !ok {
			return nil
		}
		mode, _ := e.Param.(int64)
		if len(v) == 2 {
			mode = ToInt(v[1])
		}
		w, _ := calcWeek(t, weekMode(mode))
		return int64(w)
	}},
	"YEARWEEK": {Min: 1, Max: 2, Type: func(fc *Check) (Type, error) {
		return Int, dateArgs(0)(fc)
	}, Eval: func(e *Call, v []any) any {
		t, ok := ToTime(v[0])
		if !ok {
			return nil
		}
		mode := int64(0)
		if len(v) == 2 {
			mode = ToInt(v[1])
		}
		w, y := calcWeek(t, weekMode(mode)|weekYear)
		return int64(y*100 + w)
	}},
	"DATEDIFF": {Min: 2, Max: 2, Type: func(fc *Check) (Type, error) {
		return Int, dateArgs(0, 1)(fc)
	}, Eval: func(e *Call, v []any) any {
		a, okA := ToTime(v[0])
		b, okB := ToTime(v[1])
		if !okA || !okB {
			return nil
		}
		return dayNumber(a) - dayNumber(b)
	}},
	"TIMESTAMPDIFF": {Min: 3, Max: 3, Type: func(fc *Check) (Type, error) {
		if _, err := unitName(fc, 0); err != nil {
			return 0, err
		}
		if u := strings.ToUpper(fc.Args[0].Value.(string)); strings.Contains(u, "_") {
			return 0, fc.Errorf("TIMESTAMPDIFF takes a simple unit (MICROSECOND … YEAR), not %s", u)
		}
		return Int, dateArgs(1, 2)(fc)
	}, Eval: func(e *Call, v []any) any {
		a, okA := ToTime(v[1])
		b, okB := ToTime(v[2])
		if !okA || !okB {
			return nil
		}
		unit := strings.ToUpper(v[0].(string))
		switch unit {
		case "MONTH":
			return monthsBetween(a, b)
		case "QUARTER":
			return monthsBetween(a, b) / 3
		case "YEAR":
			return monthsBetween(a, b) / 12
		}
		micros := b.Sub(a).Microseconds()
		if d := b.Sub(a); d == math.MaxInt64 || d == math.MinInt64 { // beyond ±292 years
			micros = (b.Unix()-a.Unix())*1_000_000 + int64(b.Nanosecond()-a.Nanosecond())/1000
		}
		step := map[string]int64{"MICROSECOND": 1, "SECOND": 1e6, "MINUTE": 60e6, "HOUR": 3600e6, "DAY": 86400e6, "WEEK": 7 * 86400e6}[unit]
		return micros / step
	}},
	// DATE_ADD(d, INTERVAL n unit), DATE_SUB, d + INTERVAL n unit, d - INTERVAL n unit, and
	// TIMESTAMPADD(unit, n, d): arguments (d, n, 'UNIT') after specialCall.
	"DATE_ADD": dateAddFunc(1),
	"DATE_SUB": dateAddFunc(-1),
	"EXTRACT FROM": {Min: 2, Max: 2, Type: func(fc *Check) (Type, error) {
		if _, err := unitName(fc, 0); err != nil {
			return 0, err
		}
		return Int, dateArgs(1)(fc)
	}, Eval: func(e *Call, v []any) any {
		t, ok := ToTime(v[1])
		if !ok {
			return nil
		}
		return extract(strings.ToUpper(v[0].(string)), t)
	}},
	"DATE_FORMAT": {Min: 2, Max: 2, Type: func(fc *Check) (Type, error) {
		return Text, dateArgs(0)(fc)
	}, Eval: func(e *Call, v []any) any {
		t, ok := ToTime(v[0])
		if !ok {
			return nil
		}
		return dateFormat(t, textArg(e, v, 1))
	}},
	"STR_TO_DATE": {Min: 2, Max: 2, MayBeNull: true, Type: func(fc *Check) (Type, error) {
		// The result is a DATE, DATETIME or TIME by the parts the format names; a format that is
		// not a constant gives a DATETIME.
		f := fc.Args[1]
		if s, ok := f.Value.(string); f.Const && ok {
			date, clock := formatParts(s)
			switch {
			case date && !clock:
				return Date, nil
			case clock && !date:
				return Text, nil // a TIME, as its text
			}
		}
		return DateTime, nil
	}, Eval: func(e *Call, v []any) any {
		p, ok := strToDate(textArg(e, v, 0), textArg(e, v, 1))
		if !ok {
			return nil
		}
		if e.Type == Text {
			return fmt.Sprintf("%02d:%02d:%02d", p.hour, p.minute, p.second)
		}
		t, ok := validTime(p.year, p.month, p.day, p.hour, p.minute, p.second, p.micro*1000)
		if !ok {
			return nil
		}
		return t
	}},
}

// dateAddType types DATE_ADD: a DATE plus days, weeks, months or years is a DATE; a DATE plus hours
// or less, or a DATETIME, is a DATETIME; text gives text in the same form, as MySQL's string result.
func dateAddType(fc *Check) (Type, error) {
	unit, err := unitName(fc, 2)
	if err != nil {
		return 0, err
	}
	if err := dateArgs(0)(fc); err != nil {
		return 0, err
	}
	switch t := fc.Args[0].Type; {
	case t == Date && !unitHasTime(unit):
		return Date, nil
	case t.Temporal():
		return DateTime, nil
	case t == Null:
		return DateTime, nil
	}
	return Text, nil
}

func dateAdd(e *Call, v []any, sign int64) any {
	unit := strings.ToUpper(v[2].(string))
	t, ok := ToTime(v[0])
	if !ok {
		return nil
	}
	iv, ok := ParseInterval(v[1], unit)
	if !ok {
		return nil
	}
	r, ok := AddInterval(t, iv, sign)
	if !ok {
		return nil
	}
	if e.Type == Text {
		dateOnly := false
		if s, isText := v[0].(string); isText {
			mt, _ := parseMySQLTime(s)
			dateOnly = mt.dateOnly
		}
		if dateOnly && !unitHasTime(unit) {
			return Format(r, Date)
		}
		return Format(r, DateTime)
	}
	return r
}

// extract is EXTRACT(unit FROM t).
func extract(unit string, t time.Time) any {
	y, mo, d := int64(t.Year()), int64(t.Month()), int64(t.Day())
	h, mi, s, us := int64(t.Hour()), int64(t.Minute()), int64(t.Second()), int64(t.Nanosecond()/1000)
	switch unit {
	case "YEAR":
		return y
	case "QUARTER":
		return (mo + 2) / 3
	case "MONTH":
		return mo
	case "WEEK":
		w, _ := calcWeek(t, weekMode(0))
		return int64(w)
	case "DAY":
		return d
	case "HOUR":
		return h
	case "MINUTE":
		return mi
	case "SECOND":
		return s
	case "MICROSECOND":
		return us
	case "YEAR_MONTH":
		return y*100 + mo
	case "DAY_HOUR":
		return d*100 + h
	case "DAY_MINUTE":
		return (d*100+h)*100 + mi
	case "DAY_SECOND":
		return ((d*100+h)*100+mi)*100 + s
	case "DAY_MICROSECOND":
		return (((d*100+h)*100+mi)*100+s)*1_000_000 + us
	case "HOUR_MINUTE":
		return h*100 + mi
	case "HOUR_SECOND":
		return (h*100+mi)*100 + s
	case "HOUR_MICROSECOND":
		return ((h*100+mi)*100+s)*1_000_000 + us
	case "MINUTE_SECOND":
		return mi*100 + s
	case "MINUTE_MICROSECOND":
		return (mi*100+s)*1_000_000 + us
	case "SECOND_MICROSECOND":
		return s*1_000_000 + us
	}
	return nil
}

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

var zoneCache sync.Map // name -> *time.Location

// zoneOf reads a time zone of CONVERT_TZ: an offset from -13:59 to +14:00, SYSTEM (UTC here) or a
// name of the zone database.
func zoneOf(name string) (*time.Location, bool) {
	name = strings.TrimSpace(name)
	if strings.EqualFold(name, "SYSTEM") || strings.EqualFold(name, "UTC") {
		return time.UTC, true
	}
	if len(name) >= 5 && (name[0] == '+' || name[0] == '-') {
		h, m, ok := strings.Cut(name[1:], ":")
		hh, err1 := strconv.Atoi(h)
		mm, err2 := strconv.Atoi(m)
		if !ok || err1 != nil || err2 != nil || len(m) != 2 || mm > 59 || hh > 14 || (hh == 14 && mm > 0) || (name[0] == '-' && hh > 13) {
			return nil, false
		}
		off := hh*3600 + mm*60
		if name[0] == '-' {
			off = -off
		}
		return time.FixedZone(name, off), true
	}
	if loc, ok := zoneCache.Load(name); ok {
		return loc.(*time.Location), true
	}
	loc, err := time.LoadLocation(name) // refuses "..": no path outside the zone database
	if err != nil || name == "" || name == "Local" {
		return nil, false
	}
	zoneCache.Store(name, loc)
	return loc, true
}
