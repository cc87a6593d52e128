package emulator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Attachment URLs: the service downloads a file given by URL after the write that gave it, and the
// attachment then shows its size, type and (images) width and height (reference §4.4: http(s), at
// most 3 redirects, at most 1 GB). With WithAttachmentFetch the emulator does the same, in the
// background, after the write is answered: it reads the file to count its bytes (it keeps none of
// them, so memory does not grow with the file) and updates the attachment, logged in the data file
// like a write. The attachment keeps the URL it was given. A download that fails leaves the
// attachment as it was (size 0).

// MaxFetchBytes is the largest file fetched by URL (the service's documented 1 GB); a larger file
// is left as it was.
const MaxFetchBytes = 1 << 30

// fetchConcurrency bounds how many downloads run at once.
const fetchConcurrency = 4

// WithAttachmentFetch makes the server download the files of attachments written by URL, as the
// service does, to fill in their size, type, width and height. client makes the requests (nil: a
// client with a 60 s timeout that follows at most 3 redirects). Without this option attachment URLs
// are never fetched and their size is 0.
func WithAttachmentFetch(client *http.Client) Option {
	return func(c *config) error {
		if client == nil {
			client = &http.Client{Timeout: 60 * time.Second, CheckRedirect: func(_ *http.Request, via []*http.Request) error {
				if len(via) > 3 {
					return errors.New("more than 3 redirects")
				}
				return nil
			}}
		}
		c.fetchClient = client
		return nil
	}
}

// fetcher runs the downloads. Guarded by Server.mu, except its WaitGroups, channel and context.
type fetcher struct {
	ctx     context.Context
	cancel  context.CancelFunc
	all     sync.WaitGroup
	slots   chan struct{}
	done    map[string]bool           // record/field/attachment already fetched (or failed)
	pending map[string]*recordFetches // record id -> its downloads under way
}

// recordFetches counts a record's downloads under way; done closes when the count is back to 0.
type recordFetches struct {
	n    int
	done chan struct{}
}

type fetchJob struct {
	base, table, record, field, att, url string
}

func (j fetchJob) key() string { return j.record + "/" + j.field + "/" + j.att }

// scheduleFetchesLocked starts a download for each attachment given by URL in the records ops put
// that was not fetched yet. The caller holds s.mu for writing.
func (s *Server) scheduleFetchesLocked(ops []walOp) {
	if s.cfg.fetchClient == nil {
		return
	}
	f := s.extras.fetch
	if f == nil {
		ctx, cancel := context.WithCancel(context.Background())
		f = &fetcher{ctx: ctx, cancel: cancel, slots: make(chan struct{}, fetchConcurrency), done: map[string]bool{}, pending: map[string]*recordFetches{}}
		s.extras.fetch = f
	}
	if f.ctx.Err() != nil { // closed
		return
	}
	for _, op := range ops {
		if op.Kind != "put" || op.Record == nil {
			continue
		}
		t := s.bases[op.Base].tableByID[op.Table]
		for _, fl := range t.fields {
			if fl.Type != "multipleAttachments" {
				continue
			}
			list, _ := op.Record.Cells[fl.ID].([]any)
			for _, a := range list {
				m, _ := a.(map[string]any)
				id, _ := m["id"].(string)
				u, _ := m["url"].(string)
				if m["size"] != float64(0) || !(strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")) || strings.Contains(u, attachmentPathPrefix) {
					continue
				}
				job := fetchJob{base: op.Base, table: op.Table, record: op.Record.ID, field: fl.ID, att: id, url: u}
				if f.done[job.key()] {
					continue
				}
				f.done[job.key()] = true
				rf := f.pending[job.record]
				if rf == nil {
					rf = &recordFetches{done: make(chan struct{})}
					f.pending[job.record] = rf
				}
				rf.n++
				f.all.Add(1)
				go s.fetchAttachment(f, job)
			}
		}
	}
}

// fetchAttachment downloads one file and updates its attachment.
func (s *Server) fetchAttachment(f *fetcher, job fetchJob) {
	defer f.all.Done()
	var size int64
	var typ string
	var width, height int
	err := f.ctx.Err()
	select {
	case f.slots <- struct{}{}:
		size, typ, width, height, err = download(f.ctx, s.cfg.fetchClient, job.url)
		<-f.slots
	case <-f.ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() { // the record's count, whatever happened
		rf := f.pending[job.record]
		if rf.n--; rf.n == 0 {
			close(rf.done)
			delete(f.pending, job.record)
		}
	}()
	if err != nil {
		return
	}
	b := s.bases[job.base]
	if b == nil || b.tableByID[job.table] == nil {
		return
	}
	r := b.tableByID[job.table].recByID[job.record]
	if r == nil {
		return // deleted meanwhile
	}
	list, _ := r.cells[job.field].([]any)
	updated := make([]any, len(list))
	found := false
	for i, a := range list {
		m, _ := a.(map[string]any)
		if m != nil && m["id"] == job.att && m["url"] == job.url && m["size"] == float64(0) {
			m = cloneMap(m)
			m["size"] = float64(size)
			if typ != "" {
				m["type"] = typ
			}
			if width > 0 {
				m["width"], m["height"] = float64(width), float64(height)
			}
			found = true
			updated[i] = m
			continue
		}
		updated[i] = a
	}
	if !found {
		return // replaced meanwhile
	}
	rec := r.clone()
	rec.cells[job.field] = updated
	_ = s.commitExtraLocked([]walOp{{Kind: "put", Base: job.base, Table: job.table, Record: toWALRecord(rec)}}, changeSource{source: sourceSystem})
}

// download reads url to its end and reports its size, its content type and an image's dimensions.
func download(ctx context.Context, client *http.Client, url string) (size int64, typ string, width, height int, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", 0, 0, err
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, "", 0, 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return 0, "", 0, 0, fmt.Errorf("GET %s: %s", url, res.Status)
	}
	body := io.LimitReader(res.Body, MaxFetchBytes+1)
	head := make([]byte, 64<<10) // enough for the header of any image DecodeConfig reads
	n, err := io.ReadFull(body, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return 0, "", 0, 0, err
	}
	head = head[:n]
	rest, err := io.Copy(io.Discard, body)
	if err != nil {
		return 0, "", 0, 0, err
	}
	size = int64(n) + rest
	if size > MaxFetchBytes {
		return 0, "", 0, 0, fmt.Errorf("GET %s: larger than %d bytes", url, MaxFetchBytes)
	}
	if mt, _, err := mime.ParseMediaType(res.Header.Get("Content-Type")); err == nil && mt != "application/octet-stream" {
		typ = mt
	}
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(head)); err == nil {
		width, height = cfg.Width, cfg.Height
	}
	return size, typ, width, height, nil
}

// waitFetchesOf waits until the downloads of a record's attachments are done (or ctx ends), so
// that an upload to the record answers with their sizes. The caller must not hold s.mu.
func (s *Server) waitFetchesOf(ctx context.Context, recordID string) {
	s.mu.Lock()
	var done chan struct{}
	if f := s.extras.fetch; f != nil && f.pending[recordID] != nil {
		done = f.pending[recordID].done
	}
	s.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// waitFetches waits for every download under way.
func (s *Server) waitFetches() {
	s.mu.Lock()
	f := s.extras.fetch
	s.mu.Unlock()
	if f != nil {
		f.all.Wait()
	}
}

// stopFetches cancels the downloads under way and waits for them.
func (s *Server) stopFetches() {
	s.mu.Lock()
	f := s.extras.fetch
	s.mu.Unlock()
	if f != nil {
		f.cancel()
		f.all.Wait()
	}
}
