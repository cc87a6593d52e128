package emulator

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// Scopes of reference §1.1.
const (
	scopeRecordsRead  = "data.records:read"
	scopeRecordsWrite = "data.records:write"
	scopeSchemaRead   = "schema.bases:read"
)

var allScopes = []string{
	scopeRecordsRead, scopeRecordsWrite, "data.recordComments:read", "data.recordComments:write",
	scopeSchemaRead, "schema.bases:write", "webhook:manage", "block:manage", "user.email:read",
}

var knownScope = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range allScopes {
		m[s] = true
	}
	return m
}()

// token is an access token: the bases it reaches and its scopes. Its secret is never logged.
type token struct {
	secret string
	bases  map[string]bool
	scopes map[string]bool
	userID string
	email  string
}

// addTokenLocked adds a token, or widens an existing one with more bases and scopes.
func (s *Server) addTokenLocked(ft FixtureToken) {
	t := s.tokens[ft.Token]
	if t == nil {
		t = &token{secret: ft.Token, bases: map[string]bool{}, scopes: map[string]bool{},
			userID: ft.UserID, email: ft.Email}
		if t.userID == "" {
			t.userID = derivedID("usr", "token/"+ft.Token)
		}
		s.tokens[ft.Token] = t
	}
	for _, b := range ft.Bases {
		t.bases[b] = true
	}
	for _, sc := range ft.Scopes {
		t.scopes[sc] = true
	}
}

// authenticate finds the request's token: "Authorization: Bearer <token>" only (reference §1.1:
// the api_key query parameter is not supported).
func (s *Server) authenticate(r *http.Request) (*token, *apiError) {
	h := r.Header.Get("Authorization")
	const prefix = "Bearer "
	if len(h) <= len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return nil, errAuthRequired()
	}
	secret := strings.TrimSpace(h[len(prefix):])
	s.mu.RLock()
	defer s.mu.RUnlock()
	for key, t := range s.tokens {
		if subtle.ConstantTimeCompare([]byte(key), []byte(secret)) == 1 {
			return t, nil
		}
	}
	return nil, errAuthRequired()
}
