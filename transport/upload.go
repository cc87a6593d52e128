package transport

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// Upload attachment: POST https://content.airtable.com/v0/{baseId}/{recordId}/{field}/uploadAttachment
// with {"contentType", "file" (base64), "filename"} (reference §1.10). The service answers the
// record with the attachment field keyed by field id.

// MaxUploadBytes is the largest file UploadAttachment sends: the service takes at most 5 MB
// (reference §3, "Upload attachment"); larger files must be given to it by URL.
const MaxUploadBytes = 5_000_000

// ContentEndpointURL is where uploads go when requests go to DefaultEndpointURL: the service takes
// them on another host. With WithEndpointURL (a proxy, the emulator) they go to that endpoint.
const ContentEndpointURL = "https://content.airtable.com"

// ErrUploadTooLarge is wrapped by the error of an upload larger than MaxUploadBytes, refused
// before anything is sent.
var ErrUploadTooLarge = errors.New("file too large to upload")

// Upload is a file to attach to a record.
type Upload struct {
	Filename    string // shown in Airtable; required
	ContentType string // a MIME type such as "image/png"; required
	Content     []byte // at most MaxUploadBytes
}

// UploadFile reads a local file as an Upload: its name is the file's base name, its content type
// contentType, or when empty the one its extension names, or else what its first bytes show.
// A file larger than MaxUploadBytes is refused without being read whole.
func UploadFile(path, contentType string) (Upload, error) {
	f, err := os.Open(path)
	if err != nil {
		return Upload{}, err
	}
	defer f.Close()
	// One byte more than the limit tells a file at the limit from a larger one.
	data, err := io.ReadAll(io.LimitReader(f, MaxUploadBytes+1))
	if err != nil {
		return Upload{}, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > MaxUploadBytes {
		return Upload{}, fmt.Errorf("%w: %s is larger than %d bytes (the service's 5 MB limit for uploads); give it to Airtable by URL instead", ErrUploadTooLarge, path, MaxUploadBytes)
	}
	if contentType == "" {
		contentType = mime.TypeByExtension(strings.ToLower(filepath.Ext(path)))
	}
	if contentType == "" {
		contentType = http.DetectContentType(data)
	}
	return Upload{Filename: filepath.Base(path), ContentType: contentType, Content: data}, nil
}

// uploadHost is the host uploads go to: content.airtable.com for the service itself, the
// configured endpoint otherwise.
func (c *core) uploadHost() string {
	if c.endpoint == DefaultEndpointURL {
		return ContentEndpointURL
	}
	return ""
}

// uploadAttachment sends the file; table names the record's table, for the result cache and error
// messages (the request itself names only the record and field). It is never retried once it
// may have reached the service: a second try would attach the file twice.
func (c *core) uploadAttachment(ctx context.Context, base, table, recordID, field string, up Upload) (*Record, error) {
	const op = "upload attachment"
	if err := c.checkTarget(base, table); err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	if err := checkRecordID(recordID); err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	switch {
	case field == "":
		return nil, wrapOp(op, base, table, invalidf("empty field: name the attachment field (or its fld… id)"))
	case up.Filename == "" || up.ContentType == "":
		return nil, wrapOp(op, base, table, invalidf("an upload needs a Filename and a ContentType (such as image/png)"))
	case len(up.Content) > MaxUploadBytes:
		return nil, wrapOp(op, base, table, fmt.Errorf("%w: %q is %d bytes; the service takes at most %d (5 MB) per upload: give larger files by URL", ErrUploadTooLarge, up.Filename, len(up.Content), MaxUploadBytes))
	}
	body, err := json.Marshal(map[string]string{
		"contentType": up.ContentType,
		"file":        base64.StdEncoding.EncodeToString(up.Content),
		"filename":    up.Filename,
	})
	if err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	cl := &call{op: op, base: base, table: table, method: "POST", host: c.uploadHost(),
		path: "/v0/" + escapeSegment(base) + "/" + escapeSegment(recordID) + "/" + escapeSegment(field) + "/uploadAttachment", body: body}
	var w wireRecord
	if err := c.do(ctx, cl, &w); err != nil {
		return nil, err
	}
	r, err := w.record()
	if err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	return &r, nil
}

// UploadAttachment attaches a file to the record's attachment field (a name or fld… id), after
// the attachments it has. The answer is the record with that field only, keyed by field id. It
// needs the data.records:write scope.
func (t *Table) UploadAttachment(ctx context.Context, recordID, field string, up Upload) (*Record, error) {
	return t.c.uploadAttachment(ctx, t.base, t.name, recordID, field, up)
}

// UploadAttachment is Table.UploadAttachment on table.
func (b *Base) UploadAttachment(ctx context.Context, table, recordID, field string, up Upload) (*Record, error) {
	return b.c.uploadAttachment(ctx, b.id, table, recordID, field, up)
}

// UploadAttachment is Table.UploadAttachment on table of base.
func (a *API) UploadAttachment(ctx context.Context, base, table, recordID, field string, up Upload) (*Record, error) {
	return a.c.uploadAttachment(ctx, base, table, recordID, field, up)
}
