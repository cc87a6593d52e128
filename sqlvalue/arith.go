package sqlvalue

import (
	"math"
)

// Arith is MySQL arithmetic: integers stay integers (falling back to float on overflow), / is real
// division, DIV integer division; division or modulo by zero is NULL.
func Arith(op string, a, b any) any {
	ia, aInt := IntOf(a)
	ib, bInt := IntOf(b)
	if aInt && bInt {
		switch op {
		case "+":
			if s := ia + ib; (s > ia) == (ib > 0) {
				return s
			}
		case "-":
			if d := ia - ib; (d < ia) == (ib > 0) {
				return d
			}
		case "*":
			if ia == 0 || ib == 0 {
				return int64(0)
			}
			if p := ia * ib; p/ib == ia && !(ia == -1 && ib == math.MinInt64) && !(ib == -1 && ia == math.MinInt64) {
				return p
			}
		case "div":
			if ib == 0 {
				return nil
			}
			if !(ia == math.MinInt64 && ib == -1) {
				return ia / ib
			}
		case "%":
			if ib == 0 {
				return nil
			}
			if ib == -1 {
				return int64(0)
			}
			return ia % ib
		}
	}
	fa, fb := FloatOf(a), FloatOf(b)
	switch op {
	case "+":
		return fa + fb
	case "-":
		return fa - fb
	case "*":
		return fa * fb
	case "/":
		if fb == 0 {
			return nil
		}
		return fa / fb
	case "div":
		if fb == 0 {
			return nil
		}
		q := math.Trunc(fa / fb)
		if math.Abs(q) < 1<<63 {
			return int64(q)
		}
		return q
	case "%":
		if fb == 0 {
			return nil
		}
		return math.Mod(fa, fb)
	}
	return nil
}
