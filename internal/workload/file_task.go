package workload

import (
	"context"
	"errors"
	"math"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/wire"
	"github.com/mongobench/mongobench/internal/workloadfile"
)

// fileTask is one worker's operations of a workload file: each Do draws
// an operation of the mix, its iteration's values, and sends its command
// over the worker's wire connection (built in the connection's reused
// buffer, the cursor of a read drained) or through the driver.
type fileTask struct {
	wireTimed
	g    *workloadfile.Gen
	pick workloadfile.Picker
	ops  []fileOp
	db   string
	buf  []byte // the driver path's parts
	docs atomic.Int64
}

// fileOp is one operation as a worker sends it.
type fileOp struct {
	op      *workloadfile.Op
	retry   wire.Retry
	concern bsoncore.Document // the operation's own, nil: the connection string's
	coll    *mongo.Collection // the driver's, with the operation's concerns
	hint    any               // the driver's hint (nil: none)
	sort    bson.Raw
	proj    bson.Raw
}

var (
	_ engine.ReplyTimed = (*fileTask)(nil)
	_ Counter           = (*fileTask)(nil)
)

func (w *File) newTask(ctx context.Context, env Env, c Client, worker int) (engine.Task, error) {
	t := &fileTask{g: w.f.NewGen(env.Seed, worker), pick: w.f.Picker(), db: env.DB.Name()}
	for _, op := range w.f.Ops {
		o := fileOp{op: op, retry: wire.RetryRead}
		co := options.Collection()
		if op.Write() {
			o.retry = wire.RetryWrite
			if op.Multi() {
				o.retry = wire.OnceWrite
			}
			if wc := op.WriteConcern; wc != nil {
				o.concern = wc.Doc()
				dwc := &writeconcern.WriteConcern{W: wc.W, Journal: wc.J}
				if n, ok := wc.W.(int64); ok {
					dwc.W = int(n)
				}
				co.SetWriteConcern(dwc)
			}
		} else if rc := op.ReadConcernDoc(); rc != nil {
			o.concern = rc
			co.SetReadConcern(&readconcern.ReadConcern{Level: op.ReadConcern})
		}
		o.coll = env.DB.Collection(op.Coll.Name, co)
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
		t.ops = append(t.ops, o)
	}
	wc, err := c.dial(ctx, t.db, "")
	if err != nil {
		return nil, err
	}
	t.wire = wc
	return t, nil
}

// Do sends the next operation of the mix.
func (t *fileTask) Do(ctx context.Context) (int, error) {
	i := t.pick.Next(t.g)
	o := &t.ops[i]
	t.g.Begin(o.op)
	if t.wire != nil {
		return i, t.wireDo(ctx, o)
	}
	return i, t.driverDo(ctx, o)
}

func (t *fileTask) wireDo(ctx context.Context, o *fileOp) error {
	conn := t.wire.conn
	msg := conn.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	insert := o.op.Verb() == "insert"
	if insert { // the documents go in a sequence, as the drivers send them
		msg = bsoncore.AppendStringElement(msg, "insert", o.op.Coll.Name)
		msg = bsoncore.AppendBooleanElement(msg, "ordered", o.op.Ordered)
	} else {
		msg = o.op.AppendCommand(msg, t.g)
	}
	msg = conn.AppendFieldsConcern(msg, t.db, o.retry, o.concern)
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
	if err != nil || o.op.Write() {
		return err
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
	case "find":
		opts := options.Find().SetLimit(op.Limit).SetSkip(op.Skip)
		t.findOptions(o, opts)
		cur, err := o.coll.Find(ctx, filter, opts)
		return t.drain(ctx, cur, err)
	case "findOne":
		opts := options.FindOne().SetSkip(op.Skip)
		if o.sort != nil {
			opts.SetSort(o.sort)
		}
		if o.proj != nil {
			opts.SetProjection(o.proj)
		}
		if o.hint != nil {
			opts.SetHint(o.hint)
		}
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
		cur, err := o.coll.Aggregate(ctx, rawArray(op.Pipeline.Append(nil, g)), opts)
		return t.drain(ctx, cur, err)
	case "insertOne":
		_, err := o.coll.InsertOne(ctx, bson.Raw(op.AppendDocument(nil, g)))
		return err
	case "insertMany":
		var docs []any
		for range op.Documents(g) {
			docs = append(docs, bson.Raw(op.AppendDocument(nil, g)))
		}
		_, err := o.coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(op.Ordered))
		return err
	case "updateOne", "updateMany":
		var update any = bson.Raw(op.Update.Append(nil, g))
		if op.Update.IsArray() {
			update = rawArray(update.(bson.Raw))
		}
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
		_, err := o.coll.ReplaceOne(ctx, filter, bson.Raw(op.AppendReplacement(nil, g)), opts)
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

func (t *fileTask) findOptions(o *fileOp, opts *options.FindOptionsBuilder) {
	if o.sort != nil {
		opts.SetSort(o.sort)
	}
	if o.proj != nil {
		opts.SetProjection(o.proj)
	}
	if o.hint != nil {
		opts.SetHint(o.hint)
	}
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

// Counts are the documents the reads returned.
func (t *fileTask) Counts() result.Counts {
	return result.Counts{DocsReturned: result.Ptr(t.docs.Load())}
}

// Close closes the worker's wire connection, if it has one.
func (t *fileTask) Close() error { return closeWire(t.wire) }
