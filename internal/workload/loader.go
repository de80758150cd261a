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

// loader inserts the documents of keys [0, total) into a collection in
// parallel unordered insertMany batches. build appends the BSON document
// of one key to dst.
type loader struct {
	coll  *mongo.Collection
	total int64
	batch int64
	build func(dst []byte, key int64) []byte
	// open returns one worker's inserter; nil inserts with the driver's
	// insertMany on coll.
	open func(ctx context.Context) (batchInserter, error)
	next atomic.Int64
	done atomic.Int64
}

// batchInserter is one loader worker's way to insert the documents of keys
// [first, last), and to release what it holds when the load ends.
type batchInserter interface {
	insert(ctx context.Context, first, last int64) error
	close() error
}

// run loads with the given number of parallel connections, reporting the
// documents inserted so far after every batch.
func (l *loader) run(ctx context.Context, workers int, progress func(done int64)) error {
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

func (l *loader) loadBatches(ctx context.Context, progress func(int64)) (err error) {
	ins := batchInserter(&driverInserter{l: l, docs: make([]any, 0, l.batch), opts: options.InsertMany().SetOrdered(false)})
	if l.open != nil {
		if ins, err = l.open(ctx); err != nil {
			return err
		}
	}
	defer func() { err = errors.Join(err, ins.close()) }()
	for {
		first := l.next.Add(l.batch) - l.batch
		if first >= l.total {
			return nil
		}
		last := min(first+l.batch, l.total)
		if err := ins.insert(ctx, first, last); err != nil {
			return fmt.Errorf("preload %s: %w", l.coll.Name(), err)
		}
		progress(l.done.Add(last - first))
	}
}

// driverInserter inserts a batch with one unordered insertMany, reusing
// its buffers.
type driverInserter struct {
	l    *loader
	buf  []byte
	docs []any
	opts *options.InsertManyOptionsBuilder
}

func (d *driverInserter) insert(ctx context.Context, first, last int64) error {
	d.buf, d.docs = d.l.buildBatch(d.buf[:0], d.docs[:0], first, last)
	_, err := d.l.coll.InsertMany(ctx, d.docs, d.opts)
	return err
}

func (*driverInserter) close() error { return nil }

// buildBatch appends the documents of keys [first, last) to buf and
// returns them as slices of it.
func (l *loader) buildBatch(buf []byte, docs []any, first, last int64) ([]byte, []any) {
	ends := make([]int, 0, last-first)
	for k := first; k < last; k++ {
		buf = l.build(buf, k)
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
