package airsql

import (
	"context"
	"database/sql/driver"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/transport"
)

// Connector holds what every connection to one base shares: one HTTP client, the base's
// request pacing (transport paces per base and HTTP transport) and the cached base schema.
// Use it with sql.OpenDB; closing the sql.DB closes it.
type Connector struct {
	cfg    *Config // immutable private copy
	client *http.Client
	owned  bool // client was built here, so Close may close its idle connections
	base   *transport.Base
	clock  clock.Clock // expires the schema cache; tests replace it

	schemaMu      sync.Mutex
	schema        *baseSchema
	schemaFetched time.Time

	closed atomic.Bool
}

// Connector implements driver.Connector and io.Closer.
var (
	_ driver.Connector = (*Connector)(nil)
	_ io.Closer        = (*Connector)(nil)
)

// NewConnector checks cfg (as ParseDSN does), reads the token from the environment when cfg has
// none, and returns a connector. It sends no request; PingContext does.
func NewConnector(cfg *Config) (*Connector, error) {
	cfg = cfg.Clone()
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	token, err := cfg.resolveToken(nil)
	if err != nil {
		return nil, err
	}
	c := &Connector{cfg: cfg, clock: clock.Real}
	c.client = cfg.HTTPClient
	if c.client == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		if cfg.ConnectTimeout > 0 {
			t.DialContext = (&net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext
			t.TLSHandshakeTimeout = cfg.ConnectTimeout
		}
		c.client = &http.Client{Transport: t}
		c.owned = true
	}
	opts := []transport.Option{
		transport.WithEndpointURL(cfg.endpointURL()),
		transport.WithHTTPClient(c.client),
		transport.WithTimeout(cfg.ConnectTimeout, cfg.ReadTimeout),
	}
	if cfg.Retries > 0 {
		r := transport.RetryStrategy()
		r.Total = cfg.Retries
		opts = append(opts, transport.WithRetryStrategy(r))
	}
	c.base, err = transport.NewBase(token, cfg.BaseID, opts...)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Connect returns a connection. Connections hold no network state of their own: each
// statement is one or more HTTP requests through the connector's client.
func (c *Connector) Connect(ctx context.Context) (driver.Conn, error) {
	if c.closed.Load() {
		return nil, ErrConnectorClosed
	}
	return &conn{c: c}, nil
}

// Driver returns the airtable driver.
func (c *Connector) Driver() driver.Driver { return &Driver{} }

// Close drops the schema cache and the idle HTTP connections of a client the connector built.
// Connections still open fail with ErrConnectorClosed.
func (c *Connector) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	c.schemaMu.Lock()
	c.schema = nil
	c.schemaMu.Unlock()
	if c.owned {
		c.client.CloseIdleConnections()
	}
	return nil
}

// Config returns a copy of the connector's configuration.
func (c *Connector) Config() *Config { return c.cfg.Clone() }

// loadSchema returns the base schema, from the cache when it is younger than SchemaTTL and
// refresh is false. One fetch runs at a time; the others wait for it and share its result.
func (c *Connector) loadSchema(ctx context.Context, refresh bool) (*baseSchema, error) {
	if c.closed.Load() {
		return nil, ErrConnectorClosed
	}
	c.schemaMu.Lock()
	defer c.schemaMu.Unlock()
	now := c.clock.Now()
	if !refresh && c.schema != nil && now.Sub(c.schemaFetched) < c.cfg.SchemaTTL {
		return c.schema, nil
	}
	s, err := c.base.Schema(ctx)
	if err != nil {
		return nil, schemaError(err)
	}
	c.schema = newBaseSchema(s)
	c.schemaFetched = now
	return c.schema, nil
}
