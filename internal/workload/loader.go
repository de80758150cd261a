package workload

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/spec"
)

// Loader inserts the documents of keys [0, Total) into a collection in
// parallel unordered batches of Batch keys, the preload of every workload.
// Build appends the BSON document of one key to dst.
//
// Its memory does not grow with the documents: a batch is also cut at
// spec.MaxBatchBytes of documents, and no more loaders run at once than
// keep their batches within spec.MaxLoadBytes together. The document size
// is DocBytes when given, else learnt from the first batch, which one
// loader builds and inserts alone.
type Loader struct {
	Coll  *mongo.Collection
	Total int64
	Batch int64
	Build func(dst []byte, key int64) []byte
	// Open returns one worker's inserter; nil inserts with the driver's
	// insertMany on Coll.
	Open func(ctx context.Context) (BatchInserter, error)
	// DocBytes estimates one document's BSON size; 0 learns it from the
	// first batch when the driver inserts (with Open, 0 leaves batches
	// bounded by Batch alone).
	DocBytes int64
	next     atomic.Int64
	done     atomic.Int64
	keys     int64 // keys per claimed batch, set by Run
}

// BatchInserter is one loader worker's way to insert the documents of
// keys [first, last), and to release what it holds when the load ends.
type BatchInserter interface {
	Insert(ctx context.Context, first, last int64) error
	Close() error
}

var _ BatchInserter = (*driverInserter)(nil)

// Run loads with up to the given number of parallel connections,
// reporting the documents inserted so far after every batch.
func (l *Loader) Run(ctx context.Context, workers int, progress func(done int64)) error {
	if l.Total <= 0 {
		return nil
	}
	l.keys = max(l.Batch, 1)
	doc := l.DocBytes
	if doc <= 0 && l.Open == nil {
		first := min(l.keys, l.Total)
		ins := l.newDriverInserter()
		if err := ins.Insert(ctx, 0, first); err != nil {
			return fmt.Errorf("preload %s: %w", l.Coll.Name(), err)
		}
		l.next.Store(first)
		progress(l.done.Add(first))
		doc = max(ins.built/first, 1)
	}
	var n int
	l.keys, n = LoadShape(l.keys, workers, doc)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- l.loadBatches(ctx, progress)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// LoadShape returns the keys per batch and the loaders that run at once
// for documents of docBytes each (0: unknown): at most batch keys and
// spec.MaxBatchBytes a batch (at least one document), and at most workers
// loaders whose batches together stay within spec.MaxLoadBytes (at least
// one).
func LoadShape(batch int64, workers int, docBytes int64) (keys int64, loaders int) {
	keys, loaders = max(batch, 1), max(workers, 1)
	if docBytes <= 0 {
		return keys, loaders
	}
	keys = min(keys, max(int64(spec.MaxBatchBytes)/docBytes, 1))
	return keys, int(min(int64(loaders), max(int64(spec.MaxLoadBytes)/(keys*docBytes), 1)))
}

func (l *Loader) loadBatches(ctx context.Context, progress func(int64)) (err error) {
	ins := BatchInserter(l.newDriverInserter())
	if l.Open != nil {
		if ins, err = l.Open(ctx); err != nil {
			return err
		}
	}
	defer func() { err = errors.Join(err, ins.Close()) }()
	for {
		first := l.next.Add(l.keys) - l.keys
		if first >= l.Total {
			return nil
		}
		last := min(first+l.keys, l.Total)
		if err := ins.Insert(ctx, first, last); err != nil {
			return fmt.Errorf("preload %s: %w", l.Coll.Name(), err)
		}
		progress(l.done.Add(last - first))
	}
}

func (l *Loader) newDriverInserter() *driverInserter {
	return &driverInserter{l: l, opts: options.InsertMany().SetOrdered(false)}
}

// driverInserter inserts a batch with unordered insertMany calls of at
// most spec.MaxBatchBytes of documents each (at least one), reusing its
// buffers.
type driverInserter struct {
	l     *Loader
	buf   []byte
	ends  []int
	docs  []any
	opts  *options.InsertManyOptionsBuilder
	built int64 // bytes of every document built
}

// Insert inserts the batch, streaming: it builds documents until the
// batch or the byte bound is reached, inserts them, and goes on.
func (d *driverInserter) Insert(ctx context.Context, first, last int64) error {
	for k := first; k < last; {
		d.buf, d.ends = d.buf[:0], d.ends[:0]
		for ; k < last; k++ {
			if len(d.ends) > 0 && len(d.buf) >= int(spec.MaxBatchBytes) {
				break
			}
			d.buf = d.l.Build(d.buf, k)
			d.ends = append(d.ends, len(d.buf))
		}
		d.built += int64(len(d.buf))
		d.docs = d.docs[:0]
		start := 0
		for _, end := range d.ends {
			d.docs = append(d.docs, bson.Raw(d.buf[start:end]))
			start = end
		}
		if _, err := d.l.Coll.InsertMany(ctx, d.docs, d.opts); err != nil {
			return err
		}
	}
	return nil
}

// Close releases nothing: the driver owns the connection.
func (*driverInserter) Close() error { return nil }

// preloadParams are the parameters of a workload's parallel preload: the
// insertMany batch and the number of loader connections.
func preloadParams() []spec.ParamSpec {
	return []spec.ParamSpec{
		{Name: "batchSize", Kind: spec.KindInt, Default: "1000", Min: "1", Max: "100000", Help: "documents per insertMany while preloading"},
		{Name: "loaders", Kind: spec.KindInt, Default: "4", Min: "1", Max: "256", Help: "parallel preload connections"},
	}
}
