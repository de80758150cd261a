package workload

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
)

// HotDoc measures contention: every operation of every worker is one
// updateOne that $inc's the count of the same document (the hot
// document, _id 0) among records preloaded documents. With indexUpdate
// the update also $inc's ix, a field with a secondary index, so each
// update rewrites an index entry too. Server-side write conflicts show in
// serverStatus (metrics.operation.writeConflicts); one that reaches the
// client is an operation error of class writeConflict.
type HotDoc struct{}

var _ Workload = HotDoc{}

// HotDocCollection is the collection the hotdoc workload uses.
const HotDocCollection = "hotdoc"

// HotKey is the _id of the hot document.
const HotKey int64 = 0

// Name is "hotdoc".
func (HotDoc) Name() string { return "hotdoc" }

// Summary describes the workload in one line.
func (HotDoc) Summary() string {
	return "contention: every worker $inc's one hot document among N preloaded, optionally changing an indexed field"
}

// Params declares the hotdoc parameters.
func (HotDoc) Params() []spec.ParamSpec {
	return append([]spec.ParamSpec{
		{Name: "records", Kind: spec.KindInt, Default: "10000", Min: "1", Help: "documents preloaded, keys 0..records-1; the hot one is _id 0"},
		{Name: "docSize", Kind: spec.KindSize, Default: "1KB", Min: "64B", Max: "16MB", Help: "BSON size of each document"},
		{Name: "indexUpdate", Kind: spec.KindBool, Default: "false", Help: "the update also changes ix, a field with a secondary index"},
		ClientParam,
	}, preloadParams()...)
}

// Ops names the one operation type: an update of the hot document.
func (HotDoc) Ops(spec.Params) []string { return []string{"update"} }

// Prepare recreates the collection, preloads it, and with indexUpdate
// builds the index on ix, and decides the client of the updates
// (parameter client). The workers share nothing but the client choice.
func (w HotDoc) Prepare(ctx context.Context, env Env, p spec.Params) (Run, error) {
	if err := w.setup(ctx, env, p); err != nil {
		return Run{}, err
	}
	return clientRun(env, p, w.Name(), w.newTask), nil
}

func (HotDoc) setup(ctx context.Context, env Env, p spec.Params) error {
	if err := ResetCollection(ctx, env.DB, HotDocCollection); err != nil {
		return err
	}
	coll := env.DB.Collection(HotDocCollection)
	docs := newKeyedDocs(int64(p.Size("docSize")), env.Seed)
	if err := docs.preload(ctx, env, coll, p.Int("records"), p.Int("batchSize"), int(p.Int("loaders"))); err != nil {
		return err
	}
	if !p.Bool("indexUpdate") {
		return nil
	}
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "ix", Value: 1}}}); err != nil {
		return fmt.Errorf("create index on ix: %w", err)
	}
	return nil
}

// newTask builds one worker's updater of the hot document, over its own
// wire connection on the wire path.
func (HotDoc) newTask(ctx context.Context, env Env, p spec.Params, c Client, _ int) (engine.Task, error) {
	inc := bsoncore.NewDocumentBuilder().AppendInt64("count", 1)
	if p.Bool("indexUpdate") {
		inc.AppendInt64("ix", 1)
	}
	update := bsoncore.NewDocumentBuilder().AppendDocument("$inc", inc.Build()).Build()
	w, err := c.dial(ctx, env.DB.Name(), HotDocCollection)
	if err != nil {
		return nil, err
	}
	return &hotDocTask{
		wireTimed: wireTimed{wire: w},
		coll:      env.DB.Collection(HotDocCollection),
		filter:    bson.Raw(idFilter(nil, HotKey)),
		update:    bson.Raw(update),
	}, nil
}

// hotDocTask sends the same prebuilt update every time, over the wire
// client (wire set) or the driver.
type hotDocTask struct {
	wireTimed
	coll           *mongo.Collection
	filter, update bson.Raw
}

// errNoHotDoc is the error of an update that found no hot document.
var errNoHotDoc = errors.New("the hot document is missing")

// Do $inc's the hot document once.
func (t *hotDocTask) Do(ctx context.Context) (int, error) {
	if t.wire != nil {
		matched, _, err := t.wire.updateOne(ctx, t.filter, t.update, false)
		if err == nil && matched != 1 {
			err = errNoHotDoc
		}
		return 0, err
	}
	res, err := t.coll.UpdateOne(ctx, t.filter, t.update)
	if err != nil {
		return 0, err
	}
	if res.MatchedCount != 1 {
		return 0, errNoHotDoc
	}
	return 0, nil
}

// Close closes the worker's wire connection, if it has one.
func (t *hotDocTask) Close() error { return closeWire(t.wire) }
