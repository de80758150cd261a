package workload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"

	"github.com/mongobench/mongobench/internal/result"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/datagen"
	"github.com/mongobench/mongobench/internal/engine"
)

// errQueryNotFound is a lookup by _id that found nothing: the dataset is
// not what setup loaded.
var errQueryNotFound = errors.New("query: no document with that _id")

// NewTask builds one worker's query task over the key range setup chose.
func (r *queryRun) NewTask(ctx context.Context, worker int) (engine.Task, error) {
	env, p, space := r.env, r.p, r.space
	docs := p.Int("docsPerQuery")
	w, err := r.client.dial(ctx, env.DB.Name(), QueryCollection)
	if err != nil {
		return nil, err
	}
	t := &queryTask{
		wireTimed: wireTimed{wire: w},
		coll:      env.DB.Collection(QueryCollection), rnd: datagen.Rand(env.Seed, worker), space: space,
		shape: p.String("query"), docs: docs, skip: p.Int("skip"), picked: map[int64]bool{},
	}
	seqSort := bson.D{{Key: "seq", Value: 1}}
	t.opts = options.Find().SetLimit(docs).SetBatchSize(int32(min(docs, 1<<20)))
	t.wireOpts = findOptions{limit: docs}
	switch t.shape {
	case QuerySkip:
		t.opts.SetSort(seqSort).SetSkip(t.skip)
		t.wireOpts.sort, t.wireOpts.skip = bsoncore.NewDocumentBuilder().AppendInt32("seq", 1).Build(), t.skip
	case QueryRange:
		t.opts.SetSort(seqSort)
		t.wireOpts.sort = bsoncore.NewDocumentBuilder().AppendInt32("seq", 1).Build()
	case QueryFetch:
		t.opts.SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "absent", Value: 1}})
		t.wireOpts.projection = bsoncore.NewDocumentBuilder().AppendInt32("_id", 0).AppendInt32("absent", 1).Build()
	}
	return t, nil
}

// queryTask is one worker's queries of one shape, over the wire client
// (wire set) or the driver, groups and keys drawn the same way on both;
// filters are appended into a reused buffer.
type queryTask struct {
	wireTimed
	wireOpts findOptions
	coll     *mongo.Collection
	rnd      *rand.Rand
	space    querySpace
	shape    string
	docs     int64
	skip     int64
	opts     *options.FindOptionsBuilder
	filter   []byte
	picked   map[int64]bool // the $in query's groups
	// returned counts the documents queries returned; read while the
	// worker runs.
	returned atomic.Int64
}

// Counts reports the documents returned, as docsReturned.
func (t *queryTask) Counts() result.Counts {
	return result.Counts{DocsReturned: result.Ptr(t.returned.Load())}
}

// Do runs one query and counts the documents it returned.
func (t *queryTask) Do(ctx context.Context) (int, error) {
	if t.shape == QueryByID {
		return 0, t.byID(ctx)
	}
	n, err := t.find(ctx, t.buildFilter(t.rnd.Int64N(t.space.keyGroups)))
	t.returned.Add(n)
	return 0, err
}

// byID finds one document by _id in the key range.
func (t *queryTask) byID(ctx context.Context) error {
	id := t.rnd.Int64N(t.space.keyGroups * t.space.layout.groupSize)
	t.filter = idFilter(t.filter[:0], id)
	var err error
	if t.wire != nil {
		_, err = t.wire.findOne(ctx, t.filter)
	} else {
		_, err = t.coll.FindOne(ctx, bson.Raw(t.filter)).Raw()
	}
	if errors.Is(err, mongo.ErrNoDocuments) {
		return fmt.Errorf("%w: %d", errQueryNotFound, id)
	}
	if err == nil {
		t.returned.Add(1)
	}
	return err
}

// buildFilter builds the filter of the task's shape for group g into
// t.filter.
func (t *queryTask) buildFilter(g int64) bson.Raw {
	idx, dst := bsoncore.AppendDocumentStart(t.filter[:0])
	switch t.shape {
	case QueryIn:
		dst = t.appendInGroups(dst)
		dst = bsoncore.AppendInt64Element(dst, "seq", t.rnd.Int64N(t.space.layout.groupSize))
	case QueryRange:
		dst = bsoncore.AppendInt64Element(dst, "group", g)
		gte, d := bsoncore.AppendDocumentElementStart(dst, "seq")
		d = bsoncore.AppendInt64Element(d, "$gte", t.skip)
		dst, _ = bsoncore.AppendDocumentEnd(d, gte)
	case QueryCompound:
		dst = bsoncore.AppendInt64Element(dst, "group", g)
		dst = bsoncore.AppendInt64Element(dst, "cat", t.rnd.Int64N(queryCats))
	case QueryFilter:
		dst = bsoncore.AppendInt64Element(dst, "group", g)
		dst = bsoncore.AppendInt64Element(dst, "catCopy", t.rnd.Int64N(queryCats))
	default: // term, skip, fetch
		dst = bsoncore.AppendInt64Element(dst, "group", g)
	}
	t.filter, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return bson.Raw(t.filter)
}

// appendInGroups appends group: {$in: [...]} with docsPerQuery distinct
// groups of the key range (all of them when the range is smaller),
// chosen by Floyd's algorithm.
func (t *queryTask) appendInGroups(dst []byte) []byte {
	n, k := t.space.keyGroups, min(t.docs, t.space.keyGroups)
	clear(t.picked)
	in, dst := bsoncore.AppendDocumentElementStart(dst, "group")
	arr, dst := bsoncore.AppendArrayElementStart(dst, "$in")
	i := 0
	for j := n - k; j < n; j++ {
		g := t.rnd.Int64N(j + 1)
		if t.picked[g] {
			g = j
		}
		t.picked[g] = true
		dst = bsoncore.AppendInt64Element(dst, arrayKey(i), g)
		i++
	}
	dst, _ = bsoncore.AppendArrayEnd(dst, arr)
	dst, _ = bsoncore.AppendDocumentEnd(dst, in)
	return dst
}

// arrayKeys are the element names of a BSON array, made once.
var arrayKeys = func() []string {
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = fmt.Sprint(i)
	}
	return keys
}()

func arrayKey(i int) string {
	if i < len(arrayKeys) {
		return arrayKeys[i]
	}
	return fmt.Sprint(i)
}

// find runs the query and returns how many documents it returned.
func (t *queryTask) find(ctx context.Context, filter bson.Raw) (int64, error) {
	if t.wire != nil {
		return t.wire.find(ctx, filter, t.wireOpts)
	}
	cur, err := t.coll.Find(ctx, filter, t.opts)
	if err != nil {
		return 0, err
	}
	var n int64
	for cur.Next(ctx) {
		n++
	}
	err = cur.Err()
	if cerr := cur.Close(ctx); err == nil {
		err = cerr
	}
	return n, err
}

// Close closes the worker's wire connection, if it has one.
func (t *queryTask) Close() error { return closeWire(t.wire) }
