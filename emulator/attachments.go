package emulator

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/gif" // image.DecodeConfig reads the size of uploaded GIF, JPEG and PNG images
	_ "image/jpeg"
	_ "image/png"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"
)

// Attachment upload: POST /v0/{baseId}/{recordId}/{attachmentFieldIdOrName}/uploadAttachment with
// {"contentType", "file" (base64), "filename"}. The service takes it on content.airtable.com; the
// emulator serves it on its one listener, whatever the Host (clients that swap the host for
// content.airtable.com reach it through a proxy setting; see README.md). The file is kept (and
// logged in the data file) and served at the attachment's URL, /attachments/{attId}/{filename} on
// the host the upload was sent to.

// MaxUploadBytes is the largest file uploadAttachment accepts (the documented 5 MB).
const MaxUploadBytes = 5_000_000

// MaxStoredUploadBytes bounds the uploaded files the emulator keeps in memory, all together (they
// are in the data file too); past it an upload answers 413 naming this limit.
const MaxStoredUploadBytes = 1 << 30

// uploadBodyLimit is the largest uploadAttachment body read: a 5 MB file in base64 with a
// newline every 76 characters (as Python's base64.encodebytes writes it), plus the JSON around it.
const uploadBodyLimit = 7 << 20

const attachmentPathPrefix = "/attachments/"

// storedUpload is an uploaded file.
type storedUpload struct {
	Filename string `json:"filename"`
	Type     string `json:"type"`
	Content  string `json:"content"` // base64
	size     int64  // decoded
}

// bodyLimit is how much of a request body is read before answering 413.
func bodyLimit(r *http.Request) int {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.EscapedPath(), "/uploadAttachment") {
		return uploadBodyLimit
	}
	return MaxBodyBytes
}

func (s *Server) uploadAttachment(c *call) (reply, *apiError) {
	// Attachments given by URL that are being fetched: the answer lists every attachment of the
	// field, with their sizes, as the service's does.
	s.waitFetchesOf(c.r.Context(), c.segments[1])
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bases[c.segments[0]]
	if b == nil || !c.tok.bases[b.id] {
		return reply{}, s.notFoundBase(c.segments[0])
	}
	if !c.tok.scopes[scopeRecordsWrite] {
		return reply{}, errForbidden()
	}
	recID := c.segments[1]
	var t *table
	for _, tb := range b.tables {
		if tb.recByID[recID] != nil {
			t = tb
			break
		}
	}
	if t == nil {
		return reply{}, s.notFoundRecord(recID)
	}
	fl := t.field(c.segments[2])
	if fl == nil {
		return reply{}, errUnknownField(c.segments[2])
	}
	if fl.Type != "multipleAttachments" {
		return reply{}, errInvalidRequest(fmt.Sprintf("field %q is of type %s; uploadAttachment needs a multipleAttachments field", fl.Name, fl.Type))
	}
	var body struct {
		ContentType *string `json:"contentType"`
		File        *string `json:"file"`
		Filename    *string `json:"filename"`
	}
	if aerr := decodeStrict(c.body, &body); aerr != nil {
		return reply{}, aerr
	}
	if body.ContentType == nil || body.File == nil || body.Filename == nil || *body.Filename == "" || *body.ContentType == "" {
		return reply{}, errInvalidRequest("the body needs \"contentType\", \"file\" (the content in base64) and \"filename\"")
	}
	content, err := base64.StdEncoding.DecodeString(strings.NewReplacer("\n", "", "\r", "").Replace(*body.File))
	if err != nil {
		return reply{}, errInvalidRequest(fmt.Sprintf("\"file\" is not base64: %v", err))
	}
	if len(content) > MaxUploadBytes {
		return reply{}, errorf(http.StatusRequestEntityTooLarge, "REQUEST_TOO_LARGE",
			"The file is %d bytes; uploadAttachment accepts files of at most %d bytes (5 MB). Give larger files by URL.", len(content), MaxUploadBytes)
	}
	limit := s.extras.uploadLimit
	if limit == 0 {
		limit = MaxStoredUploadBytes
	}
	if s.extras.uploadBytes+int64(len(content)) > limit {
		return reply{}, errorf(http.StatusRequestEntityTooLarge, "REQUEST_TOO_LARGE",
			"The emulator keeps at most %d bytes of uploaded files and holds %d already; this file (%d bytes) does not fit. Start it afresh (or with a new -data file) to upload more.",
			limit, s.extras.uploadBytes, len(content))
	}
	typ := *body.ContentType
	if mt, _, err := mime.ParseMediaType(typ); err == nil {
		typ = mt
	}
	attID := newRandomID("att")
	att := map[string]any{"id": attID, "url": attachmentURL(c.r, attID, *body.Filename),
		"filename": *body.Filename, "size": float64(len(content)), "type": typ}
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(content)); err == nil {
		att["width"], att["height"] = float64(cfg.Width), float64(cfg.Height)
	}
	up := storedUpload{Filename: *body.Filename, Type: typ, Content: base64.StdEncoding.EncodeToString(content)}
	// The file first, then the cell: a crash in between leaves a file no cell shows, never a cell
	// whose URL serves nothing.
	if aerr := s.commitExtraLocked([]walOp{{Kind: walUpload, ID: attID, Data: walJSON(up)}}, apiSource(c)); aerr != nil {
		return reply{}, aerr
	}
	x := s.newTxn(b, false, apiSource(c))
	r := x.get(t, recID)
	cur, _ := r.cells[fl.ID].([]any)
	cell := append(append([]any{}, cur...), att)
	x.setCell(t, r, fl, cell)
	r.modified, r.byAPI = x.now, true
	if aerr := x.commit(); aerr != nil {
		return reply{}, aerr
	}
	stored := t.recByID[recID]
	return ok(map[string]any{"id": stored.id, "createdTime": formatTime(stored.created),
		"fields": map[string]any{fl.ID: stored.cells[fl.ID]}}), nil
}

// attachmentURL is where the emulator serves an upload: on the host and scheme of the request.
func attachmentURL(r *http.Request, attID, filename string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	return scheme + "://" + host + attachmentPathPrefix + attID + "/" + url.PathEscape(filename)
}

// serveAttachmentContent answers GET and HEAD of an uploaded attachment's URL (no token needed, as
// the service's attachment URLs need none). It reports whether the request was such a URL.
func (s *Server) serveAttachmentContent(w http.ResponseWriter, r *http.Request, now time.Time) bool {
	p := r.URL.EscapedPath()
	if !strings.HasPrefix(p, attachmentPathPrefix) {
		return false
	}
	status := http.StatusOK
	defer func() {
		s.recorder.add(Request{Method: r.Method, Path: p, Query: r.URL.RawQuery, Header: r.Header.Clone(), Status: status, Time: now})
	}()
	id, _, _ := strings.Cut(strings.TrimPrefix(p, attachmentPathPrefix), "/")
	s.mu.RLock()
	up := s.extras.uploads[id]
	s.mu.RUnlock()
	if up == nil || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		status = http.StatusNotFound
		e := errRouteNotFound()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		_, _ = w.Write(e.body())
		return true
	}
	content, _ := base64.StdEncoding.DecodeString(up.Content)
	h := w.Header()
	h.Set("Content-Type", up.Type)
	h.Set("Content-Length", strconv.Itoa(len(content)))
	h.Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": path.Base(up.Filename)}))
	w.WriteHeader(status)
	if r.Method == http.MethodGet {
		_, _ = w.Write(content)
	}
	return true
}
