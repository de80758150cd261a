package workload

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/wire"
	"github.com/mongobench/mongobench/internal/workloadfile"
)

// fileTask is one worker's operations of a workload file: each Do draws
// an operation of the mix, its iteration's values, and sends its command
// over the worker's wire connection (built in the connection's reused
// buffer, the cursor of a read drained) or through the driver: a
// transaction (on the worker's session), a read with a read preference
// other than primary, or every operation when the run's client is the
// driver.
type fileTask struct {
	wireTimed
	g      *workloadfile.Gen
	pick   workloadfile.Picker
	ops    []fileOp
	db     string
	client *mongo.Client
	buf    []byte // the driver path's filter
	ubuf   []byte // the driver path's update, replacement or document
	docs   atomic.Int64
	// viaWire says the last operation went over the wire connection, so
	// its reply's arrival is known.
	viaWire bool
	// sess is the worker's session and txns its transactions' counts,
	// when the file has a transaction.
	sess *mongo.Session
	txns *txnCounts
}

// fileOp is one operation as a worker sends it.
type fileOp struct {
	op      *workloadfile.Op
	retry   wire.Retry
	concern bsoncore.Document // the operation's own, nil: the connection string's
	coll    *mongo.Collection // the driver's, with the operation's concerns and read preference
	hint    any               // the driver's hint (nil: none)
	sort    bson.Raw
	proj    bson.Raw
	// wire says the operation goes over the wire client when the run's
	// client is the wire client.
	wire bool
	// A transaction's options and steps.
	txn   txn
	steps []fileOp
	// A bulkWrite's models, as the driver takes them.
	writes []fileOp
}

var (
	_ engine.ReplyTimed = (*fileTask)(nil)
	_ Counter           = (*fileTask)(nil)
)

func (w *File) newTask(ctx context.Context, env Env, c Client, worker int) (engine.Task, error) {
	t := &fileTask{g: w.f.NewGen(env.Seed, worker), pick: w.f.Picker(), db: env.DB.Name(), client: env.DB.Client()}
	for _, op := range w.f.Ops {
		o := t.prepare(env, op)
		if op.Kind == "transaction" && t.sess == nil {
			sess, err := t.client.StartSession(sessionOptions())
			if err != nil {
				return nil, fmt.Errorf("start session: %w", err)
			}
			t.sess, t.txns = sess, &txnCounts{}
		}
		t.ops = append(t.ops, o)
	}
	wc, err := c.dial(ctx, t.db, "")
	if err != nil {
		t.endSession()
		return nil, err
	}
	t.wire = wc
	return t, nil
}

// prepare prepares op: its retry kind, its concerns, the driver's
// collection and options, a transaction's steps and a bulkWrite's
// models (which have no concerns of their own: the file's check says
// so).
func (t *fileTask) prepare(env Env, op *workloadfile.Op) fileOp {
	o := fileOp{op: op, retry: wire.RetryRead, wire: op.ReadPreference.Primary() && op.Kind != "transaction"}
	co := options.Collection()
	if op.Write() {
		o.retry = wire.RetryWrite
		if op.Multi() {
			o.retry = wire.OnceWrite
		}
		if wc := op.WriteConcern; wc != nil {
			o.concern = wc.Doc()
			co.SetWriteConcern(driverWriteConcern(wc))
		}
	} else if rc := op.ReadConcernDoc(); rc != nil {
		o.concern = rc
		co.SetReadConcern(&readconcern.ReadConcern{Level: op.ReadConcern})
	}
	if !op.ReadPreference.Primary() {
		co.SetReadPreference(driverReadPref(op.ReadPreference))
	}
	if op.Coll != nil {
		o.coll = env.DB.Collection(op.Coll.Name, co)
	}
	switch op.HintType {
	case 0x02:
		o.hint = string(op.Hint[4 : len(op.Hint)-1])
	case 0x03:
		o.hint = bson.Raw(op.Hint)
	}
	if op.Sort != nil {
		o.sort = op.Sort.Append(nil, t.g) // literal: made once
	}
	if op.Projection != nil {
		o.proj = op.Projection.Append(nil, t.g)
	}
	for _, w := range op.Writes {
		o.writes = append(o.writes, t.prepare(env, w))
	}
	if op.Kind == "transaction" {
		o.txn = txn{opts: fileTxnOptions(op), maxRetries: op.MaxRetries, maxCommit: op.MaxCommitTime}
		for _, st := range op.Steps {
			o.steps = append(o.steps, t.prepare(env, st))
		}
	}
	return o
}

// Do sends the next operation of the mix.
func (t *fileTask) Do(ctx context.Context) (int, error) {
	i := t.pick.Next(t.g)
	o := &t.ops[i]
	t.g.Begin(o.op)
	t.viaWire = t.wire != nil && o.wire
	switch {
	case t.viaWire:
		return i, t.wireDo(ctx, o)
	case o.op.Kind == "transaction":
		return i, t.txnDo(ctx, o)
	}
	return i, t.driverDo(ctx, o)
}

// ReplyArrived is when the last operation's reply reached this host,
// when it went over the wire connection.
func (t *fileTask) ReplyArrived() (time.Time, bool) {
	if !t.viaWire {
		return time.Time{}, false
	}
	return t.wireTimed.ReplyArrived()
}

// Sent is when the last operation's first request was written, when it
// went over the wire connection.
func (t *fileTask) Sent() (time.Time, bool) {
	if !t.viaWire {
		return time.Time{}, false
	}
	return t.wireTimed.Sent()
}

func (t *fileTask) wireDo(ctx context.Context, o *fileOp) error {
	conn := t.wire.conn
	msg := conn.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	insert := o.op.Verb() == "insert"
	db := t.db
	switch {
	case insert: // the documents go in a sequence, as the drivers send them
		msg = bsoncore.AppendStringElement(msg, "insert", o.op.Coll.Name)
		msg = bsoncore.AppendBooleanElement(msg, "ordered", o.op.Ordered)
	case o.op.Kind == "bulkWrite":
		msg, db = o.op.AppendBulkWrite(msg, t.db, t.g), "admin"
	default:
		msg = o.op.AppendCommand(msg, t.g)
		if err := t.g.Refused(); err != nil { // a generated pipeline that would write elsewhere: not sent
			return err
		}
	}
	msg = conn.AppendFieldsConcern(msg, db, o.retry, o.concern)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	if insert {
		var seq int
		msg, seq = wire.StartSequence(msg, "documents")
		for range o.op.Documents(t.g) {
			msg = o.op.AppendDocument(msg, t.g)
		}
		msg = wire.EndSequence(msg, seq)
	}
	reply, err := conn.RoundTrip(ctx, msg, o.retry)
	switch {
	case err != nil:
		return err
	case o.op.Kind == "bulkWrite":
		return t.bulkErrors(ctx, reply)
	case o.op.Verb() == "findAndModify":
		if v, _ := wire.Field(reply, "value"); v.Type == bsoncore.TypeEmbeddedDocument {
			t.docs.Add(1)
		}
		return nil
	case o.op.Kind == "distinct":
		v, _ := wire.Field(reply, "values")
		arr, _ := v.ArrayOK()
		t.docs.Add(int64(wire.Count(arr)))
		return nil
	case o.op.Write():
		return nil
	}
	// a read's time includes draining its cursor
	var n int64
	for {
		cur, ok := wire.ReadCursor(reply)
		if !ok {
			return errNoCursor
		}
		n += int64(wire.Count(cur.Batch))
		if cur.ID == 0 {
			break
		}
		wc := wireColl{conn: conn, db: t.db, coll: o.op.Coll.Name}
		if reply, err = wc.getMore(ctx, cur.ID, math.MaxInt32); err != nil {
			t.docs.Add(n)
			return err
		}
	}
	t.docs.Add(n)
	return nil
}

func (t *fileTask) driverDo(ctx context.Context, o *fileOp) error {
	op, g := o.op, t.g
	t.buf = t.buf[:0]
	var filter bson.Raw
	if op.Filter != nil {
		t.buf = op.Filter.Append(t.buf, g)
		filter = bson.Raw(t.buf)
	}
	switch op.Kind {
	case "count", "distinct", "findOneAndUpdate", "findOneAndReplace", "findOneAndDelete", "bulkWrite":
		return t.driverMore(ctx, o, filter)
	case "find":
		opts := options.Find().SetLimit(op.Limit).SetSkip(op.Skip)
		setReadShape(opts, o)
		cur, err := o.coll.Find(ctx, filter, opts)
		return t.drain(ctx, cur, err)
	case "findOne":
		opts := options.FindOne().SetSkip(op.Skip)
		setReadShape(opts, o)
		err := o.coll.FindOne(ctx, filter, opts).Err()
		switch {
		case errors.Is(err, mongo.ErrNoDocuments):
			return nil
		case err == nil:
			t.docs.Add(1)
		}
		return err
	case "aggregate":
		opts := options.Aggregate().SetAllowDiskUse(op.AllowDiskUse)
		if o.hint != nil {
			opts.SetHint(o.hint)
		}
		pipeline := op.Pipeline.Append(nil, g)
		if err := g.Refused(); err != nil { // a generated pipeline that would write elsewhere: not sent
			return err
		}
		cur, err := o.coll.Aggregate(ctx, rawArray(pipeline), opts)
		return t.drain(ctx, cur, err)
	case "insertOne":
		t.ubuf = op.AppendDocument(t.ubuf[:0], g)
		_, err := o.coll.InsertOne(ctx, bson.Raw(t.ubuf))
		return err
	case "insertMany":
		var docs []any
		for range op.Documents(g) {
			docs = append(docs, bson.Raw(op.AppendDocument(nil, g)))
		}
		_, err := o.coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(op.Ordered))
		return err
	case "updateOne", "updateMany":
		update := t.update(op)
		if op.Kind == "updateOne" {
			opts := options.UpdateOne().SetUpsert(op.Upsert)
			if o.hint != nil {
				opts.SetHint(o.hint)
			}
			_, err := o.coll.UpdateOne(ctx, filter, update, opts)
			return err
		}
		opts := options.UpdateMany().SetUpsert(op.Upsert)
		if o.hint != nil {
			opts.SetHint(o.hint)
		}
		_, err := o.coll.UpdateMany(ctx, filter, update, opts)
		return err
	case "replaceOne":
		opts := options.Replace().SetUpsert(op.Upsert)
		if o.hint != nil {
			opts.SetHint(o.hint)
		}
		t.ubuf = op.AppendReplacement(t.ubuf[:0], g)
		_, err := o.coll.ReplaceOne(ctx, filter, bson.Raw(t.ubuf), opts)
		return err
	case "deleteOne":
		opts := options.DeleteOne()
		if o.hint != nil {
			opts.SetHint(o.hint)
		}
		_, err := o.coll.DeleteOne(ctx, filter, opts)
		return err
	}
	opts := options.DeleteMany()
	if o.hint != nil {
		opts.SetHint(o.hint)
	}
	_, err := o.coll.DeleteMany(ctx, filter, opts)
	return err
}

// drain reads every document of a cursor, counting them.
func (t *fileTask) drain(ctx context.Context, cur *mongo.Cursor, err error) error {
	if err != nil {
		return err
	}
	defer cur.Close(ctx)
	var n int64
	for cur.Next(ctx) {
		n++
	}
	t.docs.Add(n)
	return cur.Err()
}

// rawArray splits a BSON array into its documents (a pipeline's stages).
func rawArray(arr []byte) []bson.Raw {
	vals, _ := bsoncore.Array(arr).Values()
	out := make([]bson.Raw, 0, len(vals))
	for _, v := range vals {
		out = append(out, bson.Raw(v.Data))
	}
	return out
}

// Counts are the documents the reads returned, and the transactions'
// counts when the file has a transaction.
func (t *fileTask) Counts() result.Counts {
	c := result.Counts{}
	if t.txns != nil {
		c = t.txns.counts()
	}
	c.DocsReturned = result.Ptr(t.docs.Load())
	return c
}

// Close ends the worker's session and closes its wire connection, if it
// has them.
func (t *fileTask) Close() error {
	t.endSession()
	return closeWire(t.wire)
}

func (t *fileTask) endSession() {
	if t.sess != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		t.sess.EndSession(ctx)
		t.sess = nil
	}
}
