package emulator

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/airsql/airsql/internal/clock"
)

// reply is what a handler returns: a status and a value encoded as the JSON body.
type reply struct {
	status int
	body   any
}

func ok(body any) reply { return reply{status: http.StatusOK, body: body} }

// call is one request as the handlers see it.
type call struct {
	r        *http.Request
	segments []string // the path after /v0/, split on the escaped path, then unescaped
	body     []byte
	tok      *token
	// waitingWriter: the request writes and is counted as waiting for s.mu (see locking.go).
	waitingWriter bool
}

// ServeHTTP serves the Airtable Web API v0. It implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := s.clock.Now()
	if s.serveAttachmentContent(w, r, now) { // the URLs of uploaded attachments, outside /v0/
		return
	}
	body, tooLarge := readBody(r)
	status, respBody, fault := s.serve(r, body, tooLarge)

	s.recorder.add(Request{
		Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery,
		Header: r.Header.Clone(), Body: body, Status: status, Time: now,
	})
	if fault.Drop {
		abortConnection(w)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "DELETE,GET,OPTIONS,PATCH,POST,PUT")
	h.Set("Access-Control-Allow-Headers", "authorization,content-length,content-type,user-agent,x-airtable-application-id,x-airtable-user-agent,x-api-version,x-requested-with")
	if !fault.Truncate && len(respBody) >= gzipMinBytes && acceptsGzip(r) {
		// Like the service: larger bodies are gzipped for clients that accept it, and the original
		// size is given in airtable-uncompressed-content-length.
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		_, _ = zw.Write(respBody)
		_ = zw.Close()
		h.Set("Content-Encoding", "gzip")
		h.Set("Airtable-Uncompressed-Content-Length", strconv.Itoa(len(respBody)))
		respBody = zb.Bytes()
	}
	h.Set("Content-Length", strconv.Itoa(len(respBody)))
	w.WriteHeader(status)
	if fault.Truncate {
		_, _ = w.Write(respBody[:len(respBody)/2])
		// Send the status and the half body before closing: unflushed, a real connection would be
		// closed with nothing sent, which is a drop, not a truncation.
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		abortConnection(w)
		return
	}
	_, _ = w.Write(respBody)
}

// gzipMinBytes is the smallest answer that is compressed.
const gzipMinBytes = 1024

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") && strings.TrimSpace(q) != "q=0" {
			return true
		}
	}
	return false
}

// abortConnection ends the exchange without a complete answer: the in-process transport
// reports an error, a real connection is closed.
func abortConnection(w http.ResponseWriter) {
	if ip, ok := w.(*inProcessWriter); ok {
		ip.aborted = true
		return
	}
	panic(http.ErrAbortHandler)
}

func readBody(r *http.Request) (body []byte, tooLarge bool) {
	if r.Body == nil {
		return nil, false
	}
	limit := bodyLimit(r)
	b, _ := io.ReadAll(io.LimitReader(r.Body, int64(limit)+1))
	if len(b) > limit {
		return b[:limit], true
	}
	return b, false
}

// serve decides the answer: faults, limits, latency, then the route. It returns the fault that
// applied, so that ServeHTTP can drop or truncate.
//
// The rate limit counts a request when it arrives, as the service does (its window is of
// arrivals; reference §3), and the latency is the time until the answer: counted after the
// latency, arrivals would be moved by however late each sleep ended, and a client that spaces
// its requests exactly could be refused for a spacing it never sent.
func (s *Server) serve(r *http.Request, body []byte, tooLarge bool) (status int, respBody []byte, fault Fault) {
	defer func() {
		if p := recover(); p != nil { // an emulator bug: answer 500 with what went wrong, keep serving
			e := errorf(http.StatusInternalServerError, "SERVER_ERROR", "The emulator failed on %s %s: %v. This is a bug in the emulator; please report it.", r.Method, r.URL.EscapedPath(), p)
			status, respBody = e.status, e.body()
		}
	}()
	fault, _ = s.faults.match(r.Method, r.URL.EscapedPath()) // the zero Fault, doing nothing, when none applies
	if fault.Delay > 0 {
		_ = clock.Sleep(r.Context(), s.clock, fault.Delay)
	}
	var (
		c       *call
		handler handlerFunc
		aerr    *apiError
	)
	if fault.Status == 0 && !fault.Drop {
		c, handler, aerr = s.admit(r, body, tooLarge)
	}
	if s.cfg.latency > 0 {
		_ = clock.Sleep(r.Context(), s.clock, s.cfg.latency)
	}
	if fault.Status != 0 {
		b := []byte(fault.Body)
		if fault.Body == "" {
			b = []byte(fmt.Sprintf(`{"error":{"type":"INJECTED_FAULT","message":"fault injected for %s %s"}}`, r.Method, r.URL.EscapedPath()))
		}
		return fault.Status, b, fault
	}
	if fault.Drop {
		return 0, nil, fault
	}
	var rep reply
	if aerr == nil {
		rep, aerr = s.run(c, handler)
	}
	if aerr != nil {
		return aerr.status, aerr.body(), fault
	}
	b, err := json.Marshal(rep.body)
	if err != nil {
		e := errorf(http.StatusInternalServerError, "SERVER_ERROR", "could not encode the answer: %v", err)
		return e.status, e.body(), fault
	}
	return rep.status, b, fault
}

// admit checks what the service checks on a request's arrival — its size, its route, its token,
// the rate limits — and returns the call and the handler that answers it.
func (s *Server) admit(r *http.Request, body []byte, tooLarge bool) (*call, handlerFunc, *apiError) {
	if len(r.URL.RequestURI()) > MaxURLLength {
		return nil, nil, errorf(http.StatusRequestURITooLong, "INVALID_REQUEST_UNKNOWN",
			"The URL is %d characters long; the limit is %d. Send long formulas with POST .../listRecords.", len(r.URL.RequestURI()), MaxURLLength)
	}
	if tooLarge {
		return nil, nil, errorf(http.StatusRequestEntityTooLarge, "REQUEST_TOO_LARGE",
			"Request body is too large: the limit is %d bytes.", bodyLimit(r))
	}
	escaped := r.URL.EscapedPath()
	if !strings.HasPrefix(escaped, "/v0/") {
		return nil, nil, errRouteNotFound()
	}
	raw := strings.Split(strings.TrimPrefix(escaped, "/v0/"), "/")
	if len(raw) > 1 && raw[len(raw)-1] == "" { // airtable.js: ".../Table/?"
		raw = raw[:len(raw)-1]
	}
	segs := make([]string, len(raw))
	for i, p := range raw {
		u, err := url.PathUnescape(p)
		if err != nil || u == "" {
			return nil, nil, errRouteNotFound()
		}
		segs[i] = u
	}
	c := &call{r: r, segments: segs, body: body}

	handler, baseID := s.pickHandler(r.Method, segs)
	if handler == nil {
		return nil, nil, errRouteNotFound()
	}
	if writesData(r.Method, segs) { // authentication reads under s.mu (locking.go)
		s.writerArrived(c)
		defer s.writerNoLongerWaiting(c)
	}
	tok, aerr := s.authenticate(r)
	if aerr != nil {
		return nil, nil, aerr
	}
	c.tok = tok
	// The service's second limit is per user, over all of the user's tokens (reference §3): tokens
	// of one userId share it; a token without one is a user of its own.
	if aerr := s.limiter.allow(tok.userID, baseID); aerr != nil {
		return nil, nil, aerr
	}
	return c, handler, nil
}

// run answers an admitted call. A write counts as a waiting writer from here until it holds
// s.mu (locking.go).
func (s *Server) run(c *call, handler handlerFunc) (reply, *apiError) {
	if writesData(c.r.Method, c.segments) {
		s.writerArrived(c)
		defer s.writerNoLongerWaiting(c)
	}
	return handler(c)
}

type handlerFunc func(*call) (reply, *apiError)

// writesData tells the requests that change data by their method: every POST but listRecords,
// which only reads, and every PATCH, PUT and DELETE.
func writesData(method string, segs []string) bool {
	switch method {
	case http.MethodPatch, http.MethodPut, http.MethodDelete:
		return true
	case http.MethodPost:
		return !(len(segs) == 3 && segs[2] == "listRecords")
	}
	return false
}

// pickHandler maps method and path to a handler; baseID is the base the request counts against.
func (s *Server) pickHandler(method string, segs []string) (handlerFunc, string) {
	if segs[0] == "bases" { // /v0/bases/{baseId}/webhooks/...: the webhooks API (webhooks.go)
		return s.pickWebhookHandler(method, segs)
	}
	if segs[0] == "meta" {
		if h, baseID := s.pickMetaWriteHandler(method, segs); h != nil {
			return h, baseID
		}
		switch {
		case len(segs) == 2 && segs[1] == "bases" && method == http.MethodGet:
			return s.listBases, ""
		case len(segs) == 2 && segs[1] == "whoami" && method == http.MethodGet:
			return s.whoami, ""
		case len(segs) == 4 && segs[1] == "bases" && segs[3] == "tables" && method == http.MethodGet:
			return s.baseSchema, segs[2]
		}
		return nil, ""
	}
	switch len(segs) {
	case 2:
		switch method {
		case http.MethodGet:
			return s.listGET, segs[0]
		case http.MethodPost:
			return s.create, segs[0]
		case http.MethodPatch, http.MethodPut:
			return s.updateBatch, segs[0]
		case http.MethodDelete:
			return s.deleteBatch, segs[0]
		}
	case 4, 5:
		return s.pickRecordExtraHandler(method, segs)
	case 3:
		if segs[2] == "listRecords" && method == http.MethodPost {
			return s.listPOST, segs[0]
		}
		switch method {
		case http.MethodGet:
			return s.getRecord, segs[0]
		case http.MethodPatch, http.MethodPut:
			return s.updateOne, segs[0]
		case http.MethodDelete:
			return s.deleteOne, segs[0]
		}
	}
	return nil, ""
}

// notFoundBase answers a base that does not exist or that the token cannot reach.
func (s *Server) notFoundBase(id string) *apiError {
	if s.cfg.notFound == NotFoundLegacy {
		if !isID(id, "app") {
			return errRouteNotFound()
		}
		return &apiError{status: http.StatusNotFound, typ: "NOT_FOUND", noMessage: true}
	}
	return errForbidden()
}

func (s *Server) notFoundTable(b *base, name string) *apiError {
	if s.cfg.notFound == NotFoundLegacy {
		return errorf(http.StatusNotFound, "TABLE_NOT_FOUND", "Could not find table %s in application %s", name, b.id)
	}
	return errForbidden()
}

func (s *Server) notFoundRecord(id string) *apiError {
	if s.cfg.notFound == NotFoundLegacy {
		if !isID(id, "rec") {
			return errRouteNotFound()
		}
		return errorf(http.StatusNotFound, "MODEL_ID_NOT_FOUND", "Record not found")
	}
	return errForbidden()
}

// tableFor finds the base and table of a records request, checking the token's base and scope.
// The caller holds s.mu.
func (s *Server) tableFor(c *call, scope string) (*table, *apiError) {
	b := s.bases[c.segments[0]]
	if b == nil || !c.tok.bases[b.id] {
		return nil, s.notFoundBase(c.segments[0])
	}
	if !c.tok.scopes[scope] {
		return nil, errForbidden()
	}
	t := b.table(c.segments[1])
	if t == nil {
		return nil, s.notFoundTable(b, c.segments[1])
	}
	return t, nil
}

// decodeJSON reads a request body into v; an empty body is an error.
func decodeJSON(body []byte, v any) *apiError {
	if len(bytes.TrimSpace(body)) == 0 {
		return errBadJSON(fmt.Errorf("the body is empty"))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return errDecode(err)
	}
	return nil
}

// Metadata API (reference §1.9).

func (s *Server) listBases(c *call) (reply, *apiError) {
	if !c.tok.scopes[scopeSchemaRead] {
		return reply{}, errForbidden()
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	q, _ := url.ParseQuery(c.r.URL.RawQuery)
	after := q.Get("offset")
	started := after == ""
	out := []any{}
	next := ""
	for _, id := range s.order {
		if !c.tok.bases[id] {
			continue
		}
		if !started {
			started = "itr"+basesIteratorID+"/"+id == after
			continue
		}
		if len(out) == basesPerPage {
			next = "itr" + basesIteratorID + "/" + out[len(out)-1].(map[string]any)["id"].(string)
			break
		}
		out = append(out, map[string]any{"id": id, "name": s.bases[id].name, "permissionLevel": s.permissionLevel(s.bases[id], c.tok)})
	}
	if after != "" && !started {
		return reply{}, errIteratorGone()
	}
	res := map[string]any{"bases": out}
	if next != "" {
		res["offset"] = next
	}
	return ok(res), nil
}

// List bases pages hold 1000 bases (reference §1.9); the offset names the last base of a page.
const (
	basesPerPage    = 1000
	basesIteratorID = "BASES000000000"
)

func (s *Server) whoami(c *call) (reply, *apiError) {
	s.mu.RLock() // a LoadFixture may widen the token meanwhile
	defer s.mu.RUnlock()
	scopes := []string{}
	for _, sc := range allScopes {
		if c.tok.scopes[sc] {
			scopes = append(scopes, sc)
		}
	}
	out := map[string]any{"id": c.tok.userID, "scopes": scopes}
	if c.tok.email != "" && c.tok.scopes["user.email:read"] {
		out["email"] = c.tok.email
	}
	return ok(out), nil
}

func (s *Server) baseSchema(c *call) (reply, *apiError) {
	id := c.segments[2]
	s.mu.RLock()
	defer s.mu.RUnlock()
	b := s.bases[id]
	if b == nil || !c.tok.bases[id] {
		return reply{}, s.notFoundBase(id)
	}
	if !c.tok.scopes[scopeSchemaRead] {
		if s.cfg.notFound == NotFoundLegacy {
			return reply{}, &apiError{status: http.StatusNotFound, typ: "NOT_FOUND", noMessage: true}
		}
		return reply{}, errForbidden()
	}
	q, _ := url.ParseQuery(c.r.URL.RawQuery)
	withVisible := false
	for _, inc := range append(q["include[]"], q["include"]...) {
		if inc == "visibleFieldIds" {
			withVisible = true
		}
	}
	tables := make([]any, 0, len(b.tables))
	for _, t := range b.tables {
		tables = append(tables, tableSchema(t, withVisible))
	}
	return ok(map[string]any{"tables": tables}), nil
}

func tableSchema(t *table, withVisible bool) map[string]any {
	fields := make([]any, 0, len(t.fields))
	for _, fl := range t.fields {
		m := map[string]any{"id": fl.ID, "name": fl.Name, "type": fl.Type}
		if fl.Description != "" {
			m["description"] = fl.Description
		}
		if opts := schemaOptions(t, fl); len(opts) > 0 {
			m["options"] = opts
		}
		fields = append(fields, m)
	}
	views := make([]any, 0, len(t.views))
	for _, v := range t.views {
		m := map[string]any{"id": v.id, "name": v.name, "type": v.typ}
		if withVisible && v.typ == "grid" {
			ids := v.visible
			if len(ids) == 0 {
				for _, fl := range t.fields {
					ids = append(ids, fl.ID)
				}
			}
			m["visibleFieldIds"] = ids
		}
		views = append(views, m)
	}
	out := map[string]any{"id": t.id, "name": t.name, "primaryFieldId": t.primary.ID, "fields": fields, "views": views}
	if t.description != "" {
		out["description"] = t.description
	}
	return out
}

// schemaOptions is a field's options as the schema API shows them: formula text with field ids
// (reference §1.9), the fields a formula reads.
func schemaOptions(t *table, fl *field) map[string]any {
	opts := cloneMap(fl.Options)
	if fl.Type == "formula" {
		src := optString(fl.Options, "formula")
		text, refs := formulaWithIDs(t, src)
		opts["formula"] = text
		opts["referencedFieldIds"] = refs
		_, err := compileFormula(src, t)
		opts["isValid"] = err == nil
		if _, ok := opts["result"]; !ok {
			opts["result"] = map[string]any{"type": "singleLineText"}
		}
	}
	return opts
}

// formulaWithIDs rewrites {Field Name} references to {fldXXXXXXXXXXXXXX}, outside string literals.
func formulaWithIDs(t *table, src string) (string, []any) {
	var b strings.Builder
	refs := []any{}
	var quote byte
	for i := 0; i < len(src); i++ {
		ch := src[i]
		switch {
		case quote != 0:
			b.WriteByte(ch)
			if ch == '\\' && i+1 < len(src) {
				i++
				b.WriteByte(src[i])
			} else if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
			b.WriteByte(ch)
		case ch == '{':
			end := strings.IndexByte(src[i:], '}')
			if end < 0 {
				b.WriteString(src[i:])
				return b.String(), refs
			}
			name := src[i+1 : i+end]
			if fl := t.fieldFold(name); fl != nil {
				b.WriteString("{" + fl.ID + "}")
				if !containsString(refs, fl.ID) {
					refs = append(refs, fl.ID)
				}
			} else {
				b.WriteString(src[i : i+end+1])
			}
			i += end
		default:
			b.WriteByte(ch)
		}
	}
	return b.String(), refs
}
