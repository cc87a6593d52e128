package airsql

import (
	"fmt"
	"regexp"
	"strings"
)

// A token written without its '@' (airtable://TOKEN/appX), or with a '/', '?' or '#' left
// unencoded in it, lands in the host or the path of the DSN. Such a host is refused before any
// request (with TLS the token would otherwise go out as a DNS lookup), and no message ever quotes
// a host or path segment that could be a token.

// tokenShapes are what access tokens look like (reference §Authentication): a personal access
// token is pat + 14 letters and digits, '.', and a 64-hex-digit secret; a legacy API key is
// key + 14 letters and digits. Host names are written in lower case, so pat/key followed by an
// upper-case letter is a token too (the emulator's patEMULATOR.default), and so is any long run
// of hex digits (the secret half alone).
var tokenShapes = []*regexp.Regexp{
	regexp.MustCompile(`(^|[^A-Za-z0-9])(pat|key)[A-Za-z0-9]{14}([^A-Za-z0-9]|$)`),
	regexp.MustCompile(`(^|[^A-Za-z0-9])(pat|key)[a-z0-9]*[A-Z]`),
	regexp.MustCompile(`[0-9A-Fa-f]{32,}`),
}

// mayBeToken reports whether s could be (part of) an access token.
func mayBeToken(s string) bool {
	for _, re := range tokenShapes {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// quoteUnlessSecret quotes s for a message, unless it could be an access token or holds an '@'
// (the remains of a token cut by a '/'): then it says only that it is not shown.
func quoteUnlessSecret(s string) string {
	if mayBeToken(s) || strings.Contains(s, "@") {
		return "(not shown: it may hold the access token)"
	}
	return fmt.Sprintf("%q", s)
}

// errTokenAsHost is the refusal of a host that looks like an access token.
var errTokenAsHost = &DSNError{Msg: "host looks like an access token (not shown): the token goes before an @, as in " +
	"airtable://TOKEN@/appXXXXXXXXXXXXXX (or leave it out and set AIRTABLE_TOKEN); percent-encode any '/', '?', '#' or '@' in it"}

// errTokenStructure is the refusal of a DSN whose token holds an unencoded '/', '?' or '#'.
var errTokenStructure = &DSNError{Msg: "has an '@' after a '/', '?' or '#': a token holding one of those must be " +
	"percent-encoded (%2F, %3F, %23), as in airtable://TOKEN@/appXXXXXXXXXXXXXX, or left out of the DSN and set in AIRTABLE_TOKEN"}

// checkTokenPlacement refuses a DSN (after its scheme) whose last '@' comes after the first '/',
// '?' or '#': a token with one of those unencoded, whose tail would be read as path or parameters.
func checkTokenPlacement(rest string) error {
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return nil
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 && i < at {
		return errTokenStructure
	}
	return nil
}
