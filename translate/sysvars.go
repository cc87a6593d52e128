package translate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// System functions, system variables and SET.
//
// Drivers, ORMs and tools ask the server who it is and set up their session when they connect:
// SELECT VERSION(), @@version_comment, @@session.transaction_isolation, SET NAMES utf8mb4,
// SET autocommit = 1, SET SESSION sql_mode = '…'. The driver answers as a MySQL 8 server would,
// and accepts a SET only when the setting changes nothing the driver does differently; a setting it
// cannot honour (autocommit = 0, a time zone other than UTC, ANSI_QUOTES) is refused with the
// reason. Settings are remembered per connection (Session), as MySQL's session variables are.

// ServerVersion is VERSION() and @@version. It names MariaDB 10.11 because the SQL the driver runs
// is MariaDB's where the two differ in a way clients act on: INSERT/DELETE … RETURNING, which
// MariaDB has since 10.5 and MySQL lacks. GORM's MySQL dialector reads VERSION() and, for
// MariaDB ≥ 10.5, reads the ids of created records with RETURNING — the only way it can learn a
// record id, since ids are strings and LastInsertId cannot carry them. go-sql-driver/mysql and
// JDBC do not read VERSION(); tools that do see a MariaDB server, whose MySQL-protocol dialect
// the driver speaks. The suffix -airsql says what answers.
const ServerVersion = "10.11.0-MariaDB-airsql"

// VersionComment is @@version_comment (the MySQL client prints it when it connects).
const VersionComment = "airsql, a MySQL-compatible driver for Airtable"

// SessionUser is USER(), CURRENT_USER() and their kin when the session cannot say who the token
// acts for (Session.User is nil): the token itself is never shown.
const SessionUser = "airsql@localhost"

// Session is one connection's session state: what DATABASE() and CONNECTION_ID() answer and the
// system variables set with SET. The root package keeps one per connection and passes it in Args;
// it is not safe for concurrent use (database/sql uses a connection from one goroutine at a time).
type Session struct {
	Database     string // DATABASE(): the base id; "" answers NULL
	ConnectionID int64  // CONNECTION_ID()
	// User answers USER(), CURRENT_USER() and their kin: who the token acts for (the driver asks
	// Airtable's whoami once per connector). nil answers SessionUser.
	User        func() (string, error)
	vars        map[string]any
	user        map[string]userVar // user variables (session.go), by lower-case name
	userBytes   int                // the text they hold
	pendingUser map[string]userVar // assigned by the SET being run: read by its later assignments
}

// sysVar is one system variable clients read.
type sysVar struct {
	def any // int64 or string: the value of a new session, and the global value
	// set checks and normalises a value given with SET; nil means the variable is read-only.
	set func(v any) (any, error)
}

// Values SET accepts for every variable that only says how the client talks to the server.
func anyNumber(v any) (any, error) {
	n, ok := v.(int64)
	if !ok || n < 0 {
		return nil, fmt.Errorf("needs a non-negative integer")
	}
	return n, nil
}

func utf8Value(v any) (any, error) {
	if v == nil {
		return nil, nil // character_set_results = NULL: send text as it is, which is UTF-8
	}
	s, _ := v.(string)
	if !utf8Charset(s) {
		return nil, fmt.Errorf("the driver's text is UTF-8: only utf8mb4 (or utf8, utf8mb3) can be set")
	}
	return strings.ToLower(s), nil
}

func utf8Collation(v any) (any, error) {
	s, _ := v.(string)
	s = strings.ToLower(s)
	if !strings.HasPrefix(s, "utf8mb4_") && !strings.HasPrefix(s, "utf8_") && !strings.HasPrefix(s, "utf8mb3_") {
		return nil, fmt.Errorf("the driver's text is UTF-8: only a utf8mb4 collation can be set")
	}
	return s, nil
}

// onlyValue accepts one value (as a number or ON/OFF), and refuses the others with the reason.
func onlyValue(want int64, reason string) func(v any) (any, error) {
	return func(v any) (any, error) {
		n, ok := boolSetting(v)
		if !ok {
			return nil, fmt.Errorf("needs 0 or 1 (OFF or ON)")
		}
		if n != want {
			return nil, fmt.Errorf("%s", reason)
		}
		return n, nil
	}
}

// boolSetting reads 0, 1, ON, OFF, TRUE, FALSE.
func boolSetting(v any) (int64, bool) {
	switch v := v.(type) {
	case int64:
		if v == 0 || v == 1 {
			return v, true
		}
	case bool:
		return boolInt(v), true
	case string:
		switch strings.ToUpper(v) {
		case "ON", "TRUE", "1":
			return 1, true
		case "OFF", "FALSE", "0":
			return 0, true
		}
	}
	return 0, false
}

// defaultSQLMode is MySQL 8.0's default sql_mode.
const defaultSQLMode = "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

// sqlModes are the modes SET sql_mode accepts: those whose effect the driver has anyway or that
// change nothing it does (write strictness, zero dates it never accepts, NO_AUTO_CREATE_USER …).
// ANSI_QUOTES, PIPES_AS_CONCAT, NO_BACKSLASH_ESCAPES, HIGH_NOT_PRECEDENCE, ALLOW_INVALID_DATES and
// the ANSI group change how SQL is read or what it means, and are refused.
var sqlModes = map[string]bool{
	"ONLY_FULL_GROUP_BY": true, "STRICT_TRANS_TABLES": true, "STRICT_ALL_TABLES": true, "NO_ZERO_IN_DATE": true,
	"NO_ZERO_DATE": true, "ERROR_FOR_DIVISION_BY_ZERO": true, "NO_ENGINE_SUBSTITUTION": true, "NO_AUTO_CREATE_USER": true,
	"TRADITIONAL": true, "NO_AUTO_VALUE_ON_ZERO": true, "NO_DIR_IN_CREATE": true, "NO_UNSIGNED_SUBTRACTION": true,
	"PAD_CHAR_TO_FULL_LENGTH": true, "REAL_AS_FLOAT": true, "IGNORE_SPACE": true, "TIME_TRUNCATE_FRACTIONAL": false,
}

func sqlModeValue(v any) (any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("needs a list of modes, e.g. 'STRICT_TRANS_TABLES,NO_ZERO_DATE'")
	}
	var modes []string
	for _, m := range strings.Split(s, ",") {
		m = strings.ToUpper(strings.TrimSpace(m))
		if m == "" {
			continue
		}
		if !sqlModes[m] {
			return nil, fmt.Errorf("the mode %s is not supported: it changes how SQL is read or what it means, and the driver reads and runs SQL one way (accepted: %s)", m, acceptedModes())
		}
		if m == "TRADITIONAL" {
			modes = append(modes, "STRICT_TRANS_TABLES", "STRICT_ALL_TABLES", "NO_ZERO_IN_DATE", "NO_ZERO_DATE", "ERROR_FOR_DIVISION_BY_ZERO", "NO_ENGINE_SUBSTITUTION")
			continue
		}
		modes = append(modes, m)
	}
	var out []string
	for _, m := range modes {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return strings.Join(out, ","), nil
}

func acceptedModes() string {
	var names []string
	for m, ok := range sqlModes {
		if ok {
			names = append(names, m)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// timeZoneValue accepts only the ways of naming UTC: the driver's times are all UTC.
func timeZoneValue(v any) (any, error) {
	s, _ := v.(string)
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "SYSTEM", "UTC", "+00:00", "-00:00", "+0:00", "ETC/UTC", "GMT", "Z", "UCT", "ETC/GMT":
		return s, nil
	}
	return nil, fmt.Errorf("only UTC ('+00:00', 'UTC' or 'SYSTEM') is supported: the driver reads and writes every time in UTC; convert times in Go")
}

func isolationValue(v any) (any, error) {
	s, _ := v.(string)
	level := strings.ReplaceAll(strings.ToUpper(strings.TrimSpace(s)), " ", "-")
	switch level {
	case "READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE":
		// Airtable has no transactions, so no level changes what a statement sees; the level is
		// remembered for the clients that read it back.
		return level, nil
	}
	return nil, fmt.Errorf("needs READ-UNCOMMITTED, READ-COMMITTED, REPEATABLE-READ or SERIALIZABLE")
}

func weekFormatValue(v any) (any, error) {
	n, ok := v.(int64)
	if !ok || n < 0 || n > 7 {
		return nil, fmt.Errorf("needs a mode from 0 to 7")
	}
	return n, nil
}

// sysVars are the system variables the driver answers (lower-case names).
var sysVars = map[string]*sysVar{
	"version":            {def: ServerVersion},
	"version_comment":    {def: VersionComment},
	"version_compile_os": {def: "Linux"},
	"protocol_version":   {def: int64(10)},
	"sql_mode":           {def: defaultSQLMode, set: sqlModeValue},
	// autocommit = 0 makes every write part of a transaction that COMMIT ends (the driver's
	// client-side transactions: README, "Transactions"); the driver reads the setting back.
	"autocommit": {def: int64(1), set: func(v any) (any, error) {
		if n, ok := boolSetting(v); ok {
			return n, nil
		}
		return nil, fmt.Errorf("needs 0 or 1 (OFF or ON)")
	}},
	"time_zone":                {def: "SYSTEM", set: timeZoneValue},
	"system_time_zone":         {def: "UTC"},
	"transaction_isolation":    {def: "REPEATABLE-READ", set: isolationValue},
	"transaction_read_only":    {def: int64(0), set: onlyValue(0, "the driver has no read-only mode: use a token with only the data.records:read scope")},
	"max_allowed_packet":       {def: int64(maxStringResult)},
	"lower_case_table_names":   {def: int64(0)},
	"character_set_client":     {def: "utf8mb4", set: utf8Value},
	"character_set_connection": {def: "utf8mb4", set: utf8Value},
	"character_set_results":    {def: "utf8mb4", set: utf8Value},
	"character_set_database":   {def: "utf8mb4"},
	"character_set_server":     {def: "utf8mb4"},
	"character_set_system":     {def: "utf8mb3"},
	"collation_connection":     {def: "utf8mb4_bin", set: utf8Collation},
	"collation_database":       {def: "utf8mb4_bin"},
	"collation_server":         {def: "utf8mb4_bin"},
	"wait_timeout":             {def: int64(28800), set: anyNumber},
	"interactive_timeout":      {def: int64(28800), set: anyNumber},
	"net_write_timeout":        {def: int64(60), set: anyNumber},
	"net_read_timeout":         {def: int64(30), set: anyNumber},
	"net_buffer_length":        {def: int64(16384), set: anyNumber},
	"max_execution_time":       {def: int64(0), set: anyNumber},
	"lock_wait_timeout":        {def: int64(31536000), set: anyNumber},
	"group_concat_max_len":     {def: int64(1024), set: anyNumber},
	"default_week_format":      {def: int64(0), set: weekFormatValue},
	"sql_auto_is_null":         {def: int64(0), set: onlyValue(0, "the driver does not answer WHERE id IS NULL with the last inserted row")},
	"sql_safe_updates":         {def: int64(0), set: onlyValue(0, "the driver does not refuse UPDATE and DELETE without a key in WHERE")},
	"foreign_key_checks":       {def: int64(1), set: func(v any) (any, error) { return boolValue(v) }},
	"unique_checks":            {def: int64(1), set: func(v any) (any, error) { return boolValue(v) }},
	"sql_notes":                {def: int64(1), set: func(v any) (any, error) { return boolValue(v) }},
	"auto_increment_increment": {def: int64(1)},
	"auto_increment_offset":    {def: int64(1)},
	"init_connect":             {def: ""},
	"performance_schema":       {def: int64(0)},
	// MySQL Connector/J (DBeaver's MySQL driver) reads these when it connects, the query cache
	// ones from servers it takes for MySQL before 8.0.3: the driver has no query cache.
	"license":          {def: "GPL"},
	"query_cache_size": {def: int64(0)},
	"query_cache_type": {def: "OFF"},
	"warning_count":    {def: int64(0)},
	"error_count":      {def: int64(0)},
}

// Other names of variables.
var sysVarAliases = map[string]string{"tx_isolation": "transaction_isolation", "tx_read_only": "transaction_read_only"}

func boolValue(v any) (any, error) {
	n, ok := boolSetting(v)
	if !ok {
		return nil, fmt.Errorf("needs 0 or 1 (OFF or ON)")
	}
	return n, nil
}

func lookupSysVar(name string) (string, *sysVar, error) {
	name = strings.ToLower(name)
	if alias, ok := sysVarAliases[name]; ok {
		name = alias
	}
	v, ok := sysVars[name]
	if !ok {
		return "", nil, fmtErr("unknown system variable '%s'", name)
	}
	return name, v, nil
}

// Variable is a system variable's value: the session's (nil receiver: a new session's), or the
// global one.
func (sess *Session) Variable(name string, global bool) (any, error) {
	key, v, err := lookupSysVar(name)
	if err != nil {
		return nil, err
	}
	if !global && sess != nil {
		if val, ok := sess.vars[key]; ok {
			return val, nil
		}
	}
	return v.def, nil
}

func (sess *Session) weekFormat() int64 {
	v, _ := sess.Variable("default_week_format", false)
	n, _ := v.(int64)
	return n
}

// session is the statement's session (a new session's values when Args has none).
func (s *scope) session() *Session { return s.args.Session }

// sessionUser is what USER() and CURRENT_USER() answer.
func (s *scope) sessionUser() (string, error) {
	if sess := s.session(); sess != nil && sess.User != nil {
		u, err := sess.User()
		if err != nil {
			return "", fmt.Errorf("translate: USER(): asking Airtable who the token acts for: %w", err)
		}
		return u, nil
	}
	return SessionUser, nil
}

// variable compiles @@name, @@session.name, @@local.name and @@global.name, and user variables
// (@name, session.go); ok is false for other column names.
func (s *scope) variable(c *sqlparser.ColName) (*expr, bool, error) {
	name := c.Name.String()
	text := sqlparser.String(c)
	global := false
	if c.Qualifier.IsEmpty() && strings.HasPrefix(name, "@") && s.hasField(name) {
		return nil, false, nil // a field named `@x`: the parser does not say it was backquoted
	}
	switch {
	case c.Qualifier.IsEmpty() && strings.HasPrefix(name, "@@"):
		// The tokenizer reads @@session.name as one word.
		name = name[2:]
		if scope, rest, ok := strings.Cut(name, "."); ok {
			switch strings.ToLower(scope) {
			case "session", "local":
			case "global":
				global = true
			default:
				return nil, true, fmtErr("%s: the scope of a system variable is @@session, @@local or @@global", text)
			}
			name = rest
		}
	case c.Qualifier.IsEmpty() && strings.HasPrefix(name, "@"):
		x, err := s.compileUserVariable(name, text)
		return x, true, err
	case c.Qualifier.IsEmpty() && strings.EqualFold(name, "current_user") && !s.hasField(name):
		// CURRENT_USER without parentheses is the function. The parser does not say whether the
		// name was backquoted, so a field of that name (`current_user`) wins.
		user, err := s.sessionUser()
		if err != nil {
			return nil, true, err
		}
		return &expr{kind: exConst, typ: typeText, val: user, sql: text}, true, nil
	default:
		return nil, false, nil
	}
	v, err := s.session().Variable(name, global)
	if err != nil {
		return nil, true, err
	}
	typ := typeText
	switch v.(type) {
	case int64:
		typ = typeInt
	case nil:
		typ = typeNull
	}
	return &expr{kind: exConst, typ: typ, val: v, nullable: v == nil, sql: text}, true, nil
}

// Set runs a SET statement on the session: every assignment is checked first, and either all are
// applied or none (the error names the first that cannot be). Assignments are evaluated left to
// right: SET @a = 1, @b = @a + 1 sets @b to 2, as in MySQL.
func (sess *Session) Set(stmt *sqlparser.Set, args Args) error {
	args.Session = sess
	pending := map[string]any{}
	sess.pendingUser = map[string]userVar{}
	defer func() { sess.pendingUser = nil }()
	s := newScope(nil, "", args)
	assign := func(name string, val any, isDefault bool) error {
		key, v, err := lookupSysVar(name)
		if err != nil {
			return err
		}
		if v.set == nil {
			return fmtErr("SET %s: the variable is read-only", key)
		}
		if isDefault {
			pending[key] = v.def
			return nil
		}
		norm, err := v.set(val)
		if err != nil {
			return fmtErr("SET %s = %s: %v", key, sqlText(val, typeText), err)
		}
		pending[key] = norm
		return nil
	}
	if strings.EqualFold(stmt.Scope, sqlparser.GlobalStr) {
		return unsupported("SET GLOBAL", sqlparser.String(stmt), "global variables belong to the server; set the session's with SET SESSION")
	}
	for _, se := range stmt.Exprs {
		name := se.Name.Lowered()
		switch {
		case strings.HasPrefix(name, "@@global."):
			return unsupported("SET @@global", sqlparser.String(stmt), "global variables belong to the server; set the session's with SET @@session.name")
		case strings.HasPrefix(name, "@@session."):
			name = strings.TrimPrefix(name, "@@session.")
		case strings.HasPrefix(name, "@@local."):
			name = strings.TrimPrefix(name, "@@local.")
		case strings.HasPrefix(name, "@@"):
			name = name[2:]
		case strings.HasPrefix(name, "@"):
			if _, isDefault := se.Expr.(*sqlparser.Default); isDefault {
				return fmtErr("SET %s = DEFAULT: a user variable has no default value; SET %s = NULL forgets it", name, name)
			}
			x, err := setExpr(s, se.Expr)
			if err != nil {
				return err
			}
			if err := sess.setUser(name, x); err != nil {
				return err
			}
			continue
		}
		_, isDefault := se.Expr.(*sqlparser.Default)
		var val any
		if !isDefault {
			v, err := setValue(s, se.Expr)
			if err != nil {
				return err
			}
			val = v
		}
		switch name {
		case "names", "charset":
			// SET NAMES cs: the client's, the connection's and the results' character set;
			// SET CHARACTER SET cs: the client's and the results' (the connection's is the database's).
			targets := []string{"character_set_client", "character_set_results", "character_set_connection"}
			if isDefault {
				val, isDefault = "utf8mb4", false
			}
			if name == "charset" {
				targets = targets[:2]
			}
			for _, t := range targets {
				if err := assign(t, val, false); err != nil {
					return err
				}
			}
		default:
			if err := assign(name, val, isDefault); err != nil {
				return err
			}
		}
	}
	if err := s.unusedArgs(); err != nil {
		return err
	}
	if err := sess.checkUserBytes(); err != nil {
		return err
	}
	if sess.vars == nil {
		sess.vars = map[string]any{}
	}
	for k, v := range pending {
		sess.vars[k] = v
	}
	if len(sess.pendingUser) > 0 && sess.user == nil {
		sess.user = map[string]userVar{}
	}
	for k, v := range sess.pendingUser {
		sess.userBytes += v.size() - sess.user[k].size()
		if v.val == nil {
			delete(sess.user, k) // NULL: as if never set (MySQL answers NULL either way)
			continue
		}
		sess.user[k] = v
	}
	return nil
}

// setValue evaluates the value of a SET assignment: a constant expression (it may read system
// variables), or a bare word such as ON, SYSTEM or TRADITIONAL, read as text.
func setValue(s *scope, e sqlparser.Expr) (any, error) {
	if c, ok := e.(*sqlparser.ColName); ok && c.Qualifier.IsEmpty() && !strings.HasPrefix(c.Name.String(), "@") {
		return c.Name.String(), nil
	}
	x, err := setExpr(s, e)
	if err != nil {
		return nil, err
	}
	return x.val, nil
}

// setExpr evaluates a constant expression of SET in the statement's scope (one for all its
// assignments, so that each reads its own placeholders and Set checks that all were read).
func setExpr(s *scope, e sqlparser.Expr) (*expr, error) {
	x, err := s.compile(e)
	if err != nil {
		return nil, err
	}
	if x.kind != exConst {
		// The scope has no table, so the expression reads no record (41 + 1, CONCAT(@a, 'x')):
		// evaluated once, it is the constant.
		if x.reads(nil) {
			return nil, fmtErr("SET: %s is not a constant", sqlparser.String(e))
		}
		v, err := x.eval(&Row{})
		if err != nil {
			return nil, fmtErr("SET: %s: %v", sqlparser.String(e), err)
		}
		x = &expr{kind: exConst, typ: x.typ, val: v, nullable: v == nil, sql: x.sql}
	}
	return x, nil
}

func init() {
	constant := func(typ sqlType, val func(fc *funcCall) any) *funcDef {
		return &funcDef{min: 0, max: 0, typ: func(fc *funcCall) (sqlType, error) {
			fc.out.val = val(fc)
			if fc.out.val == nil {
				fc.nullable = true
			}
			return typ, nil
		}, eval: func(e *expr, v []any) any { return e.val }}
	}
	register("VERSION", constant(typeText, func(*funcCall) any { return ServerVersion }))
	register("DATABASE", constant(typeText, func(fc *funcCall) any {
		if sess := fc.s.session(); sess != nil && sess.Database != "" {
			return sess.Database
		}
		return nil
	}))
	user := &funcDef{min: 0, max: 0, typ: func(fc *funcCall) (sqlType, error) {
		u, err := fc.s.sessionUser()
		fc.out.val = u
		return typeText, err
	}, eval: func(e *expr, v []any) any { return e.val }}
	register("USER", user)
	register("CURRENT_USER", user)
	register("CONNECTION_ID", constant(typeInt, func(fc *funcCall) any {
		if sess := fc.s.session(); sess != nil {
			return sess.ConnectionID
		}
		return int64(0)
	}))
	// LAST_INSERT_ID() is 0: Airtable records have no AUTO_INCREMENT id (MySQL answers 0 on a
	// connection that inserted none).
	register("LAST_INSERT_ID", constant(typeInt, func(*funcCall) any { return int64(0) }))
}

// Variables lists the system variables whose names match the LIKE pattern ("" for all), sorted by
// name, with their values as text, as SHOW VARIABLES shows them.
func (sess *Session) Variables(global bool, like string) [][2]string {
	names := make([]string, 0, len(sysVars)+len(sysVarAliases))
	for n := range sysVars {
		names = append(names, n)
	}
	for n := range sysVarAliases {
		names = append(names, n)
	}
	slices.Sort(names)
	var out [][2]string
	for _, n := range names {
		if like != "" && !likeMatch(like, n, '\\') {
			continue
		}
		v, _ := sess.Variable(n, global)
		text := ""
		if v != nil {
			text = sqlText(v, typeText)
		}
		out = append(out, [2]string{n, text})
	}
	return out
}

// hasField reports whether the statement's table has a field of that name, in any case.
func (s *scope) hasField(name string) bool {
	if s.table == nil {
		return false
	}
	for _, f := range s.table.Fields {
		if strings.EqualFold(f.Name, name) {
			return true
		}
	}
	return false
}
