package transport

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// decodeFast decodes a list response of the usual form — {"records":[{"id":…,"createdTime":…,
// "fields":{…}}…],"offset":…} with these keys spelled exactly — without encoding/json, which
// validates the whole body in a first pass and decodes through reflection: a page decodes about
// 3 times faster with a third of the allocations (BenchmarkDecodePage), and a field name is one
// string per page, not one per record. It gives up (false) on anything else — another key, a
// \u escape, invalid UTF-8, a number out of range, a syntax error — and the caller decodes the
// body with encoding/json, whose values and errors stay the reference (FuzzDecodePage checks
// that both give the same page whenever this one succeeds).
//
// With a layout (IterateCells) each record's fields are decoded straight into its cells, in the
// layout's order, from a few allocations per page instead of a map per record; a field the layout
// lacks goes into a map of the record's own (wireRecord.Fields), so that none is lost.
func (pg *page) decodeFast(data []byte) bool {
	d := pageDecoder{data: data, layout: pg.layout}
	out := page{layout: pg.layout, laidOut: pg.layout != nil}
	if !d.byte('{') {
		return false
	}
	if d.peek('}') {
		d.pos++
		return false // no "records": left to encoding/json
	}
	for {
		key, ok := d.rawString()
		if !ok || !d.byte(':') {
			return false
		}
		switch string(key) {
		case "records":
			if out.Records != nil || !d.records(&out) { // a second array is decoded over the first's records
				return false
			}
		case "offset":
			s, ok := d.str()
			if !ok {
				return false
			}
			out.Offset = s
		default:
			return false
		}
		if d.peek(',') {
			d.pos++
			continue
		}
		if !d.byte('}') {
			return false
		}
		break
	}
	d.space()
	if d.pos != len(d.data) || out.Records == nil {
		return false
	}
	*pg = out
	return true
}

// pageDecoder reads one response body. keys holds each field name met, so that the records of a
// page share one string per name.
type pageDecoder struct {
	data []byte
	pos  int
	keys map[string]string
	hint int // fields of the previous record: the next one's map is made this size

	id     []byte      // the record's id as written, when it has no escape: setIDs reads it
	layout *cellLayout // not nil: fields are decoded into cells (laidCells)
	cells  cellBuffer
	recent []recentColumn // by the layout's column (cell)
}

func (d *pageDecoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek skips white space and reports whether the next byte is c.
func (d *pageDecoder) peek(c byte) bool {
	d.space()
	return d.pos < len(d.data) && d.data[d.pos] == c
}

// byte skips white space and reads c.
func (d *pageDecoder) byte(c byte) bool {
	if !d.peek(c) {
		return false
	}
	d.pos++
	return true
}

func (d *pageDecoder) records(out *page) bool {
	if !d.byte('[') {
		return false
	}
	out.Records = make([]wireRecord, 0, 100)
	if d.byte(']') {
		return true
	}
	ids := make([][]byte, 0, maxPageSize) // each record's id as written, nil when it had an escape (then read already)
	for {
		var w wireRecord
		d.id = nil
		if !d.record(&w) {
			return false
		}
		if d.layout != nil && w.cells == nil { // no "fields": every cell is empty
			w.cells = d.nextCells()
		}
		out.Records = append(out.Records, w)
		ids = append(ids, d.id)
		if d.byte(',') {
			continue
		}
		if !d.byte(']') {
			return false
		}
		setIDs(out.Records, ids)
		return true
	}
}

// setIDs gives the records the ids written without an escape from one string, one allocation
// per page rather than one per record: a page's ids are kept or dropped together (1.7 kB for 100).
func setIDs(recs []wireRecord, ids [][]byte) {
	n := 0
	for _, id := range ids {
		n += len(id)
	}
	var b strings.Builder
	b.Grow(n)
	for _, id := range ids {
		b.Write(id)
	}
	all, at := b.String(), 0
	for i, id := range ids {
		if id != nil {
			recs[i].ID = all[at : at+len(id)]
			at += len(id)
		}
	}
}

func (d *pageDecoder) record(w *wireRecord) bool {
	if !d.byte('{') || d.peek('}') {
		return false
	}
	for {
		key, ok := d.rawString()
		if !ok || !d.byte(':') {
			return false
		}
		switch string(key) {
		case "id":
			raw, ok := d.rawString()
			if !ok {
				return false
			}
			d.id = nil
			if bytes.IndexByte(raw, '\\') < 0 {
				d.id = raw // set with the page's other ids (setIDs)
			} else if w.ID, ok = unescape(raw); !ok {
				return false
			}
		case "createdTime":
			start := d.pos
			if _, ok := d.rawString(); !ok {
				return false
			}
			if err := w.CreatedTime.UnmarshalJSON(d.data[start:d.pos]); err != nil {
				return false
			}
		case "fields":
			if !d.peek('{') {
				return false // null or another type: encoding/json's answer
			}
			if d.layout != nil {
				if w.cells != nil || !d.laidCells(w) { // a second "fields" replaces the first: encoding/json's answer
					return false
				}
			} else if w.Fields, ok = d.value(); !ok {
				return false
			}
		default:
			return false
		}
		if d.byte(',') {
			continue
		}
		return d.byte('}')
	}
}

// rawString skips white space and reads a string's bytes between its quotes, escapes as written.
func (d *pageDecoder) rawString() ([]byte, bool) {
	d.space()
	if d.pos >= len(d.data) || d.data[d.pos] != '"' {
		return nil, false
	}
	start := d.pos + 1
	ascii := true
	for i := start; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			if !ascii && !utf8.Valid(d.data[start:i]) {
				return nil, false
			}
			return d.data[start:i], true
		case c == '\\':
			i++ // the escaped byte; unescape checks it
		case c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// str reads a string value.
func (d *pageDecoder) str() (string, bool) {
	raw, ok := d.rawString()
	if !ok {
		return "", false
	}
	return unescape(raw)
}

// unescape reads a string's escapes, all but \u (left to encoding/json).
func unescape(raw []byte) (string, bool) {
	i := 0
	for i < len(raw) && raw[i] != '\\' {
		i++
	}
	if i == len(raw) {
		return string(raw), true
	}
	out := make([]byte, 0, len(raw))
	out = append(out, raw[:i]...)
	for ; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i == len(raw) {
			return "", false
		}
		switch raw[i] {
		case '"', '\\', '/':
			out = append(out, raw[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		default:
			return "", false
		}
	}
	return string(out), true
}

// value reads any JSON value as encoding/json decodes it into an interface.
func (d *pageDecoder) value() (any, bool) {
	d.space()
	if d.pos >= len(d.data) {
		return nil, false
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object()
	case c == '[':
		d.pos++
		out := []any{}
		if d.byte(']') {
			return out, true
		}
		for {
			v, ok := d.value()
			if !ok {
				return nil, false
			}
			out = append(out, v)
			if d.byte(',') {
				continue
			}
			return out, d.byte(']')
		}
	case c == '"':
		return d.str()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return nil, false
}

// nextCells returns a record's nil cells.
func (d *pageDecoder) nextCells() []any { return d.cells.next(len(d.layout.names)) }

// laidCells reads a record's "fields" object into its cells by the layout; a field the layout
// lacks goes into w.Fields, a map made for it.
func (d *pageDecoder) laidCells(w *wireRecord) bool {
	d.pos++ // '{'
	w.cells = d.nextCells()
	if d.byte('}') {
		return true
	}
	var rest map[string]any
	for {
		raw, ok := d.rawString()
		if !ok || !d.byte(':') {
			return false
		}
		var i int
		var known bool
		var key string
		if bytes.IndexByte(raw, '\\') < 0 {
			i, known = d.layout.index[string(raw)] // the usual name, written as it is
		}
		if !known {
			if key, ok = d.key(raw); !ok {
				return false
			}
			i, known = d.layout.index[key]
		}
		var v any
		if known {
			v, ok = d.cell(i)
		} else {
			v, ok = d.value()
		}
		if !ok {
			return false
		}
		if known {
			w.cells[i] = v
		} else {
			if rest == nil {
				rest = map[string]any{}
				w.Fields = rest
			}
			rest[key] = v
		}
		if !d.byte(',') {
			return d.byte('}')
		}
	}
}

// recentPerColumn is how many of a column's last distinct strings and numbers cell remembers.
const recentPerColumn = 4

// recentColumn is a column's last distinct strings and numbers: their JSON text and value.
type recentColumn struct {
	vals [recentPerColumn]struct {
		text []byte // in the page's body, quotes included for a string
		v    any
	}
	next int // the entry the next new value replaces
}

// cell reads the value of column i. A string or number written as one of the column's last few
// (a single select, a date, a rating down a column) is the same value, boxed once per page rather
// than once per record: strings and numbers are immutable, so records may share them. Arrays and
// objects are read afresh, each record's own.
func (d *pageDecoder) cell(i int) (any, bool) {
	d.space()
	if d.pos >= len(d.data) {
		return nil, false
	}
	c := d.data[d.pos]
	if c != '"' && c != '-' && (c < '0' || c > '9') {
		return d.value()
	}
	if d.recent == nil {
		d.recent = make([]recentColumn, len(d.layout.names))
	}
	col := &d.recent[i]
	start := d.pos
	var f float64
	var raw []byte
	var ok bool
	if c == '"' {
		raw, ok = d.rawString()
	} else {
		f, ok = d.number()
	}
	if !ok {
		return nil, false
	}
	text := d.data[start:d.pos]
	for j := range col.vals {
		if e := &col.vals[j]; e.v != nil && bytes.Equal(e.text, text) {
			return e.v, true
		}
	}
	var v any = f
	if c == '"' {
		s, ok := unescape(raw)
		if !ok {
			return nil, false
		}
		v = s
	}
	col.vals[col.next].text, col.vals[col.next].v = text, v
	col.next = (col.next + 1) % recentPerColumn
	return v, true
}

// key is an object's key, shared through d.keys.
func (d *pageDecoder) key(raw []byte) (string, bool) {
	if key, ok := d.keys[string(raw)]; ok {
		return key, true
	}
	key, ok := unescape(raw)
	if !ok {
		return "", false
	}
	if d.keys == nil {
		d.keys = map[string]string{}
	}
	if len(d.keys) < 1000 { // field names, not a table of values
		d.keys[string(raw)] = key
	}
	return key, true
}

// object reads an object; its keys are shared through d.keys.
func (d *pageDecoder) object() (any, bool) {
	d.pos++ // '{'
	m := make(map[string]any, d.hint)
	if d.byte('}') {
		return m, true
	}
	for {
		raw, ok := d.rawString()
		if !ok || !d.byte(':') {
			return nil, false
		}
		key, ok := d.key(raw)
		if !ok {
			return nil, false
		}
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		m[key] = v
		if d.byte(',') {
			continue
		}
		d.hint = len(m)
		return m, d.byte('}')
	}
}

func (d *pageDecoder) literal(word string) bool {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return false
	}
	d.pos += len(word)
	return true
}

// number reads a number in JSON's grammar (strconv alone would take "0x1", "+1", "1." or "Inf").
func (d *pageDecoder) number() (float64, bool) {
	start, i := d.pos, d.pos
	digits := func() bool {
		j := i
		for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
		}
		return i > j
	}
	if d.data[i] == '-' {
		i++
	}
	if i < len(d.data) && d.data[i] == '0' {
		i++
	} else if !digits() {
		return 0, false
	}
	if i < len(d.data) && d.data[i] == '.' {
		i++
		if !digits() {
			return 0, false
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if !digits() {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(d.data[start:i]), 64)
	if err != nil {
		return 0, false
	}
	d.pos = i
	return f, true
}
