package sqlvalue

import (
	"github.com/airsql/airsql/sysvar"
)

// maxStringResult is the longest text a function builds (max_allowed_packet): beyond it LPAD,
// RPAD, REPEAT and SPACE give NULL, as MySQL does (with a warning).
const maxStringResult = sysvar.MaxAllowedPacket

// The system functions: their values are the session's, fixed when the call is compiled (Env).

// systemFuncs is this file's part of the function table (funcTable), by name.
var systemFuncs = map[string]*Func{
	"VERSION": constant(Text, func(*Check) any { return sysvar.ServerVersion }),
	"DATABASE": constant(Text, func(fc *Check) any {
		if db := fc.Env.Database(); db != "" {
			return db
		}
		return nil
	}),
	"USER":         user,
	"CURRENT_USER": user,
	"CONNECTION_ID": constant(Int, func(fc *Check) any {
		return fc.Env.ConnectionID()
	}),
	// LAST_INSERT_ID() is 0: Airtable records have no AUTO_INCREMENT id (MySQL answers 0 on a
	// connection that inserted none).
	"LAST_INSERT_ID": constant(Int, func(*Check) any { return int64(0) }),
}

// constant is a function of no argument whose value the session gives when it is compiled.
func constant(typ Type, val func(fc *Check) any) *Func {
	return &Func{Min: 0, Max: 0, Type: func(fc *Check) (Type, error) {
		fc.Param = val(fc)
		if fc.Param == nil {
			fc.Nullable = true
		}
		return typ, nil
	}, Eval: func(e *Call, v []any) any { return e.Param }}
}

// user is USER() and CURRENT_USER().
var user = &Func{Min: 0, Max: 0, Type: func(fc *Check) (Type, error) {
	u, err := fc.Env.User()
	fc.Param = u
	return Text, err
}, Eval: func(e *Call, v []any) any { return e.Param }}
