package main

import (
	"reflect"
	"testing"
)

func TestSplitter(t *testing.T) {
	tests := []struct {
		name    string
		lines   []string
		want    []string
		pending bool
	}{
		{"one line", []string{"SELECT 1;"}, []string{"SELECT 1"}, false},
		{"two on a line", []string{"SELECT 1; SELECT 2;"}, []string{"SELECT 1", "SELECT 2"}, false},
		{"over lines", []string{"SELECT Name", "FROM Tasks", "WHERE x = 1;"}, []string{"SELECT Name\nFROM Tasks\nWHERE x = 1"}, false},
		{"unfinished", []string{"SELECT Name"}, nil, true},
		{"semicolon in string", []string{"SELECT 'a;b';"}, []string{"SELECT 'a;b'"}, false},
		{"escaped quote", []string{`SELECT 'it\'s;';`}, []string{`SELECT 'it\'s;'`}, false},
		{"backticks", []string{"SELECT `a;b` FROM t;"}, []string{"SELECT `a;b` FROM t"}, false},
		{"string over lines", []string{"SELECT 'a", ";b';"}, []string{"SELECT 'a\n;b'"}, false},
		{"line comment", []string{"SELECT 1 -- no; end", ";"}, []string{"SELECT 1 -- no; end"}, false},
		{"block comment", []string{"SELECT /* ; */ 1;"}, []string{"SELECT /* ; */ 1"}, false},
		{"empty statements", []string{";;", "  ;"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s splitter
			var got []string
			for _, l := range tt.lines {
				got = append(got, s.add(l)...)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("statements = %q, want %q", got, tt.want)
			}
			if s.pending() != tt.pending {
				t.Errorf("pending = %v, want %v", s.pending(), tt.pending)
			}
		})
	}
}

func FuzzSplitterNeverLosesText(f *testing.F) {
	for _, s := range []string{"SELECT 1;", "'a;b'", "`x`;y", "/* ; */;", "-- ;\n;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var s splitter
		for _, stmt := range s.add(in) {
			if stmt == "" {
				t.Fatalf("empty statement from %q", in)
			}
		}
	})
}
