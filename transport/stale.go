package transport

import (
	"errors"
	"strings"
	"time"
)

// A cached base schema goes stale when a field is renamed or deleted: the next request naming it
// is refused as an unknown field. transport notes the time of such an answer per base, so that
// whoever caches the schema (the driver) knows to fetch it again.

// isUnknownField reports whether the service refused a request for naming a field it does not
// know: UNKNOWN_FIELD_NAME (fields[], sort, write bodies), or a formula naming one
// (INVALID_FILTER_BY_FORMULA "… Unknown field names: …").
func isUnknownField(err error) bool {
	var ae *APIError
	if !errors.As(err, &ae) {
		return false
	}
	return ae.Type == "UNKNOWN_FIELD_NAME" ||
		ae.Type == ErrInvalidFormula.Type && strings.Contains(strings.ToLower(ae.Message), "unknown field name")
}

// noteAnswer records an unknown-field refusal for the base.
func (c *core) noteAnswer(base string, err error) {
	if base == "" || !isUnknownField(err) {
		return
	}
	p := c.pacerFor(base)
	p.mu.Lock()
	p.unknownFieldAt = c.clock.Now()
	p.mu.Unlock()
}

// LastUnknownField returns when (on the client's clock) a request to this base through this
// server was last refused for naming an unknown field; the zero time if never. A schema cached
// before then is stale.
func (b *Base) LastUnknownField() time.Time {
	p := b.c.pacerFor(b.id)
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unknownFieldAt
}
