package translate

// Constant JSON paths are read once per statement: a JSON function's path argument that is a
// literal (col->'$.a', JSON_EXTRACT(col, '$[1]')) is parsed when the call is compiled and kept
// in the call (expr.val), so that each row reads the document only. A path that is not constant,
// or that does not parse (the row's evaluation then reports MySQL's error 3143), is read per row.

// jsonConstPaths are the parsed constant paths of a call, by argument position (nil: read per row).
type jsonConstPaths []*jsonPath

// withConstPaths is a function's typ that also parses its constant path arguments: those at
// position from and after.
func withConstPaths(typ func(*funcCall) (sqlType, error), from int) func(*funcCall) (sqlType, error) {
	return func(fc *funcCall) (sqlType, error) {
		t, err := typ(fc)
		if err != nil {
			return t, err
		}
		var paths jsonConstPaths
		for i := from; i < len(fc.args); i++ {
			a := fc.args[i]
			text, ok := a.val.(string)
			if a.kind != exConst || !ok {
				continue
			}
			p, err := parseJSONPath(text)
			if err != nil {
				continue
			}
			if paths == nil {
				paths = make(jsonConstPaths, len(fc.args))
			}
			paths[i] = p
		}
		if paths != nil && fc.out.val == nil {
			fc.out.val = paths
		}
		return t, nil
	}
}

// jsonPathArg is argument i of a JSON call as a path: parsed when the call was compiled, or now.
func jsonPathArg(e *expr, v []any, i int) (*jsonPath, error) {
	if paths, ok := e.val.(jsonConstPaths); ok && i < len(paths) && paths[i] != nil {
		return paths[i], nil
	}
	return parseJSONPath(textArg(e, v, i))
}
