package transport

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The webhooks API (/v0/bases/{baseId}/webhooks…): a base's exact change feed. A client creates
// a webhook, then reads its payloads in order with a cursor (WebhookPayloads, or
// IterateWebhookPayloads to drain them), with or without a notification URL that the service
// pings after each change. Every call needs the webhook:manage scope; a specification with
// tableData also needs data.records:read, with tableFields or tableMetadata schema.bases:read.
// The calls are paced with the base's other requests (5 per second).

// Data types of WebhookFilters.DataTypes.
const (
	WebhookTableData     = "tableData"     // records created, changed and destroyed
	WebhookTableFields   = "tableFields"   // fields created, changed and destroyed
	WebhookTableMetadata = "tableMetadata" // tables' names and descriptions
)

// Change types of WebhookFilters.ChangeTypes.
const (
	WebhookAdd    = "add"
	WebhookRemove = "remove"
	WebhookUpdate = "update"
)

// MaxWebhookPayloadsPerPage is the most payloads one list payloads request returns.
const MaxWebhookPayloadsPerPage = 50

// ErrTooManyWebhooks is the error of creating an 11th webhook on a base.
var ErrTooManyWebhooks = &APIError{StatusCode: 422, Type: "TOO_MANY_WEBHOOKS_IN_BASE"}

// WebhookSpecification says what a webhook reports.
type WebhookSpecification struct {
	Options WebhookOptions `json:"options"`
}

// WebhookOptions are a specification's filters and includes.
type WebhookOptions struct {
	Filters  WebhookFilters   `json:"filters"`
	Includes *WebhookIncludes `json:"includes,omitempty"`
}

// WebhookFilters choose the changes a webhook reports; only DataTypes is required. Tables and
// fields are named by id.
type WebhookFilters struct {
	DataTypes              []string       `json:"dataTypes"`
	RecordChangeScope      string         `json:"recordChangeScope,omitempty"` // a tbl… or viw… id
	ChangeTypes            []string       `json:"changeTypes,omitempty"`
	FromSources            []string       `json:"fromSources,omitempty"` // client, publicApi, formSubmission, automation, system, sync, …
	SourceOptions          map[string]any `json:"sourceOptions,omitempty"`
	WatchDataInFieldIDs    []string       `json:"watchDataInFieldIds,omitempty"`
	WatchSchemasOfFieldIDs []string       `json:"watchSchemasOfFieldIds,omitempty"`
}

// WebhookIncludes add context to payloads.
type WebhookIncludes struct {
	// CellValuesInFieldIDs are fields whose values changed records always carry (in Unchanged);
	// AllCellValues asks for every field ("all").
	CellValuesInFieldIDs     []string
	AllCellValues            bool
	PreviousCellValues       bool // Previous in changed records
	PreviousFieldDefinitions bool // Previous in changed fields
}

type webhookIncludesJSON struct {
	IncludeCellValuesInFieldIDs     json.RawMessage `json:"includeCellValuesInFieldIds,omitempty"`
	IncludePreviousCellValues       bool            `json:"includePreviousCellValues,omitempty"`
	IncludePreviousFieldDefinitions bool            `json:"includePreviousFieldDefinitions,omitempty"`
}

// MarshalJSON writes the service's form: includeCellValuesInFieldIds is "all" or a list.
func (in WebhookIncludes) MarshalJSON() ([]byte, error) {
	out := webhookIncludesJSON{IncludePreviousCellValues: in.PreviousCellValues, IncludePreviousFieldDefinitions: in.PreviousFieldDefinitions}
	switch {
	case in.AllCellValues:
		out.IncludeCellValuesInFieldIDs = json.RawMessage(`"all"`)
	case len(in.CellValuesInFieldIDs) > 0:
		b, err := json.Marshal(in.CellValuesInFieldIDs)
		if err != nil {
			return nil, err
		}
		out.IncludeCellValuesInFieldIDs = b
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads the service's form.
func (in *WebhookIncludes) UnmarshalJSON(b []byte) error {
	var raw webhookIncludesJSON
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*in = WebhookIncludes{PreviousCellValues: raw.IncludePreviousCellValues, PreviousFieldDefinitions: raw.IncludePreviousFieldDefinitions}
	if len(raw.IncludeCellValuesInFieldIDs) == 0 || string(raw.IncludeCellValuesInFieldIDs) == "null" {
		return nil
	}
	var all string
	if json.Unmarshal(raw.IncludeCellValuesInFieldIDs, &all) == nil {
		in.AllCellValues = all == "all"
		return nil
	}
	return json.Unmarshal(raw.IncludeCellValuesInFieldIDs, &in.CellValuesInFieldIDs)
}

// CreatedWebhook is the answer of CreateWebhook. MACSecretBase64 is given only here: keep it to
// check the MAC of notification pings (VerifyWebhookNotification).
type CreatedWebhook struct {
	ID              string     `json:"id"`
	MACSecretBase64 string     `json:"macSecretBase64"`
	ExpirationTime  *time.Time `json:"expirationTime"` // nil for hooks that never expire
}

// Webhook is one webhook of a base as Webhooks lists it.
type Webhook struct {
	ID                             string                     `json:"id"`
	Specification                  WebhookSpecification       `json:"specification"`
	NotificationURL                string                     `json:"notificationUrl"` // "" when it has none
	CursorForNextPayload           int                        `json:"cursorForNextPayload"`
	LastNotificationResult         *WebhookNotificationResult `json:"lastNotificationResult"`
	AreNotificationsEnabled        bool                       `json:"areNotificationsEnabled"`
	LastSuccessfulNotificationTime *time.Time                 `json:"lastSuccessfulNotificationTime"`
	IsHookEnabled                  bool                       `json:"isHookEnabled"` // false after an error payload or expiry
	ExpirationTime                 *time.Time                 `json:"expirationTime"`
}

// WebhookNotificationResult is the outcome of the last ping.
type WebhookNotificationResult struct {
	Success             bool      `json:"success"`
	CompletionTimestamp time.Time `json:"completionTimestamp"`
	DurationMs          float64   `json:"durationMs"`
	RetryNumber         int       `json:"retryNumber"`
	Error               *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
	WillBeRetried bool `json:"willBeRetried,omitempty"`
}

// WebhookPayload is one transaction's changes as a webhook reports them. Cell values are keyed
// by field id, in the webhook forms: selects {id, name, color}, links [{id, name}], lookups
// {valuesByLinkedRecordId, linkedRecordIds}; other types as the records API gives them.
type WebhookPayload struct {
	// Cursor is the payload's sequence number in its webhook (1, 2, …); reading from Cursor+1
	// continues after it. It is not in the JSON: it is counted from the answer's cursor.
	Cursor                int                            `json:"-"`
	Timestamp             time.Time                      `json:"timestamp"`
	BaseTransactionNumber int64                          `json:"baseTransactionNumber"`
	ActionMetadata        WebhookAction                  `json:"actionMetadata"`
	PayloadFormat         string                         `json:"payloadFormat"`
	ChangedTablesByID     map[string]WebhookTableChanged `json:"changedTablesById,omitempty"`
	CreatedTablesByID     map[string]WebhookTableCreated `json:"createdTablesById,omitempty"`
	DestroyedTableIDs     []string                       `json:"destroyedTableIds,omitempty"`
	// Error is set on the payload that ended the webhook (its filters named a table or field
	// that was deleted): it makes no payload after this one; create a new one.
	Error bool   `json:"error,omitempty"`
	Code  string `json:"code,omitempty"` // INVALID_FILTERS, INVALID_HOOK, INTERNAL_ERROR, …
}

// WebhookAction says who made a change: Source is client, publicApi, formSubmission, automation,
// system, sync, …; SourceMetadata holds the user ({"user":{id,email,…}}), view, page or automation.
type WebhookAction struct {
	Source         string         `json:"source"`
	SourceMetadata map[string]any `json:"sourceMetadata,omitempty"`
}

// WebhookTableChanged is what changed in one table.
type WebhookTableChanged struct {
	ChangedMetadata    *WebhookMetadataChange         `json:"changedMetadata,omitempty"`
	CreatedFieldsByID  map[string]WebhookField        `json:"createdFieldsById,omitempty"`
	ChangedFieldsByID  map[string]WebhookFieldChange  `json:"changedFieldsById,omitempty"`
	DestroyedFieldIDs  []string                       `json:"destroyedFieldIds,omitempty"`
	CreatedRecordsByID map[string]WebhookRecord       `json:"createdRecordsById,omitempty"`
	ChangedRecordsByID map[string]WebhookRecordChange `json:"changedRecordsById,omitempty"`
	DestroyedRecordIDs []string                       `json:"destroyedRecordIds,omitempty"`
	ChangedViewsByID   map[string]WebhookViewChanged  `json:"changedViewsById,omitempty"`
}

// WebhookViewChanged is what changed in a view, for a webhook scoped to that view.
type WebhookViewChanged struct {
	CreatedRecordsByID map[string]WebhookRecord       `json:"createdRecordsById,omitempty"`
	ChangedRecordsByID map[string]WebhookRecordChange `json:"changedRecordsById,omitempty"`
	DestroyedRecordIDs []string                       `json:"destroyedRecordIds,omitempty"`
}

// WebhookTableCreated is a table created, with what the webhook's data types ask for.
type WebhookTableCreated struct {
	Metadata    *WebhookTableInfo        `json:"metadata,omitempty"`
	FieldsByID  map[string]WebhookField  `json:"fieldsById,omitempty"`
	RecordsByID map[string]WebhookRecord `json:"recordsById,omitempty"`
}

// WebhookTableInfo is a table's name and description; nil when not part of the change.
type WebhookTableInfo struct {
	Name        *string `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
}

// WebhookMetadataChange is a table renamed or described anew.
type WebhookMetadataChange struct {
	Current  WebhookTableInfo `json:"current"`
	Previous WebhookTableInfo `json:"previous"`
}

// WebhookField is a field's type and name ("" when not part of the change).
type WebhookField struct {
	Type string `json:"type,omitempty"`
	Name string `json:"name,omitempty"`
}

// WebhookFieldChange is a field renamed or retyped; Previous only with
// WebhookIncludes.PreviousFieldDefinitions.
type WebhookFieldChange struct {
	Current  WebhookField  `json:"current"`
	Previous *WebhookField `json:"previous,omitempty"`
}

// WebhookRecord is a record created: its non-empty cells by field id.
type WebhookRecord struct {
	CreatedTime         time.Time      `json:"createdTime"`
	CellValuesByFieldID map[string]any `json:"cellValuesByFieldId"`
}

// WebhookRecordChange is a record changed: Current holds the changed cells (a cleared cell is
// present with a nil value); Previous their values before (with PreviousCellValues); Unchanged
// the included fields that did not change (WebhookIncludes.CellValuesInFieldIDs).
type WebhookRecordChange struct {
	Current   WebhookCells  `json:"current"`
	Previous  *WebhookCells `json:"previous,omitempty"`
	Unchanged *WebhookCells `json:"unchanged,omitempty"`
}

// WebhookCells are cell values by field id.
type WebhookCells struct {
	CellValuesByFieldID map[string]any `json:"cellValuesByFieldId"`
}

// WebhookPayloadPage is one answer of list payloads. Cursor is where the next read starts;
// MightHaveMore says to read again at once.
type WebhookPayloadPage struct {
	Payloads      []WebhookPayload `json:"payloads"`
	Cursor        int              `json:"cursor"`
	MightHaveMore bool             `json:"mightHaveMore"`
	PayloadFormat string           `json:"payloadFormat"`
}

// ErrWebhookCursorGap is matched (errors.Is) by a *WebhookCursorGapError.
var ErrWebhookCursorGap = errors.New("webhook payloads were lost")

// WebhookCursorGapError says that payloads between the cursor asked for and the first one
// returned are gone (the service keeps payloads a week): whoever follows the feed has missed
// changes and must copy the data afresh, then read on from Next.
type WebhookCursorGapError struct {
	Webhook   string
	Requested int // the cursor asked for
	Next      int // the cursor of the first payload still there (or, with none, the next one)
}

func (e *WebhookCursorGapError) Error() string {
	return fmt.Sprintf("airtable: webhook %s: payloads %d to %d are no longer kept; copy the data again, then read payloads from cursor %d",
		e.Webhook, e.Requested, e.Next-1, e.Next)
}

// Is makes errors.Is(err, ErrWebhookCursorGap) hold.
func (e *WebhookCursorGapError) Is(target error) bool { return target == ErrWebhookCursorGap }

func checkWebhookID(id string) error {
	if id == "" || strings.ContainsAny(id, "/?#% ") {
		return invalidf("webhook id %q: a webhook id is ach followed by 14 letters and digits", id)
	}
	return nil
}

func (b *Base) webhooksPath() string { return "/v0/bases/" + escapeSegment(b.id) + "/webhooks" }

// CreateWebhook creates a webhook (POST /v0/bases/{baseId}/webhooks). notificationURL may be "":
// the webhook then records payloads for WebhookPayloads without pinging anyone. It is never
// retried after it may have reached the service: a second try could create a second webhook.
func (b *Base) CreateWebhook(ctx context.Context, spec WebhookSpecification, notificationURL string) (*CreatedWebhook, error) {
	const op = "create webhook"
	if err := checkBaseID(b.id); err != nil {
		return nil, wrapOp(op, b.id, "", err)
	}
	if len(spec.Options.Filters.DataTypes) == 0 {
		return nil, wrapOp(op, b.id, "", invalidf("the specification needs Options.Filters.DataTypes (%s, %s or %s)", WebhookTableData, WebhookTableFields, WebhookTableMetadata))
	}
	body := struct {
		NotificationURL string               `json:"notificationUrl,omitempty"`
		Specification   WebhookSpecification `json:"specification"`
	}{notificationURL, spec}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, wrapOp(op, b.id, "", err)
	}
	cl := &call{op: op, base: b.id, method: "POST", path: b.webhooksPath(), body: raw}
	var out CreatedWebhook
	if err := b.c.do(ctx, cl, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Webhooks lists the base's webhooks (GET /v0/bases/{baseId}/webhooks).
func (b *Base) Webhooks(ctx context.Context) ([]Webhook, error) {
	const op = "list webhooks"
	if err := checkBaseID(b.id); err != nil {
		return nil, wrapOp(op, b.id, "", err)
	}
	var out struct {
		Webhooks []Webhook `json:"webhooks"`
	}
	if err := b.c.do(ctx, &call{op: op, base: b.id, method: "GET", path: b.webhooksPath(), safe: true}, &out); err != nil {
		return nil, err
	}
	if out.Webhooks == nil {
		out.Webhooks = []Webhook{}
	}
	return out.Webhooks, nil
}

// webhookCall runs a call on one webhook: path is what follows /webhooks/{id} ("" or "/refresh").
func (b *Base) webhookCall(ctx context.Context, op, id, method, path, query string, body []byte, out any) error {
	if err := checkBaseID(b.id); err != nil {
		return wrapOp(op, b.id, "", err)
	}
	if err := checkWebhookID(id); err != nil {
		return wrapOp(op, b.id, "", err)
	}
	// Each of these calls may be repeated: deleting, refreshing, switching notifications and
	// reading payloads twice is the same as once.
	cl := &call{op: op, base: b.id, method: method, path: b.webhooksPath() + "/" + escapeSegment(id) + path,
		query: query, body: body, safe: true}
	return b.c.do(ctx, cl, out)
}

// DeleteWebhook deletes a webhook and its payloads (DELETE /v0/bases/{baseId}/webhooks/{id}).
func (b *Base) DeleteWebhook(ctx context.Context, id string) error {
	return b.webhookCall(ctx, "delete webhook", id, "DELETE", "", "", nil, nil)
}

// RefreshWebhook extends a webhook's life to 7 days from now and returns its new expiry
// (POST …/webhooks/{id}/refresh). Reading payloads extends it too.
func (b *Base) RefreshWebhook(ctx context.Context, id string) (time.Time, error) {
	var out struct {
		ExpirationTime time.Time `json:"expirationTime"`
	}
	err := b.webhookCall(ctx, "refresh webhook", id, "POST", "/refresh", "", nil, &out)
	return out.ExpirationTime, err
}

// EnableWebhookNotifications turns a webhook's pings on or off (POST
// …/webhooks/{id}/enableNotifications); payloads are recorded either way. Turning them on again
// is how a client re-arms pings after the service gave up delivering them.
func (b *Base) EnableWebhookNotifications(ctx context.Context, id string, enable bool) error {
	body := []byte(`{"enable":` + strconv.FormatBool(enable) + `}`)
	return b.webhookCall(ctx, "enable webhook notifications", id, "POST", "/enableNotifications", "", body, nil)
}

// WebhookPayloads reads one page of a webhook's payloads from cursor (1 for the first; 0 means 1)
// (GET …/webhooks/{id}/payloads?cursor=&limit=). limit 0 leaves the page size to the service
// (at most MaxWebhookPayloadsPerPage). Each payload's Cursor is set.
func (b *Base) WebhookPayloads(ctx context.Context, id string, cursor, limit int) (*WebhookPayloadPage, error) {
	const op = "list webhook payloads"
	if cursor < 0 || limit < 0 || limit > MaxWebhookPayloadsPerPage {
		return nil, wrapOp(op, b.id, "", invalidf("cursor %d, limit %d: the cursor is 1 or more, the limit 1 to %d (0: the service's default)", cursor, limit, MaxWebhookPayloadsPerPage))
	}
	q := url.Values{}
	if cursor > 0 {
		q.Set("cursor", strconv.Itoa(cursor))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var page WebhookPayloadPage
	if err := b.webhookCall(ctx, op, id, "GET", "/payloads", q.Encode(), nil, &page); err != nil {
		return nil, err
	}
	// The answer's cursor follows the last payload: payload i of n has cursor - n + i.
	for i := range page.Payloads {
		page.Payloads[i].Cursor = page.Cursor - len(page.Payloads) + i
	}
	return &page, nil
}

// IterateWebhookPayloads yields a webhook's payloads from cursor on, in order, reading pages of
// 50 until the service has no more. When payloads from cursor on are no longer kept it yields a
// *WebhookCursorGapError (errors.Is ErrWebhookCursorGap) and stops: changes were missed.
// A failed request yields its error and stops.
func (b *Base) IterateWebhookPayloads(ctx context.Context, id string, cursor int) iter.Seq2[WebhookPayload, error] {
	return func(yield func(WebhookPayload, error) bool) {
		if cursor < 1 {
			cursor = 1
		}
		for {
			page, err := b.WebhookPayloads(ctx, id, cursor, MaxWebhookPayloadsPerPage)
			if err != nil {
				yield(WebhookPayload{}, err)
				return
			}
			first := page.Cursor - len(page.Payloads) // the cursor of the first payload returned
			if first > cursor {
				yield(WebhookPayload{}, &WebhookCursorGapError{Webhook: id, Requested: cursor, Next: first})
				return
			}
			for _, p := range page.Payloads {
				if !yield(p, nil) {
					return
				}
			}
			if !page.MightHaveMore || len(page.Payloads) == 0 || page.Cursor <= cursor {
				return // nothing more now, or an answer that does not move on: stop rather than loop
			}
			cursor = page.Cursor
		}
	}
}

// VerifyWebhookNotification checks the X-Airtable-Content-MAC header of a notification ping
// ("hmac-sha256=<hex>") against its raw body and the webhook's macSecretBase64.
func VerifyWebhookNotification(macSecretBase64 string, body []byte, macHeader string) error {
	secret, err := base64.StdEncoding.DecodeString(macSecretBase64)
	if err != nil {
		return fmt.Errorf("airtable: the webhook's MAC secret is not base64: %w", err)
	}
	digest, ok := strings.CutPrefix(macHeader, "hmac-sha256=")
	if !ok {
		return errors.New("airtable: the X-Airtable-Content-MAC header does not start with hmac-sha256=")
	}
	got, err := hex.DecodeString(digest)
	if err != nil {
		return errors.New("airtable: the X-Airtable-Content-MAC digest is not hexadecimal")
	}
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	if !hmac.Equal(got, m.Sum(nil)) {
		return errors.New("airtable: the notification's MAC does not match its body: it did not come from this webhook, or was changed")
	}
	return nil
}
