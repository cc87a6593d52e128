package emulator

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// The data file is a write-ahead log: one line per acknowledged write request,
//
//	<crc32c of the JSON, 8 hex digits> <JSON array of changes>\n
//
// appended and fsynced before the request is answered. A line is applied whole or not at all.
// At start the log is replayed; a torn last line (a crash in the middle of an append) fails its
// checksum or lacks its newline, and is cut off, so the file is never left unreadable. A bad line
// followed by good ones is real corruption and stops the start with an error.

// walOp is one change of a write request.
type walOp struct {
	Kind    string          `json:"kind"` // put, delete, choices, fixture
	Base    string          `json:"base,omitempty"`
	Table   string          `json:"table,omitempty"`
	Record  *walRecord      `json:"record,omitempty"`
	ID      string          `json:"id,omitempty"`
	Field   string          `json:"field,omitempty"`
	Choices []any           `json:"choices,omitempty"`
	Fixture json.RawMessage `json:"fixture,omitempty"`
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

type wal struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// openWAL replays path through apply and opens it for appending; it creates the file if needed.
func openWAL(path string, apply func([]walOp) error) (*wal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("emulator: data file: %w", err)
	}
	good, err := replayWAL(f, apply)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("emulator: data file %s: %w", path, err)
	}
	// Cut a torn tail so that the next append starts on a clean line.
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, fmt.Errorf("emulator: data file %s: cut torn tail: %w", path, err)
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("emulator: data file %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("emulator: data file %s: %w", path, err)
	}
	// A new file's directory entry must reach the disk too, or a power cut could lose the file.
	if dir, err := os.Open(filepath.Dir(path)); err == nil {
		_ = dir.Sync()
		dir.Close()
	}
	return &wal{f: f, path: path}, nil
}

// replayWAL applies every complete line and returns the length of the good prefix.
func replayWAL(r io.Reader, apply func([]walOp) error) (int64, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var good int64
	lineNo := 0
	var pendingBad error
	for {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			break
		}
		lineNo++
		complete := err == nil
		if err != nil && err != io.EOF {
			return 0, err
		}
		ops, perr := decodeWALLine(line, complete)
		if perr != nil {
			if pendingBad != nil {
				return 0, pendingBad
			}
			pendingBad = fmt.Errorf("line %d is damaged (%v) and is followed by more data; fix or remove the file", lineNo, perr)
			if !complete {
				break
			}
			// A damaged line is only acceptable as the very last one: remember and look further.
			continue
		}
		if pendingBad != nil {
			return 0, pendingBad
		}
		if aerr := apply(ops); aerr != nil {
			return 0, fmt.Errorf("line %d: %w (start with the same -fixture and -demo as when the file was written)", lineNo, aerr)
		}
		good += int64(len(line))
		if !complete {
			break
		}
	}
	return good, nil
}

func decodeWALLine(line []byte, complete bool) ([]walOp, error) {
	if !complete {
		return nil, fmt.Errorf("no newline at the end")
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	sum, payload, found := bytes.Cut(line, []byte(" "))
	if !found || len(sum) != 8 {
		return nil, fmt.Errorf("no checksum")
	}
	want, err := strconv.ParseUint(string(sum), 16, 32)
	if err != nil {
		return nil, fmt.Errorf("bad checksum %q", sum)
	}
	if crc32.Checksum(payload, crcTable) != uint32(want) {
		return nil, fmt.Errorf("checksum mismatch")
	}
	var ops []walOp
	if err := json.Unmarshal(payload, &ops); err != nil {
		return nil, err
	}
	return ops, nil
}

// append writes one request's changes and fsyncs them.
func (w *wal) append(ops []walOp) error {
	if len(ops) == 0 {
		return nil
	}
	payload, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	line := make([]byte, 0, len(payload)+10)
	line = fmt.Appendf(line, "%08x ", crc32.Checksum(payload, crcTable))
	line = append(line, payload...)
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return fmt.Errorf("the data file is closed")
	}
	off, err := w.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	if _, err := w.f.Write(line); err != nil {
		_ = w.f.Truncate(off) // do not leave half a line before the next one
		_, _ = w.f.Seek(off, io.SeekStart)
		return err
	}
	if err := w.f.Sync(); err != nil {
		_ = w.f.Truncate(off)
		_, _ = w.f.Seek(off, io.SeekStart)
		return err
	}
	return nil
}

func (w *wal) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

// replay applies the data file's changes at start, under the server's lock.
func (s *Server) replay(ops []walOp) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applyOpsLocked(ops)
}
