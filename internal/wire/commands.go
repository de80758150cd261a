package wire

import (
	"context"
	"errors"
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The commands every workload sends over the wire client, written once:
// a workload builds what is its own (a filter, an update, the documents)
// into the connection's buffer and the commands here frame, send and
// read them.

// ErrNoCursor is a find reply without a cursor.
var ErrNoCursor = errors.New("find reply without a cursor")

// ErrNoDocument is a FindOne that matched nothing (the driver's
// mongo.ErrNoDocuments, which the workloads return in its place).
var ErrNoDocument = errors.New("no document matched")

// StartWrite starts a retryable write command (verb on db.coll, ordered
// as asked, the connection's session and write concern fields) in a new
// message, then the document sequence seq the caller fills and ends with
// EndSequence.
func (c *Conn) StartWrite(verb, db, coll string, ordered bool, seq string) ([]byte, int) {
	msg := c.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = bsoncore.AppendStringElement(msg, verb, coll)
	msg = bsoncore.AppendBooleanElement(msg, "ordered", ordered)
	msg = c.AppendFields(msg, db, RetryWrite)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	return StartSequence(msg, seq)
}

// FindOne finds one document of db.coll: the filter element and any
// other options are appended by options (a find command's elements after
// its collection), and the document found is returned, valid until the
// next operation; none is ErrNoDocument.
func (c *Conn) FindOne(ctx context.Context, db, coll string, options func(dst []byte) []byte) (bsoncore.Document, error) {
	msg := c.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = bsoncore.AppendStringElement(msg, "find", coll)
	msg = options(msg)
	msg = bsoncore.AppendInt64Element(msg, "limit", 1)
	msg = bsoncore.AppendBooleanElement(msg, "singleBatch", true)
	msg = c.AppendFields(msg, db, RetryRead)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	reply, err := c.RoundTrip(ctx, msg, RetryRead)
	if err != nil {
		return nil, err
	}
	cur, ok := ReadCursor(reply)
	if !ok {
		return nil, ErrNoCursor
	}
	v, err := cur.Batch.IndexErr(0)
	if err != nil {
		return nil, ErrNoDocument
	}
	doc, ok := v.DocumentOK()
	if !ok {
		return nil, errors.New("find returned a non-document")
	}
	return doc, nil
}

// maxBatch bounds the batch size a find with a limit asks for.
const maxBatch = 1 << 20

// Find runs a find on db.coll whose elements after the collection
// (filter, sort, projection, skip) options appends, with limit (0: none)
// and the batch size it implies, then reads every batch: getMore until
// the cursor is exhausted, or killCursors once limit documents came
// back. Each batch is handed to each, when set, before the next is
// read. It returns how many documents came back.
func (c *Conn) Find(ctx context.Context, db, coll string, limit int64, options func(dst []byte) []byte, each func(bsoncore.Array)) (int64, error) {
	batch := int32(math.MaxInt32)
	if limit > 0 {
		batch = int32(min(limit, maxBatch))
	}
	msg := c.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = bsoncore.AppendStringElement(msg, "find", coll)
	msg = options(msg)
	if limit > 0 {
		msg = bsoncore.AppendInt64Element(msg, "limit", limit)
		msg = bsoncore.AppendInt32Element(msg, "batchSize", batch)
	}
	msg = c.AppendFields(msg, db, RetryRead)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	reply, err := c.RoundTrip(ctx, msg, RetryRead)
	var got int64
	for err == nil {
		cur, ok := ReadCursor(reply)
		if !ok {
			return got, ErrNoCursor
		}
		got += int64(Count(cur.Batch))
		if each != nil {
			each(cur.Batch)
		}
		if cur.ID == 0 {
			break
		}
		if limit > 0 && got >= limit {
			return got, c.KillCursor(ctx, db, coll, cur.ID)
		}
		if limit > 0 {
			batch = int32(min(limit-got, maxBatch))
		}
		reply, err = c.GetMore(ctx, db, coll, cur.ID, batch)
	}
	if err == nil && limit > 0 && got > limit {
		err = fmt.Errorf("find returned %d documents, asked for at most %d", got, limit)
	}
	return got, err
}

// GetMore reads the next batch of the cursor id on db.coll, at most
// batch documents (math.MaxInt32: the server's batch).
func (c *Conn) GetMore(ctx context.Context, db, coll string, id int64, batch int32) (bsoncore.Document, error) {
	msg := c.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = bsoncore.AppendInt64Element(msg, "getMore", id)
	msg = bsoncore.AppendStringElement(msg, "collection", coll)
	if batch < math.MaxInt32 {
		msg = bsoncore.AppendInt32Element(msg, "batchSize", batch)
	}
	msg = c.AppendFields(msg, db, NoRetry)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	return c.RoundTrip(ctx, msg, NoRetry)
}

// KillCursor closes the cursor id on db.coll.
func (c *Conn) KillCursor(ctx context.Context, db, coll string, id int64) error {
	msg := c.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = bsoncore.AppendStringElement(msg, "killCursors", coll)
	arr, msg := bsoncore.AppendArrayElementStart(msg, "cursors")
	msg = bsoncore.AppendInt64Element(msg, "0", id)
	msg, _ = bsoncore.AppendArrayEnd(msg, arr)
	msg = c.AppendFields(msg, db, NoRetry)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	_, err := c.RoundTrip(ctx, msg, NoRetry)
	return err
}

// maxInsertMessage bounds one insert message (the server takes 48 MB);
// documents beyond it go in the next message, as the driver splits a
// batch.
const maxInsertMessage = 32 << 20

// InsertMany inserts n documents into db.coll, each appended by next,
// ordered or not, in insert commands of at most 32 MB each.
func (c *Conn) InsertMany(ctx context.Context, db, coll string, n int64, ordered bool, next func(dst []byte) []byte) error {
	for n > 0 {
		msg, seq := c.StartWrite("insert", db, coll, ordered, "documents")
		for n > 0 && len(msg) < maxInsertMessage {
			msg = next(msg)
			n--
		}
		msg = EndSequence(msg, seq)
		if _, err := c.RoundTrip(ctx, msg, RetryWrite); err != nil {
			return err
		}
	}
	return nil
}
