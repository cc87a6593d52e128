package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/airsql/airsql"
)

// progressDelay is how long a scan runs before its progress line appears: short statements
// print nothing.
const progressDelay = 500 * time.Millisecond

// progressLine draws one line on a terminal, rewritten in place, for a scan under way.
type progressLine struct {
	w     io.Writer
	shown bool
}

func (p *progressLine) update(pr airsql.Progress) {
	if pr.Done {
		if p.shown {
			fmt.Fprint(p.w, "\r\033[K") // clear the line before the result is printed
			p.shown = false
		}
		return
	}
	if pr.Elapsed < progressDelay {
		return
	}
	rate := float64(pr.Pages) / pr.Elapsed.Seconds()
	fmt.Fprintf(p.w, "\r\033[K%s: %d records, %d pages, %.1f requests/s, %s", pr.Table, pr.Records, pr.Pages, rate, pr.Elapsed.Round(100*time.Millisecond))
	p.shown = true
}

// trackProgress asks the driver for scan progress when w is a terminal (and the user has not
// turned it off), and draws it there. done clears the line.
func (s *session) trackProgress(ctx context.Context, w io.Writer, enabled bool) (context.Context, func()) {
	if !enabled || !isTerminal(w) {
		return ctx, func() {}
	}
	line := &progressLine{w: w}
	return airsql.WithProgress(ctx, line.update), func() { line.update(airsql.Progress{Done: true}) }
}

// isTerminal reports whether w is a terminal. The shell's own line editor (interactive mode)
// counts: it writes to one.
func isTerminal(w io.Writer) bool {
	switch w := w.(type) {
	case *os.File:
		return term.IsTerminal(int(w.Fd()))
	case *term.Terminal:
		return true
	}
	return false
}
