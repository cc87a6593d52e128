package syncdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // database/sql driver "sqlite", pure Go (no cgo)

	"github.com/airsql/airsql/replica"
	"github.com/airsql/airsql/translate"
)

// Target is the database a base is copied into.
type Target struct {
	db *sql.DB
	d  *dialect
	// steps counts the schema steps of the payload being applied, where DDL commits (ddl.go).
	steps *stepCount
}

// OpenTarget opens the database a URL names: sqlite:FILE (created when absent),
// postgres://user:password@host:port/dbname?sslmode=… (postgresql:// too) or
// mysql://user:password@host:port/dbname (MySQL 8 or MariaDB; ?socket=PATH for a unix socket,
// ?tls=true|skip-verify|preferred).
func OpenTarget(url string) (*Target, error) {
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(url, "sqlite:"), "//")
		if path == "" {
			return nil, errors.New("sqlite: needs a file name: sqlite:airtable.db")
		}
		// WAL: a reader of the copy does not block the sync (nor the other way round); a
		// transaction interrupted by a crash is rolled back when the file is next opened.
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate")
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1) // one writer; the payloads are applied one at a time anyway
		return &Target{db: db, d: sqliteDialect}, nil
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		cfg, err := pgx.ParseConfig(url)
		if err != nil {
			return nil, fmt.Errorf("sync target %s: %w", redactURL(url), err)
		}
		if !strings.Contains(url, "default_query_exec_mode") {
			// Prepared statements cached by pgx outlive the ALTER TABLEs a schema change makes
			// ("cached plan must not change result type"): describe each statement afresh.
			cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
		}
		return &Target{db: stdlib.OpenDB(*cfg), d: postgresDialect}, nil
	case strings.HasPrefix(url, "mysql://"):
		cfg, err := mysqlConfig(url)
		if err != nil {
			return nil, fmt.Errorf("sync target %s: %w", redactURL(url), err)
		}
		connector, err := mysql.NewConnector(cfg)
		if err != nil {
			return nil, fmt.Errorf("sync target %s: %w", redactURL(url), err)
		}
		return &Target{db: sql.OpenDB(connector), d: mysqlDialect}, nil
	}
	return nil, fmt.Errorf("sync target %q: give sqlite:FILE, postgres://user:password@host/dbname or mysql://user:password@host/dbname", redactURL(url))
}

// mysqlSQLMode is the sync's session sql_mode: ANSI_QUOTES, so that the statements quote
// identifiers as in the other dialects; strict, so that a value the column cannot hold is an
// error, not a warning and a changed value.
const mysqlSQLMode = "ANSI_QUOTES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,NO_ENGINE_SUBSTITUTION"

// mysqlConfig reads a mysql:// URL into go-sql-driver/mysql's configuration, with the session the
// sync needs: UTF-8 (utf8mb4), times in UTC, its sql_mode, DATETIME read as time.Time.
func mysqlConfig(raw string) (*mysql.Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("not a URL: give mysql://user:password@host:port/dbname")
	}
	cfg := mysql.NewConfig()
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	if cfg.DBName == "" || strings.Contains(cfg.DBName, "/") {
		return nil, errors.New("name one database: mysql://user:password@host:port/dbname")
	}
	cfg.Net, cfg.Addr = "tcp", u.Host
	if u.Port() == "" {
		cfg.Addr = u.Hostname() + ":3306"
	}
	for key, vals := range u.Query() {
		switch v := vals[len(vals)-1]; key {
		case "socket":
			cfg.Net, cfg.Addr = "unix", v
		case "tls":
			if !slices.Contains([]string{"true", "false", "skip-verify", "preferred"}, v) {
				return nil, fmt.Errorf("tls=%s: give true, false, skip-verify or preferred", v)
			}
			cfg.TLSConfig = v
		default:
			return nil, fmt.Errorf("unknown parameter %q: a mysql:// target takes socket and tls", key)
		}
	}
	if cfg.Net == "tcp" && u.Hostname() == "" {
		return nil, errors.New("name the server: mysql://user:password@host:port/dbname, or ?socket=PATH")
	}
	cfg.ParseTime, cfg.Loc = true, time.UTC
	cfg.InterpolateParams = true         // one round trip per statement instead of prepare, execute, close
	cfg.Collation = "utf8mb4_general_ci" // the connection's charset: utf8mb4 (MySQL's utf8 is 3 bytes)
	cfg.Params = map[string]string{"time_zone": "'+00:00'", "sql_mode": "'" + mysqlSQLMode + "'"}
	return cfg, nil
}

// redactURL hides a URL's password.
func redactURL(url string) string {
	if at := strings.LastIndex(url, "@"); at > 0 {
		if scheme := strings.Index(url, "://"); scheme > 0 && scheme < at {
			if colon := strings.Index(url[scheme+3:at], ":"); colon >= 0 {
				return url[:scheme+3+colon+1] + "…" + url[at:]
			}
		}
	}
	return url
}

// DB is the target's database handle (for reading the copy).
func (t *Target) DB() *sql.DB { return t.db }

// Dialect is "sqlite", "postgres" or "mysql".
func (t *Target) Dialect() string { return t.d.name }

// Close closes the database.
func (t *Target) Close() error { return t.db.Close() }

// The bookkeeping tables: where each table's copy is in its webhook's payloads, and the fields
// each SQL column holds (so that a restart knows the schema it built without asking the base).
const (
	syncTable   = "_airsql_sync"
	fieldsTable = "_airsql_sync_fields"
)

func (t *Target) ensureMeta(ctx context.Context) error {
	key, text := t.d.keyType, t.d.columnType("TEXT")
	for _, ddl := range []string{
		`CREATE TABLE IF NOT EXISTS ` + syncTable + ` ("base" ` + key + ` NOT NULL, "table_id" ` + key + ` NOT NULL, "table_name" ` + text + ` NOT NULL,
			"sql_name" ` + text + ` NOT NULL, "webhook_id" ` + text + ` NOT NULL, "cursor" BIGINT NOT NULL, "replay" BIGINT NOT NULL,
			"transaction_number" BIGINT NOT NULL, "updated_at" ` + text + ` NOT NULL, PRIMARY KEY ("base", "table_id"))` + t.d.tableOptions,
		`CREATE TABLE IF NOT EXISTS ` + fieldsTable + ` ("base" ` + key + ` NOT NULL, "table_id" ` + key + ` NOT NULL, "field_id" ` + key + ` NOT NULL,
			"position" INTEGER NOT NULL, "name" ` + text + ` NOT NULL, "type" ` + text + ` NOT NULL, "options" ` + text + ` NOT NULL,
			"sql_name" ` + text + ` NOT NULL, "junction" ` + text + ` NOT NULL, PRIMARY KEY ("base", "table_id", "field_id"))` + t.d.tableOptions,
	} {
		if _, err := t.db.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("create the bookkeeping table: %w", err)
		}
	}
	if t.d.ddlCommits {
		if _, err := t.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+stepsTable+` ("base" `+key+` NOT NULL PRIMARY KEY, "webhook_id" `+text+` NOT NULL,
			"cursor" BIGINT NOT NULL, "steps" INTEGER NOT NULL)`+t.d.tableOptions); err != nil {
			return fmt.Errorf("create the bookkeeping table: %w", err)
		}
	}
	return nil
}

// fieldState is one field as the target holds it.
type fieldState struct {
	replica.Field
	Options  map[string]any
	SQLName  string // its column
	Junction string // its junction table, for a link field
}

// tableState is one table as the target holds it.
type tableState struct {
	ID, Name, SQLName string
	Fields            map[string]fieldState
	Order             []string
	Webhook           string
	Cursor, Replay    int
	Transaction       int64
	shape             *shape
	// fieldsChanged says that a payload being applied renamed the table or changed its fields:
	// its bookkeeping of fields is written again with its cursor.
	fieldsChanged bool
}

func (ts *tableState) clone() *tableState {
	c := *ts
	c.Fields = maps.Clone(ts.Fields)
	c.Order = slices.Clone(ts.Order)
	return &c
}

// translateTable is the table as translate sees it, to type its columns.
func (ts *tableState) translateTable() *translate.Table {
	t := &translate.Table{ID: ts.ID, Name: ts.Name}
	for _, id := range ts.Order {
		f := ts.Fields[id]
		t.Fields = append(t.Fields, translate.Field{ID: f.ID, Name: f.Name, Type: f.Type, Options: f.Options})
	}
	return t
}

func (ts *tableState) reshape() error {
	sh, err := shapeOf(ts.translateTable())
	if err != nil {
		return err
	}
	ts.shape = sh
	return nil
}

// junctionName is the junction table of a link field.
func (d *dialect) junctionName(tableSQL, fieldSQL string) string {
	return d.fit(tableSQL + "__" + fieldSQL)
}

// columnNames are the SQL names taken in a table (id and createdTime included), but skip's.
func (ts *tableState) columnNames(skip string) map[string]bool {
	taken := map[string]bool{"id": true, "createdtime": true}
	for id, f := range ts.Fields {
		if id != skip {
			taken[strings.ToLower(f.SQLName)] = true
		}
	}
	return taken
}

// hookRow is the table_id of the base's own row in _airsql_sync: it names the webhook as soon as
// it is created, before any table is copied, so that a run killed during its first copy leaves no
// webhook that the next run does not know (the base allows ten).
const hookRow = ""

// loadState reads the bookkeeping of a base: the webhook its base row names ("" when none) and
// the tables.
func (t *Target) loadState(ctx context.Context, base string) (string, map[string]*tableState, error) {
	hook, tables, err := t.loadTables(ctx, base)
	if err != nil {
		return "", nil, err
	}
	if row := tables[hookRow]; row != nil {
		hook = row.Webhook
		delete(tables, hookRow)
	}
	for _, ts := range tables {
		if err := ts.reshape(); err != nil {
			return "", nil, err
		}
	}
	return hook, tables, nil
}

func (t *Target) loadTables(ctx context.Context, base string) (string, map[string]*tableState, error) {
	var other string
	err := t.db.QueryRowContext(ctx, `SELECT "base" FROM `+syncTable+` WHERE "base" <> `+t.d.placeholder(1)+` LIMIT 1`, base).Scan(&other)
	if err == nil {
		return "", nil, fmt.Errorf("this database holds a copy of base %s: copy base %s into another database (or drop the tables of %s and %s)", other, base, syncTable, fieldsTable)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", nil, err
	}
	tables := map[string]*tableState{}
	rows, err := t.db.QueryContext(ctx, `SELECT "table_id", "table_name", "sql_name", "webhook_id", "cursor", "replay", "transaction_number" FROM `+syncTable+` WHERE "base" = `+t.d.placeholder(1), base)
	if err != nil {
		return "", nil, err
	}
	for rows.Next() {
		ts := &tableState{Fields: map[string]fieldState{}}
		if err := rows.Scan(&ts.ID, &ts.Name, &ts.SQLName, &ts.Webhook, &ts.Cursor, &ts.Replay, &ts.Transaction); err != nil {
			rows.Close()
			return "", nil, err
		}
		tables[ts.ID] = ts
	}
	if err := rows.Close(); err != nil {
		return "", nil, err
	}
	rows, err = t.db.QueryContext(ctx, `SELECT "table_id", "field_id", "name", "type", "options", "sql_name", "junction" FROM `+fieldsTable+` WHERE "base" = `+t.d.placeholder(1)+` ORDER BY "table_id", "position"`, base)
	if err != nil {
		return "", nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var tableID, options string
		var f fieldState
		if err := rows.Scan(&tableID, &f.ID, &f.Name, &f.Type, &options, &f.SQLName, &f.Junction); err != nil {
			return "", nil, err
		}
		if err := json.Unmarshal([]byte(options), &f.Options); err != nil {
			return "", nil, fmt.Errorf("%s: the options of field %s: %w", fieldsTable, f.ID, err)
		}
		ts := tables[tableID]
		if ts == nil {
			continue
		}
		ts.Fields[f.ID] = f
		ts.Order = append(ts.Order, f.ID)
	}
	if err := rows.Err(); err != nil {
		return "", nil, err
	}
	return "", tables, nil
}
