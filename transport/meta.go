package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// BaseInfo is one base the token can reach (GET /v0/meta/bases).
type BaseInfo struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	PermissionLevel string `json:"permissionLevel"` // none, read, comment, edit or create
}

// BaseSchema is the schema of one base (GET /v0/meta/bases/{id}/tables).
type BaseSchema struct {
	Tables []TableSchema `json:"tables"`
}

// TableSchema describes one table.
type TableSchema struct {
	ID             string        `json:"id"`
	Name           string        `json:"name"`
	PrimaryFieldID string        `json:"primaryFieldId"`
	Description    string        `json:"description,omitempty"`
	Fields         []FieldSchema `json:"fields"`
	Views          []ViewSchema  `json:"views"`
}

// FieldSchema describes one field; Options are the type's options as the service gives them.
type FieldSchema struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Type        string         `json:"type"`
	Description string         `json:"description,omitempty"`
	Options     map[string]any `json:"options,omitempty"`
}

// ViewSchema describes one view.
type ViewSchema struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"` // grid, form, calendar, gallery, kanban, timeline, block
}

// Bases lists every base the token can reach, all pages. It needs the schema.bases:read scope.
// It is not paced per base: the service limits it per token.
func (a *API) Bases(ctx context.Context) ([]BaseInfo, error) {
	const op = "list bases"
	out := []BaseInfo{}
	offset := ""
	seen := map[string]bool{}
	for {
		cl := &call{op: op, method: "GET", path: "/v0/meta/bases", safe: true}
		if offset != "" {
			cl.query = "offset=" + url.QueryEscape(offset)
		}
		var resp struct {
			Bases  []BaseInfo `json:"bases"`
			Offset string     `json:"offset"`
		}
		if err := a.c.do(ctx, cl, &resp); err != nil {
			return out, err
		}
		out = append(out, resp.Bases...)
		if resp.Offset == "" {
			return out, nil
		}
		if seen[resp.Offset] {
			return out, wrapOp(op, "", "", a.c.scrub(fmt.Errorf("the service returned offset %q twice; stopping rather than looping", resp.Offset)))
		}
		seen[resp.Offset] = true
		offset = resp.Offset
	}
}

// Schema returns the base's tables with their fields and views. It needs the schema.bases:read scope.
func (b *Base) Schema(ctx context.Context) (*BaseSchema, error) {
	const op = "get base schema"
	if err := checkBaseID(b.id); err != nil {
		return nil, wrapOp(op, b.id, "", err)
	}
	cl := &call{op: op, base: b.id, method: "GET", path: "/v0/meta/bases/" + escapeSegment(b.id) + "/tables", safe: true}
	var s BaseSchema
	if err := b.c.do(ctx, cl, &s); err != nil {
		return nil, err
	}
	if s.Tables == nil {
		s.Tables = []TableSchema{}
	}
	return &s, nil
}

// TableSpec is a table to create: its first field becomes the primary field, which must be of a
// type the service allows there (text, number, date, …; not a checkbox or a link).
type TableSpec struct {
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Fields      []FieldSpec `json:"fields"`
}

// FieldSpec is a field to create, with the options its type requires (number: precision;
// checkbox: icon and color; date: dateFormat; dateTime: dateFormat, timeFormat and timeZone).
type FieldSpec struct {
	Name        string         `json:"name"`
	Type        string         `json:"type"`
	Description string         `json:"description,omitempty"`
	Options     map[string]any `json:"options,omitempty"`
}

// CreateTable creates a table in the base (POST /v0/meta/bases/{baseId}/tables) and returns it
// as the service describes it. It needs the schema.bases:write scope. It is never retried after
// it may have reached the service: a second try could create a second table.
func (b *Base) CreateTable(ctx context.Context, spec TableSpec) (*TableSchema, error) {
	const op = "create table"
	if err := checkBaseID(b.id); err != nil {
		return nil, wrapOp(op, b.id, "", err)
	}
	if spec.Name == "" || len(spec.Fields) == 0 {
		return nil, wrapOp(op, b.id, spec.Name, invalidf("a table needs a name and at least one field (the first is its primary field)"))
	}
	body, err := json.Marshal(spec)
	if err != nil {
		return nil, wrapOp(op, b.id, spec.Name, err)
	}
	cl := &call{op: op, base: b.id, table: spec.Name, method: "POST",
		path: "/v0/meta/bases/" + escapeSegment(b.id) + "/tables", body: body}
	var t TableSchema
	if err := b.c.do(ctx, cl, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// CreateField adds a field to a table (POST /v0/meta/bases/{baseId}/tables/{tableId}/fields) and
// returns it as the service describes it. It needs the schema.bases:write scope; like
// CreateTable, it is never retried after it may have reached the service.
func (b *Base) CreateField(ctx context.Context, tableID string, spec FieldSpec) (*FieldSchema, error) {
	const op = "create field"
	if err := checkBaseID(b.id); err != nil {
		return nil, wrapOp(op, b.id, tableID, err)
	}
	if tableID == "" || spec.Name == "" || spec.Type == "" {
		return nil, wrapOp(op, b.id, tableID, invalidf("a field needs a table, a name and a type"))
	}
	body, err := json.Marshal(spec)
	if err != nil {
		return nil, wrapOp(op, b.id, tableID, err)
	}
	cl := &call{op: op, base: b.id, table: tableID, method: "POST",
		path: "/v0/meta/bases/" + escapeSegment(b.id) + "/tables/" + escapeSegment(tableID) + "/fields", body: body}
	var f FieldSchema
	if err := b.c.do(ctx, cl, &f); err != nil {
		return nil, err
	}
	return &f, nil
}

// User is who the token acts for (GET /v0/meta/whoami): Email only with the user.email:read
// scope.
type User struct {
	ID     string   `json:"id"` // usr…
	Email  string   `json:"email,omitempty"`
	Scopes []string `json:"scopes,omitempty"`
}

func (c *core) whoAmI(ctx context.Context) (*User, error) {
	cl := &call{op: "who am I", method: "GET", path: "/v0/meta/whoami", safe: true}
	var u User
	if err := c.do(ctx, cl, &u); err != nil {
		return nil, err
	}
	return &u, nil
}

// WhoAmI returns the user the token acts for and the token's scopes. It needs no scope.
func (a *API) WhoAmI(ctx context.Context) (*User, error) { return a.c.whoAmI(ctx) }

// WhoAmI is API.WhoAmI: the token's user, whatever the base.
func (b *Base) WhoAmI(ctx context.Context) (*User, error) { return b.c.whoAmI(ctx) }

// BaseCollaborators is a base with who can reach it (GET /v0/meta/bases/{baseId}?include=collaborators).
type BaseCollaborators struct {
	ID                      string                                  `json:"id"`
	Name                    string                                  `json:"name"`
	PermissionLevel         string                                  `json:"permissionLevel"` // the token user's
	WorkspaceID             string                                  `json:"workspaceId"`
	CreatedTime             time.Time                               `json:"createdTime"`
	IndividualCollaborators CollaboratorsByWhere[UserCollaborator]  `json:"individualCollaborators"`
	GroupCollaborators      CollaboratorsByWhere[GroupCollaborator] `json:"groupCollaborators"`
}

// CollaboratorsByWhere splits collaborators by where they were given access: the base itself or
// its workspace.
type CollaboratorsByWhere[T any] struct {
	BaseCollaborators      []T `json:"baseCollaborators"`
	WorkspaceCollaborators []T `json:"workspaceCollaborators"`
}

// UserCollaborator is a user who can reach the base.
type UserCollaborator struct {
	UserID          string    `json:"userId"`
	Email           string    `json:"email"`
	PermissionLevel string    `json:"permissionLevel"` // none, read, comment, edit, create, owner
	CreatedTime     time.Time `json:"createdTime"`
	GrantedByUserID string    `json:"grantedByUserId"`
}

// GroupCollaborator is a user group that can reach the base.
type GroupCollaborator struct {
	GroupID         string    `json:"groupId"`
	Name            string    `json:"name"`
	PermissionLevel string    `json:"permissionLevel"`
	CreatedTime     time.Time `json:"createdTime"`
	GrantedByUserID string    `json:"grantedByUserId"`
}

// Collaborators returns the base's information and collaborators. It needs the schema.bases:read
// scope; the service answers it only for bases of an Enterprise plan (otherwise 404), so the
// error is returned as it came.
func (b *Base) Collaborators(ctx context.Context) (*BaseCollaborators, error) {
	const op = "get base collaborators"
	if err := checkBaseID(b.id); err != nil {
		return nil, wrapOp(op, b.id, "", err)
	}
	cl := &call{op: op, base: b.id, method: "GET", path: "/v0/meta/bases/" + escapeSegment(b.id), query: "include=collaborators", safe: true}
	var out BaseCollaborators
	if err := b.c.do(ctx, cl, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// TableUpdate is a change of a table's name or description; nil leaves it as it is, a pointer to
// "" clears the description.
type TableUpdate struct {
	Name        *string `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
}

// FieldUpdate is a change of a field. The service documents name and description, and options
// only for the text of a formula field ({"formula": "…"}); it refuses what it cannot change (a
// field's type cannot be changed at all).
type FieldUpdate struct {
	Name        *string        `json:"name,omitempty"`
	Description *string        `json:"description,omitempty"`
	Options     map[string]any `json:"options,omitempty"`
}

// UpdateTable renames a table or changes its description (PATCH
// /v0/meta/bases/{baseId}/tables/{tableIdOrName}) and returns it as the service describes it. It
// needs the schema.bases:write scope. Sending it twice changes nothing more, so it may be retried.
func (b *Base) UpdateTable(ctx context.Context, table string, upd TableUpdate) (*TableSchema, error) {
	const op = "update table"
	if err := b.c.checkTarget(b.id, table); err != nil {
		return nil, wrapOp(op, b.id, table, err)
	}
	if upd.Name == nil && upd.Description == nil {
		return nil, wrapOp(op, b.id, table, invalidf("give a Name, a Description or both"))
	}
	if upd.Name != nil && strings.TrimSpace(*upd.Name) == "" {
		return nil, wrapOp(op, b.id, table, invalidf("a table's name cannot be empty"))
	}
	body, err := json.Marshal(upd)
	if err != nil {
		return nil, wrapOp(op, b.id, table, err)
	}
	cl := &call{op: op, base: b.id, table: table, method: "PATCH",
		path: "/v0/meta/bases/" + escapeSegment(b.id) + "/tables/" + escapeSegment(table), body: body, safe: true}
	var t TableSchema
	if err := b.c.do(ctx, cl, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// UpdateField renames a field, changes its description or (for a formula field) its options
// (PATCH /v0/meta/bases/{baseId}/tables/{tableId}/fields/{fieldId}; both by id) and returns it as
// the service describes it. It needs the schema.bases:write scope; like UpdateTable it may be
// retried.
func (b *Base) UpdateField(ctx context.Context, tableID, fieldID string, upd FieldUpdate) (*FieldSchema, error) {
	const op = "update field"
	if err := checkBaseID(b.id); err != nil {
		return nil, wrapOp(op, b.id, tableID, err)
	}
	if tableID == "" || fieldID == "" {
		return nil, wrapOp(op, b.id, tableID, invalidf("updating a field needs the table's id (tbl…) and the field's id (fld…)"))
	}
	if upd.Name == nil && upd.Description == nil && upd.Options == nil {
		return nil, wrapOp(op, b.id, tableID, invalidf("give a Name, a Description or Options"))
	}
	if upd.Name != nil && strings.TrimSpace(*upd.Name) == "" {
		return nil, wrapOp(op, b.id, tableID, invalidf("a field's name cannot be empty"))
	}
	body, err := json.Marshal(upd)
	if err != nil {
		return nil, wrapOp(op, b.id, tableID, err)
	}
	cl := &call{op: op, base: b.id, table: tableID, method: "PATCH",
		path: "/v0/meta/bases/" + escapeSegment(b.id) + "/tables/" + escapeSegment(tableID) + "/fields/" + escapeSegment(fieldID), body: body, safe: true}
	var f FieldSchema
	if err := b.c.do(ctx, cl, &f); err != nil {
		return nil, err
	}
	return &f, nil
}
