package airsql

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// withDefaults returns NewConfig() changed by f: the expected Config of a test case.
func withDefaults(f func(c *Config)) *Config {
	c := NewConfig()
	f(c)
	return c
}

// dsnCases feeds the parse test, the parse→format→parse test and the fuzz seeds.
var dsnCases = []struct {
	dsn    string
	want   *Config
	format string // FormatDSN of want when it differs from dsn ("" means dsn itself)
}{
	{dsn: "airtable://patABC.def@/appAAAAAAAAAAAAAA",
		want: withDefaults(func(c *Config) { c.Token = "patABC.def"; c.BaseID = "appAAAAAAAAAAAAAA" })},
	{dsn: "airtable:///appAAAAAAAAAAAAAA",
		want: withDefaults(func(c *Config) { c.BaseID = "appAAAAAAAAAAAAAA" })},
	{dsn: "airtable://api.airtable.com/appB", format: "airtable:///appB",
		want: withDefaults(func(c *Config) { c.BaseID = "appB" })},
	{dsn: "airtable://tok@localhost:8080/appC?tls=false",
		want: withDefaults(func(c *Config) { c.Token = "tok"; c.Host = "localhost:8080"; c.BaseID = "appC"; c.TLS = false })},
	{dsn: "airtable://tok@[::1]:8080/appC?tls=false",
		want: withDefaults(func(c *Config) { c.Token = "tok"; c.Host = "[::1]:8080"; c.BaseID = "appC"; c.TLS = false })},
	{dsn: "airtable://tok@127.0.0.1/appC?tls=false",
		want: withDefaults(func(c *Config) { c.Token = "tok"; c.Host = "127.0.0.1"; c.BaseID = "appC"; c.TLS = false })},
	{dsn: "airtable://tok@emu.localhost:9/appC?tls=false",
		want: withDefaults(func(c *Config) { c.Token = "tok"; c.Host = "emu.localhost:9"; c.BaseID = "appC"; c.TLS = false })},
	{dsn: "airtable://tok@airtable.emulator/appC?tls=false&allowInsecure=true",
		want: withDefaults(func(c *Config) {
			c.Token = "tok"
			c.Host = "airtable.emulator"
			c.BaseID = "appC"
			c.TLS = false
			c.AllowInsecure = true
		})},
	{dsn: "airtable://proxy.example.com:8443/appD",
		want: withDefaults(func(c *Config) { c.Host = "proxy.example.com:8443"; c.BaseID = "appD" })},
	{dsn: "airtable:///appE?connectTimeout=1s&readTimeout=1m30s&retries=0&typecast=true&pageSize=10&schemaTTL=0s",
		want: withDefaults(func(c *Config) {
			c.BaseID = "appE"
			c.ConnectTimeout = time.Second
			c.ReadTimeout = 90 * time.Second
			c.Retries = 0
			c.Typecast = true
			c.PageSize = 10
			c.SchemaTTL = 0
		})},
	// Keys in another order, and a default written out, come back in the fixed order without it.
	{dsn: "airtable:///appF?typecast=1&retries=5&tls=true", format: "airtable:///appF?typecast=true",
		want: withDefaults(func(c *Config) { c.BaseID = "appF"; c.Typecast = true })},
	// A token with characters that mean something in a DSN is percent-encoded.
	{dsn: "airtable://p%40t%2Fx%3Fy%25z@/appG",
		want: withDefaults(func(c *Config) { c.Token = "p@t/x?y%z"; c.BaseID = "appG" })},
	{dsn: "airtable://a@b@/appH", format: "airtable://a%40b@/appH",
		want: withDefaults(func(c *Config) { c.Token = "a@b"; c.BaseID = "appH" })},
	{dsn: "airtable:///appI?replica=memory&freshness=30s",
		want: withDefaults(func(c *Config) { c.BaseID = "appI"; c.Replica = "memory"; c.Freshness = 30 * time.Second })},
	{dsn: "airtable:///appJ?freshness=5s&replica=%2Fvar%2Flib%2Fairsql", format: "airtable:///appJ?replica=%2Fvar%2Flib%2Fairsql",
		want: withDefaults(func(c *Config) { c.BaseID = "appJ"; c.Replica = "/var/lib/airsql" })},
	{dsn: "airtable:///appK?bases=appL%2CappM",
		want: withDefaults(func(c *Config) { c.BaseID = "appK"; c.Bases = []string{"appL", "appM"} })},
	{dsn: "airtable:///appK?bases=", format: "airtable:///appK", want: withDefaults(func(c *Config) { c.BaseID = "appK" })},
}

func TestParseDSN(t *testing.T) {
	for _, tc := range dsnCases {
		t.Run(tc.dsn, func(t *testing.T) {
			got, err := ParseDSN(tc.dsn)
			if err != nil {
				t.Fatalf("ParseDSN: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %#v\nwant %#v", *got, *tc.want)
			}
		})
	}
}

func TestFormatDSNRoundTrip(t *testing.T) {
	for _, tc := range dsnCases {
		t.Run(tc.dsn, func(t *testing.T) {
			cfg, err := ParseDSN(tc.dsn)
			if err != nil {
				t.Fatalf("ParseDSN: %v", err)
			}
			want := tc.format
			if want == "" {
				want = tc.dsn
			}
			formatted := cfg.FormatDSN()
			if formatted != want {
				t.Errorf("FormatDSN = %q, want %q", formatted, want)
			}
			again, err := ParseDSN(formatted)
			if err != nil {
				t.Fatalf("ParseDSN(FormatDSN) = %v", err)
			}
			if !reflect.DeepEqual(again, cfg) {
				t.Errorf("round trip changed the config:\n got  %#v\n want %#v", *again, *cfg)
			}
		})
	}
}

func TestParseDSNErrors(t *testing.T) {
	const secret = "patSECRET.0123456789abcdef"
	cases := []struct {
		dsn, wantInMsg string
	}{
		{"mysql://" + secret + "@/app", "must start with airtable://"},
		{"airtable://" + secret + "@", "has no base id"},
		{"airtable://" + secret + "@/", "base id"},
		{"airtable://" + secret + "@/a/b", "base id"},
		{"airtable://" + secret + "@/app?nope=1", `unknown parameter "nope"`},
		{"airtable://" + secret + "@/app?tls=maybe", "not a boolean"},
		{"airtable://" + secret + "@/app?tls=false&tls=false", "given twice"},
		{"airtable://" + secret + "@/app?pageSize=101", "from 1 to 100"},
		{"airtable://" + secret + "@/app?pageSize=0", "from 1 to 100"},
		{"airtable://" + secret + "@/app?retries=-1", "from 0 to 100"},
		{"airtable://" + secret + "@/app?readTimeout=-1s", "duration ≥ 0"},
		{"airtable://" + secret + "@/app?readTimeout=soon", "duration ≥ 0"},
		{"airtable://" + secret + "@/app?replica=copy", "memory or an absolute directory"},
		{"airtable://" + secret + "@/app?replica=memory&freshness=-1s", "duration ≥ 0"},
		{"airtable://" + secret + "@/app?bases=appB,,appC", "empty base id"},
		{"airtable://" + secret + "@/app?bases=appB,appB", "named twice"},
		{"airtable://" + secret + "@/app?bases=APP", "named twice"},
		{"airtable://" + secret + "@/app?bases=app%20B", "not valid"},
		{"airtable://" + secret + "@/app?bases=information_schema", "always served"},
		{"airtable://" + secret + "@host:99999/app", "invalid port"},
		{"airtable://" + secret + "@ho st/app", "not a valid HOST"},
		{"airtable://" + secret + "%zz@/app", "invalid %-escape"},
		{"airtable://@/app", "empty token"},
		{"airtable://user:" + secret + "@/app", "token alone"},
		{"airtable://" + secret + "@example.com/app?tls=false", "clear text"},
		{"airtable://" + secret + "@10.0.0.1:8080/app?tls=false", "clear text"},
		{"airtable://" + secret + "@localhost.evil.com/app?tls=false", "clear text"},
	}
	for _, tc := range cases {
		t.Run(tc.wantInMsg, func(t *testing.T) {
			_, err := ParseDSN(tc.dsn)
			if err == nil {
				t.Fatalf("ParseDSN(%q) succeeded, want an error", tc.dsn)
			}
			if !strings.Contains(err.Error(), tc.wantInMsg) {
				t.Errorf("error %q does not say %q", err, tc.wantInMsg)
			}
			if strings.Contains(err.Error(), "SECRET") {
				t.Errorf("error %q contains the token", err)
			}
			if !errIsDSN(err) {
				t.Errorf("error %T is not a DSN error", err)
			}
		})
	}
}

func TestInsecureHostError(t *testing.T) {
	_, err := ParseDSN("airtable://tok@example.com/app?tls=false")
	var ie *InsecureHostError
	if !errors.As(err, &ie) || ie.Host != "example.com" {
		t.Fatalf("got %v, want *InsecureHostError for example.com", err)
	}
	// NewConnector checks a hand-built Config the same way.
	cfg := &Config{Token: "tok", BaseID: "app"} // TLS false, default host
	if _, err := NewConnector(cfg); !errors.As(err, &ie) || ie.Host != DefaultHost {
		t.Fatalf("NewConnector(zero TLS) = %v, want *InsecureHostError for %s", err, DefaultHost)
	}
}

func TestConfigStringHidesToken(t *testing.T) {
	cfg, err := ParseDSN("airtable://patSECRET.xyz@localhost/app?tls=false&typecast=true")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{cfg.String(), fmt.Sprint(cfg), fmt.Sprintf("%v %+v %#v", cfg, cfg, cfg),
		fmt.Sprintf("%v %+v %#v %s", *cfg, *cfg, *cfg, *cfg)} {
		if strings.Contains(s, "SECRET") {
			t.Errorf("%q shows the token", s)
		}
		if !strings.Contains(s, "REDACTED") || !strings.Contains(s, "typecast=true") {
			t.Errorf("%q should show the rest of the config with the token redacted", s)
		}
	}
	if cfg.Token != "patSECRET.xyz" {
		t.Errorf("String changed the config")
	}
	// A token pasted into bases= by mistake is not shown either, and the config keeps it.
	cfg, err = ParseDSN("airtable:///app?bases=appB,patSECRETxyzABCDEFGH")
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.String(); strings.Contains(s, "SECRET") || !strings.Contains(s, "appB") {
		t.Errorf("%q shows a token written in bases, or hides the bases", s)
	}
	if cfg.Bases[1] != "patSECRETxyzABCDEFGH" {
		t.Errorf("String changed the config's bases: %q", cfg.Bases)
	}
}

func TestResolveToken(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		name, dsnToken string
		env            map[string]string
		want           string
		wantErr        error
	}{
		{"dsn wins", "patDSN", map[string]string{"AIRTABLE_TOKEN": "patENV"}, "patDSN", nil},
		{"AIRTABLE_TOKEN", "", map[string]string{"AIRTABLE_TOKEN": "patENV", "AIRTABLE_API_KEY": "keyOLD"}, "patENV", nil},
		{"AIRTABLE_API_KEY", "", map[string]string{"AIRTABLE_API_KEY": "keyOLD"}, "keyOLD", nil},
		{"none", "", nil, "", ErrNoToken},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &Config{Token: tc.dsnToken}
			got, err := cfg.resolveToken(env(tc.env))
			if got != tc.want || !errors.Is(err, tc.wantErr) {
				t.Errorf("got %q, %v; want %q, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestClone(t *testing.T) {
	cfg, _ := ParseDSN("airtable://tok@/app?typecast=true")
	cp := cfg.Clone()
	cp.Typecast = false
	cp.Token = "other"
	if !cfg.Typecast || cfg.Token != "tok" {
		t.Errorf("changing the clone changed the original: %v", cfg)
	}
}

// TestDSNKeysDocumented checks that README.md has one table row per DSN key, with its type
// and default, so that the README cannot drift from the declaration in dsnParams.
func TestDSNKeysDocumented(t *testing.T) {
	doc, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatalf("read README.md: %v", err)
	}
	for _, p := range dsnParams {
		row := fmt.Sprintf("| `%s` | %s | %s | `%s` |", p.name, p.kind, p.valid, p.dsnDefault())
		if !strings.Contains(string(doc), row) {
			t.Errorf("README.md lacks the row starting %q", row)
		}
	}
}

func FuzzParseDSN(f *testing.F) {
	for _, tc := range dsnCases {
		f.Add(tc.dsn)
	}
	f.Add("airtable://a:b@c:1/d?e=f")
	f.Add("airtable://a%3Ab@c:1/d")
	f.Add("airtable://%41@[::1/app")
	f.Fuzz(func(t *testing.T, dsn string) {
		cfg, err := ParseDSN(dsn)
		if err != nil {
			return
		}
		formatted := cfg.FormatDSN()
		again, err := ParseDSN(formatted)
		if err != nil {
			t.Fatalf("ParseDSN(%q) ok, but its FormatDSN %q fails: %v", dsn, formatted, err)
		}
		if !reflect.DeepEqual(again, cfg) {
			t.Fatalf("round trip of %q through %q changed the config:\n %#v\n %#v", dsn, formatted, *cfg, *again)
		}
		if cfg.Token != "" {
			without := cfg.Clone()
			without.Token = ""
			// The token may also occur in the host or base (e.g. a token "a"); only a token that
			// String() shows beyond what the rest of the config shows is a leak.
			leaked := strings.Count(cfg.String(), cfg.Token) > strings.Count(without.FormatDSN(), cfg.Token)
			if leaked && !strings.Contains("airtable://REDACTED@", cfg.Token) {
				t.Fatalf("String() %q shows the token %q", cfg.String(), cfg.Token)
			}
		}
	})
}
