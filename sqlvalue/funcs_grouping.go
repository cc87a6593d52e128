package sqlvalue

// RollupGrouping is the internal function GROUPING compiles to: its first argument is the rollup level,
// the others the positions of the keys it asks about.
const RollupGrouping = "ROLLUP GROUPING"

// groupingFuncs is this file's part of the function table (funcTable), by name.
var groupingFuncs = map[string]*Func{
	RollupGrouping: {Min: 2, Max: 65, Type: typeOf(Int), Eval: func(e *Call, v []any) any {
		level := ToInt(v[0])
		var bits int64
		for _, p := range v[1:] {
			bits <<= 1
			if ToInt(p) >= level {
				bits |= 1
			}
		}
		return bits
	}},
}
