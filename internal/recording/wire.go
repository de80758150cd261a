package recording

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// OpCode is a wire message's operation code.
type OpCode int32

// The opcodes a recording may hold (the legacy ones from older clients).
const (
	OpReply       OpCode = 1
	OpUpdate      OpCode = 2001
	OpInsert      OpCode = 2002
	OpQuery       OpCode = 2004
	OpGetMore     OpCode = 2005
	OpDelete      OpCode = 2006
	OpKillCursors OpCode = 2007
	OpCompressed  OpCode = 2012
	OpMsg         OpCode = 2013
)

func (o OpCode) String() string {
	switch o {
	case OpReply:
		return "OP_REPLY"
	case OpUpdate:
		return "OP_UPDATE"
	case OpInsert:
		return "OP_INSERT"
	case OpQuery:
		return "OP_QUERY"
	case OpGetMore:
		return "OP_GET_MORE"
	case OpDelete:
		return "OP_DELETE"
	case OpKillCursors:
		return "OP_KILL_CURSORS"
	case OpCompressed:
		return "OP_COMPRESSED"
	case OpMsg:
		return "OP_MSG"
	}
	return fmt.Sprintf("opcode(%d)", int32(o))
}

// OP_MSG flag bits.
const (
	FlagChecksumPresent uint32 = 1 << 0
	FlagMoreToCome      uint32 = 1 << 1
	FlagExhaustAllowed  uint32 = 1 << 16
)

// Compressor ids of OP_COMPRESSED.
const (
	CompressorNoop   = 0
	CompressorSnappy = 1
	CompressorZlib   = 2
	CompressorZstd   = 3
)

// Header is a wire message's header.
type Header struct {
	Length     int32
	RequestID  int32
	ResponseTo int32
	OpCode     OpCode
}

// Compression says how an OP_COMPRESSED message was compressed.
type Compression struct {
	Compressor       uint8
	UncompressedSize int32
	CompressedSize   int
}

// Sequence is an OP_MSG document sequence (section kind 1).
type Sequence struct {
	Identifier string
	Documents  []bson.Raw
}

// Message is a decoded wire message. Op is the operation it carries
// (OP_COMPRESSED's original opcode when it came compressed); the fields
// each opcode holds are set, the others left empty.
type Message struct {
	Header      Header
	Op          OpCode
	Compression *Compression
	// Flags: OP_MSG's flagBits, OP_QUERY's and OP_INSERT's flags,
	// OP_UPDATE's and OP_DELETE's flags, OP_REPLY's responseFlags.
	Flags    uint32
	Checksum uint32 // OP_MSG's, when FlagChecksumPresent
	// Body: OP_MSG's section 0; OP_QUERY's query; OP_UPDATE's and
	// OP_DELETE's selector.
	Body      bson.Raw
	Sequences []Sequence
	// Collection: the full collection name of the legacy opcodes.
	Collection     string
	NumberToSkip   int32
	NumberToReturn int32
	Projection     bson.Raw // OP_QUERY's returnFieldsSelector, when present
	Update         bson.Raw // OP_UPDATE's update
	// CursorID: OP_REPLY's and OP_GET_MORE's; CursorIDs OP_KILL_CURSORS'.
	CursorID     int64
	CursorIDs    []int64
	StartingFrom int32
	// Documents: OP_REPLY's and OP_INSERT's documents.
	Documents []bson.Raw
}

// Parse decodes a wire message: its header, its sections or fields, and
// an OP_COMPRESSED message's original message (decompressed, its
// declared size bounded by MaxMessageSize). Every document is validated.
func Parse(b []byte) (Message, error) {
	var m Message
	if len(b) < headerSize {
		return m, fmt.Errorf("message of %d bytes is shorter than a wire header (%d)", len(b), headerSize)
	}
	m.Header = Header{
		Length:     int32(binary.LittleEndian.Uint32(b)),
		RequestID:  int32(binary.LittleEndian.Uint32(b[4:])),
		ResponseTo: int32(binary.LittleEndian.Uint32(b[8:])),
		OpCode:     OpCode(int32(binary.LittleEndian.Uint32(b[12:]))),
	}
	if int(m.Header.Length) != len(b) {
		return m, fmt.Errorf("message declares %d bytes, has %d", m.Header.Length, len(b))
	}
	m.Op = m.Header.OpCode
	body := b[headerSize:]
	if m.Op == OpCompressed {
		op, c, inner, err := decompress(body)
		if err != nil {
			return m, fmt.Errorf("OP_COMPRESSED: %w", err)
		}
		m.Op, m.Compression, body = op, c, inner
	}
	if err := m.decode(body); err != nil {
		return m, fmt.Errorf("%s: %w", m.Op, err)
	}
	return m, nil
}

// decompress decodes OP_COMPRESSED's fields and its original message's
// body (what follows the header).
func decompress(b []byte) (OpCode, *Compression, []byte, error) {
	if len(b) < 9 {
		return 0, nil, nil, fmt.Errorf("%d bytes, below its 9-byte fields", len(b))
	}
	op := OpCode(int32(binary.LittleEndian.Uint32(b)))
	size := int32(binary.LittleEndian.Uint32(b[4:]))
	c := &Compression{Compressor: b[8], UncompressedSize: size, CompressedSize: len(b) - 9}
	if op == OpCompressed {
		return 0, nil, nil, fmt.Errorf("compresses another OP_COMPRESSED")
	}
	if size < 0 || size > MaxMessageSize-headerSize {
		return 0, nil, nil, fmt.Errorf("uncompressed size %d is outside 0..%d", size, MaxMessageSize-headerSize)
	}
	data := b[9:]
	var out []byte
	var err error
	switch c.Compressor {
	case CompressorNoop:
		out = data
	case CompressorSnappy:
		var n int
		if n, err = snappy.DecodedLen(data); err == nil {
			if n != int(size) {
				return 0, nil, nil, fmt.Errorf("snappy data decodes to %d bytes, declared %d", n, size)
			}
			out, err = snappy.Decode(make([]byte, n), data)
		}
	case CompressorZlib:
		var zr io.ReadCloser
		if zr, err = zlib.NewReader(bytes.NewReader(data)); err == nil {
			out, err = io.ReadAll(io.LimitReader(zr, int64(size)+1))
			_ = zr.Close()
		}
	case CompressorZstd:
		out, err = zstdDecoder().DecodeAll(data, make([]byte, 0, size))
	default:
		return 0, nil, nil, fmt.Errorf("compressor id %d is none of noop (0), snappy (1), zlib (2), zstd (3)", c.Compressor)
	}
	if err != nil {
		return 0, nil, nil, fmt.Errorf("compressor %d: %w", c.Compressor, err)
	}
	if len(out) != int(size) {
		return 0, nil, nil, fmt.Errorf("decompressed to %d bytes, declared %d", len(out), size)
	}
	return op, c, out, nil
}

var (
	zstdOnce sync.Once
	zstdDec  *zstd.Decoder
)

func zstdDecoder() *zstd.Decoder {
	zstdOnce.Do(func() {
		// Options that cannot fail: a nil reader, bounded memory.
		zstdDec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxMessageSize))
	})
	return zstdDec
}

// fields reads a message body's fields.
type fields struct {
	b   []byte
	pos int
}

func (f *fields) int32(what string) (int32, error) {
	if len(f.b)-f.pos < 4 {
		return 0, fmt.Errorf("ends inside its %s", what)
	}
	v := int32(binary.LittleEndian.Uint32(f.b[f.pos:]))
	f.pos += 4
	return v, nil
}

func (f *fields) int64(what string) (int64, error) {
	if len(f.b)-f.pos < 8 {
		return 0, fmt.Errorf("ends inside its %s", what)
	}
	v := int64(binary.LittleEndian.Uint64(f.b[f.pos:]))
	f.pos += 8
	return v, nil
}

func (f *fields) cstring(what string) (string, error) {
	i := bytes.IndexByte(f.b[f.pos:], 0)
	if i < 0 {
		return "", fmt.Errorf("its %s has no terminating NUL", what)
	}
	s := string(f.b[f.pos : f.pos+i])
	f.pos += i + 1
	return s, nil
}

func (f *fields) doc(what string) (bson.Raw, error) {
	return readDoc(f.b, &f.pos, what)
}

func (f *fields) more() bool { return f.pos < len(f.b) }

// readDoc reads and validates one BSON document at *pos.
func readDoc(b []byte, pos *int, what string) (bson.Raw, error) {
	if len(b)-*pos < 5 {
		return nil, fmt.Errorf("ends inside its %s", what)
	}
	n := int(int32(binary.LittleEndian.Uint32(b[*pos:])))
	if n < 5 || n > len(b)-*pos {
		return nil, fmt.Errorf("its %s declares %d bytes where %d remain", what, n, len(b)-*pos)
	}
	d := bson.Raw(b[*pos : *pos+n])
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("its %s: %w", what, err)
	}
	*pos += n
	return d, nil
}

func (m *Message) decode(b []byte) error {
	f := &fields{b: b}
	var err error
	var v int32
	switch m.Op {
	case OpMsg:
		return m.decodeMsg(b)
	case OpQuery:
		if v, err = f.int32("flags"); err != nil {
			return err
		}
		m.Flags = uint32(v)
		if m.Collection, err = f.cstring("fullCollectionName"); err != nil {
			return err
		}
		if m.NumberToSkip, err = f.int32("numberToSkip"); err != nil {
			return err
		}
		if m.NumberToReturn, err = f.int32("numberToReturn"); err != nil {
			return err
		}
		if m.Body, err = f.doc("query"); err != nil {
			return err
		}
		if f.more() {
			if m.Projection, err = f.doc("returnFieldsSelector"); err != nil {
				return err
			}
		}
	case OpReply:
		if v, err = f.int32("responseFlags"); err != nil {
			return err
		}
		m.Flags = uint32(v)
		if m.CursorID, err = f.int64("cursorID"); err != nil {
			return err
		}
		if m.StartingFrom, err = f.int32("startingFrom"); err != nil {
			return err
		}
		var n int32
		if n, err = f.int32("numberReturned"); err != nil {
			return err
		}
		for f.more() {
			d, err := f.doc("document")
			if err != nil {
				return err
			}
			m.Documents = append(m.Documents, d)
		}
		if int(n) != len(m.Documents) {
			return fmt.Errorf("numberReturned %d, %d documents follow", n, len(m.Documents))
		}
		if len(m.Documents) > 0 {
			m.Body = m.Documents[0]
		}
	case OpGetMore:
		if _, err = f.int32("ZERO"); err != nil {
			return err
		}
		if m.Collection, err = f.cstring("fullCollectionName"); err != nil {
			return err
		}
		if m.NumberToReturn, err = f.int32("numberToReturn"); err != nil {
			return err
		}
		if m.CursorID, err = f.int64("cursorID"); err != nil {
			return err
		}
	case OpKillCursors:
		if _, err = f.int32("ZERO"); err != nil {
			return err
		}
		var n int32
		if n, err = f.int32("numberOfCursorIDs"); err != nil {
			return err
		}
		if n < 0 || int(n) > (len(b)-f.pos)/8 {
			return fmt.Errorf("numberOfCursorIDs %d, room for %d", n, (len(b)-f.pos)/8)
		}
		for range n {
			id, _ := f.int64("cursorID")
			m.CursorIDs = append(m.CursorIDs, id)
		}
	case OpInsert:
		if v, err = f.int32("flags"); err != nil {
			return err
		}
		m.Flags = uint32(v)
		if m.Collection, err = f.cstring("fullCollectionName"); err != nil {
			return err
		}
		for f.more() {
			d, err := f.doc("document")
			if err != nil {
				return err
			}
			m.Documents = append(m.Documents, d)
		}
	case OpUpdate, OpDelete:
		if _, err = f.int32("ZERO"); err != nil {
			return err
		}
		if m.Collection, err = f.cstring("fullCollectionName"); err != nil {
			return err
		}
		if v, err = f.int32("flags"); err != nil {
			return err
		}
		m.Flags = uint32(v)
		if m.Body, err = f.doc("selector"); err != nil {
			return err
		}
		if m.Op == OpUpdate {
			if m.Update, err = f.doc("update"); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("unknown opcode %d", int32(m.Op))
	}
	if f.more() {
		return fmt.Errorf("%d bytes follow its last field", len(b)-f.pos)
	}
	return nil
}

func (m *Message) decodeMsg(b []byte) error {
	if len(b) < 4 {
		return fmt.Errorf("ends inside its flagBits")
	}
	m.Flags = binary.LittleEndian.Uint32(b)
	end := len(b)
	if m.Flags&FlagChecksumPresent != 0 {
		if end < 8 {
			return fmt.Errorf("checksum flag set, no room for the checksum")
		}
		end -= 4
		m.Checksum = binary.LittleEndian.Uint32(b[end:])
	}
	if unknown := m.Flags &^ (FlagChecksumPresent | FlagMoreToCome | FlagExhaustAllowed) & 0xffff; unknown != 0 {
		return fmt.Errorf("flagBits %#x set required bits this reader does not know", m.Flags)
	}
	pos := 4
	bodies := 0
	for pos < end {
		kind := b[pos]
		pos++
		switch kind {
		case 0:
			d, err := readDoc(b[:end], &pos, "body")
			if err != nil {
				return err
			}
			m.Body = d
			bodies++
		case 1:
			if end-pos < 4 {
				return fmt.Errorf("ends inside a document sequence's size")
			}
			n := int(int32(binary.LittleEndian.Uint32(b[pos:])))
			if n < 5 || n > end-pos {
				return fmt.Errorf("a document sequence declares %d bytes where %d remain", n, end-pos)
			}
			seq := b[pos+4 : pos+n]
			pos += n
			i := bytes.IndexByte(seq, 0)
			if i < 0 {
				return fmt.Errorf("a document sequence's identifier has no terminating NUL")
			}
			s := Sequence{Identifier: string(seq[:i])}
			at := i + 1
			for at < len(seq) {
				d, err := readDoc(seq, &at, "sequence "+s.Identifier+" document")
				if err != nil {
					return err
				}
				s.Documents = append(s.Documents, d)
			}
			m.Sequences = append(m.Sequences, s)
		default:
			return fmt.Errorf("section kind %d is none of body (0), document sequence (1)", kind)
		}
	}
	if bodies != 1 {
		return fmt.Errorf("%d body sections, want exactly 1", bodies)
	}
	return nil
}

// Command is the command a request names: an OP_MSG body's first key;
// an OP_QUERY on a $cmd collection, its query's (unwrapped from $query);
// a legacy opcode's name otherwise ("" for a reply).
func (m Message) Command() string {
	switch m.Op {
	case OpMsg:
		return firstKey(m.Body)
	case OpQuery:
		if strings.HasSuffix(m.Collection, ".$cmd") {
			return firstKey(m.commandDoc())
		}
		return "find"
	case OpGetMore:
		return "getMore"
	case OpKillCursors:
		return "killCursors"
	case OpInsert:
		return "insert"
	case OpUpdate:
		return "update"
	case OpDelete:
		return "delete"
	}
	return ""
}

// commandDoc is an OP_QUERY's command, unwrapped from $query or query
// when a read preference wraps it.
func (m Message) commandDoc() bson.Raw {
	for _, k := range []string{"$query", "query"} {
		if firstKey(m.Body) == k {
			if v, err := m.Body.LookupErr(k); err == nil {
				if d, ok := v.DocumentOK(); ok {
					return d
				}
			}
		}
	}
	return m.Body
}

// Database is the database a request names: OP_MSG's $db, the legacy
// opcodes' collection prefix.
func (m Message) Database() string {
	if m.Op == OpMsg {
		if v, err := m.Body.LookupErr("$db"); err == nil {
			if s, ok := v.StringValueOK(); ok {
				return s
			}
		}
		return ""
	}
	db, _, _ := strings.Cut(m.Collection, ".")
	return db
}

func firstKey(d bson.Raw) string {
	if len(d) < 6 {
		return ""
	}
	e, err := d.IndexErr(0)
	if err != nil {
		return ""
	}
	return e.Key()
}
