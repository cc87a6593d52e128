package emulator

import (
	"net/url"
	"slices"
)

// renderOpts says how records are written in an answer.
type renderOpts struct {
	only     []*field
	byID     bool
	asString *stringFormat // non-nil: cellFormat=string
	comments bool          // recordMetadata[]=commentCount
}

// apiRecord is the API's record object, keys in the order of recent captures (reference §1.2).
type apiRecord struct {
	ID           string         `json:"id"`
	CreatedTime  string         `json:"createdTime"`
	Fields       map[string]any `json:"fields"`
	CommentCount *int           `json:"commentCount,omitempty"`
}

// renderRecord is the API's record object. The caller holds s.mu.
func (s *Server) renderRecord(t *table, r *record, o renderOpts) *apiRecord {
	var fields map[string]any
	if o.asString != nil {
		fields = s.recordStringFields(t, r, o)
	} else {
		fields = s.recordFields(t, r, o.only, o.byID)
	}
	out := &apiRecord{ID: r.id, CreatedTime: formatTime(r.created), Fields: fields}
	if o.comments {
		n := s.commentCountLocked(r.id)
		out.CommentCount = &n
	}
	return out
}

func (s *Server) listGET(c *call) (reply, *apiError) {
	return s.list(c, func() (*listQuery, *apiError) { return parseListQuery(c.r.URL.RawQuery) })
}

func (s *Server) listPOST(c *call) (reply, *apiError) {
	return s.list(c, func() (*listQuery, *apiError) { return parseListBody(c.body, c.r.URL.RawQuery) })
}

// list answers one page. The first page computes the whole result once and keeps it in an
// iterator; later pages read from it (reference §1.2, §8.5). parse reads the options, once access
// to the table is checked (see "order of checks" in README.md).
func (s *Server) list(c *call, parse func() (*listQuery, *apiError)) (reply, *apiError) {
	// A first page computes over the whole table: it takes a compute slot before the lock (see
	// locking.go). A later page only reads its iterator. The options are read here without the
	// lock only to tell which; their errors are answered below, after the access checks.
	if q, aerr := parse(); aerr == nil && q.Offset == "" {
		release, aerr := s.computeSlot(c)
		if aerr != nil {
			return reply{}, aerr
		}
		defer release()
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, aerr := s.tableFor(c, scopeRecordsRead)
	if aerr != nil {
		return reply{}, aerr
	}
	q, aerr := parse()
	if aerr != nil {
		return reply{}, aerr
	}
	rq, aerr := s.resolveQuery(t, q)
	if aerr != nil {
		return reply{}, aerr
	}
	key := q.key(t.base.id, t.id)
	var it *iterator
	pos := 0
	if q.Offset != "" {
		var found bool
		it, pos, found = s.iterators.resume(q.Offset, key)
		if !found {
			return reply{}, errIteratorGone()
		}
	} else {
		ids, aerr := s.computeList(t, q, rq)
		if aerr != nil {
			return reply{}, aerr
		}
		if len(ids) <= q.PageSize {
			it = &iterator{ids: ids} // one page: nothing to keep
		} else {
			it = s.iterators.create(key, ids)
		}
	}
	ids, offset := s.iterators.page(it, pos, q.PageSize)
	o := renderOpts{only: rq.only, byID: q.ByFieldID, comments: slices.Contains(q.RecordMetadata, "commentCount")}
	if q.CellFormat == "string" {
		o.asString = &stringFormat{loc: rq.location, locale: q.UserLocale}
	}
	recs := make([]any, 0, len(ids))
	for _, id := range ids {
		r := t.recByID[id]
		if r == nil { // deleted since the iterator was made
			continue
		}
		recs = append(recs, s.renderRecord(t, r, o))
	}
	out := map[string]any{"records": recs}
	if offset != "" {
		out["offset"] = offset
	}
	return ok(out), nil
}

// readOpts reads cellFormat, timeZone, userLocale and returnFieldsByFieldId of a get request.
func readOpts(rawQuery string) (renderOpts, *apiError) {
	vals, _ := url.ParseQuery(rawQuery)
	o := renderOpts{byID: vals.Get("returnFieldsByFieldId") == "true" || vals.Get("returnFieldsByFieldId") == "1"}
	switch vals.Get("cellFormat") {
	case "", "json":
	case "string":
		tz, locale := vals.Get("timeZone"), vals.Get("userLocale")
		if tz == "" || locale == "" {
			return o, errInvalidRequest("cellFormat=string needs both timeZone and userLocale")
		}
		loc, aerr := timeZoneLocation(tz)
		if aerr != nil {
			return o, aerr
		}
		o.asString = &stringFormat{loc: loc, locale: locale}
	default:
		return o, errInvalidRequest("cellFormat must be \"json\" or \"string\"")
	}
	return o, nil
}

func (s *Server) getRecord(c *call) (reply, *apiError) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, aerr := s.tableFor(c, scopeRecordsRead)
	if aerr != nil {
		return reply{}, aerr
	}
	o, aerr := readOpts(c.r.URL.RawQuery)
	if aerr != nil {
		return reply{}, aerr
	}
	r := t.recByID[c.segments[2]]
	if r == nil {
		return reply{}, s.notFoundRecord(c.segments[2])
	}
	return ok(s.renderRecord(t, r, o)), nil
}
