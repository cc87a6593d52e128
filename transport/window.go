package transport

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/airsql/airsql/internal/clock"
)

// pacer keeps the request starts to one base inside the service's window, and holds them all
// after a 429. One pacer exists per (endpoint, transport, clock, base) in the process (see
// servers), shared by every API, Base and Table object that reaches that base through that
// server; with shared pacing its window is also shared with the other processes of the machine
// (sharedpace.go).
//
// The service counts arrivals in a sliding second: a 6th request arriving less than 1 s after
// the 1st of 6 draws a 429 and 30 s of silence. So the pacer is a sliding window too, not a
// metronome: any 5 starts may go at once, and a start waits only until the start 5 back is
// more than one span old. The span is 5 × APILimit and a margin: after a start still on its way,
// 1/40 (1.025 s at 200 ms); after an answered one, the margin measured from the round trips
// (measuredSpanLocked), at least 1/200 (1.005 s). A short burst (the schema and the first page; a
// few partitions' first pages) therefore goes out at once, and a steady stream averages one start
// per 201–205 ms.
//
// But arrivals are not starts. A request that spends longer on its way than the fastest round
// trip seen may arrive that much later, and so closer to the 5th request after it; that one is
// held back by as much (see windowWaitLocked). Only what is known to be late costs time, and
// only once: one slow answer delays one later start, and a quiet client keeps its pace.
//
// Where the window cannot be shared (two machines on one base), a 429 halves the number of
// starts allowed per window (multiplicative decrease). The halved budget is kept while the
// collision is remembered (ceilingMemory): the clients that collided all halved theirs, so the
// sum now fits, and probing up at once would collide again after every 30 s penalty. After that
// the budget grows back by one start per probeAfter without a 429 (additive increase), so that a
// client left alone regains the whole budget; a probe that collides halves it again.
type pacer struct {
	clk clock.Clock

	mu        sync.Mutex
	interval  time.Duration // APILimit when last read
	arrivals  bool          // hold starts back for late arrivals (off in tests that count exact gaps)
	win       windowState   // the window, when it is not shared
	shared    *sharedWindow // not nil: the window lives in a file shared by the machine's processes
	shareErr  error         // why the window could not be shared, if it was asked for
	lastStart time.Time     // this process's last start, for the registry's idle check
	holdUntil time.Time     // the latest hold this process knows of
	rtts      [rttSamples]time.Duration
	rttCount  int
	lastRTT   time.Duration // the last answered request's round trip, over a new connection or not

	unknownFieldAt time.Time // the last answer refusing an unknown field (stale.go)

	// AIMD (see above).
	budget    int // starts allowed per window, 1..windowStarts
	lastCut   time.Time
	lastRaise time.Time
}

// windowState is what the window knows: the last starts and the hold. It is the content of the
// shared file, so its fields are exported for encoding/json.
type windowState struct {
	Seq       uint64               `json:"seq"`    // starts claimed so far
	Starts    [ringStarts]startRec `json:"starts"` // by Seq % ringStarts
	HoldUntil time.Time            `json:"holdUntil"`
}

// startRec is one start, until ringStarts later starts replace it.
type startRec struct {
	Seq  uint64        `json:"seq"`
	At   time.Time     `json:"at"`
	Sent time.Time     `json:"sent,omitzero"` // when it was written to the connection, once known
	Took time.Duration `json:"took"`          // from At until the answer (or the failure), once done
	Done bool          `json:"done"`
	// Fresh: the request went over a connection opened for it. How long the far end took to
	// take it in (accept the connection, start reading) is part of its round trip but not of
	// the path's, so its round trip is no measure of the path (windowWaitLocked).
	Fresh bool `json:"fresh,omitempty"`
	// PID is the process that claimed it (0: not recorded): while that process lives, an
	// unanswered start may still arrive (windowWaitLocked).
	PID int `json:"pid,omitempty"`
}

// left is when the start's request left, as far as is known: when it was written to the
// connection, or (not reported: an in-process transport) its claim.
func (k *startRec) left() time.Time {
	if !k.Sent.IsZero() {
		return k.Sent
	}
	return k.At
}

// roundTrip is the time from when the request left to its answer (done starts).
func (k *startRec) roundTrip() time.Duration {
	return k.Took - k.left().Sub(k.At)
}

// windowStarts is how many requests the service admits in its window (5 in any second).
const windowStarts = 5

// ringStarts is how many starts the window remembers: twice the window, so that a start older
// than the 5th back that arrived very late still holds the next one back.
const ringStarts = 2 * windowStarts

// pacingMargin is the share of APILimit added to each start's part of the window: 1/40 (5 ms at
// 200 ms), so the window spans 1.025 s against a service counting 5 arrivals in any 1 s. It is
// the margin of a start whose arrival is estimated (not answered yet); an answered one's is
// measured (measuredSpanLocked), at least 1/minMarginShare of APILimit per start (5 ms a window).
const (
	pacingMargin   = 40 // interval/pacingMargin
	minMarginShare = 200
)

// floorSamples is how many round trips must be known before the margin of an answered start is
// measured from them rather than fixed.
const floorSamples = 10

// rttSamples is how many recent round trips the fastest is taken from.
const rttSamples = 20

// probeAfter is how long the budget stays put after a change before it grows by one start;
// ceilingMemory is how long after a collision it does not grow at all.
const (
	probeAfter    = 10 * time.Second
	ceilingMemory = 2 * time.Minute
)

func spacingFor(interval time.Duration) time.Duration {
	if interval <= 0 {
		return 0
	}
	return interval + interval/pacingMargin
}

func newPacer(arrivals bool, clk clock.Clock) *pacer {
	return &pacer{clk: clk, interval: APILimit, arrivals: arrivals, budget: windowStarts}
}

// span is the window: windowStarts spacings.
func (p *pacer) span() time.Duration { return windowStarts * spacingFor(p.interval) }

// windowWaitLocked is how long the next start must wait: until each start at least budget back
// is one span old from when it left, plus how late it may have arrived.
//
// When it left is measured: the moment its request was written to the connection (sent, which
// every process records in the window), not its claim — a process's first request dials a new
// connection, and on a loaded machine a process starting up can take tens of milliseconds
// between its claim and its send; judged from the claims, processes starting together put a 6th
// arrival within the service's second of the 1st (issue 23: 4 × 429 in 2 of 8 runs of four
// processes). A start claimed but not yet sent holds the next one (pending) until it leaves.
//
// Then the path: the fastest round trip seen (by this process, or recorded in the window by any)
// bounds the path's fixed delay there and back, so a start k whose round trip took longer
// arrived at most that much later than one on time would have, and the next start is put that
// much after k's span. Only requests sent over a connection already open measure the path: on a
// new one (Fresh) the far end first accepts the connection, which on a loaded machine, with
// processes starting, takes tens of milliseconds more. While no such round trip is known, a
// fresh start's whole round trip may have been spent arriving: the next start waits that much
// (at most a span). Issue 23: at 1 s of latency the only round trips known when the 6th start
// was due were the processes' first requests, all fresh; the fastest of them, itself late, made
// the 1st look on time, and one run in 15 drew 429s. While k is unanswered and already slower than the fastest, how late it is
// grows with every moment: the next start waits for its answer (pending), re-checking every
// pollStep. An answered start's lateness is at most one span. An unanswered one's is too when the
// process that sent it has died (it will never say what became of its request, and must not
// stall the base); while that process lives, the request may still arrive at any moment, and the
// next start waits for its answer, its failure or its timeout — at most RateLimitPenalty, beyond
// which waiting costs more than the 429 it avoids. Issue 23: with the wait cut at one span, a
// batch of requests that reached the emulator 1.1 s after they were sent (a stalled process on a
// loaded machine) was followed by five more 0.88 s later, which drew 429s.
func (p *pacer) windowWaitLocked(w *windowState, now time.Time) (wait time.Duration, pending bool) {
	if p.interval <= 0 {
		return 0, false
	}
	b := uint64(p.budget)
	if w.Seq < b {
		return 0, false
	}
	span := p.span()
	var buf [rttSamples + ringStarts]time.Duration
	rtts := p.roundTripsLocked(w, &buf)
	fastest, known := time.Duration(0), len(rtts) > 0
	if known {
		fastest = rtts[0]
	}
	answeredSpan := p.measuredSpanLocked(rtts)
	for _, k := range w.Starts {
		if k.Seq == 0 || k.Seq+b > w.Seq+1 {
			continue // not in the window yet, or not budget back
		}
		left := k.left()
		late := time.Duration(0)
		limit := span // how late the start may be taken to be
		kspan := span
		if p.arrivals && k.Done {
			kspan = answeredSpan
		}
		if p.arrivals {
			took := k.roundTrip()
			if !k.Done {
				took = now.Sub(left)
				if processAlive(k.PID) {
					limit = max(RateLimitPenalty, span)
				}
			}
			f := fastest // 0 when none is known: the whole round trip may be lateness
			if k.Done && !k.Fresh && (!known || took < f) {
				f = took
			}
			late = max(took-f, 0)
			if !k.Done && known {
				// Still on its way, perhaps not arrived yet: it may be as late as round trips
				// commonly are beyond the fastest, before that shows.
				late = max(late, p.jitter(rtts))
			}
			late = min(late, limit)
		}
		if d := left.Add(kspan + late).Sub(now); d > wait {
			wait = d
			pending = !k.Done && late < limit
		}
	}
	return wait, pending
}

// sent records when a started request was written to its connection, and whether that
// connection was opened for it (fresh; see windowWaitLocked).
func (p *pacer) sent(seq uint64, at time.Time, fresh bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.withWindowLocked(func(w *windowState) bool {
		if r := &w.Starts[seq%ringStarts]; r.Seq == seq && at.After(r.Sent) {
			r.Sent, r.Fresh = at, fresh
			return true
		}
		return false
	})
}

// pollStep is how often a start held for an unanswered request checks again.
func (p *pacer) pollStep() time.Duration { return max(p.interval/10, time.Millisecond) }

// roundTripsLocked is the recent round trips over connections already open, fastest first: this
// process's and those the window records of every process (a process that has just started has
// none of its own). buf holds them.
func (p *pacer) roundTripsLocked(w *windowState, buf *[rttSamples + ringStarts]time.Duration) []time.Duration {
	n := copy(buf[:], p.rtts[:min(p.rttCount, rttSamples)])
	for _, k := range w.Starts {
		if k.Done && !k.Fresh && k.Sent.After(k.At) {
			buf[n] = k.roundTrip()
			n++
		}
	}
	slices.Sort(buf[:n])
	return buf[:n]
}

// jitter is how much longer than the fastest the round trips rtts (sorted) commonly take: their
// 90th percentile less the fastest, at most a span. It is the margin an unanswered request is
// given: at a latency near the window's span the 5th start after a request is due before its
// answer, and a request held up on its way in (a loaded machine: measured up to 0.1 s against the
// emulator at load average 18) arrived within the service's second of the one after it when it
// was taken to be on time (issue 23).
func (p *pacer) jitter(rtts []time.Duration) time.Duration {
	n := len(rtts)
	if n == 0 {
		return 0
	}
	return min(max(rtts[(n*9+9)/10-1]-rtts[0], 0), p.span())
}

// measuredSpanLocked is the window's span after an answered start: the service's second (5
// intervals) and a margin measured from the round trips rtts (sorted). An answered start's
// lateness is known (its round trip beyond the fastest, windowWaitLocked); what is not is how much
// faster than the fastest seen the next request's way in may be. The spread at the bottom of the
// round trips (their 10th percentile less the fastest) measures how firm that floor is: about a
// millisecond over loopback, more over a path that varies. The margin is that spread, at least
// 1/minMarginShare of an interval per start; with fewer than floorSamples round trips known it is
// the fixed one (span). Issue 25: the fixed 2.5% alone made the replica's first copy of 205
// requests 1.0 s longer than the service's ceiling, where the floor of its round trips was firm
// to 2 ms.
func (p *pacer) measuredSpanLocked(rtts []time.Duration) time.Duration {
	n := len(rtts)
	if n < floorSamples {
		return p.span()
	}
	spread := rtts[(n+9)/10] - rtts[0] // n ≥ floorSamples: at least the 2nd fastest
	margin := max(spread, windowStarts*(p.interval/minMarginShare))
	return min(windowStarts*p.interval+margin, 2*p.span())
}

// withWindowLocked runs fn on the window: in memory, or in the shared file under its lock (fn
// returns whether it changed the window, so that an unchanged one is not written back). When the
// shared file fails, the pacer goes on with a window in memory, starting from the last state it
// read, and remembers why.
func (p *pacer) withWindowLocked(fn func(w *windowState) bool) {
	if p.shared != nil {
		err := p.shared.update(func(w *windowState) bool {
			changed := fn(w)
			p.win = *w
			return changed
		})
		if err == nil {
			return
		}
		p.shared.close()
		p.shared, p.shareErr = nil, err
		return
	}
	fn(&p.win)
}

// wait returns when a request to the base may start, or with the context's error. The start it
// returns must be passed to finish once the request has ended (or is not sent after all).
func (p *pacer) wait(ctx context.Context, clk clock.Clock) (uint64, error) {
	for {
		ctxErr := ctx.Err()
		now := clk.Now()
		var seq uint64
		var wait time.Duration
		var held bool
		p.mu.Lock()
		p.interval = APILimit
		p.withWindowLocked(func(w *windowState) bool {
			if now.Before(w.HoldUntil) {
				wait, held = w.HoldUntil.Sub(now), true
				return false
			}
			if ctxErr != nil {
				return false
			}
			var pending bool
			wait, pending = p.windowWaitLocked(w, now)
			if pending {
				wait = min(wait, p.pollStep())
			}
			if wait > 0 {
				return false
			}
			w.Seq++
			w.Starts[w.Seq%ringStarts] = startRec{Seq: w.Seq, At: now, PID: thisProcess}
			seq = w.Seq
			return true
		})
		if held && p.win.HoldUntil.After(p.holdUntil) {
			p.holdUntil = p.win.HoldUntil
		}
		if seq != 0 {
			p.lastStart = now
		}
		p.mu.Unlock()
		if seq != 0 {
			return seq, nil
		}
		err := ctxErr
		if err == nil {
			err = sleepWithin(ctx, clk, wait)
		}
		if err != nil {
			if held {
				return 0, fmt.Errorf("%w: requests to this base are held %s more, until the service's rate-limit penalty ends", err, max(now.Add(wait).Sub(clk.Now()), 0).Round(time.Millisecond))
			}
			return 0, err
		}
	}
}

// finish records how a started request ended: took is the time from its start to its answer
// (answered) or its failure. Every claimed start is finished, sent or not (took 0 if not).
func (p *pacer) finish(seq uint64, took time.Duration, answered bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clk.Now()
	fresh := false
	p.withWindowLocked(func(w *windowState) bool {
		if r := &w.Starts[seq%ringStarts]; r.Seq == seq {
			// From the claimed start, not from the send: a goroutine that ran late between the
			// two (a loaded machine) sent, and so arrived, that much late too.
			r.Took, r.Done = max(took, now.Sub(r.At)), true
			fresh = r.Fresh
			return true
		}
		return false
	})
	if answered {
		p.lastRTT = took
		if !fresh { // a new connection's round trip is no measure of the path's delay
			p.rtts[p.rttCount%rttSamples] = took
			p.rttCount++
		}
		p.raiseLocked(now)
	}
}

// hold stops every request to the base until t (after a 429), and halves the budget when the
// 429 is a new collision rather than one more answer of a penalty already known.
func (p *pacer) hold(t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clk.Now()
	if !now.Before(p.holdUntil) {
		p.budget = max(1, p.budget/2)
		p.lastCut = now
	}
	if t.After(p.holdUntil) {
		p.holdUntil = t
	}
	p.withWindowLocked(func(w *windowState) bool {
		if t.After(w.HoldUntil) {
			w.HoldUntil = t
			return true
		}
		return false
	})
}

// raiseLocked grows the budget by one start once probeAfter has passed since its last change and
// since the end of the last hold — but not while the last collision is remembered (ceilingMemory):
// the budget a 429 left is one that fitted beside the other clients, and probing above it at once
// would only collide again with theirs.
func (p *pacer) raiseLocked(now time.Time) {
	if p.budget >= windowStarts || now.Before(p.holdUntil) {
		return
	}
	if !p.lastCut.IsZero() && now.Sub(p.lastCut) < ceilingMemory {
		return
	}
	last := p.lastCut
	for _, t := range []time.Time{p.lastRaise, p.holdUntil} {
		if t.After(last) {
			last = t
		}
	}
	if now.Sub(last) >= probeAfter {
		p.budget++
		p.lastRaise = now
	}
}

// close releases the shared window's file, if any.
func (p *pacer) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shared != nil {
		p.shared.close()
		p.shared = nil
	}
}
