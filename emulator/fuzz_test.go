package emulator

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// FuzzParseListQuery: any query string parses or is refused with a 422, never panics, and the
// parsed sort keys come out in index order.
func FuzzParseListQuery(f *testing.F) {
	for _, seed := range []string{
		"fields%5B%5D=Name&fields%5B%5D=Due+Date&sort%5B0%5D%5Bfield%5D=Name&sort%5B0%5D%5Bdirection%5D=desc&sort%5B1%5D%5Bfield%5D=Age&filterByFormula=AND(%7BName%7D+%3D+'x'%2C+NOT(%7BDone%7D))&maxRecords=5&pageSize=2&view=Grid+view&cellFormat=string&timeZone=America%2FChicago&userLocale=en-us&returnFieldsByFieldId=true&recordMetadata%5B%5D=commentCount&offset=itrABC%2FrecXYZ",
		"sort%5B0%5D%5Bdirection%5D=asc&sort%5B0%5D%5Bfield%5D=Name",
		"sort[10][field]=b&sort[2][field]=a", "pageSize=abc", "%zz", "offset=", "fields=a&fields=b", "sort[99999999999999999999][field]=x",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, aerr := parseListQuery(raw)
		if aerr != nil {
			if aerr.status != 422 {
				t.Fatalf("status %d", aerr.status)
			}
			return
		}
		_ = q.key("appX", "tblX")
	})
}

// FuzzParseFixture: a fixture either loads or is refused with an error, never a panic.
func FuzzParseFixture(f *testing.F) {
	f.Add([]byte(smallFixtureJSON))
	f.Add([]byte(`{"bases":[{"name":"x","tables":[{"name":"t","fields":[{"name":"a","type":"number"}],"records":[{"fields":{"a":"x"}}]}]}]}`))
	f.Add([]byte(`{"bases":[{"name":"x","tables":[{"name":"t","fields":[{"name":"l","type":"multipleRecordLinks","options":{"linkedTableId":"t"}},{"name":"c","type":"count","options":{"recordLinkFieldId":"l"}}]}]}]}`))
	f.Add([]byte(`{"bases":[{"name":"x","tables":[{"name":"t","fields":[{"name":"r","type":"rollup","options":{"recordLinkFieldId":"nope"}}]}]}]}`))
	f.Add([]byte(`{"tokens":[{"token":""}],"bases":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fx, err := ParseFixture(data)
		if err != nil {
			return
		}
		s, err := New(WithFixture(fx), WithRate(0, 0))
		if err != nil {
			return
		}
		defer s.Close()
		_ = s.LoadFixture(fx) // the same fixture again: merged or refused, never a panic
		s.mu.RLock()
		defer s.mu.RUnlock()
		for _, b := range s.bases { // every record of every table renders
			for _, tb := range b.tables {
				for _, r := range tb.records {
					s.renderRecord(tb, r, renderOpts{})
				}
			}
		}
	})
}

// FuzzWALReplay: any data file either replays or is refused; a good prefix is never lost.
func FuzzWALReplay(f *testing.F) {
	good := `8f0e1ee2 [{"kind":"delete","base":"appX","table":"tblX","id":"recX"}]` + "\n"
	f.Add([]byte(good))
	f.Add([]byte(good + good[:10]))
	f.Add([]byte("zzzz\n" + good))
	f.Add([]byte(""))
	put := `[{"kind":"put","base":"appX","table":"tblX","record":{"id":"recX","createdTime":"2024-01-01T00:00:00Z","modifiedTime":"2024-01-01T00:00:00Z","autoNumber":1,"cells":{}}}]`
	f.Add([]byte(walLineForTest(put) + walLineForTest(put) + good))
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		var lines [][]walOp
		good, _, err := replayWAL(bytes.NewReader(data), len(data)%2 == 0, func(ops []walOp) error { n += len(ops); lines = append(lines, ops); return nil })
		if err == nil && (good < 0 || good > int64(len(data))) {
			t.Fatalf("good prefix %d of %d bytes", good, len(data))
		}
		// Compacting whatever replayed never panics and never makes the log longer.
		if out, shorter := compactWAL(lines); shorter {
			m := 0
			for _, ops := range out {
				m += len(ops)
			}
			if m >= n {
				t.Fatalf("compaction made %d changes of %d", m, n)
			}
		}
	})
}

// FuzzFormulaWithIDs: rewriting names to ids never panics and leaves text without braces alone.
func FuzzFormulaWithIDs(f *testing.F) {
	for _, s := range []string{"{Priority} * 2", `IF({Name} = "{Name}", 1, 0)`, "{unclosed", `'a\'{Name}'`, "{}", "{Name}}"} {
		f.Add(s)
	}
	tb := &table{fieldByID: map[string]*field{}, fields: []*field{{ID: "fldNAME0000000001", Name: "Name"}, {ID: "fldPRIO000000001x", Name: "Priority"}}}
	f.Fuzz(func(t *testing.T, src string) {
		out, _ := formulaWithIDs(tb, src)
		if !strings.ContainsAny(src, "{") && out != src {
			t.Fatalf("%q became %q", src, out)
		}
	})
}

// FuzzServePath: any method, path and query is answered with a JSON error or success, never a panic.
func FuzzServePath(f *testing.F) {
	for _, s := range []string{"/v0/appTEST0000000001/Tasks", "/v0/appTEST0000000001/A%2FB", "/v0/meta/bases", "/v0//x", "/v0/%zz/x", "/v0/appTEST0000000001/Tasks/recTASK0000000001/"} {
		f.Add("GET", s, "pageSize=2")
	}
	f.Add("DELETE", "/v0/appTEST0000000001/Tasks", "records[]=recTASK0000000001")
	fx, err := ParseFixture([]byte(smallFixtureJSON))
	if err != nil {
		f.Fatal(err)
	}
	s, err := New(WithFixture(fx), WithRate(0, 0), WithTokenRate(0), WithIteratorTTL(time.Hour))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, method, path, query string) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path+query, " #\r\n\t") || method == "" || strings.ContainsAny(method, " /\r\n\t") {
			return
		}
		req, err := http.NewRequest(method, "http://x"+path+"?"+query, nil)
		if err != nil {
			return
		}
		req.Header.Set("Authorization", "Bearer "+DefaultToken)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Fatalf("content type %q", ct)
		}
		if w.Code == 500 {
			t.Fatalf("%s %s?%s: %s", method, path, query, w.Body)
		}
	})
}

// FuzzWriteBody: any body sent to the write routes is answered without an emulator error (500).
func FuzzWriteBody(f *testing.F) {
	seeds := []string{
		`{"fields":{"Name":"x","Priority":1,"Status":"Todo","Tags":["a"],"Done":true,"Due":"2024-01-02","Owner":["recTASK0000000001"]}}`,
		`{"records":[{"fields":{"Name":"x"}},{"fields":{"Num":1}}],"typecast":true}`,
		`{"records":[{"id":"recTASK0000000001","fields":{"Tags":"a, zz"}}],"typecast":true}`,
		`{"performUpsert":{"fieldsToMergeOn":["Name"]},"records":[{"fields":{"Name":"Ship","Priority":"7"}}],"typecast":true}`,
		`{"fields":{"Due":1640520000000,"Status":null}}`, `{"records":null}`, `[]`, `{"fields":{"Owner":[{"id":5}]}}`,
	}
	for i, b := range seeds {
		f.Add([]string{"POST", "PATCH", "PUT"}[i%3], b)
	}
	fx, err := ParseFixture([]byte(smallFixtureJSON))
	if err != nil {
		f.Fatal(err)
	}
	s, err := New(WithFixture(fx), WithRate(0, 0), WithTokenRate(0))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, method, body string) {
		if method != "POST" && method != "PATCH" && method != "PUT" {
			return
		}
		for _, path := range []string{testBase + "/Tasks", testBase + "/Tasks/recTASK0000000002"} {
			req, _ := http.NewRequest(method, "http://x"+path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+DefaultToken)
			w := httptest.NewRecorder()
			s.ServeHTTP(w, req)
			if w.Code == 500 {
				t.Fatalf("%s %s %s: %s", method, path, body, w.Body)
			}
		}
	})
}

// FuzzCellParsers: the loose number and date readers and the rich-text normalizer never panic.
func FuzzCellParsers(f *testing.F) {
	for _, s := range []string{"1,234.5", "$12", "12%", "2024/01/02", "1/2/2024", "2024-03-05T10:00:00", "* a\n* b", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = parseLooseNumber(s, true)
		_, _ = parseDateValue(s, time.UTC, true)
		if out := normalizeRichText(s); !strings.HasSuffix(out, "\n") {
			t.Fatalf("%q normalized to %q without a final newline", s, out)
		}
		_, _ = parseRollup(s)
	})
}

// walLineForTest is one line of the data file holding payload, a JSON array of changes.
func walLineForTest(payload string) string {
	return fmt.Sprintf("%08x %s\n", crc32.Checksum([]byte(payload), crcTable), payload)
}
