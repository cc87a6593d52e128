package transport

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/internal/clock"
)

// twoProcesses gives two pacers on one window file, as two processes of the machine would have.
func twoProcesses(t *testing.T, clk clock.Clock) (*pacer, *pacer) {
	t.Helper()
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("shared pacing needs flock, which this platform lacks")
	}
	dir := t.TempDir()
	mk := func() *pacer {
		p := newPacer(false, clk)
		st, err := openSharedWindow(dir, "https://api.airtable.com", testBase)
		if err != nil {
			t.Fatal(err)
		}
		p.shared = st
		t.Cleanup(p.close)
		return p
	}
	return mk(), mk()
}

func claim(t *testing.T, p *pacer, clk clock.Clock) time.Time {
	t.Helper()
	seq, err := p.wait(bg, clk)
	if err != nil {
		t.Fatal(err)
	}
	at := clk.Now()
	p.finish(seq, 0, true)
	return at
}

// TestSharedWindowAcrossTwoPacers: two pacers on one file (two processes) share one window of 5
// starts: between them, never a 6th start within a span of the 1st; and a 429 seen by one holds
// the other.
func TestSharedWindowAcrossTwoPacers(t *testing.T) {
	clk := newJumpClock()
	a, b := twoProcesses(t, clk)
	span := windowStarts * spacingFor(APILimit)
	var starts []time.Time
	for i := range 23 {
		p := a
		if i%3 == 1 {
			p = b
		}
		starts = append(starts, claim(t, p, clk))
	}
	for i := windowStarts; i < len(starts); i++ {
		if gap := starts[i].Sub(starts[i-windowStarts]); gap < span {
			t.Errorf("start %d came %v after the one 5 back, within the window of %v", i, gap, span)
		}
	}
	if starts[windowStarts-1] != starts[0] {
		t.Error("the first 5 starts of the two processes did not go at once")
	}
	// A 429 answered to a: b waits for its hold.
	a.hold(clk.Now().Add(RateLimitPenalty))
	before := clk.Now()
	at := claim(t, b, clk)
	if at.Sub(before) < RateLimitPenalty {
		t.Errorf("b started %v after a's 429, want the %v penalty", at.Sub(before), RateLimitPenalty)
	}
	if b.budget != windowStarts || a.budget != windowStarts/2 {
		t.Errorf("budgets a %d, b %d: only the pacer that drew the 429 halves its budget", a.budget, b.budget)
	}
}

// TestSharedWindowFileCutShort: a file a crash left half-written reads as an empty window.
func TestSharedWindowFileCutShort(t *testing.T) {
	clk := newJumpClock()
	a, _ := twoProcesses(t, clk)
	claim(t, a, clk)
	if err := a.shared.f.Truncate(20); err != nil {
		t.Fatal(err)
	}
	claim(t, a, clk)
	if a.shareErr != nil || a.shared == nil {
		t.Fatalf("a cut file stopped sharing: %v", a.shareErr)
	}
	if a.win.Seq != 1 {
		t.Errorf("after a cut file the window holds %d starts, want the 1 since", a.win.Seq)
	}
}

// TestAIMDAfter429: without a shared window, a 429 halves the starts per window; the budget stays
// there while the collision is remembered, then grows by one per probeAfter without a 429, to the
// whole window; a probe that collides halves it again.
func TestAIMDAfter429(t *testing.T) {
	clk := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	p := newPacer(false, clk)
	p.hold(clk.Now().Add(RateLimitPenalty))
	p.hold(clk.Now().Add(RateLimitPenalty)) // more 429s of the same penalty: no second cut
	if p.budget != 2 {
		t.Fatalf("after a 429: budget %d, want 2", p.budget)
	}
	clk.Advance(RateLimitPenalty)
	// The window now admits 2 starts per span.
	p.win = windowState{}
	for range 2 {
		p.mu.Lock()
		w, _ := p.windowWaitLocked(&p.win, clk.Now())
		p.mu.Unlock()
		if w != 0 {
			t.Fatalf("start within the budget waits %v", w)
		}
		p.win.Seq++
		p.win.Starts[p.win.Seq%ringStarts] = startRec{Seq: p.win.Seq, At: clk.Now(), Done: true}
	}
	p.mu.Lock()
	w, _ := p.windowWaitLocked(&p.win, clk.Now())
	p.mu.Unlock()
	if w != p.span() {
		t.Errorf("a 3rd start with a budget of 2 waits %v, want one span %v", w, p.span())
	}
	var budgets []int
	for range 16 {
		clk.Advance(probeAfter)
		p.finish(0, ms(100), true)
		budgets = append(budgets, p.budget)
	}
	// From 40 s to 110 s after the cut: inside ceilingMemory; then +1 every 10 s.
	if want := []int{2, 2, 2, 2, 2, 2, 2, 2, 3, 4, 5, 5, 5, 5, 5, 5}; !slices.Equal(budgets, want) {
		t.Errorf("budgets every %v: %v, want %v", probeAfter, budgets, want)
	}
	p.hold(clk.Now().Add(RateLimitPenalty))
	if p.budget != 2 {
		t.Errorf("a probe that collides: budget %d, want 2", p.budget)
	}
}

// The subprocess tests run this binary again as the "other process".
const helperEnv = "AIRSQL_PACING_HELPER"

// TestSharedPacingHelperProcess is not a test: it is the body of a subprocess. In "claim" mode it
// claims N starts on the window file in DIR at the real clock (APILimit 20 ms) and prints each
// start's time; in "hold" mode it takes the file's lock, says so, and waits to be killed.
func TestSharedPacingHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		return // run as a test: nothing to do (it is the body of the subprocesses above)
	}
	dir := os.Getenv("AIRSQL_PACING_DIR")
	st, err := openSharedWindow(dir, "https://api.airtable.com", testBase)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	switch mode {
	case "scan": // read the whole table through the emulator at AIRSQL_PACING_URL
		opts := []Option{WithEndpointURL(os.Getenv("AIRSQL_PACING_URL")), WithRetryStrategy(&Retry{Total: 100, BackoffFactor: 300 * time.Millisecond, MaxBackoff: time.Second, StatusForcelist: []int{429}})}
		if os.Getenv("AIRSQL_PACING_SHARED") == "1" {
			opts = append(opts, WithSharedPacing(dir))
		} else {
			opts = append(opts, WithSharedPacing(""))
		}
		tbl, err := NewTable(emulator.DefaultToken, emuBase, "My Tasks", opts...)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		n := 0
		for recs, err := range tbl.Iterate(context.Background(), ListOptions{}) {
			if err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
			n += len(recs)
		}
		fmt.Println(n)
		os.Exit(0)
	case "hold":
		if err := lockFile(st.f); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		select {}
	case "claim":
		APILimit = 20 * time.Millisecond
		p := newPacer(false, clock.Real)
		p.shared = st
		n, _ := strconv.Atoi(os.Getenv("AIRSQL_PACING_N"))
		for range n {
			seq, err := p.wait(context.Background(), clock.Real)
			if err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
			fmt.Println(p.win.Starts[seq%ringStarts].At.UnixNano())
			p.finish(seq, time.Millisecond, true)
		}
		os.Exit(0)
	}
}

func helperCmd(t *testing.T, mode, dir string, n int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestSharedPacingHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "AIRSQL_PACING_DIR="+dir, "AIRSQL_PACING_N="+strconv.Itoa(n))
	return cmd
}

// TestSharedPacingTwoRealProcesses: two real processes claiming starts on one window file never
// put 6 starts in one window between them (the claims are made and stamped under the file lock,
// so this holds however loaded the machine is).
func TestSharedPacingTwoRealProcesses(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("shared pacing needs flock, which this platform lacks")
	}
	dir := t.TempDir()
	const n = 15
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for range 2 {
		cmd := helperCmd(t, "claim", dir, n)
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	var starts []int64
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i])
		}
		for _, line := range strings.Fields(outs[i].String()) {
			if v, err := strconv.ParseInt(line, 10, 64); err == nil {
				starts = append(starts, v)
			}
		}
	}
	if len(starts) != 2*n {
		t.Fatalf("%d starts reported, want %d:\n%s\n%s", len(starts), 2*n, outs[0], outs[1])
	}
	slices.Sort(starts)
	span := int64(windowStarts * spacingFor(20*time.Millisecond))
	for i := windowStarts; i < len(starts); i++ {
		if gap := starts[i] - starts[i-windowStarts]; gap < span {
			t.Errorf("starts %d and %d of the two processes are %v apart, within one window (%v)", i-windowStarts, i, time.Duration(gap), time.Duration(span))
		}
	}
}

// TestSharedPacingSurvivesAKilledLockHolder: a process that dies holding the file's lock does not
// block the others.
func TestSharedPacingSurvivesAKilledLockHolder(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("shared pacing needs flock, which this platform lacks")
	}
	dir := t.TempDir()
	cmd := helperCmd(t, "hold", dir, 0)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "locked" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the holder said %q", line)
	}
	cmd.Process.Kill()
	cmd.Wait()
	p := newPacer(false, clock.Real)
	st, err := openSharedWindow(dir, "https://api.airtable.com", testBase)
	if err != nil {
		t.Fatal(err)
	}
	p.shared = st
	defer p.close()
	ctx, cancel := context.WithTimeout(bg, 30*time.Second)
	defer cancel()
	if _, err := p.wait(ctx, clock.Real); err != nil {
		t.Fatalf("after the lock holder died: %v", err)
	}
}

// TestWindowCountsFromTheSend: a start is judged by when its request was written to the
// connection, which every process records in the shared window, not by its claim: a process's
// first request (a new connection, a process starting up on a loaded machine) may leave tens of
// milliseconds after its claim, and the 5th start after it must wait a span from then — even in
// a process that has seen no round trip of its own (issue 23: processes starting together drew
// 429s). A start claimed but not yet sent holds the next one until it leaves.
func TestWindowCountsFromTheSend(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clock.NewFake(t0)
	a, b := twoProcesses(t, clk)
	a.arrivals, b.arrivals = true, true
	span := windowStarts * spacingFor(APILimit)
	seqs := make([]uint64, windowStarts)
	for i := range seqs {
		seq, err := a.wait(bg, clk)
		if err != nil {
			t.Fatal(err)
		}
		seqs[i] = seq
	}
	// The 2nd leaves 60 ms after its claim, the others at once; all are answered 200 ms after they left.
	for i, seq := range seqs {
		sent := t0
		if i == 1 {
			sent = t0.Add(ms(60))
		}
		a.sent(seq, sent, false)
	}
	clk.Advance(ms(200))
	for i, seq := range seqs {
		if i != 1 {
			a.finish(seq, ms(200), true)
		}
	}
	clk.Advance(ms(60))
	a.finish(seqs[1], ms(200), true)
	clk.Advance(span - ms(260))
	// b, a new process, knows no round trip: the window's records are all it has.
	ctx, cancel := context.WithTimeout(bg, 10*time.Second)
	defer cancel()
	if _, err := b.wait(ctx, clk); err != nil { // the 6th: a span after the 1st left, at once
		t.Fatal(err)
	}
	b.mu.Lock()
	wait, pending := b.windowWaitLocked(&b.win, clk.Now())
	b.mu.Unlock()
	if want := ms(60); wait != want || pending {
		t.Errorf("the 7th waits %v (pending %v), want %v: a span after the 2nd left, not after its claim", wait, pending, want)
	}

	// A 7th claim while the 2nd of this window has not left yet waits for it.
	w := b.win
	r := &w.Starts[seqs[1]%ringStarts]
	r.Sent, r.Done, r.Took = time.Time{}, false, 0
	b.mu.Lock()
	wait, pending = b.windowWaitLocked(&w, clk.Now())
	b.mu.Unlock()
	if wait <= 0 {
		t.Errorf("with the 2nd start not sent yet the 7th waits %v, want a wait for it", wait)
	}
}
