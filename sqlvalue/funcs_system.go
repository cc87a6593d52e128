package sqlvalue

import (
	"github.com/airsql/airsql/sysvar"
)

// maxStringResult is the longest text a function builds (max_allowed_packet): beyond it LPAD,
// RPAD, REPEAT and SPACE give NULL, as MySQL does (with a warning).
const maxStringResult = sysvar.MaxAllowedPacket

// The system functions: their values are the session's, fixed when the call is compiled (Env).

func init() {
	constant := func(typ Type, val func(fc *Check) any) *Func {
		return &Func{Min: 0, Max: 0, Type: func(fc *Check) (Type, error) {
			fc.Param = val(fc)
			if fc.Param == nil {
				fc.Nullable = true
			}
			return typ, nil
		}, Eval: func(e *Call, v []any) any { return e.Param }}
	}
	register("VERSION", constant(Text, func(*Check) any { return sysvar.ServerVersion }))
	register("DATABASE", constant(Text, func(fc *Check) any {
		if db := fc.Env.Database(); db != "" {
			return db
		}
		return nil
	}))
	user := &Func{Min: 0, Max: 0, Type: func(fc *Check) (Type, error) {
		u, err := fc.Env.User()
		fc.Param = u
		return Text, err
	}, Eval: func(e *Call, v []any) any { return e.Param }}
	register("USER", user)
	register("CURRENT_USER", user)
	register("CONNECTION_ID", constant(Int, func(fc *Check) any {
		return fc.Env.ConnectionID()
	}))
	// LAST_INSERT_ID() is 0: Airtable records have no AUTO_INCREMENT id (MySQL answers 0 on a
	// connection that inserted none).
	register("LAST_INSERT_ID", constant(Int, func(*Check) any { return int64(0) }))
}
