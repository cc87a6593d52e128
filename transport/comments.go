package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Record comments (scopes data.recordComments:read and data.recordComments:write):
//
//	GET    /v0/{baseId}/{table}/{recordId}/comments[?pageSize=&offset=]   newest first
//	POST   /v0/{baseId}/{table}/{recordId}/comments                       {text, parentCommentId?}
//	PATCH  /v0/{baseId}/{table}/{recordId}/comments/{rowCommentId}        {text}
//	DELETE /v0/{baseId}/{table}/{recordId}/comments/{rowCommentId}

// MaxCommentsPageSize is the most comments the service returns in one page (and its default).
const MaxCommentsPageSize = 100

// Comment is one comment on a record.
type Comment struct {
	ID              string               `json:"id"` // com…
	Author          Collaborator         `json:"author"`
	Text            string               `json:"text"` // a mention is written @[usr…] (see Mention)
	CreatedTime     time.Time            `json:"createdTime"`
	LastUpdatedTime time.Time            `json:"lastUpdatedTime,omitzero"` // zero: never edited
	ParentCommentID string               `json:"parentCommentId,omitempty"`
	Mentioned       map[string]Mentioned `json:"mentioned,omitempty"` // by user or group id
}

// Collaborator is a user as the service names one: its id, and its email and name when known.
type Collaborator struct {
	ID    string `json:"id"`
	Email string `json:"email,omitempty"`
	Name  string `json:"name,omitempty"`
}

// Mentioned is a user or group a comment mentions.
type Mentioned struct {
	Type        string `json:"type"` // "user" or "userGroup"
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
	Email       string `json:"email,omitempty"`
}

// mentionID is what the service reads as a mention inside a comment's text.
var mentionID = regexp.MustCompile(`^(usr|ugp)[0-9A-Za-z]{14}$`)

// Mention returns the text that mentions a user (usr…) or a group (ugp…) in a comment, @[usr…];
// the service notifies them and lists them in Comment.Mentioned.
func Mention(id string) (string, error) {
	if !mentionID.MatchString(id) {
		return "", invalidf("%q is not a user id (usr…) or group id (ugp…) of 17 characters", id)
	}
	return "@[" + id + "]", nil
}

// CommentOptions are the options of Comments.
type CommentOptions struct {
	PageSize int // 1..MaxCommentsPageSize; 0: the service's default (100)
}

// CommentSpec is a comment to create: ParentCommentID makes it a reply (one level deep).
type CommentSpec struct {
	Text            string `json:"text"`
	ParentCommentID string `json:"parentCommentId,omitempty"`
}

// commentsPage is one response of the comments listing; offset is null on the last page.
type commentsPage struct {
	Comments []Comment `json:"comments"`
	Offset   *string   `json:"offset"`
}

func commentsPath(base, table, recordID string) string {
	return tablePath(base, table) + "/" + escapeSegment(recordID) + "/comments"
}

func (c *core) checkComment(base, table, recordID string) error {
	if err := c.checkTarget(base, table); err != nil {
		return err
	}
	return checkRecordID(recordID)
}

// comments yields the record's comments one page at a time, newest first.
func (c *core) comments(ctx context.Context, base, table, recordID string, opts CommentOptions) iter.Seq2[[]Comment, error] {
	const op = "list comments"
	return func(yield func([]Comment, error) bool) {
		if err := c.checkComment(base, table, recordID); err != nil {
			yield(nil, wrapOp(op, base, table, err))
			return
		}
		if opts.PageSize < 0 || opts.PageSize > MaxCommentsPageSize {
			yield(nil, wrapOp(op, base, table, invalidf("PageSize %d: give 1 to %d, or 0 for the service's default", opts.PageSize, MaxCommentsPageSize)))
			return
		}
		seen := map[string]bool{}
		offset := ""
		for {
			q := url.Values{}
			if opts.PageSize > 0 {
				q.Set("pageSize", strconv.Itoa(opts.PageSize))
			}
			if offset != "" {
				q.Set("offset", offset)
			}
			cl := &call{op: op, base: base, table: table, method: "GET", path: commentsPath(base, table, recordID), query: q.Encode(), safe: true}
			var p commentsPage
			if err := c.do(ctx, cl, &p); err != nil {
				yield(nil, err)
				return
			}
			if p.Comments == nil {
				p.Comments = []Comment{}
			}
			if !yield(p.Comments, nil) || p.Offset == nil || *p.Offset == "" {
				return
			}
			if seen[*p.Offset] {
				yield(nil, wrapOp(op, base, table, fmt.Errorf("the service returned offset %q twice; stopping rather than looping", *p.Offset)))
				return
			}
			seen[*p.Offset] = true
			offset = *p.Offset
		}
	}
}

// allComments is every comment of the record, through comments.
func (c *core) allComments(ctx context.Context, base, table, recordID string) ([]Comment, error) {
	out := []Comment{}
	for page, err := range c.comments(ctx, base, table, recordID, CommentOptions{}) {
		if err != nil {
			return out, err
		}
		out = append(out, page...)
	}
	return out, nil
}

// createComment is never repeated once it may have reached the service: a second try could post
// the comment twice.
func (c *core) createComment(ctx context.Context, base, table, recordID string, spec CommentSpec) (*Comment, error) {
	const op = "create comment"
	if err := c.checkComment(base, table, recordID); err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	if strings.TrimSpace(spec.Text) == "" {
		return nil, wrapOp(op, base, table, invalidf("a comment needs a non-empty text"))
	}
	body, err := json.Marshal(spec)
	if err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	cl := &call{op: op, base: base, table: table, method: "POST", path: commentsPath(base, table, recordID), body: body}
	var cm Comment
	if err := c.do(ctx, cl, &cm); err != nil {
		return nil, err
	}
	return &cm, nil
}

// updateComment sets a comment's text (only its author may); sending it again sets the same text.
func (c *core) updateComment(ctx context.Context, base, table, recordID, commentID, text string) (*Comment, error) {
	const op = "update comment"
	if err := c.checkComment(base, table, recordID); err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	if commentID == "" || strings.TrimSpace(text) == "" {
		return nil, wrapOp(op, base, table, invalidf("updating a comment needs its id (com…) and a non-empty text"))
	}
	body, err := json.Marshal(map[string]string{"text": text})
	if err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	cl := &call{op: op, base: base, table: table, method: "PATCH",
		path: commentsPath(base, table, recordID) + "/" + escapeSegment(commentID), body: body, safe: true}
	var cm Comment
	if err := c.do(ctx, cl, &cm); err != nil {
		return nil, err
	}
	return &cm, nil
}

// deleteComment deletes a comment (only its author may). A retry that finds it gone after an
// earlier try may have deleted it counts as deleted, as for records.
func (c *core) deleteComment(ctx context.Context, base, table, recordID, commentID string) (*DeleteResult, error) {
	const op = "delete comment"
	if err := c.checkComment(base, table, recordID); err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	if commentID == "" {
		return nil, wrapOp(op, base, table, invalidf("empty comment id"))
	}
	cl := &call{op: op, base: base, table: table, method: "DELETE",
		path: commentsPath(base, table, recordID) + "/" + escapeSegment(commentID), safe: true}
	var res DeleteResult
	if err := c.do(ctx, cl, &res); err != nil {
		if goneAfterEarlierTry(err) {
			return &DeleteResult{ID: commentID, Deleted: true}, nil
		}
		return nil, err
	}
	return &res, nil
}

// Comments yields the record's comments one page at a time, newest first, fetching the next page
// only when the loop asks for it. It needs the data.recordComments:read scope.
func (t *Table) Comments(ctx context.Context, recordID string, opts CommentOptions) iter.Seq2[[]Comment, error] {
	return t.c.comments(ctx, t.base, t.name, recordID, opts)
}

// AllComments returns every comment of the record, newest first, through Comments.
func (t *Table) AllComments(ctx context.Context, recordID string) ([]Comment, error) {
	return t.c.allComments(ctx, t.base, t.name, recordID)
}

// CreateComment adds a comment to the record (scope data.recordComments:write). It is never
// retried once it may have reached the service, so it cannot be posted twice.
func (t *Table) CreateComment(ctx context.Context, recordID string, spec CommentSpec) (*Comment, error) {
	return t.c.createComment(ctx, t.base, t.name, recordID, spec)
}

// UpdateComment replaces the text of one of the token user's comments.
func (t *Table) UpdateComment(ctx context.Context, recordID, commentID, text string) (*Comment, error) {
	return t.c.updateComment(ctx, t.base, t.name, recordID, commentID, text)
}

// DeleteComment deletes one of the token user's comments.
func (t *Table) DeleteComment(ctx context.Context, recordID, commentID string) (*DeleteResult, error) {
	return t.c.deleteComment(ctx, t.base, t.name, recordID, commentID)
}

// Comments is Table.Comments on table.
func (b *Base) Comments(ctx context.Context, table, recordID string, opts CommentOptions) iter.Seq2[[]Comment, error] {
	return b.c.comments(ctx, b.id, table, recordID, opts)
}

// AllComments is Table.AllComments on table.
func (b *Base) AllComments(ctx context.Context, table, recordID string) ([]Comment, error) {
	return b.c.allComments(ctx, b.id, table, recordID)
}

// CreateComment is Table.CreateComment on table.
func (b *Base) CreateComment(ctx context.Context, table, recordID string, spec CommentSpec) (*Comment, error) {
	return b.c.createComment(ctx, b.id, table, recordID, spec)
}

// UpdateComment is Table.UpdateComment on table.
func (b *Base) UpdateComment(ctx context.Context, table, recordID, commentID, text string) (*Comment, error) {
	return b.c.updateComment(ctx, b.id, table, recordID, commentID, text)
}

// DeleteComment is Table.DeleteComment on table.
func (b *Base) DeleteComment(ctx context.Context, table, recordID, commentID string) (*DeleteResult, error) {
	return b.c.deleteComment(ctx, b.id, table, recordID, commentID)
}

// Comments is Table.Comments on table of base.
func (a *API) Comments(ctx context.Context, base, table, recordID string, opts CommentOptions) iter.Seq2[[]Comment, error] {
	return a.c.comments(ctx, base, table, recordID, opts)
}

// AllComments is Table.AllComments on table of base.
func (a *API) AllComments(ctx context.Context, base, table, recordID string) ([]Comment, error) {
	return a.c.allComments(ctx, base, table, recordID)
}

// CreateComment is Table.CreateComment on table of base.
func (a *API) CreateComment(ctx context.Context, base, table, recordID string, spec CommentSpec) (*Comment, error) {
	return a.c.createComment(ctx, base, table, recordID, spec)
}

// UpdateComment is Table.UpdateComment on table of base.
func (a *API) UpdateComment(ctx context.Context, base, table, recordID, commentID, text string) (*Comment, error) {
	return a.c.updateComment(ctx, base, table, recordID, commentID, text)
}

// DeleteComment is Table.DeleteComment on table of base.
func (a *API) DeleteComment(ctx context.Context, base, table, recordID, commentID string) (*DeleteResult, error) {
	return a.c.deleteComment(ctx, base, table, recordID, commentID)
}
