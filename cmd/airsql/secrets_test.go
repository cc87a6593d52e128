package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const secretToken = "patAbCdEfGhIjKlMn.0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// TestShellNeverPrintsTheToken runs the shell with the token misplaced in the DSN, in the
// environment, and against a server that echoes the request (headers and all) in its answers,
// and checks everything the shell writes.
func TestShellNeverPrintsTheToken(t *testing.T) {
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status := 200
		if strings.Contains(r.URL.Path, "Tasks") {
			status = 500
		}
		w.WriteHeader(status)
		fmt.Fprintf(w, "<pre>%s %s\nAuthorization: %s</pre>", r.Method, r.URL, r.Header.Get("Authorization"))
	}))
	defer echo.Close()
	host := strings.TrimPrefix(echo.URL, "http://")
	plain := "plainsecret0042" // a token of no known shape: the shell alone must hide it
	cases := []struct {
		env  map[string]string
		args []string
	}{
		{nil, []string{"-dsn", "airtable://" + secretToken + "/appAAAAAAAAAAAAAA?tls=false", "SELECT 1"}},
		{nil, []string{"-dsn", "airtable://" + secretToken + "/appAAAAAAAAAAAAAA", "SELECT * FROM Tasks"}},
		{nil, []string{"-dsn", "airtable://" + secretToken[:25] + "/" + secretToken[25:] + "@/appAAAAAAAAAAAAAA", "SELECT 1"}},
		{nil, []string{"-dsn", "airtable://" + plain + "/appAAAAAAAAAAAAAA?tls=false", "SELECT 1"}},
		{nil, []string{"-dsn", "airtable://localhost/" + plain + "?tls=false", "SELECT 1"}},
		{map[string]string{"AIRTABLE_DSN": "airtable://" + secretToken + "/appAAAAAAAAAAAAAA?tls=false"}, []string{"SELECT 1"}},
		{nil, []string{"-dsn", "airtable://" + secretToken + "@" + host + "/appAAAAAAAAAAAAAA?tls=false&retries=0", "SELECT * FROM Tasks"}},
		{nil, []string{"-dsn", "airtable://" + secretToken + "@" + host + "/appAAAAAAAAAAAAAA?tls=false&retries=0", "SHOW TABLES"}},
		{map[string]string{"AIRTABLE_TOKEN": plain}, []string{"-dsn", "airtable://" + host + "/appAAAAAAAAAAAAAA?tls=false&retries=0", "SELECT * FROM Tasks"}},
	}
	for _, c := range cases {
		code, out, errOut := runShell(t, "", c.env, c.args...)
		if code == 0 {
			t.Errorf("%q: exit 0, want a failure", c.args)
		}
		all := out + errOut
		for _, piece := range []string{secretToken, "patAbCdEfGhIjKlMn", "0123456789abcdef0123456789abcdef", plain} {
			if strings.Contains(all, piece) {
				t.Errorf("%q: the output shows (part of) the token:\n%s", c.args, all)
				break
			}
		}
		if errOut == "" {
			t.Errorf("%q: nothing on stderr", c.args)
		}
	}
}
