package transport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/airsql/airsql/internal/clock"
)

// Pacing across processes.
//
// The service's budget is per base, not per process: a cron job and a dashboard reading one base
// at once must share its 5 requests per second. With shared pacing (WithSharedPacing, on by
// default for the real service), a pacer keeps its window — the last starts, how long each
// took, and the hold after a 429 — in a small file, one per endpoint and base, under the user's
// cache directory (os.UserCacheDir()/airsql/pacing), and reads and updates it under an exclusive
// lock (flock) for every start. There is no daemon. A process that dies holding the lock loses it
// with its file descriptors, so it cannot block the others; starts it left unanswered cost the
// others at most one window once it has died, which they tell by its process id (see
// windowWaitLocked). A file that cannot be read as a window (a
// write cut short) is taken as empty. Where the file cannot be opened or locked (an unsupported
// platform, a read-only home), the pacer paces within the process only, and says so through
// SharedPacingError.

// thisProcess is recorded with each start claimed, so that the other processes can tell whether
// the one that sent an unanswered request still lives (windowWaitLocked).
var thisProcess = os.Getpid()

// sharedWindow is an open window file.
type sharedWindow struct {
	f   *os.File
	buf []byte // read buffer, reused (the pacer's lock guards it)
}

// sharedWindowPath names the file of one endpoint and base: a hash, so that any endpoint makes a
// valid file name and the base id is not spelled out in the user's cache directory.
func sharedWindowPath(dir, endpoint, base string) string {
	sum := sha256.Sum256([]byte(endpoint + "\x00" + base))
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+".window")
}

func openSharedWindow(dir, endpoint, base string) (*sharedWindow, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("shared pacing: %w", err)
	}
	f, err := os.OpenFile(sharedWindowPath(dir, endpoint, base), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("shared pacing: %w", err)
	}
	return &sharedWindow{f: f}, nil
}

// maxWindowFile bounds what is read of a window file (a valid one is well under 1 KB; a longer
// one is damaged, and only its first JSON value is read).
const maxWindowFile = 8 << 10

// update runs fn on the window read from the file, under the file's lock, and writes the window
// back when fn reports a change.
func (s *sharedWindow) update(fn func(w *windowState) bool) error {
	if err := lockFile(s.f); err != nil {
		return fmt.Errorf("shared pacing: lock %s: %w", s.f.Name(), err)
	}
	defer unlockFile(s.f)
	if s.buf == nil {
		s.buf = make([]byte, maxWindowFile)
	}
	buf := s.buf
	n, err := s.f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, errEOF) {
		return fmt.Errorf("shared pacing: read %s: %w", s.f.Name(), err)
	}
	var w windowState
	if n > 0 {
		// The first JSON value: a longer earlier content cut short by a crash leaves a tail.
		if json.NewDecoder(bytes.NewReader(buf[:n])).Decode(&w) != nil {
			w = windowState{}
		}
	}
	if !fn(&w) {
		return nil
	}
	data, err := json.Marshal(&w)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if _, err := s.f.WriteAt(data, 0); err != nil {
		return fmt.Errorf("shared pacing: write %s: %w", s.f.Name(), err)
	}
	if n > len(data) {
		if err := s.f.Truncate(int64(len(data))); err != nil {
			return fmt.Errorf("shared pacing: write %s: %w", s.f.Name(), err)
		}
	}
	return nil
}

func (s *sharedWindow) close() { s.f.Close() }

// DefaultSharedPacingDir is where shared pacing keeps its files unless WithSharedPacing names
// another directory: the user's cache directory, or "" when there is none.
func DefaultSharedPacingDir() string {
	d, err := os.UserCacheDir()
	if err != nil || d == "" {
		return ""
	}
	return filepath.Join(d, "airsql", "pacing")
}

// WithSharedPacing makes the pacing of each base a budget shared with every other process on
// the machine that reaches the same endpoint and base with shared pacing: dir holds one small
// file per endpoint and base ("" turns sharing off). Without this option, sharing is on
// (DefaultSharedPacingDir) for the real service, DefaultEndpointURL, on the real clock, and off
// for other endpoints (an emulator per test must not be paced with every other test process).
// All the objects of one server in a process use the setting of the first of them.
func WithSharedPacing(dir string) Option {
	return func(s *settings) { s.shareDir, s.shareSet = dir, true }
}

// SharedPacingError reports why a table's base is paced within the process only although shared
// pacing was asked for; nil when it is shared or sharing was not asked for.
func (t *Table) SharedPacingError() error {
	p := t.c.pacerFor(t.base)
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.shareErr
}

// shareDirFor decides where the core's pacers share their windows ("" for nowhere).
func shareDirFor(s *settings, endpoint string) string {
	if s.shareSet {
		return strings.TrimSpace(s.shareDir)
	}
	if endpoint == DefaultEndpointURL && s.httpClient == nil && s.clock == clock.Real {
		return DefaultSharedPacingDir()
	}
	return ""
}
