package transport

import (
	"encoding/base64"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
)

func commentJSON(id, text string) string {
	return `{"id":"` + id + `","author":{"id":"usrA0000000000001","email":"a@example.com"},"text":"` + text +
		`","createdTime":"2024-01-02T03:04:05.000Z","lastUpdatedTime":null,"reactions":[]}`
}

// TestCommentRequests: the exact requests of the comment operations, the listing paged only as
// far as the loop reads, and a create not repeated after a 503.
func TestCommentRequests(t *testing.T) {
	tbl, fake, _ := newTestTable(t, func(n int, r seenRequest) reply {
		switch {
		case r.Method == "GET" && r.Query == "pageSize=2":
			return ok(`{"comments":[` + commentJSON("comA0000000000002", "b") + `,` + commentJSON("comA0000000000001", "a") + `],"offset":"comA0000000000001"}`)
		case r.Method == "GET" && r.Query == "offset=comA0000000000001&pageSize=2":
			return ok(`{"comments":[` + commentJSON("comA0000000000000", "z") + `],"offset":null}`)
		case r.Method == "POST" && strings.Contains(r.Body, "twice"):
			return reply{status: 503, body: `{"error":{"type":"RETRIABLE_ERROR"}}`}
		case r.Method == "POST":
			return ok(commentJSON("comNEW0000000001", "hi @[usrB0000000000001]"))
		case r.Method == "PATCH":
			return ok(`{"id":"comNEW0000000001","author":{"id":"usrA0000000000001"},"text":"edited","createdTime":"2024-01-02T03:04:05.000Z","lastUpdatedTime":"2024-01-03T00:00:00.000Z",
				"mentioned":{"usrB0000000000001":{"type":"user","id":"usrB0000000000001","displayName":"Bo","email":"bo@example.com"}}}`)
		case r.Method == "DELETE":
			return ok(`{"id":"comNEW0000000001","deleted":true}`)
		}
		return reply{status: 404, body: `{"error":"NOT_FOUND"}`}
	}, WithRetryStrategy(RetryStrategy()))

	var texts []string
	for page, err := range tbl.Comments(bg, "recX0000000000001", CommentOptions{PageSize: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page {
			texts = append(texts, c.Text)
		}
	}
	if got, want := strings.Join(texts, ","), "b,a,z"; got != want {
		t.Errorf("got comments %s, want %s", got, want)
	}
	for range tbl.Comments(bg, "recX0000000000001", CommentOptions{PageSize: 2}) {
		break // reading one page sends one request
	}
	mention, err := Mention("usrB0000000000001")
	if err != nil {
		t.Fatal(err)
	}
	cm, err := tbl.CreateComment(bg, "recX0000000000001", CommentSpec{Text: "hi " + mention})
	if err != nil || cm.ID != "comNEW0000000001" || cm.Author.Email != "a@example.com" || !cm.LastUpdatedTime.IsZero() {
		t.Fatalf("CreateComment: got %+v, %v", cm, err)
	}
	up, err := tbl.UpdateComment(bg, "recX0000000000001", cm.ID, "edited")
	wantMention := map[string]Mentioned{"usrB0000000000001": {Type: "user", ID: "usrB0000000000001", DisplayName: "Bo", Email: "bo@example.com"}}
	if err != nil || up.Text != "edited" || !up.LastUpdatedTime.Equal(time.Date(2024, 1, 3, 0, 0, 0, 0, time.UTC)) || !reflect.DeepEqual(up.Mentioned, wantMention) {
		t.Fatalf("UpdateComment: got %+v, %v", up, err)
	}
	del, err := tbl.DeleteComment(bg, "recX0000000000001", cm.ID)
	if err != nil || !del.Deleted {
		t.Fatalf("DeleteComment: got %+v, %v", del, err)
	}
	if _, err := tbl.CreateComment(bg, "recX0000000000001", CommentSpec{Text: "twice"}); err == nil {
		t.Error("a 503 to a create should fail")
	}
	diffLines(t, fake.Lines(), []string{
		"GET /v0/appTEST0000000001/My%20Tasks/recX0000000000001/comments?pageSize=2",
		"GET /v0/appTEST0000000001/My%20Tasks/recX0000000000001/comments?offset=comA0000000000001&pageSize=2",
		"GET /v0/appTEST0000000001/My%20Tasks/recX0000000000001/comments?pageSize=2",
		`POST /v0/appTEST0000000001/My%20Tasks/recX0000000000001/comments {"text":"hi @[usrB0000000000001]"}`,
		`PATCH /v0/appTEST0000000001/My%20Tasks/recX0000000000001/comments/comNEW0000000001 {"text":"edited"}`,
		"DELETE /v0/appTEST0000000001/My%20Tasks/recX0000000000001/comments/comNEW0000000001",
		`POST /v0/appTEST0000000001/My%20Tasks/recX0000000000001/comments {"text":"twice"}`,
	})
	for _, bad := range []struct {
		name string
		err  error
	}{
		{"empty text", func() error { _, err := tbl.CreateComment(bg, "recX0000000000001", CommentSpec{Text: " "}); return err }()},
		{"no record", func() error { _, err := tbl.UpdateComment(bg, "", "comX", "t"); return err }()},
		{"page size", func() error {
			for _, err := range tbl.Comments(bg, "recX0000000000001", CommentOptions{PageSize: 101}) {
				return err
			}
			return nil
		}()},
	} {
		if !errors.Is(bad.err, ErrInvalidOption) {
			t.Errorf("%s: got %v, want an ErrInvalidOption before sending", bad.name, bad.err)
		}
	}
	if _, err := Mention("bob"); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("Mention(bob): got %v, want ErrInvalidOption", err)
	}
}

// TestUploadRequests: the upload's body, its host (content.airtable.com for the service, the
// endpoint otherwise), and the size limit checked before sending.
func TestUploadRequests(t *testing.T) {
	answer := func(n int, r seenRequest) reply {
		return ok(`{"id":"recX0000000000001","createdTime":"2024-01-01T00:00:00.000Z","fields":{"fldATT0000000001":[{"id":"attA","filename":"a.txt","size":5}]}}`)
	}
	tbl, fake, _ := newTestTable(t, answer)
	rec, err := tbl.UploadAttachment(bg, "recX0000000000001", "Files", Upload{Filename: "a.txt", ContentType: "text/plain", Content: []byte("hello")})
	if err != nil || rec.ID != "recX0000000000001" || rec.Fields["fldATT0000000001"] == nil {
		t.Fatalf("UploadAttachment: got %+v, %v", rec, err)
	}
	diffLines(t, fake.Lines(), []string{`POST /v0/appTEST0000000001/recX0000000000001/Files/uploadAttachment {"contentType":"text/plain","file":"` +
		base64.StdEncoding.EncodeToString([]byte("hello")) + `","filename":"a.txt"}`})
	if h := fake.Requests()[0].Host; h != "fake.test" {
		t.Errorf("upload to an own endpoint went to host %s, want fake.test", h)
	}

	real := newFake(answer)
	api, err := NewAPI(testToken, WithHTTPClient(&http.Client{Transport: real}), WithClock(newJumpClock()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api.UploadAttachment(bg, testBase, "T", "recX0000000000001", "fldATT0000000001", Upload{Filename: "a", ContentType: "text/plain"}); err != nil {
		t.Fatal(err)
	}
	if got := real.Requests()[0]; got.Host != "content.airtable.com" || got.Path != "/v0/appTEST0000000001/recX0000000000001/fldATT0000000001/uploadAttachment" {
		t.Errorf("upload to the service went to %s%s, want content.airtable.com/v0/…/uploadAttachment", got.Host, got.Path)
	}

	big := Upload{Filename: "big.bin", ContentType: "application/octet-stream", Content: make([]byte, MaxUploadBytes+1)}
	if _, err := tbl.UploadAttachment(bg, "recX0000000000001", "Files", big); !errors.Is(err, ErrUploadTooLarge) {
		t.Errorf("an upload of %d bytes: got %v, want ErrUploadTooLarge", len(big.Content), err)
	}
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("%d requests, want 1: refused uploads send nothing", n)
	}

	dir := t.TempDir()
	for _, tc := range []struct{ name, content, typ, want string }{
		{"notes.txt", "x", "", "text/plain; charset=utf-8"},
		{"pic.png", "\x89PNG\r\n\x1a\n", "", "image/png"},
		{"blob", "%PDF-1.4", "", "application/pdf"},
		{"data.csv", "a,b", "text/csv", "text/csv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			up, err := UploadFile(p, tc.typ)
			if err != nil || up.ContentType != tc.want || up.Filename != tc.name || string(up.Content) != tc.content {
				t.Errorf("got %+v, %v; want type %s", up, err, tc.want)
			}
		})
	}
	p := filepath.Join(dir, "big")
	if err := os.WriteFile(p, make([]byte, MaxUploadBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := UploadFile(p, ""); !errors.Is(err, ErrUploadTooLarge) {
		t.Errorf("UploadFile of a large file: got %v, want ErrUploadTooLarge", err)
	}
}

// TestSchemaUpdateRequests: whoami, base collaborators, update table and update field.
func TestSchemaUpdateRequests(t *testing.T) {
	fake := newFake(func(n int, r seenRequest) reply {
		switch {
		case r.Path == "/v0/meta/whoami":
			return ok(`{"id":"usrA0000000000001","email":"a@example.com","scopes":["data.records:read"]}`)
		case r.Method == "GET":
			return ok(`{"id":"appTEST0000000001","name":"B","permissionLevel":"create","workspaceId":"wspA","createdTime":"2024-01-01T00:00:00.000Z",
				"individualCollaborators":{"baseCollaborators":[{"userId":"usrA0000000000001","email":"a@example.com","permissionLevel":"owner","createdTime":"2024-01-01T00:00:00.000Z","grantedByUserId":"usrA0000000000001"}],"workspaceCollaborators":[]},
				"groupCollaborators":{"baseCollaborators":[],"workspaceCollaborators":[]}}`)
		case r.Method == "PATCH" && strings.Contains(r.Path, "/fields/"):
			return ok(`{"id":"fldB","name":"Details","type":"multilineText","description":"why"}`)
		case r.Method == "PATCH":
			return ok(`{"id":"tblA","name":"Work","primaryFieldId":"fldA","fields":[],"views":[]}`)
		}
		return reply{status: 404, body: `{"error":"NOT_FOUND"}`}
	})
	base, err := NewBase(testToken, testBase, WithHTTPClient(&http.Client{Transport: fake}), WithEndpointURL("http://fake.test"), WithClock(newJumpClock()))
	if err != nil {
		t.Fatal(err)
	}
	u, err := base.WhoAmI(bg)
	if err != nil || !reflect.DeepEqual(u, &User{ID: "usrA0000000000001", Email: "a@example.com", Scopes: []string{"data.records:read"}}) {
		t.Errorf("WhoAmI: got %+v, %v", u, err)
	}
	col, err := base.Collaborators(bg)
	if err != nil || len(col.IndividualCollaborators.BaseCollaborators) != 1 || col.IndividualCollaborators.BaseCollaborators[0].PermissionLevel != "owner" {
		t.Errorf("Collaborators: got %+v, %v", col, err)
	}
	name, empty, why := "Work", "", "why"
	if tb, err := base.UpdateTable(bg, "Tasks", TableUpdate{Name: &name, Description: &empty}); err != nil || tb.Name != "Work" {
		t.Errorf("UpdateTable: got %+v, %v", tb, err)
	}
	details := "Details"
	if f, err := base.UpdateField(bg, "tblA", "fldB", FieldUpdate{Name: &details, Description: &why}); err != nil || f.Description != "why" {
		t.Errorf("UpdateField: got %+v, %v", f, err)
	}
	if _, err := base.UpdateField(bg, "tblA", "fldB", FieldUpdate{}); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("an empty field update: got %v, want ErrInvalidOption", err)
	}
	if _, err := base.UpdateTable(bg, "Tasks", TableUpdate{Name: &empty}); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("an empty table name: got %v, want ErrInvalidOption", err)
	}
	diffLines(t, fake.Lines(), []string{
		"GET /v0/meta/whoami",
		"GET /v0/meta/bases/appTEST0000000001?include=collaborators",
		`PATCH /v0/meta/bases/appTEST0000000001/tables/Tasks {"name":"Work","description":""}`,
		`PATCH /v0/meta/bases/appTEST0000000001/tables/tblA/fields/fldB {"name":"Details","description":"why"}`,
	})
}

// TestEmulatorCommentsUploadsSchema runs every new operation against the emulator and checks
// what it answered and the requests it saw.
func TestEmulatorCommentsUploadsSchema(t *testing.T) {
	s, tbl, _ := newEmu(t, 1)
	ctx := bg
	base := tbl.Base()
	u, err := base.WhoAmI(ctx)
	if err != nil || !strings.HasPrefix(u.ID, "usr") || len(u.Scopes) == 0 {
		t.Fatalf("WhoAmI: got %+v, %v", u, err)
	}
	rec := "rec00000000000000"
	var ids []string
	for _, text := range []string{"first", "second", "third"} {
		cm, err := tbl.CreateComment(ctx, rec, CommentSpec{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		if cm.Author.ID != u.ID {
			t.Errorf("comment author %s, want the token's user %s", cm.Author.ID, u.ID)
		}
		ids = append(ids, cm.ID)
	}
	var got []string
	pages := 0
	for page, err := range tbl.Comments(ctx, rec, CommentOptions{PageSize: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, c := range page {
			got = append(got, c.Text)
		}
	}
	if strings.Join(got, ",") != "third,second,first" || pages != 2 {
		t.Errorf("got %v in %d pages, want third,second,first in 2 (newest first)", got, pages)
	}
	if _, err := tbl.UpdateComment(ctx, rec, ids[0], "First!"); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.DeleteComment(ctx, rec, ids[1]); err != nil {
		t.Fatal(err)
	}
	all, err := tbl.AllComments(ctx, rec)
	if err != nil || len(all) != 2 || all[1].Text != "First!" || all[1].LastUpdatedTime.IsZero() {
		t.Errorf("AllComments after update and delete: got %+v, %v", all, err)
	}

	s2, err := emulator.New(emulator.WithFixture(&emulator.Fixture{Bases: []emulator.FixtureBase{{ID: emuBase, Name: "Emu", Tables: []emulator.FixtureTable{{
		ID: "tblFILES000000001", Name: "Files", Fields: []emulator.FixtureField{
			{ID: "fldNAME0000000001", Name: "Name", Type: "singleLineText"},
			{ID: "fldATT0000000001x", Name: "Att", Type: "multipleAttachments"}},
		Records: []emulator.FixtureRecord{{ID: "recFILE0000000001", Fields: map[string]any{"Name": "f"}}},
	}}}}}), emulator.WithRate(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	files, err := NewTable(emulator.DefaultToken, emuBase, "Files", WithEndpointURL(emulator.InProcessURL), WithHTTPClient(s2.Client()))
	if err != nil {
		t.Fatal(err)
	}
	r, err := files.UploadAttachment(ctx, "recFILE0000000001", "Att", Upload{Filename: "n.txt", ContentType: "text/plain", Content: []byte("note")})
	if err != nil {
		t.Fatal(err)
	}
	atts, _ := r.Fields["fldATT0000000001x"].([]any)
	if len(atts) != 1 || atts[0].(map[string]any)["size"] != float64(4) {
		t.Errorf("upload answered %+v, want one attachment of 4 bytes keyed by field id", r.Fields)
	}

	name, desc := "Work", "what to do"
	ts, err := base.UpdateTable(ctx, "My Tasks", TableUpdate{Name: &name, Description: &desc})
	if err != nil || ts.Name != "Work" || ts.Description != desc {
		t.Fatalf("UpdateTable: got %+v, %v", ts, err)
	}
	fname := "Count"
	fs, err := base.UpdateField(ctx, ts.ID, "fldN0000000000001", FieldUpdate{Name: &fname, Description: &desc})
	if err != nil || fs.Name != "Count" || fs.Description != desc {
		t.Fatalf("UpdateField: got %+v, %v", fs, err)
	}
	schema, err := base.Schema(ctx)
	if err != nil || schema.Tables[0].Name != "Work" || schema.Tables[0].Fields[1].Name != "Count" {
		t.Errorf("the schema after the updates: got %+v, %v", schema, err)
	}
	if _, err := base.UpdateField(ctx, ts.ID, "fldNOPE0000000001", FieldUpdate{Name: &fname}); err == nil {
		t.Error("updating an unknown field should fail")
	}
	var lines []string
	for _, l := range emuLines(s) {
		lines = append(lines, commentIDs.ReplaceAllString(l, "com…"))
	}
	recPath := "/v0/" + emuBase + "/My%20Tasks/" + rec + "/comments"
	diffLines(t, lines, []string{
		"200 GET /v0/meta/whoami",
		"200 POST " + recPath + ` {"text":"first"}`,
		"200 POST " + recPath + ` {"text":"second"}`,
		"200 POST " + recPath + ` {"text":"third"}`,
		"200 GET " + recPath + "?pageSize=2",
		"200 GET " + recPath + "?offset=com…&pageSize=2",
		"200 PATCH " + recPath + `/com… {"text":"First!"}`,
		"200 DELETE " + recPath + "/com…",
		"200 GET " + recPath,
		`200 PATCH /v0/meta/bases/` + emuBase + `/tables/My%20Tasks {"name":"Work","description":"what to do"}`,
		`200 PATCH /v0/meta/bases/` + emuBase + `/tables/tblTASKS000000001/fields/fldN0000000000001 {"name":"Count","description":"what to do"}`,
		"200 GET /v0/meta/bases/" + emuBase + "/tables",
		`403 PATCH /v0/meta/bases/` + emuBase + `/tables/tblTASKS000000001/fields/fldNOPE0000000001 {"name":"Count"}`,
	})
}

var commentIDs = regexp.MustCompile(`com[0-9A-Za-z]{14}`)

// TestCommentsThreeClasses: Table, Base and API send the same requests for the same ids.
func TestCommentsThreeClasses(t *testing.T) {
	handler := func(n int, r seenRequest) reply {
		if r.Method == "GET" {
			return ok(`{"comments":[],"offset":null}`)
		}
		if r.Method == "DELETE" {
			return ok(`{"id":"comA0000000000001","deleted":true}`)
		}
		return ok(commentJSON("comA0000000000001", "x"))
	}
	var lines [][]string
	for _, class := range []string{"table", "base", "api"} {
		tbl, fake, _ := newTestTable(t, handler)
		base, api := tbl.Base(), &API{c: tbl.c}
		rec, spec := "recX0000000000001", CommentSpec{Text: "x", ParentCommentID: "comP0000000000001"}
		var err error
		switch class {
		case "table":
			_, err = tbl.AllComments(bg, rec)
			_, _ = tbl.CreateComment(bg, rec, spec)
			_, _ = tbl.UpdateComment(bg, rec, "comA0000000000001", "y")
			_, _ = tbl.DeleteComment(bg, rec, "comA0000000000001")
			_, _ = tbl.UploadAttachment(bg, rec, "F", Upload{Filename: "a", ContentType: "text/plain"})
		case "base":
			_, err = base.AllComments(bg, "My Tasks", rec)
			_, _ = base.CreateComment(bg, "My Tasks", rec, spec)
			_, _ = base.UpdateComment(bg, "My Tasks", rec, "comA0000000000001", "y")
			_, _ = base.DeleteComment(bg, "My Tasks", rec, "comA0000000000001")
			_, _ = base.UploadAttachment(bg, "My Tasks", rec, "F", Upload{Filename: "a", ContentType: "text/plain"})
		case "api":
			_, err = api.AllComments(bg, testBase, "My Tasks", rec)
			_, _ = api.CreateComment(bg, testBase, "My Tasks", rec, spec)
			_, _ = api.UpdateComment(bg, testBase, "My Tasks", rec, "comA0000000000001", "y")
			_, _ = api.DeleteComment(bg, testBase, "My Tasks", rec, "comA0000000000001")
			_, _ = api.UploadAttachment(bg, testBase, "My Tasks", rec, "F", Upload{Filename: "a", ContentType: "text/plain"})
		}
		if err != nil {
			t.Fatalf("%s: %v", class, err)
		}
		lines = append(lines, fake.Lines())
	}
	if len(lines[0]) != 5 {
		t.Fatalf("table: %d requests, want 5: %q", len(lines[0]), lines[0])
	}
	diffLines(t, lines[1], lines[0])
	diffLines(t, lines[2], lines[0])
}
