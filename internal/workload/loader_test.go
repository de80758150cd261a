package workload_test

import (
	"context"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workload"
)

// TestLoadShape bounds a preload's batches by bytes as well as keys, and
// the loaders that run at once by their batches' bytes together.
func TestLoadShape(t *testing.T) {
	tests := []struct {
		batch       int64
		workers     int
		doc         int64
		keys        int64
		loadersOnce int
	}{
		{1000, 4, 1024, 1000, 4},
		{1000, 4, 0, 1000, 4},                                 // size unknown: as asked
		{1000, 4, 16 << 20, 1, 4},                             // 16MB documents: one a batch
		{1000, 256, 16 << 20, 1, 16},                          // 256 loaders of 16MB: 16 at once
		{100000, 256, 1024, 16384, 16},                        // 16MB batches of 1KB documents
		{1, 1, 64 << 20, 1, 1},                                // larger than the bound: one document, one loader
		{0, 0, 100, 1, 1},                                     // at least one key and one loader
		{1000, 8, 1 << 20, 16, 8},                             // 1MB documents: 16 a batch, 8 × 16MB = 128MB
		{1000, 32, 1 << 20, 16, int(spec.MaxLoadBytes >> 24)}, // 32 × 16MB would pass 256MB
	}
	for _, tc := range tests {
		keys, n := workload.LoadShape(tc.batch, tc.workers, tc.doc)
		if keys != tc.keys || n != tc.loadersOnce {
			t.Errorf("LoadShape(%d, %d, %d) = %d keys, %d loaders; want %d, %d", tc.batch, tc.workers, tc.doc, keys, n, tc.keys, tc.loadersOnce)
		}
	}
}

// rangeInserter records the batches it is handed and how many inserters
// are open at once.
type rangeInserter struct {
	mu         *sync.Mutex
	open, most *int
	largest    *int64
	inserted   *int64
}

func (r rangeInserter) Insert(_ context.Context, first, last int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.largest = max(*r.largest, last-first)
	*r.inserted += last - first
	return nil
}

func (r rangeInserter) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.open--
	return nil
}

// TestLoaderBoundsBatchesByDocBytes loads 16MB documents with the
// default batch of 1000 and 256 loaders asked for: each batch is one
// document, and 16 loaders run.
func TestLoaderBoundsBatchesByDocBytes(t *testing.T) {
	var mu sync.Mutex
	var open, most int
	var largest, inserted int64
	l := &workload.Loader{Total: 100, Batch: 1000, DocBytes: int64(16 * spec.MB),
		Open: func(context.Context) (workload.BatchInserter, error) {
			mu.Lock()
			defer mu.Unlock()
			open++
			most = max(most, open)
			return rangeInserter{mu: &mu, open: &open, most: &most, largest: &largest, inserted: &inserted}, nil
		}}
	var last int64
	if err := l.Run(context.Background(), 256, func(done int64) { last = max(last, done) }); err != nil {
		t.Fatal(err)
	}
	if largest != 1 || most > 16 || inserted != 100 || last != 100 {
		t.Errorf("got batches of up to %d keys, %d inserters at once, %d inserted (progress %d); want 1, <= 16, 100, 100", largest, most, inserted, last)
	}
}

// TestLoaderStreamsLargeDocuments preloads 4MB documents with a batch of
// 1000 over the driver: the documents of one insertMany never pass
// spec.MaxBatchBytes (plus the document that crosses it), every document
// is inserted, and the document size is learnt from the first batch.
func TestLoaderStreamsLargeDocuments(t *testing.T) {
	db := ownedDB(t)
	payload := make([]byte, 4<<20)
	var mu sync.Mutex
	var pending int // bytes already built into the batch when Build is called
	l := &workload.Loader{Coll: db.Collection("big"), Total: 24, Batch: 1000,
		Build: func(dst []byte, k int64) []byte {
			mu.Lock()
			pending = max(pending, len(dst))
			mu.Unlock()
			idx, dst := bsoncore.AppendDocumentStart(dst)
			dst = bsoncore.AppendInt64Element(dst, "_id", k)
			dst = bsoncore.AppendBinaryElement(dst, "p", 0, payload)
			dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
			return dst
		}}
	if err := l.Run(context.Background(), 4, func(int64) {}); err != nil {
		t.Fatal(err)
	}
	n, err := db.Collection("big").CountDocuments(context.Background(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	if n != 24 || pending >= int(spec.MaxBatchBytes) {
		t.Errorf("got %d documents, up to %d bytes pending in a batch; want 24, < %d", n, pending, spec.MaxBatchBytes)
	}
}
