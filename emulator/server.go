package emulator

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/airsql/airsql/formula"
	"github.com/airsql/airsql/internal/clock"
)

// InProcessURL is the endpoint URL to give a client that talks to the emulator through
// Transport() or Client(): requests to it never leave the process.
const InProcessURL = "http://airtable.emulator"

// DefaultToken is the token a fixture without "tokens" gets, with every scope on every base it defines.
const DefaultToken = "patEMULATOR.default"

// Defaults of the options, taken from the reference (§3, §8).
const (
	DefaultRate        = 5.0              // requests per second per base
	DefaultPenalty     = 30 * time.Second // after a 429, every request to that base is refused this long
	DefaultTokenRate   = 50.0             // requests per second per user (all tokens of one userId)
	DefaultIteratorTTL = 5 * time.Minute  // an offset unused this long answers LIST_RECORDS_ITERATOR_NOT_AVAILABLE
	MaxURLLength       = 16000            // longer request URLs answer 414
	MaxBodyBytes       = 5 << 20          // larger request bodies answer 413
	MaxRecordsPerWrite = 10               // create, update, upsert and delete
)

// NotFoundMode chooses how unknown bases, tables and records are answered.
type NotFoundMode int

const (
	// NotFoundForbidden answers 403 INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND, as the service does for
	// personal access tokens (reference §2.2, §8.2). It is the default.
	NotFoundForbidden NotFoundMode = iota
	// NotFoundLegacy answers the 404s recorded in 2017-2022: TABLE_NOT_FOUND, MODEL_ID_NOT_FOUND,
	// {"error":"NOT_FOUND"} for malformed ids.
	NotFoundLegacy
)

// Option configures a Server.
type Option func(*config) error

type config struct {
	fixtures    []*Fixture
	demo        bool
	clock       clock.Clock
	rate        float64
	penalty     time.Duration
	tokenRate   float64
	latency     time.Duration
	iteratorTTL time.Duration
	dataFile    string
	notFound    NotFoundMode
	requestLog  string
	fetchClient *http.Client // WithAttachmentFetch; nil: attachment URLs are never fetched
	repair      bool         // drop damaged lines of the data file instead of refusing to start
	warnings    io.Writer    // where what the data file's replay dropped is reported; nil: os.Stderr
	pingClient  *http.Client // WithNotificationClient; nil: a client with the service's 25 s timeout
}

// WithFixture loads bases, tables, records and tokens at start.
func WithFixture(f *Fixture) Option {
	return func(c *config) error {
		if f == nil {
			return fmt.Errorf("emulator: WithFixture(nil)")
		}
		c.fixtures = append(c.fixtures, f)
		return nil
	}
}

// WithDemo loads the built-in demo base (DemoBaseID, token DemoToken); see README.md.
func WithDemo() Option { return func(c *config) error { c.demo = true; return nil } }

// WithClock makes the server read time (createdTime, rate windows, offset expiry, latency) from c.
func WithClock(c clock.Clock) Option {
	return func(cfg *config) error {
		if c == nil {
			return fmt.Errorf("emulator: WithClock(nil)")
		}
		cfg.clock = c
		return nil
	}
}

// WithRate sets how many requests per second one base accepts (0: unlimited) and how long every
// request to that base is refused with 429 once the rate is exceeded.
func WithRate(perSecond float64, penalty time.Duration) Option {
	return func(c *config) error {
		if perSecond < 0 || penalty < 0 {
			return fmt.Errorf("emulator: WithRate(%v, %v): both must be >= 0", perSecond, penalty)
		}
		c.rate, c.penalty = perSecond, penalty
		return nil
	}
}

// WithTokenRate sets how many requests per second one user may make across all bases and all of
// its tokens (0: unlimited); tokens share a user when the fixture gives them the same userId.
func WithTokenRate(perSecond float64) Option {
	return func(c *config) error {
		if perSecond < 0 {
			return fmt.Errorf("emulator: WithTokenRate(%v): must be >= 0", perSecond)
		}
		c.tokenRate = perSecond
		return nil
	}
}

// WithLatency delays every response by d (read through the server's clock).
func WithLatency(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("emulator: WithLatency(%v): must be >= 0", d)
		}
		c.latency = d
		return nil
	}
}

// WithIteratorTTL sets how long an offset stays valid after it was last used.
func WithIteratorTTL(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("emulator: WithIteratorTTL(%v): must be > 0", d)
		}
		c.iteratorTTL = d
		return nil
	}
}

// WithDataFile persists every acknowledged write to path (a write-ahead log, fsynced before the
// answer) and replays it at start, after the fixtures and the demo base.
func WithDataFile(path string) Option {
	return func(c *config) error {
		if path == "" {
			return fmt.Errorf("emulator: WithDataFile(\"\")")
		}
		c.dataFile = path
		return nil
	}
}

// WithRepair starts on a data file with damaged lines (complete lines that fail their checksum)
// by dropping them and keeping the rest, reporting what was dropped; without it such a file is
// refused, since every complete line was an acknowledged write.
func WithRepair() Option { return func(c *config) error { c.repair = true; return nil } }

// WithWarnings sets where the data file's replay reports what it dropped (default os.Stderr).
func WithWarnings(w io.Writer) Option { return func(c *config) error { c.warnings = w; return nil } }

// WithNotFound chooses how unknown bases, tables and records are answered (default NotFoundForbidden).
func WithNotFound(mode NotFoundMode) Option {
	return func(c *config) error {
		if mode != NotFoundForbidden && mode != NotFoundLegacy {
			return fmt.Errorf("emulator: WithNotFound(%d): unknown mode", mode)
		}
		c.notFound = mode
		return nil
	}
}

// WithRequestLog appends one JSON object per request ({"method","path","query","status"}) to path.
func WithRequestLog(path string) Option {
	return func(c *config) error { c.requestLog = path; return nil }
}

// Server emulates the Airtable Web API v0. It is an http.Handler serving /v0/...; it can also serve
// through Transport() without a port. It is safe for concurrent use.
type Server struct {
	cfg   config
	clock clock.Clock

	mu     sync.RWMutex // guards bases and tokens
	bases  map[string]*base
	order  []string // base ids in load order
	tokens map[string]*token

	iterators *iteratorStore
	slots     chan struct{} // compute slots of whole-table reads; see locking.go
	writers   *writerGate   // writers waiting for mu; see locking.go
	limiter   *rateLimiter
	faults    faultList
	recorder  recorder
	wal       *wal
	formulas  formulaCache
	// comments and uploaded attachments (comments.go, attachments.go), guarded by mu.
	extras extraState
	// formulaEnv is what formulas evaluate in: the server's clock (NOW(), TODAY()) and UTC.
	formulaEnv *formula.Env
	// hooks are the webhooks of every base (webhooks.go), guarded by mu; their pings run outside it.
	hooks webhookState
}

// New returns a server configured by opts.
func New(opts ...Option) (*Server, error) {
	cfg := config{
		clock:       clock.Real,
		rate:        DefaultRate,
		penalty:     DefaultPenalty,
		tokenRate:   DefaultTokenRate,
		iteratorTTL: DefaultIteratorTTL,
	}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	s := &Server{
		cfg:        cfg,
		clock:      cfg.clock,
		bases:      map[string]*base{},
		tokens:     map[string]*token{},
		formulaEnv: &formula.Env{Clock: cfg.clock, Location: time.UTC},
	}
	s.iterators = newIteratorStore(cfg.clock, cfg.iteratorTTL)
	s.slots = make(chan struct{}, computeSlots())
	s.writers = newWriterGate()
	s.limiter = newRateLimiter(cfg.clock, cfg.rate, cfg.penalty, cfg.tokenRate)
	s.formulas.init()
	s.hooks.init(cfg.pingClient)
	if cfg.demo {
		if err := s.loadFixture(demoFixture(), false); err != nil {
			return nil, fmt.Errorf("emulator: demo base: %w", err)
		}
	}
	for _, f := range cfg.fixtures {
		if err := s.loadFixture(f, false); err != nil {
			return nil, err
		}
	}
	// Loaded, a fixture is not read again: holding it would keep a second copy of every record
	// alive for as long as the server (in a process that also runs a driver, a GC scans both).
	s.cfg.fixtures = nil
	if cfg.requestLog != "" {
		if err := s.recorder.openLog(cfg.requestLog); err != nil {
			return nil, err
		}
	}
	if cfg.dataFile != "" {
		warn := cfg.warnings
		if warn == nil {
			warn = os.Stderr
		}
		w, err := openWAL(cfg.dataFile, cfg.repair, warn, s.replay)
		if err != nil {
			s.recorder.close()
			return nil, err
		}
		s.wal = w
	}
	return s, nil
}

// Close releases the data file and the request log. The server must not be used afterwards.
func (s *Server) Close() error {
	s.stopFetches() // before the data file closes: a fetch that finishes logs its result
	s.stopPings()
	var err error
	if s.wal != nil {
		err = s.wal.close()
	}
	if e := s.recorder.close(); err == nil {
		err = e
	}
	return err
}

// LoadFixture adds the fixture's bases, tables, records and tokens at run time. With a data file,
// the fixture is logged so that it is there again after a restart.
func (s *Server) LoadFixture(f *Fixture) error {
	return s.loadFixture(f, true)
}

// Transport returns a RoundTripper that serves requests in-process, whatever their host.
func (s *Server) Transport() http.RoundTripper { return &inProcessTransport{s: s} }

// Client returns an http.Client that uses Transport(); use it with InProcessURL.
func (s *Server) Client() *http.Client { return &http.Client{Transport: s.Transport()} }
