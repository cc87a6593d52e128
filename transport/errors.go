package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// APIError is an error response of the service, kept as the service sent it.
//
// The body may carry the error as an object ({"error":{"type":…,"message":…}}), as a legacy string
// ({"error":"NOT_FOUND"}), without a message, or not be JSON at all; Type and Message are then
// whatever was there (Message holds the start of a non-JSON body, Type stays empty).
type APIError struct {
	StatusCode int    // HTTP status, e.g. 422
	Type       string // Airtable's error type, e.g. "INVALID_FILTER_BY_FORMULA"; "" when the body had none
	Message    string // Airtable's message, "" when the body had none
}

// Sentinel APIErrors for errors.Is; they match any *APIError of the same Type.
var (
	ErrRateLimited            = &APIError{StatusCode: 429, Type: "RATE_LIMIT_REACHED"}
	ErrNotFound               = &APIError{StatusCode: 404, Type: "NOT_FOUND"}
	ErrModelNotFound          = &APIError{StatusCode: 404, Type: "MODEL_ID_NOT_FOUND"}
	ErrAuthenticationRequired = &APIError{StatusCode: 401, Type: "AUTHENTICATION_REQUIRED"}
	ErrPermissionsOrNotFound  = &APIError{StatusCode: 403, Type: "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND"}
	ErrInvalidFormula         = &APIError{StatusCode: 422, Type: "INVALID_FILTER_BY_FORMULA"}
	ErrIteratorExpired        = &APIError{StatusCode: 422, Type: "LIST_RECORDS_ITERATOR_NOT_AVAILABLE"}
)

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "airtable: HTTP %d", e.StatusCode)
	if e.Type != "" {
		b.WriteString(" ")
		b.WriteString(e.Type)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.StatusCode == 429 && e.Type != billingLimitType {
		b.WriteString(" (the service refuses requests to this base for 30 s; requests are held until then)")
	}
	return b.String()
}

// Is reports whether target is an *APIError of the same Type (or, when the target has no Type, of
// the same StatusCode), so that errors.Is(err, transport.ErrNotFound) works on wrapped errors.
func (e *APIError) Is(target error) bool {
	t, ok := target.(*APIError)
	if !ok {
		return false
	}
	if t.Type == "" {
		return t.StatusCode == e.StatusCode
	}
	return t.Type == e.Type
}

// billingLimitType is the 429 of a spent monthly quota: retrying it only burns time.
const billingLimitType = "PUBLIC_API_BILLING_LIMIT_EXCEEDED"

// maxErrorBodyInMessage bounds how much of a non-JSON error body goes into an APIError.
const maxErrorBodyInMessage = 512

// parseAPIError reads an error body in any of the shapes the service uses.
func parseAPIError(status int, body []byte) *APIError {
	e := &APIError{StatusCode: status}
	var envelope struct {
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &envelope); err != nil || len(envelope.Error) == 0 {
		e.Message = bodyExcerpt(body)
		return e
	}
	var asString string
	if err := json.Unmarshal(envelope.Error, &asString); err == nil {
		e.Type = asString
		return e
	}
	var asObject struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(envelope.Error, &asObject); err == nil {
		e.Type, e.Message = asObject.Type, asObject.Message
		return e
	}
	e.Message = bodyExcerpt(body)
	return e
}

func bodyExcerpt(body []byte) string {
	s := strings.TrimSpace(string(body))
	if len(s) > maxErrorBodyInMessage {
		cut := maxErrorBodyInMessage
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// ErrInvalidOption is wrapped by every error about an argument refused before any request is sent.
var ErrInvalidOption = errors.New("invalid option")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidOption}, args...)...)
}

// ErrConnectTimeout and ErrReadTimeout are wrapped by the errors of requests that ran out of the
// limits given with WithTimeout.
var (
	ErrConnectTimeout = errors.New("connect timeout")
	ErrReadTimeout    = errors.New("read timeout")
)

// BatchError is returned by the Batch* operations when some chunks of 10 were written and another
// failed. The operation also returns the records that were written, in input order; Written gives
// their positions in the input.
type BatchError struct {
	Op    string // "batch create", "batch update", "batch upsert", "batch delete"
	Table string

	Written []int          // input indexes of the records written (their chunks succeeded)
	Records []Record       // the written records as the service returned them (not for delete)
	Deleted []DeleteResult // the deletions done (batch delete only)
	// Uncertain lists input indexes whose request failed after it may have reached the service
	// (a 5xx or a network error on a write that cannot be repeated safely, or any failure of a
	// retry after such a try — see EarlierTryError): they may or may not have been written.
	// Every other index outside Written was not written.
	Uncertain []int
	Err       error // the failure of the first chunk that failed, in input order
}

func (e *BatchError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "airtable: %s in table %q: %d record(s) written (%s)", e.Op, e.Table, len(e.Written), ranges(e.Written))
	if len(e.Uncertain) > 0 {
		fmt.Fprintf(&b, ", %d may or may not have been written (%s)", len(e.Uncertain), ranges(e.Uncertain))
	}
	fmt.Fprintf(&b, "; stopped on: %v", e.Err)
	return b.String()
}

func (e *BatchError) Unwrap() error { return e.Err }

// ranges writes sorted indexes compactly: "0-9, 20-29".
func ranges(idx []int) string {
	if len(idx) == 0 {
		return "none"
	}
	var parts []string
	start := idx[0]
	for i := 1; i <= len(idx); i++ {
		if i < len(idx) && idx[i] == idx[i-1]+1 {
			continue
		}
		if start == idx[i-1] {
			parts = append(parts, fmt.Sprintf("index %d", start))
		} else {
			parts = append(parts, fmt.Sprintf("indexes %d-%d", start, idx[i-1]))
		}
		if i < len(idx) {
			start = idx[i]
		}
	}
	return strings.Join(parts, ", ")
}
