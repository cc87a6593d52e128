package emulator

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// stringFormat renders cells for cellFormat=string. The service documents no exact strings
// (reference §4.5, [UNCONFIRMED]); this follows its grid: numbers per precision, dates per field
// format in the request's time zone, arrays joined with ", ", links as primary values,
// attachments as "filename (url)", checkbox as "checked".
type stringFormat struct {
	loc    *time.Location
	locale string
}

// timeZoneLocation is the location a request's timeZone names; UTC when it names none ("", "utc"
// in any case, or "client", which only a browser can resolve).
func timeZoneLocation(tz string) (*time.Location, *apiError) {
	if tz == "" || strings.EqualFold(tz, "utc") || tz == "client" {
		return time.UTC, nil
	}
	if loc, ok := knownZones.Load(tz); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, errInvalidRequest(fmt.Sprintf("timeZone %q is not a known time zone", tz))
	}
	knownZones.Store(tz, loc)
	return loc, nil
}

// knownZones keeps the zones loaded so far (name -> *time.Location; only names of the zone
// database, so it stays small): time.LoadLocation reads the database on every call (10 µs and 16
// allocations), which a date field with a timeZone would pay for every cell written.
var knownZones sync.Map

func (s *Server) recordStringFields(t *table, r *record, o renderOpts) map[string]any {
	out := map[string]any{}
	list := t.fields
	if o.only != nil {
		list = o.only
	}
	for _, fl := range list {
		v := s.cellValue(t, r, fl, 0)
		if isEmptyCell(v) {
			continue
		}
		str := s.cellString(t, fl, v, o.asString)
		if str == "" {
			continue
		}
		if o.byID {
			out[fl.ID] = str
		} else {
			out[fl.Name] = str
		}
	}
	return out
}

func (s *Server) cellString(t *table, fl *field, v any, sf *stringFormat) string {
	opts := fl.Options
	// Computed fields render as their result type, with the result's options (date and time formats).
	if fl.Type == "formula" || fl.Type == "rollup" || fl.Type == "createdTime" || fl.Type == "lastModifiedTime" {
		if res, ok := opts["result"].(map[string]any); ok {
			inner, _ := res["options"].(map[string]any)
			typ, _ := res["type"].(string)
			return s.cellString(t, &field{ID: fl.ID, Name: fl.Name, Type: typ, Options: inner}, v, sf)
		}
	}
	switch fl.Type {
	case "multipleLookupValues": // each value as the looked-up field writes it
		if target := s.lookupTarget(t, fl); target != nil {
			lt := t.base.tableByID[target.tableID]
			list, _ := v.([]any)
			parts := make([]string, 0, len(list))
			for _, e := range list {
				parts = append(parts, s.cellString(lt, target.field, e, sf))
			}
			return strings.Join(parts, ", ")
		}
	case "checkbox":
		return "checked"
	case "number", "currency", "percent":
		n, ok := v.(float64)
		if !ok {
			break
		}
		prec := int(optNumber(opts, "precision", -1))
		switch fl.Type {
		case "currency":
			if prec < 0 {
				prec = 2
			}
			// The sign goes before the symbol, as the grid writes it: -$5.00, not $-5.00.
			sign := ""
			if n < 0 {
				sign, n = "-", -n
			}
			return sign + optString(opts, "symbol") + groupThousands(strconv.FormatFloat(n, 'f', prec, 64))
		case "percent":
			return strconv.FormatFloat(n*100, 'f', max(prec, 0), 64) + "%"
		}
		return groupThousands(strconv.FormatFloat(n, 'f', prec, 64))
	case "duration":
		if n, ok := v.(float64); ok {
			return formatDuration(n, optString(opts, "durationFormat"))
		}
	case "date":
		if str, ok := v.(string); ok {
			if d, err := time.Parse("2006-01-02", str); err == nil {
				return formatDate(d, opts, sf.locale)
			}
		}
	case "dateTime", "createdTime", "lastModifiedTime":
		if str, ok := v.(string); ok {
			if d, err := time.Parse(time.RFC3339Nano, str); err == nil {
				d = d.In(sf.loc)
				return formatDate(d, opts, sf.locale) + " " + d.Format(timeLayout(opts))
			}
		}
	case "multipleRecordLinks":
		lt := t.base.tableByID[fl.linkedTableID()]
		if lt == nil {
			break
		}
		return s.linkedPrimaryText(lt, v)
	case "multipleAttachments":
		list, _ := v.([]any)
		parts := make([]string, 0, len(list))
		for _, a := range list {
			if m, ok := a.(map[string]any); ok {
				parts = append(parts, fmt.Sprintf("%s (%s)", m["filename"], m["url"]))
			}
		}
		return strings.Join(parts, ", ")
	}
	if n, ok := v.(float64); ok && math.IsNaN(n) {
		return "NaN"
	}
	return stringify(v)
}

// linkedPrimaryText is a link cell (record ids of lt) as its records' primary values joined with
// ", ", as the grid shows it; ids of records that no longer exist are left out.
func (s *Server) linkedPrimaryText(lt *table, v any) string {
	ids, _ := v.([]any)
	parts := make([]string, 0, len(ids))
	for _, id := range ids {
		sid, _ := id.(string)
		if lr := lt.recByID[sid]; lr != nil {
			parts = append(parts, stringify(s.cellValue(lt, lr, lt.primary, 0)))
		}
	}
	return strings.Join(parts, ", ")
}

// timeLayout is the time of day as a dateTime field's timeFormat writes it: "3:04pm" (12hour, the
// default) or "15:04" (24hour).
func timeLayout(opts map[string]any) string {
	if tf, ok := opts["timeFormat"].(map[string]any); ok && tf["name"] == "24hour" {
		return "15:04"
	}
	return "3:04pm"
}

func formatDate(d time.Time, opts map[string]any, locale string) string {
	format := ""
	if df, ok := opts["dateFormat"].(map[string]any); ok {
		format, _ = df["name"].(string)
	}
	switch format {
	case "iso":
		return d.Format("2006-01-02")
	case "european":
		return d.Format("2/1/2006")
	case "friendly":
		return d.Format("January 2, 2006")
	case "us":
		return d.Format("1/2/2006")
	}
	if strings.HasPrefix(strings.ToLower(locale), "en-us") || locale == "" {
		return d.Format("1/2/2006")
	}
	return d.Format("2/1/2006")
}

func formatDuration(secs float64, format string) string {
	neg := secs < 0
	secs = math.Abs(secs)
	h := int(secs) / 3600
	m := int(secs) % 3600 / 60
	sec := secs - float64(h*3600+m*60)
	var out string
	switch format {
	case "h:mm:ss":
		out = fmt.Sprintf("%d:%02d:%02d", h, m, int(sec))
	case "h:mm:ss.S":
		out = fmt.Sprintf("%d:%02d:%04.1f", h, m, sec)
	case "h:mm:ss.SS":
		out = fmt.Sprintf("%d:%02d:%05.2f", h, m, sec)
	case "h:mm:ss.SSS":
		out = fmt.Sprintf("%d:%02d:%06.3f", h, m, sec)
	default:
		out = fmt.Sprintf("%d:%02d", h, m)
	}
	if neg {
		return "-" + out
	}
	return out
}

// groupThousands writes "1234567.5" as "1,234,567.5".
func groupThousands(num string) string {
	sign := ""
	if strings.HasPrefix(num, "-") {
		sign, num = "-", num[1:]
	}
	intPart, frac, hasFrac := strings.Cut(num, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}

type lookupTarget struct {
	tableID string
	field   *field
}

// lookupTarget is the field a lookup reads in the linked table.
func (s *Server) lookupTarget(t *table, fl *field) *lookupTarget {
	_, lt, target, ok := lookupPath(t, fl)
	if !ok || target.Type == "multipleLookupValues" {
		return nil
	}
	return &lookupTarget{tableID: lt.id, field: target}
}
