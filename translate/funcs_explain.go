package translate

import (
	"slices"
	"strings"
)

// LocalFunctions names the functions of the WHERE clause that are not written into the formula,
// because the service would not compute them as SQL does (or might not): they are evaluated locally,
// on the records a superset formula lets through. EXPLAIN lists them.
func (p *Plan) LocalFunctions() []string {
	if p.where == nil || p.Exact || p.RecordIDs != nil {
		return nil
	}
	var names []string
	var walk func(e *expr)
	walk = func(e *expr) {
		if e.kind == exFunc {
			if _, ok := (&pusher{}).function(e); !ok {
				name, _, _ := strings.Cut(e.op, " ") // CAST SIGNED is CAST, TRIM LEADING is TRIM
				if e.op == "POSITION IN" {
					name = "LOCATE"
				}
				if !slices.Contains(names, name) {
					names = append(names, name)
				}
			}
		}
		for _, a := range e.args {
			walk(a)
		}
	}
	walk(p.where)
	slices.Sort(names)
	return names
}
