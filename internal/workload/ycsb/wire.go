package ycsb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/wire"
	"github.com/mongobench/mongobench/internal/workload"
	core "github.com/mongobench/mongobench/internal/ycsb"
)

// YCSB client paths: the lean wire client (internal/wire) or the driver.
const (
	clientWire   = "wire"
	clientDriver = "driver"
)

// client is which client the run's YCSB operations use.
type client struct {
	path string       // clientWire or clientDriver
	opts wire.Options // for clientWire
	why  string       // why the driver runs when the wire client was asked for
}

// clientParam declares the client choice.
var clientParam = spec.ParamSpec{Name: "client", Kind: spec.KindEnum, Default: clientWire,
	Values: []string{clientWire, clientDriver},
	Help:   "the client of the hot operations and the load: wire (lean OP_MSG client; each operation times out after the URI's timeoutMS, else socketTimeoutMS, else 30s; the driver when the connection string needs what it lacks) or driver"}

// chooseClient decides the run's client from the connection string and
// the client asked for: the wire client when asked for and the connection
// string allows it, else the driver, saying why when the wire client was
// asked for.
func chooseClient(uri, asked string) *client {
	c := &client{path: clientDriver}
	if asked != "" && asked != clientWire {
		return c
	}
	switch opts, err := wire.Parse(uri); {
	case uri == "":
		c.why = "no connection string for the wire client"
	case err != nil:
		c.why = fmt.Sprintf("the wire client cannot use this connection string (%v)", err)
	default:
		c.path, c.opts = clientWire, opts
	}
	return c
}

// decided is what a run on the client decided: the effective path (stored
// as test_config.client), whether the records were loaded before the run,
// and a warning when the driver runs in place of the wire client.
func (c *client) decided(loadedBefore bool) workload.Decisions {
	d := workload.Decisions{Settings: settings{Client: c.path, LoadedBefore: loadedBefore}}
	if c.why != "" {
		d.Warnings = []string{"ycsb: " + c.why + "; the driver runs the operations and the load"}
	}
	return d
}

// dialWire opens a wire connection for a YCSB worker or loader.
func dialWire(ctx context.Context, c *client) (*wire.Conn, error) {
	conn, err := wire.Dial(ctx, c.opts)
	if err != nil {
		return nil, fmt.Errorf("wire client: %w", err)
	}
	return conn, nil
}

// wireTask runs a worker's YCSB operations over its own wire
// connection, drawing keys, fields and values exactly as task does,
// so a seed gives the same operations and documents on either path.
type wireTask struct {
	*task
	conn     *wire.Conn
	db, coll string
}

var _ interface {
	engine.ReplyTimed
	engine.RequestNumbered
	workload.Counter
} = (*wireTask)(nil)

// newWireTask wraps a driver task's generators with a wire connection.
func newWireTask(ctx context.Context, t *task, c *client, db string) (*wireTask, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*c.opts.ConnectTimeout)
	defer cancel()
	conn, err := dialWire(ctx, c)
	if err != nil {
		return nil, err
	}
	return &wireTask{task: t, conn: conn, db: db, coll: t.props.Table}, nil
}

// Close closes the worker's connection.
func (t *wireTask) Close() error { return t.conn.Close() }

// ReplyArrived is when the last operation's last reply reached this host
// (engine.ReplyTimed).
func (t *wireTask) ReplyArrived() (time.Time, bool) { return t.conn.ReplyArrived() }

// LastRequest is the id of the last operation's last request
// (engine.RequestNumbered).
func (t *wireTask) LastRequest() (int64, bool) { return int64(t.conn.LastRequestID()), true }

// Do performs the next operation of the mix and returns its index in Ops.
func (t *wireTask) Do(ctx context.Context) (int, error) {
	op := t.kw.NextOp(t.rnd)
	var err error
	switch op {
	case core.Read:
		_, err = t.read(ctx, t.kw.NextKeynum(t.rnd))
	case core.Update:
		err = t.update(ctx, t.kw.NextKeynum(t.rnd))
	case core.Insert:
		err = t.insert(ctx)
	case core.Scan:
		_, err = t.scan(ctx, t.kw.NextKeynum(t.rnd))
	case core.ReadModifyWrite:
		keynum := t.kw.NextKeynum(t.rnd)
		sent := t.partSent()
		_, err = t.read(ctx, keynum)
		t.partDone(core.Read, sent, err)
		if err == nil {
			sent = t.partSent()
			err = t.update(ctx, keynum)
			t.partDone(core.Update, sent, err)
		}
	default:
		return 0, fmt.Errorf("ycsb: unknown operation %v", op)
	}
	return int(op), err
}

// appendKeyFilter appends {_id: key} as the element name.
func (t *wireTask) appendKeyFilter(dst []byte, name string) []byte {
	idx, dst := bsoncore.AppendDocumentElementStart(dst, name)
	dst = appendStringBytes(dst, "_id", t.rb.key)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// read finds the record by _id, every field or one random field, and
// returns it (valid until the next operation); a missing record is
// mongo.ErrNoDocuments, as on the driver path.
func (t *wireTask) read(ctx context.Context, keynum int64) (bsoncore.Document, error) {
	t.rb.appendKey(keynum)
	msg := t.conn.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = bsoncore.AppendStringElement(msg, "find", t.coll)
	msg = t.appendKeyFilter(msg, "filter")
	if !t.props.ReadAllFields {
		msg = bsoncore.AppendDocumentElement(msg, "projection", t.projections[t.kw.Field(t.rnd)])
	}
	msg = bsoncore.AppendInt64Element(msg, "limit", 1)
	msg = bsoncore.AppendBooleanElement(msg, "singleBatch", true)
	msg = t.conn.AppendFields(msg, t.db, wire.RetryRead)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	reply, err := t.conn.RoundTrip(ctx, msg, wire.RetryRead)
	if err != nil {
		return nil, err
	}
	cur, ok := wire.ReadCursor(reply)
	if !ok {
		return nil, errors.New("ycsb: find reply without a cursor")
	}
	v, err := cur.Batch.IndexErr(0)
	if err != nil {
		t.notFound.Add(1)
		return nil, mongo.ErrNoDocuments
	}
	doc, ok := v.DocumentOK()
	if !ok {
		return nil, errors.New("ycsb: find returned a non-document")
	}
	return doc, nil
}

// update $sets every field or one random field with new values.
func (t *wireTask) update(ctx context.Context, keynum int64) error {
	t.rb.appendKey(keynum)
	msg, seq := startWrite(t.conn, "update", t.db, t.coll, true, "updates")
	stmt, msg := bsoncore.AppendDocumentStart(msg)
	msg = t.appendKeyFilter(msg, "q")
	u, msg := bsoncore.AppendDocumentElementStart(msg, "u")
	msg = t.rb.appendSet(msg, t.props.WriteAllFields, t.kw, t.rnd)
	msg, _ = bsoncore.AppendDocumentEnd(msg, u)
	msg, _ = bsoncore.AppendDocumentEnd(msg, stmt)
	msg = wire.EndSequence(msg, seq)
	reply, err := t.conn.RoundTrip(ctx, msg, wire.RetryWrite)
	if err != nil {
		return err
	}
	if n, _ := wire.Field(reply, "n"); wire.Int(n) == 0 {
		t.notFound.Add(1)
		return errNotFound
	}
	return nil
}

// insert inserts the record of the next insert key number and
// acknowledges the key whatever the outcome, as task.insert does.
func (t *wireTask) insert(ctx context.Context) error {
	keynum := t.wl.Inserts.Next()
	msg, seq := startWrite(t.conn, "insert", t.db, t.coll, true, "documents")
	msg = t.rb.appendRecord(msg, keynum, t.kw, t.rnd)
	msg = wire.EndSequence(msg, seq)
	_, err := t.conn.RoundTrip(ctx, msg, wire.RetryWrite)
	if ackErr := t.wl.Inserts.Acknowledge(keynum); err == nil {
		err = ackErr
	}
	return err
}

// scan reads up to the next scan length records from the start key in
// _id order and returns how many came back; each batch is handed to
// each, when set, before the next is read.
func (t *wireTask) scan(ctx context.Context, keynum int64) (int64, error) {
	return t.scanEach(ctx, keynum, nil)
}

func (t *wireTask) scanEach(ctx context.Context, keynum int64, each func(bsoncore.Array)) (int64, error) {
	t.rb.appendKey(keynum)
	n := t.kw.ScanLength(t.rnd)
	batch := int32(min(n, math.MaxInt32))
	msg := t.conn.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = bsoncore.AppendStringElement(msg, "find", t.coll)
	f, msg := bsoncore.AppendDocumentElementStart(msg, "filter")
	msg = t.appendKeyFilterOp(msg)
	msg, _ = bsoncore.AppendDocumentEnd(msg, f)
	msg = bsoncore.AppendDocumentElement(msg, "sort", t.sortID)
	if !t.props.ReadAllFields {
		msg = bsoncore.AppendDocumentElement(msg, "projection", t.projections[t.kw.Field(t.rnd)])
	}
	msg = bsoncore.AppendInt64Element(msg, "limit", n)
	msg = bsoncore.AppendInt32Element(msg, "batchSize", batch)
	msg = t.conn.AppendFields(msg, t.db, wire.RetryRead)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	reply, err := t.conn.RoundTrip(ctx, msg, wire.RetryRead)
	var got int64
	for err == nil {
		cur, ok := wire.ReadCursor(reply)
		if !ok {
			err = errors.New("ycsb: find reply without a cursor")
			break
		}
		got += int64(wire.Count(cur.Batch))
		if each != nil {
			each(cur.Batch)
		}
		if cur.ID == 0 {
			break
		}
		if got >= n {
			err = t.killCursor(ctx, cur.ID)
			break
		}
		reply, err = t.getMore(ctx, cur.ID, int32(min(n-got, math.MaxInt32)))
	}
	t.scanned.Add(got)
	if err == nil && got > n {
		err = fmt.Errorf("ycsb: scan returned %d records, asked for at most %d", got, n)
	}
	return got, err
}

// appendKeyFilterOp appends _id: {$gte: key}.
func (t *wireTask) appendKeyFilterOp(dst []byte) []byte {
	gte, dst := bsoncore.AppendDocumentElementStart(dst, "_id")
	dst = appendStringBytes(dst, "$gte", t.rb.key)
	dst, _ = bsoncore.AppendDocumentEnd(dst, gte)
	return dst
}

func (t *wireTask) getMore(ctx context.Context, id int64, batch int32) (bsoncore.Document, error) {
	msg := t.conn.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = bsoncore.AppendInt64Element(msg, "getMore", id)
	msg = bsoncore.AppendStringElement(msg, "collection", t.coll)
	msg = bsoncore.AppendInt32Element(msg, "batchSize", batch)
	msg = t.conn.AppendFields(msg, t.db, wire.NoRetry)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	return t.conn.RoundTrip(ctx, msg, wire.NoRetry)
}

func (t *wireTask) killCursor(ctx context.Context, id int64) error {
	msg := t.conn.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = bsoncore.AppendStringElement(msg, "killCursors", t.coll)
	arr, msg := bsoncore.AppendArrayElementStart(msg, "cursors")
	msg = bsoncore.AppendInt64Element(msg, "0", id)
	msg, _ = bsoncore.AppendArrayEnd(msg, arr)
	msg = t.conn.AppendFields(msg, t.db, wire.NoRetry)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	_, err := t.conn.RoundTrip(ctx, msg, wire.NoRetry)
	return err
}

// maxLoadMessage bounds one insert message (the server takes 48 MB).
const maxLoadMessage = 32 << 20

// wireInsertBatch sends one unordered insert into db.coll of the records
// build appends for key numbers from first, up to last or the message
// bound, and returns the next key number to insert.
func wireInsertBatch(ctx context.Context, conn *wire.Conn, db, coll string, first, last int64,
	build func(dst []byte, k int64) []byte) (int64, error) {
	msg, seq := startWrite(conn, "insert", db, coll, false, "documents")
	k := first
	for k < last && len(msg) < maxLoadMessage {
		msg = build(msg, k)
		k++
	}
	msg = wire.EndSequence(msg, seq)
	_, err := conn.RoundTrip(ctx, msg, wire.RetryWrite)
	return k, err
}

// wireInserter inserts a loader worker's batches over a wire connection
// of its own, documents appended straight into each message's document
// sequence by build.
type wireInserter struct {
	conn     *wire.Conn
	db, coll string
	build    func(dst []byte, key int64) []byte
}

// openWireInserter is a loader's open for the wire client: each worker
// dials its own connection.
func openWireInserter(c *client, db, coll string, build func([]byte, int64) []byte) func(context.Context) (workload.BatchInserter, error) {
	return func(ctx context.Context) (workload.BatchInserter, error) {
		conn, err := dialWire(ctx, c)
		if err != nil {
			return nil, err
		}
		return &wireInserter{conn: conn, db: db, coll: coll, build: build}, nil
	}
}

var _ workload.BatchInserter = (*wireInserter)(nil)

// Insert inserts the records of key numbers [first, last).
func (w *wireInserter) Insert(ctx context.Context, first, last int64) error {
	return wireInsertRange(ctx, w.conn, w.db, w.coll, first, last, w.build)
}

// Close closes the inserter's connection.
func (w *wireInserter) Close() error { return w.conn.Close() }

// wireInsertRange inserts the records of key numbers [first, last) in as
// many messages as their size needs.
func wireInsertRange(ctx context.Context, conn *wire.Conn, db, coll string, first, last int64, build func([]byte, int64) []byte) error {
	for k := first; k < last; {
		var err error
		if k, err = wireInsertBatch(ctx, conn, db, coll, k, last, build); err != nil {
			return err
		}
	}
	return nil
}

// startWrite starts a retryable write command on coll in a new message:
// its command document (verb, ordered, the connection's session fields),
// then the document sequence seq the caller fills and ends with
// wire.EndSequence.
func startWrite(conn *wire.Conn, verb, db, coll string, ordered bool, seq string) ([]byte, int) {
	msg := conn.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = bsoncore.AppendStringElement(msg, verb, coll)
	msg = bsoncore.AppendBooleanElement(msg, "ordered", ordered)
	msg = conn.AppendFields(msg, db, wire.RetryWrite)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	return wire.StartSequence(msg, seq)
}
