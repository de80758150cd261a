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
type Loader struct {
	Coll  *mongo.Collection
	Total int64
	Batch int64
	Build func(dst []byte, key int64) []byte
	// Open returns one worker's inserter; nil inserts with the driver's
	// insertMany on Coll.
	Open func(ctx context.Context) (BatchInserter, error)
	next atomic.Int64
	done atomic.Int64
}

// BatchInserter is one loader worker's way to insert the documents of
// keys [first, last), and to release what it holds when the load ends.
type BatchInserter interface {
	Insert(ctx context.Context, first, last int64) error
	Close() error
}

var _ BatchInserter = (*driverInserter)(nil)

// Run loads with the given number of parallel connections, reporting the
// documents inserted so far after every batch.
func (l *Loader) Run(ctx context.Context, workers int, progress func(done int64)) error {
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
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

func (l *Loader) loadBatches(ctx context.Context, progress func(int64)) (err error) {
	ins := BatchInserter(&driverInserter{l: l, docs: make([]any, 0, l.Batch), opts: options.InsertMany().SetOrdered(false)})
	if l.Open != nil {
		if ins, err = l.Open(ctx); err != nil {
			return err
		}
	}
	defer func() { err = errors.Join(err, ins.Close()) }()
	for {
		first := l.next.Add(l.Batch) - l.Batch
		if first >= l.Total {
			return nil
		}
		last := min(first+l.Batch, l.Total)
		if err := ins.Insert(ctx, first, last); err != nil {
			return fmt.Errorf("preload %s: %w", l.Coll.Name(), err)
		}
		progress(l.done.Add(last - first))
	}
}

// driverInserter inserts a batch with one unordered insertMany, reusing
// its buffers.
type driverInserter struct {
	l    *Loader
	buf  []byte
	docs []any
	opts *options.InsertManyOptionsBuilder
}

// Insert inserts the batch with one insertMany.
func (d *driverInserter) Insert(ctx context.Context, first, last int64) error {
	d.buf, d.docs = d.l.buildBatch(d.buf[:0], d.docs[:0], first, last)
	_, err := d.l.Coll.InsertMany(ctx, d.docs, d.opts)
	return err
}

// Close releases nothing: the driver owns the connection.
func (*driverInserter) Close() error { return nil }

// buildBatch appends the documents of keys [first, last) to buf and
// returns them as slices of it.
func (l *Loader) buildBatch(buf []byte, docs []any, first, last int64) ([]byte, []any) {
	ends := make([]int, 0, last-first)
	for k := first; k < last; k++ {
		buf = l.Build(buf, k)
		ends = append(ends, len(buf))
	}
	start := 0
	for _, end := range ends {
		docs = append(docs, bson.Raw(buf[start:end]))
		start = end
	}
	return buf, docs
}

// preloadParams are the parameters of a workload's parallel preload: the
// insertMany batch and the number of loader connections.
func preloadParams() []spec.ParamSpec {
	return []spec.ParamSpec{
		{Name: "batchSize", Kind: spec.KindInt, Default: "1000", Min: "1", Max: "100000", Help: "documents per insertMany while preloading"},
		{Name: "loaders", Kind: spec.KindInt, Default: "4", Min: "1", Max: "256", Help: "parallel preload connections"},
	}
}
