package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestListQueryEncoding(t *testing.T) {
	tests := []struct {
		name string
		opts ListOptions
		want string
	}{
		{"none", ListOptions{}, ""},
		{"fields", ListOptions{Fields: []string{"Name", "Due Date"}}, "fields%5B%5D=Name&fields%5B%5D=Due+Date"},
		{"sort asc and desc", ListOptions{Sort: []string{"Name", "-Age"}},
			"sort%5B0%5D%5Bfield%5D=Name&sort%5B0%5D%5Bdirection%5D=asc&sort%5B1%5D%5Bfield%5D=Age&sort%5B1%5D%5Bdirection%5D=desc"},
		{"formula", ListOptions{Formula: "AND({Name} = 'x', NOT({Done}))"},
			"filterByFormula=AND%28%7BName%7D+%3D+%27x%27%2C+NOT%28%7BDone%7D%29%29"},
		{"sizes", ListOptions{MaxRecords: 5, PageSize: 2}, "maxRecords=5&pageSize=2"},
		{"view", ListOptions{View: "Grid view"}, "view=Grid+view"},
		{"string cells", ListOptions{CellFormat: "string", TimeZone: "America/Chicago", UserLocale: "en-us"},
			"cellFormat=string&timeZone=America%2FChicago&userLocale=en-us"},
		{"json cells", ListOptions{CellFormat: "json"}, "cellFormat=json"},
		{"by field id", ListOptions{ReturnFieldsByFieldID: true}, "returnFieldsByFieldId=true"},
		{"everything, in order", ListOptions{View: "v", Formula: "1", Fields: []string{"a"}, Sort: []string{"-b"}, MaxRecords: 3, PageSize: 1,
			CellFormat: "string", TimeZone: "utc", UserLocale: "en-gb", ReturnFieldsByFieldID: true},
			"fields%5B%5D=a&sort%5B0%5D%5Bfield%5D=b&sort%5B0%5D%5Bdirection%5D=desc&filterByFormula=1&maxRecords=3&pageSize=1&view=v&cellFormat=string&timeZone=utc&userLocale=en-gb&returnFieldsByFieldId=true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl, fake, _ := newTestTable(t, func(int, seenRequest) reply { return ok(`{"records":[]}`) })
			if _, err := tbl.All(bg, tt.opts); err != nil {
				t.Fatal(err)
			}
			reqs := fake.Requests()
			if len(reqs) != 1 {
				t.Fatalf("got %d requests, want 1", len(reqs))
			}
			if reqs[0].Method != "GET" || reqs[0].Path != "/v0/appTEST0000000001/My%20Tasks" {
				t.Errorf("got %s %s, want GET /v0/appTEST0000000001/My%%20Tasks", reqs[0].Method, reqs[0].Path)
			}
			if reqs[0].Query != tt.want {
				t.Errorf("query:\ngot  %s\nwant %s", reqs[0].Query, tt.want)
			}
		})
	}
}

func TestListOptionsRefusedBeforeSending(t *testing.T) {
	tests := []struct {
		name    string
		opts    ListOptions
		mention string
	}{
		{"page size too big", ListOptions{PageSize: 101}, "PageSize 101"},
		{"page size negative", ListOptions{PageSize: -1}, "PageSize -1"},
		{"max records negative", ListOptions{MaxRecords: -5}, "MaxRecords -5"},
		{"empty field", ListOptions{Fields: []string{"a", ""}}, "Fields[1]"},
		{"empty sort", ListOptions{Sort: []string{""}}, "Sort[0]"},
		{"bare minus sort", ListOptions{Sort: []string{"Name", "-"}}, "Sort[1]"},
		{"string without locale", ListOptions{CellFormat: "string", TimeZone: "utc"}, "UserLocale"},
		{"string without zone", ListOptions{CellFormat: "string", UserLocale: "en-us"}, "TimeZone"},
		{"unknown cell format", ListOptions{CellFormat: "xml"}, `CellFormat "xml"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl, fake, _ := newTestTable(t, func(int, seenRequest) reply { return ok(`{"records":[]}`) })
			for name, call := range map[string]func() error{
				"All":   func() error { _, err := tbl.All(bg, tt.opts); return err },
				"First": func() error { _, err := tbl.First(bg, tt.opts); return err },
				"Iterate": func() error {
					for _, err := range tbl.Iterate(bg, tt.opts) {
						return err
					}
					return nil
				},
			} {
				if name == "First" && strings.Contains(tt.mention, "Size") || name == "First" && strings.Contains(tt.mention, "MaxRecords") {
					continue // First sets its own sizes
				}
				err := call()
				if !errors.Is(err, ErrInvalidOption) {
					t.Fatalf("%s: got %v, want an ErrInvalidOption", name, err)
				}
				if !strings.Contains(err.Error(), tt.mention) || !strings.Contains(err.Error(), "My Tasks") {
					t.Errorf("%s: error %q should name %q and the table", name, err, tt.mention)
				}
			}
			if n := len(fake.Requests()); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
}

func TestIteratePagesAndStopsWhenLoopBreaks(t *testing.T) {
	pages := []string{
		`{"records":[` + recordsJSON(2, 0) + `],"offset":"itrAAAAAAAAAAAAAA/rec0"}`,
		`{"records":[` + recordsJSON(2, 2) + `],"offset":"itrAAAAAAAAAAAAAA/rec2"}`,
		`{"records":[` + recordsJSON(1, 4) + `]}`,
	}
	handler := func(n int, r seenRequest) reply { return ok(pages[n]) }

	t.Run("all pages", func(t *testing.T) {
		tbl, fake, _ := newTestTable(t, handler)
		var sizes []int
		for recs, err := range tbl.Iterate(bg, ListOptions{PageSize: 2, Fields: []string{"N"}}) {
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, len(recs))
		}
		if !reflect.DeepEqual(sizes, []int{2, 2, 1}) {
			t.Errorf("page sizes %v, want [2 2 1]", sizes)
		}
		diffLines(t, fake.Lines(), []string{
			"GET /v0/appTEST0000000001/My%20Tasks?fields%5B%5D=N&pageSize=2",
			"GET /v0/appTEST0000000001/My%20Tasks?fields%5B%5D=N&pageSize=2&offset=itrAAAAAAAAAAAAAA%2Frec0",
			"GET /v0/appTEST0000000001/My%20Tasks?fields%5B%5D=N&pageSize=2&offset=itrAAAAAAAAAAAAAA%2Frec2",
		})
	})
	t.Run("break after first page", func(t *testing.T) {
		tbl, fake, _ := newTestTable(t, handler)
		for _, err := range tbl.Iterate(bg, ListOptions{}) {
			if err != nil {
				t.Fatal(err)
			}
			break
		}
		if n := len(fake.Requests()); n != 1 {
			t.Errorf("%d requests, want 1: breaking the loop must stop fetching", n)
		}
	})
	t.Run("all decodes records", func(t *testing.T) {
		tbl, _, _ := newTestTable(t, handler)
		recs, err := tbl.All(bg, ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 5 || recs[4].ID != "rec00000000000004" || recs[4].Fields["N"] != 4.0 || recs[0].CreatedTime.Year() != 2024 {
			t.Errorf("got %+v", recs)
		}
	})
	t.Run("offset without query", func(t *testing.T) {
		tbl, fake, _ := newTestTable(t, handler)
		if _, err := tbl.All(bg, ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if q := fake.Requests()[1].Query; q != "offset=itrAAAAAAAAAAAAAA%2Frec0" {
			t.Errorf("query %q", q)
		}
	})
	t.Run("same offset twice stops", func(t *testing.T) {
		tbl, _, _ := newTestTable(t, func(int, seenRequest) reply { return ok(`{"records":[],"offset":"itrX/rec1"}`) })
		_, err := tbl.All(bg, ListOptions{})
		if err == nil || !strings.Contains(err.Error(), "twice") {
			t.Errorf("got %v, want an error about a repeated offset", err)
		}
	})
	t.Run("error mid-way returns pages read", func(t *testing.T) {
		tbl, _, _ := newTestTable(t, func(n int, r seenRequest) reply {
			if n == 1 {
				return reply{status: 422, body: `{"error":{"type":"LIST_RECORDS_ITERATOR_NOT_AVAILABLE"}}`}
			}
			return ok(pages[n])
		})
		recs, err := tbl.All(bg, ListOptions{})
		if !errors.Is(err, ErrIteratorExpired) || len(recs) != 2 {
			t.Errorf("got %d records, %v; want 2 and ErrIteratorExpired", len(recs), err)
		}
	})
}

func TestFirstAsksForOneRecord(t *testing.T) {
	tbl, fake, _ := newTestTable(t, func(n int, r seenRequest) reply {
		if n == 0 {
			return ok(`{"records":[` + recordJSON("recA", `{"Name":"a"}`) + `]}`)
		}
		return ok(`{"records":[]}`)
	})
	rec, err := tbl.First(bg, ListOptions{Formula: "{Done}", MaxRecords: 50, PageSize: 20})
	if err != nil || rec == nil || rec.ID != "recA" {
		t.Fatalf("got %v, %v", rec, err)
	}
	rec, err = tbl.First(bg, ListOptions{})
	if err != nil || rec != nil {
		t.Fatalf("no match: got %v, %v; want nil, nil", rec, err)
	}
	diffLines(t, fake.Lines(), []string{
		"GET /v0/appTEST0000000001/My%20Tasks?filterByFormula=%7BDone%7D&maxRecords=1&pageSize=1",
		"GET /v0/appTEST0000000001/My%20Tasks?maxRecords=1&pageSize=1",
	})
}

func TestLongListingGoesByPost(t *testing.T) {
	formula := "OR(" + strings.Repeat("{Name}='x',", 1600) + "FALSE())" // about 17,600 characters
	tbl, fake, _ := newTestTable(t, func(n int, r seenRequest) reply {
		if n == 0 {
			return ok(`{"records":[` + recordsJSON(1, 0) + `],"offset":"itrB/rec0"}`)
		}
		return ok(`{"records":[` + recordsJSON(1, 1) + `]}`)
	})
	opts := ListOptions{Formula: formula, Fields: []string{"Name"}, Sort: []string{"-Name"}, PageSize: 1, MaxRecords: 2, View: "All",
		CellFormat: "string", TimeZone: "Europe/Paris", UserLocale: "fr", ReturnFieldsByFieldID: true}
	recs, err := tbl.All(bg, opts)
	if err != nil || len(recs) != 2 {
		t.Fatalf("got %d records, %v", len(recs), err)
	}
	reqs := fake.Requests()
	for i, r := range reqs {
		if r.Method != "POST" || r.Path != "/v0/appTEST0000000001/My%20Tasks/listRecords" {
			t.Errorf("request %d: %s %s, want POST …/listRecords", i, r.Method, r.Path)
		}
		if r.Query != "timeZone=Europe%2FParis&userLocale=fr" {
			t.Errorf("request %d: query %q, want timeZone and userLocale only", i, r.Query)
		}
		if r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("request %d: content type %q", i, r.Header.Get("Content-Type"))
		}
		var body map[string]any
		if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"fields": []any{"Name"}, "sort": []any{map[string]any{"field": "Name", "direction": "desc"}},
			"filterByFormula": formula, "maxRecords": 2.0, "pageSize": 1.0, "view": "All", "cellFormat": "string", "returnFieldsByFieldId": true}
		if i == 1 {
			want["offset"] = "itrB/rec0"
		}
		if !reflect.DeepEqual(body, want) {
			t.Errorf("request %d body:\ngot  %v\nwant %v", i, body, want)
		}
	}
}

func TestShortListingStaysGet(t *testing.T) {
	// Just below the switch: the URL plus room for an offset stays under 16,000 characters.
	tbl, fake, _ := newTestTable(t, func(int, seenRequest) reply { return ok(`{"records":[]}`) })
	base := len(tbl.URL()) + len("?filterByFormula=") + offsetAllowance
	formula := strings.Repeat("1", maxURLLength-base-1)
	if _, err := tbl.All(bg, ListOptions{Formula: formula}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.All(bg, ListOptions{Formula: formula + "1"}); err != nil {
		t.Fatal(err)
	}
	reqs := fake.Requests()
	if reqs[0].Method != "GET" || reqs[1].Method != "POST" {
		t.Errorf("got %s then %s, want GET just under the limit and POST at it", reqs[0].Method, reqs[1].Method)
	}
}

func TestGetOptions(t *testing.T) {
	tbl, fake, _ := newTestTable(t, func(int, seenRequest) reply { return ok(recordJSON("recA", `{"fldX":1}`)) })
	rec, err := tbl.Get(bg, "recA", GetOption{ReturnFieldsByFieldID: true}, GetOption{CellFormat: "string", TimeZone: "utc", UserLocale: "en-us"})
	if err != nil || rec.Fields["fldX"] != 1.0 {
		t.Fatalf("got %v, %v", rec, err)
	}
	if _, err := tbl.Get(bg, "rec/../x"); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Get(bg, "recA", GetOption{CellFormat: "string"}); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("string cells without locale: got %v, want ErrInvalidOption", err)
	}
	if _, err := tbl.Get(bg, ""); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("empty id: got %v, want ErrInvalidOption", err)
	}
	diffLines(t, fake.Lines(), []string{
		"GET /v0/appTEST0000000001/My%20Tasks/recA?cellFormat=string&timeZone=utc&userLocale=en-us&returnFieldsByFieldId=true",
		"GET /v0/appTEST0000000001/My%20Tasks/rec%2F..%2Fx",
	})
}

func TestURLs(t *testing.T) {
	tests := []struct{ table, want string }{
		{"Test table 1", "http://fake.test/v0/appTEST0000000001/Test%20table%201"},
		{"Test/Table 2", "http://fake.test/v0/appTEST0000000001/Test%2FTable%202"},
		{"Another (test) table", "http://fake.test/v0/appTEST0000000001/Another%20%28test%29%20table"},
		{"A & test & table", "http://fake.test/v0/appTEST0000000001/A%20%26%20test%20%26%20table"},
		{"percentage % table", "http://fake.test/v0/appTEST0000000001/percentage%20%25%20table"},
		{"My/Table (1) & ü", "http://fake.test/v0/appTEST0000000001/My%2FTable%20%281%29%20%26%20%C3%BC"},
		{"tblAAAAAAAAAAAAAA", "http://fake.test/v0/appTEST0000000001/tblAAAAAAAAAAAAAA"},
	}
	tbl, _, _ := newTestTable(t, nil)
	for _, tt := range tests {
		got := tbl.Base().Table(tt.table).URL()
		if got != tt.want {
			t.Errorf("%q: got %s, want %s", tt.table, got, tt.want)
		}
	}
	if got, want := tbl.RecordURL("/evil"), "http://fake.test/v0/appTEST0000000001/My%20Tasks/%2Fevil"; got != want {
		t.Errorf("record URL: got %s, want %s", got, want)
	}
}

func FuzzEscapeSegment(f *testing.F) {
	for _, s := range []string{"", "My Table", "a/b", "%", "ü", "../..", "?x#y", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := escapeSegment(s)
		if strings.ContainsAny(e, "/?# ") {
			t.Fatalf("escapeSegment(%q) = %q keeps a delimiter", s, e)
		}
		back, err := url.PathUnescape(e)
		if err != nil || back != s {
			t.Fatalf("escapeSegment(%q) = %q reads back as %q, %v", s, e, back, err)
		}
	})
}

// FuzzListQuery checks that any options are encoded so that the service reads them back exactly.
func FuzzListQuery(f *testing.F) {
	f.Add("Name", "-Due Date", "AND({a}='b&c=d')", "Grid view", 5)
	f.Add("a[b]", "--x", "%20+", "", 0)
	f.Fuzz(func(t *testing.T, field, sort, formula, view string, max int) {
		o := ListOptions{Fields: []string{field}, Sort: []string{sort}, Formula: formula, View: view, MaxRecords: max}
		if o.validate() != nil {
			return
		}
		v, err := url.ParseQuery(o.listQuery())
		if err != nil {
			t.Fatal(err)
		}
		name, dir := sortField(sort)
		want := url.Values{"fields[]": {field}, "sort[0][field]": {name}, "sort[0][direction]": {dir}}
		if formula != "" {
			want.Set("filterByFormula", formula)
		}
		if view != "" {
			want.Set("view", view)
		}
		if max > 0 {
			want.Set("maxRecords", fmt.Sprint(max))
		}
		if !reflect.DeepEqual(v, want) {
			t.Fatalf("got %v, want %v", v, want)
		}
	})
}

func TestRecordsDecodedAsSent(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    []Record
		wantErr string
	}{
		{"fields left out", `{"records":[{"id":"recA","createdTime":"2024-01-01T00:00:00.000Z"}]}`,
			[]Record{{ID: "recA", CreatedTime: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Fields: map[string]any{}}}, ""},
		{"fields null", `{"records":[{"id":"recA","createdTime":"2024-01-01T00:00:00.000Z","fields":null}]}`,
			[]Record{{ID: "recA", CreatedTime: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Fields: map[string]any{}}}, ""},
		{"cells of every JSON type", `{"records":[{"id":"recA","fields":{"s":"x","n":1.5,"b":true,"l":["a"],"o":{"k":null}}}]}`,
			[]Record{{ID: "recA", Fields: map[string]any{"s": "x", "n": 1.5, "b": true, "l": []any{"a"}, "o": map[string]any{"k": nil}}}}, ""},
		{"fields not an object", `{"records":[{"id":"recA","fields":[1]}]}`, nil, `record "recA" with "fields" of JSON type array`},
		{"bad createdTime", `{"records":[{"id":"recA","createdTime":"yesterday","fields":{}}]}`, nil, "not the expected JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl, _, _ := newTestTable(t, func(int, seenRequest) reply { return ok(tt.body) })
			recs, err := tbl.All(bg, ListOptions{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "My Tasks") {
					t.Errorf("got %v, want an error mentioning %q and the table", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(recs, tt.want) {
				t.Errorf("got %+v, %v; want %+v", recs, err, tt.want)
			}
			// A single record (Get) decodes the same way.
			one := strings.TrimSuffix(strings.TrimPrefix(tt.body, `{"records":[`), `]}`)
			tbl, _, _ = newTestTable(t, func(int, seenRequest) reply { return ok(one) })
			rec, err := tbl.Get(bg, "recA")
			if err != nil || !reflect.DeepEqual(*rec, tt.want[0]) {
				t.Errorf("Get: got %+v, %v; want %+v", rec, err, tt.want[0])
			}
		})
	}
}
