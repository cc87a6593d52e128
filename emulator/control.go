package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"
)

// Fault is an injected failure for requests matching Method and Path.
type Fault struct {
	Method   string        // "" matches every method
	Path     string        // prefix of the escaped path, e.g. "/v0/appX/Tasks"; "" matches every path
	Status   int           // non-zero: answer this status with Body instead of serving the request
	Body     string        // the body of that answer; "" gives an INJECTED_FAULT error object
	Delay    time.Duration // wait this long (on the server's clock) before answering
	Drop     bool          // close the connection without an answer
	Truncate bool          // serve normally, but cut the body in half and close the connection
	Times    int           // how many requests it applies to; 0: until ClearFaults
}

type faultList struct {
	mu     sync.Mutex
	faults []*Fault
}

// InjectFault adds a fault; the first matching fault applies to a request.
func (s *Server) InjectFault(f Fault) {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.faults = append(s.faults.faults, &f)
}

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.faults = nil
}

func (l *faultList) match(method, path string) (Fault, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, f := range l.faults {
		if f.Method != "" && !strings.EqualFold(f.Method, method) {
			continue
		}
		if !strings.HasPrefix(path, f.Path) {
			continue
		}
		got := *f
		if f.Times > 0 {
			f.Times--
			if f.Times == 0 {
				l.faults = append(l.faults[:i:i], l.faults[i+1:]...)
			}
		}
		return got, true
	}
	return Fault{}, false
}

// Request is one request the server served, as received.
type Request struct {
	Method, Path, Query string // Path escaped as received, Query raw
	Header              http.Header
	Body                []byte
	Status              int // 0 when the connection was dropped
	Time                time.Time
}

type recorder struct {
	mu    sync.Mutex
	reqs  []Request
	bytes int // body bytes held by reqs
	log   *os.File
}

// The history kept for Requests is bounded, so that a long-running emulator (the command, the
// shell's embedded one) does not grow without end: beyond these, the oldest requests are forgotten.
// Tests stay far below them. The request log file (-request-log) is not bounded.
const (
	maxRecordedRequests  = 100_000
	maxRecordedBodyBytes = 256 << 20
)

// Requests returns every request served since the start or the last ResetRequests, in order
// (at most the last 100,000, holding at most 256 MiB of bodies).
func (s *Server) Requests() []Request {
	s.recorder.mu.Lock()
	defer s.recorder.mu.Unlock()
	return append([]Request(nil), s.recorder.reqs...)
}

// CountStatus counts the recorded requests answered with status (for example 429: how many the
// rate limit refused, which benchmarks at the service's rate report).
func (s *Server) CountStatus(status int) int {
	s.recorder.mu.Lock()
	defer s.recorder.mu.Unlock()
	n := 0
	for _, r := range s.recorder.reqs {
		if r.Status == status {
			n++
		}
	}
	return n
}

// ResetRequests forgets the recorded requests.
func (s *Server) ResetRequests() {
	s.recorder.mu.Lock()
	defer s.recorder.mu.Unlock()
	s.recorder.reqs = nil
	s.recorder.bytes = 0
}

func (rc *recorder) openLog(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("emulator: request log: %w", err)
	}
	rc.log = f
	return nil
}

// add records a request and appends it to the request log: method, path, query and status only
// (never headers, so that no token reaches the file).
func (rc *recorder) add(r Request) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.reqs = append(rc.reqs, r)
	rc.bytes += len(r.Body)
	if len(rc.reqs) > maxRecordedRequests || rc.bytes > maxRecordedBodyBytes {
		// Forget the oldest tenth at once, so that the copy is paid once per many requests.
		drop := 0
		for drop < len(rc.reqs)-1 && (len(rc.reqs)-drop > maxRecordedRequests*9/10 || rc.bytes > maxRecordedBodyBytes*9/10) {
			rc.bytes -= len(rc.reqs[drop].Body)
			drop++
		}
		rc.reqs = append([]Request(nil), rc.reqs[drop:]...)
	}
	if rc.log != nil {
		line, _ := json.Marshal(map[string]any{"method": r.Method, "path": r.Path, "query": r.Query, "status": r.Status})
		_, _ = rc.log.Write(append(line, '\n'))
	}
}

func (rc *recorder) close() error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.log == nil {
		return nil
	}
	err := rc.log.Close()
	rc.log = nil
	return err
}

// inProcessTransport serves requests by calling the server directly.
type inProcessTransport struct{ s *Server }

// inProcessWriter records an answer; aborted marks a dropped or truncated exchange.
type inProcessWriter struct {
	*httptest.ResponseRecorder
	aborted    bool
	headerDone bool
}

// RoundTrip implements http.RoundTripper.
func (t *inProcessTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	// Serve a copy with the body fully read, as a server would receive it.
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	in := req.Clone(req.Context())
	in.Body = io.NopCloser(bytes.NewReader(body))
	in.ContentLength = int64(len(body))
	in.RequestURI = req.URL.RequestURI()
	if in.Header.Get("Host") == "" {
		in.Host = req.URL.Host
	}
	w := &inProcessWriter{ResponseRecorder: httptest.NewRecorder()}
	t.s.ServeHTTP(w, in)
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	res := w.Result()
	res.Request = req
	if w.aborted {
		if !w.headerDone {
			return nil, fmt.Errorf("emulator: connection dropped by an injected fault (%s %s)", req.Method, req.URL.Path)
		}
		res.Body = io.NopCloser(io.MultiReader(bytes.NewReader(w.Body.Bytes()), errReader{io.ErrUnexpectedEOF}))
	}
	return res, nil
}

// WriteHeader notes that the answer has begun, so that an abort after it is a truncated body.
func (w *inProcessWriter) WriteHeader(code int) {
	w.headerDone = true
	w.ResponseRecorder.WriteHeader(code)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
