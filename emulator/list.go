package emulator

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/airsql/airsql/formula"
	"github.com/airsql/airsql/internal/clock"
)

// listQuery is a list request's options, from the query string (GET) or the body (POST listRecords).
type listQuery struct {
	Fields         []string    `json:"fields,omitempty"`
	Formula        string      `json:"filterByFormula,omitempty"`
	MaxRecords     int         `json:"maxRecords,omitempty"`
	PageSize       int         `json:"pageSize,omitempty"`
	Sort           []querySort `json:"sort,omitempty"`
	View           string      `json:"view,omitempty"`
	CellFormat     string      `json:"cellFormat,omitempty"`
	TimeZone       string      `json:"timeZone,omitempty"`
	UserLocale     string      `json:"userLocale,omitempty"`
	ByFieldID      bool        `json:"returnFieldsByFieldId,omitempty"`
	RecordMetadata []string    `json:"recordMetadata,omitempty"`
	Offset         string      `json:"-"`
	pageSizeGiven  bool
}

type querySort struct {
	Field     string `json:"field"`
	Direction string `json:"direction,omitempty"`
}

// key identifies the query an offset belongs to: everything but the offset and paging cursor.
func (q *listQuery) key(baseID, tableID string) string {
	b, _ := json.Marshal(q)
	return baseID + "/" + tableID + "/" + string(b)
}

var sortParamRe = regexp.MustCompile(`^sort\[(\d+)\]\[(field|direction)\]$`)

// parseListQuery reads the GET form of reference §1.2: fields[] (or repeated fields), sort[i][field]
// and sort[i][direction] in any order, "true"/"1" booleans.
func parseListQuery(raw string) (*listQuery, *apiError) {
	vals, err := url.ParseQuery(raw)
	if err != nil {
		return nil, errInvalidRequest(fmt.Sprintf("the query string cannot be decoded: %v", err))
	}
	q := &listQuery{}
	sorts := map[int]*querySort{}
	for key, vs := range vals {
		v := vs[len(vs)-1]
		switch {
		case key == "fields[]" || key == "fields":
			q.Fields = append(q.Fields, vs...)
		case key == "filterByFormula":
			q.Formula = v
		case key == "maxRecords":
			if q.MaxRecords, err = parseIntParam(key, v); err != nil {
				return nil, errInvalidRequest(err.Error())
			}
		case key == "pageSize" || key == "limit": // "limit": airtable.js's deprecated list()
			if q.PageSize, err = parseIntParam(key, v); err != nil {
				return nil, errInvalidRequest(err.Error())
			}
			q.pageSizeGiven = true
		case key == "view":
			q.View = v
		case key == "cellFormat":
			q.CellFormat = v
		case key == "timeZone":
			q.TimeZone = v
		case key == "userLocale":
			q.UserLocale = v
		case key == "returnFieldsByFieldId":
			q.ByFieldID = v == "true" || v == "1"
		case key == "recordMetadata[]" || key == "recordMetadata":
			q.RecordMetadata = append(q.RecordMetadata, vs...)
		case key == "offset":
			q.Offset = v
		default:
			m := sortParamRe.FindStringSubmatch(key)
			if m == nil {
				continue // the service ignores parameters it does not know
			}
			i, _ := strconv.Atoi(m[1])
			if i > 1000 {
				return nil, errInvalidRequest(fmt.Sprintf("sort index %d is too large", i))
			}
			if sorts[i] == nil {
				sorts[i] = &querySort{}
			}
			if m[2] == "field" {
				sorts[i].Field = v
			} else {
				sorts[i].Direction = v
			}
		}
	}
	idx := make([]int, 0, len(sorts))
	for i := range sorts {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		q.Sort = append(q.Sort, *sorts[i])
	}
	return q, nil
}

func parseIntParam(name, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s must be an integer, got %q", name, v)
	}
	return n, nil
}

// parseListBody reads the POST listRecords body (reference §1.3). timeZone and userLocale may also
// come on the query string, which wins.
func parseListBody(body []byte, rawQuery string) (*listQuery, *apiError) {
	var in struct {
		listQuery
		Offset   *string `json:"offset"`
		PageSize *int    `json:"pageSize"`
	}
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := json.Unmarshal(body, &in); err != nil {
			return nil, errDecode(err)
		}
	}
	q := in.listQuery
	if in.PageSize != nil {
		q.PageSize, q.pageSizeGiven = *in.PageSize, true
	}
	if in.Offset != nil {
		q.Offset = *in.Offset
	}
	vals, _ := url.ParseQuery(rawQuery)
	if v := vals.Get("timeZone"); v != "" {
		q.TimeZone = v
	}
	if v := vals.Get("userLocale"); v != "" {
		q.UserLocale = v
	}
	return &q, nil
}

// resolvedQuery is a listQuery checked against the table.
type resolvedQuery struct {
	only     []*field // nil: all fields
	sort     []sortKey
	view     *view
	filter   program
	location *time.Location
}

func (s *Server) resolveQuery(t *table, q *listQuery) (*resolvedQuery, *apiError) {
	rq := &resolvedQuery{}
	if q.PageSize == 0 && !q.pageSizeGiven {
		q.PageSize = 100
	}
	if q.PageSize < 1 || q.PageSize > 100 {
		return nil, errInvalidRequest(fmt.Sprintf("pageSize must be between 1 and 100, got %d", q.PageSize))
	}
	if q.MaxRecords < 0 {
		return nil, errInvalidRequest(fmt.Sprintf("maxRecords must be positive, got %d", q.MaxRecords))
	}
	switch q.CellFormat {
	case "", "json":
	case "string":
		if q.TimeZone == "" || q.UserLocale == "" {
			return nil, errInvalidRequest("cellFormat=string needs both timeZone and userLocale")
		}
	default:
		return nil, errInvalidRequest(fmt.Sprintf("cellFormat must be \"json\" or \"string\", got %q", q.CellFormat))
	}
	loc, aerr := timeZoneLocation(q.TimeZone)
	if aerr != nil {
		return nil, aerr
	}
	rq.location = loc
	for _, name := range q.Fields {
		fl := t.field(name)
		if fl == nil {
			return nil, errUnknownField(name)
		}
		rq.only = append(rq.only, fl)
	}
	if q.Fields != nil && rq.only == nil {
		rq.only = []*field{}
	}
	for _, sk := range q.Sort {
		fl := t.field(sk.Field)
		if fl == nil {
			return nil, errUnknownField(sk.Field)
		}
		desc, err := parseDirection(sk.Direction)
		if err != nil {
			return nil, errInvalidRequest(err.Error())
		}
		rq.sort = append(rq.sort, sortKey{field: fl, desc: desc})
	}
	if q.View != "" {
		rq.view = t.view(q.View)
		if rq.view == nil {
			return nil, errorf(422, "VIEW_NAME_NOT_FOUND", "Could not find view %q in table %q", q.View, t.name)
		}
	}
	if strings.TrimSpace(q.Formula) != "" {
		p, err := s.formulas.compile(t, q.Formula)
		if err != nil {
			return nil, errFormula(formulaErrorDetail(err))
		}
		rq.filter = p
	}
	return rq, nil
}

// formulaErrorDetail is the detail of an INVALID_FILTER_BY_FORMULA message. Unknown names are
// reported exactly as the service words them ("Unknown field names: id, recyaaprk3b74ongz",
// reference §2.2), without the byte offset package formula adds, so that clients matching the
// service's text match ours; syntax errors keep the offset, which says where to look.
func formulaErrorDetail(err error) string {
	var fe *formula.Error
	if errors.As(err, &fe) && strings.HasPrefix(fe.Msg, "Unknown field names: ") {
		return fe.Msg
	}
	return err.Error()
}

// computeList runs the query over the table once: the ids of the matching records in order,
// cut at maxRecords. The caller holds s.mu for reading.
func (s *Server) computeList(t *table, q *listQuery, rq *resolvedQuery) ([]string, *apiError) {
	recs := make([]*record, 0, len(t.records))
	var viewFilter program
	if rq.view != nil && strings.TrimSpace(rq.view.filter) != "" {
		p, err := s.formulas.compile(t, rq.view.filter)
		if err != nil {
			return nil, errorf(422, "INVALID_REQUEST_UNKNOWN", "View %q has a filter that cannot be evaluated: %v", rq.view.name, err)
		}
		viewFilter = p
	}
	for _, r := range t.records {
		rv := recordView{s: s, t: t, r: r}
		if viewFilter != nil && !viewFilter.match(rv) {
			continue
		}
		if rq.filter != nil && !rq.filter.match(rv) {
			continue
		}
		recs = append(recs, r)
	}
	keys := rq.sort
	if len(keys) == 0 && rq.view != nil {
		keys = rq.view.sort
	}
	if len(keys) > 0 {
		s.sortRecords(t, recs, keys)
	}
	if q.MaxRecords > 0 && len(recs) > q.MaxRecords {
		recs = recs[:q.MaxRecords]
	}
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.id
	}
	return ids, nil
}

// sortRecords orders recs by keys; ties keep creation order. Blank values sort before every
// other value ascending and after them descending ([UNCONFIRMED], see README).
func (s *Server) sortRecords(t *table, recs []*record, keys []sortKey) {
	// Each record's sort values are computed once, not at every comparison.
	type row struct {
		r    *record
		vals []any
	}
	rows := make([]row, len(recs))
	for i, r := range recs {
		vals := make([]any, len(keys))
		for k, sk := range keys {
			vals[k] = s.sortValue(t, r, sk.field)
		}
		rows[i] = row{r, vals}
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		for k, sk := range keys {
			if c := compareSortValues(a.vals[k], b.vals[k]); c != 0 {
				if sk.desc {
					return -c
				}
				return c
			}
		}
		return 0
	})
	for i := range rows {
		recs[i] = rows[i].r
	}
}

// sortValue is what a cell sorts by: a float64, a string (folded case, then exact), or nil for blank.
// Select options sort in the order of their choices, as in Airtable's grid.
func (s *Server) sortValue(t *table, r *record, fl *field) any {
	v := s.cellValue(t, r, fl, 0)
	if isEmptyCell(v) {
		return nil
	}
	switch fl.Type {
	case "singleSelect":
		return float64(choiceIndex(fl, stringify(v)))
	case "multipleRecordLinks":
		return s.linkedPrimaryText(t.base.tableByID[fl.linkedTableID()], v)
	}
	switch x := v.(type) {
	case float64:
		return x
	case bool:
		return 1.0
	case []any:
		if len(x) == 1 {
			if n, ok := x[0].(float64); ok {
				return n
			}
		}
		return stringify(x)
	case map[string]any:
		if special, ok := x["specialValue"]; ok {
			switch special {
			case "Infinity":
				return math.Inf(1)
			case "-Infinity":
				return math.Inf(-1)
			}
			return math.NaN()
		}
		return stringify(x)
	}
	return stringify(v)
}

// compareSortValues is a total order (README, "Choices"): blank first; then numbers, -Infinity
// before every finite number, Infinity after, NaN after Infinity and equal to itself; then text,
// where an error cell sorts as its text "#ERROR!". An order that is not total (NaN neither less,
// greater nor equal) would let the stable sort leave even the ordinary numbers out of order.
func compareSortValues(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	fa, aNum := a.(float64)
	fb, bNum := b.(float64)
	switch {
	case aNum && bNum:
		aNaN, bNaN := math.IsNaN(fa), math.IsNaN(fb)
		switch {
		case aNaN || bNaN:
			return cmpBool(aNaN, bNaN)
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	case aNum: // numbers before text
		return -1
	case bNum:
		return 1
	}
	sa, sb := a.(string), b.(string)
	if c := strings.Compare(strings.ToLower(sa), strings.ToLower(sb)); c != 0 {
		return c
	}
	return strings.Compare(sa, sb)
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// iterator is the computed result of one list query, shared by all its pages.
type iterator struct {
	id       string
	key      string
	ids      []string
	lastUsed time.Time
	used     uint64         // the store's use counter when last used: orders eviction even when the clock stands still
	next     map[string]int // last record id of a page handed out -> index of the next page
}

// maxIterators bounds how many listings are kept at once; beyond it the least recently used
// iterator is forgotten (its offsets then answer LIST_RECORDS_ITERATOR_NOT_AVAILABLE, as after a
// server restart).
const maxIterators = 1000

// maxIteratorIDs bounds the record ids all iterators hold together (16 bytes each, the strings
// themselves are shared with the table): 1M ids is 16 MiB, 10 listings of a 100,000-record table
// or 100 of a 10,000-record one read at once. Under 1,000 concurrent listings of a 10,000-record
// table, 4M ids let the heap grow to 170 MB.
const maxIteratorIDs = 1_000_000

// iteratorStore keeps iterators until they have not been used for ttl.
type iteratorStore struct {
	clock    clock.Clock
	ttl      time.Duration
	mu       sync.Mutex
	byID     map[string]*iterator
	totalIDs int    // record ids held by all iterators
	uses     uint64 // counts creations and resumptions
}

func newIteratorStore(c clock.Clock, ttl time.Duration) *iteratorStore {
	return &iteratorStore{clock: c, ttl: ttl, byID: map[string]*iterator{}}
}

// create stores the result of a new query and returns its iterator.
func (st *iteratorStore) create(key string, ids []string) *iterator {
	now := st.clock.Now()
	it := &iterator{id: newRandomID("itr"), key: key, ids: ids, lastUsed: now, next: map[string]int{}}
	st.mu.Lock()
	defer st.mu.Unlock()
	for id, old := range st.byID { // forget expired iterators
		if now.Sub(old.lastUsed) > st.ttl {
			st.drop(id)
		}
	}
	// Bound memory: while too many iterators or record ids are kept, the least recently used goes.
	for len(st.byID) > 0 && (len(st.byID) >= maxIterators || st.totalIDs+len(ids) > maxIteratorIDs) {
		var oldest *iterator
		for _, old := range st.byID {
			if oldest == nil || old.used < oldest.used {
				oldest = old
			}
		}
		st.drop(oldest.id)
	}
	st.uses++
	it.used = st.uses
	st.byID[it.id] = it
	st.totalIDs += len(ids)
	return it
}

func (st *iteratorStore) drop(id string) {
	if it := st.byID[id]; it != nil {
		st.totalIDs -= len(it.ids)
		delete(st.byID, id)
	}
}

// resume finds the iterator and position of an offset made by the same query; ok is false when
// the offset is unknown, expired or made by another query.
func (st *iteratorStore) resume(offset, key string) (it *iterator, pos int, ok bool) {
	itrID, last, found := strings.Cut(offset, "/")
	if !found {
		return nil, 0, false
	}
	now := st.clock.Now()
	st.mu.Lock()
	defer st.mu.Unlock()
	it = st.byID[itrID]
	if it == nil {
		return nil, 0, false
	}
	if now.Sub(it.lastUsed) > st.ttl {
		st.drop(itrID)
		return nil, 0, false
	}
	if it.key != key {
		return nil, 0, false
	}
	pos, ok = it.next[last]
	if !ok {
		return nil, 0, false
	}
	it.lastUsed = now
	st.uses++
	it.used = st.uses
	return it, pos, true
}

// page hands out the page starting at pos; offset is "" on the last page.
func (st *iteratorStore) page(it *iterator, pos, size int) (ids []string, offset string) {
	end := min(pos+size, len(it.ids))
	ids = it.ids[pos:end]
	if end >= len(it.ids) {
		return ids, ""
	}
	last := ids[len(ids)-1]
	st.mu.Lock()
	it.next[last] = end
	st.mu.Unlock()
	return ids, it.id + "/" + last
}

// newRandomID is prefix + 14 random letters and digits.
func newRandomID(prefix string) string {
	var buf [14]byte
	_, _ = rand.Read(buf[:])
	b := []byte(prefix)
	for _, c := range buf {
		b = append(b, idAlphabet[int(c)%len(idAlphabet)])
	}
	return string(b)
}
