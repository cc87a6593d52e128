package emulator

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
)

// Record comments (scopes data.recordComments:read and :write):
//
//	GET    /v0/{baseId}/{tableIdOrName}/{recordId}/comments[?pageSize=&offset=]   newest first
//	POST   /v0/{baseId}/{tableIdOrName}/{recordId}/comments                       {text, parentCommentId?}
//	PATCH  /v0/{baseId}/{tableIdOrName}/{recordId}/comments/{rowCommentId}        {text}
//	DELETE /v0/{baseId}/{tableIdOrName}/{recordId}/comments/{rowCommentId}
//
// A comment's "mentioned" lists the users (and groups) of @[usrXXX] / @[ugpXXX] in its text that
// are collaborators of the base in the fixture, or users of tokens that reach the base.

const (
	scopeCommentsRead  = "data.recordComments:read"
	scopeCommentsWrite = "data.recordComments:write"
	commentsPageSize   = 100
)

// comment is a stored comment.
type comment struct {
	ID              string `json:"id"`
	AuthorID        string `json:"authorId"`
	AuthorEmail     string `json:"authorEmail,omitempty"`
	AuthorName      string `json:"authorName,omitempty"`
	Text            string `json:"text"`
	CreatedTime     string `json:"createdTime"`
	LastUpdatedTime string `json:"lastUpdatedTime,omitempty"`
	ParentCommentID string `json:"parentCommentId,omitempty"`
}

// pickRecordExtraHandler routes the paths of four and five segments: comments and
// uploadAttachment (whose path is /v0/{baseId}/{recordId}/{field}/uploadAttachment).
func (s *Server) pickRecordExtraHandler(method string, segs []string) (handlerFunc, string) {
	switch {
	case len(segs) == 4 && segs[3] == "comments" && method == http.MethodGet:
		return s.listComments, segs[0]
	case len(segs) == 4 && segs[3] == "comments" && method == http.MethodPost:
		return s.createComment, segs[0]
	case len(segs) == 5 && segs[3] == "comments" && method == http.MethodPatch:
		return s.updateComment, segs[0]
	case len(segs) == 5 && segs[3] == "comments" && method == http.MethodDelete:
		return s.deleteComment, segs[0]
	case len(segs) == 4 && segs[3] == "uploadAttachment" && method == http.MethodPost:
		return s.uploadAttachment, segs[0]
	}
	return nil, ""
}

// commentRecord checks access to the record of a comments route. The caller holds s.mu.
func (s *Server) commentRecord(c *call, scope string) (*table, *record, *apiError) {
	t, aerr := s.tableFor(c, scope)
	if aerr != nil {
		return nil, nil, aerr
	}
	r := t.recByID[c.segments[2]]
	if r == nil {
		return nil, nil, s.notFoundRecord(c.segments[2])
	}
	return t, r, nil
}

func (s *Server) commentCountLocked(recordID string) int { return len(s.extras.comments[recordID]) }

func (s *Server) putCommentLocked(recordID string, cm *comment) {
	if s.extras.comments == nil {
		s.extras.comments = map[string][]*comment{}
	}
	list := s.extras.comments[recordID]
	for i, old := range list {
		if old.ID == cm.ID {
			list[i] = cm
			return
		}
	}
	s.extras.comments[recordID] = append(list, cm)
}

func (s *Server) deleteCommentLocked(recordID, commentID string) {
	list := s.extras.comments[recordID]
	for i, cm := range list {
		if cm.ID == commentID {
			s.extras.comments[recordID] = append(list[:i:i], list[i+1:]...)
			if len(s.extras.comments[recordID]) == 0 {
				delete(s.extras.comments, recordID)
			}
			return
		}
	}
}

func (s *Server) findComment(recordID, commentID string) *comment {
	for _, cm := range s.extras.comments[recordID] {
		if cm.ID == commentID {
			return cm
		}
	}
	return nil
}

var mentionPattern = regexp.MustCompile(`@\[((?:usr|ugp)[0-9A-Za-z]{14})\]`)

// renderComment is the API's comment object. The caller holds s.mu.
func (s *Server) renderComment(b *base, cm *comment) map[string]any {
	author := map[string]any{"id": cm.AuthorID}
	if cm.AuthorEmail != "" {
		author["email"] = cm.AuthorEmail
	}
	if cm.AuthorName != "" {
		author["name"] = cm.AuthorName
	}
	out := map[string]any{"id": cm.ID, "author": author, "text": cm.Text, "createdTime": cm.CreatedTime,
		"lastUpdatedTime": nil, "reactions": []any{}}
	if cm.LastUpdatedTime != "" {
		out["lastUpdatedTime"] = cm.LastUpdatedTime
	}
	if cm.ParentCommentID != "" {
		out["parentCommentId"] = cm.ParentCommentID
	}
	mentioned := map[string]any{}
	for _, m := range mentionPattern.FindAllStringSubmatch(cm.Text, -1) {
		if who := s.mentionable(b, m[1]); who != nil {
			mentioned[m[1]] = who
		}
	}
	if len(mentioned) > 0 {
		out["mentioned"] = mentioned
	}
	return out
}

// mentionable is the "mentioned" entry of a user or group id, nil when it is no collaborator.
func (s *Server) mentionable(b *base, id string) map[string]any {
	if g := b.info.group(id); g != nil {
		return map[string]any{"type": "userGroup", "id": id, "displayName": g.Name}
	}
	name, email := "", ""
	known := false
	if u := b.info.user(id); u != nil {
		name, email, known = u.Name, u.Email, true
	}
	for _, tok := range s.tokens {
		if tok.userID == id && tok.bases[b.id] {
			known = true
			if email == "" {
				email = tok.email
			}
		}
	}
	if !known {
		return nil
	}
	if name == "" {
		name = email
	}
	if name == "" {
		name = id
	}
	m := map[string]any{"type": "user", "id": id, "displayName": name}
	if email != "" {
		m["email"] = email
	}
	return m
}

func (s *Server) listComments(c *call) (reply, *apiError) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, r, aerr := s.commentRecord(c, scopeCommentsRead)
	if aerr != nil {
		return reply{}, aerr
	}
	q, _ := url.ParseQuery(c.r.URL.RawQuery)
	size := commentsPageSize
	if v := q.Get("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > commentsPageSize {
			return reply{}, errInvalidRequest(fmt.Sprintf("pageSize must be an integer from 1 to %d", commentsPageSize))
		}
		size = n
	}
	all := s.extras.comments[r.id]
	// Newest first: the stored list is oldest first.
	start := len(all) - 1
	if off := q.Get("offset"); off != "" {
		start = -2
		for i, cm := range all {
			if cm.ID == off {
				start = i
			}
		}
		if start == -2 {
			return reply{}, errInvalidRequest(fmt.Sprintf("offset %q is not an offset this record's comments gave (the comment it names was deleted?)", off))
		}
	}
	out := []any{}
	i := start
	for ; i >= 0 && len(out) < size; i-- {
		out = append(out, s.renderComment(t.base, all[i]))
	}
	var next any // null on the last page
	if i >= 0 {
		next = all[i].ID
	}
	return ok(map[string]any{"comments": out, "offset": next}), nil
}

type commentBody struct {
	Text            *string `json:"text"`
	ParentCommentID string  `json:"parentCommentId,omitempty"`
}

func (s *Server) createComment(c *call) (reply, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, r, aerr := s.commentRecord(c, scopeCommentsWrite)
	if aerr != nil {
		return reply{}, aerr
	}
	var body commentBody
	if aerr := decodeStrict(c.body, &body); aerr != nil {
		return reply{}, aerr
	}
	if body.Text == nil || *body.Text == "" {
		return reply{}, errInvalidRequest("the comment needs a non-empty \"text\"")
	}
	if body.ParentCommentID != "" {
		parent := s.findComment(r.id, body.ParentCommentID)
		if parent == nil {
			return reply{}, errInvalidRequest(fmt.Sprintf("parentCommentId %q is not a comment of record %s", body.ParentCommentID, r.id))
		}
		if parent.ParentCommentID != "" {
			return reply{}, errInvalidRequest(fmt.Sprintf("parentCommentId %q is itself a reply; replies are one level deep", body.ParentCommentID))
		}
	}
	cm := &comment{ID: newRandomID("com"), AuthorID: c.tok.userID, AuthorEmail: c.tok.email, Text: *body.Text,
		CreatedTime: formatTime(s.clock.Now()), ParentCommentID: body.ParentCommentID}
	if u := t.base.info.user(c.tok.userID); u != nil {
		cm.AuthorName = u.Name
		if cm.AuthorEmail == "" {
			cm.AuthorEmail = u.Email
		}
	}
	if aerr := s.commitExtraLocked([]walOp{{Kind: walCommentPut, Base: t.base.id, Table: t.id, ID: r.id, Data: walJSON(cm)}}, apiSource(c)); aerr != nil {
		return reply{}, aerr
	}
	return ok(s.renderComment(t.base, cm)), nil
}

// ownComment finds the comment of an update or delete: it must exist on the record, and only its
// author may change it.
func (s *Server) ownComment(c *call, r *record) (*comment, *apiError) {
	cm := s.findComment(r.id, c.segments[4])
	if cm == nil {
		if s.cfg.notFound == NotFoundLegacy {
			return nil, &apiError{status: http.StatusNotFound, typ: "NOT_FOUND", noMessage: true}
		}
		return nil, errForbidden()
	}
	if cm.AuthorID != c.tok.userID {
		return nil, errorf(http.StatusForbidden, "INVALID_PERMISSIONS", "You are not permitted to perform this operation: only the author of comment %s can change or delete it", cm.ID)
	}
	return cm, nil
}

func (s *Server) updateComment(c *call) (reply, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, r, aerr := s.commentRecord(c, scopeCommentsWrite)
	if aerr != nil {
		return reply{}, aerr
	}
	cm, aerr := s.ownComment(c, r)
	if aerr != nil {
		return reply{}, aerr
	}
	var body struct {
		Text *string `json:"text"`
	}
	if aerr := decodeStrict(c.body, &body); aerr != nil {
		return reply{}, aerr
	}
	if body.Text == nil || *body.Text == "" {
		return reply{}, errInvalidRequest("the comment needs a non-empty \"text\"")
	}
	upd := *cm
	upd.Text = *body.Text
	upd.LastUpdatedTime = formatTime(s.clock.Now())
	if aerr := s.commitExtraLocked([]walOp{{Kind: walCommentPut, Base: t.base.id, Table: t.id, ID: r.id, Data: walJSON(&upd)}}, apiSource(c)); aerr != nil {
		return reply{}, aerr
	}
	return ok(s.renderComment(t.base, s.findComment(r.id, upd.ID))), nil
}

func (s *Server) deleteComment(c *call) (reply, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, r, aerr := s.commentRecord(c, scopeCommentsWrite)
	if aerr != nil {
		return reply{}, aerr
	}
	cm, aerr := s.ownComment(c, r)
	if aerr != nil {
		return reply{}, aerr
	}
	if aerr := s.commitExtraLocked([]walOp{{Kind: walCommentDelete, Base: t.base.id, Table: t.id, ID: r.id, Field: cm.ID}}, apiSource(c)); aerr != nil {
		return reply{}, aerr
	}
	return ok(map[string]any{"id": cm.ID, "deleted": true}), nil
}
