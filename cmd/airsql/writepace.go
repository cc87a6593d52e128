package main

import (
	"fmt"
	"io"
	"time"

	"github.com/airsql/airsql/frontend"
)

// Autocommit writes, one request each.
//
// Outside a transaction every INSERT is sent when it runs: a one-row INSERT is one request, one
// round trip, and the next waits for it. At 300 ms of latency 1,000 of them take 307 s (3.3
// records/s, 0.065 of the service's 50 records/s); inside BEGIN … COMMIT the same statements are
// queued and COMMIT sends them in chunks of 10, several at once: 21 s (0.957 of 50/s). Scripts of
// one-row INSERTs are common (dumps, generated SQL), and nothing in their output says why they
// are slow, so the shell says it once, with what it measured.

// slowWriteRun is how many consecutive one-row INSERTs, each taking at least slowWrite, make the
// shell say so.
const (
	slowWriteRun = 10
	slowWrite    = 50 * time.Millisecond
)

// txRecordsPerSecond is what a transaction's COMMIT of one-row INSERTs reached at the service's
// 5 requests/s and 300 ms latency (BenchmarkTxOneRowInsertsAtServiceRate: 0.957 of 50 records/s).
const txRecordsPerSecond = 47.9

// writeRun watches the one-row INSERTs run one after another, each sent as its own request.
type writeRun struct {
	n       int
	elapsed time.Duration
	told    bool
}

// add records one statement that wrote rows in took; it returns the notice to print, if any
// (once per shell).
func (w *writeRun) add(st frontend.Statement, rows int64, took time.Duration) string {
	_, isInsert := st.(*frontend.Insert)
	if rows != 1 || took < slowWrite || !isInsert {
		w.n, w.elapsed = 0, 0 // queued in a transaction, or not a run of one-row INSERTs
		return ""
	}
	w.n++
	w.elapsed += took
	if w.told || w.n < slowWriteRun {
		return ""
	}
	w.told = true
	each := w.elapsed / time.Duration(w.n)
	var inTx float64 = 1000 / txRecordsPerSecond // seconds
	return fmt.Sprintf("note: the last %d one-row INSERTs took %s each: outside a transaction each is sent as its own request "+
		"(1,000 of them: about %s). Between BEGIN and COMMIT they are queued and COMMIT sends them in chunks of 10, several at once "+
		"(1,000: about %s at the service's 5 requests/s).",
		w.n, each.Round(time.Millisecond), (1000 * each).Round(time.Second), time.Duration(inTx*float64(time.Second)).Round(time.Second))
}

// noteWrite prints writeRun's notice, if any, on errOut.
func (sh *shell) noteWrite(errOut io.Writer, st frontend.Statement, rows int64, took time.Duration) {
	if msg := sh.writes.add(st, rows, took); msg != "" {
		fmt.Fprintln(errOut, msg)
	}
}
