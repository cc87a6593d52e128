package emulator

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"
)

// Schema writes, comments, uploads and reads at once: with -race, every structure they share
// (tables' fields, the formula cache, comments, uploads) is guarded.
func TestConcurrentSchemaCommentsAndReads(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)), WithFixture(collabFixture(t)))
	mustStatus(t, do(t, s, DefaultToken, "POST", metaBase+"/tables/tblTASKS000000001/fields", map[string]any{"name": "Files", "type": "multipleAttachments"}), 200)
	var wg sync.WaitGroup
	errs := make(chan error, 256)
	try := func(tok, method, path string, body any) {
		r, err := tryDo(s, tok, method, path, body)
		if err != nil || r.status != 200 {
			errs <- fmt.Errorf("%s %s: %v %d %s", method, path, err, r.status, r.raw)
		}
	}
	file := base64.StdEncoding.EncodeToString([]byte("content"))
	for g := range 3 {
		wg.Add(4)
		go func() { // schema writes
			defer wg.Done()
			for i := range 5 {
				try(DefaultToken, "POST", metaBase+"/tables/tblTASKS000000001/fields", map[string]any{"name": fmt.Sprintf("F%d-%d", g, i), "type": "number", "options": map[string]any{"precision": 0}})
				try(DefaultToken, "PATCH", metaBase+"/tables/tblTASKS000000001", map[string]any{"description": fmt.Sprintf("d%d-%d", g, i)})
			}
		}()
		go func() { // comments
			defer wg.Done()
			for i := range 5 {
				try("patALICE.secret", "POST", testBase+"/tblTASKS000000001/recTASK0000000002/comments", map[string]any{"text": fmt.Sprintf("c%d-%d @[usrCAROL000000001]", g, i)})
				try("patALICE.secret", "GET", testBase+"/tblTASKS000000001/recTASK0000000002/comments?pageSize=2", nil)
			}
		}()
		go func() { // uploads
			defer wg.Done()
			for i := range 3 {
				try(DefaultToken, "POST", "/v0/appTEST0000000001/recTASK0000000003/Files/uploadAttachment",
					map[string]any{"contentType": "text/plain", "filename": fmt.Sprintf("f%d-%d.txt", g, i), "file": file})
			}
		}()
		go func() { // reads: formulas, views, comment counts, schema, base info
			defer wg.Done()
			for range 5 {
				try(DefaultToken, "GET", testBase+"/tblTASKS000000001?view=Open&recordMetadata%5B%5D=commentCount&filterByFormula="+url.QueryEscape("{Score} > 0"), nil)
				try(DefaultToken, "GET", metaBase+"/tables", nil)
				try("patALICE.secret", "GET", metaBase+"?include=collaborators", nil)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	schema := do(t, s, DefaultToken, "GET", metaBase+"/tables", nil)
	for g := range 3 {
		for i := range 5 {
			fieldID(t, schema, "tblTASKS000000001", fmt.Sprintf("F%d-%d", g, i))
		}
	}
	if got := len(commentTexts(do(t, s, "patALICE.secret", "GET", testBase+"/Tasks/recTASK0000000002/comments", nil))); got != 15 {
		t.Fatalf("%d comments, want 15", got)
	}
	rec := do(t, s, DefaultToken, "GET", testBase+"/Tasks/recTASK0000000003", nil)
	if got := len(fieldsOf(rec.body)["Files"].([]any)); got != 9 {
		t.Fatalf("%d attachments, want 9", got)
	}
}

// In legacy not-found mode the new routes answer the 404s of that era for what does not exist,
// and 403 for a missing scope, like the records routes.
func TestExtrasLegacyNotFound(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)), WithFixture(collabFixture(t)), WithNotFound(NotFoundLegacy))
	cases := []struct {
		name, tok, method, path string
		body                    any
		status                  int
		typ                     string
	}{
		{"base info, unknown base", DefaultToken, "GET", "/v0/meta/bases/appNOPE0000000001", nil, 404, "NOT_FOUND"},
		{"create table, unknown base", DefaultToken, "POST", "/v0/meta/bases/appNOPE0000000001/tables", map[string]any{"name": "x"}, 404, "NOT_FOUND"},
		{"update table, unknown table", DefaultToken, "PATCH", metaBase + "/tables/Nope", map[string]any{"name": "x"}, 404, "TABLE_NOT_FOUND"},
		{"update field, unknown field", DefaultToken, "PATCH", metaBase + "/tables/tblTASKS000000001/fields/fldNOPE0000000001", map[string]any{"name": "x"}, 404, "NOT_FOUND"},
		{"comments, unknown record", "patALICE.secret", "GET", testBase + "/Tasks/recNOPE0000000001/comments", nil, 404, "MODEL_ID_NOT_FOUND"},
		{"comments, unknown comment", "patALICE.secret", "DELETE", commentsPath + "/comNOPE0000000001", nil, 404, "NOT_FOUND"},
		{"upload, unknown record", DefaultToken, "POST", "/v0/appTEST0000000001/recNOPE0000000001/Files/uploadAttachment", map[string]any{}, 404, "MODEL_ID_NOT_FOUND"},
		{"schema write without scope", "patALICE.secret", "POST", metaBase + "/tables", map[string]any{"name": "x"}, 403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, s, tc.tok, tc.method, tc.path, tc.body)
			if r.status != tc.status || errType(r) != tc.typ {
				t.Fatalf("got %d %s, want %d %s", r.status, r.raw, tc.status, tc.typ)
			}
		})
	}
}

// The new routes name a base, so they count against its rate limit; attachment URLs do not.
func TestExtrasCountAgainstTheBaseRate(t *testing.T) {
	s, fc := newTestServer(t, WithFixture(smallFixture(t)), WithFixture(collabFixture(t)), WithRate(2, 30*time.Second))
	mustStatus(t, do(t, s, "patALICE.secret", "POST", commentsPath, map[string]any{"text": "a"}), 200)
	mustStatus(t, do(t, s, "patALICE.secret", "GET", metaBase, nil), 200)
	r := do(t, s, DefaultToken, "POST", metaBase+"/tables/tblTASKS000000001/fields", map[string]any{"name": "X", "type": "email"})
	if r.status != 429 || errType(r) != "RATE_LIMIT_REACHED" {
		t.Fatalf("third request in a second: %s", r.raw)
	}
	fc.Advance(31 * time.Second)
	mustStatus(t, do(t, s, DefaultToken, "POST", metaBase+"/tables/tblTASKS000000001/fields", map[string]any{"name": "X", "type": "email"}), 200)
}

// FuzzApplyExtraOps: a data file's schema, comment and upload changes, whatever they hold, are
// applied or refused with an error at start, never a panic; the server then still answers.
func FuzzApplyExtraOps(f *testing.F) {
	for _, seed := range []string{
		`[{"kind":"createTable","base":"appTEST0000000001","data":{"id":"tblNEW0000000001","name":"N","fields":[{"id":"fldA000000000001","name":"A","type":"singleLineText"}],"views":[{"id":"viwA000000000001","name":"Grid view","type":"grid"}]}}]`,
		`[{"kind":"createField","base":"appTEST0000000001","table":"tblTASKS000000001","data":{"id":"fldB000000000001","name":"B","type":"number","options":{"precision":1}}}]`,
		`[{"kind":"updateField","base":"appTEST0000000001","table":"tblTASKS000000001","field":"fldNAME0000000001","data":{"name":"Title"}}]`,
		`[{"kind":"updateTable","base":"appTEST0000000001","table":"tblTASKS000000001","data":{"name":"Jobs","description":"d"}}]`,
		`[{"kind":"commentPut","base":"appTEST0000000001","table":"tblTASKS000000001","id":"recTASK0000000001","data":{"id":"comA000000000001","authorId":"usrA000000000001","text":"hi","createdTime":"2024-01-01T00:00:00.000Z"}}]`,
		`[{"kind":"commentDelete","base":"appTEST0000000001","table":"tblTASKS000000001","id":"recTASK0000000001","field":"comA000000000001"}]`,
		`[{"kind":"upload","id":"attA000000000001","data":{"filename":"a.txt","type":"text/plain","content":"aGk="}}]`,
		`[{"kind":"createField","base":"appTEST0000000001","table":"tblTASKS000000001","data":null}]`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data string) {
		var ops []walOp
		if json.Unmarshal([]byte(data), &ops) != nil {
			return
		}
		s, _ := newTestServer(t, WithFixture(smallFixture(t)))
		s.mu.Lock()
		err := func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("applying %s panicked: %v", data, p)
				}
			}()
			return s.applyOpsLocked(ops)
		}()
		s.mu.Unlock()
		_ = err // refused changes stop a start with this error; applied ones must leave a working server
		for _, path := range []string{metaBase + "/tables", testBase + "/tblTASKS000000001?recordMetadata%5B%5D=commentCount", metaBase} {
			if r, err := tryDo(s, DefaultToken, "GET", path, nil); err != nil || r.status >= 500 {
				t.Fatalf("GET %s after %s: %v %d %s", path, data, err, r.status, r.raw)
			}
		}
	})
}
