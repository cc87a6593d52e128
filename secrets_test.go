package airsql

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/transport"
)

// secretToken has the shape of a personal access token: pat + 14 characters, '.', 64 hex digits.
const secretToken = "patAbCdEfGhIjKlMn.0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// secretPieces are parts of secretToken that must not appear either (a cut excerpt, a tail).
var secretPieces = []string{secretToken, "patAbCdEfGhIjKlMn", "0123456789abcdef0123456789abcdef", "456789abcdef0123456789abcdef"}

func assertNoSecret(t *testing.T, what, text string) {
	t.Helper()
	for _, p := range secretPieces {
		if strings.Contains(text, p) {
			t.Errorf("%s shows (part of) the token: %s", what, text)
			return
		}
	}
}

// errorForms is every way a caller may print an error.
func errorForms(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprintf("%v\n%+v\n%s\n%#v\n%q", err, err, err, err, err)
}

// TestTokenNeverInDSNErrors writes the token where a DSN does not expect it (the '@' missing, a
// '/', '?' or '#' left unencoded, in the base or a parameter) and checks every error and every
// printing of the Config.
func TestTokenNeverInDSNErrors(t *testing.T) {
	tok := secretToken
	half := tok[:30] + "/" + tok[30:]
	for _, dsn := range []string{
		"airtable://" + tok + "/appAAAAAAAAAAAAAA?tls=false",
		"airtable://" + tok + "/appAAAAAAAAAAAAAA",
		"airtable://" + tok + ":443/appAAAAAAAAAAAAAA",
		"airtable://" + tok + ":x/appAAAAAAAAAAAAAA",
		"airtable://" + half + "@/appAAAAAAAAAAAAAA",
		"airtable://" + half + "@localhost/appAAAAAAAAAAAAAA?tls=false",
		"airtable://" + tok[:20] + "?" + tok[20:] + "@/appAAAAAAAAAAAAAA",
		"airtable://" + tok[:20] + "#" + tok[20:] + "@/appAAAAAAAAAAAAAA",
		"airtable:///" + tok,
		"airtable://localhost/" + tok + "?tls=false",
		"airtable://localhost/appAAAAAAAAAAAAAA?" + tok + "=1",
		"airtable://localhost/appAAAAAAAAAAAAAA?tls=" + tok,
		"airtable://" + tok + "@example.com/appAAAAAAAAAAAAAA?tls=false",
		"airtable://" + tok + "@/appAAAAAAAAAAAAAA?pageSize=0",
		"airtable://" + tok + "@[::1/appAAAAAAAAAAAAAA",
		"airtable:" + tok,
	} {
		cfg, err := ParseDSN(dsn)
		assertNoSecret(t, "ParseDSN error", errorForms(err))
		if err == nil {
			assertNoSecret(t, "Config", fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg.String()))
			_, err := NewConnector(cfg)
			assertNoSecret(t, "NewConnector error", errorForms(err))
		}
		if strings.HasPrefix(dsn, "airtable://"+tok+"/") || strings.HasPrefix(dsn, "airtable://"+tok+":") {
			if err == nil || !strings.Contains(err.Error(), "looks like an access token") || !strings.Contains(err.Error(), "TOKEN@") {
				t.Errorf("ParseDSN(token as host) = %v: want a refusal that says where the token goes", err)
			}
		}
		_, err = sql.Open("airtable", dsn)
		assertNoSecret(t, "sql.Open error", errorForms(err))
	}
	// A Config built in code with the token as its host.
	cfg := NewConfig()
	cfg.Host, cfg.BaseID, cfg.TLS = tok, "appAAAAAAAAAAAAAA", false
	assertNoSecret(t, "Config", fmt.Sprintf("%v %+v %#v %s", cfg, *cfg, cfg, cfg.String()))
	_, err := NewConnector(cfg)
	assertNoSecret(t, "NewConnector error", errorForms(err))
	if err == nil {
		t.Errorf("NewConnector(token as host) succeeded")
	}
	cfg.Host, cfg.BaseID = "localhost", tok
	assertNoSecret(t, "Config", fmt.Sprintf("%v %+v %#v %s", cfg, *cfg, cfg, cfg.String()))
}

// serveSchema answers the base schema request with one table, Tasks; it reports whether r was one.
func serveSchema(w http.ResponseWriter, r *http.Request) bool {
	if !strings.HasPrefix(r.URL.Path, "/v0/meta/") {
		return false
	}
	fmt.Fprint(w, `{"tables":[{"id":"tblTASKS000000001","name":"Tasks","primaryFieldId":"fldNAME0000000001",`+
		`"fields":[{"id":"fldNAME0000000001","name":"Name","type":"singleLineText"}],"views":[]}]}`)
	return true
}

// TestTokenNeverInAnswerErrors runs statements against servers that echo the request (headers
// and all) in every kind of answer: 200 with a body that is not JSON, error statuses with JSON
// and non-JSON bodies, the token placed past the length at which an excerpt is cut.
func TestTokenNeverInAnswerErrors(t *testing.T) {
	echo := func(r *http.Request) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s\n", r.Method, r.URL)
		for k, v := range r.Header {
			fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(v, ","))
		}
		return b.String()
	}
	type answer func(w http.ResponseWriter, r *http.Request)
	answers := map[string]answer{
		"200 html": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><body><pre>%s</pre></body></html>", echo(r))
		},
		"200 echo after 500 bytes": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "%s%s", strings.Repeat("x", 490), echo(r))
		},
		"200 json echo": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"records": "%s"}`, strings.ReplaceAll(echo(r), "\n", " "))
		},
		"401 text": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(401)
			fmt.Fprint(w, echo(r))
		},
		"422 json message": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(422)
			fmt.Fprintf(w, `{"error":{"type":"%s","message":"%s"}}`, r.Header.Get("Authorization"), strings.ReplaceAll(echo(r), "\n", " "))
		},
		"404 legacy string": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(404)
			fmt.Fprintf(w, `{"error":"%s"}`, r.Header.Get("Authorization"))
		},
		"500 cut": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(500)
			fmt.Fprintf(w, "%s%s", strings.Repeat("y", 500), echo(r))
		},
		"200 record id echo": func(w http.ResponseWriter, r *http.Request) {
			if serveSchema(w, r) {
				return
			}
			fmt.Fprintf(w, `{"records":[{"id":"%s","createdTime":"2024-01-01T00:00:00.000Z","fields":"x"}]}`, r.Header.Get("Authorization"))
		},
		"200 offset echo": func(w http.ResponseWriter, r *http.Request) {
			if serveSchema(w, r) {
				return
			}
			fmt.Fprintf(w, `{"records":[],"offset":"%s"}`, r.Header.Get("Authorization"))
		},
		"429 echo": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(429)
			fmt.Fprint(w, echo(r))
		},
	}
	statements := []string{
		"SELECT * FROM Tasks",
		"INSERT INTO Tasks (Name) VALUES ('a')",
		"UPDATE Tasks SET Name = 'b' WHERE Name = 'a'",
		"DELETE FROM Tasks WHERE Name = 'a'",
		"SHOW TABLES",
	}
	for name, ans := range answers {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(ans)) // 127.0.0.1 only
			defer srv.Close()
			host := strings.TrimPrefix(srv.URL, "http://")
			cfg, err := ParseDSN("airtable://" + secretToken + "@" + host + "/appAAAAAAAAAAAAAA?tls=false&retries=2&readTimeout=0&connectTimeout=0")
			if err != nil {
				t.Fatal(err)
			}
			// A jump clock: the 429's penalty and the retries' backoff cost no time.
			c, err := newConnector(cfg, transport.WithClock(clock.NewJump(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))))
			if err != nil {
				t.Fatal(err)
			}
			db := sql.OpenDB(c)
			defer db.Close()
			ctx := context.Background()
			assertNoSecret(t, "Ping", errorForms(db.PingContext(ctx)))
			for _, q := range statements {
				rows, err := db.QueryContext(ctx, q)
				if err == nil {
					for rows.Next() {
					}
					err = rows.Err()
					rows.Close()
				}
				if err == nil && !strings.HasPrefix(name, "200 ") {
					t.Errorf("%s: no error against a server answering %s", q, name)
				}
				assertNoSecret(t, q, errorForms(err))
				_, err = db.ExecContext(ctx, q)
				assertNoSecret(t, q, errorForms(err))
			}
		})
	}
}

// FuzzDSNNeverShowsToken places a personal access token anywhere in a DSN (with random text
// around it) and checks that no error and no printing of the Config shows it.
func FuzzDSNNeverShowsToken(f *testing.F) {
	for _, s := range []string{"", "/", "@", "?", "#", ":", "/app", "@/appA", "?tls=false", "/x@"} {
		f.Add(uint8(0), s, s)
		f.Add(uint8(3), s, "/appAAAAAAAAAAAAAA")
	}
	f.Fuzz(func(t *testing.T, where uint8, before, after string) {
		tok := secretToken
		var dsn string
		switch where % 6 {
		case 0:
			dsn = "airtable://" + before + tok + after
		case 1:
			dsn = "airtable://" + before + "/" + tok + after
		case 2:
			dsn = "airtable://localhost/app" + before + "?" + tok + after
		case 3:
			dsn = "airtable://" + tok[:20] + before + tok[20:] + after
		case 4:
			dsn = "airtable://localhost/app?tls=" + before + tok + after
		default:
			dsn = before + tok + after
		}
		cfg, err := ParseDSN(dsn)
		if err != nil {
			for _, p := range secretPieces {
				if strings.Contains(errorForms(err), p) && !strings.Contains(before+after, p) {
					t.Fatalf("ParseDSN(%q): %v", dsn, err)
				}
			}
			return
		}
		shown := fmt.Sprintf("%v %+v %#v", cfg, *cfg, cfg)
		for _, p := range secretPieces {
			if strings.Contains(shown, p) && !strings.Contains(before+after, p) {
				t.Fatalf("ParseDSN(%q) = %s", dsn, shown)
			}
		}
	})
}
