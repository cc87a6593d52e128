package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/url"
	"strconv"
	"strings"
)

// maxURLLength is the service's URL limit (reference §1.3, §3): a list request whose URL would
// reach it goes as POST …/listRecords instead.
const maxURLLength = 16000

// offsetAllowance is kept free in the URL for the offsets of later pages (about 35 characters
// in practice), so that one listing never switches between GET and POST half-way.
const offsetAllowance = 256

// maxPageSize is the service's largest page.
const maxPageSize = 100

func (o *ListOptions) validate() error {
	if n := len(o.Formula); n > MaxRequestBodyBytes {
		return invalidf("the formula is %d bytes: a request to the service carries at most %d bytes (5 MiB; it answers 413 beyond), so it cannot be sent; select fewer or shorter values", n, MaxRequestBodyBytes)
	}
	if o.PageSize < 0 || o.PageSize > maxPageSize {
		return invalidf("PageSize %d is outside 1..%d (0 means the service's default, 100)", o.PageSize, maxPageSize)
	}
	if o.MaxRecords < 0 {
		return invalidf("MaxRecords %d is negative (0 means no limit)", o.MaxRecords)
	}
	for i, f := range o.Fields {
		if f == "" {
			return invalidf("Fields[%d] is empty: give a field name or id", i)
		}
	}
	for i, s := range o.Sort {
		if s == "" || s == "-" {
			return invalidf("Sort[%d] %q names no field: give a field name, with a leading - for descending", i, s)
		}
	}
	switch o.CellFormat {
	case "", "json":
	case "string":
		if o.TimeZone == "" || o.UserLocale == "" {
			return invalidf("CellFormat \"string\" needs both TimeZone (e.g. \"America/Chicago\") and UserLocale (e.g. \"en-us\"); got TimeZone %q, UserLocale %q", o.TimeZone, o.UserLocale)
		}
	default:
		return invalidf("CellFormat %q: want \"json\" or \"string\"", o.CellFormat)
	}
	return nil
}

// sortField splits "-Name" into Name, descending.
func sortField(s string) (string, string) {
	if name, ok := strings.CutPrefix(s, "-"); ok {
		return name, "desc"
	}
	return s, "asc"
}

// queryBuilder writes a query string in a fixed order (the order of the reference's examples).
type queryBuilder struct{ b strings.Builder }

func (q *queryBuilder) add(key, value string) {
	if q.b.Len() > 0 {
		q.b.WriteByte('&')
	}
	q.b.WriteString(url.QueryEscape(key))
	q.b.WriteByte('=')
	q.b.WriteString(url.QueryEscape(value))
}

func (q *queryBuilder) String() string { return q.b.String() }

// listQuery is the GET form of the options: fields[]=…&sort[0][field]=…&sort[0][direction]=…&….
func (o *ListOptions) listQuery() string {
	var q queryBuilder
	for _, f := range o.Fields {
		q.add("fields[]", f)
	}
	for i, s := range o.Sort {
		name, dir := sortField(s)
		q.add("sort["+strconv.Itoa(i)+"][field]", name)
		q.add("sort["+strconv.Itoa(i)+"][direction]", dir)
	}
	if o.Formula != "" {
		q.add("filterByFormula", o.Formula)
	}
	if o.MaxRecords > 0 {
		q.add("maxRecords", strconv.Itoa(o.MaxRecords))
	}
	if o.PageSize > 0 {
		q.add("pageSize", strconv.Itoa(o.PageSize))
	}
	if o.View != "" {
		q.add("view", o.View)
	}
	if o.CellFormat != "" {
		q.add("cellFormat", o.CellFormat)
	}
	o.addLocale(&q)
	if o.ReturnFieldsByFieldID {
		q.add("returnFieldsByFieldId", "true")
	}
	return q.String()
}

// addLocale writes timeZone and userLocale, which go on the query string even for POST
// listRecords (the service reads them only there; reference §1.3).
func (o *ListOptions) addLocale(q *queryBuilder) {
	if o.TimeZone != "" {
		q.add("timeZone", o.TimeZone)
	}
	if o.UserLocale != "" {
		q.add("userLocale", o.UserLocale)
	}
}

type sortSpec struct {
	Field     string `json:"field"`
	Direction string `json:"direction"`
}

// listBody is the POST …/listRecords form of the options.
type listBody struct {
	Fields                []string   `json:"fields,omitempty"`
	Sort                  []sortSpec `json:"sort,omitempty"`
	FilterByFormula       string     `json:"filterByFormula,omitempty"`
	MaxRecords            int        `json:"maxRecords,omitempty"`
	PageSize              int        `json:"pageSize,omitempty"`
	View                  string     `json:"view,omitempty"`
	CellFormat            string     `json:"cellFormat,omitempty"`
	ReturnFieldsByFieldID bool       `json:"returnFieldsByFieldId,omitempty"`
	Offset                string     `json:"offset,omitempty"`
}

func (o *ListOptions) body(offset string) ([]byte, error) {
	b := listBody{
		Fields:                o.Fields,
		FilterByFormula:       o.Formula,
		MaxRecords:            o.MaxRecords,
		PageSize:              o.PageSize,
		View:                  o.View,
		CellFormat:            o.CellFormat,
		ReturnFieldsByFieldID: o.ReturnFieldsByFieldID,
		Offset:                offset,
	}
	for _, s := range o.Sort {
		name, dir := sortField(s)
		b.Sort = append(b.Sort, sortSpec{Field: name, Direction: dir})
	}
	return json.Marshal(b)
}

// listPages runs one listing with one cursor: one request per page, each after the previous.
func (c *core) listPages(ctx context.Context, base, table string, opts ListOptions) iter.Seq2[[]Record, error] {
	return c.listPagesTaking(ctx, base, table, opts, nil)
}

// listPagesTaking is listPages whose pages, when take is not nil, are sent at the starts take
// gives (a partitioned scan's turns) instead of each waiting in the pacer on its own.
func (c *core) listPagesTaking(ctx context.Context, base, table string, opts ListOptions, take func(context.Context) (uint64, error)) iter.Seq2[[]Record, error] {
	const op = "list records"
	return func(yield func([]Record, error) bool) {
		if err := c.checkTarget(base, table); err != nil {
			yield(nil, wrapOp(op, base, table, err))
			return
		}
		if err := opts.validate(); err != nil {
			yield(nil, wrapOp(op, base, table, err))
			return
		}
		opts.Fields = append([]string(nil), opts.Fields...) // the caller may reuse its slices
		opts.Sort = append([]string(nil), opts.Sort...)
		path := tablePath(base, table)
		// A formula that alone passes the URL limit goes by POST: its escaped query is not built.
		viaPost := len(opts.Formula) >= maxURLLength
		var query string
		if !viaPost {
			query = opts.listQuery()
			viaPost = len(c.endpoint)+len(path)+1+len(query)+offsetAllowance >= maxURLLength
		}
		var localeQuery string
		if viaPost {
			var q queryBuilder
			opts.addLocale(&q)
			localeQuery = q.String()
		}
		offset := ""
		seen := map[string]bool{}
		for {
			cl := &call{op: op, base: base, table: table, safe: true}
			if viaPost {
				body, err := opts.body(offset)
				if err == nil && len(body) > MaxRequestBodyBytes {
					err = invalidf("the listRecords request would be %d bytes: the service accepts at most %d (5 MiB; it answers 413 beyond), so it is not sent; shorten the formula", len(body), MaxRequestBodyBytes)
				}
				if err != nil {
					yield(nil, wrapOp(op, base, table, err))
					return
				}
				cl.method, cl.path, cl.query, cl.body = "POST", path+"/listRecords", localeQuery, body
			} else {
				cl.method, cl.path, cl.query = "GET", path, query
				if offset != "" {
					if cl.query != "" {
						cl.query += "&"
					}
					cl.query += "offset=" + url.QueryEscape(offset)
				}
			}
			if take != nil {
				start, err := take(ctx)
				if err != nil {
					yield(nil, wrapOp(op, base, table, fmt.Errorf("waiting for a turn to send: %w", err)))
					return
				}
				cl.prepaced = start
			}
			pg := page{layout: opts.layout}
			if err := c.do(ctx, cl, &pg); err != nil {
				yield(nil, err)
				return
			}
			recs, err := pg.records()
			if err != nil {
				yield(nil, wrapOp(op, base, table, c.scrub(err)))
				return
			}
			if !yield(recs, nil) || pg.Offset == "" {
				return
			}
			if seen[pg.Offset] {
				yield(nil, wrapOp(op, base, table, c.scrub(fmt.Errorf("the service returned offset %q twice; stopping rather than looping", pg.Offset))))
				return
			}
			seen[pg.Offset] = true
			offset = pg.Offset
		}
	}
}

func (c *core) all(ctx context.Context, base, table string, opts ListOptions) ([]Record, error) {
	var out []Record
	for recs, err := range c.iterate(ctx, base, table, opts) {
		if err != nil {
			return out, err
		}
		out = append(out, recs...)
	}
	if out == nil {
		out = []Record{}
	}
	return out, nil
}

// first asks for one record only (maxRecords=1, pageSize=1), whatever opts says about sizes.
func (c *core) first(ctx context.Context, base, table string, opts ListOptions) (*Record, error) {
	opts.MaxRecords, opts.PageSize = 1, 1
	for recs, err := range c.iterate(ctx, base, table, opts) {
		if err != nil {
			return nil, err
		}
		if len(recs) > 0 {
			r := recs[0]
			return &r, nil
		}
		return nil, nil
	}
	return nil, nil
}

func (c *core) checkTarget(base, table string) error {
	if err := checkBaseID(base); err != nil {
		return err
	}
	return checkTableName(table)
}

func (c *core) get(ctx context.Context, base, table, recordID string, opts []GetOption) (*Record, error) {
	const op = "get record"
	var o GetOption
	for _, g := range opts {
		o.ReturnFieldsByFieldID = o.ReturnFieldsByFieldID || g.ReturnFieldsByFieldID
		if g.CellFormat != "" {
			o.CellFormat = g.CellFormat
		}
		if g.TimeZone != "" {
			o.TimeZone = g.TimeZone
		}
		if g.UserLocale != "" {
			o.UserLocale = g.UserLocale
		}
	}
	if err := c.checkTarget(base, table); err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	if err := checkRecordID(recordID); err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	lo := ListOptions{CellFormat: o.CellFormat, TimeZone: o.TimeZone, UserLocale: o.UserLocale, ReturnFieldsByFieldID: o.ReturnFieldsByFieldID}
	if err := lo.validate(); err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	cl := &call{op: op, base: base, table: table, method: "GET",
		path: tablePath(base, table) + "/" + escapeSegment(recordID), query: lo.listQuery(), safe: true}
	return c.doRecord(ctx, cl)
}

// doRecord runs a call answered by one record.
func (c *core) doRecord(ctx context.Context, cl *call) (*Record, error) {
	var w wireRecord
	if err := c.do(ctx, cl, &w); err != nil {
		return nil, err
	}
	rec, err := w.record()
	if err != nil {
		return nil, wrapOp(cl.op, cl.base, cl.table, c.scrub(err))
	}
	return &rec, nil
}
