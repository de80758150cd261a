// Package recording reads and writes MongoDB traffic recordings: the
// files a server writes when asked to record the traffic it sees
// (startRecordingTraffic on 4.4–7.x, startTrafficRecording on 8.x) and
// the files 'mongobench record' writes, in the 8.x layout, so both feed
// one replay.
//
// A recording is a sequence of packets. Every packet starts with its
// size, a little-endian uint32 counting the whole packet (the size
// included), and ends with the wire message it carries, exactly as it
// crossed the connection (OP_COMPRESSED included). Between them, three
// layouts exist in the server's history (src/mongo/db/traffic_recorder.cpp
// and traffic_reader.cpp; src/mongo/replay/ on 8.x):
//
//   - LayoutLocalRemote: uint64 connection id, the local address and the
//     remote address as NUL-terminated strings, uint64 milliseconds since
//     the epoch, uint64 order, the message;
//   - LayoutSession: uint64 connection id, the session as a
//     NUL-terminated string (the server's description of the connection,
//     `{ id: 12, remote: "10.0.0.5:53120", local: "10.0.0.1:27017" }`),
//     uint64 milliseconds since the epoch, uint64 order, the message;
//   - LayoutEvent (8.x): a uint8 event (0 a message, 1 a session
//     started, 2 a session ended: those two carry no message), uint64
//     connection id, the session string, uint64 microseconds since the
//     recording started, uint64 order, the message.
//
// The layout is recognised from the first packet's bytes (the message's
// own length field must end exactly at the packet's end; where an older
// packet also fits the 8.x layout, its time field decides), never from a
// file name or a version. No layout records a direction: a message whose
// header's responseTo is 0 went from the client to the server, any other
// is the server's reply, as the server's own reader decides.
//
// 8.x writes a directory of rotated files named <milliseconds>.bin and a
// checksum.txt holding, per file, its path, a tab and the CRC32C
// (Castagnoli) of its bytes in hexadecimal; a Set reads such a
// directory in name order and checks every file's checksum.
//
// Every read is bounded: a packet's declared size is checked against the
// wire protocol's 48,000,000-byte maximum message size before anything
// is allocated, and a compressed message's declared size likewise. A
// damaged recording is one error naming the file, the byte offset and
// what was wrong there.
//
// The package does no I/O beyond the io.Reader, io.Writer and fs.FS it is
// handed, and uses the Go driver's public bson package only.
package recording
