package formula

import (
	"math"
	"strings"
)

// asArray returns the elements of an array argument; a scalar counts as a one-element array and a
// blank as an empty one.
func asArray(v Value) []Value {
	switch v.kind {
	case KindArray:
		return v.arr
	case KindBlank:
		return nil
	}
	return []Value{v}
}

// arrayFunctions are the array functions, one entry each.
var arrayFunctions = []funcEntry{
	// ARRAYCOMPACT drops blanks and "" but keeps false and 0.
	{"ARRAYCOMPACT", 1, 1, fn1(func(_ *Env, a Value) Value {
		var out []Value
		for _, e := range asArray(a) {
			if e.kind == KindBlank || e.kind == KindText && e.str == "" {
				continue
			}
			out = append(out, e)
		}
		return Array(out)
	})},
	{"ARRAYFLATTEN", 1, 1, fn1(func(_ *Env, a Value) Value {
		return Array(flatten(nil, asArray(a)))
	})},
	// ARRAYJOIN's default separator is ", " (the reference leaves it unconfirmed).
	{"ARRAYJOIN", 1, 2, fnN(func(_ *Env, args []Value) Value {
		sep := ", "
		if s, ok := optional(args, 1); ok {
			sep = TextOf(s)
		}
		elems := flatten(nil, asArray(args[0]))
		parts := make([]string, len(elems))
		size := 0
		for i, e := range elems {
			parts[i] = TextOf(e)
			size += len(parts[i]) + len(sep)
		}
		if size > maxTextLen {
			return ErrorValue("ARRAYJOIN: the result is too long")
		}
		return Text(strings.Join(parts, sep))
	})},
	// ARRAYUNIQUE keeps the first of the elements that are equal in kind and text.
	{"ARRAYUNIQUE", 1, 1, fn1(func(_ *Env, a Value) Value {
		seen := map[string]bool{}
		var out []Value
		for _, e := range asArray(a) {
			key := e.kind.String() + ":" + TextOf(e)
			if !seen[key] {
				seen[key] = true
				out = append(out, e)
			}
		}
		return Array(out)
	})},
	// ARRAYSLICE(array, start, [end]): positions are 1-based and inclusive; negative positions
	// count from the end (-1 is the last element).
	{"ARRAYSLICE", 2, 3, fnN(func(_ *Env, args []Value) Value {
		elems := asArray(args[0])
		n := len(elems)
		start, bad := toNumber(args[1])
		if bad.kind == KindError {
			return bad
		}
		end := float64(n)
		if e, ok := optional(args, 2); ok {
			if end, bad = toNumber(e); bad.kind == KindError {
				return bad
			}
		}
		if math.IsNaN(start) || math.IsNaN(end) {
			return ErrorValue("ARRAYSLICE: NaN position")
		}
		from := position(start, n, true)
		to := position(end, n, false)
		if from >= to {
			return Array(nil)
		}
		return Array(elems[from:to])
	})},
}

func init() { registerAll(arrayFunctions) }

// position converts a 1-based inclusive position to a 0-based index: the start index when isStart,
// else the exclusive end index. The result is clamped to [0, n].
func position(p float64, n int, isStart bool) int {
	p = math.Trunc(p)
	var i float64
	switch {
	case p > 0 && isStart:
		i = p - 1
	case p > 0:
		i = p
	case p < 0 && isStart:
		i = float64(n) + p
	case p < 0:
		i = float64(n) + p + 1
	case isStart: // 0 as a start means the beginning
		i = 0
	default: // 0 as an end means nothing
		i = 0
	}
	return int(math.Max(0, math.Min(float64(n), i)))
}
