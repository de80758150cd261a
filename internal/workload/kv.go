package workload

import (
	"context"
	"fmt"
	"math/rand/v2"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/datagen"
	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
)

// KV is a key-value mix of point reads and updates over a preloaded
// collection: documents {_id: int64, v: int64, payload: binary} of a
// given total BSON size, keys chosen uniformly. Reads find one document by
// _id; updates $inc its v.
type KV struct{}

var _ Workload = KV{}

// KVCollection is the collection the kv workload uses.
const KVCollection = "kv"

// kv operation types, in Ops order.
const (
	kvRead = iota
	kvUpdate
)

// kvOverhead is the BSON size of a kv document with an empty payload.
const kvOverhead = 43

// Name is "kv".
func (KV) Name() string { return "kv" }

// Summary describes the workload in one line.
func (KV) Summary() string {
	return "point reads and $inc updates by _id over N preloaded documents of a given size"
}

// Params declares the kv parameters.
func (KV) Params() []spec.ParamSpec {
	return append([]spec.ParamSpec{
		{Name: "records", Kind: spec.KindInt, Default: "10000", Min: "1", Help: "documents preloaded, keys 0..records-1"},
		{Name: "docSize", Kind: spec.KindSize, Default: "1KB", Min: "44B", Max: "16MB", Help: "BSON size of each document"},
		{Name: "readPercent", Kind: spec.KindPercent, Default: "50", Help: "share of operations that are reads; the rest are updates"},
		ClientParam,
	}, preloadParams()...)
}

// Ops names the kv operation types.
func (KV) Ops(spec.Params) []string { return []string{"read", "update"} }

// GroupReady: a group's lead preloads the records; every client reads and
// updates keys drawn uniformly over all of them (as one client's workers
// do, each from its own seeded stream), so the group's keys are one
// client's.
func (KV) GroupReady(spec.Params) error { return nil }

// Prepare drops the kv collection and preloads records documents in
// parallel batches, and decides the client of the operations (parameter
// client). The workers share nothing but the client choice.
func (w KV) Prepare(ctx context.Context, env Env, p spec.Params) (Run, error) {
	if env.Follower {
		return clientRun(env, p, w.Name(), w.newTask), nil
	}
	if err := w.setup(ctx, env, p); err != nil {
		return Run{}, err
	}
	return clientRun(env, p, w.Name(), w.newTask), nil
}

func (KV) setup(ctx context.Context, env Env, p spec.Params) error {
	if err := ResetCollection(ctx, env.DB, KVCollection); err != nil {
		return err
	}
	payload := datagen.Payload(int(p.Size("docSize"))+4096, uint64(env.Seed))
	size := int(p.Size("docSize")) - kvOverhead
	l := &Loader{
		Coll:  env.DB.Collection(KVCollection),
		Total: p.Int("records"),
		Batch: p.Int("batchSize"),
		Build: func(dst []byte, k int64) []byte {
			off := int(k*61) % (len(payload) - size)
			return kvDoc(dst, k, payload[off:off+size])
		},
	}
	return l.Run(ctx, int(p.Int("loaders")), func(done int64) { env.ReportProgress("preload", done, l.Total) })
}

func kvDoc(dst []byte, key int64, payload []byte) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	dst = bsoncore.AppendInt64Element(dst, "_id", key)
	dst = bsoncore.AppendInt64Element(dst, "v", 0)
	dst = bsoncore.AppendBinaryElement(dst, "payload", 0, payload)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// newTask builds one worker's kv task, over its own wire connection on
// the wire path.
func (KV) newTask(ctx context.Context, env Env, p spec.Params, c Client, worker int) (engine.Task, error) {
	idx, upd := bsoncore.AppendDocumentStart(nil)
	upd = bsoncore.AppendDocumentElement(upd, "$inc", bsoncore.NewDocumentBuilder().AppendInt64("v", 1).Build())
	upd, err := bsoncore.AppendDocumentEnd(upd, idx)
	if err != nil {
		return nil, fmt.Errorf("build kv update: %w", err)
	}
	w, err := c.dial(ctx, env.DB.Name(), KVCollection)
	if err != nil {
		return nil, err
	}
	return &kvTask{
		wireTimed: wireTimed{wire: w},
		coll:      env.DB.Collection(KVCollection),
		rnd:       datagen.Rand(env.Seed, worker),
		keys:      datagen.Uniform{N: p.Int("records")},
		readPct:   p.Float("readPercent"),
		update:    bson.Raw(upd),
	}, nil
}

// kvTask is one worker's kv operations, over the wire client (wire set)
// or the driver, keys and operations drawn the same way on both. Its
// filter buffer is reused, so an operation allocates nothing of its own
// (and nothing at all on the wire path).
type kvTask struct {
	wireTimed
	coll    *mongo.Collection
	rnd     *rand.Rand
	keys    datagen.Uniform
	readPct float64
	filter  []byte
	update  bson.Raw
}

// Do sends one read or update.
func (t *kvTask) Do(ctx context.Context) (int, error) {
	t.filter = idFilter(t.filter[:0], t.keys.Next(t.rnd))
	if t.rnd.Float64()*100 < t.readPct {
		if t.wire != nil {
			_, err := t.wire.findOne(ctx, t.filter)
			return kvRead, err
		}
		_, err := t.coll.FindOne(ctx, bson.Raw(t.filter)).Raw()
		return kvRead, err
	}
	if t.wire != nil {
		_, _, err := t.wire.updateOne(ctx, t.filter, t.update, false)
		return kvUpdate, err
	}
	_, err := t.coll.UpdateOne(ctx, bson.Raw(t.filter), t.update)
	return kvUpdate, err
}

// Close closes the worker's wire connection, if it has one.
func (t *kvTask) Close() error { return closeWire(t.wire) }

func idFilter(dst []byte, key int64) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	dst = bsoncore.AppendInt64Element(dst, "_id", key)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}
