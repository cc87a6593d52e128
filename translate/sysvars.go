package translate

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/sqlvalue"
	"github.com/airsql/airsql/sysvar"
)

// System functions, system variables and SET.
//
// Drivers, ORMs and tools ask the server who it is and set up their session when they connect:
// SELECT VERSION(), @@version_comment, @@session.transaction_isolation, SET NAMES utf8mb4,
// SET autocommit = 1, SET SESSION sql_mode = '…'. The driver answers as a MySQL 8 server would,
// and accepts a SET only when the setting changes nothing the driver does differently; a setting it
// cannot honour (autocommit = 0, a time zone other than UTC, ANSI_QUOTES) is refused with the
// reason. Settings are remembered per connection (Session), as MySQL's session variables are.

// The server's identity (sysvar decides it): VERSION() and @@version, @@version_comment, and
// USER() when the session cannot say who the token acts for (the token itself is never shown).
const (
	ServerVersion  = sysvar.ServerVersion
	VersionComment = sysvar.VersionComment
	SessionUser    = sysvar.SessionUser
)

// maxStringResult is the longest text a function builds (max_allowed_packet): beyond it LPAD,
// RPAD and REPEAT give NULL, as MySQL does.
const maxStringResult = sysvar.MaxAllowedPacket

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
func lookupSysVar(name string) (string, *sysvar.Var, error) {
	key, v, ok := sysvar.Lookup(name)
	if !ok {
		return "", nil, fmtErr("unknown system variable '%s'", key)
	}
	return key, v, nil
}

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
	return v.Default(), nil
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
	if strings.EqualFold(stmt.Scope, sqlparser.GlobalStr) {
		return unsupported("SET GLOBAL", sqlparser.String(stmt), "global variables belong to the server; set the session's with SET SESSION")
	}
	pending := map[string]any{}
	sess.pendingUser = map[string]userVar{}
	defer func() { sess.pendingUser = nil }()
	s := newScope(nil, "", args)
	for _, se := range stmt.Exprs {
		if err := sess.check(s, stmt, se, pending); err != nil {
			return err
		}
	}
	if err := s.unusedArgs(); err != nil {
		return err
	}
	if err := sess.checkUserBytes(); err != nil {
		return err
	}
	sess.apply(pending)
	return nil
}

// check evaluates one assignment of SET: a user variable's value goes to pendingUser, a system
// variable's checked value to pending; nothing is applied yet.
func (sess *Session) check(s *scope, stmt *sqlparser.Set, se *sqlparser.SetExpr, pending map[string]any) error {
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
		return sess.setUser(name, x)
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
	if name != "names" && name != "charset" {
		return assignSysVar(pending, name, val, isDefault)
	}
	// SET NAMES cs: the client's, the connection's and the results' character set;
	// SET CHARACTER SET cs: the client's and the results' (the connection's is the database's).
	targets := []string{"character_set_client", "character_set_results", "character_set_connection"}
	if isDefault {
		val = "utf8mb4"
	}
	if name == "charset" {
		targets = targets[:2]
	}
	for _, t := range targets {
		if err := assignSysVar(pending, t, val, false); err != nil {
			return err
		}
	}
	return nil
}

// assignSysVar checks a value SET gives a system variable (DEFAULT: its default) and puts it,
// normalised, in pending.
func assignSysVar(pending map[string]any, name string, val any, isDefault bool) error {
	key, v, err := lookupSysVar(name)
	if err != nil {
		return err
	}
	if v.ReadOnly() {
		return fmtErr("SET %s: the variable is read-only", key)
	}
	if isDefault {
		pending[key] = v.Default()
		return nil
	}
	norm, err := v.Check(val)
	if err != nil {
		return fmtErr("SET %s = %s: %v", key, sqlvalue.Format(val, typeText), err)
	}
	pending[key] = norm
	return nil
}

// apply applies a SET whose assignments all passed their checks: the system variables in pending
// and the user variables in pendingUser.
func (sess *Session) apply(pending map[string]any) {
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

// Variables lists the system variables whose names match the LIKE pattern ("" for all), sorted by
// name, with their values as text, as SHOW VARIABLES shows them.
func (sess *Session) Variables(global bool, like string) [][2]string {
	var out [][2]string
	for _, n := range sysvar.Names() {
		if like != "" && !sqlvalue.Like(like, n, '\\') {
			continue
		}
		v, _ := sess.Variable(n, global)
		text := ""
		if v != nil {
			text = sqlvalue.Format(v, typeText)
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
