package main

import (
	"database/sql"
	"errors"
	"fmt"
	"io"

	"github.com/airsql/airsql"
	"github.com/airsql/airsql/emulator"
)

// session is an open database and whatever else must be closed with it (sql.DB.Close closes the
// connector itself).
type session struct {
	db        *sql.DB
	connector *airsql.Connector // db's: airsql sync reaches the base through its client
	closer    []io.Closer
}

func (s *session) Close() error {
	err := s.db.Close()
	for _, c := range s.closer {
		err = errors.Join(err, c.Close())
	}
	return err
}

// open connects to what the options and the environment name: a DSN (-dsn, then
// AIRTABLE_DSN), a token and a base (AIRTABLE_TOKEN and -base), or, when nothing is
// configured, the emulator's demo base in this process.
func open(o *options, getenv func(string) string, stderr io.Writer) (*session, error) {
	dsn := o.dsn
	if dsn == "" {
		dsn = getenv("AIRTABLE_DSN")
	}
	if dsn == "" && o.base != "" {
		dsn = "airtable:///" + o.base // the driver reads the token from the environment
	}
	if dsn == "" && (getenv("AIRTABLE_TOKEN") != "" || getenv("AIRTABLE_API_KEY") != "") {
		return nil, errors.New("AIRTABLE_TOKEN is set but no base is named: pass -base appXXXXXXXXXXXXXX or -dsn airtable:///appXXXXXXXXXXXXXX")
	}
	if dsn == "" {
		return openDemo(stderr)
	}
	cfg, err := airsql.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	return connect(cfg)
}

func connect(cfg *airsql.Config, closers ...io.Closer) (*session, error) {
	c, err := airsql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return &session{db: sql.OpenDB(c), connector: c, closer: closers}, nil
}

// openDemo starts the emulator with its demo base in this process, with the service's
// own rate limit, and connects to it.
func openDemo(stderr io.Writer) (*session, error) {
	srv, err := emulator.New(emulator.WithDemo())
	if err != nil {
		return nil, fmt.Errorf("starting the demo base: %w", err)
	}
	cfg := airsql.NewConfig()
	cfg.Token = emulator.DemoToken
	cfg.BaseID = emulator.DemoBaseID
	cfg.Host = "localhost"
	cfg.TLS = false
	cfg.HTTPClient = srv.Client()
	fmt.Fprintln(stderr, "airsql: no -dsn or AIRTABLE_TOKEN given: using the built-in demo base (in-process emulator); tables People, Projects, Tasks")
	return connect(cfg, srv)
}
