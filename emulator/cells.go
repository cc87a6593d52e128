package emulator

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"mime"
	"path"
	"strconv"
	"strings"
	"time"
)

// writeMode says how normalizeCell treats a value being written.
type writeMode struct {
	typecast bool
	fixture  bool
	// addChoice is called, with typecast on, for a select option that does not exist yet.
	addChoice func(fl *field, name string)
	// hasChoice reports options added earlier in the same request.
	hasChoice func(fl *field, name string) bool
}

// normalizeCell validates a value written to fl and returns it in the stored (API JSON) form;
// nil means the cell is cleared. Errors are the service's 422s (reference §2.2, §4.4).
func normalizeCell(t *table, fl *field, v any, mode writeMode) (any, *apiError) {
	if fl.computed() {
		return nil, errComputed(fl.Name)
	}
	if v == nil {
		return nil, nil
	}
	switch fl.Type {
	case "singleLineText", "multilineText", "richText", "email", "url", "phoneNumber":
		return normalizeText(fl, v, mode)
	case "number", "currency", "percent", "duration":
		return normalizeNumber(fl, v, mode)
	case "rating":
		return normalizeRating(fl, v, mode)
	case "checkbox":
		return normalizeCheckbox(fl, v, mode)
	case "date", "dateTime":
		return normalizeDate(fl, v, mode)
	case "singleSelect":
		return normalizeSingleSelect(fl, v, mode)
	case "multipleSelects":
		return normalizeMultipleSelects(fl, v, mode)
	case "singleCollaborator":
		c, err := normalizeCollaborator(fl, v)
		if err != nil || c == nil {
			return nil, err
		}
		return c, nil
	case "multipleCollaborators":
		return normalizeCollaborators(fl, v)
	case "multipleRecordLinks":
		return normalizeLinks(t, fl, v, mode)
	case "multipleAttachments":
		return normalizeAttachments(t, fl, v, mode)
	case "barcode":
		return normalizeBarcode(fl, v)
	}
	return nil, errCannotAccept(fl.Name)
}

// normalizeText: text fields, a string (typecast: any value as text; a line break in a single line of text a space).
func normalizeText(fl *field, v any, mode writeMode) (any, *apiError) {
	s, ok := v.(string)
	if !ok {
		if !mode.typecast {
			return nil, errCannotAccept(fl.Name)
		}
		s = stringify(v)
	}
	if fl.Type == "singleLineText" && mode.typecast {
		s = strings.ReplaceAll(s, "\n", " ")
	}
	if s == "" {
		return nil, nil
	}
	if fl.Type == "richText" {
		s = normalizeRichText(s)
	}
	return s, nil
}

// normalizeNumber: numeric fields, a finite number (typecast: a number written as text).
func normalizeNumber(fl *field, v any, mode writeMode) (any, *apiError) {
	n, ok := v.(float64)
	if !ok {
		s, isStr := v.(string)
		if !mode.typecast || !isStr {
			return nil, errCannotAccept(fl.Name)
		}
		if strings.TrimSpace(s) == "" {
			return nil, nil
		}
		p, err := parseLooseNumber(s, fl.Type == "percent")
		if err != nil {
			return nil, errInvalidValue("Cannot parse value %q for field %s", s, fl.Name)
		}
		n = p
	}
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return nil, errCannotAccept(fl.Name)
	}
	return n, nil
}

// normalizeRating: a whole number from 1 to the field's max; 0 clears it.
func normalizeRating(fl *field, v any, mode writeMode) (any, *apiError) {
	n, ok := v.(float64)
	if !ok {
		s, isStr := v.(string)
		if !mode.typecast || !isStr {
			return nil, errCannotAccept(fl.Name)
		}
		p, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, errInvalidValue("Cannot parse value %q for field %s", s, fl.Name)
		}
		n = p
	}
	if n == 0 {
		return nil, nil
	}
	if n != math.Trunc(n) || n < 1 || n > optNumber(fl.Options, "max", 5) {
		return nil, errCannotAccept(fl.Name)
	}
	return n, nil
}

// normalizeCheckbox: true, or nothing for false (typecast: the usual words and numbers).
func normalizeCheckbox(fl *field, v any, mode writeMode) (any, *apiError) {
	switch b := v.(type) {
	case bool:
		if b {
			return true, nil
		}
		return nil, nil
	case string:
		if mode.typecast {
			switch strings.ToLower(strings.TrimSpace(b)) {
			case "true", "checked", "yes", "1", "x", "on":
				return true, nil
			case "", "false", "unchecked", "no", "0", "off":
				return nil, nil
			}
		}
	case float64:
		if mode.typecast {
			if b != 0 {
				return true, nil
			}
			return nil, nil
		}
	}
	return nil, errCannotAccept(fl.Name)
}

// normalizeDate: an ISO date or date-time text, or milliseconds since the epoch; a date is kept as the day in the field's zone.
func normalizeDate(fl *field, v any, mode writeMode) (any, *apiError) {
	var d time.Time
	switch x := v.(type) {
	case float64: // milliseconds since the epoch, as 2022 recordings show for both types
		// (1640520000000 -> 2021-12-26T12:00:00.000Z)
		d = time.UnixMilli(int64(x)).UTC()
	case string:
		if x == "" {
			return nil, nil
		}
		var err error
		if d, err = parseDateValue(x, fieldLocation(fl), mode.typecast); err != nil {
			return nil, errInvalidValue("Cannot parse value %q for field %s", x, fl.Name)
		}
	default:
		return nil, errCannotAccept(fl.Name)
	}
	if fl.Type == "date" {
		// The day in the field's zone: a zone-less "2024-01-02" was read as that day's midnight
		// there, which in UTC is the day before for a zone east of UTC.
		return d.In(fieldLocation(fl)).Format("2006-01-02"), nil
	}
	return formatTime(d), nil
}

// normalizeSingleSelect: the name of one of the field's options (typecast: a new one is added).
func normalizeSingleSelect(fl *field, v any, mode writeMode) (any, *apiError) {
	s, ok := v.(string)
	if !ok {
		if !mode.typecast {
			return nil, errCannotAccept(fl.Name)
		}
		s = stringify(v)
	}
	if s == "" {
		return nil, nil
	}
	if err := checkChoice(fl, s, mode); err != nil {
		return nil, err
	}
	return s, nil
}

// normalizeMultipleSelects: a list of option names, blanks and repeats dropped.
func normalizeMultipleSelects(fl *field, v any, mode writeMode) (any, *apiError) {
	items, aerr := listItems(fl, v, mode)
	if aerr != nil {
		return nil, aerr
	}
	names := make([]string, 0, len(items))
	for _, e := range items {
		s, ok := e.(string)
		if !ok {
			if !mode.typecast {
				return nil, errCannotAccept(fl.Name)
			}
			s = stringify(e)
		}
		names = append(names, s)
	}
	out := make([]any, 0, len(names))
	seen := map[string]bool{}
	for _, s := range names {
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		if err := checkChoice(fl, s, mode); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// normalizeCollaborators: a list of collaborators, each once.
func normalizeCollaborators(fl *field, v any) (any, *apiError) {
	list, ok := v.([]any)
	if !ok {
		return nil, errCannotAccept(fl.Name)
	}
	out := make([]any, 0, len(list))
	seen := map[any]bool{}
	for _, e := range list {
		c, err := normalizeCollaborator(fl, e)
		if err != nil {
			return nil, err
		}
		if c != nil && !seen[c["id"]] {
			seen[c["id"]] = true
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// normalizeBarcode: an object with a non-empty text and an optional type.
func normalizeBarcode(fl *field, v any) (any, *apiError) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errCannotAccept(fl.Name)
	}
	text, ok := m["text"].(string)
	if !ok || text == "" {
		return nil, errCannotAccept(fl.Name)
	}
	out := map[string]any{"text": text}
	if typ, ok := m["type"].(string); ok && typ != "" {
		out["type"] = typ
	}
	return out, nil
}

func checkChoice(fl *field, name string, mode writeMode) *apiError {
	if choiceIndex(fl, name) >= 0 || (mode.hasChoice != nil && mode.hasChoice(fl, name)) {
		return nil
	}
	if mode.typecast && mode.addChoice != nil {
		mode.addChoice(fl, name)
		return nil
	}
	return errorf(422, "INVALID_MULTIPLE_CHOICE_OPTIONS", "Insufficient permissions to create new select option \"%s\"", strconv.Quote(name))
}

// choiceIndex is the position of a select option, -1 when it does not exist.
func choiceIndex(fl *field, name string) int {
	list, _ := fl.Options["choices"].([]any)
	for i, c := range list {
		if m, ok := c.(map[string]any); ok && m["name"] == name {
			return i
		}
	}
	return -1
}

func normalizeCollaborator(fl *field, v any) (map[string]any, *apiError) {
	switch x := v.(type) {
	case string: // a user id
		if isID(x, "usr") {
			return map[string]any{"id": x}, nil
		}
	case map[string]any:
		id, _ := x["id"].(string)
		email, _ := x["email"].(string)
		name, _ := x["name"].(string)
		if id == "" && email == "" {
			break
		}
		if id == "" {
			id = derivedID("usr", "email/"+strings.ToLower(email))
		}
		if !isID(id, "usr") {
			break
		}
		out := map[string]any{"id": id}
		if email != "" {
			out["email"] = email
		}
		if name != "" {
			out["name"] = name
		}
		return out, nil
	}
	return nil, errCannotAccept(fl.Name)
}

func normalizeLinks(t *table, fl *field, v any, mode writeMode) (any, *apiError) {
	lt := t.base.tableByID[fl.linkedTableID()]
	items, aerr := listItems(fl, v, mode)
	if aerr != nil {
		return nil, aerr
	}
	out := make([]any, 0, len(items))
	for _, it := range items {
		id, _ := it.(string)
		if m, ok := it.(map[string]any); ok {
			id, _ = m["id"].(string)
		}
		if id == "" {
			continue
		}
		if lt.recByID[id] == nil {
			if mode.typecast && !isID(id, "rec") {
				if match := findByPrimary(lt, id); match != "" {
					id = match
				} else {
					return nil, errInvalidValue("Field %q cannot accept the provided value: no record of table %q has the primary value %q", fl.Name, lt.name, id)
				}
			} else if !isID(id, "rec") {
				return nil, errInvalidValue("Value %q is not a valid record ID for field %q", id, fl.Name)
			} else {
				return nil, errorf(422, "ROW_DOES_NOT_EXIST", "Record ID %s does not exist in table %s", id, lt.name)
			}
		}
		if !containsString(out, id) {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// listItems are the items of a value written to a list field (select options, links): a JSON
// array, or with typecast a comma-separated text, its parts trimmed.
func listItems(fl *field, v any, mode writeMode) ([]any, *apiError) {
	switch x := v.(type) {
	case []any:
		return x, nil
	case string:
		if !mode.typecast {
			return nil, errCannotAccept(fl.Name)
		}
		parts := strings.Split(x, ",")
		items := make([]any, len(parts))
		for i, p := range parts {
			items[i] = strings.TrimSpace(p)
		}
		return items, nil
	}
	return nil, errCannotAccept(fl.Name)
}

func findByPrimary(t *table, s string) string {
	for _, r := range t.records {
		if stringify(r.cells[t.primary.ID]) == s {
			return r.id
		}
	}
	return ""
}

func normalizeAttachments(t *table, fl *field, v any, mode writeMode) (any, *apiError) {
	list, ok := v.([]any)
	if !ok {
		return nil, errCannotAccept(fl.Name)
	}
	out := make([]any, 0, len(list))
	for _, it := range list {
		// The service shows the refused object as indented JSON (recorded 2017:
		// "Invalid attachment object for field Photos: {\n  \"id\": \"1\",\n  \"url\": …\n}").
		invalid := func() *apiError {
			return errorf(422, "INVALID_ATTACHMENT_OBJECT", "Invalid attachment object for field %s: %s", fl.Name, indentedJSON(it))
		}
		m, ok := it.(map[string]any)
		if !ok {
			return nil, invalid()
		}
		id, _ := m["id"].(string)
		url, _ := m["url"].(string)
		if url == "" && id == "" {
			return nil, invalid()
		}
		// An id names an attachment to keep, which must exist (in any record of the table); a url
		// next to it does not make it new (recorded 2017: {"id": "1", "url": …} was refused).
		// Fixtures may give the ids of new attachments (with their url).
		if id != "" && (!mode.fixture || url == "") {
			found := findAttachment(t, fl, id)
			if found == nil {
				return nil, invalid()
			}
			out = append(out, found)
			continue
		}
		filename, _ := m["filename"].(string)
		if filename == "" {
			filename = path.Base(strings.SplitN(url, "?", 2)[0])
		}
		if id == "" || !isID(id, "att") {
			id = derivedID("att", url+"/"+filename)
		}
		typ := mime.TypeByExtension(path.Ext(filename))
		if typ == "" {
			typ = "application/octet-stream"
		}
		if i := strings.IndexByte(typ, ';'); i >= 0 {
			typ = typ[:i]
		}
		att := map[string]any{"id": id, "url": url, "filename": filename, "size": float64(0), "type": typ}
		if mode.fixture { // a fixture may carry what the service computed: size, type, width, height, thumbnails
			maps.Copy(att, m)
			att["id"], att["filename"] = id, filename
		}
		out = append(out, att)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// indentedJSON is v as JSON indented by two spaces, without HTML escaping.
func indentedJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func findAttachment(t *table, fl *field, id string) map[string]any {
	for _, r := range t.records {
		list, _ := r.cells[fl.ID].([]any)
		for _, a := range list {
			if m, ok := a.(map[string]any); ok && m["id"] == id {
				return m
			}
		}
	}
	return nil
}

// normalizeRichText writes Airtable markdown as the service returns it (recorded 2022: "#header\n* bullet"
// reads back as "#header\n- bullet\n"): "*" bullets become "-", and the text ends with a newline.
func normalizeRichText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		if strings.HasPrefix(trimmed, "* ") {
			lines[i] = l[:len(l)-len(trimmed)] + "- " + trimmed[2:]
		}
	}
	s = strings.Join(lines, "\n")
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// fieldLocation is the time zone in which a date field reads zone-less strings (reference §4.4).
// An unknown zone reads as UTC.
func fieldLocation(fl *field) *time.Location {
	loc, aerr := timeZoneLocation(optString(fl.Options, "timeZone"))
	if aerr != nil {
		return time.UTC
	}
	return loc
}

// parseDateValue reads ISO 8601 dates and date-times; with loose it also reads common
// US-style and slash forms ("1/2/2024", "2024/01/02").
func parseDateValue(s string, loc *time.Location, loose bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	zoneless := []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"}
	if loose {
		zoneless = append(zoneless, "2006/01/02", "1/2/2006", "01/02/2006", "1/2/2006 15:04", "January 2, 2006", "Jan 2, 2006", "2 January 2006")
	}
	for _, layout := range zoneless {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("not a date")
}

// parseLooseNumber reads "1,234.5", "$12", "12%" (a percent reads as a fraction for percent fields).
func parseLooseNumber(s string, percent bool) (float64, error) {
	s = strings.TrimSpace(s)
	isPct := strings.HasSuffix(s, "%")
	s = strings.TrimSuffix(s, "%")
	s = strings.TrimLeft(s, "$€£¥ ")
	s = strings.ReplaceAll(s, ",", "")
	n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, err
	}
	if isPct && percent {
		n /= 100
	}
	return n, nil
}

// stringify renders a JSON value as text: numbers without exponent, arrays joined with ", ".
func stringify(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		if x {
			return "true"
		}
		return "false"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = stringify(e)
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		if n, ok := x["name"].(string); ok {
			return n
		}
		if n, ok := x["text"].(string); ok {
			return n
		}
		if n, ok := x["filename"].(string); ok {
			return n
		}
		if e, ok := x["error"].(string); ok {
			return e
		}
		if _, ok := x["specialValue"]; ok {
			return "NaN"
		}
	}
	return fmt.Sprint(v)
}

// isEmptyCell is the omission rule of reference §4.3: "", [], false and null are left out.
func isEmptyCell(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case []any:
		return len(x) == 0
	}
	return false
}
