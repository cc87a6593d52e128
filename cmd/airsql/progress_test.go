package main

import (
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql"
)

func TestProgressLine(t *testing.T) {
	var b strings.Builder
	p := &progressLine{w: &b}
	p.update(airsql.Progress{Table: "Tasks", Pages: 1, Records: 100, Elapsed: 100 * time.Millisecond})
	if b.Len() != 0 {
		t.Fatalf("a short scan drew %q", b.String())
	}
	p.update(airsql.Progress{Table: "Tasks", Pages: 4, Records: 400, Elapsed: time.Second})
	if got := b.String(); !strings.Contains(got, "Tasks: 400 records, 4 pages, 4.0 requests/s") {
		t.Fatalf("progress line %q", got)
	}
	p.update(airsql.Progress{Done: true})
	if !strings.HasSuffix(b.String(), "\r\033[K") {
		t.Fatalf("the line was not cleared: %q", b.String())
	}
}

func TestNoProgressWhenNotATerminal(t *testing.T) {
	var b strings.Builder
	s := &session{}
	ctx, done := s.trackProgress(t.Context(), &b, true)
	done()
	if ctx != t.Context() || b.Len() != 0 {
		t.Fatal("progress was drawn on something that is not a terminal")
	}
}
