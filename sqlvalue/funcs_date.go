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
			case a.Type == Text || a.Type == Null || a.Type == Int || a.Type == Cond || a.Type == Float:
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
