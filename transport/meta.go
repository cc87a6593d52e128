package transport

import (
	"context"
	"fmt"
	"net/url"
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
