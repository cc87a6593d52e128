package emulator

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"
)

// The webhooks API (../../shared/reference/airtable-webhooks.md, cited as "webhooks §n"):
//
//	POST   /v0/bases/{baseId}/webhooks                               create
//	GET    /v0/bases/{baseId}/webhooks                               list
//	DELETE /v0/bases/{baseId}/webhooks/{webhookId}                   delete
//	POST   /v0/bases/{baseId}/webhooks/{webhookId}/refresh           extend the expiry by 7 days
//	POST   /v0/bases/{baseId}/webhooks/{webhookId}/enableNotifications {"enable": bool}
//	GET    /v0/bases/{baseId}/webhooks/{webhookId}/payloads?cursor=&limit=
//
// Every write that changes a base is one transaction (one baseTransactionNumber) and gives each
// live webhook of the base at most one payload (webhooks_payload.go); a hook with a notification
// URL is pinged after it (webhooks_ping.go). Webhooks live in memory only: the data file does not
// keep them, so after a restart a client finds its hook gone (404) and creates a new one.

const (
	scopeWebhookManage = "webhook:manage"

	// WebhookLifetime is how long a webhook lives after its creation or last refresh, and how
	// long a payload and an expired webhook are kept (webhooks §3).
	WebhookLifetime = 7 * 24 * time.Hour
	// MaxWebhooksPerBase is how many webhooks one base may have (webhooks §3).
	MaxWebhooksPerBase = 10
	// MaxPayloadsPerList is the largest (and default) limit of list payloads (webhooks §1.5).
	MaxPayloadsPerList = 50
	// macSecretBytes is the length of a webhook's MAC secret: 172 base64 characters (webhooks §1.1).
	macSecretBytes = 128
)

// Data types, change types and sources a specification may name (webhooks §1.2).
var (
	hookDataTypes   = []string{"tableData", "tableFields", "tableMetadata"}
	hookChangeTypes = []string{"add", "remove", "update"}
	hookSources     = []string{"client", "publicApi", "formSubmission", "formPageSubmission", "automation", "system", "sync", "anonymousUser", "unknown"}
)

// webhookState holds the webhooks of every base. Guarded by Server.mu, except pings (webhooks_ping.go).
type webhookState struct {
	byID  map[string]*webhook
	order []string // ids in creation order: the order of list webhooks
	pings *pinger
}

func (st *webhookState) init(client *http.Client) {
	st.byID = map[string]*webhook{}
	st.pings = newPinger(client)
}

// webhook is one hook and the payloads it keeps.
type webhook struct {
	id, baseID   string
	macSecret    []byte
	specJSON     json.RawMessage // the specification as sent, compacted: list webhooks echoes it
	spec         hookSpec
	notifyURL    string // "" when created without one
	notifyOn     bool   // areNotificationsEnabled
	enabled      bool   // isHookEnabled: false after an error payload
	expires      time.Time
	nextCursor   int
	payloads     []storedPayload // oldest first; those older than WebhookLifetime are purged
	lastResult   map[string]any  // lastNotificationResult; nil before the first ping
	lastSuccess  time.Time       // lastSuccessfulNotificationTime; zero before the first success
	pingPending  bool            // a payload came since the ping under way started
	pingInFlight bool
}

type storedPayload struct {
	cursor  int
	created time.Time
	body    json.RawMessage
}

// hookSpec is specification.options, read (webhooks §1.2).
type hookSpec struct {
	Options struct {
		Filters struct {
			DataTypes              []string        `json:"dataTypes"`
			RecordChangeScope      string          `json:"recordChangeScope,omitempty"`
			ChangeTypes            []string        `json:"changeTypes,omitempty"`
			FromSources            []string        `json:"fromSources,omitempty"`
			SourceOptions          json.RawMessage `json:"sourceOptions,omitempty"`
			WatchDataInFieldIds    []string        `json:"watchDataInFieldIds,omitempty"`
			WatchSchemasOfFieldIds []string        `json:"watchSchemasOfFieldIds,omitempty"`
		} `json:"filters"`
		Includes *struct {
			IncludeCellValuesInFieldIds     json.RawMessage `json:"includeCellValuesInFieldIds,omitempty"`
			IncludePreviousCellValues       bool            `json:"includePreviousCellValues,omitempty"`
			IncludePreviousFieldDefinitions bool            `json:"includePreviousFieldDefinitions,omitempty"`
		} `json:"includes,omitempty"`
	} `json:"options"`
	// read from Includes.IncludeCellValuesInFieldIds
	includeAll    bool
	includeFields []string
	// scopeTable is the table of recordChangeScope (the view's table for a view); scopeView the
	// view when the scope is one.
	scopeTable, scopeView string
}

func (sp *hookSpec) wants(dataType string) bool {
	return slices.Contains(sp.Options.Filters.DataTypes, dataType)
}

func (sp *hookSpec) wantsChange(kind string) bool {
	ct := sp.Options.Filters.ChangeTypes
	return len(ct) == 0 || slices.Contains(ct, kind)
}

func (sp *hookSpec) previousCells() bool {
	return sp.Options.Includes != nil && sp.Options.Includes.IncludePreviousCellValues
}

func (sp *hookSpec) previousFields() bool {
	return sp.Options.Includes != nil && sp.Options.Includes.IncludePreviousFieldDefinitions
}

// live reports whether the hook still makes payloads at now: enabled and not expired.
func (h *webhook) live(now time.Time) bool { return h.enabled && now.Before(h.expires) }

// pickWebhookHandler routes /v0/bases/{baseId}/webhooks[/...].
func (s *Server) pickWebhookHandler(method string, segs []string) (handlerFunc, string) {
	if len(segs) < 3 || segs[2] != "webhooks" {
		return nil, ""
	}
	baseID := segs[1]
	switch {
	case len(segs) == 3 && method == http.MethodPost:
		return s.createWebhook, baseID
	case len(segs) == 3 && method == http.MethodGet:
		return s.listWebhooks, baseID
	case len(segs) == 4 && method == http.MethodDelete:
		return s.perHook(s.deleteWebhook), baseID
	case len(segs) == 5 && segs[4] == "refresh" && method == http.MethodPost:
		return s.perHook(s.refreshWebhook), baseID
	case len(segs) == 5 && segs[4] == "enableNotifications" && method == http.MethodPost:
		return s.perHook(s.enableWebhookNotifications), baseID
	case len(segs) == 5 && segs[4] == "payloads" && method == http.MethodGet:
		return s.perHook(s.listWebhookPayloads), baseID
	}
	return nil, ""
}

// webhookBase checks the token's access to the base and the webhook:manage scope. The caller holds
// s.mu for writing (every webhook request may expire hooks and purge payloads).
func (s *Server) webhookBase(c *call) (*base, *apiError) {
	id := c.segments[1]
	b := s.bases[id]
	if b == nil || !c.tok.bases[id] {
		return nil, s.notFoundBase(id)
	}
	if !c.tok.scopes[scopeWebhookManage] {
		return nil, errForbidden()
	}
	s.expireWebhooksLocked(b.id, s.clock.Now())
	return b, nil
}

// dataTypeScopes refuses a token that lacks the scope a data type needs (webhooks §1.1):
// data.records:read for tableData, schema.bases:read for tableFields and tableMetadata.
func dataTypeScopes(tok *token, sp *hookSpec) *apiError {
	if sp.wants("tableData") && !tok.scopes[scopeRecordsRead] {
		return errForbidden()
	}
	if (sp.wants("tableFields") || sp.wants("tableMetadata")) && !tok.scopes[scopeSchemaRead] {
		return errForbidden()
	}
	return nil
}

// perHook makes a handler of a per-hook route: it locks the server, checks the base and the scope
// and finds the hook, then calls handle with s.mu held for writing.
func (s *Server) perHook(handle func(*call, *webhook) (reply, *apiError)) handlerFunc {
	return func(c *call) (reply, *apiError) {
		s.mu.Lock()
		defer s.mu.Unlock()
		b, aerr := s.webhookBase(c)
		if aerr != nil {
			return reply{}, aerr
		}
		h := s.hooks.byID[c.segments[3]]
		if h == nil || h.baseID != b.id {
			return reply{}, &apiError{status: http.StatusNotFound, typ: "NOT_FOUND", noMessage: true}
		}
		return handle(c, h)
	}
}

// expireWebhooksLocked applies the lifecycle at now (webhooks §3): a hook past its expiry stops
// making payloads; payloads older than a week are dropped; a hook expired for a week is gone.
func (s *Server) expireWebhooksLocked(baseID string, now time.Time) {
	kept := s.hooks.order[:0]
	for _, id := range s.hooks.order {
		h := s.hooks.byID[id]
		if h.baseID == baseID {
			if !now.Before(h.expires.Add(WebhookLifetime)) {
				delete(s.hooks.byID, id)
				continue
			}
			h.payloads = dropExpiredPayloads(h.payloads, now)
		}
		kept = append(kept, id)
	}
	s.hooks.order = kept
}

// dropExpiredPayloads drops the payloads older than a week at now (they are in creation order).
func dropExpiredPayloads(list []storedPayload, now time.Time) []storedPayload {
	cut := 0
	for cut < len(list) && !now.Before(list[cut].created.Add(WebhookLifetime)) {
		cut++
	}
	return list[cut:]
}

// readHookSpec reads and checks a specification against the base (webhooks §1.2).
func readHookSpec(b *base, raw json.RawMessage) (*hookSpec, *apiError) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, errInvalidRequest("the body needs \"specification\": {\"options\": {\"filters\": {\"dataTypes\": [...]}}}")
	}
	var sp hookSpec
	if aerr := decodeStrictTree(raw, &sp); aerr != nil {
		return nil, aerr
	}
	f := &sp.Options.Filters
	if len(f.DataTypes) == 0 {
		return nil, errInvalidRequest("specification.options.filters.dataTypes must list one or more of tableData, tableFields, tableMetadata")
	}
	for _, list := range []struct {
		name  string
		given []string
		known []string
	}{{"dataTypes", f.DataTypes, hookDataTypes}, {"changeTypes", f.ChangeTypes, hookChangeTypes}, {"fromSources", f.FromSources, hookSources}} {
		for _, v := range list.given {
			if !slices.Contains(list.known, v) {
				return nil, errInvalidRequest(fmt.Sprintf("specification.options.filters.%s: %q is not one of %v", list.name, v, list.known))
			}
		}
	}
	var scope *table
	if f.RecordChangeScope != "" {
		scope = b.tableByID[f.RecordChangeScope]
		if scope == nil {
			t, v := viewByID(b, f.RecordChangeScope)
			if v == nil {
				return nil, errInvalidRequest(fmt.Sprintf("recordChangeScope %q is not the id of a table or view of base %s", f.RecordChangeScope, b.id))
			}
			if v.typ == "form" || v.typ == "list" {
				return nil, errInvalidRequest(fmt.Sprintf("recordChangeScope %s is a %s view; form and list views cannot scope a webhook", v.id, v.typ))
			}
			scope, sp.scopeView = t, v.id
		}
		sp.scopeTable = scope.id
	}
	fieldExists := func(id string) bool {
		if scope != nil {
			return scope.fieldByID[id] != nil
		}
		for _, t := range b.tables {
			if t.fieldByID[id] != nil {
				return true
			}
		}
		return false
	}
	for _, list := range []struct {
		name string
		ids  []string
	}{{"filters.watchDataInFieldIds", f.WatchDataInFieldIds}, {"filters.watchSchemasOfFieldIds", f.WatchSchemasOfFieldIds}} {
		for _, id := range list.ids {
			if !fieldExists(id) {
				return nil, errInvalidRequest(fmt.Sprintf("specification.options.%s: %q is not the id of a field of the base (or of the scope table)", list.name, id))
			}
		}
	}
	if inc := sp.Options.Includes; inc != nil && len(inc.IncludeCellValuesInFieldIds) > 0 {
		var all string
		if json.Unmarshal(inc.IncludeCellValuesInFieldIds, &all) == nil {
			if all != "all" {
				return nil, errInvalidRequest("specification.options.includes.includeCellValuesInFieldIds must be \"all\" or a list of field ids")
			}
			sp.includeAll = true
		} else if err := json.Unmarshal(inc.IncludeCellValuesInFieldIds, &sp.includeFields); err != nil {
			return nil, errInvalidRequest("specification.options.includes.includeCellValuesInFieldIds must be \"all\" or a list of field ids")
		}
		for _, id := range sp.includeFields {
			if !fieldExists(id) {
				return nil, errInvalidRequest(fmt.Sprintf("specification.options.includes.includeCellValuesInFieldIds: %q is not the id of a field of the base", id))
			}
		}
	}
	return &sp, nil
}

// specKeys are the keys a specification may have, by depth; nil below a key: any value.
var specKeys = map[string]any{"options": map[string]any{
	"filters": map[string]any{"dataTypes": nil, "recordChangeScope": nil, "changeTypes": nil, "fromSources": nil,
		"sourceOptions": nil, "watchDataInFieldIds": nil, "watchSchemasOfFieldIds": nil},
	"includes": map[string]any{"includeCellValuesInFieldIds": nil, "includePreviousCellValues": nil, "includePreviousFieldDefinitions": nil},
}}

// viewByID finds a view of the base by id, with its table.
func viewByID(b *base, id string) (*table, *view) {
	for _, t := range b.tables {
		for _, v := range t.views {
			if v.id == id {
				return t, v
			}
		}
	}
	return nil, nil
}

// decodeStrictTree decodes raw into v refusing unknown keys at every depth, spelled exactly
// (encoding/json alone would take "DataTypes" for "dataTypes"): the service validates the
// specification against a schema.
func decodeStrictTree(raw json.RawMessage, v any) *apiError {
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return errInvalidRequest(fmt.Sprintf("specification: %v", err))
	}
	if aerr := checkSpecKeys(tree, specKeys, "specification"); aerr != nil {
		return aerr
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return errInvalidRequest(fmt.Sprintf("specification: %v", err))
	}
	return nil
}

func checkSpecKeys(v any, allowed map[string]any, where string) *apiError {
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			return nil
		}
		return errInvalidRequest(where + " must be an object")
	}
	for k, sub := range m {
		next, known := allowed[k]
		if !known {
			return errInvalidRequest(fmt.Sprintf("%s.%s is not a property of a webhook specification", where, k))
		}
		if nm, ok := next.(map[string]any); ok {
			if aerr := checkSpecKeys(sub, nm, where+"."+k); aerr != nil {
				return aerr
			}
		}
	}
	return nil
}

func (s *Server) createWebhook(c *call) (reply, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, aerr := s.webhookBase(c)
	if aerr != nil {
		return reply{}, aerr
	}
	var body struct {
		NotificationURL *string         `json:"notificationUrl"`
		Specification   json.RawMessage `json:"specification"`
	}
	if aerr := decodeStrict(c.body, &body); aerr != nil {
		return reply{}, aerr
	}
	sp, aerr := readHookSpec(b, body.Specification)
	if aerr != nil {
		return reply{}, aerr
	}
	if aerr := dataTypeScopes(c.tok, sp); aerr != nil {
		return reply{}, aerr
	}
	notify := ""
	if body.NotificationURL != nil {
		u, err := url.Parse(*body.NotificationURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return reply{}, errInvalidRequest(fmt.Sprintf("notificationUrl %q is not an http(s) URL", *body.NotificationURL))
		}
		notify = *body.NotificationURL
	}
	count := 0
	for _, id := range s.hooks.order {
		if s.hooks.byID[id].baseID == b.id {
			count++
		}
	}
	if count >= MaxWebhooksPerBase {
		return reply{}, errorf(http.StatusUnprocessableEntity, "TOO_MANY_WEBHOOKS_IN_BASE",
			"Cannot create webhook: base %s already has the maximum of %d webhooks; delete one first", b.id, MaxWebhooksPerBase)
	}
	secret := make([]byte, macSecretBytes)
	_, _ = rand.Read(secret)
	var compact bytes.Buffer
	_ = json.Compact(&compact, body.Specification)
	now := s.clock.Now().UTC()
	h := &webhook{id: newRandomID("ach"), baseID: b.id, macSecret: secret, specJSON: compact.Bytes(), spec: *sp,
		notifyURL: notify, notifyOn: notify != "", enabled: true, expires: now.Add(WebhookLifetime), nextCursor: 1}
	s.hooks.byID[h.id] = h
	s.hooks.order = append(s.hooks.order, h.id)
	return ok(struct {
		ID             string `json:"id"`
		MacSecret      string `json:"macSecretBase64"`
		ExpirationTime string `json:"expirationTime"`
	}{h.id, base64.StdEncoding.EncodeToString(secret), formatTime(h.expires)}), nil
}

// webhookJSON is a hook as list webhooks shows it, keys in the recorded order (webhooks §1.3).
type webhookJSON struct {
	ID                             string          `json:"id"`
	Specification                  json.RawMessage `json:"specification"`
	NotificationURL                *string         `json:"notificationUrl"`
	CursorForNextPayload           int             `json:"cursorForNextPayload"`
	LastNotificationResult         map[string]any  `json:"lastNotificationResult"`
	AreNotificationsEnabled        bool            `json:"areNotificationsEnabled"`
	LastSuccessfulNotificationTime *string         `json:"lastSuccessfulNotificationTime"`
	IsHookEnabled                  bool            `json:"isHookEnabled"`
	ExpirationTime                 string          `json:"expirationTime"`
}

func (s *Server) listWebhooks(c *call) (reply, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, aerr := s.webhookBase(c)
	if aerr != nil {
		return reply{}, aerr
	}
	now := s.clock.Now()
	out := []webhookJSON{}
	for _, id := range s.hooks.order {
		h := s.hooks.byID[id]
		if h.baseID != b.id {
			continue
		}
		w := webhookJSON{ID: h.id, Specification: h.specJSON, CursorForNextPayload: h.nextCursor,
			LastNotificationResult: h.lastResult, AreNotificationsEnabled: h.notifyOn,
			IsHookEnabled: h.live(now), ExpirationTime: formatTime(h.expires)}
		if h.notifyURL != "" {
			u := h.notifyURL
			w.NotificationURL = &u
		}
		if !h.lastSuccess.IsZero() {
			t := formatTime(h.lastSuccess.Truncate(time.Second)) // recorded with second precision
			w.LastSuccessfulNotificationTime = &t
		}
		out = append(out, w)
	}
	return ok(map[string]any{"webhooks": out}), nil
}

func (s *Server) deleteWebhook(c *call, h *webhook) (reply, *apiError) {
	delete(s.hooks.byID, h.id)
	s.hooks.order = slices.DeleteFunc(s.hooks.order, func(id string) bool { return id == h.id })
	return ok(map[string]any{}), nil
}

func (s *Server) refreshWebhook(c *call, h *webhook) (reply, *apiError) {
	now := s.clock.Now().UTC()
	if !h.live(now) {
		return reply{}, errInvalidRequest(fmt.Sprintf("webhook %s is expired or disabled and cannot be refreshed; create a new one", h.id))
	}
	h.expires = now.Add(WebhookLifetime)
	return ok(map[string]any{"expirationTime": formatTime(h.expires)}), nil
}

func (s *Server) enableWebhookNotifications(c *call, h *webhook) (reply, *apiError) {
	var body struct {
		Enable *bool `json:"enable"`
	}
	if aerr := decodeStrict(c.body, &body); aerr != nil {
		return reply{}, aerr
	}
	if body.Enable == nil {
		return reply{}, errInvalidRequest("the body needs \"enable\": true or false")
	}
	if *body.Enable && h.notifyURL == "" {
		return reply{}, errInvalidRequest(fmt.Sprintf("webhook %s has no notificationUrl to notify; create a hook with one", h.id))
	}
	h.notifyOn = *body.Enable
	return ok(map[string]any{}), nil
}

// payloadsAnswer is the answer of list payloads; payloadFormat is in the recorded answer though
// not in the documentation (webhooks §1.5).
type payloadsAnswer struct {
	Payloads      []json.RawMessage `json:"payloads"`
	Cursor        int               `json:"cursor"`
	MightHaveMore bool              `json:"mightHaveMore"`
	PayloadFormat string            `json:"payloadFormat"`
}

func (s *Server) listWebhookPayloads(c *call, h *webhook) (reply, *apiError) {
	if aerr := dataTypeScopes(c.tok, &h.spec); aerr != nil {
		return reply{}, aerr
	}
	q, _ := url.ParseQuery(c.r.URL.RawQuery)
	cursor, limit := 1, MaxPayloadsPerList
	if v := q.Get("cursor"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return reply{}, errInvalidRequest(fmt.Sprintf("cursor %q must be a whole number from 1", v))
		}
		cursor = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return reply{}, errInvalidRequest(fmt.Sprintf("limit %q must be a whole number from 1 to %d", v, MaxPayloadsPerList))
		}
		limit = min(n, MaxPayloadsPerList)
	}
	now := s.clock.Now().UTC()
	if h.live(now) { // reading payloads keeps an active hook alive (webhooks §1.5)
		h.expires = now.Add(WebhookLifetime)
	}
	out := payloadsAnswer{Payloads: []json.RawMessage{}, PayloadFormat: "v0"}
	i, _ := slices.BinarySearchFunc(h.payloads, cursor, func(p storedPayload, c int) int { return p.cursor - c })
	for ; i < len(h.payloads) && len(out.Payloads) < limit; i++ {
		out.Payloads = append(out.Payloads, h.payloads[i].body)
		out.Cursor = h.payloads[i].cursor + 1
	}
	out.MightHaveMore = i < len(h.payloads)
	if len(out.Payloads) == 0 {
		// Nothing at or after cursor. Below the next cursor that means the payloads there were
		// purged: answer the next cursor, so that the client sees the hole (cursor - 0 > asked).
		out.Cursor = cursor
		if cursor < h.nextCursor {
			out.Cursor = h.nextCursor
		}
	}
	return ok(out), nil
}
