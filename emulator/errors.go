package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// apiError is an error answer: status and the JSON body the service sends. Handlers return it;
// the adapter in routes.go writes it.
type apiError struct {
	status int
	typ    string
	msg    string
	// legacyString writes the 2017-era body {"error":"TYPE"} instead of an object.
	legacyString bool
	// noMessage leaves "message" out, as the service does for NOT_FOUND and expired iterators.
	noMessage bool
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.status, e.typ, e.msg) }

func (e *apiError) body() []byte {
	var v any
	switch {
	case e.legacyString:
		v = map[string]any{"error": e.typ}
	case e.noMessage:
		v = map[string]any{"error": map[string]any{"type": e.typ}}
	default:
		v = map[string]any{"error": map[string]any{"type": e.typ, "message": e.msg}}
	}
	b, _ := json.Marshal(v)
	return b
}

func errorf(status int, typ, format string, args ...any) *apiError {
	return &apiError{status: status, typ: typ, msg: fmt.Sprintf(format, args...)}
}

// The catalogue of reference §2.2.

func errAuthRequired() *apiError {
	return errorf(http.StatusUnauthorized, "AUTHENTICATION_REQUIRED", "Authentication required")
}

const msgNotFound = "Invalid permissions, or the requested model was not found. Check that both your user and your token have the required permissions, and that the model names and/or ids are correct."

func errForbidden() *apiError {
	return errorf(http.StatusForbidden, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND", "%s", msgNotFound)
}

func errRouteNotFound() *apiError {
	return &apiError{status: http.StatusNotFound, typ: "NOT_FOUND", legacyString: true}
}

func errInvalidRequest(detail string) *apiError {
	return errorf(http.StatusUnprocessableEntity, "INVALID_REQUEST_UNKNOWN",
		"Invalid request: parameter validation failed. Check your request data. (%s)", detail)
}

func errBadJSON(err error) *apiError {
	return errorf(http.StatusBadRequest, "INVALID_REQUEST_BODY",
		"The request encoding is invalid; the request can't be parsed as a valid JSON. (%v)", err)
}

// errDecode answers a body that json.Unmarshal refused. Only a body that is not JSON at all is the
// 400 of reference §2.2; valid JSON with a value of the wrong type ("typecast": "yes",
// "fields": []) is a parameter that fails validation, the generic 422.
func errDecode(err error) *apiError {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		where := typeErr.Field
		if where == "" {
			where = "the body"
		}
		return errInvalidRequest(fmt.Sprintf("%s must not be a JSON %s", where, typeErr.Value))
	}
	return errBadJSON(err)
}

func errUnknownField(name string) *apiError {
	return errorf(http.StatusUnprocessableEntity, "UNKNOWN_FIELD_NAME", "Unknown field name: %q", name)
}

func errInvalidValue(format string, args ...any) *apiError {
	return errorf(http.StatusUnprocessableEntity, "INVALID_VALUE_FOR_COLUMN", format, args...)
}

func errComputed(name string) *apiError {
	return errInvalidValue("Field %q cannot accept a value because the field is computed", name)
}

func errCannotAccept(name string) *apiError {
	return errInvalidValue("Field %q cannot accept the provided value", name)
}

func errIteratorGone() *apiError {
	return &apiError{status: http.StatusUnprocessableEntity, typ: "LIST_RECORDS_ITERATOR_NOT_AVAILABLE", noMessage: true}
}

func errTooManyRecords(verb string, n int) *apiError {
	return errorf(http.StatusUnprocessableEntity, "INVALID_RECORDS",
		"A maximum of %d records can be %s per request but you have provided %d.", MaxRecordsPerWrite, verb, n)
}

func errFormula(detail string) *apiError {
	return errorf(http.StatusUnprocessableEntity, "INVALID_FILTER_BY_FORMULA", "The formula for filtering records is invalid: %s", detail)
}

func errRateLimited() *apiError {
	return errorf(http.StatusTooManyRequests, "RATE_LIMIT_REACHED", "Rate limit exceeded. Please try again later")
}
