package workload

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"

	"github.com/mongobench/mongobench/internal/result"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/datagen"
	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
)

// UpdateAPI compares the ways of writing one document by key: updateOne
// or findOneAndUpdate, with or without upsert, over records preloaded
// documents, where percentNew of the keys are new (not preloaded). Every
// operation $inc's the count of its key's document. With upsert a new
// key's document is created by the update ($setOnInsert carries its ix and
// payload, so it has the preloaded documents' size); without, an update
// that matched nothing is followed by an insertOne of the full document,
// and both calls are the one operation. The share of new keys is exact:
// the run's operations are numbered, and operation i is new when
// floor((i+1)·percentNew/100) > floor(i·percentNew/100). New keys follow
// the preloaded ones, each used once; existing keys are uniform.
type UpdateAPI struct{}

var _ Workload = UpdateAPI{}

// UpdateAPICollection is the collection the updateapi workload uses.
const UpdateAPICollection = "updates"

// The updateapi update functions.
const (
	FuncUpdateOne        = "updateOne"
	FuncFindOneAndUpdate = "findOneAndUpdate"
)

// Name is "updateapi".
func (UpdateAPI) Name() string { return "updateapi" }

// Summary describes the workload in one line.
func (UpdateAPI) Summary() string {
	return "updateOne vs findOneAndUpdate by key, upsert or insert on miss, a given share of new keys"
}

// Params declares the updateapi parameters.
func (UpdateAPI) Params() []spec.ParamSpec {
	return append([]spec.ParamSpec{
		{Name: "records", Kind: spec.KindInt, Default: "10000", Min: "1", Help: "documents preloaded, keys 0..records-1"},
		{Name: "docSize", Kind: spec.KindSize, Default: "1KB", Min: "64B", Max: "16MB", Help: "BSON size of each document"},
		{Name: "updateFunction", Kind: spec.KindEnum, Values: []string{FuncUpdateOne, FuncFindOneAndUpdate}, Help: "the call that writes: updateOne or findOneAndUpdate"},
		{Name: "upsert", Kind: spec.KindBool, Default: "false", Help: "upsert a new key; otherwise insert it with a second call after the update misses"},
		{Name: "percentNew", Kind: spec.KindPercent, Default: "0", Help: "share of operations whose key is new (not preloaded)"},
		ClientParam,
	}, preloadParams()...)
}

// Ops names the one operation type after the update function.
func (UpdateAPI) Ops(p spec.Params) []string { return []string{p.String("updateFunction")} }

// Prepare recreates the collection and preloads it, so every run starts
// with the same keys and its share of new keys is exact, and decides the
// client of the writes (parameter client). The workers share the
// numbering of the run's operations and the client choice.
func (w UpdateAPI) Prepare(ctx context.Context, env Env, p spec.Params) (Run, error) {
	if err := ResetCollection(ctx, env.DB, UpdateAPICollection); err != nil {
		return Run{}, err
	}
	docs := newKeyedDocs(int64(p.Size("docSize")), env.Seed)
	err := docs.preload(ctx, env, env.DB.Collection(UpdateAPICollection), p.Int("records"), p.Int("batchSize"), int(p.Int("loaders")))
	if err != nil {
		return Run{}, err
	}
	c := ChooseClient(env.URI, p.String("client"))
	return Run{Decided: c.Decided(w.Name()), Tasks: &updateRun{env: env, p: p, client: c}}, nil
}

// opSeq numbers the operations of a run across its workers.
type opSeq struct{ next atomic.Int64 }

// updateRun is a prepared updateapi run: its workers share the
// operation numbering.
type updateRun struct {
	env    Env
	p      spec.Params
	client Client
	seq    opSeq
}

var _ Tasks = (*updateRun)(nil)

// NewTask builds one worker's writer, over its own wire connection on
// the wire path.
func (r *updateRun) NewTask(ctx context.Context, worker int) (engine.Task, error) {
	env, p := r.env, r.p
	w, err := r.client.dial(ctx, env.DB.Name(), UpdateAPICollection)
	if err != nil {
		return nil, err
	}
	return &updateTask{
		wireTimed: wireTimed{wire: w},
		coll:      env.DB.Collection(UpdateAPICollection), seq: &r.seq,
		docs: newKeyedDocs(int64(p.Size("docSize")), env.Seed), rnd: datagen.Rand(env.Seed, worker),
		records: p.Int("records"), pct: p.Float("percentNew"),
		find: p.String("updateFunction") == FuncFindOneAndUpdate, upsert: p.Bool("upsert"),
		updateOpts: options.UpdateOne().SetUpsert(p.Bool("upsert")),
		findOpts:   options.FindOneAndUpdate().SetUpsert(p.Bool("upsert")).SetReturnDocument(options.Before),
	}, nil
}

// updateTask is one worker's writes, over the wire client (wire set) or
// the driver, keys drawn the same way on both. Its buffers are reused.
type updateTask struct {
	wireTimed
	coll         *mongo.Collection
	seq          *opSeq
	docs         keyedDocs
	rnd          *rand.Rand
	records      int64
	pct          float64
	find, upsert bool
	updateOpts   *options.UpdateOneOptionsBuilder
	findOpts     *options.FindOneAndUpdateOptionsBuilder
	filter, upd  []byte
	doc          []byte

	// Counters are read by the run while the worker goes on (Counts).
	inserts, upserts atomic.Int64
}

var _ Counter = (*updateTask)(nil)

// Counts reports the documents created: insertsOnMiss by the second call
// after an update that matched nothing, upserts by the update itself.
func (t *updateTask) Counts() result.Counts {
	return result.Counts{InsertsOnMiss: result.Ptr(t.inserts.Load()), Upserts: result.Ptr(t.upserts.Load())}
}

// newKey reports whether operation i of a run whose share of new keys is
// pct percent uses a new key, and the key: new keys are records,
// records+1, … in operation order; an existing key is chosen by the
// caller.
func newKey(i int64, pct float64, records int64) (int64, bool) {
	before := int64(math.Floor(float64(i) * pct / 100))
	after := int64(math.Floor(float64(i+1) * pct / 100))
	return records + before, after > before
}

// Do writes one key: the update, and the insert if it missed.
func (t *updateTask) Do(ctx context.Context) (int, error) {
	key, isNew := newKey(t.seq.next.Add(1)-1, t.pct, t.records)
	if !isNew {
		key = t.rnd.Int64N(t.records)
	}
	t.filter = idFilter(t.filter[:0], key)
	t.upd = t.update(t.upd[:0], key)
	matched, err := t.write(ctx)
	if err != nil || matched {
		return 0, err
	}
	if t.upsert {
		t.upserts.Add(1)
		return 0, nil
	}
	t.doc = t.docs.append(t.doc[:0], key, 1)
	if err := t.insert(ctx); err != nil {
		return 0, fmt.Errorf("insert after the update missed: %w", err)
	}
	t.inserts.Add(1)
	return 0, nil
}

// insert inserts the document in t.doc.
func (t *updateTask) insert(ctx context.Context) error {
	if t.wire != nil {
		return t.wire.insertOne(ctx, t.doc)
	}
	_, err := t.coll.InsertOne(ctx, bson.Raw(t.doc))
	return err
}

// Close closes the worker's wire connection, if it has one.
func (t *updateTask) Close() error { return closeWire(t.wire) }

// write sends the update and reports whether it matched a document.
func (t *updateTask) write(ctx context.Context) (bool, error) {
	if t.wire != nil {
		if t.find {
			return t.wire.findOneAndUpdate(ctx, t.filter, t.upd, t.upsert)
		}
		matched, _, err := t.wire.updateOne(ctx, t.filter, t.upd, t.upsert)
		return matched > 0, err
	}
	if t.find {
		err := t.coll.FindOneAndUpdate(ctx, bson.Raw(t.filter), bson.Raw(t.upd), t.findOpts).Err()
		if errors.Is(err, mongo.ErrNoDocuments) {
			return false, nil // before the update there was no document
		}
		return err == nil, err
	}
	res, err := t.coll.UpdateOne(ctx, bson.Raw(t.filter), bson.Raw(t.upd), t.updateOpts)
	if err != nil {
		return false, err
	}
	return res.MatchedCount > 0, nil
}

// update appends {$inc: {count: 1}}, with upsert also {$setOnInsert:
// {ix: key, payload}} so an upserted document is whole.
func (t *updateTask) update(dst []byte, key int64) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	inc, dst := bsoncore.AppendDocumentElementStart(dst, "$inc")
	dst = bsoncore.AppendInt64Element(dst, "count", 1)
	dst, _ = bsoncore.AppendDocumentEnd(dst, inc)
	if t.upsert {
		set, d := bsoncore.AppendDocumentElementStart(dst, "$setOnInsert")
		d = bsoncore.AppendInt64Element(d, "ix", key)
		d = bsoncore.AppendBinaryElement(d, "payload", 0, t.docs.payloadOf(key))
		dst, _ = bsoncore.AppendDocumentEnd(d, set)
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}
