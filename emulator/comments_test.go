package emulator

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// collabFixture adds collaborators, an interface, invite links and two users' tokens to the small
// base.
func collabFixture(t *testing.T) *Fixture {
	t.Helper()
	f, err := ParseFixture([]byte(`{
  "tokens": [
    {"token": "patALICE.secret", "bases": ["appTEST0000000001"], "userId": "usrALICE000000001", "email": "alice@example.com",
     "scopes": ["data.records:read", "data.records:write", "data.recordComments:read", "data.recordComments:write", "schema.bases:read"]},
    {"token": "patBOB.secret", "bases": ["appTEST0000000001"], "userId": "usrBOB00000000001",
     "scopes": ["data.records:read", "data.recordComments:read", "data.recordComments:write", "schema.bases:read"]},
    {"token": "patNOCOMMENTS.secret", "bases": ["appTEST0000000001"], "scopes": ["data.records:read", "data.records:write"]}
  ],
  "bases": [{"id": "appTEST0000000001", "name": "Test", "createdTime": "2023-05-06T07:08:09Z", "workspaceId": "wspWORKSPACE00001",
    "collaborators": [
      {"userId": "usrALICE000000001", "email": "alice@example.com", "name": "Alice", "permissionLevel": "owner"},
      {"userId": "usrCAROL000000001", "email": "carol@example.com", "name": "Carol", "permissionLevel": "read", "via": "workspace"},
      {"groupId": "ugpTEAM0000000001", "name": "Team", "permissionLevel": "comment"}
    ],
    "interfaces": [{"id": "pbdINTERFACE00001", "name": "Dashboard", "firstPublishTime": "2024-02-04T02:28:12.000Z"}],
    "inviteLinks": {"baseInviteLinks": [{"id": "invLINK0000000001", "type": "multiUse", "permissionLevel": "read",
      "invitedEmail": null, "referredByUserId": "usrALICE000000001", "restrictedToEmailDomains": [], "createdTime": "2024-01-01T00:00:00.000Z"}]},
    "tables": []}]
}`))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// The documented answer of get base collaborators, with and without include.
func TestBaseInfo(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)), WithFixture(collabFixture(t)))
	r := do(t, s, "patALICE.secret", "GET", metaBase, nil)
	mustStatus(t, r, 200)
	want := `{"createdTime":"2023-05-06T07:08:09.000Z","id":"appTEST0000000001","name":"Test","permissionLevel":"owner","workspaceId":"wspWORKSPACE00001"}`
	if r.raw != want {
		t.Fatalf("base info:\n%s\nwant\n%s", r.raw, want)
	}
	r = do(t, s, "patALICE.secret", "GET", metaBase+"?include=collaborators&include=inviteLinks&include=interfaces", nil)
	mustStatus(t, r, 200)
	ind := r.body["individualCollaborators"].(map[string]any)
	if b := ind["baseCollaborators"].([]any); len(b) != 1 || b[0].(map[string]any)["userId"] != "usrALICE000000001" || b[0].(map[string]any)["permissionLevel"] != "owner" || b[0].(map[string]any)["createdTime"] != "2023-05-06T07:08:09.000Z" {
		t.Fatalf("individual base collaborators: %v", ind)
	}
	if w := ind["workspaceCollaborators"].([]any); len(w) != 1 || w[0].(map[string]any)["email"] != "carol@example.com" {
		t.Fatalf("individual workspace collaborators: %v", ind)
	}
	grp := r.body["groupCollaborators"].(map[string]any)
	if g := grp["baseCollaborators"].([]any); len(g) != 1 || g[0].(map[string]any)["groupId"] != "ugpTEAM0000000001" || g[0].(map[string]any)["name"] != "Team" {
		t.Fatalf("groups: %v", grp)
	}
	in := r.body["interfaces"].(map[string]any)["pbdINTERFACE00001"].(map[string]any)
	if in["name"] != "Dashboard" || in["createdTime"] != "2023-05-06T07:08:09.000Z" || len(in["individualCollaborators"].([]any)) != 0 {
		t.Fatalf("interfaces: %v", in)
	}
	links := r.body["inviteLinks"].(map[string]any)
	if l := links["baseInviteLinks"].([]any); len(l) != 1 || l[0].(map[string]any)["id"] != "invLINK0000000001" || len(links["workspaceInviteLinks"].([]any)) != 0 {
		t.Fatalf("invite links: %v", links)
	}
	// A base without any of it: empty lists, as asked; the level from the token's scopes.
	d, _ := newTestServer(t, WithDemo())
	r = do(t, d, DemoToken, "GET", "/v0/meta/bases/"+DemoBaseID+"?include=collaborators&include=interfaces&include=inviteLinks", nil)
	mustStatus(t, r, 200)
	for _, key := range []string{`"permissionLevel":"create"`, `"individualCollaborators":{"baseCollaborators":[],"workspaceCollaborators":[]}`, `"interfaces":{}`, `"inviteLinks":{"baseInviteLinks":[],"workspaceInviteLinks":[]}`} {
		if !strings.Contains(r.raw, key) {
			t.Fatalf("demo base info lacks %s: %s", key, r.raw)
		}
	}
	// Errors: scope, base, include.
	mustStatus(t, do(t, s, "patNOCOMMENTS.secret", "GET", metaBase, nil), 403)
	mustStatus(t, do(t, s, "patALICE.secret", "GET", "/v0/meta/bases/appNOPE0000000001", nil), 403)
	if r := do(t, s, "patALICE.secret", "GET", metaBase+"?include=secrets", nil); errType(r) != "INVALID_REQUEST_UNKNOWN" {
		t.Fatalf("unknown include: %s", r.raw)
	}
}

func TestBaseInfoFixtureErrors(t *testing.T) {
	for _, tc := range []struct{ collab, want string }{
		{`{"userId": "usrA0000000000001", "groupId": "ugpA0000000000001"}`, "both userId and groupId"},
		{`{"email": "x@y.z"}`, "neither userId nor groupId"},
		{`{"userId": "bob"}`, `userId "bob"`},
		{`{"userId": "usrA0000000000001", "permissionLevel": "god"}`, `permissionLevel "god"`},
		{`{"userId": "usrA0000000000001", "via": "email"}`, `via "email"`},
	} {
		_, err := ParseFixture([]byte(`{"bases": [{"name": "B", "tables": [], "collaborators": [` + tc.collab + `]}]}`))
		if err == nil {
			var s *Server
			s, err = New(WithFixture(mustFixture(t, `{"bases": [{"name": "B", "tables": [], "collaborators": [`+tc.collab+`]}]}`)))
			if s != nil {
				s.Close()
			}
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("collaborator %s: error %v, want %q", tc.collab, err, tc.want)
		}
	}
}

func mustFixture(t *testing.T, js string) *Fixture {
	t.Helper()
	f, err := ParseFixture([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

const commentsPath = testBase + "/Tasks/recTASK0000000001/comments"

// The documented create/list/update/delete of comments, with mentions and authors.
func TestComments(t *testing.T) {
	s, fc := newTestServer(t, WithFixture(smallFixture(t)), WithFixture(collabFixture(t)))
	r := do(t, s, "patALICE.secret", "POST", commentsPath, map[string]any{"text": "Hello, @[usrCAROL000000001] and @[usrBOB00000000001] and @[ugpTEAM0000000001] and @[usrNOBODY00000001]!"})
	mustStatus(t, r, 200)
	id := r.body["id"].(string)
	if !isID(id, "com") || r.body["createdTime"] != formatTime(t0) || r.body["lastUpdatedTime"] != nil {
		t.Fatalf("created comment: %s", r.raw)
	}
	if a := r.body["author"].(map[string]any); a["id"] != "usrALICE000000001" || a["email"] != "alice@example.com" || a["name"] != "Alice" {
		t.Fatalf("author: %v", a)
	}
	m := r.body["mentioned"].(map[string]any)
	want := map[string]string{
		"usrCAROL000000001": `{"displayName":"Carol","email":"carol@example.com","id":"usrCAROL000000001","type":"user"}`,
		"usrBOB00000000001": `{"displayName":"usrBOB00000000001","id":"usrBOB00000000001","type":"user"}`,
		"ugpTEAM0000000001": `{"displayName":"Team","id":"ugpTEAM0000000001","type":"userGroup"}`,
	}
	if len(m) != len(want) {
		t.Fatalf("mentioned %v, want %d entries (not the unknown user)", m, len(want))
	}
	for k, v := range want {
		if got := string(walJSON(m[k])); got != v {
			t.Errorf("mentioned[%s] = %s, want %s", k, got, v)
		}
	}
	// A reply, and two more comments for paging.
	fc.Advance(time.Second)
	reply := do(t, s, "patBOB.secret", "POST", commentsPath, map[string]any{"text": "reply", "parentCommentId": id})
	mustStatus(t, reply, 200)
	if reply.body["parentCommentId"] != id || reply.body["author"].(map[string]any)["id"] != "usrBOB00000000001" {
		t.Fatalf("reply: %s", reply.raw)
	}
	for i := range 2 {
		fc.Advance(time.Second)
		mustStatus(t, do(t, s, "patALICE.secret", "POST", commentsPath, map[string]any{"text": fmt.Sprintf("c%d", i)}), 200)
	}
	// Newest first, paged; the last page's offset is null.
	p1 := do(t, s, "patBOB.secret", "GET", commentsPath+"?pageSize=3", nil)
	mustStatus(t, p1, 200)
	texts := commentTexts(p1)
	if strings.Join(texts, "|") != "c1|c0|reply" || p1.body["offset"] == nil {
		t.Fatalf("page 1: %s", p1.raw)
	}
	p2 := do(t, s, "patBOB.secret", "GET", commentsPath+"?pageSize=3&offset="+p1.body["offset"].(string), nil)
	if texts := commentTexts(p2); len(texts) != 1 || !strings.HasPrefix(texts[0], "Hello") || p2.body["offset"] != nil || !strings.Contains(p2.raw, `"offset":null`) {
		t.Fatalf("page 2: %s", p2.raw)
	}
	// commentCount on list requests, GET and POST.
	for _, req := range []struct{ method, path string }{{"GET", testBase + "/Tasks?recordMetadata%5B%5D=commentCount"}, {"POST", testBase + "/Tasks/listRecords"}} {
		var body any
		if req.method == "POST" {
			body = map[string]any{"recordMetadata": []string{"commentCount"}}
		}
		l := do(t, s, "patALICE.secret", req.method, req.path, body)
		counts := map[string]any{}
		for _, rec := range records(t, l) {
			counts[rec["id"].(string)] = rec["commentCount"]
		}
		if counts["recTASK0000000001"] != float64(4) || counts["recTASK0000000002"] != float64(0) {
			t.Fatalf("%s commentCount: %v", req.method, counts)
		}
	}
	// Update: only the author; the text changes, lastUpdatedTime is set, mentions follow the text.
	if r := do(t, s, "patBOB.secret", "PATCH", commentsPath+"/"+id, map[string]any{"text": "mine now"}); r.status != 403 || errType(r) != "INVALID_PERMISSIONS" {
		t.Fatalf("update by another user: %s", r.raw)
	}
	fc.Advance(time.Minute)
	u := do(t, s, "patALICE.secret", "PATCH", commentsPath+"/"+id, map[string]any{"text": "Never mind!"})
	mustStatus(t, u, 200)
	if u.body["text"] != "Never mind!" || u.body["lastUpdatedTime"] != formatTime(t0.Add(3*time.Second+time.Minute)) || u.body["mentioned"] != nil || u.body["createdTime"] != formatTime(t0) {
		t.Fatalf("updated comment: %s", u.raw)
	}
	// Delete.
	if r := do(t, s, "patBOB.secret", "DELETE", commentsPath+"/"+id, nil); r.status != 403 {
		t.Fatalf("delete by another user: %s", r.raw)
	}
	d := do(t, s, "patALICE.secret", "DELETE", commentsPath+"/"+id, nil)
	mustStatus(t, d, 200)
	if d.raw != `{"deleted":true,"id":"`+id+`"}` {
		t.Fatalf("delete answer: %s", d.raw)
	}
	if r := do(t, s, "patALICE.secret", "DELETE", commentsPath+"/"+id, nil); r.status != 403 {
		t.Fatalf("delete twice: %s", r.raw)
	}
	if n := len(commentTexts(do(t, s, "patALICE.secret", "GET", commentsPath, nil))); n != 3 {
		t.Fatalf("%d comments after the delete", n)
	}
}

func commentTexts(r response) []string {
	var out []string
	list, _ := r.body["comments"].([]any)
	for _, c := range list {
		out = append(out, c.(map[string]any)["text"].(string))
	}
	return out
}

func TestCommentErrors(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)), WithFixture(collabFixture(t)))
	cases := []struct {
		name, tok, method, path string
		body                    any
		status                  int
		typ                     string
	}{
		{"read without comment scope", "patNOCOMMENTS.secret", "GET", commentsPath, nil, 403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND"},
		{"write without comment scope", "patNOCOMMENTS.secret", "POST", commentsPath, map[string]any{"text": "x"}, 403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND"},
		{"unknown record", "patALICE.secret", "GET", testBase + "/Tasks/recNOPE0000000001/comments", nil, 403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND"},
		{"empty text", "patALICE.secret", "POST", commentsPath, map[string]any{"text": ""}, 422, "INVALID_REQUEST_UNKNOWN"},
		{"unknown parent", "patALICE.secret", "POST", commentsPath, map[string]any{"text": "x", "parentCommentId": "comNOPE0000000001"}, 422, "INVALID_REQUEST_UNKNOWN"},
		{"page size", "patALICE.secret", "GET", commentsPath + "?pageSize=101", nil, 422, "INVALID_REQUEST_UNKNOWN"},
		{"bad offset", "patALICE.secret", "GET", commentsPath + "?offset=comNOPE0000000001", nil, 422, "INVALID_REQUEST_UNKNOWN"},
		{"unknown comment", "patALICE.secret", "PATCH", commentsPath + "/comNOPE0000000001", map[string]any{"text": "x"}, 403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND"},
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

// testPNG is a small PNG image of w x h pixels.
func testPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The documented upload: the answer has the record's attachment field keyed by id, with every
// attachment; the URL serves the bytes.
func TestUploadAttachment(t *testing.T) {
	fx := mustFixture(t, `{"bases": [{"id": "appTEST0000000001", "name": "Test", "tables": [{"id": "tblFILES000000001", "name": "Files",
	  "fields": [{"name": "Name", "type": "singleLineText"}, {"id": "fldATTACH00000001", "name": "Files", "type": "multipleAttachments"}],
	  "records": [{"id": "recFILE0000000001", "fields": {"Name": "a", "Files": [{"url": "https://example.com/a.png", "filename": "a.png"}]}}]}]}]}`)
	path := filepath.Join(t.TempDir(), "data.wal")
	s, _ := newTestServer(t, WithFixture(fx), WithDataFile(path))
	content := testPNG(t, 3, 2)
	r := do(t, s, DefaultToken, "POST", "/v0/appTEST0000000001/recFILE0000000001/Files/uploadAttachment", map[string]any{
		"contentType": "image/png", "filename": "b.png", "file": base64.StdEncoding.EncodeToString(content)})
	mustStatus(t, r, 200)
	if r.body["id"] != "recFILE0000000001" {
		t.Fatalf("answer: %s", r.raw)
	}
	atts := r.body["fields"].(map[string]any)["fldATTACH00000001"].([]any)
	if len(atts) != 2 || atts[0].(map[string]any)["filename"] != "a.png" {
		t.Fatalf("attachments: %s", r.raw)
	}
	b := atts[1].(map[string]any)
	if b["filename"] != "b.png" || b["type"] != "image/png" || b["size"] != float64(len(content)) || b["width"] != float64(3) || b["height"] != float64(2) || !isID(b["id"].(string), "att") {
		t.Fatalf("uploaded attachment: %v", b)
	}
	url := b["url"].(string)
	if !strings.HasPrefix(url, InProcessURL+"/attachments/") {
		t.Fatalf("url %s", url)
	}
	get := func(s *Server) []byte {
		res, err := s.Client().Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		got, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("GET %s: %d %s", url, res.StatusCode, res.Header)
		}
		return got
	}
	if got := get(s); !bytes.Equal(got, content) {
		t.Fatalf("GET of the url gave %d bytes, want the %d uploaded", len(got), len(content))
	}
	// The record shows it too; the upload and the cell survive a restart.
	rec := do(t, s, DefaultToken, "GET", "/v0/appTEST0000000001/Files/recFILE0000000001", nil)
	if n := len(fieldsOf(rec.body)["Files"].([]any)); n != 2 {
		t.Fatalf("record after upload: %s", rec.raw)
	}
	s.Close()
	s2, _ := newTestServer(t, WithFixture(fx), WithDataFile(path))
	if got := get(s2); !bytes.Equal(got, content) {
		t.Fatal("the upload is gone after a restart")
	}
	if rec2 := do(t, s2, DefaultToken, "GET", "/v0/appTEST0000000001/Files/recFILE0000000001", nil); rec2.raw != rec.raw {
		t.Fatalf("record after restart:\n%s\nbefore:\n%s", rec2.raw, rec.raw)
	}
	// Python's base64.encodebytes puts a newline every 76 characters: accepted.
	wrapped := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("x"), 200))
	var lines []string
	for len(wrapped) > 76 {
		lines, wrapped = append(lines, wrapped[:76]), wrapped[76:]
	}
	lines = append(lines, wrapped)
	r = do(t, s2, DefaultToken, "POST", "/v0/appTEST0000000001/recFILE0000000001/fldATTACH00000001/uploadAttachment", map[string]any{
		"contentType": "text/plain", "filename": "x.txt", "file": strings.Join(lines, "\n") + "\n"})
	mustStatus(t, r, 200)
	if last := r.body["fields"].(map[string]any)["fldATTACH00000001"].([]any)[2].(map[string]any); last["size"] != float64(200) {
		t.Fatalf("wrapped base64: %v", last)
	}
	// An unknown attachment URL.
	res, err := s2.Client().Get(InProcessURL + "/attachments/attNOPE0000000001/x")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown attachment: %d", res.StatusCode)
	}
}

func TestUploadAttachmentErrors(t *testing.T) {
	fx := mustFixture(t, `{"tokens": [{"token": "patR.o", "bases": ["appTEST0000000001"], "scopes": ["data.records:read"]},
	  {"token": "patRW.x", "bases": ["appTEST0000000001"], "scopes": ["data.records:read", "data.records:write"]}],
	  "bases": [{"id": "appTEST0000000001", "name": "Test", "tables": [{"id": "tblFILES000000001", "name": "Files",
	  "fields": [{"name": "Name", "type": "singleLineText"}, {"name": "Files", "type": "multipleAttachments"}],
	  "records": [{"id": "recFILE0000000001", "fields": {"Name": "a"}}]}]}]}`)
	s, _ := newTestServer(t, WithFixture(fx))
	ok := map[string]any{"contentType": "text/plain", "filename": "a.txt", "file": base64.StdEncoding.EncodeToString([]byte("hi"))}
	up := "/v0/appTEST0000000001/recFILE0000000001/Files/uploadAttachment"
	big := base64.StdEncoding.EncodeToString(make([]byte, MaxUploadBytes+1))
	cases := []struct {
		name, tok, path string
		body            any
		status          int
		typ             string
	}{
		{"no write scope", "patR.o", up, ok, 403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND"},
		{"unknown record", "patRW.x", "/v0/appTEST0000000001/recNOPE0000000001/Files/uploadAttachment", ok, 403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND"},
		{"unknown field", "patRW.x", "/v0/appTEST0000000001/recFILE0000000001/Nope/uploadAttachment", ok, 422, "UNKNOWN_FIELD_NAME"},
		{"not an attachment field", "patRW.x", "/v0/appTEST0000000001/recFILE0000000001/Name/uploadAttachment", ok, 422, "INVALID_REQUEST_UNKNOWN"},
		{"no filename", "patRW.x", up, map[string]any{"contentType": "text/plain", "file": "aGk="}, 422, "INVALID_REQUEST_UNKNOWN"},
		{"not base64", "patRW.x", up, map[string]any{"contentType": "text/plain", "filename": "a", "file": "***"}, 422, "INVALID_REQUEST_UNKNOWN"},
		{"over 5 MB", "patRW.x", up, map[string]any{"contentType": "text/plain", "filename": "a", "file": big}, 413, "REQUEST_TOO_LARGE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, s, tc.tok, "POST", tc.path, tc.body)
			if r.status != tc.status || errType(r) != tc.typ {
				t.Fatalf("got %d %s, want %d %s", r.status, r.raw, tc.status, tc.typ)
			}
		})
	}
	// The files kept, all together, are bounded too.
	s.mu.Lock()
	s.extras.uploadLimit = s.extras.uploadBytes + 3
	s.mu.Unlock()
	mustStatus(t, do(t, s, "patRW.x", "POST", up, map[string]any{"contentType": "text/plain", "filename": "a.txt", "file": base64.StdEncoding.EncodeToString([]byte("abc"))}), 200)
	if r := do(t, s, "patRW.x", "POST", up, ok); r.status != 413 || !strings.Contains(r.raw, "keeps at most") {
		t.Fatalf("past the stored uploads' limit: %s", r.raw)
	}
	s.mu.Lock()
	s.extras.uploadLimit = 0
	s.mu.Unlock()
	// A file of exactly 5 MB is taken.
	exact := base64.StdEncoding.EncodeToString(make([]byte, MaxUploadBytes))
	mustStatus(t, do(t, s, "patRW.x", "POST", up, map[string]any{"contentType": "application/octet-stream", "filename": "z.bin", "file": exact}), 200)
}

// Comments and base info persist with the data file.
func TestCommentsPersist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.wal")
	s, _ := newTestServer(t, WithFixture(smallFixture(t)), WithFixture(collabFixture(t)), WithDataFile(path))
	a := do(t, s, "patALICE.secret", "POST", commentsPath, map[string]any{"text": "one"})
	b := do(t, s, "patALICE.secret", "POST", commentsPath, map[string]any{"text": "two @[usrCAROL000000001]"})
	mustStatus(t, do(t, s, "patALICE.secret", "PATCH", commentsPath+"/"+b.body["id"].(string), map[string]any{"text": "two, edited"}), 200)
	mustStatus(t, do(t, s, "patALICE.secret", "DELETE", commentsPath+"/"+a.body["id"].(string), nil), 200)
	before := do(t, s, "patALICE.secret", "GET", commentsPath, nil).raw
	s.Close()
	s2, _ := newTestServer(t, WithFixture(smallFixture(t)), WithFixture(collabFixture(t)), WithDataFile(path))
	if after := do(t, s2, "patALICE.secret", "GET", commentsPath, nil).raw; after != before || !strings.Contains(after, "two, edited") {
		t.Fatalf("comments after restart:\n%s\nbefore:\n%s", after, before)
	}
}

// Deleting a record deletes its comments.
func TestCommentsGoWithTheirRecord(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)), WithFixture(collabFixture(t)))
	mustStatus(t, do(t, s, "patALICE.secret", "POST", commentsPath, map[string]any{"text": "x"}), 200)
	s.mu.RLock()
	stored := s.commentCountLocked("recTASK0000000001")
	s.mu.RUnlock()
	if stored != 1 {
		t.Fatal("comment not stored")
	}
	mustStatus(t, do(t, s, "patALICE.secret", "DELETE", testBase+"/Tasks/recTASK0000000001", nil), 200)
	s.mu.RLock()
	n := s.commentCountLocked("recTASK0000000001")
	s.mu.RUnlock()
	if n != 0 {
		t.Fatalf("%d comments left after the record's delete", n)
	}
}

// With WithAttachmentFetch, an attachment given by URL gets the size, type and dimensions of the
// file, in the background; an upload right after the write answers with them.
func TestAttachmentFetch(t *testing.T) {
	logo := testPNG(t, 5, 4)
	blocked := make(chan struct{})
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/logo.png":
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(logo)
		case "/slow.png":
			close(blocked)
			<-r.Context().Done() // until the emulator gives up (Close)
		default:
			http.NotFound(w, r)
		}
	}))
	defer files.Close()
	fx := mustFixture(t, `{"bases": [{"id": "appTEST0000000001", "name": "Test", "tables": [{"id": "tblFILES000000001", "name": "Files",
	  "fields": [{"name": "Name", "type": "singleLineText"}, {"id": "fldATTACH00000001", "name": "Files", "type": "multipleAttachments"}]}]}]}`)
	path := filepath.Join(t.TempDir(), "data.wal")
	s, _ := newTestServer(t, WithFixture(fx), WithDataFile(path), WithAttachmentFetch(files.Client()))
	rec := do(t, s, DefaultToken, "POST", "/v0/appTEST0000000001/Files", map[string]any{"fields": map[string]any{"Files": []any{
		map[string]any{"url": files.URL + "/logo.png", "filename": "a.png"}, map[string]any{"url": files.URL + "/missing.png"}}}})
	mustStatus(t, rec, 200)
	id := rec.body["id"].(string)
	// The upload waits for the record's downloads, so its answer has a.png's size.
	up := do(t, s, DefaultToken, "POST", "/v0/appTEST0000000001/"+id+"/Files/uploadAttachment", map[string]any{
		"contentType": "text/plain", "filename": "c.txt", "file": base64.StdEncoding.EncodeToString([]byte("hello"))})
	mustStatus(t, up, 200)
	atts := up.body["fields"].(map[string]any)["fldATTACH00000001"].([]any)
	a, missing := atts[0].(map[string]any), atts[1].(map[string]any)
	if a["size"] != float64(len(logo)) || a["type"] != "image/png" || a["width"] != float64(5) || a["height"] != float64(4) || a["url"] != files.URL+"/logo.png" {
		t.Fatalf("fetched attachment: %v", a)
	}
	if missing["size"] != float64(0) {
		t.Fatalf("a failed download changes nothing: %v", missing)
	}
	s.waitFetches()
	before := do(t, s, DefaultToken, "GET", "/v0/appTEST0000000001/Files/"+id, nil).raw
	// A download under way when the server closes is given up.
	mustStatus(t, do(t, s, DefaultToken, "POST", "/v0/appTEST0000000001/Files", map[string]any{"fields": map[string]any{"Files": []any{
		map[string]any{"url": files.URL + "/slow.png"}}}}), 200)
	<-blocked
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, _ := newTestServer(t, WithFixture(fx), WithDataFile(path))
	if after := do(t, s2, DefaultToken, "GET", "/v0/appTEST0000000001/Files/"+id, nil).raw; after != before {
		t.Fatalf("after restart:\n%s\nbefore:\n%s", after, before)
	}
}
