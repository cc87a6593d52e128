package formula

import "sync"

type builder = func(c *compiler, call *Call, args []evalFn) (evalFn, *Error)

// fn0 .. fn3 and fnN build strict functions: every argument is evaluated, and an error argument is
// the result. fn0..fn3 pass arguments by value and so never allocate; fnN collects them in a slice.
func fn0(f func(rec Record, env *Env) Value) builder {
	return func(_ *compiler, _ *Call, _ []evalFn) (evalFn, *Error) { return f, nil }
}

func fn1(f func(env *Env, a Value) Value) builder {
	return func(_ *compiler, _ *Call, args []evalFn) (evalFn, *Error) {
		x := args[0]
		return func(rec Record, env *Env) Value {
			a := x(rec, env)
			if a.kind == KindError {
				return a
			}
			return f(env, a)
		}, nil
	}
}

func fn2(f func(env *Env, a, b Value) Value) builder {
	return func(_ *compiler, _ *Call, args []evalFn) (evalFn, *Error) {
		x, y := args[0], args[1]
		return func(rec Record, env *Env) Value {
			a := x(rec, env)
			if a.kind == KindError {
				return a
			}
			b := y(rec, env)
			if b.kind == KindError {
				return b
			}
			return f(env, a, b)
		}, nil
	}
}

func fn3(f func(env *Env, a, b, c Value) Value) builder {
	return func(_ *compiler, _ *Call, args []evalFn) (evalFn, *Error) {
		x, y, z := args[0], args[1], args[2]
		return func(rec Record, env *Env) Value {
			a := x(rec, env)
			if a.kind == KindError {
				return a
			}
			b := y(rec, env)
			if b.kind == KindError {
				return b
			}
			c := z(rec, env)
			if c.kind == KindError {
				return c
			}
			return f(env, a, b, c)
		}, nil
	}
}

func fnN(f func(env *Env, args []Value) Value) builder {
	return func(_ *compiler, _ *Call, args []evalFn) (evalFn, *Error) {
		return func(rec Record, env *Env) Value {
			vals := make([]Value, len(args))
			for i, arg := range args {
				v := arg(rec, env)
				if v.kind == KindError {
					return v
				}
				vals[i] = v
			}
			return f(env, vals)
		}, nil
	}
}

// textResolver returns how one call site turns its argument's text into a T (a compiled pattern, a
// loaded zone) with build. A string literal is built once, here; any other argument is built as
// evaluation meets each text, and the results are kept (callSiteCache).
func textResolver[T any](arg Node, build func(text string) (T, error)) func(text string) (T, error) {
	if lit, ok := arg.(*StringLit); ok {
		v, err := build(lit.Value)
		return func(string) (T, error) { return v, err }
	}
	cache := &callSiteCache[T]{}
	return func(text string) (T, error) { return cache.get(text, build) }
}

// callSiteCache keeps what one call site built from the texts it met at evaluation time, up to 64 of
// them: when full it starts over. A Program is safe for concurrent use, so the cache is locked.
type callSiteCache[T any] struct {
	mu sync.Mutex
	m  map[string]T
}

func (c *callSiteCache[T]) get(text string, build func(string) (T, error)) (T, error) {
	c.mu.Lock()
	v, ok := c.m[text]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := build(text)
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= 64 {
		c.m = map[string]T{}
	}
	c.m[text] = v
	c.mu.Unlock()
	return v, nil
}

// optional returns args[i], or the zero Value (blank) when the call left it out.
func optional(args []Value, i int) (Value, bool) {
	if i < len(args) {
		return args[i], true
	}
	return Value{}, false
}

// logicFunctions are the logical functions and the constants TRUE, FALSE and BLANK, one entry each.
var logicFunctions = []funcEntry{
	{"TRUE", 0, 0, fn0(func(Record, *Env) Value { return Bool(true) })},
	{"FALSE", 0, 0, fn0(func(Record, *Env) Value { return Bool(false) })},
	{"BLANK", 0, 0, fn0(func(Record, *Env) Value { return Value{} })},
	{"ERROR", 0, 0, fn0(func(Record, *Env) Value { return ErrorValue("ERROR()") })},
	{"RECORD_ID", 0, 0, fn0(func(rec Record, _ *Env) Value {
		if rec == nil {
			return Text("")
		}
		return Text(rec.RecordID())
	})},

	// AND, OR and XOR evaluate every argument; an error argument makes the result an error.
	// An array argument counts by its elements: AND({Lookup}) is true when every element is.
	{"AND", 1, -1, logical(func(trues, total int) bool { return trues == total })},
	{"OR", 1, -1, logical(func(trues, _ int) bool { return trues > 0 })},
	{"XOR", 1, -1, logical(func(trues, _ int) bool { return trues%2 == 1 })},
	{"NOT", 1, 1, fn1(func(_ *Env, a Value) Value { return Bool(!a.Truthy()) })},

	{"IF", 2, 3, func(_ *compiler, _ *Call, args []evalFn) (evalFn, *Error) {
		cond, then := args[0], args[1]
		otherwise := constant(Value{})
		if len(args) == 3 {
			otherwise = args[2]
		}
		return func(rec Record, env *Env) Value {
			c := cond(rec, env)
			if c.kind == KindError {
				return c
			}
			if c.Truthy() {
				return then(rec, env)
			}
			return otherwise(rec, env)
		}, nil
	}},

	// SWITCH(expr, pattern1, result1, ..., [default]): the result of the first pattern equal (=) to
	// expr, else the default, else blank.
	{"SWITCH", 2, -1, func(_ *compiler, _ *Call, args []evalFn) (evalFn, *Error) {
		return func(rec Record, env *Env) Value {
			x := args[0](rec, env)
			if x.kind == KindError {
				return x
			}
			rest := args[1:]
			for len(rest) >= 2 {
				p := rest[0](rec, env)
				if p.kind == KindError {
					return p
				}
				if equal(x, p, env).num != 0 {
					return rest[1](rec, env)
				}
				rest = rest[2:]
			}
			if len(rest) == 1 {
				return rest[0](rec, env)
			}
			return Value{}
		}, nil
	}},

	{"ISERROR", 1, 1, func(_ *compiler, _ *Call, args []evalFn) (evalFn, *Error) {
		x := args[0]
		return func(rec Record, env *Env) Value {
			v := x(rec, env)
			if v.kind == KindArray {
				for _, e := range v.arr {
					if e.kind == KindError {
						return Bool(true)
					}
				}
			}
			return Bool(v.kind == KindError)
		}, nil
	}},
}

func init() { registerAll(logicFunctions) }

func logical(decide func(trues, total int) bool) builder {
	return func(_ *compiler, _ *Call, args []evalFn) (evalFn, *Error) {
		return func(rec Record, env *Env) Value {
			trues, total := 0, 0
			for _, arg := range args {
				v := arg(rec, env)
				switch v.kind {
				case KindError:
					return v
				case KindArray:
					if len(v.arr) == 0 {
						total++ // an empty array is false
					}
					for _, e := range v.arr {
						if e.kind == KindError {
							return e
						}
						total++
						if e.Truthy() {
							trues++
						}
					}
				default:
					total++
					if v.Truthy() {
						trues++
					}
				}
			}
			return Bool(decide(trues, total))
		}, nil
	}
}
