package airsql

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/airsql/airsql/engine"
	"github.com/airsql/airsql/replica"
)

// DefaultHost is the Airtable Web API host used when the DSN names none.
const DefaultHost = "api.airtable.com"

// Config is a parsed DSN plus what a DSN cannot carry (HTTPClient).
// Build one with NewConfig (which sets every default) or ParseDSN; a zero Config is not
// usable as is (its TLS is false, which is refused for a non-loopback host).
type Config struct {
	// Token is the personal access token. Default "": when connecting, AIRTABLE_TOKEN is
	// read, then AIRTABLE_API_KEY. It never appears in String() or in an error.
	Token string
	// Host is HOST or HOST:PORT of the API. Default DefaultHost ("api.airtable.com").
	Host string
	// BaseID is the base (app…) that is the database. Required; no default.
	BaseID string
	// Bases are the other bases (app… ids) the connector serves as databases besides BaseID,
	// with the same token: a statement reads (and writes) their tables as appB.Table, USE appB
	// makes one the connection's default, and information_schema lists them. BaseID stays the
	// default database. Default none.
	Bases []string
	// TLS selects HTTPS. Default true. false (plain HTTP) is allowed only for a loopback
	// host (localhost, *.localhost, 127.0.0.0/8, ::1) unless AllowInsecure is set.
	TLS bool
	// AllowInsecure permits TLS=false for a host that is not a loopback host, which sends the
	// token in clear text. Default false.
	AllowInsecure bool
	// ConnectTimeout bounds dialing and the TLS handshake. Default 10s; 0: no bound.
	ConnectTimeout time.Duration
	// ReadTimeout bounds each HTTP request from sending it to reading the whole response.
	// Default 30s; 0: no bound (the statement's context still applies).
	ReadTimeout time.Duration
	// Retries is how many times a request answered 429, 500, 502, 503 or 504 is retried,
	// with backoff. Default 5; 0: never retry.
	Retries int
	// Typecast asks Airtable to convert written values to the field's type (for example,
	// create a missing select option). Default false.
	Typecast bool
	// PageSize is the number of records per list request, 1..100. Default 100.
	PageSize int
	// SchemaTTL is how long the base schema (tables, fields, views) is cached and shared by
	// the connector's connections. Default 1m; 0: fetch it for every statement.
	SchemaTTL time.Duration
	// MaxRows bounds the rows one statement holds in memory (GROUP BY groups, DISTINCT values,
	// the rows of a local sort); past it the statement fails with *engine.RowLimitError.
	// Default 1,000,000.
	MaxRows int
	// SchemaCache, when above 0, keeps the base schema in a file under the user's cache
	// directory for that long, so that a new process plans its first statement without the
	// schema request. The file holds no token (its name is a hash of endpoint, base and token).
	// Default 0: off.
	SchemaCache time.Duration
	// ResultCache, when above 0, answers a list request identical to one made less than that
	// long ago from memory; this connector's own writes to a table drop that table's entries.
	// Default 0: off.
	ResultCache time.Duration
	// Pacing says whose budget of 5 requests per second per base the connector's requests
	// count against: "auto" (shared by the machine's processes for api.airtable.com, else the
	// process's own), "shared" (always shared through a file under the user's cache directory),
	// "process". Default "auto".
	Pacing string
	// SecureFilePriv is the directory LOAD_FILE may read (as MySQL's secure_file_priv): an
	// attachment column written LOAD_FILE('path') uploads that file when it is inside this
	// directory once symbolic links and .. are resolved. Default "": LOAD_FILE is refused.
	SecureFilePriv string
	// Replica, when set, answers SELECTs from a local copy of the tables they read, kept current
	// with the base's webhook, or by polling where the service refuses one (replica_source.go,
	// replica/poll.go): "memory" keeps it in memory only; an absolute
	// directory also keeps it there across restarts. Default "": every read asks the service.
	Replica string
	// Freshness is how old, at most, the replica's last sync may be when a read begins: older,
	// the read first polls the webhook's payloads (one request when nothing changed). Default 5s.
	Freshness time.Duration
	// ReplicaFullCheck is, for a replica that polls (the service refused the webhook), how
	// often each copied table's ids are listed to find records deleted by other clients and
	// refresh computed values. Default 10m.
	ReplicaFullCheck time.Duration

	// HTTPClient, when set, carries every request (for example an in-process emulator's
	// client). Default nil: the connector builds its own client from the timeouts.
	// Not part of the DSN.
	HTTPClient *http.Client
}

// NewConfig returns a Config with every default set and no token or base.
func NewConfig() *Config {
	return &Config{
		Host:           DefaultHost,
		TLS:            true,
		ConnectTimeout: 10 * time.Second,
		ReadTimeout:    30 * time.Second,
		Retries:        5,
		PageSize:       100,
		SchemaTTL:      time.Minute,
		MaxRows:        engine.DefaultMaxRows,
		Pacing:         "auto",
		Freshness:      5 * time.Second,

		ReplicaFullCheck: replica.DefaultFullCheck,
	}
}

// Clone returns a copy of c; the HTTPClient pointer is shared.
func (c *Config) Clone() *Config {
	cp := *c
	cp.Bases = slices.Clone(c.Bases)
	return &cp
}

// String describes the configuration without the token. It has a value receiver so that a
// Config printed by value (%v, %+v) does not show its fields, the token among them.
func (c Config) String() string {
	token := ""
	if c.Token != "" {
		token = "REDACTED@"
	}
	c.Token = ""
	if mayBeToken(c.Host) || strings.Contains(c.Host, "@") {
		c.Host = "HIDDEN-HOST-LOOKS-LIKE-A-TOKEN"
	}
	if mayBeToken(c.BaseID) || strings.Contains(c.BaseID, "@") {
		c.BaseID = "HIDDEN-BASE-LOOKS-LIKE-A-TOKEN"
	}
	c.Bases = slices.Clone(c.Bases)
	for i, b := range c.Bases {
		if mayBeToken(b) || strings.Contains(b, "@") {
			c.Bases[i] = "HIDDEN-BASE-LOOKS-LIKE-A-TOKEN"
		}
	}
	s := c.FormatDSN()
	return strings.Replace(s, "airtable://", "airtable://"+token, 1)
}

// GoString keeps the token out of %#v as well.
func (c Config) GoString() string { return "airsql.Config(" + c.String() + ")" }

// dsnParam declares one DSN query key: its name, type and meaning (the README table is checked
// against these), how to read it into a Config and how to write it back (ok=false: default).
type dsnParam struct {
	name, kind, valid, doc string
	parse                  func(c *Config, v string) error
	format                 func(c, def *Config) (string, bool)
}

// dsnParams is every DSN key, in the order FormatDSN writes them.
var dsnParams = []dsnParam{
	boolParam("tls", "`true`: HTTPS; `false`: plain HTTP, only for a loopback host unless `allowInsecure=true`",
		func(c *Config) *bool { return &c.TLS }),
	boolParam("allowInsecure", "allow `tls=false` for a host that is not loopback (the token then travels in clear text)",
		func(c *Config) *bool { return &c.AllowInsecure }),
	durationParam("connectTimeout", "bound on dialing and the TLS handshake; `0`: none",
		func(c *Config) *time.Duration { return &c.ConnectTimeout }),
	durationParam("readTimeout", "bound on each HTTP request, from sending to the end of the response; `0`: none",
		func(c *Config) *time.Duration { return &c.ReadTimeout }),
	intParam("retries", "0..100", "retries of a request answered 429, 500, 502, 503 or 504, with backoff; `0`: none", 0, 100,
		func(c *Config) *int { return &c.Retries }),
	boolParam("typecast", "writes ask Airtable to convert values to the field type (e.g. create missing select options)",
		func(c *Config) *bool { return &c.Typecast }),
	intParam("pageSize", "1..100", "records per list request", 1, 100,
		func(c *Config) *int { return &c.PageSize }),
	durationParam("schemaTTL", "how long the base schema is cached, shared by all connections; `0`: fetched for every statement",
		func(c *Config) *time.Duration { return &c.SchemaTTL }),
	intParam("maxRows", "1..1000000000", "rows one statement may hold in memory (GROUP BY groups, DISTINCT values, a local sort); past it the statement fails naming the limit", 1, 1_000_000_000,
		func(c *Config) *int { return &c.MaxRows }),
	durationParam("schemaCache", "keep the base schema in a file under the user's cache directory for this long (no token stored); `0`: off",
		func(c *Config) *time.Duration { return &c.SchemaCache }),
	durationParam("cache", "answer identical list requests made within this long from memory; the connector's own writes drop a table's entries; `0`: off",
		func(c *Config) *time.Duration { return &c.ResultCache }),
	enumParam("pacing", "whose 5 requests/s per base: `auto` (shared by the machine's processes for api.airtable.com), `shared` (always), `process`",
		[]string{"auto", "shared", "process"}, func(c *Config) *string { return &c.Pacing }),
	{name: "bases", kind: "string", valid: "base ids separated by commas (`appB,appC`)",
		doc: "other bases this connector serves as databases with the same token: `SELECT … FROM appB.Orders`, `USE appB`, listed by SHOW DATABASES and information_schema; the base after the host stays the default; `\"\"`: none",
		parse: func(c *Config, v string) error {
			c.Bases = nil
			if v != "" {
				c.Bases = strings.Split(v, ",")
			}
			return checkBases(c.BaseID, c.Bases)
		},
		format: func(c, def *Config) (string, bool) { return strings.Join(c.Bases, ","), len(c.Bases) > 0 }},
	{name: "secureFilePriv", kind: "string", valid: "an absolute directory", doc: "the directory `LOAD_FILE('path')` may read, to upload a file into an attachment column; `\"\"`: LOAD_FILE refused",
		parse: func(c *Config, v string) error {
			if v != "" && !filepath.IsAbs(v) {
				return fmt.Errorf("secureFilePriv=%q: give an absolute directory", v)
			}
			c.SecureFilePriv = v
			return nil
		},
		format: func(c, def *Config) (string, bool) { return c.SecureFilePriv, c.SecureFilePriv != def.SecureFilePriv }},
	{name: "replica", kind: "string", valid: "`memory`, or an absolute directory",
		doc: "answer SELECTs from a local copy of each table read, copied on first use and kept current with the base's webhook (the token needs `webhook:manage`; without it, or where the service refuses webhooks, the replica polls `LAST_MODIFIED_TIME()` and says so); a directory also keeps the copy across restarts; `\"\"`: off",
		parse: func(c *Config, v string) error {
			if v != "" && v != replicaMemory && !filepath.IsAbs(v) {
				return fmt.Errorf("replica=%s: give memory or an absolute directory", quoteUnlessSecret(v))
			}
			c.Replica = v
			return nil
		},
		format: func(c, def *Config) (string, bool) { return c.Replica, c.Replica != def.Replica }},
	durationParam("freshness", "with `replica`: a read sees every change the service acknowledged at least this long before it began (older than this, the replica polls the webhook's payloads first)",
		func(c *Config) *time.Duration { return &c.Freshness }),
	durationParam("replicaFullCheck", "with `replica`, when the service refuses the webhook (the replica then polls `LAST_MODIFIED_TIME()`): how often each copied table's ids are listed to find records other clients deleted and to refresh computed values (lookups, rollups, counts, formulas); `0`: at every poll",
		func(c *Config) *time.Duration { return &c.ReplicaFullCheck }),
}

// replicaMemory is the value of the DSN key replica for a copy kept in memory only.
const replicaMemory = "memory"

func enumParam(name, doc string, values []string, field func(*Config) *string) dsnParam {
	return dsnParam{
		name: name, kind: "string", valid: "`" + strings.Join(values, "`, `") + "`", doc: doc,
		parse: func(c *Config, v string) error {
			if !slices.Contains(values, v) {
				return fmt.Errorf("%s=%q: want one of %s", name, v, strings.Join(values, ", "))
			}
			*field(c) = v
			return nil
		},
		format: func(c, def *Config) (string, bool) {
			v := *field(c)
			return v, v != *field(def)
		},
	}
}

func boolParam(name, doc string, field func(*Config) *bool) dsnParam {
	return dsnParam{
		name: name, kind: "bool", valid: "`true`, `false`", doc: doc,
		parse: func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("%s=%s is not a boolean: use true or false", name, quoteUnlessSecret(v))
			}
			*field(c) = b
			return nil
		},
		format: func(c, def *Config) (string, bool) {
			v := *field(c)
			return strconv.FormatBool(v), v != *field(def)
		},
	}
}

func durationParam(name, doc string, field func(*Config) *time.Duration) dsnParam {
	return dsnParam{
		name: name, kind: "duration", valid: "Go duration (`500ms`, `30s`, `1m`), ≥ 0", doc: doc,
		parse: func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return fmt.Errorf("%s=%s is not a duration ≥ 0: write it like 500ms, 30s or 2m", name, quoteUnlessSecret(v))
			}
			*field(c) = d
			return nil
		},
		format: func(c, def *Config) (string, bool) {
			v := *field(c)
			return v.String(), v != *field(def)
		},
	}
}

func intParam(name, valid, doc string, lo, hi int, field func(*Config) *int) dsnParam {
	return dsnParam{
		name: name, kind: "int", valid: valid, doc: doc,
		parse: func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < lo || n > hi {
				return fmt.Errorf("%s=%s must be an integer from %d to %d", name, quoteUnlessSecret(v), lo, hi)
			}
			*field(c) = n
			return nil
		},
		format: func(c, def *Config) (string, bool) {
			v := *field(c)
			return strconv.Itoa(v), v != *field(def)
		},
	}
}

// dsnDefault returns the default of a key as FormatDSN would write it (for the README table).
func (p dsnParam) dsnDefault() string {
	v, _ := p.format(NewConfig(), NewConfig())
	return v
}

const dsnScheme = "airtable://"

// ParseDSN parses airtable://[TOKEN@][HOST[:PORT]]/BASE_ID[?key=value&...].
// Errors never contain the token.
func ParseDSN(dsn string) (*Config, error) {
	cfg := NewConfig()
	rest, ok := strings.CutPrefix(dsn, dsnScheme)
	if !ok {
		return nil, &DSNError{Msg: "must start with " + dsnScheme + " (airtable://TOKEN@/appXXXXXXXXXXXXXX)"}
	}
	if err := checkTokenPlacement(rest); err != nil {
		return nil, err
	}
	rest, query, _ := strings.Cut(rest, "?")
	authority, path, hasPath := strings.Cut(rest, "/")
	if !hasPath {
		return nil, &DSNError{Msg: "has no base id: write airtable://[TOKEN@][HOST]/appXXXXXXXXXXXXXX"}
	}
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		if strings.Contains(authority[:at], ":") {
			return nil, &DSNError{Msg: "has a user name and password before @: write the token alone (airtable://TOKEN@/appXXXXXXXXXXXXXX), percent-encoding any ':' in it"}
		}
		token, err := url.PathUnescape(authority[:at])
		if err != nil {
			// The unescape error would quote part of the token: say only where it is.
			return nil, &DSNError{Msg: "token contains an invalid %-escape; percent-encode it (or leave it out and set AIRTABLE_TOKEN)"}
		}
		if token == "" {
			return nil, &DSNError{Msg: "has an empty token before @: remove the @ to read AIRTABLE_TOKEN"}
		}
		cfg.Token = token
		authority = authority[at+1:]
	}
	if authority != "" {
		if err := checkHost(authority); err != nil {
			return nil, err
		}
		cfg.Host = authority
	}
	base, err := url.PathUnescape(path)
	if err != nil || base == "" || strings.ContainsAny(base, "/ @") {
		return nil, &DSNError{Msg: fmt.Sprintf("base id %s is not valid: write one base id after the host, like /appXXXXXXXXXXXXXX", quoteUnlessSecret(path))}
	}
	cfg.BaseID = base
	if query != "" {
		if err := cfg.parseParams(query); err != nil {
			return nil, err
		}
	}
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	return cfg, nil
}

func (c *Config) parseParams(query string) error {
	seen := map[string]bool{}
	for _, kv := range strings.Split(query, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		key, err1 := url.QueryUnescape(k)
		val, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return &DSNError{Msg: fmt.Sprintf("parameter %s is not correctly %%-escaped", quoteUnlessSecret(k))}
		}
		p, ok := lookupParam(key)
		if !ok {
			return &DSNError{Msg: fmt.Sprintf("unknown parameter %s: known parameters are %s", quoteUnlessSecret(key), paramNames())}
		}
		if seen[key] {
			return &DSNError{Msg: fmt.Sprintf("parameter %s is given twice", quoteUnlessSecret(key))}
		}
		seen[key] = true
		if err := p.parse(c, val); err != nil {
			return &DSNError{Msg: err.Error()}
		}
	}
	return nil
}

func lookupParam(name string) (dsnParam, bool) {
	for _, p := range dsnParams {
		if p.name == name {
			return p, true
		}
	}
	return dsnParam{}, false
}

func paramNames() string {
	names := make([]string, len(dsnParams))
	for i, p := range dsnParams {
		names[i] = p.name
	}
	return strings.Join(names, ", ")
}

// checkHost accepts HOST, HOST:PORT, [IPv6] and [IPv6]:PORT.
func checkHost(hostport string) error {
	if mayBeToken(hostport) {
		return errTokenAsHost
	}
	host := hostport
	if h, port, err := net.SplitHostPort(hostport); err == nil {
		n, perr := strconv.Atoi(port)
		if perr != nil || n < 1 || n > 65535 {
			return &DSNError{Msg: fmt.Sprintf("host %s has an invalid port", quoteUnlessSecret(hostport))}
		}
		host = h
	} else if strings.HasPrefix(hostport, "[") && strings.HasSuffix(hostport, "]") {
		host = hostport[1 : len(hostport)-1]
	}
	if host == "" || strings.ContainsAny(host, " /\\?#@%[]") ||
		(strings.Contains(host, ":") && net.ParseIP(host) == nil) {
		return &DSNError{Msg: fmt.Sprintf("host %s is not a valid HOST or HOST:PORT (write [::1]:8080 for IPv6)", quoteUnlessSecret(hostport))}
	}
	return nil
}

// hostname returns Host without its port or IPv6 brackets.
func (c *Config) hostname() string {
	if h, _, err := net.SplitHostPort(c.Host); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(c.Host, "["), "]")
}

// isLoopbackHost reports whether host names this machine only, so that plain HTTP to it
// never crosses a network: localhost, *.localhost (RFC 6761) and loopback addresses.
func isLoopbackHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// normalize fills what a zero value leaves unset and checks the combination; ParseDSN and
// NewConnector both call it.
func (c *Config) normalize() error {
	if c.Host == "" {
		c.Host = DefaultHost
	} else if err := checkHost(c.Host); err != nil {
		return err
	}
	if c.BaseID == "" {
		return ErrNoBase
	}
	if strings.ContainsAny(c.BaseID, "/?# @") {
		return &DSNError{Msg: fmt.Sprintf("base id %s is not valid: use the app… id of the base", quoteUnlessSecret(c.BaseID))}
	}
	if err := checkBases(c.BaseID, c.Bases); err != nil {
		return &DSNError{Msg: err.Error()}
	}
	if c.PageSize == 0 {
		c.PageSize = 100
	}
	if c.PageSize < 1 || c.PageSize > 100 {
		return &DSNError{Msg: fmt.Sprintf("pageSize %d must be from 1 to 100", c.PageSize)}
	}
	if c.MaxRows == 0 {
		c.MaxRows = engine.DefaultMaxRows
	}
	if c.MaxRows < 0 {
		return &DSNError{Msg: fmt.Sprintf("maxRows %d must be ≥ 1", c.MaxRows)}
	}
	if c.Retries < 0 {
		return &DSNError{Msg: fmt.Sprintf("retries %d must be ≥ 0", c.Retries)}
	}
	switch c.Pacing {
	case "":
		c.Pacing = "auto"
	case "auto", "shared", "process":
	default:
		return &DSNError{Msg: fmt.Sprintf("pacing %q: want auto, shared or process", c.Pacing)}
	}
	if c.SchemaCache < 0 || c.ResultCache < 0 {
		return &DSNError{Msg: "schemaCache and cache must be ≥ 0"}
	}
	if c.Replica != "" && c.Replica != replicaMemory && !filepath.IsAbs(c.Replica) {
		return &DSNError{Msg: fmt.Sprintf("replica %s: give memory or an absolute directory", quoteUnlessSecret(c.Replica))}
	}
	if c.ConnectTimeout < 0 || c.ReadTimeout < 0 || c.SchemaTTL < 0 || c.Freshness < 0 {
		return &DSNError{Msg: "timeouts and schemaTTL must be ≥ 0"}
	}
	if !c.TLS && !c.AllowInsecure && !isLoopbackHost(c.hostname()) {
		return &InsecureHostError{Host: c.Host}
	}
	return nil
}

// checkBases checks the ids of the other bases as the DSN's base id is checked: none empty, none
// holding what a base id cannot, none given twice or equal to the default base.
func checkBases(baseID string, bases []string) error {
	seen := map[string]bool{strings.ToLower(baseID): true}
	for _, b := range bases {
		switch {
		case b == "":
			return fmt.Errorf("bases has an empty base id: write bases=appXXXXXXXXXXXXXX,appYYYYYYYYYYYYYY")
		case strings.ContainsAny(b, "/?# @,`"):
			return fmt.Errorf("bases: base id %s is not valid: use the app… id of the base", quoteUnlessSecret(b))
		case strings.EqualFold(b, "information_schema"):
			return fmt.Errorf("bases: information_schema is always served; name only bases")
		case seen[strings.ToLower(b)]:
			return fmt.Errorf("bases: base %s is named twice (the DSN's own base is always served)", b)
		}
		seen[strings.ToLower(b)] = true
	}
	return nil
}

// endpointURL is the scheme and host the transport sends to.
func (c *Config) endpointURL() string {
	if c.TLS {
		return "https://" + c.Host
	}
	return "http://" + c.Host
}

// resolveToken returns the token of the DSN, else of AIRTABLE_TOKEN, else of AIRTABLE_API_KEY.
func (c *Config) resolveToken(getenv func(string) string) (string, error) {
	if c.Token != "" {
		return c.Token, nil
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, name := range []string{"AIRTABLE_TOKEN", "AIRTABLE_API_KEY"} {
		if t := getenv(name); t != "" {
			return t, nil
		}
	}
	return "", ErrNoToken
}

// FormatDSN writes c as a DSN that ParseDSN reads back to an equal Config (HTTPClient aside).
// Keys are written only when they differ from NewConfig's defaults, in a fixed order.
func (c *Config) FormatDSN() string {
	var b strings.Builder
	b.WriteString(dsnScheme)
	if c.Token != "" {
		b.WriteString(escapeUserinfo(c.Token))
		b.WriteByte('@')
	}
	if c.Host != DefaultHost && c.Host != "" {
		b.WriteString(c.Host)
	}
	b.WriteByte('/')
	b.WriteString(url.PathEscape(c.BaseID))
	def := NewConfig()
	sep := byte('?')
	for _, p := range dsnParams {
		v, differs := p.format(c, def)
		if !differs {
			continue
		}
		b.WriteByte(sep)
		sep = '&'
		b.WriteString(p.name)
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(v))
	}
	return b.String()
}

// escapeUserinfo percent-encodes everything in a token but unreserved characters, so that no
// '@', '/', '?' or '%' in it can be read as DSN structure.
func escapeUserinfo(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' ||
			ch == '-' || ch == '.' || ch == '_' || ch == '~' {
			b.WriteByte(ch)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", ch)
	}
	return b.String()
}

// errIsDSN reports whether err came from reading a DSN (tests use it).
func errIsDSN(err error) bool {
	var de *DSNError
	var ie *InsecureHostError
	return errors.As(err, &de) || errors.As(err, &ie) || errors.Is(err, ErrNoBase)
}
