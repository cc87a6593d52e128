package mysqlserver

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
)

// The command phase is read and answered here rather than by the library's Conn.HandleCommand,
// whose COM_STMT_EXECUTE ignores the parameter values when the client does not send the types
// again (new-params-bound flag 0: libmysqlclient, Connector/C, ODBC and PHP do so on every
// execution after the first, and would silently bind NULLs) and hands DATE, DATETIME and TIME
// parameters over as their raw binary encoding; and whose own OK packets lack the autocommit
// status. The connection phase is handshake.go's, the packet framing packet.go's (compression
// is not offered).

// stmtState is a prepared statement of this connection.
type stmtState struct {
	prep   *preparedStmt
	params int
	types  []byte           // the parameter types last sent (2 bytes each)
	long   map[int][][]byte // COM_STMT_SEND_LONG_DATA chunks, until the next execution
}

var paramDefinition = (&mysql.Field{Name: []byte("?"), Type: mysql.MYSQL_TYPE_VAR_STRING, Charset: collationBinary}).Dump()

// dispatch answers one command. quit is true after COM_QUIT; err is a failure to write.
func (s *session) dispatch(data []byte) (quit bool, err error) {
	if len(data) == 0 {
		return false, s.writeError(mysql.NewError(mysql.ER_UNKNOWN_COM_ERROR, "empty command"))
	}
	cmd, data := data[0], data[1:]
	switch cmd {
	case mysql.COM_QUIT:
		return true, nil
	case mysql.COM_QUERY:
		_, err := s.HandleQuery(string(data))
		return false, s.answerCommand(err)
	case mysql.COM_PING:
		return false, s.writeOK(0, false)
	case mysql.COM_INIT_DB:
		return false, s.okOrError(s.UseDB(string(data)))
	case mysql.COM_FIELD_LIST:
		table, wildcard, _ := bytes.Cut(data, []byte{0})
		fields, err := s.HandleFieldList(string(table), string(bytes.TrimRight(wildcard, "\x00")))
		if err != nil {
			return false, s.answerCommand(err)
		}
		for _, f := range fields {
			if err := s.write(append(s.packet(), f.Dump()...)); err != nil {
				return false, err
			}
		}
		return false, s.writeEOF(false)
	case mysql.COM_STMT_PREPARE:
		return false, s.prepare(string(data))
	case mysql.COM_STMT_EXECUTE:
		return false, s.execute(data)
	case mysql.COM_STMT_SEND_LONG_DATA: // no response
		return false, s.sendLongData(data)
	case mysql.COM_STMT_CLOSE: // no response
		if len(data) >= 4 {
			s.closeStmt(binary.LittleEndian.Uint32(data))
		}
		return false, nil
	case mysql.COM_STMT_RESET:
		if len(data) < 4 || s.stmts[binary.LittleEndian.Uint32(data)] == nil {
			return false, s.writeError(mysql.NewError(mysql.ER_UNKNOWN_STMT_HANDLER, "Unknown prepared statement handler given to mysqld_stmt_reset"))
		}
		s.dropLongData(s.stmts[binary.LittleEndian.Uint32(data)])
		return false, s.writeOK(0, false)
	case mysql.COM_SET_OPTION:
		if err := s.HandleOtherCommand(cmd, data); err != nil {
			return false, s.answerCommand(err)
		}
		return false, s.writeEOF(false)
	case mysql.COM_RESET_CONNECTION:
		s.closeStmts()
		fallthrough
	default: // COM_PROCESS_KILL, and the unknown ones
		return false, s.okOrError(s.HandleOtherCommand(cmd, data))
	}
}

// answerCommand writes OK, or the error (a handler's *mysql.MyError, or the driver's, mapped).
// A nil error after HandleQuery or an execution means the answer is already written.
func (s *session) answerCommand(err error) error {
	if err == nil {
		return nil
	}
	var my *mysql.MyError
	if !errors.As(err, &my) {
		my = s.srv.mysqlError(err, nil)
	}
	return s.writeError(my)
}

// okOrError writes OK, or the error.
func (s *session) okOrError(err error) error {
	if err != nil {
		return s.answerCommand(err)
	}
	return s.writeOK(0, false)
}

// sendLongData appends a parameter's COM_STMT_SEND_LONG_DATA chunk. What the connection's
// statements hold together is bounded by max_allowed_packet: past it the connection is answered
// 1153 and closed (the command has no answer of its own), before the chunk is kept.
func (s *session) sendLongData(data []byte) error {
	if len(data) < 6 {
		return nil
	}
	st := s.stmts[binary.LittleEndian.Uint32(data)]
	if st == nil {
		return nil
	}
	i := int(binary.LittleEndian.Uint16(data[4:]))
	if i >= st.params {
		return nil
	}
	chunk := data[6:]
	if s.longBytes+len(chunk) > s.srv.cfg.MaxAllowedPacket {
		s.dropLongData(st)
		return &packetTooLargeError{limit: s.srv.cfg.MaxAllowedPacket, longData: true}
	}
	if st.long == nil {
		st.long = map[int][][]byte{}
	}
	// Kept as a copy of its own length: the packet's buffer may be up to twice as long.
	st.long[i] = append(st.long[i], append([]byte(nil), chunk...))
	s.longBytes += len(chunk)
	return nil
}

// dropLongData forgets a statement's long data (executed, reset or closed).
func (s *session) dropLongData(st *stmtState) {
	for _, chunks := range st.long {
		for _, b := range chunks {
			s.longBytes -= len(b)
		}
	}
	st.long = nil
}

// closeStmt closes one prepared statement.
func (s *session) closeStmt(id uint32) {
	st := s.stmts[id]
	if st == nil {
		return
	}
	s.dropLongData(st)
	_ = s.HandleStmtClose(st.prep)
	delete(s.stmts, id)
	s.srv.prepared.Add(-1)
}

// closeStmts closes every prepared statement of the connection (COM_RESET_CONNECTION, and when
// it ends).
func (s *session) closeStmts() {
	for id := range s.stmts {
		s.closeStmt(id)
	}
}

func (s *session) prepare(query string) error {
	// max_prepared_stmt_count counts the statements of every connection, as MySQL's does.
	if n := s.srv.prepared.Add(1); n > maxPreparedStmtCount {
		s.srv.prepared.Add(-1)
		s.srv.logf("connection %d: prepare refused: %d statements are prepared (max_prepared_stmt_count)", s.id, maxPreparedStmtCount)
		return s.writeError(mysql.NewError(mysql.ER_MAX_PREPARED_STMT_COUNT_REACHED, fmt.Sprintf(
			"Can't create more than max_prepared_stmt_count statements (current value: %d): close prepared statements you no longer use", maxPreparedStmtCount)))
	}
	params, _, ctxv, err := s.HandleStmtPrepare(query)
	if err != nil {
		s.srv.prepared.Add(-1)
		return s.answerCommand(err)
	}
	prep := ctxv.(*preparedStmt)
	s.nextStmt++
	id := s.nextStmt
	s.stmts[id] = &stmtState{prep: prep, params: params}
	// COM_STMT_PREPARE_OK: the id, the counts of result columns and parameters, a filler and
	// no warnings; then the parameter definitions and the column definitions, each block
	// ended by EOF.
	p := append(s.packet(), 0)
	p = binary.LittleEndian.AppendUint32(p, id)
	p = binary.LittleEndian.AppendUint16(p, uint16(len(prep.cols)))
	p = binary.LittleEndian.AppendUint16(p, uint16(params))
	p = append(p, 0, 0, 0)
	if err := s.write(p); err != nil {
		return err
	}
	if params > 0 {
		for range params {
			if err := s.write(append(s.packet(), paramDefinition...)); err != nil {
				return err
			}
		}
		if err := s.writeEOF(false); err != nil {
			return err
		}
	}
	if len(prep.cols) > 0 {
		for _, c := range prep.cols {
			if err := s.write(append(s.packet(), c.field.Dump()...)); err != nil {
				return err
			}
		}
		if err := s.writeEOF(false); err != nil {
			return err
		}
	}
	return nil
}

func (s *session) execute(data []byte) error {
	if len(data) < 9 {
		return s.answerCommand(mysql.ErrMalformPacket)
	}
	st := s.stmts[binary.LittleEndian.Uint32(data)]
	if st == nil {
		return s.writeError(mysql.NewError(mysql.ER_UNKNOWN_STMT_HANDLER, "Unknown prepared statement handler given to mysqld_stmt_execute"))
	}
	if flags := data[4]; flags&0x07 != 0 {
		return s.answerCommand(mysql.NewError(mysql.ER_NOT_SUPPORTED_YET,
			"server-side cursors are not supported: execute without a cursor (Connector/J: useCursorFetch=false)"))
	}
	args, err := st.bind(data[9:])
	s.dropLongData(st)
	if err != nil {
		s.srv.logf("connection %d: execute: %v", s.id, err)
		return s.writeError(mysql.NewError(mysql.ER_WRONG_ARGUMENTS, "COM_STMT_EXECUTE: "+err.Error()))
	}
	_, err = s.HandleStmtExecute(st.prep, st.prep.query, args)
	return s.answerCommand(err)
}

// bind decodes the parameters of COM_STMT_EXECUTE: the NULL bitmap, the types (sent again or
// not), and the values in the binary protocol.
func (st *stmtState) bind(b []byte) ([]any, error) {
	n := st.params
	args := make([]any, n)
	if n == 0 {
		return args, nil
	}
	nullLen := (n + 7) / 8
	if len(b) < nullLen+1 {
		return nil, errors.New("the packet ends before the NULL bitmap")
	}
	nulls, b := b[:nullLen], b[nullLen:]
	bound, b := b[0], b[1:]
	if bound == 1 {
		if len(b) < 2*n {
			return nil, errors.New("the packet ends before the parameter types")
		}
		st.types, b = append([]byte(nil), b[:2*n]...), b[2*n:]
	}
	if len(st.types) != 2*n {
		return nil, errors.New("no parameter types were ever sent for this statement")
	}
	for i := range n {
		if long, ok := st.long[i]; ok {
			args[i] = string(bytes.Join(long, nil))
			continue
		}
		if nulls[i/8]&(1<<(i%8)) != 0 {
			continue
		}
		typ, unsigned := st.types[2*i], st.types[2*i+1]&0x80 != 0
		v, used, err := decodeParam(b, typ, unsigned)
		if err != nil {
			return nil, fmt.Errorf("parameter %d: %w", i+1, err)
		}
		args[i], b = v, b[used:]
	}
	return args, nil
}

var errShort = errors.New("the packet ends inside the value")

// decodeParam decodes one binary-protocol value of the given type to a database/sql value.
func decodeParam(b []byte, typ byte, unsigned bool) (any, int, error) {
	switch typ {
	case mysql.MYSQL_TYPE_NULL:
		return nil, 0, nil
	case mysql.MYSQL_TYPE_TINY, mysql.MYSQL_TYPE_SHORT, mysql.MYSQL_TYPE_YEAR, mysql.MYSQL_TYPE_INT24,
		mysql.MYSQL_TYPE_LONG, mysql.MYSQL_TYPE_LONGLONG, mysql.MYSQL_TYPE_FLOAT, mysql.MYSQL_TYPE_DOUBLE:
		return decodeNumber(b, typ, unsigned)
	case mysql.MYSQL_TYPE_DATE, mysql.MYSQL_TYPE_NEWDATE, mysql.MYSQL_TYPE_DATETIME, mysql.MYSQL_TYPE_TIMESTAMP:
		return decodeDateTime(b)
	case mysql.MYSQL_TYPE_TIME:
		return decodeTime(b)
	}
	// Strings, blobs, decimals, JSON, enums: a length-encoded string. (Decoded here: the
	// library's LengthEncodedString indexes past the end of a short packet.)
	switch {
	case len(b) == 0:
		return nil, 0, errShort
	case b[0] == 0xfb:
		return nil, 1, nil
	case b[0] == 0xff:
		return nil, 0, errors.New("0xff does not start a length")
	}
	v, rest, ok := lenEncString(b)
	if !ok {
		return nil, 0, errShort
	}
	return string(v), len(b) - len(rest), nil
}

// numberSizes is the size of each fixed-size numeric type in the binary protocol.
var numberSizes = map[byte]int{
	mysql.MYSQL_TYPE_TINY: 1, mysql.MYSQL_TYPE_SHORT: 2, mysql.MYSQL_TYPE_YEAR: 2, mysql.MYSQL_TYPE_INT24: 4,
	mysql.MYSQL_TYPE_LONG: 4, mysql.MYSQL_TYPE_LONGLONG: 8, mysql.MYSQL_TYPE_FLOAT: 4, mysql.MYSQL_TYPE_DOUBLE: 8,
}

// decodeNumber decodes an integer (int64; an unsigned one that does not fit is refused) or a
// float (float64), little-endian.
func decodeNumber(b []byte, typ byte, unsigned bool) (any, int, error) {
	n := numberSizes[typ]
	if len(b) < n {
		return nil, 0, errShort
	}
	v := b[:n]
	switch typ {
	case mysql.MYSQL_TYPE_FLOAT:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(v))), n, nil
	case mysql.MYSQL_TYPE_DOUBLE:
		return math.Float64frombits(binary.LittleEndian.Uint64(v)), n, nil
	}
	var u uint64
	var signed int64
	switch n {
	case 1:
		u, signed = uint64(v[0]), int64(int8(v[0]))
	case 2:
		x := binary.LittleEndian.Uint16(v)
		u, signed = uint64(x), int64(int16(x))
	case 4:
		x := binary.LittleEndian.Uint32(v)
		u, signed = uint64(x), int64(int32(x))
	default:
		u = binary.LittleEndian.Uint64(v)
		signed = int64(u)
		if unsigned && u > math.MaxInt64 {
			return nil, 0, fmt.Errorf("the unsigned integer %d does not fit a signed 64-bit integer", u)
		}
	}
	if unsigned {
		return int64(u), n, nil
	}
	return signed, n, nil
}

// decodeDateTime decodes a DATE, DATETIME or TIMESTAMP: 0, 4, 7 or 11 bytes after their count.
func decodeDateTime(b []byte) (any, int, error) {
	if len(b) < 1 || len(b) < 1+int(b[0]) {
		return nil, 0, errShort
	}
	n, v := int(b[0]), b[1:1+int(b[0])]
	switch n {
	case 0:
		return "0000-00-00 00:00:00", 1, nil
	case 4, 7, 11:
	default:
		return nil, 0, fmt.Errorf("a date of %d bytes", n)
	}
	var h, mi, sec, us int
	if n >= 7 {
		h, mi, sec = int(v[4]), int(v[5]), int(v[6])
	}
	if n == 11 {
		us = int(binary.LittleEndian.Uint32(v[7:]))
	}
	t := time.Date(int(binary.LittleEndian.Uint16(v)), time.Month(v[2]), int(v[3]), h, mi, sec, us*1000, time.UTC)
	return t, 1 + n, nil
}

// decodeTime decodes a TIME (0, 8 or 12 bytes after their count) as text: hours past 24 kept.
func decodeTime(b []byte) (any, int, error) {
	if len(b) < 1 || len(b) < 1+int(b[0]) {
		return nil, 0, errShort
	}
	n, v := int(b[0]), b[1:1+int(b[0])]
	switch n {
	case 0:
		return "00:00:00", 1, nil
	case 8, 12:
	default:
		return nil, 0, fmt.Errorf("a time of %d bytes", n)
	}
	sign := ""
	if v[0] == 1 {
		sign = "-"
	}
	hours := int(binary.LittleEndian.Uint32(v[1:]))*24 + int(v[5])
	s := fmt.Sprintf("%s%02d:%02d:%02d", sign, hours, v[6], v[7])
	if n == 12 {
		s += fmt.Sprintf(".%06d", binary.LittleEndian.Uint32(v[8:]))
	}
	return s, 1 + n, nil
}
