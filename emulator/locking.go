package emulator

import (
	"net/http"
	"runtime"
	"sync"
)

// How requests lock the server's data (s.mu, a sync.RWMutex):
//
//   - A write route takes s.mu for writing with s.lockForWrite(c) (writeTable and writeRequest
//     call it, and also find the table and check access) and unlocks it (s.mu.Unlock) when its
//     txn has committed. Writes are short: they touch the records they name. admit and run count
//     every request whose method writes (POST but listRecords, PATCH, PUT, DELETE) as a waiting
//     writer while it authenticates and from the moment it is answered until lockForWrite holds
//     the lock for it or it ends (not during its latency), and heavy
//     reads do not start while one waits.
//   - A read route takes s.mu.RLock for as long as it reads the data, and renders its answer
//     under it.
//   - A read that computes over a whole table (the first page of a listing: a filter and a sort
//     over every record) first takes a compute slot with s.computeSlot, which also waits until no
//     writer is waiting, and only then s.mu.RLock; it never waits for a slot while holding s.mu.
//     At most computeSlots such reads hold s.mu at once, so a writer waits for those few only
//     (sync.RWMutex lets no new reader in once a writer waits), and writers that arrive together
//     all go before the next heavy read: without that, each writer let the queued heavy reads in
//     before the next one, and writes ran one per whole-table computation. The heavy reads queue
//     on the slots without holding the lock, and only computeSlots of them hold their working
//     memory at once.
//
// Measured with BenchmarkMixedLoad1000Clients (1,000 concurrent clients, 70% lists, 30% creates,
// 10,000 records): before, every listing held the read lock together and a create waited for all
// of them. See the emulator README for the figures.
//
// A new route that scans whole tables (a search, an export, a count) takes a compute slot the same
// way: release, aerr := s.computeSlot(c); if aerr != nil { return … }; defer release(); then
// s.mu.RLock. A new write route takes the lock with s.lockForWrite (or writeTable/writeRequest).

// writerGate counts writers waiting for s.mu, so that heavy reads let them go first.
type writerGate struct {
	mu      sync.Mutex
	cond    *sync.Cond
	waiting int
}

func newWriterGate() *writerGate {
	g := &writerGate{}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// writerArrived counts a write request as waiting for s.mu, from the moment it is routed (before
// authentication, which reads under s.mu too) until lockForWrite holds the lock for it or the
// request ends; admit and run call it for every request that writes.
func (s *Server) writerArrived(c *call) {
	g := s.writers
	g.mu.Lock()
	g.waiting++
	g.mu.Unlock()
	c.waitingWriter = true
}

// writerNoLongerWaiting ends the count of writerArrived, once.
func (s *Server) writerNoLongerWaiting(c *call) {
	if !c.waitingWriter {
		return
	}
	c.waitingWriter = false
	g := s.writers
	g.mu.Lock()
	if g.waiting--; g.waiting == 0 {
		g.cond.Broadcast()
	}
	g.mu.Unlock()
}

// lockForWrite takes s.mu for writing; the request stops counting as a waiting writer.
func (s *Server) lockForWrite(c *call) {
	s.mu.Lock()
	s.writerNoLongerWaiting(c)
}

// waitForWriters returns once no writer waits for s.mu. The caller must not hold s.mu.
func (s *Server) waitForWriters() {
	g := s.writers
	g.mu.Lock()
	for g.waiting > 0 {
		g.cond.Wait()
	}
	g.mu.Unlock()
}

// computeSlots is how many whole-table computations may run at once: enough to keep every core
// busy, few enough that a writer never waits behind more than a handful.
func computeSlots() int { return max(2, runtime.GOMAXPROCS(0)) }

// computeSlot waits for a compute slot, or for the request to end (then it answers as the service
// does to a request cut short). The caller must not hold s.mu.
func (s *Server) computeSlot(c *call) (release func(), aerr *apiError) {
	select {
	case s.slots <- struct{}{}:
		s.waitForWriters()
		return func() { <-s.slots }, nil
	case <-c.r.Context().Done():
		return nil, errorf(http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE", "The request ended while waiting its turn.")
	}
}
