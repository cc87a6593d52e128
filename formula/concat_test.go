package formula

import (
	"strings"
	"testing"
)

// pairwise is & evaluated two operands at a time, as before chains were evaluated at once.
func pairwise(t *testing.T, operands []string, rec Record) Value {
	t.Helper()
	acc := mustCompile(t, operands[0], benchSchema).Eval(rec, &Env{})
	for _, o := range operands[1:] {
		// (acc) & o, with acc as a constant of the same kind.
		acc = binary("&", constant(acc), mustCompile(t, o, benchSchema).root)(rec, &Env{})
	}
	return acc
}

// A chain of & gives what pairwise & gives: the text, the first error from the left, and the
// too-long error as soon as the text passes the limit.
func TestConcatChainAsPairwise(t *testing.T) {
	rec := benchData()[5]
	long := "'" + strings.Repeat("x", maxTextLen/2) + "'"
	for _, operands := range [][]string{
		{"{Name}", "'-'", "{Priority}", "'!'"},
		{"1", "2", "3", "4", "5"},
		{"{Name}", "1/0", "ERROR()", "'x'"},
		{"{Name}", "ERROR()", "1/0"},
		{long, long, long, "ERROR()"},
		{long, "'a'", long, "'b'"},
		{"'a'", "(" + "'b' & 'c'" + ")", "'d'"},
		{"''", "''", "''"},
	} {
		src := strings.Join(operands, " & ")
		got := mustCompile(t, src, benchSchema).Eval(rec, &Env{})
		want := pairwise(t, operands, rec)
		if got.kind != want.kind || got.str != want.str {
			t.Errorf("%.80s: chain %.80v, pairwise %.80v", src, got, want)
		}
	}
}

// BenchmarkConcatChain5000 evaluates a & chain of 5,000 field references (CONCAT of 5,000 columns).
func BenchmarkConcatChain5000(b *testing.B) {
	src := strings.TrimSuffix(strings.Repeat("{Name} & ", 5000), " & ")
	p, err := Compile(src, benchSchema)
	if err != nil {
		b.Fatal(err)
	}
	rec := benchData()[7]
	env := &Env{}
	b.ReportAllocs()
	for b.Loop() {
		if v := p.Eval(rec, env); v.kind != KindText {
			b.Fatalf("got %v", v)
		}
	}
}
