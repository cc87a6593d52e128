// Package sysvar is MySQL's system variables as the driver answers them, and the server's version:
// what clients read when they connect (SELECT @@version_comment, SHOW VARIABLES LIKE 'sql_mode')
// and what SET may change. It holds the names, the default values and the check of each value SET
// gives; a connection's values live in translate.Session, and the MySQL server (airsql serve)
// reaches the version through the driver's public API (airsql.ServerVersion).
package sysvar

import (
	"fmt"
	"slices"
	"strings"
)

// ServerVersion is VERSION() and @@version. It names MariaDB 10.11 because the SQL the driver runs
// is MariaDB's where the two differ in a way clients act on: INSERT/DELETE … RETURNING, which
// MariaDB has since 10.5 and MySQL lacks. GORM's MySQL dialector reads VERSION() and, for
// MariaDB ≥ 10.5, reads the ids of created records with RETURNING — the only way it can learn a
// record id, since ids are strings and LastInsertId cannot carry them. go-sql-driver/mysql and
// JDBC do not read VERSION(); tools that do see a MariaDB server, whose MySQL-protocol dialect
// the driver speaks. The suffix -airsql says what answers.
const ServerVersion = "10.11.0-MariaDB-airsql"

// VersionID is ServerVersion as a version comment writes it (/*!NNNNN … */): major*10000 +
// minor*100 + patch. The front end runs the text of a version comment whose number is at most this.
const VersionID = 10*10000 + 11*100 + 0

// VersionComment is @@version_comment (the MySQL client prints it when it connects).
const VersionComment = "airsql, a MySQL-compatible driver for Airtable"

// SessionUser is USER(), CURRENT_USER() and their kin when the session cannot say who the token
// acts for (Session.User is nil): the token itself is never shown.
const SessionUser = "airsql@localhost"

// MaxAllowedPacket is max_allowed_packet: the longest text a function builds (64 MiB); beyond it
// LPAD, RPAD and REPEAT give NULL, as MySQL does.
const MaxAllowedPacket = 64 << 20

// Var is one system variable clients read.
type Var struct {
	def any // int64 or string: the value of a new session, and the global value
	// set checks and normalises a value given with SET; nil means the variable is read-only.
	set func(v any) (any, error)
}

// Default is the value of a new session, and the global value: an int64 or a string.
func (v *Var) Default() any { return v.def }

// ReadOnly reports whether SET cannot change the variable.
func (v *Var) ReadOnly() bool { return v.set == nil }

// Check checks a value given with SET and returns it normalised (ON is 1, a mode list upper-case
// without repeats); the error says which values the variable takes.
func (v *Var) Check(val any) (any, error) { return v.set(val) }

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
		if v {
			return 1, true
		}
		return 0, true
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

// DefaultSQLMode is MySQL 8.0's default sql_mode.
const DefaultSQLMode = "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

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
var sysVars = map[string]*Var{
	"version":            {def: ServerVersion},
	"version_comment":    {def: VersionComment},
	"version_compile_os": {def: "Linux"},
	"protocol_version":   {def: int64(10)},
	"sql_mode":           {def: DefaultSQLMode, set: sqlModeValue},
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
	"max_allowed_packet":       {def: int64(MaxAllowedPacket)},
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

func utf8Charset(cs string) bool {
	switch strings.ToLower(strings.Trim(cs, "'\"`")) {
	case "utf8mb4", "utf8", "utf8mb3":
		return true
	}
	return false
}

// Lookup finds a variable by name in any case, or by another name (tx_isolation); key is the
// variable's own lower-case name. ok is false for a name MySQL's clients are not answered.
func Lookup(name string) (key string, v *Var, ok bool) {
	name = strings.ToLower(name)
	if alias, isAlias := sysVarAliases[name]; isAlias {
		name = alias
	}
	v, ok = sysVars[name]
	return name, v, ok
}

// Names are the names of every variable and of their other names, sorted (SHOW VARIABLES).
func Names() []string {
	names := make([]string, 0, len(sysVars)+len(sysVarAliases))
	for n := range sysVars {
		names = append(names, n)
	}
	for n := range sysVarAliases {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
