package mysqlserver

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-mysql-org/go-mysql/mysql"
)

// The MySQL packet framing is done here rather than by the protocol library, whose reader
// allocates a packet's announced length before a byte of it has arrived and joins 16 MiB
// continuation packets without a cap: four bytes (ff ff ff 01) from a client that never logged
// in held 16 MiB for the whole handshake timeout. packetConn checks the announced length
// against the limit before reading anything, and grows a packet's buffer only as its bytes
// arrive.

const (
	// maxPayload is the longest payload of one physical packet; a logical packet of this
	// length or more continues in the next.
	maxPayload = 1<<24 - 1
	// readChunk bounds what a packet's buffer grows by ahead of the bytes received.
	readChunk = 64 << 10
	// defaultMaxAllowedPacket is MySQL 8's max_allowed_packet.
	defaultMaxAllowedPacket = 64 << 20
	// maxHandshakePacket bounds a packet of the connection phase (handshake response, auth
	// switch response): a client that has not logged in gets no more.
	maxHandshakePacket = 64 << 10
)

// packetTooLargeError is a packet over the limit: answered with 1153, then the connection closes.
type packetTooLargeError struct {
	limit    int
	longData bool // the long data (COM_STMT_SEND_LONG_DATA) of the connection's statements
}

func (e *packetTooLargeError) Error() string {
	if e.longData {
		return fmt.Sprintf("Got a packet bigger than 'max_allowed_packet' bytes: the long data (COM_STMT_SEND_LONG_DATA) of this connection's prepared statements passed the server's -max-allowed-packet of %d bytes", e.limit)
	}
	return fmt.Sprintf("Got a packet bigger than 'max_allowed_packet' bytes (the server's -max-allowed-packet is %d)", e.limit)
}

// outOfOrderError is a packet whose sequence id is not the next one: answered with 1156.
type outOfOrderError struct{ got, want uint8 }

func (e *outOfOrderError) Error() string {
	return fmt.Sprintf("Got packets out of order (sequence id %d, expected %d)", e.got, e.want)
}

// protocolError is the MySQL error that answers a framing error, or nil for any other error
// (the client went away, a timeout).
func protocolError(err error) *mysql.MyError {
	var large *packetTooLargeError
	var order *outOfOrderError
	switch {
	case errors.As(err, &large):
		return mysql.NewError(mysql.ER_NET_PACKET_TOO_LARGE, large.Error())
	case errors.As(err, &order):
		return mysql.NewError(mysql.ER_NET_PACKETS_OUT_OF_ORDER, order.Error())
	}
	return nil
}

// packetConn reads and writes MySQL packets: r is the client's byte stream (the netConn, or
// the TLS connection over it), w where packets go.
type packetConn struct {
	r   io.Reader
	w   io.Writer
	seq uint8
	// limit is the longest logical packet accepted (maxHandshakePacket until login, then
	// max_allowed_packet).
	limit int
}

// readPacket reads one logical packet (its physical packets joined). Nothing is allocated for
// a packet over the limit, and a packet's buffer never runs more than readChunk ahead of the
// bytes received (plus append's doubling), whatever length the client announced.
func (c *packetConn) readPacket() ([]byte, error) {
	var data []byte
	var head [4]byte
	for {
		if _, err := io.ReadFull(c.r, head[:]); err != nil {
			return nil, err
		}
		n := int(head[0]) | int(head[1])<<8 | int(head[2])<<16
		if head[3] != c.seq {
			return nil, &outOfOrderError{got: head[3], want: c.seq}
		}
		c.seq++
		if len(data)+n > c.limit {
			return nil, &packetTooLargeError{limit: c.limit}
		}
		for want := len(data) + n; len(data) < want; {
			chunk := min(want-len(data), readChunk)
			if cap(data)-len(data) < chunk {
				grown := make([]byte, len(data), min(max(2*cap(data), len(data)+chunk), want))
				copy(grown, data)
				data = grown
			}
			got, err := io.ReadFull(c.r, data[len(data):len(data)+chunk])
			data = data[:len(data)+got]
			if err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return nil, err
			}
		}
		if n < maxPayload {
			if data == nil {
				data = []byte{}
			}
			return data, nil
		}
	}
}

// writePacket writes p, whose first 4 bytes are room for the header, as one or more packets.
// p's bytes are overwritten.
func (c *packetConn) writePacket(p []byte) error {
	for len(p)-4 >= maxPayload {
		p[0], p[1], p[2], p[3] = 0xff, 0xff, 0xff, c.seq
		if _, err := c.w.Write(p[:4+maxPayload]); err != nil {
			return err
		}
		c.seq++
		p = p[maxPayload:]
	}
	n := len(p) - 4
	p[0], p[1], p[2], p[3] = byte(n), byte(n>>8), byte(n>>16), c.seq
	c.seq++
	_, err := c.w.Write(p)
	return err
}

// writeError writes an error packet.
func (c *packetConn) writeError(e *mysql.MyError) error {
	p := []byte{0, 0, 0, 0, mysql.ERR_HEADER, byte(e.Code), byte(e.Code >> 8), '#'}
	p = append(p, e.State...)
	p = append(p, e.Message...)
	return c.writePacket(p)
}
