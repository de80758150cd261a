package recording

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"strings"
	"time"
)

// MaxMessageSize is the wire protocol's maximum message size
// (maxMessageSizeBytes): no packet of a recording may be as large.
const MaxMessageSize = 48_000_000

// headerSize is a wire message header's size.
const headerSize = 16

// minPacket is the smallest packet any layout can hold: the size, a
// connection id, an empty string, two uint64s.
const minPacket = 4 + 8 + 1 + 8 + 8

// Layout is one of the packet layouts of the server's history.
type Layout uint8

// The layouts (see the package documentation).
const (
	LayoutUnknown     Layout = iota
	LayoutLocalRemote        // id, local, remote, milliseconds, order, message
	LayoutSession            // id, session, milliseconds, order, message
	LayoutEvent              // event, id, session, microseconds, order, message (8.x)
)

func (l Layout) String() string {
	switch l {
	case LayoutLocalRemote:
		return "local/remote, milliseconds"
	case LayoutSession:
		return "session, milliseconds"
	case LayoutEvent:
		return "8.x: event, session, microseconds"
	}
	return "unknown"
}

// Event is what a packet records.
type Event uint8

// The events of LayoutEvent; the older layouts record messages only.
const (
	EventMessage      Event = 0
	EventSessionStart Event = 1
	EventSessionEnd   Event = 2
	eventMax          Event = 3
)

func (e Event) String() string {
	switch e {
	case EventMessage:
		return "message"
	case EventSessionStart:
		return "sessionStart"
	case EventSessionEnd:
		return "sessionEnd"
	}
	return fmt.Sprintf("event(%d)", uint8(e))
}

// Direction is which way a message went.
type Direction uint8

// Directions. A session event has none.
const (
	DirNone    Direction = iota
	DirRequest           // client to server: the header's responseTo is 0
	DirReply             // server to client
)

func (d Direction) String() string {
	switch d {
	case DirRequest:
		return "request"
	case DirReply:
		return "reply"
	}
	return "none"
}

// Packet is one record of a recording.
type Packet struct {
	Event Event
	// Conn is the connection's id; Session the server's description of
	// it (LayoutLocalRemote: "local -> remote"), Remote the client's
	// address where the session names it.
	Conn    uint64
	Session string
	Remote  string
	// Offset is the time since the recording started, to the
	// microsecond (the millisecond layouts: since its first packet, to
	// the millisecond). Date is the wall-clock time where the layout
	// holds it, else zero.
	Offset time.Duration
	Date   time.Time
	// Order is the packet's place in the recording as its writer
	// numbered them.
	Order     uint64
	Direction Direction
	// Message is the wire message as it crossed the connection (nil for
	// a session event). Parse decodes it.
	Message []byte
	// File and Pos say where the packet starts.
	File string
	Pos  int64
}

// ErrCorrupt marks a recording that cannot be read as one; ErrChecksum a
// file whose bytes do not match its checksum.
var (
	ErrCorrupt  = errors.New("not a readable traffic recording")
	ErrChecksum = errors.New("checksum mismatch")
)

// Error is a damaged recording: the file, the byte offset and what was
// wrong there, on one line.
type Error struct {
	File   string
	Offset int64
	Reason string
	Kind   error // ErrCorrupt or ErrChecksum
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: byte %d: %s", e.File, e.Offset, e.Reason)
}

func (e *Error) Unwrap() error { return e.Kind }

// Reader reads the packets of one recording file.
type Reader struct {
	name   string
	br     *bufio.Reader
	pos    int64
	layout Layout
	crc    hash.Hash32
	start  *int64 // milliseconds of the recording's first packet, shared by a Set
	count  int
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// NewReader reads a recording from r; name is what errors call it.
func NewReader(r io.Reader, name string) *Reader {
	var start int64 = -1
	return newReader(r, name, &start)
}

func newReader(r io.Reader, name string, start *int64) *Reader {
	return &Reader{name: name, br: bufio.NewReaderSize(r, 64<<10), crc: crc32.New(castagnoli), start: start}
}

// Layout is the layout recognised from the first packet (LayoutUnknown
// before it is read).
func (r *Reader) Layout() Layout { return r.layout }

// Checksum is the CRC32C of the bytes read so far: after io.EOF, the
// file's.
func (r *Reader) Checksum() uint32 { return r.crc.Sum32() }

// Count is the number of packets read.
func (r *Reader) Count() int { return r.count }

func (r *Reader) fail(at int64, format string, args ...any) error {
	return &Error{File: r.name, Offset: at, Reason: fmt.Sprintf(format, args...), Kind: ErrCorrupt}
}

// Next returns the next packet, or io.EOF after the last one. A file
// that ends inside a packet, or holds something other than packets, is
// an *Error.
func (r *Reader) Next() (Packet, error) {
	at := r.pos
	var size [4]byte
	n, err := io.ReadFull(r.br, size[:])
	switch {
	case err == io.EOF:
		return Packet{}, io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		return Packet{}, r.fail(at, "truncated: the file ends %d bytes into a packet's 4-byte size", n)
	case err != nil:
		return Packet{}, fmt.Errorf("%s: byte %d: %w", r.name, at, err)
	}
	declared := binary.LittleEndian.Uint32(size[:])
	if declared < minPacket {
		return Packet{}, r.fail(at, "declared packet size %d is below the smallest packet (%d bytes)", declared, minPacket)
	}
	if declared >= MaxMessageSize {
		return Packet{}, r.fail(at, "declared packet size %d is not below the wire protocol's maximum message size (%d bytes)", declared, MaxMessageSize)
	}
	buf := make([]byte, declared)
	copy(buf, size[:])
	if n, err := io.ReadFull(r.br, buf[4:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
			return Packet{}, r.fail(at, "truncated: the packet declares %d bytes, the file ends after %d", declared, 4+n)
		}
		return Packet{}, fmt.Errorf("%s: byte %d: %w", r.name, at+4+int64(n), err)
	}
	r.crc.Write(buf)
	r.pos += int64(declared)
	if r.layout == LayoutUnknown {
		r.layout = detect(buf)
		if r.layout == LayoutUnknown {
			return Packet{}, r.fail(at, "not a traffic recording packet in any known layout (8.x event, session, local/remote): its message's length does not end at the packet's end")
		}
	}
	p, reason := parsePacket(buf, r.layout)
	if reason != "" {
		return Packet{}, r.fail(at, "%s packet: %s", r.layout, reason)
	}
	p.File, p.Pos = r.name, at
	if r.layout != LayoutEvent {
		ms := p.Offset.Milliseconds() // the date, until made an offset
		p.Date = time.UnixMilli(ms).UTC()
		if *r.start < 0 {
			*r.start = ms
		}
		p.Offset = time.Duration(ms-*r.start) * time.Millisecond
	}
	r.count++
	return p, nil
}

// detect finds the layout a packet fits, the newest first. A
// LayoutSession packet whose connection id's low byte is 0 also fits
// LayoutEvent (the id's first byte read as the event "message", the
// same bytes from the session's second on): the time field tells them
// apart, milliseconds since the epoch (2001 to 2100) in the older
// layout, microseconds since the recording started (the first packet's
// within days of it) in 8.x.
func detect(buf []byte) Layout {
	fits := func(l Layout) bool { _, reason := parsePacket(buf, l); return reason == "" }
	switch {
	case fits(LayoutEvent):
		if fits(LayoutSession) {
			p, _ := parsePacket(buf, LayoutSession)
			if ms := p.Offset.Milliseconds(); ms >= minEpochMs && ms <= maxEpochMs {
				return LayoutSession
			}
		}
		return LayoutEvent
	case fits(LayoutSession):
		return LayoutSession
	case fits(LayoutLocalRemote):
		return LayoutLocalRemote
	}
	return LayoutUnknown
}

// The dates a millisecond layout's first packet may hold: 2001 to 2100.
const (
	minEpochMs = 1_000_000_000_000
	maxEpochMs = 4_102_444_800_000
)

// cursor reads a packet's fields.
type cursor struct {
	b   []byte
	pos int
	bad string
}

func (c *cursor) u64(what string) uint64 {
	if c.bad != "" {
		return 0
	}
	if len(c.b)-c.pos < 8 {
		c.bad = fmt.Sprintf("the packet ends inside its %s", what)
		return 0
	}
	v := binary.LittleEndian.Uint64(c.b[c.pos:])
	c.pos += 8
	return v
}

func (c *cursor) cstring(what string) string {
	if c.bad != "" {
		return ""
	}
	i := bytes.IndexByte(c.b[c.pos:], 0)
	if i < 0 {
		c.bad = fmt.Sprintf("its %s has no terminating NUL", what)
		return ""
	}
	s := string(c.b[c.pos : c.pos+i])
	c.pos += i + 1
	return s
}

// parsePacket decodes a whole packet in a layout; a non-empty reason says
// why it does not fit. The millisecond layouts leave the date, in
// milliseconds, in Offset for the caller.
func parsePacket(buf []byte, l Layout) (Packet, string) {
	c := &cursor{b: buf, pos: 4}
	var p Packet
	if l == LayoutEvent {
		p.Event = Event(buf[4])
		c.pos++
		if p.Event >= eventMax {
			return p, fmt.Sprintf("event %d is none of message (0), sessionStart (1), sessionEnd (2)", buf[4])
		}
	}
	p.Conn = c.u64("connection id")
	if l == LayoutLocalRemote {
		local := c.cstring("local address")
		p.Remote = c.cstring("remote address")
		p.Session = local + " <- " + p.Remote
	} else {
		p.Session = c.cstring("session")
		p.Remote = sessionField(p.Session, "remote")
	}
	when := c.u64("time")
	p.Order = c.u64("order")
	if c.bad != "" {
		return p, c.bad
	}
	if l == LayoutEvent {
		p.Offset = time.Duration(when) * time.Microsecond
		if when > uint64(1<<63-1)/1000 {
			return p, fmt.Sprintf("offset %d µs is out of range", when)
		}
	} else {
		if when > uint64(1<<63-1)/uint64(time.Millisecond) {
			return p, fmt.Sprintf("date %d ms is out of range", when)
		}
		p.Offset = time.Duration(when) * time.Millisecond
	}
	rest := buf[c.pos:]
	if p.Event != EventMessage {
		if len(rest) != 0 {
			return p, fmt.Sprintf("a %s event carries %d bytes where it carries no message", p.Event, len(rest))
		}
		return p, ""
	}
	if len(rest) < headerSize {
		return p, fmt.Sprintf("its message has %d bytes, below a wire header's %d", len(rest), headerSize)
	}
	if n := int32(binary.LittleEndian.Uint32(rest)); int(n) != len(rest) {
		return p, fmt.Sprintf("its message declares %d bytes where %d remain in the packet", n, len(rest))
	}
	p.Message = rest
	p.Direction = DirRequest
	if binary.LittleEndian.Uint32(rest[8:]) != 0 {
		p.Direction = DirReply
	}
	return p, ""
}

// sessionField finds `name: "value"` in the server's description of a
// session; "" when it is not there.
func sessionField(session, name string) string {
	key := name + `: "`
	i := strings.Index(session, key)
	if i < 0 {
		return ""
	}
	rest := session[i+len(key):]
	j := strings.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return rest[:j]
}
