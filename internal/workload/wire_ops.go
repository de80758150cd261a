package workload

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/wire"
)

// wireColl is one worker's collection over its own wire connection: the
// single-document operations the workloads send, as the driver sends
// them, with the command built in the connection's reused buffer (no
// allocation per operation).
type wireColl struct {
	conn     *wire.Conn
	db, coll string
}

// Close closes the worker's connection.
func (w *wireColl) Close() error { return w.conn.Close() }

// wireTimed is a task's wire connection: nil on the driver's path. A
// task embeds it to say when its last operation's reply reached this
// host (engine.ReplyTimed), which the wire client knows.
type wireTimed struct {
	wire *wireColl // nil: the driver
}

// ReplyArrived is when the last operation's reply reached this host;
// unknown on the driver's path.
func (t wireTimed) ReplyArrived() (time.Time, bool) {
	if t.wire == nil {
		return time.Time{}, false
	}
	return t.wire.conn.ReplyArrived()
}

// BeginSend starts an operation on the wire connection
// (engine.SendTimed).
func (t wireTimed) BeginSend() {
	if t.wire != nil {
		t.wire.conn.BeginSend()
	}
}

// Sent is when the operation's first request was written; unknown on
// the driver's path.
func (t wireTimed) Sent() (time.Time, bool) {
	if t.wire == nil {
		return time.Time{}, false
	}
	return t.wire.conn.Sent()
}

// LastRequest is the id of the last operation's request; unknown on the
// driver's path (engine.RequestNumbered).
func (t wireTimed) LastRequest() (int64, bool) {
	if t.wire == nil {
		return 0, false
	}
	return int64(t.wire.conn.LastRequestID()), true
}

// gate makes the engine's gate send the first request of each of the
// task's operations at its slot's instant, built before it
// (engine.GatedTask); declined on the driver's path. Only a task whose
// every operation begins with a request over its wire connection may
// take it: an operation that sent nothing would be counted a failure.
func (t wireTimed) gate(g *engine.Gate) bool {
	if t.wire == nil {
		return false
	}
	t.wire.conn.UseDispatcher(g)
	return true
}

// UseGate: every kv operation is one request over the wire connection.
func (t *kvTask) UseGate(g *engine.Gate) bool { return t.gate(g) }

// UseGate: every insert operation begins with its first batch's request.
func (t *insertTask) UseGate(g *engine.Gate) bool { return t.gate(g) }

// UseGate: every hot-document operation is one update request.
func (t *hotDocTask) UseGate(g *engine.Gate) bool { return t.gate(g) }

// The single-operation workloads' tasks begin at their request's write
// and end at their reply's arrival; kv, insert and the hot document build
// that request before their slot.
var (
	_ = []engine.ReplyTimed{(*kvTask)(nil), (*insertTask)(nil), (*hotDocTask)(nil), (*queryTask)(nil), (*updateTask)(nil)}
	_ = []engine.SendTimed{(*kvTask)(nil), (*insertTask)(nil), (*hotDocTask)(nil), (*queryTask)(nil), (*updateTask)(nil), (*fileTask)(nil)}
	_ = []engine.GatedTask{(*kvTask)(nil), (*insertTask)(nil), (*hotDocTask)(nil)}
)

// errNoCursor is a find reply without a cursor.
var errNoCursor = wire.ErrNoCursor

// findOne finds one document matching filter (a BSON document) and
// returns it, valid until the next operation; none is
// mongo.ErrNoDocuments, as the driver's FindOne.
func (w *wireColl) findOne(ctx context.Context, filter []byte) (bsoncore.Document, error) {
	doc, err := w.conn.FindOne(ctx, w.db, w.coll, func(dst []byte) []byte {
		return bsoncore.AppendDocumentElement(dst, "filter", filter)
	})
	if errors.Is(err, wire.ErrNoDocument) {
		return nil, mongo.ErrNoDocuments
	}
	return doc, err
}

// startWrite starts a write command on the collection (wire.Conn.StartWrite).
func (w *wireColl) startWrite(verb string, ordered bool, seq string) ([]byte, int) {
	return w.conn.StartWrite(verb, w.db, w.coll, ordered, seq)
}

// updateOne updates the first document matching filter with update (an
// update document), upserting when asked, and returns the documents
// matched (the driver's MatchedCount) and whether one was upserted.
func (w *wireColl) updateOne(ctx context.Context, filter, update []byte, upsert bool) (int64, bool, error) {
	msg, seq := w.startWrite("update", true, "updates")
	stmt, msg := bsoncore.AppendDocumentStart(msg)
	msg = bsoncore.AppendDocumentElement(msg, "q", filter)
	msg = bsoncore.AppendDocumentElement(msg, "u", update)
	msg = bsoncore.AppendBooleanElement(msg, "upsert", upsert)
	msg, _ = bsoncore.AppendDocumentEnd(msg, stmt)
	msg = wire.EndSequence(msg, seq)
	reply, err := w.conn.RoundTrip(ctx, msg, wire.RetryWrite)
	if err != nil {
		return 0, false, err
	}
	var n, upserted int64
	wire.Each(reply, func(e bsoncore.Element) bool {
		switch string(e.KeyBytes()) {
		case "n":
			n = wire.Int(e.Value())
		case "upserted":
			arr, _ := e.Value().ArrayOK()
			upserted = int64(wire.Count(arr))
		}
		return true
	})
	return n - upserted, upserted > 0, nil
}

// findOneAndUpdate updates the first document matching filter with
// update, upserting when asked, as the driver's FindOneAndUpdate with the
// document from before the update, and reports whether there was one.
func (w *wireColl) findOneAndUpdate(ctx context.Context, filter, update []byte, upsert bool) (bool, error) {
	msg := w.conn.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = bsoncore.AppendStringElement(msg, "findAndModify", w.coll)
	msg = bsoncore.AppendDocumentElement(msg, "query", filter)
	msg = bsoncore.AppendDocumentElement(msg, "update", update)
	msg = bsoncore.AppendBooleanElement(msg, "new", false)
	msg = bsoncore.AppendBooleanElement(msg, "upsert", upsert)
	msg = w.conn.AppendFields(msg, w.db, wire.RetryWrite)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	reply, err := w.conn.RoundTrip(ctx, msg, wire.RetryWrite)
	if err != nil {
		return false, err
	}
	v, _ := wire.Field(reply, "value")
	return v.Type == bsoncore.TypeEmbeddedDocument, nil
}

// insertMany inserts n documents, each appended by next, ordered or not
// (wire.Conn.InsertMany).
func (w *wireColl) insertMany(ctx context.Context, n int, ordered bool, next func(dst []byte) []byte) error {
	return w.conn.InsertMany(ctx, w.db, w.coll, int64(n), ordered, next)
}

// insertOne inserts the document doc.
func (w *wireColl) insertOne(ctx context.Context, doc []byte) error {
	msg, seq := w.startWrite("insert", true, "documents")
	msg = append(msg, doc...)
	msg = wire.EndSequence(msg, seq)
	_, err := w.conn.RoundTrip(ctx, msg, wire.RetryWrite)
	return err
}

// findOptions are a find's options, as BSON documents where they are
// documents (nil: not sent).
type findOptions struct {
	sort, projection []byte
	skip, limit      int64 // 0: not sent
}

// find runs a find with filter and o, reads every batch (getMore until
// the cursor is exhausted or the limit reached) and returns how many
// documents came back.
func (w *wireColl) find(ctx context.Context, filter []byte, o findOptions) (int64, error) {
	return w.conn.Find(ctx, w.db, w.coll, o.limit, func(msg []byte) []byte {
		msg = bsoncore.AppendDocumentElement(msg, "filter", filter)
		if o.sort != nil {
			msg = bsoncore.AppendDocumentElement(msg, "sort", o.sort)
		}
		if o.projection != nil {
			msg = bsoncore.AppendDocumentElement(msg, "projection", o.projection)
		}
		if o.skip > 0 {
			msg = bsoncore.AppendInt64Element(msg, "skip", o.skip)
		}
		return msg
	}, nil)
}

// getMore reads the next batch of cursor id (wire.Conn.GetMore).
func (w *wireColl) getMore(ctx context.Context, id int64, batch int32) (bsoncore.Document, error) {
	return w.conn.GetMore(ctx, w.db, w.coll, id, batch)
}

// killCursor closes cursor id (wire.Conn.KillCursor).
func (w *wireColl) killCursor(ctx context.Context, id int64) error {
	return w.conn.KillCursor(ctx, w.db, w.coll, id)
}
