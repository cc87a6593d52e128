package emulator

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

// manyFixture is one table of n records: Name "r001".., N = i, Group = i%3 ("g0".."g2"), every
// fifth record without N.
func manyFixture(n int) *Fixture {
	tb := FixtureTable{ID: "tblMANY0000000001", Name: "Many", Fields: []FixtureField{
		{Name: "Name", Type: "singleLineText"}, {Name: "N", Type: "number"}, {Name: "Group", Type: "singleLineText"},
	}}
	for i := range n {
		f := map[string]any{"Name": fmt.Sprintf("r%03d", i+1), "Group": fmt.Sprintf("g%d", i%3)}
		if i%5 != 4 {
			f["N"] = float64(i)
		}
		tb.Records = append(tb.Records, FixtureRecord{Fields: f})
	}
	return &Fixture{Bases: []FixtureBase{{ID: "appMANY0000000001", Name: "Many", Tables: []FixtureTable{tb}}}}
}

func names(t *testing.T, r response) []string {
	t.Helper()
	var out []string
	for _, rec := range records(t, r) {
		n, _ := fieldsOf(rec)["Name"].(string)
		out = append(out, n)
	}
	return out
}

// pages follows offsets and returns the page sizes and all names.
func pages(t *testing.T, s *Server, path string) (sizes []int, all []string) {
	t.Helper()
	offset := ""
	for range 100 {
		p := path
		if offset != "" {
			p += "&offset=" + url.QueryEscape(offset)
		}
		r := do(t, s, DefaultToken, "GET", p, nil)
		mustStatus(t, r, 200)
		n := names(t, r)
		sizes = append(sizes, len(n))
		all = append(all, n...)
		off, _ := r.body["offset"].(string)
		if off == "" {
			return sizes, all
		}
		offset = off
	}
	t.Fatal("more than 100 pages")
	return nil, nil
}

func TestListPaging(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(manyFixture(25)))
	tests := []struct {
		query string
		sizes []int
	}{
		{"pageSize=10&maxRecords=25", []int{10, 10, 5}}, // pyairtable's real-API test
		{"pageSize=10", []int{10, 10, 5}},
		{"maxRecords=7", []int{7}},
		{"pageSize=100", []int{25}},
		{"pageSize=5&maxRecords=12", []int{5, 5, 2}},
		{"pageSize=25", []int{25}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			sizes, all := pages(t, s, "/v0/appMANY0000000001/Many?"+tc.query)
			if fmt.Sprint(sizes) != fmt.Sprint(tc.sizes) {
				t.Fatalf("page sizes %v, want %v", sizes, tc.sizes)
			}
			for i, n := range all { // creation order when neither sort nor view is given
				if want := fmt.Sprintf("r%03d", i+1); n != want {
					t.Fatalf("record %d is %s, want %s", i, n, want)
				}
			}
		})
	}
}

func TestOffsetShape(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(manyFixture(5)))
	r := do(t, s, DefaultToken, "GET", "/v0/appMANY0000000001/Many?pageSize=2", nil)
	mustStatus(t, r, 200)
	off := r.body["offset"].(string)
	itr, rec, ok := strings.Cut(off, "/")
	if !ok || !isID(itr, "itr") || rec != records(t, r)[1]["id"] {
		t.Fatalf("offset %q is not itr…/<last record id>", off)
	}
}

func TestOffsetBoundToQueryAndExpires(t *testing.T) {
	s, fc := newTestServer(t, WithFixture(manyFixture(10)), WithIteratorTTL(time.Minute))
	base := "/v0/appMANY0000000001/Many?pageSize=3"
	first := do(t, s, DefaultToken, "GET", base, nil)
	off := url.QueryEscape(first.body["offset"].(string))

	tests := []struct {
		name, path string
		advance    time.Duration
		status     int
	}{
		{"same query", base + "&offset=" + off, 0, 200},
		{"same query again (a retry)", base + "&offset=" + off, 0, 200},
		{"other pageSize", "/v0/appMANY0000000001/Many?pageSize=4&offset=" + off, 0, 422},
		{"other formula", base + "&filterByFormula=1&offset=" + off, 0, 422},
		{"unknown iterator", base + "&offset=itrAAAAAAAAAAAAAA%2Frec00000000000001", 0, 422},
		{"garbage", base + "&offset=nonsense", 0, 422},
		{"just within the TTL", base + "&offset=" + off, time.Minute, 200},
		{"expired", base + "&offset=" + off, time.Minute + time.Millisecond, 422},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fc.Advance(tc.advance)
			r := do(t, s, DefaultToken, "GET", tc.path, nil)
			mustStatus(t, r, tc.status)
			if tc.status == 422 {
				if r.raw != `{"error":{"type":"LIST_RECORDS_ITERATOR_NOT_AVAILABLE"}}` {
					t.Fatalf("body %s", r.raw)
				}
			}
		})
	}
	// An empty offset is the first page (pyairtable's real-API test).
	r := do(t, s, DefaultToken, "GET", base+"&offset=", nil)
	mustStatus(t, r, 200)
	if got := names(t, r); got[0] != "r001" {
		t.Fatalf("empty offset gave %v", got)
	}
}

func TestResultComputedOncePerIterator(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(manyFixture(9)))
	path := "/v0/appMANY0000000001/Many?pageSize=2&filterByFormula=" + url.QueryEscape("{Group}='g0'")
	r := do(t, s, DefaultToken, "GET", path, nil)
	mustStatus(t, r, 200)
	if got := names(t, r); fmt.Sprint(got) != "[r001 r004]" {
		t.Fatalf("first page %v", got)
	}
	// A record that starts matching after the first page is not added to this iteration.
	list := do(t, s, DefaultToken, "GET", "/v0/appMANY0000000001/Many", nil)
	id := records(t, list)[1]["id"].(string)
	mustStatus(t, do(t, s, DefaultToken, "PATCH", "/v0/appMANY0000000001/Many/"+id, map[string]any{"fields": map[string]any{"Group": "g0"}}), 200)
	if n := len(s.Requests()); n != 3 {
		t.Fatalf("recorded %d requests, want 3", n)
	}
	next := do(t, s, DefaultToken, "GET", path+"&offset="+url.QueryEscape(r.body["offset"].(string)), nil)
	mustStatus(t, next, 200)
	if got := fmt.Sprint(names(t, next)); got != "[r007]" {
		t.Fatalf("second page %v, want [r007] (r002 joined after the query ran)", got)
	}
}

func TestListSortViewFields(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	q := func(params string) string { return testBase + "/Tasks?" + params }
	tests := []struct {
		name, path string
		want       string
	}{
		{"creation order", q(""), "[Write spec Review Ship]"},
		{"sort asc", q("sort%5B0%5D%5Bfield%5D=Priority"), "[Review Write spec Ship]"},
		{"sort desc, direction first", q("sort%5B0%5D%5Bdirection%5D=desc&sort%5B0%5D%5Bfield%5D=Priority"), "[Ship Write spec Review]"},
		{"raw brackets", q("sort[0][field]=Priority&sort[0][direction]=desc"), "[Ship Write spec Review]"},
		{"blank first ascending", q("sort%5B0%5D%5Bfield%5D=Status"), "[Ship Write spec Review]"},
		{"blank last descending", q("sort%5B0%5D%5Bfield%5D=Status&sort%5B0%5D%5Bdirection%5D=desc"), "[Review Write spec Ship]"},
		{"sort by field id", q("sort%5B0%5D%5Bfield%5D=fldNAME0000000001"), "[Review Ship Write spec]"},
		{"view filter and sort", q("view=Open"), "[Ship Write spec]"},
		{"view by id", q("view=" + derivedID("viw", "tblTASKS000000001/Open")), "[Ship Write spec]"},
		{"sort overrides view", q("view=Open&sort%5B0%5D%5Bfield%5D=Name"), "[Ship Write spec]"},
		{"view and formula", q("view=Open&filterByFormula=" + url.QueryEscape("{Priority}<4")), "[Write spec]"},
		{"maxRecords with sort", q("maxRecords=1&sort%5B0%5D%5Bfield%5D=Priority"), "[Review]"},
		// Two keys: blank Done first; the tie between Ship and Write spec is broken by Priority desc
		// (by the first key alone they would stay in creation order: Write spec, Ship).
		{"two sort keys", q("sort%5B0%5D%5Bfield%5D=Done&sort%5B1%5D%5Bfield%5D=Priority&sort%5B1%5D%5Bdirection%5D=desc"), "[Ship Write spec Review]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, s, DefaultToken, "GET", tc.path, nil)
			mustStatus(t, r, 200)
			if got := fmt.Sprint(names(t, r)); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}

	t.Run("fields by name and id, hidden fields and empties", func(t *testing.T) {
		r := do(t, s, DefaultToken, "GET", q("fields%5B%5D=Name&fields%5B%5D=fldNAME0000000001&fields[]=Status&view=Open"), nil)
		mustStatus(t, r, 200)
		for _, rec := range records(t, r) {
			f := fieldsOf(rec)
			for k := range f {
				if k != "Name" && k != "Status" {
					t.Fatalf("field %s returned: %v", k, f)
				}
			}
		}
		if _, has := fieldsOf(records(t, r)[0])["Status"]; has { // Ship has no Status: still absent
			t.Fatalf("empty Status returned: %v", records(t, r)[0])
		}
	})
	t.Run("returnFieldsByFieldId", func(t *testing.T) {
		for _, v := range []string{"true", "1"} {
			r := do(t, s, DefaultToken, "GET", q("maxRecords=1&returnFieldsByFieldId="+v), nil)
			mustStatus(t, r, 200)
			if fieldsOf(records(t, r)[0])["fldNAME0000000001"] != "Write spec" {
				t.Fatalf("%s: %s", v, r.raw)
			}
		}
	})
	t.Run("commentCount", func(t *testing.T) {
		r := do(t, s, DefaultToken, "GET", q("maxRecords=1&recordMetadata%5B%5D=commentCount"), nil)
		if records(t, r)[0]["commentCount"] != 0.0 {
			t.Fatalf("%s", r.raw)
		}
	})
}

func TestListErrors(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	q := func(params string) string { return testBase + "/Tasks?" + params }
	tests := []struct {
		name, path string
		status     int
		typ        string
		msgHas     string
	}{
		{"pageSize 0", q("pageSize=0"), 422, "INVALID_REQUEST_UNKNOWN", "pageSize"},
		{"pageSize 101", q("pageSize=101"), 422, "INVALID_REQUEST_UNKNOWN", "pageSize"},
		{"pageSize text", q("pageSize=ten"), 422, "INVALID_REQUEST_UNKNOWN", "pageSize"},
		{"string without tz", q("cellFormat=string&userLocale=en-us"), 422, "INVALID_REQUEST_UNKNOWN", "timeZone"},
		{"bad cellFormat", q("cellFormat=xml"), 422, "INVALID_REQUEST_UNKNOWN", "cellFormat"},
		{"unknown field", q("fields%5B%5D=Nope"), 422, "UNKNOWN_FIELD_NAME", `Unknown field name: "Nope"`},
		{"unknown sort field", q("sort%5B0%5D%5Bfield%5D=Nope"), 422, "UNKNOWN_FIELD_NAME", `"Nope"`},
		{"bad direction", q("sort%5B0%5D%5Bfield%5D=Name&sort%5B0%5D%5Bdirection%5D=up"), 422, "INVALID_REQUEST_UNKNOWN", "direction"},
		{"unknown view", q("view=Nope"), 422, "VIEW_NAME_NOT_FOUND", "Nope"},
		{"bad formula", q("filterByFormula=" + url.QueryEscape("{Name} = ")), 422, "INVALID_FILTER_BY_FORMULA", "The formula for filtering records is invalid: "},
		{"unknown formula field", q("filterByFormula=" + url.QueryEscape("{Nope} = 1")), 422, "INVALID_FILTER_BY_FORMULA", "Unknown field names: nope"},
		{"URL too long", q("filterByFormula=" + strings.Repeat("x", MaxURLLength)), 414, "INVALID_REQUEST_UNKNOWN", "listRecords"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, s, DefaultToken, "GET", tc.path, nil)
			mustStatus(t, r, tc.status)
			msg, _ := r.body["error"].(map[string]any)["message"].(string)
			if errType(r) != tc.typ || !strings.Contains(msg, tc.msgHas) {
				t.Fatalf("got %s, want type %s with %q", r.raw, tc.typ, tc.msgHas)
			}
		})
	}
	t.Run("unknown formula names, exactly as the service words them", func(t *testing.T) {
		r := do(t, s, DefaultToken, "GET", q("filterByFormula="+url.QueryEscape("AND({Nope} = 1, {Name} = 'x', Other)")), nil)
		mustStatus(t, r, 422)
		assertSameJSON(t, r.raw, `{"error":{"type":"INVALID_FILTER_BY_FORMULA","message":"The formula for filtering records is invalid: Unknown field names: nope, other"}}`)
	})
}

func TestListByPOST(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(manyFixture(30)))
	long := "AND({N} > 0, {Name} != '" + strings.Repeat("x", 16000) + "')"
	body := map[string]any{"filterByFormula": long, "pageSize": 10, "maxRecords": 25, "timeZone": "UTC", "userLocale": "en-us",
		"sort": []any{map[string]any{"field": "N", "direction": "desc"}}, "fields": []any{"Name", "N"}}
	path := "/v0/appMANY0000000001/Many/listRecords?timeZone=UTC&userLocale=en-us"
	var all []string
	for page := 0; ; page++ {
		r := do(t, s, DefaultToken, "POST", path, body)
		mustStatus(t, r, 200)
		all = append(all, names(t, r)...)
		off, _ := r.body["offset"].(string)
		if off == "" {
			break
		}
		body["offset"] = off // airtable.js and pyairtable put it in the body
		if page > 5 {
			t.Fatal("too many pages")
		}
	}
	if len(all) != 23 || all[0] != "r029" { // 30 records, 6 without N (blank reads as 0), one N=0
		t.Fatalf("got %d records starting %v", len(all), all[:min(3, len(all))])
	}
	t.Run("cellFormat string with tz only in the query", func(t *testing.T) {
		r := do(t, s, DefaultToken, "POST", path, map[string]any{"cellFormat": "string", "maxRecords": 1})
		mustStatus(t, r, 200)
	})
	t.Run("bad JSON", func(t *testing.T) {
		r := do(t, s, DefaultToken, "POST", path, "{")
		mustStatus(t, r, 400)
	})
	t.Run("valid JSON, pageSize a string", func(t *testing.T) {
		r := do(t, s, DefaultToken, "POST", path, `{"pageSize": "10"}`)
		mustStatus(t, r, 422)
		if errType(r) != "INVALID_REQUEST_UNKNOWN" || !strings.Contains(r.raw, "pageSize") {
			t.Fatal(r.raw)
		}
	})
}

func TestCellFormatString(t *testing.T) {
	s, _ := newTestServer(t, WithDemo())
	r := do(t, s, DemoToken, "GET", "/v0/"+DemoBaseID+"/Tasks?maxRecords=20&cellFormat=string&timeZone=America%2FChicago&userLocale=en-us", nil)
	mustStatus(t, r, 200)
	for _, rec := range records(t, r) {
		for k, v := range fieldsOf(rec) {
			if _, ok := v.(string); !ok {
				t.Fatalf("field %s is %T, want a string", k, v)
			}
		}
	}
	f := fieldsOf(records(t, r)[0])
	if a, _ := f["Assignee"].(string); strings.HasPrefix(a, "rec") || a == "" {
		t.Fatalf("link rendered as %q, want the primary value", a)
	}
	tests := []struct{ field, prefix, suffix string }{
		{"Assignee Rate", "$", ""}, // a lookup renders as the looked-up currency field
		{"Done", "checked", "checked"},
		{"Created", "12/31/2023 6:00pm", ""}, // 2024-01-01T00:00Z in America/Chicago
	}
	for _, tc := range tests {
		v, _ := f[tc.field].(string)
		if !strings.HasPrefix(v, tc.prefix) || !strings.HasSuffix(v, tc.suffix) {
			t.Errorf("%s rendered %q", tc.field, v)
		}
	}
}

func TestIteratorsAreBounded(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(manyFixture(3)))
	path := "/v0/appMANY0000000001/Many?pageSize=1"
	first := do(t, s, DefaultToken, "GET", path, nil).body["offset"].(string)
	for range maxIterators {
		mustStatus(t, do(t, s, DefaultToken, "GET", path, nil), 200)
	}
	r := do(t, s, DefaultToken, "GET", path+"&offset="+url.QueryEscape(first), nil)
	mustStatus(t, r, 422) // the least recently used listing was forgotten
	if n := len(s.iterators.byID); n != maxIterators {
		t.Fatalf("%d iterators kept, want %d", n, maxIterators)
	}
	// A listing that fits one page keeps nothing.
	mustStatus(t, do(t, s, DefaultToken, "GET", "/v0/appMANY0000000001/Many", nil), 200)
	if n := len(s.iterators.byID); n != maxIterators {
		t.Fatalf("%d iterators after a one-page listing", n)
	}
}

// TestViewHiddenFieldsReturned: a view's visibleFieldIds only show in the schema; listing through
// the view returns every non-empty field (reference §1.2).
func TestViewHiddenFieldsReturned(t *testing.T) {
	s, _ := newTestServer(t, WithDemo())
	r := do(t, s, DemoToken, "GET", "/v0/"+DemoBaseID+"/Tasks?view=Open&maxRecords=1", nil)
	mustStatus(t, r, 200)
	f := fieldsOf(records(t, r)[0])
	for _, hidden := range []string{"Label", "Score", "Project", "Task ID"} { // not among Open's visible fields
		if _, has := f[hidden]; !has {
			t.Errorf("hidden field %s not returned: %v", hidden, f)
		}
	}
}

// TestCellStringNumbers: cellFormat=string renderings of numeric cells.
func TestCellStringNumbers(t *testing.T) {
	s, _ := newTestServer(t)
	sf := &stringFormat{loc: time.UTC, locale: "en-us"}
	tests := []struct {
		typ  string
		opts map[string]any
		v    float64
		want string
	}{
		{"number", map[string]any{"precision": 0.0}, 1234567, "1,234,567"},
		{"number", map[string]any{"precision": 2.0}, -1234.5, "-1,234.50"},
		{"currency", map[string]any{"precision": 2.0, "symbol": "$"}, 1234.5, "$1,234.50"},
		{"currency", map[string]any{"precision": 2.0, "symbol": "$"}, -5, "-$5.00"},
		{"currency", map[string]any{"precision": 0.0, "symbol": "€"}, -1234567, "-€1,234,567"},
		{"percent", map[string]any{"precision": 1.0}, 0.123, "12.3%"},
	}
	for _, tc := range tests {
		fl := &field{ID: "fldX", Name: "X", Type: tc.typ, Options: tc.opts}
		if got := s.cellString(&table{}, fl, tc.v, sf); got != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.typ, tc.v, got, tc.want)
		}
	}
}

// TestCellStringDates: dates per their field's format, times per its timeFormat in the request's
// zone; createdTime and lastModifiedTime per their result.
func TestCellStringDates(t *testing.T) {
	s, _ := newTestServer(t)
	chicago, err := time.LoadLocation("America/Chicago")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	us := &stringFormat{loc: chicago, locale: "en-us"}
	gb := &stringFormat{loc: time.UTC, locale: "en-gb"}
	iso := map[string]any{"name": "iso"}
	tests := []struct {
		typ  string
		opts map[string]any
		v    string
		sf   *stringFormat
		want string
	}{
		{"date", nil, "2024-03-05", us, "3/5/2024"},
		{"date", nil, "2024-03-05", gb, "5/3/2024"},
		{"date", map[string]any{"dateFormat": iso}, "2024-03-05", us, "2024-03-05"},
		{"dateTime", nil, "2024-03-05T20:30:00.000Z", us, "3/5/2024 2:30pm"},
		{"dateTime", map[string]any{"dateFormat": iso, "timeFormat": map[string]any{"name": "24hour"}}, "2024-03-05T20:30:00.000Z", us, "2024-03-05 14:30"},
		{"createdTime", map[string]any{"result": map[string]any{"type": "dateTime", "options": map[string]any{
			"dateFormat": iso, "timeFormat": map[string]any{"name": "24hour"}}}}, "2024-03-05T20:30:00.000Z", gb, "2024-03-05 20:30"},
		{"lastModifiedTime", map[string]any{"result": map[string]any{"type": "date"}}, "2024-03-05", gb, "5/3/2024"},
	}
	for _, tc := range tests {
		fl := &field{ID: "fldX", Name: "X", Type: tc.typ, Options: tc.opts}
		if got := s.cellString(&table{}, fl, tc.v, tc.sf); got != tc.want {
			t.Errorf("%s %v %s: %q, want %q", tc.typ, tc.opts, tc.v, got, tc.want)
		}
	}
}
