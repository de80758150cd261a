package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Wire protocol opcodes the responder speaks.
const (
	opReply = 1    // OP_REPLY, the answer to a legacy OP_QUERY
	opQuery = 2004 // OP_QUERY: the driver's first isMaster
	opMsg   = 2013

	headerLen       = 16
	flagChecksum    = 1
	flagMoreToCome  = 2
	maxMessageBytes = 48_000_000
	maxWireVersion  = 25 // MongoDB 8.0
)

// request is one parsed message: the command document and how to answer.
type request struct {
	id     int32
	opcode int32
	noAck  bool // moreToCome: the client expects no reply
	cmd    bsoncore.Document
	name   string // the command: the body's first key
}

// parse reads the command out of an OP_MSG or OP_QUERY message (header
// included).
func parse(msg []byte) (request, error) {
	if len(msg) < headerLen+5 {
		return request{}, fmt.Errorf("message of %d bytes", len(msg))
	}
	r := request{id: int32(binary.LittleEndian.Uint32(msg[4:])), opcode: int32(binary.LittleEndian.Uint32(msg[12:]))}
	body := msg[headerLen:]
	switch r.opcode {
	case opMsg:
		flags := binary.LittleEndian.Uint32(body)
		r.noAck = flags&flagMoreToCome != 0
		if flags&flagChecksum != 0 {
			body = body[:len(body)-4]
		}
		for rest := body[4:]; len(rest) > 0; {
			kind := rest[0]
			rest = rest[1:]
			l, _, ok := bsoncore.ReadLength(rest)
			if !ok || int(l) > len(rest) || l < 5 {
				return r, errors.New("malformed OP_MSG section")
			}
			if kind == 0 {
				r.cmd = bsoncore.Document(rest[:l])
			}
			rest = rest[l:]
		}
	case opQuery:
		rest := body[4:] // flags
		i := 0
		for i < len(rest) && rest[i] != 0 {
			i++
		}
		rest = rest[min(i+1+8, len(rest)):] // collection name, skip, limit
		l, _, ok := bsoncore.ReadLength(rest)
		if !ok || int(l) > len(rest) || l < 5 {
			return r, errors.New("malformed OP_QUERY")
		}
		r.cmd = bsoncore.Document(rest[:l])
	default:
		return r, fmt.Errorf("opcode %d is not spoken here", r.opcode)
	}
	if r.cmd == nil {
		return r, errors.New("OP_MSG without a body section")
	}
	if e, err := r.cmd.IndexErr(0); err == nil {
		r.name = e.Key()
	}
	return r, nil
}

// frame appends the reply message for req with body doc to dst.
func frame(dst []byte, req request, id int32, doc bsoncore.Document) []byte {
	at := len(dst)
	dst = append(dst, make([]byte, headerLen)...)
	if req.opcode == opQuery {
		dst = binary.LittleEndian.AppendUint32(dst, 0) // responseFlags
		dst = binary.LittleEndian.AppendUint64(dst, 0) // cursorID
		dst = binary.LittleEndian.AppendUint32(dst, 0) // startingFrom
		dst = binary.LittleEndian.AppendUint32(dst, 1) // numberReturned
	} else {
		dst = binary.LittleEndian.AppendUint32(dst, 0) // flags
		dst = append(dst, 0)                           // body section
	}
	dst = append(dst, doc...)
	h := dst[at:]
	binary.LittleEndian.PutUint32(h[0:], uint32(len(h)))
	binary.LittleEndian.PutUint32(h[4:], uint32(id))
	binary.LittleEndian.PutUint32(h[8:], uint32(req.id))
	op := uint32(opMsg)
	if req.opcode == opQuery {
		op = opReply
	}
	binary.LittleEndian.PutUint32(h[12:], op)
	return dst
}

// replies builds the answers of everything but the hot path. The data
// database's collections exist and hold what a load left: the ownership
// marker holds one document, every other collection records documents.
type replies struct {
	records int64
	start   time.Time
	pid     int
	host    string
}

func newReplies(records int64) *replies {
	h, _ := os.Hostname()
	return &replies{records: records, start: time.Now(), pid: os.Getpid(), host: h}
}

func ok(b *bsoncore.DocumentBuilder) bsoncore.Document {
	return b.AppendDouble("ok", 1).Build()
}

// cursor is {cursor: {firstBatch: docs, id: 0, ns}, ok: 1}.
func cursor(ns string, docs ...bsoncore.Document) bsoncore.Document {
	arr := bsoncore.NewArrayBuilder()
	for _, d := range docs {
		arr.AppendDocument(d)
	}
	c := bsoncore.NewDocumentBuilder().AppendArray("firstBatch", arr.Build()).
		AppendInt64("id", 0).AppendString("ns", ns).Build()
	return ok(bsoncore.NewDocumentBuilder().AppendDocument("cursor", c))
}

func commandError(code int32, name, msg string) bsoncore.Document {
	return bsoncore.NewDocumentBuilder().AppendDouble("ok", 0).AppendString("errmsg", msg).
		AppendInt32("code", code).AppendString("codeName", name).Build()
}

func str(doc bsoncore.Document, key string) string {
	v, err := doc.LookupErr(key)
	if err != nil {
		return ""
	}
	s, _ := v.StringValueOK()
	return s
}

// answer returns the reply body of a command other than the hot path's
// find. conn numbers the connection for hello.
func (r *replies) answer(req request, conn int64, counts *opCounters) bsoncore.Document {
	db := str(req.cmd, "$db")
	switch req.name {
	case "hello", "isMaster", "ismaster":
		return ok(bsoncore.NewDocumentBuilder().
			AppendBoolean("helloOk", true).AppendBoolean("isWritablePrimary", true).AppendBoolean("ismaster", true).
			AppendInt32("maxBsonObjectSize", 16<<20).AppendInt32("maxMessageSizeBytes", maxMessageBytes).
			AppendInt32("maxWriteBatchSize", 100_000).AppendDateTime("localTime", time.Now().UnixMilli()).
			AppendInt32("logicalSessionTimeoutMinutes", 30).AppendInt64("connectionId", conn).
			AppendInt32("minWireVersion", 0).AppendInt32("maxWireVersion", maxWireVersion).
			AppendBoolean("readOnly", false))
	case "buildInfo", "buildinfo":
		return ok(bsoncore.NewDocumentBuilder().AppendString("version", "8.0.0-responder").
			AppendArray("versionArray", bsoncore.NewArrayBuilder().AppendInt32(8).AppendInt32(0).AppendInt32(0).AppendInt32(0).Build()).
			AppendInt32("maxBsonObjectSize", 16<<20))
	case "ping", "endSessions", "killCursors", "createIndexes", "drop", "dropDatabase", "create":
		return ok(bsoncore.NewDocumentBuilder())
	case "serverStatus":
		return ok(bsoncore.NewDocumentBuilder().AppendString("host", r.host).AppendString("version", "8.0.0-responder").
			AppendString("process", "mongobench-responder").AppendInt64("pid", int64(r.pid)).
			AppendDouble("uptime", time.Since(r.start).Seconds()).AppendDateTime("localTime", time.Now().UnixMilli()).
			AppendDocument("connections", bsoncore.NewDocumentBuilder().AppendInt32("current", int32(counts.conns.Load())).Build()).
			AppendDocument("opcounters", bsoncore.NewDocumentBuilder().
				AppendInt64("insert", 0).AppendInt64("query", counts.finds.Load()).AppendInt64("update", 0).
				AppendInt64("delete", 0).AppendInt64("getmore", 0).AppendInt64("command", counts.commands.Load()).Build()))
	case "listCollections":
		ns := db + ".$cmd.listCollections"
		coll := func(name string) bsoncore.Document {
			return bsoncore.NewDocumentBuilder().AppendString("name", name).AppendString("type", "collection").Build()
		}
		return cursor(ns, coll("_mongobench"), coll("usertable"))
	case "listDatabases":
		dbs := bsoncore.NewArrayBuilder().AppendDocument(bsoncore.NewDocumentBuilder().
			AppendString("name", "mongobench_data").AppendInt64("sizeOnDisk", 0).AppendBoolean("empty", false).Build()).Build()
		return ok(bsoncore.NewDocumentBuilder().AppendArray("databases", dbs).AppendInt64("totalSize", 0))
	case "aggregate", "count":
		// CountDocuments: {$match}, {$group: {_id: 1, n: {$sum: 1}}}.
		coll := str(req.cmd, req.name)
		n := r.records
		if coll == "_mongobench" {
			n = 1
		}
		if req.name == "count" {
			return ok(bsoncore.NewDocumentBuilder().AppendInt64("n", n))
		}
		return cursor(db+"."+coll, bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).AppendInt64("n", n).Build())
	case "insert", "delete", "update":
		return ok(bsoncore.NewDocumentBuilder().AppendInt32("n", 1))
	}
	return commandError(59, "CommandNotFound", fmt.Sprintf("no such command: '%s'", req.name))
}

// findReply is the hot path's answer: one fixed small document.
func findReply(ns string) bsoncore.Document {
	doc := bsoncore.NewDocumentBuilder().AppendString("_id", "user0").
		AppendBinary("field0", 0, make([]byte, 100)).Build()
	return cursor(ns, doc)
}
