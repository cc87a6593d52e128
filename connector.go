package airsql

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"log"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/translate"
	"github.com/airsql/airsql/transport"
)

// Connector holds what every connection to one base shares: one transport.Base (its HTTP client
// and the base's request pacing) and the cached base schema. Use it with sql.OpenDB; closing the
// sql.DB closes it.
type Connector struct {
	cfg   *Config // immutable private copy
	base  *transport.Base
	clock clock.Clock // expires the schema cache; tests replace it
	// localOnly (tests only) plans every SELECT with translate.Args.LocalOnly: full scans, every
	// condition, sort and limit evaluated locally. The oracle test compares it with pushdown.
	localOnly bool

	schemaMu      sync.Mutex
	schema        *baseSchema
	schemaFetched time.Time
	schemaFile    string // the persistent cache's file (schemaCache); "" when off

	// tableSizes remembers the number of records of each table (by id) seen by the last complete
	// scan without a filter, or by SELECT COUNT(*) without WHERE, for EXPLAIN's estimate of pages.
	tableSizes sync.Map

	closed        atomic.Bool
	connectionIDs atomic.Int64 // CONNECTION_ID() of the last connection

	userMu sync.Mutex
	user   string // USER(): who the token acts for, from whoami; "" until asked

	// replica answers SELECTs from local copies (DSN key replica); nil when off.
	replica *replicaState

	// notice tells the user, once, of a choice the driver made for them that weakens what they
	// asked for (a replica that polls because the service refused its webhook). The driver has
	// no other channel: it goes to the standard library's logger (stderr unless redirected with
	// log.SetOutput); tests replace it.
	notice func(msg string)

	// others are the connectors of the bases the DSN key bases names, in its order: one per
	// base, each with its own transport client — so its own pacing budget of 5 requests per
	// second, which a request to this base never waits on — its own cached schema and table
	// sizes. They read with this connector's token and settings (no replica: it copies the DSN's
	// base only) and close with it.
	others []*Connector
}

// Connector implements driver.Connector and io.Closer.
var (
	_ driver.Connector = (*Connector)(nil)
	_ io.Closer        = (*Connector)(nil)
)

// NewConnector checks cfg (as ParseDSN does), reads the token from the environment when cfg has
// none, and returns a connector. It sends no request; PingContext does.
func NewConnector(cfg *Config) (*Connector, error) {
	return newConnector(cfg)
}

// newConnector is NewConnector with extra transport options (tests give a fake clock).
func newConnector(cfg *Config, extra ...transport.Option) (*Connector, error) {
	cfg = cfg.Clone()
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	token, err := cfg.resolveToken(nil)
	if err != nil {
		return nil, err
	}
	c := &Connector{cfg: cfg, clock: clock.Real, notice: func(msg string) { log.Print(msg) }}
	opts := []transport.Option{
		transport.WithEndpointURL(cfg.endpointURL()),
		transport.WithTimeout(cfg.ConnectTimeout, cfg.ReadTimeout),
	}
	// Without a client of the caller's, transport builds its own from the timeouts; its pacing is
	// then shared with every other connector (and transport object) reaching the same base, so
	// two sql.DB on one base together stay under the service's 5 requests per second.
	if cfg.HTTPClient != nil {
		opts = append(opts, transport.WithHTTPClient(cfg.HTTPClient))
	}
	switch cfg.Pacing {
	case "shared":
		opts = append(opts, transport.WithSharedPacing(transport.DefaultSharedPacingDir()))
	case "process":
		opts = append(opts, transport.WithSharedPacing(""))
	}
	if cfg.ResultCache > 0 {
		opts = append(opts, transport.WithResultCache(cfg.ResultCache, 0))
	}
	if cfg.SchemaCache > 0 {
		c.schemaFile = schemaCachePath(cfg.endpointURL(), cfg.BaseID, token)
	}
	if cfg.Retries > 0 {
		r := transport.RetryStrategy()
		r.Total = cfg.Retries
		opts = append(opts, transport.WithRetryStrategy(r))
	}
	c.base, err = transport.NewBase(token, cfg.BaseID, append(opts, extra...)...)
	if err != nil {
		return nil, err
	}
	if cfg.Replica != "" {
		c.replica = &replicaState{c: c}
	}
	for _, id := range cfg.Bases {
		other := cfg.Clone()
		other.Token, other.BaseID, other.Bases, other.Replica = token, id, nil, ""
		oc, err := newConnector(other, extra...)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("airsql: base %s of the DSN key bases: %w", id, err)
		}
		c.others = append(c.others, oc)
	}
	return c, nil
}

// database returns the connector of a database the connector serves: its own base or one of
// the DSN key bases, by id regardless of case (as MySQL compares database names with
// lower_case_table_names=2).
func (c *Connector) database(name string) (*Connector, bool) {
	if strings.EqualFold(name, c.cfg.BaseID) {
		return c, true
	}
	for _, o := range c.others {
		if strings.EqualFold(name, o.cfg.BaseID) {
			return o, true
		}
	}
	return nil, false
}

// databases is every base the connector serves, its own first.
func (c *Connector) databases() []*Connector {
	return append([]*Connector{c}, c.others...)
}

// connectorOf is the connector whose base holds a table of a schema (the DSN's base for an
// in-memory table, which no request reads).
func (c *Connector) connectorOf(t *translate.Table) *Connector {
	if o, ok := c.database(t.Database); ok {
		return o
	}
	return c
}

// tableName names a table for EXPLAIN: its name and id, and its base when the connector serves
// several.
func (c *Connector) tableName(t *translate.Table) string {
	if len(c.others) > 0 && t.Database != "" {
		return t.Database + "." + t.Name + " (" + t.ID + ")"
	}
	return t.Name + " (" + t.ID + ")"
}

// UnknownDatabaseError is a database name the connector does not serve (MySQL's 1049).
type UnknownDatabaseError struct {
	Database string
	Served   []string // the databases the connector serves
}

func (e *UnknownDatabaseError) Error() string {
	return fmt.Sprintf("airsql: Unknown database '%s': this connection serves %s; to read another base with the same token, add its id to the DSN key bases (bases=%s)",
		e.Database, strings.Join(e.Served, ", "), e.Database)
}

// unknownDatabase is the error for a database name the connector does not serve.
func (c *Connector) unknownDatabase(name string) error {
	served := []string{translate.InformationSchema}
	for _, d := range c.databases() {
		served = append(served, d.cfg.BaseID)
	}
	return &UnknownDatabaseError{Database: name, Served: served}
}

// Connect returns a connection. Connections hold no network state of their own: each
// statement is one or more HTTP requests through the connector's client.
func (c *Connector) Connect(ctx context.Context) (driver.Conn, error) {
	if c.closed.Load() {
		return nil, ErrConnectorClosed
	}
	return &conn{c: c, session: c.newSession()}, nil
}

// Driver returns the airtable driver.
func (c *Connector) Driver() driver.Driver { return &Driver{} }

// Close drops the schema cache. Connections still open fail with ErrConnectorClosed.
func (c *Connector) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	c.schemaMu.Lock()
	c.schema = nil
	c.schemaMu.Unlock()
	if c.replica != nil {
		c.replica.close()
	}
	for _, o := range c.others {
		o.Close()
	}
	return nil
}

// Base is the client the connector sends its requests through: what airsql sync follows the
// base's webhook with, paced with the connector's other requests.
func (c *Connector) Base() *transport.Base { return c.base }

// Config returns a copy of the connector's configuration.
func (c *Connector) Config() *Config { return c.cfg.Clone() }

// sessionUser is what USER() and CURRENT_USER() answer: the token's user as whoami says, as
// MySQL's user@host: its email (with the user.email:read scope), else its id at airtable. It is
// asked once per connector; a failure is not kept, so the next call asks again.
func (c *Connector) sessionUser(ctx context.Context) (string, error) {
	c.userMu.Lock()
	defer c.userMu.Unlock()
	if c.user != "" {
		return c.user, nil
	}
	u, err := c.base.WhoAmI(ctx)
	if err != nil {
		return "", err
	}
	switch {
	case u.Email != "":
		c.user = u.Email
	case u.ID != "":
		c.user = u.ID + "@airtable"
	default:
		return "", fmt.Errorf("airsql: whoami answered no user id")
	}
	return c.user, nil
}

// forgetSchema drops the cached schema after this connector changed it (DDL), and its file in
// the persistent cache: the next statement fetches it again.
func (c *Connector) forgetSchema() {
	c.schemaMu.Lock()
	defer c.schemaMu.Unlock()
	c.schema = nil
	removeSchemaFile(c.schemaFile)
}

// loadSchema returns the base schema, from the cache when it is younger than SchemaTTL and
// refresh is false, else from the persistent cache (schemaCache) when that is younger than its
// TTL. Either is stale once a request was refused for naming an unknown field after it was
// fetched. One fetch runs at a time; the others wait for it and share its result.
func (c *Connector) loadSchema(ctx context.Context, refresh bool) (*baseSchema, error) {
	if c.closed.Load() {
		return nil, ErrConnectorClosed
	}
	c.schemaMu.Lock()
	defer c.schemaMu.Unlock()
	now := c.clock.Now()
	stale := c.base.LastUnknownField()
	fresh := func(fetched time.Time) bool { return stale.IsZero() || stale.Before(fetched) }
	if !refresh && c.schema != nil && now.Sub(c.schemaFetched) < c.cfg.SchemaTTL && fresh(c.schemaFetched) {
		return c.schema, nil
	}
	if !refresh && c.schemaFile != "" {
		if s, fetched, ok := readSchemaFile(c.schemaFile, now, c.cfg.SchemaCache); ok && fresh(fetched) {
			c.schema, c.schemaFetched = newBaseSchema(s, c.cfg.BaseID), fetched
			return c.schema, nil
		}
	}
	s, err := c.base.Schema(ctx)
	if err != nil {
		return nil, schemaError(err, c.cfg.BaseID)
	}
	c.schema = newBaseSchema(s, c.cfg.BaseID)
	c.schemaFetched = now
	writeSchemaFile(c.schemaFile, s, now)
	return c.schema, nil
}

// schemaAge is how long ago the schema in use was fetched.
func (c *Connector) schemaAge() time.Duration {
	c.schemaMu.Lock()
	defer c.schemaMu.Unlock()
	if c.schema == nil {
		return 0
	}
	return c.clock.Now().Sub(c.schemaFetched)
}
