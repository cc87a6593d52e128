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
	"strings"
	"sync"
)

// The data file is a write-ahead log: one line per acknowledged write request,
//
//	<crc32c of the JSON, 8 hex digits> <JSON array of changes>\n
//
// appended and fsynced before the request is answered. A line is applied whole or not at all.
// At start the log is replayed. A last line without its newline (an append torn by a crash, or a
// file cut part-way) is cut off, so that the file is never left unreadable, and reported on the
// warnings writer (stderr) with the number of changes it held. A complete line that fails its
// checksum or does not decode was acknowledged, so dropping it loses data: the start is refused,
// unless repair (-repair) is set, which drops every damaged line, keeps the rest, reports what was
// dropped and rewrites the file.

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
	// Data is the payload of the kinds of wal_extra.go (schema writes, comments, uploads).
	Data json.RawMessage `json:"data,omitempty"`
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

type wal struct {
	mu sync.Mutex
	f  *os.File
}

// openWAL replays path through apply and opens it for appending; it creates the file if needed.
// After the replay the log is compacted when that makes it shorter (see compactWAL): the compacted
// log is written to a temporary file, fsynced and renamed over the data file, so that a crash at
// any moment leaves either the old log or the new one, both of which replay to the same data.
func openWAL(path string, repair bool, warn io.Writer, apply func([]walOp) error) (*wal, error) {
	tmp := path + ".compacting"
	// Left by a crash during a compaction, before its rename: the data file itself is intact.
	if err := os.Remove(tmp); err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("emulator: data file: remove the unfinished compaction %s: %w", tmp, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("emulator: data file: %w", err)
	}
	var lines [][]walOp
	good, dmg, err := replayWAL(f, repair, func(ops []walOp) error {
		if err := apply(ops); err != nil {
			return err
		}
		lines = append(lines, ops)
		return nil
	})
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("emulator: data file %s: %w", path, err)
	}
	dmg.report(warn, path)
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
	compacted, shorter := compactWAL(lines)
	if !shorter && len(dmg.damaged) > 0 {
		compacted, shorter = lines, true // rewrite without the damaged lines
	}
	if shorter {
		// On failure the log stays as it was, which is complete: only its length is lost.
		if err := writeFileSynced(tmp, compacted); err == nil {
			if err := os.Rename(tmp, path); err == nil {
				f.Close()
				if f, err = os.OpenFile(path, os.O_RDWR, 0o644); err != nil {
					return nil, fmt.Errorf("emulator: data file %s: reopen after compaction: %w", path, err)
				}
				if _, err := f.Seek(0, io.SeekEnd); err != nil {
					f.Close()
					return nil, fmt.Errorf("emulator: data file %s: %w", path, err)
				}
			}
		}
		_ = os.Remove(tmp)
	}
	// A new (or renamed) file's directory entry must reach the disk too, or a power cut could lose it.
	if dir, err := os.Open(filepath.Dir(path)); err == nil {
		_ = dir.Sync()
		dir.Close()
	}
	return &wal{f: f}, nil
}

// writeFileSynced writes lines to path and fsyncs it.
func writeFileSynced(path string, lines [][]walOp) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	for _, ops := range lines {
		line, err := encodeWALLine(ops)
		if err == nil {
			_, err = w.Write(line)
		}
		if err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// compactWAL rewrites a replayed log into fewer changes with the same outcome. Runtime fixtures
// stay where they were, in order: what they may add depends on the data at that point. Between two
// fixtures (a segment), only the outcome of each record and each field's choices matters:
//   - the last choices of each field, first (choices are options; they do not check records);
//   - each record's last put, in the order of the record's first change in the segment, so that
//     records created there are appended in their creation order (a put of an existing record
//     replaces it where it is, so its place in the log does not matter);
//   - a delete for each record whose last change was a delete (a delete of a record that never
//     existed before the segment is skipped by the replay). Its put is dropped, unless it holds the
//     table's highest autoNumber of the segment: the replay takes the next autoNumber from the puts,
//     and the service never hands out a number twice.
//
// shorter reports whether the result has fewer changes than the log.
func compactWAL(lines [][]walOp) (out [][]walOp, shorter bool) {
	const opsPerLine = 500 // bounds a line's size; the file as a whole is replaced atomically
	total := 0
	var result []walOp
	var segment []walOp
	flush := func() {
		result = append(result, compactSegment(segment)...)
		segment = segment[:0]
	}
	for _, ops := range lines {
		total += len(ops)
		for _, op := range ops {
			switch op.Kind {
			case "put", "delete", "choices", "fixture":
			default:
				if !extraWALKind[op.Kind] { // the replay refuses changes it does not know; leave such a log alone
					return nil, false
				}
			}
			// A fixture, or a change of wal_extra.go (schema, comments, uploads), stays where it is:
			// what comes after it may depend on it.
			if op.Kind == "fixture" || extraWALKind[op.Kind] {
				flush()
				result = append(result, op)
				continue
			}
			segment = append(segment, op)
		}
	}
	flush()
	if len(result) >= total {
		return nil, false
	}
	for len(result) > 0 {
		n := min(opsPerLine, len(result))
		if i := indexOfFixture(result[:n]); i >= 0 { // a fixture is a line of its own, as LoadFixture logs it
			if i == 0 {
				n = 1
			} else {
				n = i
			}
		}
		out = append(out, result[:n])
		result = result[n:]
	}
	return out, true
}

func indexOfFixture(ops []walOp) int {
	for i, op := range ops {
		if op.Kind == "fixture" {
			return i
		}
	}
	return -1
}

// compactSegment is one segment of compactWAL: changes of records and choices, no fixture.
func compactSegment(ops []walOp) []walOp {
	type recordKey struct{ base, table, id string }
	type outcome struct {
		lastPut *walOp // nil when the segment only deletes the record
		deleted bool   // the last change was a delete
	}
	var choices []walOp // the last choices of each field, in the order of the field's first change
	choiceAt := map[[3]string]int{}
	var order []recordKey
	outcomes := map[recordKey]*outcome{}
	maxAuto := map[[2]string]int{} // base, table -> the highest autoNumber put in the segment
	for i := range ops {
		op := &ops[i]
		switch op.Kind {
		case "choices":
			k := [3]string{op.Base, op.Table, op.Field}
			if at, ok := choiceAt[k]; ok {
				choices[at] = *op
			} else {
				choiceAt[k] = len(choices)
				choices = append(choices, *op)
			}
			continue
		case "put":
			if op.Record == nil { // the replay refuses it; nothing to keep
				continue
			}
		}
		id := op.ID
		if op.Kind == "put" {
			id = op.Record.ID
		}
		k := recordKey{op.Base, op.Table, id}
		o := outcomes[k]
		if o == nil {
			o = &outcome{}
			outcomes[k] = o
			order = append(order, k)
		}
		switch op.Kind {
		case "put":
			o.lastPut, o.deleted = op, false
			tk := [2]string{op.Base, op.Table}
			maxAuto[tk] = max(maxAuto[tk], op.Record.AutoNumber)
		case "delete":
			o.deleted = true
		}
	}
	// Keep the put of a deleted record that holds its table's highest autoNumber.
	keptAuto := map[[2]string]bool{}
	for _, k := range order {
		o := outcomes[k]
		if !o.deleted && o.lastPut != nil && o.lastPut.Record.AutoNumber == maxAuto[[2]string{k.base, k.table}] {
			keptAuto[[2]string{k.base, k.table}] = true
		}
	}
	out := append([]walOp{}, choices...)
	var deletes []walOp
	for _, k := range order {
		o := outcomes[k]
		tk := [2]string{k.base, k.table}
		if !o.deleted {
			out = append(out, *o.lastPut)
			continue
		}
		if o.lastPut != nil && !keptAuto[tk] && o.lastPut.Record.AutoNumber == maxAuto[tk] {
			out = append(out, *o.lastPut)
			keptAuto[tk] = true
		}
		deletes = append(deletes, walOp{Kind: "delete", Base: k.base, Table: k.table, ID: k.id})
	}
	return append(out, deletes...)
}

// walDamage is what a replay found wrong with the data file.
type walDamage struct {
	damaged      []int // numbers of complete lines that failed their checksum or did not decode
	damagedBytes int64
	damagedOps   int   // changes those lines seem to hold (counted in their text)
	tornLine     int   // the number of an incomplete last line; 0 when none
	tornBytes    int64 // its length
	tornOps      int   // changes it seems to hold
}

// countOps estimates how many changes a damaged or cut line held, from its text.
func countOps(line []byte) int { return bytes.Count(line, []byte(`{"kind":`)) }

// replayWAL applies every good line and returns the length of the prefix to keep: everything but
// an incomplete last line. A complete line that is damaged (its write finished, so it was
// acknowledged) stops the replay with an error unless repair is set; with repair it is skipped
// and counted in the damage, and the good lines after it are applied.
func replayWAL(r io.Reader, repair bool, apply func([]walOp) error) (int64, walDamage, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var good int64
	var dmg walDamage
	lineNo := 0
	for {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			break
		}
		lineNo++
		complete := err == nil
		if err != nil && err != io.EOF {
			return 0, dmg, err
		}
		if !complete {
			dmg.tornLine, dmg.tornBytes, dmg.tornOps = lineNo, int64(len(line)), countOps(line)
			break
		}
		ops, perr := decodeWALLine(line, complete)
		if perr != nil {
			if !repair {
				return 0, dmg, fmt.Errorf("line %d is damaged (%v): it was written whole, so its write was acknowledged and "+
					"would be lost (about %d change(s)); restore the file from a copy, or start with -repair (WithRepair) to drop "+
					"every damaged line and keep the rest", lineNo, perr, countOps(line))
			}
			dmg.damaged = append(dmg.damaged, lineNo)
			dmg.damagedBytes += int64(len(line))
			dmg.damagedOps += countOps(line)
			good += int64(len(line))
			continue
		}
		if aerr := apply(ops); aerr != nil {
			return 0, dmg, fmt.Errorf("line %d: %w (start with the same -fixture and -demo as when the file was written)", lineNo, aerr)
		}
		good += int64(len(line))
	}
	return good, dmg, nil
}

// report writes what the replay dropped, one line each.
func (d walDamage) report(w io.Writer, path string) {
	if w == nil {
		return
	}
	if len(d.damaged) > 0 {
		fmt.Fprintf(w, "emulator: data file %s: -repair dropped %d damaged line(s) (%s; %d bytes, about %d change(s)); the other lines were kept and the file rewritten without them\n",
			path, len(d.damaged), lineList(d.damaged), d.damagedBytes, d.damagedOps)
	}
	if d.tornLine > 0 {
		fmt.Fprintf(w, "emulator: data file %s: its last line (line %d, %d bytes, about %d change(s)) is incomplete and was cut off: "+
			"a write cut short by a crash was never acknowledged, but if the file itself was cut or copied part-way, "+
			"the writes from that line on are lost\n", path, d.tornLine, d.tornBytes, d.tornOps)
	}
}

func lineList(lines []int) string {
	const shown = 10
	parts := make([]string, 0, shown)
	for i, n := range lines {
		if i == shown {
			parts = append(parts, fmt.Sprintf("and %d more", len(lines)-shown))
			break
		}
		parts = append(parts, "line "+strconv.Itoa(n))
	}
	return strings.Join(parts, ", ")
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

// encodeWALLine is one line of the log: checksum, JSON, newline.
func encodeWALLine(ops []walOp) ([]byte, error) {
	payload, err := json.Marshal(ops)
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, len(payload)+10)
	line = fmt.Appendf(line, "%08x ", crc32.Checksum(payload, crcTable))
	line = append(line, payload...)
	return append(line, '\n'), nil
}

// append writes one request's changes and fsyncs them.
func (w *wal) append(ops []walOp) error {
	if len(ops) == 0 {
		return nil
	}
	line, err := encodeWALLine(ops)
	if err != nil {
		return err
	}
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
