package transport

import (
	"context"
	"encoding/json"
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
