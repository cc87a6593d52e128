package airsql

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"time"
)

// Column types come from translate (one value model for the whole module): each Airtable field
// type maps to a driver value and a DatabaseTypeName there. The types below help scan and bind
// the JSON text that arrays and objects read as (multiple selects, links, attachments,
// collaborators, lookups).

// List scans a JSON array of strings, the form of multipleSelects and multipleRecordLinks
// columns; NULL scans as a nil List. Bound as an argument it is a []string.
type List []string

// Scan implements sql.Scanner.
func (l *List) Scan(src any) error {
	*l = nil
	return scanJSON(src, (*[]string)(l), "List")
}

// Value implements driver.Valuer: the JSON text of the list.
func (l List) Value() (driver.Value, error) { return jsonValue(l) }

// Attachment is one file of a multipleAttachments cell. To write, give URL (and optionally
// Filename) for a new file, or ID alone for a file to keep.
type Attachment struct {
	ID         string               `json:"id,omitempty"`
	URL        string               `json:"url,omitempty"`
	Filename   string               `json:"filename,omitempty"`
	Size       int64                `json:"size,omitempty"`
	Type       string               `json:"type,omitempty"`
	Width      int                  `json:"width,omitempty"`
	Height     int                  `json:"height,omitempty"`
	Thumbnails map[string]Thumbnail `json:"thumbnails,omitempty"`
}

// Thumbnail is one of an attachment's thumbnails (small, large, full).
type Thumbnail struct {
	URL    string `json:"url"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// Attachments scans a multipleAttachments column; NULL scans as nil. Bound as an argument it is
// written in the API's write form: {id} for a kept file, {url, filename} for a new one.
type Attachments []Attachment

// Scan implements sql.Scanner.
func (a *Attachments) Scan(src any) error {
	*a = nil
	return scanJSON(src, (*[]Attachment)(a), "Attachments")
}

// Value implements driver.Valuer: the JSON text of the write form.
func (a Attachments) Value() (driver.Value, error) { return jsonValue(a.writeForm()) }

func (a Attachments) writeForm() []any {
	out := make([]any, len(a))
	for i, att := range a {
		if att.ID != "" && att.URL == "" {
			out[i] = map[string]any{"id": att.ID}
			continue
		}
		m := map[string]any{"url": att.URL}
		if att.Filename != "" {
			m["filename"] = att.Filename
		}
		out[i] = m
	}
	return out
}

// Collaborator is a user in a singleCollaborator, multipleCollaborators, createdBy or
// lastModifiedBy cell. To write, give ID or Email.
type Collaborator struct {
	ID    string `json:"id,omitempty"`
	Email string `json:"email,omitempty"`
	Name  string `json:"name,omitempty"`
}

// Scan implements sql.Scanner; NULL scans as the zero Collaborator.
func (c *Collaborator) Scan(src any) error {
	*c = Collaborator{}
	return scanJSON(src, c, "Collaborator")
}

// Value implements driver.Valuer: the JSON text of the write form.
func (c Collaborator) Value() (driver.Value, error) { return jsonValue(c.writeForm()) }

func (c Collaborator) writeForm() map[string]any {
	if c.ID != "" {
		return map[string]any{"id": c.ID}
	}
	return map[string]any{"email": c.Email}
}

// Collaborators scans a multipleCollaborators column; NULL scans as nil.
type Collaborators []Collaborator

// Scan implements sql.Scanner.
func (c *Collaborators) Scan(src any) error {
	*c = nil
	return scanJSON(src, (*[]Collaborator)(c), "Collaborators")
}

// Value implements driver.Valuer: the JSON text of the write form.
func (c Collaborators) Value() (driver.Value, error) { return jsonValue(c.writeForm()) }

func (c Collaborators) writeForm() []any {
	out := make([]any, len(c))
	for i, one := range c {
		out[i] = one.writeForm()
	}
	return out
}

// scanJSON decodes JSON text (string or []byte) into dst; NULL leaves dst as it is.
func scanJSON(src any, dst any, what string) error {
	var data []byte
	switch v := src.(type) {
	case nil:
		return nil
	case string:
		data = []byte(v)
	case []byte:
		data = v
	default:
		return fmt.Errorf("airsql: cannot scan a %T into %s: it reads JSON text (an array or object column)", src, what)
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return fmt.Errorf("airsql: scan %s: %w", what, err)
	}
	return nil
}

func jsonValue(v any) (driver.Value, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// bindArg converts an argument to what the translator takes: nil, string, int64, float64, bool,
// time.Time, []string, json.RawMessage (checked to be JSON), []any or map[string]any (arrays and
// objects in the API's JSON form). []byte is text.
func bindArg(v any) (any, error) {
	switch x := v.(type) {
	case nil, string, int64, float64, bool, []string, []any, map[string]any:
		return v, nil
	case time.Time:
		return x, nil
	case json.RawMessage:
		if !json.Valid(x) {
			return nil, fmt.Errorf("json.RawMessage %.40q is not valid JSON", x)
		}
		return x, nil
	case []byte:
		return string(x), nil
	case List:
		return []string(x), nil
	case Attachments:
		return x.writeForm(), nil
	case Collaborator:
		return x.writeForm(), nil
	case Collaborators:
		return x.writeForm(), nil
	case int:
		return int64(x), nil
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case uint:
		return uintArg(uint64(x))
	case uint8:
		return int64(x), nil
	case uint16:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint64:
		return uintArg(x)
	case float32:
		return float64(x), nil
	case driver.Valuer:
		rv := reflect.ValueOf(v)
		if rv.Kind() == reflect.Pointer && rv.IsNil() {
			return nil, nil
		}
		val, err := x.Value()
		if err != nil {
			return nil, err
		}
		if _, again := val.(driver.Valuer); again {
			return nil, fmt.Errorf("%T.Value returned another Valuer", v)
		}
		return bindArg(val)
	}
	// Named types over the basic kinds (type Priority int, type Tags []string, pointers).
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			return nil, nil
		}
		return bindArg(rv.Elem().Interface())
	case reflect.String:
		return rv.String(), nil
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return uintArg(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return rv.Float(), nil
	case reflect.Slice:
		if rv.Type().Elem().Kind() == reflect.String {
			out := make([]string, rv.Len())
			for i := range out {
				out[i] = rv.Index(i).String()
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("cannot bind a %T: use a string, number, bool, time.Time, []string, "+
		"json.RawMessage, []any or map[string]any (or List, Attachments, Collaborator(s))", v)
}

func uintArg(u uint64) (any, error) {
	if u > math.MaxInt64 {
		return nil, fmt.Errorf("%d does not fit an int64", u)
	}
	return int64(u), nil
}
