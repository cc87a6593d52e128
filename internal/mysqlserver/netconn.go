package mysqlserver

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// netConn wraps a client's connection for the packet reader (packet.go), adding:
//
//   - It reads the socket all the time, in its own goroutine, into a small buffer that the
//     packet reader drains. The MySQL protocol is half-duplex, so while a query runs nobody
//     else reads: without this the server would notice a client that hung up (or sent COM_QUIT)
//     only when the query ends, and a query nobody waits for would keep spending the base's
//     5 requests per second. onGone is called as soon as the client is gone.
//   - Reads wait at most readTimeout (the handshake bound, then the idle timeout).
//   - Writes can be batched (between beginBatch and flush) so that a result set goes out in
//     32 KiB writes rather than one system call per row; every write has a deadline so a client
//     that stops reading cannot hold a query forever.
type netConn struct {
	net.Conn

	mu      sync.Mutex
	pending []byte // read from the socket, not yet consumed
	rerr    error  // what ended reading (io.EOF when the client closed)
	changed chan struct{}
	drained chan struct{}
	closed  chan struct{}
	closeMu sync.Once

	readTimeout  atomic.Int64 // nanoseconds; 0: none
	timedOut     atomic.Bool  // a read timed out, or the handshake took too long
	writeTimeout time.Duration

	bw       *bufio.Writer
	batching bool

	onGone   func() // called once, from the reading goroutine, when the client is gone
	goneOnce sync.Once
}

// maxPending bounds what is read ahead of the protocol reader.
const maxPending = 64 << 10

// comQuit is a COM_QUIT packet as the first packet of a command (sequence 0).
var comQuit = []byte{1, 0, 0, 0, 1}

// errIdle ends a read that waited longer than the read timeout.
var errIdle = &timeoutError{}

type timeoutError struct{}

func (*timeoutError) Error() string   { return "no packet from the client within the timeout" }
func (*timeoutError) Timeout() bool   { return true }
func (*timeoutError) Temporary() bool { return false }

func newNetConn(c net.Conn, writeTimeout time.Duration, onGone func()) *netConn {
	nc := &netConn{
		Conn:         c,
		changed:      make(chan struct{}, 1),
		drained:      make(chan struct{}, 1),
		closed:       make(chan struct{}),
		writeTimeout: writeTimeout,
		onGone:       onGone,
	}
	go nc.readLoop()
	return nc
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

func (c *netConn) gone() {
	c.goneOnce.Do(func() {
		if c.onGone != nil {
			c.onGone()
		}
	})
}

func (c *netConn) readLoop() {
	buf := make([]byte, 16<<10)
	for {
		n, err := c.Conn.Read(buf)
		c.mu.Lock()
		c.pending = append(c.pending, buf[:n]...)
		if err != nil {
			c.rerr = err
		}
		quit := bytes.Equal(c.pending, comQuit)
		full := len(c.pending) >= maxPending
		c.mu.Unlock()
		signal(c.changed)
		if err != nil || quit {
			c.gone()
		}
		if err != nil {
			return
		}
		for full {
			select {
			case <-c.drained:
			case <-c.closed:
				return
			}
			c.mu.Lock()
			full = len(c.pending) >= maxPending
			c.mu.Unlock()
		}
	}
}

// Read hands out what the reading goroutine read, waiting at most the read timeout.
func (c *netConn) Read(p []byte) (int, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	var expired <-chan time.Time
	for {
		c.mu.Lock()
		if len(c.pending) > 0 {
			n := copy(p, c.pending)
			c.pending = c.pending[n:]
			if len(c.pending) == 0 {
				c.pending = nil
			}
			c.mu.Unlock()
			signal(c.drained)
			return n, nil
		}
		err := c.rerr
		c.mu.Unlock()
		if err != nil {
			return 0, err
		}
		if timer == nil {
			if d := time.Duration(c.readTimeout.Load()); d > 0 {
				timer = time.NewTimer(d)
				expired = timer.C
			}
		}
		select {
		case <-c.changed:
		case <-expired:
			c.timedOut.Store(true)
			return 0, errIdle
		case <-c.closed:
			return 0, net.ErrClosed
		}
	}
}

func (c *netConn) setReadTimeout(d time.Duration) { c.readTimeout.Store(int64(d)) }

// Write writes p, into the batch buffer while batching.
func (c *netConn) Write(p []byte) (int, error) {
	if c.batching {
		return c.bw.Write(p)
	}
	return c.write(p)
}

func (c *netConn) write(p []byte) (int, error) {
	if c.writeTimeout > 0 {
		if err := c.Conn.SetWriteDeadline(time.Now().Add(c.writeTimeout)); err != nil {
			return 0, err
		}
	}
	return c.Conn.Write(p)
}

type writeFunc func([]byte) (int, error)

func (f writeFunc) Write(p []byte) (int, error) { return f(p) }

// beginBatch buffers the writes that follow until flush.
func (c *netConn) beginBatch() {
	if c.bw == nil {
		c.bw = bufio.NewWriterSize(writeFunc(c.write), 32<<10)
	}
	c.batching = true
}

// flush ends a batch, writing what it holds.
func (c *netConn) flush() error {
	if !c.batching {
		return nil
	}
	c.batching = false
	return c.bw.Flush()
}

// Close closes the socket (which ends the reading goroutine) and wakes a blocked Read.
func (c *netConn) Close() error {
	var err error
	c.closeMu.Do(func() {
		close(c.closed)
		err = c.Conn.Close()
	})
	if err == nil {
		return nil
	}
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
