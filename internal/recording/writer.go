package recording

import (
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"strings"
	"time"
)

// Writer writes packets in the 8.x layout (LayoutEvent), the one the
// server's startTrafficRecording writes, to an io.Writer.
type Writer struct {
	w     io.Writer
	crc   hash.Hash32
	buf   []byte
	bytes int64
}

// NewWriter writes a recording to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w, crc: crc32.New(castagnoli)}
}

// Session is the server's description of a connection, which the 8.x
// layout stores with every packet.
func Session(conn uint64, remote, local string) string {
	return fmt.Sprintf(`{ id: %d, remote: "%s", local: "%s" }`, conn, remote, local)
}

// Write writes one packet: its event, connection, session, offset (to
// the microsecond), order and message (none for a session event).
func (w *Writer) Write(p Packet) error {
	if strings.IndexByte(p.Session, 0) >= 0 {
		return fmt.Errorf("session %q holds a NUL byte", p.Session)
	}
	if p.Event >= eventMax {
		return fmt.Errorf("event %d is none of message, sessionStart, sessionEnd", p.Event)
	}
	if p.Event != EventMessage && len(p.Message) != 0 {
		return fmt.Errorf("a %s event carries no message (%d bytes given)", p.Event, len(p.Message))
	}
	size := 4 + 1 + 8 + len(p.Session) + 1 + 8 + 8 + len(p.Message)
	if size >= MaxMessageSize {
		return fmt.Errorf("packet of %d bytes is not below the wire protocol's maximum message size (%d)", size, MaxMessageSize)
	}
	if p.Offset < 0 {
		p.Offset = 0
	}
	b := w.buf[:0]
	b = binary.LittleEndian.AppendUint32(b, uint32(size))
	b = append(b, byte(p.Event))
	b = binary.LittleEndian.AppendUint64(b, p.Conn)
	b = append(b, p.Session...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint64(b, uint64(p.Offset/time.Microsecond))
	b = binary.LittleEndian.AppendUint64(b, p.Order)
	w.buf = b
	w.crc.Write(b)
	w.crc.Write(p.Message)
	if _, err := w.w.Write(b); err != nil {
		return err
	}
	if _, err := w.w.Write(p.Message); err != nil {
		return err
	}
	w.bytes += int64(size)
	return nil
}

// Checksum is the CRC32C of what was written, as the server's
// checksum.txt states it per file.
func (w *Writer) Checksum() uint32 { return w.crc.Sum32() }

// Bytes is how many bytes were written.
func (w *Writer) Bytes() int64 { return w.bytes }

// ChecksumLine is a checksum.txt line for a file: its path, a tab, the
// CRC32C in hexadecimal.
func ChecksumLine(path string, sum uint32) string {
	return fmt.Sprintf("%s\t%x\n", path, sum)
}
