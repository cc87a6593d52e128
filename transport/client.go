package transport

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"runtime"
	"strings"
	"time"

	"github.com/airsql/airsql/internal/clock"
)

// DefaultEndpointURL is where requests go unless WithEndpointURL says otherwise.
const DefaultEndpointURL = "https://api.airtable.com"

// APILimit is the shortest interval between the starts of two requests to one base (seed §8:
// 5 requests per second). Every API, Base and Table of the same base, endpoint and HTTP transport
// in the process share one limiter, so together they stay under the service's per-base limit.
// Set it before making requests; 0 or less turns pacing off.
var APILimit = 200 * time.Millisecond

// MaxRecordsPerRequest is the number of records the service accepts in one write; the Batch*
// operations send chunks of this size.
const MaxRecordsPerRequest = 10

// MaxRequestBodyBytes is the largest request body the service accepts (5 MiB; it answers 413
// REQUEST_TOO_LARGE beyond). A write or listRecords request that would be larger is refused before
// it is sent, with an error naming the limit.
const MaxRequestBodyBytes = 5 << 20

// RateLimitPenalty is how long the service refuses a base's requests after a 429 (reference §3).
// After a 429 without a Retry-After header, requests to that base are held this long.
const RateLimitPenalty = 30 * time.Second

// Option configures NewAPI, NewBase and NewTable.
type Option func(*settings)

type settings struct {
	endpoint       string
	httpClient     *http.Client
	connectTimeout time.Duration
	readTimeout    time.Duration
	retry          *Retry
	clock          clock.Clock
	fixedPacing    bool // tests: starts are not held back for late arrivals
	shareDir       string
	shareSet       bool // WithSharedPacing was given
	cacheTTL       time.Duration
	cacheBytes     int64
}

// WithTimeout limits each request: connect bounds dialing (and the TLS handshake), read bounds
// the wait for the response and every pause while reading it. 0 means no limit (the default).
// Through a RoundTripper other than *http.Transport (such as the in-process emulator) there is
// no connection to time, and the read limit runs from the start of each request.
func WithTimeout(connect, read time.Duration) Option {
	return func(s *settings) { s.connectTimeout, s.readTimeout = connect, read }
}

// WithRetryStrategy sets how failed requests are retried; RetryStrategy() gives the seed's
// defaults. Without it nothing is retried. See Retry for what is never retried.
func WithRetryStrategy(r *Retry) Option {
	return func(s *settings) { s.retry = r }
}

// WithEndpointURL sends requests to another server than DefaultEndpointURL: a proxy, or the
// emulator (emulator.InProcessURL with WithHTTPClient(server.Client())).
func WithEndpointURL(endpoint string) Option {
	return func(s *settings) { s.endpoint = endpoint }
}

// WithHTTPClient sends requests through the given client. Its own Timeout, if any, still applies.
func WithHTTPClient(c *http.Client) Option {
	return func(s *settings) { s.httpClient = c }
}

// WithClock makes pacing, retry backoff and timeouts read the given clock (tests pass a clock.Fake).
func WithClock(c clock.Clock) Option {
	return func(s *settings) { s.clock = c }
}

// fixedPacing keeps starts exactly APILimit plus its margin apart, without holding any back for a
// request that may have arrived late (pacer.arrivalWaitLocked), for tests that count exact gaps
// on a fake clock (where a request in flight while the test moves time looks like a slow one).
func fixedPacing() Option { return func(s *settings) { s.fixedPacing = true } }

// secret holds the access token. It is kept behind a pointer so that even formatting the
// unexported fields of a core (where fmt cannot call methods) shows an address, not the token.
type secret struct{ token string }

func (*secret) String() string   { return "[redacted]" }
func (*secret) GoString() string { return "[redacted]" }

// core is the one implementation behind API, Base and Table; it is immutable once built.
type core struct {
	token          *secret
	endpoint       string // scheme://host[/prefix], no trailing slash
	client         *http.Client
	traced         bool // the transport reports connection events through httptrace
	connectTimeout time.Duration
	readTimeout    time.Duration
	retry          *Retry // nil: no retries
	clock          clock.Clock
	server         *server        // the pacers of this endpoint, transport and clock; see servers
	jitter         func() float64 // in [0,1); replaced in tests
	cache          *resultCache   // nil: no result cache (WithResultCache)
	sizes          *tableSizes    // record counts of whole-table listings read to their end (partition.go)
}

func newCore(apiKey string, opts []Option) (*core, error) {
	s := settings{endpoint: DefaultEndpointURL, clock: clock.Real}
	for _, o := range opts {
		o(&s)
	}
	if strings.TrimSpace(apiKey) == "" {
		return nil, invalidf("empty API key: pass a personal access token (pat…) or an OAuth token")
	}
	if strings.ContainsAny(apiKey, "\r\n") {
		return nil, invalidf("the API key contains a line break; check how it was read")
	}
	endpoint, err := checkEndpoint(s.endpoint, apiKey)
	if err != nil {
		return nil, err
	}
	if s.connectTimeout < 0 || s.readTimeout < 0 {
		return nil, invalidf("WithTimeout(%s, %s): timeouts must be 0 (none) or positive", s.connectTimeout, s.readTimeout)
	}
	if s.clock == nil {
		return nil, invalidf("WithClock(nil): pass clock.Real or a clock.Fake")
	}
	var retry *Retry
	if s.retry != nil {
		if err := s.retry.validate(); err != nil {
			return nil, err
		}
		r := *s.retry
		r.StatusForcelist = append([]int(nil), r.StatusForcelist...)
		retry = &r
	}
	c := &core{
		token:          &secret{apiKey},
		endpoint:       endpoint,
		connectTimeout: s.connectTimeout,
		readTimeout:    s.readTimeout,
		retry:          retry,
		clock:          s.clock,
		jitter:         rand.Float64,
		cache:          newResultCache(s.cacheTTL, s.cacheBytes),
		sizes:          &tableSizes{},
	}
	switch {
	case s.httpClient != nil:
		c.client = s.httpClient
	case s.connectTimeout > 0:
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DialContext = (&net.Dialer{Timeout: s.connectTimeout, KeepAlive: 30 * time.Second}).DialContext
		t.TLSHandshakeTimeout = s.connectTimeout
		// A partitioned scan keeps up to a window's requests in flight to one host: with the
		// default 2 idle connections per host, 3 of every 5 requests over HTTP/1.1 (an emulator)
		// dialed anew, and a new connection's request arrives later than its send by however
		// long the far end takes to accept it (which the pacing must then allow for).
		t.MaxIdleConnsPerHost = idleConnsPerHost
		c.client = &http.Client{Transport: t}
	default:
		c.client = http.DefaultClient
	}
	rt := c.client.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	_, c.traced = rt.(*http.Transport)
	key := serverKey{endpoint: endpoint, transport: transportIdentity(rt, c.client, s.httpClient == nil && s.connectTimeout > 0), clock: c.clock}
	c.server = acquireServer(key, s.fixedPacing, shareDirFor(&s, endpoint))
	runtime.AddCleanup(c, releaseServer, key)
	return c, nil
}

// idleConnsPerHost is how many idle connections to one host our own transport keeps: two windows
// of requests in flight, for the bases of one server read at once.
const idleConnsPerHost = 2 * windowStarts

// transportIdentity is what tells servers apart in the limiter registry besides the endpoint URL:
// two in-process emulators share one URL but not one RoundTripper. A RoundTripper that is a
// pointer to a comparable struct is compared by value, so that two transports made by one server
// (emulator.Server.Transport returns a new one each time) share a limiter. Transports we build
// ourselves for a connect timeout reach the same service as the default one.
func transportIdentity(rt http.RoundTripper, c *http.Client, ownTransport bool) any {
	if ownTransport {
		return http.DefaultTransport
	}
	if v := reflect.ValueOf(rt); v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct && v.Elem().NumField() > 0 && v.Elem().Comparable() {
		return identityOf{v.Elem().Type(), v.Elem().Interface()}
	}
	if isComparable(rt) {
		return rt
	}
	return c
}

// isComparable reports whether v can be a map key without panicking.
func isComparable(v any) bool {
	if v == nil {
		return true
	}
	return reflect.ValueOf(v).Comparable()
}

// identityOf is a transport compared by its type and value.
type identityOf struct {
	typ   reflect.Type
	value any
}

func checkEndpoint(raw, token string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", invalidf("endpoint URL %q: want an absolute http or https URL such as %s", redact(raw, token), DefaultEndpointURL)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", invalidf("endpoint URL %q: must not carry credentials, a query or a fragment (the token is given separately)", redact(u.Redacted(), token))
	}
	return strings.TrimRight(u.Scheme+"://"+u.Host+u.EscapedPath(), "/"), nil
}

// API reaches every base the token can reach; its operations take the base id and table name first.
type API struct{ c *core }

// Base is one base; its operations take the table name (or id) first.
type Base struct {
	c  *core
	id string
}

// Table is one table of one base.
type Table struct {
	c    *core
	base string
	name string
}

// NewAPI returns an API authenticated with apiKey (a personal access token or OAuth token).
func NewAPI(apiKey string, opts ...Option) (*API, error) {
	c, err := newCore(apiKey, opts)
	if err != nil {
		return nil, err
	}
	return &API{c: c}, nil
}

// NewBase returns the base baseID (app…).
func NewBase(apiKey, baseID string, opts ...Option) (*Base, error) {
	if err := checkBaseID(baseID); err != nil {
		return nil, err
	}
	c, err := newCore(apiKey, opts)
	if err != nil {
		return nil, err
	}
	return &Base{c: c, id: baseID}, nil
}

// NewTable returns the table tableName (a name as shown in the browser, unencoded, or a tbl… id)
// of base baseID.
func NewTable(apiKey, baseID, tableName string, opts ...Option) (*Table, error) {
	if err := checkBaseID(baseID); err != nil {
		return nil, err
	}
	if err := checkTableName(tableName); err != nil {
		return nil, err
	}
	c, err := newCore(apiKey, opts)
	if err != nil {
		return nil, err
	}
	return &Table{c: c, base: baseID, name: tableName}, nil
}

func checkBaseID(id string) error {
	if id == "" {
		return invalidf("empty base id: pass the app… id of the base")
	}
	if strings.ContainsAny(id, "/?#% ") {
		return invalidf("base id %q: a base id is app followed by 14 letters and digits", id)
	}
	return nil
}

func checkTableName(name string) error {
	if name == "" {
		return invalidf("empty table name: pass the table's name or its tbl… id")
	}
	return nil
}

func checkRecordID(id string) error {
	if id == "" {
		return invalidf("empty record id")
	}
	return nil
}

// Base returns the base baseID, sharing the caller's token and settings.
func (a *API) Base(baseID string) *Base { return &Base{c: a.c, id: baseID} }

// Table returns the table name of base baseID, sharing the caller's token and settings.
func (a *API) Table(baseID, name string) *Table { return &Table{c: a.c, base: baseID, name: name} }

// Table returns the table name of this base, sharing the caller's token and settings.
func (b *Base) Table(name string) *Table { return &Table{c: b.c, base: b.id, name: name} }

// ID returns the base id.
func (b *Base) ID() string { return b.id }

// URL returns the base's URL, e.g. https://api.airtable.com/v0/appXXXXXXXXXXXXXX.
func (b *Base) URL() string { return b.c.endpoint + "/v0/" + escapeSegment(b.id) }

// Base returns the table's base, sharing the caller's token and settings.
func (t *Table) Base() *Base { return &Base{c: t.c, id: t.base} }

// Name returns the table name (or id) the table was made with.
func (t *Table) Name() string { return t.name }

// URL returns the table's URL; the name is percent-encoded as one path segment.
func (t *Table) URL() string { return t.c.tableURL(t.base, t.name) }

// RecordURL returns the URL of one record of the table.
func (t *Table) RecordURL(recordID string) string {
	return t.c.tableURL(t.base, t.name) + "/" + escapeSegment(recordID)
}

// String describes the object without its token.
func (a *API) String() string { return fmt.Sprintf("transport.API{%s}", a.c.endpoint) }

// String describes the object without its token.
func (b *Base) String() string { return fmt.Sprintf("transport.Base{%s}", b.URL()) }

// String describes the object without its token.
func (t *Table) String() string { return fmt.Sprintf("transport.Table{%s}", t.URL()) }

func (c *core) tableURL(base, table string) string {
	return c.endpoint + tablePath(base, table)
}

func tablePath(base, table string) string {
	return "/v0/" + escapeSegment(base) + "/" + escapeSegment(table)
}

// escapeSegment percent-encodes everything but the unreserved characters, as pyairtable's
// quote(name, safe="") does: "/" becomes %2F, so any name stays one path segment.
func escapeSegment(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// errWhere names what a failed call was about, for error messages.
func errWhere(base, table string) string {
	switch {
	case table != "":
		return fmt.Sprintf("table %q of base %s", table, base)
	case base != "":
		return "base " + base
	default:
		return "the API"
	}
}

// wrapOp adds the operation and table to an error, leaving it usable with errors.Is and errors.As.
func wrapOp(op, base, table string, err error) error {
	if err == nil {
		return nil
	}
	var be *BatchError
	if errors.As(err, &be) {
		return err
	}
	return fmt.Errorf("airtable: %s on %s: %w", op, errWhere(base, table), err)
}
