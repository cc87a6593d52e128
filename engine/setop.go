package engine

import (
	"context"
	"io"
	"strings"

	"github.com/airsql/airsql/sqlvalue"
	"github.com/airsql/airsql/translate"
)

// setOp is INTERSECT or EXCEPT: it reads the second branch's rows into a count per distinct row
// (compared as DISTINCT compares them: sqlvalue.AppendKey, NULLs equal), then passes the first
// branch's rows that are (INTERSECT) or are not (EXCEPT) among them. With all, each row of the
// second pairs off with one equal row of the first (INTERSECT ALL keeps min(m, n) copies of a row,
// EXCEPT ALL max(m-n, 0)); without, the Query above is Distinct. The held distinct rows of the
// second count against the row budget. Both branches' scans start together.
type setOp struct {
	op            translate.SetOp
	all           bool
	first, second Operator
	columns       int
	budget        *Budget
	counts        map[string]int // nil until the second branch is read
	started       bool
	buf           []byte
}

func (s *setOp) key(r translate.Row) string {
	s.buf = s.buf[:0]
	for _, v := range r.Values[:s.columns] {
		s.buf = sqlvalue.AppendKey(s.buf, v)
	}
	return string(s.buf)
}

func (s *setOp) Next(ctx context.Context) (translate.Row, error) {
	if !s.started {
		s.started = true
		Start(ctx, s.first)
		Start(ctx, s.second)
	}
	if s.counts == nil {
		s.counts = map[string]int{}
		for {
			r, err := s.second.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				return translate.Row{}, err
			}
			k := s.key(r)
			if _, seen := s.counts[k]; !seen {
				if err := s.budget.Hold(1, s.op.String()); err != nil {
					return translate.Row{}, err
				}
			}
			s.counts[k]++
		}
		s.second.Close()
	}
	for {
		r, err := s.first.Next(ctx)
		if err != nil {
			return r, err
		}
		k := s.key(r)
		n := s.counts[k]
		if s.all && n > 0 {
			s.counts[k] = n - 1
		}
		if (s.op == translate.SetIntersect) == (n > 0) {
			return r, nil
		}
	}
}

func (s *setOp) Close() {
	s.first.Close()
	s.second.Close()
	s.counts = map[string]int{}
}

func (s *setOp) Explain() Node {
	d := "the first SELECT's rows found among the second's (NULLs equal)"
	if s.op == translate.SetExcept {
		d = "the first SELECT's rows not found among the second's (NULLs equal)"
	}
	if s.all {
		d += ", each row of the second pairing off with one of the first"
	}
	op := strings.ToLower(s.op.String())
	if s.all {
		op += " all"
	}
	return Node{Op: op, Detail: d, Inputs: []Node{s.first.Explain(), s.second.Explain()}}
}
