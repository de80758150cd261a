package workload

import (
	"context"
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
	next  atomic.Int64
	done  atomic.Int64
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

func (l *loader) loadBatches(ctx context.Context, progress func(int64)) error {
	var buf []byte
	docs := make([]any, 0, l.batch)
	insert := options.InsertMany().SetOrdered(false)
	for {
		first := l.next.Add(l.batch) - l.batch
		if first >= l.total {
			return nil
		}
		last := min(first+l.batch, l.total)
		buf, docs = l.buildBatch(buf[:0], docs[:0], first, last)
		if _, err := l.coll.InsertMany(ctx, docs, insert); err != nil {
			return fmt.Errorf("preload %s: %w", l.coll.Name(), err)
		}
		progress(l.done.Add(last - first))
	}
}

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
