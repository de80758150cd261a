package ycsb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/wire"
	"github.com/mongobench/mongobench/internal/workload"
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
	engine.GatedTask
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

// BeginSend starts an operation (engine.SendTimed).
func (t *wireTask) BeginSend() { t.conn.BeginSend() }

// Sent is when the operation's first request was written
// (engine.SendTimed).
func (t *wireTask) Sent() (time.Time, bool) { return t.conn.Sent() }

// LastRequest is the id of the last operation's last request
// (engine.RequestNumbered).
func (t *wireTask) LastRequest() (int64, bool) { return int64(t.conn.LastRequestID()), true }

// UseGate makes the engine's gate send the first request of each
// operation at its slot's instant (engine.GatedTask); declined when the
// parts of READ-MODIFY-WRITE are recorded, whose send times the task
// takes itself.
func (t *wireTask) UseGate(g *engine.Gate) bool {
	if t.rec != nil {
		return false
	}
	t.conn.UseDispatcher(g)
	return true
}

// Do performs the next operation of the mix over the wire connection
// and returns its index in Ops (task.do).
func (t *wireTask) Do(ctx context.Context) (int, error) { return t.do(ctx, t) }

// appendKeyFilter appends {_id: key} as the element name.
func (t *wireTask) appendKeyFilter(dst []byte, name string) []byte {
	idx, dst := bsoncore.AppendDocumentElementStart(dst, name)
	dst = appendStringBytes(dst, "_id", t.rb.key)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// read finds the record by _id, every field or one random field.
func (t *wireTask) read(ctx context.Context, keynum int64) error {
	_, err := t.readDoc(ctx, keynum)
	return err
}

// readDoc is read, returning the record (valid until the next
// operation); a missing record is mongo.ErrNoDocuments, as on the
// driver path.
func (t *wireTask) readDoc(ctx context.Context, keynum int64) (bsoncore.Document, error) {
	t.rb.appendKey(keynum)
	doc, err := t.conn.FindOne(ctx, t.db, t.coll, func(msg []byte) []byte {
		msg = t.appendKeyFilter(msg, "filter")
		if !t.props.ReadAllFields {
			msg = bsoncore.AppendDocumentElement(msg, "projection", t.projections[t.kw.Field(t.rnd)])
		}
		return msg
	})
	if errors.Is(err, wire.ErrNoDocument) {
		t.notFound.Add(1)
		return nil, mongo.ErrNoDocuments
	}
	return doc, err
}

// update $sets every field or one random field with new values.
func (t *wireTask) update(ctx context.Context, keynum int64) error {
	t.rb.appendKey(keynum)
	msg, seq := t.conn.StartWrite("update", t.db, t.coll, true, "updates")
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
	msg, seq := t.conn.StartWrite("insert", t.db, t.coll, true, "documents")
	msg = t.rb.appendRecord(msg, keynum, t.kw, t.rnd)
	msg = wire.EndSequence(msg, seq)
	_, err := t.conn.RoundTrip(ctx, msg, wire.RetryWrite)
	if ackErr := t.wl.Inserts.Acknowledge(keynum); err == nil {
		err = ackErr
	}
	return err
}

// scan reads up to the next scan length records from the start key in
// _id order.
func (t *wireTask) scan(ctx context.Context, keynum int64) error {
	_, err := t.scanEach(ctx, keynum, nil)
	return err
}

// scanEach is scan, handing each batch to each, when set, before the
// next is read; it returns how many records came back.
func (t *wireTask) scanEach(ctx context.Context, keynum int64, each func(bsoncore.Array)) (int64, error) {
	t.rb.appendKey(keynum)
	n := t.kw.ScanLength(t.rnd)
	got, err := t.conn.Find(ctx, t.db, t.coll, n, func(msg []byte) []byte {
		f, msg := bsoncore.AppendDocumentElementStart(msg, "filter")
		msg = t.appendKeyFilterOp(msg)
		msg, _ = bsoncore.AppendDocumentEnd(msg, f)
		msg = bsoncore.AppendDocumentElement(msg, "sort", t.sortID)
		if !t.props.ReadAllFields {
			msg = bsoncore.AppendDocumentElement(msg, "projection", t.projections[t.kw.Field(t.rnd)])
		}
		return msg
	}, each)
	t.scanned.Add(got)
	return got, err
}

// appendKeyFilterOp appends _id: {$gte: key}.
func (t *wireTask) appendKeyFilterOp(dst []byte) []byte {
	gte, dst := bsoncore.AppendDocumentElementStart(dst, "_id")
	dst = appendStringBytes(dst, "$gte", t.rb.key)
	dst, _ = bsoncore.AppendDocumentEnd(dst, gte)
	return dst
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

// wireInsertRange inserts the records of key numbers [first, last),
// appended by build, unordered, in as many messages as their size needs
// (wire.Conn.InsertMany).
func wireInsertRange(ctx context.Context, conn *wire.Conn, db, coll string, first, last int64, build func([]byte, int64) []byte) error {
	k := first
	return conn.InsertMany(ctx, db, coll, last-first, false, func(dst []byte) []byte {
		dst = build(dst, k)
		k++
		return dst
	})
}
