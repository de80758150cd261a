package recording

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// zeros is /dev/zero: endless zero bytes.
type zeros struct{ read int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.read += int64(len(p))
	return len(p), nil
}

func readAll(r *Reader) ([]Packet, error) {
	var out []Packet
	for {
		p, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, p)
	}
}

func TestHostileRecordingsAreOneLineErrors(t *testing.T) {
	_, msgs := traffic(t)
	good := serverPacket(LayoutEvent, 0, 1, session3, "", 5, 1, msgs[0])
	huge := binary.LittleEndian.AppendUint32(nil, 0xffffffff) // a 4 GB packet
	huge = append(huge, good[4:]...)
	badEvent := append([]byte(nil), good...)
	badEvent[4] = 9
	wrongLen := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(wrongLen[len(wrongLen)-len(msgs[0]):], uint32(len(msgs[0])+1))
	// 40 bytes of text: no NUL ends a session string.
	noNul := binary.LittleEndian.AppendUint32(nil, 40)
	noNul = append(noNul, bytes.Repeat([]byte{'x'}, 36)...)
	cases := []struct {
		name string
		in   io.Reader
		want string // the error's text after "name: "
	}{
		{"/dev/zero", &zeros{}, "byte 0: declared packet size 0 is below the smallest packet (29 bytes)"},
		{"4GB", bytes.NewReader(huge), "byte 0: declared packet size 4294967295 is not below the wire protocol's maximum message size (48000000 bytes)"},
		{"truncated size", bytes.NewReader(good[:2]), "byte 0: truncated: the file ends 2 bytes into a packet's 4-byte size"},
		{"truncated packet", bytes.NewReader(append(append([]byte(nil), good...), good[:40]...)), "truncated: the packet declares"},
		{"bad event", bytes.NewReader(append(append([]byte(nil), good...), badEvent...)), "8.x: event, session, microseconds packet: event 9 is none of message (0), sessionStart (1), sessionEnd (2)"},
		{"message length", bytes.NewReader(wrongLen), "byte 0: not a traffic recording packet in any known layout"},
		{"text", strings.NewReader("this is not a recording at all, it is text\n"), "byte 0: declared packet size"},
		{"no NUL", bytes.NewReader(noNul), "byte 0: not a traffic recording packet"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			z, _ := c.in.(*zeros)
			_, err := readAll(NewReader(c.in, c.name))
			if err == nil {
				t.Fatal("read without an error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, c.name+": ") || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
				t.Errorf("got %q, want one line %q…%q", msg, c.name+": ", c.want)
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("%v is not ErrCorrupt", err)
			}
			if z != nil && z.read > 1<<20 {
				t.Errorf("read %d bytes of /dev/zero before refusing it", z.read)
			}
		})
	}
}

func TestWriterRoundTrip(t *testing.T) {
	wants, msgs := traffic(t)
	var buf bytes.Buffer
	w := NewWriter(&buf)
	s := Session(3, "10.1.2.3:50123", "10.1.2.4:27017")
	if s != session3 {
		t.Fatalf("Session = %q, want the server's %q", s, session3)
	}
	if err := w.Write(Packet{Event: EventSessionStart, Conn: 3, Session: s, Order: 1}); err != nil {
		t.Fatal(err)
	}
	for i, x := range wants {
		if err := w.Write(Packet{Conn: x.conn, Session: s, Offset: x.offset + 3*time.Microsecond, Order: x.order + 1, Message: msgs[i]}); err != nil {
			t.Fatal(err)
		}
	}
	// The bytes are the server's layout, byte for byte.
	var server []byte
	server = append(server, serverPacket(LayoutEvent, 1, 3, session3, "", 0, 1, nil)...)
	for i, x := range wants {
		server = append(server, serverPacket(LayoutEvent, 0, 3, session3, "", uint64(x.offset.Microseconds())+3, x.order+1, msgs[i])...)
	}
	if !bytes.Equal(buf.Bytes(), server) {
		t.Fatal("the writer's bytes differ from the server's layout")
	}
	r := NewReader(bytes.NewReader(buf.Bytes()), "w")
	got, err := readAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(wants)+1 || r.Layout() != LayoutEvent || r.Checksum() != w.Checksum() {
		t.Fatalf("read %d packets (%v), checksum %x vs %x", len(got), r.Layout(), r.Checksum(), w.Checksum())
	}
	for i, x := range wants {
		if got[i+1].Offset != x.offset+3*time.Microsecond || got[i+1].Direction != x.dir || got[i+1].Remote != "10.1.2.3:50123" {
			t.Errorf("packet %d: %+v", i, got[i+1])
		}
	}
	if err := w.Write(Packet{Event: EventSessionEnd, Message: msgs[0]}); err == nil {
		t.Error("a session event with a message was written")
	}
}

// compressed wraps a message in OP_COMPRESSED with a compressor.
func compressed(t *testing.T, msg []byte, id uint8) []byte {
	t.Helper()
	body := msg[16:]
	var data []byte
	switch id {
	case CompressorNoop:
		data = body
	case CompressorSnappy:
		data = snappy.Encode(nil, body)
	case CompressorZlib:
		var b bytes.Buffer
		zw := zlib.NewWriter(&b)
		_, _ = zw.Write(body)
		_ = zw.Close()
		data = b.Bytes()
	case CompressorZstd:
		enc, _ := zstd.NewWriter(nil)
		data = enc.EncodeAll(body, nil)
	}
	b := append([]byte(nil), msg[:16]...)
	binary.LittleEndian.PutUint32(b[12:], uint32(OpCompressed))
	b = binary.LittleEndian.AppendUint32(b, uint32(OpMsg))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(body)))
	b = append(b, id)
	b = append(b, data...)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}

func TestParseMessages(t *testing.T) {
	_, msgs := traffic(t)
	m, err := Parse(msgs[2])
	if err != nil {
		t.Fatal(err)
	}
	if m.Command() != "insert" || m.Database() != "shop" || len(m.Sequences) != 1 || len(m.Sequences[0].Documents) != 2 || m.Header.RequestID != 8 {
		t.Fatalf("insert decoded as %+v", m)
	}
	for _, id := range []uint8{CompressorNoop, CompressorSnappy, CompressorZlib, CompressorZstd} {
		c := compressed(t, msgs[0], id)
		m, err := Parse(c)
		if err != nil {
			t.Fatalf("compressor %d: %v", id, err)
		}
		if m.Header.OpCode != OpCompressed || m.Op != OpMsg || m.Compression.Compressor != id || m.Command() != "find" {
			t.Errorf("compressor %d: %+v", id, m)
		}
	}
	// A compressed message declaring more than the protocol allows is
	// refused before decompressing.
	c := compressed(t, msgs[0], CompressorZlib)
	binary.LittleEndian.PutUint32(c[20:], 0x7fffffff)
	if _, err := Parse(c); err == nil || !strings.Contains(err.Error(), "uncompressed size 2147483647 is outside") {
		t.Errorf("got %v", err)
	}
	// OP_QUERY, a legacy hello wrapped in $query.
	q := opQuery(t, 5, "admin.$cmd", bson.D{{Key: "$query", Value: bson.D{{Key: "isMaster", Value: 1}}}, {Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "primary"}}}})
	if m, err := Parse(q); err != nil || m.Command() != "isMaster" || m.Database() != "admin" {
		t.Errorf("OP_QUERY: %v %+v", err, m)
	}
	// A damaged body.
	bad := append([]byte(nil), msgs[0]...)
	bad[len(bad)-1] = 7
	if _, err := Parse(bad); err == nil {
		t.Error("a document without its terminating NUL decoded")
	}
}

func opQuery(t testing.TB, id int32, coll string, q any) []byte {
	t.Helper()
	doc, err := bson.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 16)
	binary.LittleEndian.PutUint32(b[4:], uint32(id))
	binary.LittleEndian.PutUint32(b[12:], uint32(OpQuery))
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = append(append(b, coll...), 0)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 0xffffffff)
	b = append(b, doc...)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}

// TestLayoutOfAnAmbiguousFirstPacket: a 5.0–7.x packet of connection 256
// (low byte 0) also fits the 8.x layout; its date decides.
func TestLayoutOfAnAmbiguousFirstPacket(t *testing.T) {
	_, msgs := traffic(t)
	const session = `{ id: 256, remote: "10.1.2.3:50123", local: "10.1.2.4:27017" }`
	b := serverPacket(LayoutSession, 0, 256, session, "", 1_750_000_000_000, 1, msgs[0])
	if _, reason := parsePacket(b, LayoutEvent); reason != "" {
		t.Fatalf("the packet was meant to fit the 8.x layout too: %s", reason)
	}
	r := NewReader(bytes.NewReader(b), "ambiguous")
	p, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if r.Layout() != LayoutSession || p.Conn != 256 || p.Session != session || !p.Date.Equal(time.UnixMilli(1_750_000_000_000)) {
		t.Errorf("read as %v: conn %d session %q date %v", r.Layout(), p.Conn, p.Session, p.Date)
	}
	// An 8.x recording's first packet, its offset small, stays 8.x.
	e := serverPacket(LayoutEvent, 0, 256, session, "", 1500, 1, msgs[0])
	r = NewReader(bytes.NewReader(e), "8x")
	if p, err := r.Next(); err != nil || r.Layout() != LayoutEvent || p.Offset != 1500*time.Microsecond {
		t.Errorf("8.x read as %v, offset %v, %v", r.Layout(), p.Offset, err)
	}
}
