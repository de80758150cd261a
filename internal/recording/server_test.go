package recording

import (
	"encoding/binary"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

var update = flag.Bool("update", false, "rewrite testdata's recordings with the server-layout encoder")

// serverPacket encodes one packet as the server lays it out, written from
// the server's source rather than from this package's Writer:
//
//   - LayoutEvent: PacketWriter::serializeHeaderForPacket
//     (src/mongo/db/traffic_recorder.cpp, 8.x): uint32 size (patched in
//     last), EventType (one byte), uint64 id, the session NUL-terminated,
//     uint64 offset in microseconds, uint64 order; then the message;
//   - LayoutSession: appendPacketHeader of the 5.0–7.x recorder, read by
//     traffic_reader.cpp's readPacket: uint32 size, uint64 id, the
//     session NUL-terminated, uint64 date in milliseconds, uint64 order;
//   - LayoutLocalRemote: the 4.4 reader's readPacket: uint32 size,
//     uint64 id, local then remote NUL-terminated, uint64 date in
//     milliseconds, uint64 order.
func serverPacket(l Layout, event byte, id uint64, session, remote string, when, order uint64, msg []byte) []byte {
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, 0)
	if l == LayoutEvent {
		b = append(b, event)
	}
	b = binary.LittleEndian.AppendUint64(b, id)
	b = append(append(b, session...), 0)
	if l == LayoutLocalRemote {
		b = append(append(b, remote...), 0)
	}
	b = binary.LittleEndian.AppendUint64(b, when)
	b = binary.LittleEndian.AppendUint64(b, order)
	b = append(b, msg...)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}

// opMsg builds an OP_MSG as a driver sends it: header, flagBits, a body
// section, then document sequences.
func opMsg(t testing.TB, requestID, responseTo int32, body any, seqs ...Sequence) []byte {
	t.Helper()
	doc, err := bson.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 16, 64+len(doc))
	binary.LittleEndian.PutUint32(b[4:], uint32(requestID))
	binary.LittleEndian.PutUint32(b[8:], uint32(responseTo))
	binary.LittleEndian.PutUint32(b[12:], uint32(OpMsg))
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = append(b, 0)
	b = append(b, doc...)
	for _, s := range seqs {
		n := 4 + len(s.Identifier) + 1
		for _, d := range s.Documents {
			n += len(d)
		}
		b = append(b, 1)
		b = binary.LittleEndian.AppendUint32(b, uint32(n))
		b = append(append(b, s.Identifier...), 0)
		for _, d := range s.Documents {
			b = append(b, d...)
		}
	}
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}

// want is a packet the testdata recordings hold.
type want struct {
	event   Event
	conn    uint64
	offset  time.Duration
	order   uint64
	dir     Direction
	command string
}

// traffic is one short conversation: a connection opens, finds, is
// answered, inserts, is answered, closes.
func traffic(t testing.TB) ([]want, [][]byte) {
	find := opMsg(t, 7, 0, bson.D{{Key: "find", Value: "orders"}, {Key: "filter", Value: bson.D{{Key: "status", Value: "A"}}}, {Key: "$db", Value: "shop"}})
	found := opMsg(t, 90, 7, bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(0)}, {Key: "ns", Value: "shop.orders"}, {Key: "firstBatch", Value: bson.A{}}}}, {Key: "ok", Value: 1.0}})
	d1, _ := bson.Marshal(bson.D{{Key: "_id", Value: 1}})
	d2, _ := bson.Marshal(bson.D{{Key: "_id", Value: 2}})
	insert := opMsg(t, 8, 0, bson.D{{Key: "insert", Value: "orders"}, {Key: "$db", Value: "shop"}}, Sequence{Identifier: "documents", Documents: []bson.Raw{d1, d2}})
	inserted := opMsg(t, 91, 8, bson.D{{Key: "n", Value: 2}, {Key: "ok", Value: 1.0}})
	wants := []want{
		{EventMessage, 3, 0, 1, DirRequest, "find"},
		{EventMessage, 3, 2 * time.Millisecond, 2, DirReply, "cursor"},
		{EventMessage, 3, 5 * time.Millisecond, 3, DirRequest, "insert"},
		{EventMessage, 3, 9 * time.Millisecond, 4, DirReply, "n"},
	}
	return wants, [][]byte{find, found, insert, inserted}
}

const session3 = `{ id: 3, remote: "10.1.2.3:50123", local: "10.1.2.4:27017" }`

// serverRecordings are the testdata recordings, encoded as the server
// writes them.
func serverRecordings(t testing.TB) map[string][]byte {
	wants, msgs := traffic(t)
	files := map[string][]byte{}
	const epochMs = 1_750_000_000_000
	for _, l := range []Layout{LayoutSession, LayoutLocalRemote} {
		var b []byte
		for i, w := range wants {
			b = append(b, serverPacket(l, 0, w.conn, map[Layout]string{LayoutSession: session3, LayoutLocalRemote: "10.1.2.4:27017"}[l],
				"10.1.2.3:50123", uint64(epochMs+w.offset.Milliseconds()), w.order, msgs[i])...)
		}
		files[map[Layout]string{LayoutSession: "server-5.0-7.x.bin", LayoutLocalRemote: "server-4.4.bin"}[l]] = b
	}
	// 8.x: a session start, the messages split over two rotated files,
	// a session end; microsecond offsets.
	first := serverPacket(LayoutEvent, 1, 3, session3, "", 0, 1, nil)
	for i, w := range wants[:2] {
		first = append(first, serverPacket(LayoutEvent, 0, w.conn, session3, "", uint64(w.offset.Microseconds())+17, w.order+1, msgs[i])...)
	}
	var second []byte
	for i, w := range wants[2:] {
		second = append(second, serverPacket(LayoutEvent, 0, w.conn, session3, "", uint64(w.offset.Microseconds())+17, w.order+1, msgs[i+2])...)
	}
	second = append(second, serverPacket(LayoutEvent, 2, 3, session3, "", 12_345, 6, nil)...)
	files["server-8.x/1750000000000.bin"] = first
	files["server-8.x/1750000000040.bin"] = second
	sum := func(b []byte) uint32 { return crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)) }
	files["server-8.x/checksum.txt"] = fmt.Appendf(nil, "/var/lib/mongo/rec/1750000000000.bin\t%x\n/var/lib/mongo/rec/1750000000040.bin\t%x\n", sum(first), sum(second))
	return files
}

// TestServerRecordingsInTestdata keeps testdata equal to what the
// encoder writes (go test -update rewrites it).
func TestServerRecordingsInTestdata(t *testing.T) {
	for name, b := range serverRecordings(t) {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -update writes it)", err)
		}
		if string(got) != string(b) {
			t.Errorf("%s differs from the encoder's output (go test -update rewrites it)", path)
		}
	}
}

func TestReadsEveryServerLayout(t *testing.T) {
	wants, msgs := traffic(t)
	fsys := os.DirFS("testdata")
	cases := []struct {
		name   string
		layout Layout
		events bool // session start and end recorded
		offset time.Duration
	}{
		{"server-4.4.bin", LayoutLocalRemote, false, 0},
		{"server-5.0-7.x.bin", LayoutSession, false, 0},
		{"server-8.x", LayoutEvent, true, 17 * time.Microsecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Open(fsys, c.name)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = s.Close() }()
			var got []Packet
			for {
				p, err := s.Next()
				if err != nil {
					if err.Error() != "EOF" {
						t.Fatal(err)
					}
					break
				}
				got = append(got, p)
			}
			if c.events {
				if len(got) != len(wants)+2 || got[0].Event != EventSessionStart || got[len(got)-1].Event != EventSessionEnd {
					t.Fatalf("got %d packets, want a session start, %d messages, a session end", len(got), len(wants))
				}
				if got[len(got)-1].Offset != 12345*time.Microsecond {
					t.Errorf("session end at %v, want 12.345ms", got[len(got)-1].Offset)
				}
				got = got[1 : len(got)-1]
			}
			if len(got) != len(wants) {
				t.Fatalf("got %d messages, want %d", len(got), len(wants))
			}
			for i, w := range wants {
				p := got[i]
				m, err := Parse(p.Message)
				if err != nil {
					t.Fatalf("packet %d: %v", i, err)
				}
				if p.Event != w.event || p.Conn != w.conn || p.Direction != w.dir || p.Offset != w.offset+c.offset ||
					string(p.Message) != string(msgs[i]) || p.Remote != "10.1.2.3:50123" {
					t.Errorf("packet %d = %v conn %d %v at %v remote %q, want %v conn %d %v at %v", i, p.Event, p.Conn, p.Direction, p.Offset, p.Remote, w.event, w.conn, w.dir, w.offset+c.offset)
				}
				if c.layout != LayoutEvent && p.Order != w.order {
					t.Errorf("packet %d order %d, want %d", i, p.Order, w.order)
				}
				if got := firstKey(m.Body); got != w.command {
					t.Errorf("packet %d command %q, want %q", i, got, w.command)
				}
			}
			if s.Layout() != LayoutUnknown && s.Layout() != c.layout {
				t.Errorf("layout %v, want %v", s.Layout(), c.layout)
			}
			if c.layout != LayoutEvent && !got[0].Date.Equal(time.UnixMilli(1_750_000_000_000)) {
				t.Errorf("date %v", got[0].Date)
			}
		})
	}
}

func TestChecksumMismatchIsOneLineNamingTheFile(t *testing.T) {
	files := serverRecordings(t)
	first := append([]byte(nil), files["server-8.x/1750000000000.bin"]...)
	first[len(first)-3] ^= 0xff // a byte of the last document: still decodes
	fsys := fstest.MapFS{
		"rec/1750000000000.bin": {Data: first},
		"rec/1750000000040.bin": {Data: files["server-8.x/1750000000040.bin"]},
		"rec/checksum.txt":      {Data: files["server-8.x/checksum.txt"]},
	}
	s, err := Open(fsys, "rec")
	if err != nil {
		t.Fatal(err)
	}
	var last error
	for {
		if _, err := s.Next(); err != nil {
			last = err
			break
		}
	}
	want := fmt.Sprintf("rec/1750000000000.bin: byte %d: CRC32C of the file's %d bytes is", len(first), len(first))
	if last == nil || len(last.Error()) < len(want) || last.Error()[:len(want)] != want || !isOneLine(last.Error()) {
		t.Fatalf("got %v, want %q…", last, want)
	}
}

func isOneLine(s string) bool {
	for _, r := range s {
		if r == '\n' {
			return false
		}
	}
	return true
}
