package sqlvalue

// Constant JSON paths are read once per statement: a JSON function's path argument that is a
// literal (col->'$.a', JSON_EXTRACT(col, '$[1]')) is parsed when the call is compiled and kept as
// the call's Param, so that each row reads the document only. A path that is not constant, or that
// does not parse (the row's evaluation then reports MySQL's error 3143), is read per row.

// jsonConstPaths are the parsed constant paths of a call, by argument position (nil: read per row).
type jsonConstPaths []*jsonPath

// withConstPaths is a function's type rule that also parses its constant path arguments: those at
// position from and after.
func withConstPaths(typ func(*Check) (Type, error), from int) func(*Check) (Type, error) {
	return func(fc *Check) (Type, error) {
		t, err := typ(fc)
		if err != nil {
			return t, err
		}
		var paths jsonConstPaths
		for i := from; i < len(fc.Args); i++ {
			a := fc.Args[i]
			text, ok := a.Value.(string)
			if !a.Const || !ok {
				continue
			}
			p, err := parseJSONPath(text)
			if err != nil {
				continue
			}
			if paths == nil {
				paths = make(jsonConstPaths, len(fc.Args))
			}
			paths[i] = p
		}
		if paths != nil && fc.Param == nil {
			fc.Param = paths
		}
		return t, nil
	}
}

// jsonPathArg is argument i of a JSON call as a path: parsed when the call was compiled, or now.
func jsonPathArg(e *Call, v []any, i int) (*jsonPath, error) {
	if paths, ok := e.Param.(jsonConstPaths); ok && i < len(paths) && paths[i] != nil {
		return paths[i], nil
	}
	return parseJSONPath(textArg(e, v, i))
}

// ConstPathArgs are the positions of a JSON call's path arguments that were parsed when it was
// compiled (param: the call's Param), in order; nil when every path is read per row.
func ConstPathArgs(param any) []int {
	paths, _ := param.(jsonConstPaths)
	var out []int
	for i, p := range paths {
		if p != nil {
			out = append(out, i)
		}
	}
	return out
}
