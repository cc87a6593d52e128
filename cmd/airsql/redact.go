package main

import (
	"io"
	"net"
	"net/url"
	"strings"
)

// The shell knows secrets the driver never sees together: the raw DSN (whose token may sit where
// the host or base belongs when its '@' is missing or mangled) and the token variables. Whatever
// it writes to stderr goes through a redactingWriter, so that no error it prints, from any layer,
// can show them.

// minSecretLen keeps short pieces (a one-letter host) from being taken for a secret.
const minSecretLen = 6

// secretsOf returns the pieces of the DSN and of the environment that may hold a token: the
// token variables, and in the DSN everything between the scheme and the last '@' (the token),
// or, with no '@', the host and each path segment (a token that lost its '@').
func secretsOf(dsn string, getenv func(string) string) []string {
	var out []string
	add := func(s string) {
		if len(s) < minSecretLen {
			return
		}
		out = append(out, s)
		if u, err := url.PathUnescape(s); err == nil && u != s && len(u) >= minSecretLen {
			out = append(out, u)
		}
	}
	for _, name := range []string{"AIRTABLE_TOKEN", "AIRTABLE_API_KEY"} {
		add(getenv(name))
	}
	rest, ok := strings.CutPrefix(dsn, "airtable://")
	if !ok {
		add(dsn)
		return out
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		add(rest[:at])
		for _, part := range strings.FieldsFunc(rest[:at], func(r rune) bool { return r == '/' || r == '?' || r == '#' }) {
			add(part)
		}
		return out
	}
	rest, _, _ = strings.Cut(rest, "?")
	for _, part := range strings.Split(rest, "/") {
		if !looksLikeBaseOrHost(part) {
			add(part)
		}
	}
	return out
}

// looksLikeBaseOrHost tells the ordinary parts of a DSN (a base id app…, a loopback or dotted
// lower-case host name) from what could be a token, so that error messages may still show them.
func looksLikeBaseOrHost(s string) bool {
	if strings.HasPrefix(s, "app") && len(s) == 17 {
		return true
	}
	if strings.HasPrefix(s, "pat") || strings.HasPrefix(s, "key") || s != strings.ToLower(s) {
		return false
	}
	host := s
	if h, _, err := net.SplitHostPort(s); err == nil {
		host = h
	}
	return host == "localhost" || strings.Contains(host, ".") || strings.HasPrefix(host, "[")
}

// redactingWriter replaces every secret in what is written with [redacted]. Writers of the shell
// write whole lines, so a secret is never split across two writes.
type redactingWriter struct {
	w       io.Writer
	secrets []string
}

func newRedactingWriter(w io.Writer, secrets []string) io.Writer {
	if len(secrets) == 0 {
		return w
	}
	return &redactingWriter{w: w, secrets: secrets}
}

func (r *redactingWriter) Write(p []byte) (int, error) {
	s := string(p)
	changed := false
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, "[redacted]")
			changed = true
		}
	}
	if !changed {
		return r.w.Write(p)
	}
	if _, err := io.WriteString(r.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}
