package sqlvalue

// Flow control (MySQL 8 manual, 14.5 "Flow Control Functions"): CASE, IF, IFNULL, NULLIF and
// COALESCE. The result type is Unify of the possible results (numbers stay numbers, a mix of
// text and numbers is text), and each result is converted to it. CASE and IF are compiled to one
// form: arguments condition, result, condition, result, …, else (NULL when there is no ELSE).

// controlFuncs is this file's part of the function table (funcTable), by name.
var controlFuncs = map[string]*Func{
	"CASE": {Min: 1, Max: -1, NullArgs: true, Type: func(fc *Check) (Type, error) {
		results := []Arg{fc.Args[len(fc.Args)-1]}
		for i := 1; i < len(fc.Args)-1; i += 2 {
			results = append(results, fc.Args[i])
		}
		return unifyArgs(results), nil
	}, Nullable: func(args []Arg) bool {
		for i := 1; i < len(args)-1; i += 2 {
			if args[i].Nullable || args[i].Type == Null {
				return true
			}
		}
		last := args[len(args)-1]
		return last.Nullable || last.Type == Null
	}, Eval: func(e *Call, v []any) any {
		last := len(v) - 1
		for i := 0; i < last; i += 2 {
			if v[i] == true {
				return convertArg(e, i+1, v[i+1])
			}
		}
		return convertArg(e, last, v[last])
	}},
	"COALESCE": coalesce,
	"IFNULL":   ifnull,
	// NULLIF(a, b) is compiled as (a = b, a): NULL when the comparison is TRUE, else a. The
	// planner compiles the comparison with its conversions (translate's specialCall).
	"NULLIF": {Min: 2, Max: 2, NullArgs: true, Type: func(fc *Check) (Type, error) {
		return Unify(fc.Args[1].Type), nil // a condition passed on is a plain BIGINT
	}, Nullable: func([]Arg) bool { return true }, Eval: func(e *Call, v []any) any {
		if v[0] == true {
			return nil
		}
		return convertArg(e, 1, v[1])
	}},
}

// coalesce is COALESCE: the first argument that is not NULL, converted to the call's type.
var coalesce = &Func{Min: 1, Max: -1, NullArgs: true, Type: typeOfValues, Nullable: func(args []Arg) bool {
	for _, a := range args {
		if !a.Nullable && a.Type != Null {
			return false
		}
	}
	return true
}, Eval: func(e *Call, v []any) any {
	for i, x := range v {
		if x != nil {
			return convertArg(e, i, x)
		}
	}
	return nil
}}

// ifnull is IFNULL(a, b): COALESCE of two.
var ifnull = func() *Func {
	f := *coalesce
	f.Min, f.Max = 2, 2
	return &f
}()
