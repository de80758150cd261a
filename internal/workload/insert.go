package workload

import (
	"context"
	crand "crypto/rand"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/datagen"
	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
)

// Insert measures ingest: every operation is one unordered insertMany of
// batchSize new documents of docSize bytes, with an _id of the chosen kind
// and secondaryIndexes indexed random integer fields. Prepare recreates the
// collection with its indexes and preloads preload documents.
type Insert struct{}

var _ Workload = Insert{}

// InsertCollection is the collection the insert workload writes.
const InsertCollection = "ingest"

// _id kinds of the insert workload (the reference document's names).
const (
	IDObjectID   = "OBJECT_ID"
	IDUUID       = "UUID"
	IDBusinessID = "BUSINESS_ID"
)

// maxIndexedFields is how many random integer fields a document carries,
// so any number of secondary indexes up to it can be built.
const maxIndexedFields = 16

// Name is "insert".
func (Insert) Name() string { return "insert" }

// Summary describes the workload in one line.
func (Insert) Summary() string {
	return "ingest: unordered insertMany batches of new documents (size, batch, _id kind, secondary indexes)"
}

// Params declares the insert parameters.
func (Insert) Params() []spec.ParamSpec {
	return []spec.ParamSpec{
		{Name: "docSize", Kind: spec.KindSize, Default: "4KB", Min: "256B", Max: "16MB", Help: "BSON size of each document"},
		{Name: "batchSize", Kind: spec.KindInt, Default: "1000", Min: "1", Max: "100000", Help: "documents per insertMany (the client write batch)"},
		{Name: "idType", Kind: spec.KindEnum, Values: []string{IDObjectID, IDUUID, IDBusinessID}, Help: "_id kind: ObjectId, random UUID, or ACC+5-digit account+8 hex of time"},
		{Name: "secondaryIndexes", Kind: spec.KindInt, Default: "0", Min: "0", Max: "16", Help: "secondary indexes, each on a random integer field"},
		{Name: "preload", Kind: spec.KindInt, Default: "0", Min: "0", Help: "documents inserted before the measured phase (not measured)"},
		{Name: "loaders", Kind: spec.KindInt, Default: "4", Min: "1", Max: "256", Help: "parallel preload connections"},
		ClientParam,
	}
}

// Ops names the one operation type: a batch insert.
func (Insert) Ops(spec.Params) []string { return []string{"insert"} }

// Prepare recreates the collection with its indexes, then preloads, and
// decides the client of the batches (parameter client). The workers
// share nothing but the client choice.
func (w Insert) Prepare(ctx context.Context, env Env, p spec.Params) (Run, error) {
	if err := w.setup(ctx, env, p); err != nil {
		return Run{}, err
	}
	return clientRun(env, p, w.Name(), w.newTask), nil
}

func (Insert) setup(ctx context.Context, env Env, p spec.Params) error {
	if err := ResetCollection(ctx, env.DB, InsertCollection); err != nil {
		return err
	}
	coll := env.DB.Collection(InsertCollection)
	if err := createIndexes(ctx, coll, int(p.Int("secondaryIndexes"))); err != nil {
		return err
	}
	n := p.Int("preload")
	if n == 0 {
		return nil
	}
	g := newInsertGen(p, env.Seed, -1)
	var mu sync.Mutex // the loaders share one generator
	l := &Loader{Coll: coll, Total: n, Batch: p.Int("batchSize"), Build: func(dst []byte, _ int64) []byte {
		mu.Lock()
		defer mu.Unlock()
		return g.appendDoc(dst)
	}}
	return l.Run(ctx, int(p.Int("loaders")), func(done int64) { env.ReportProgress("preload", done, n) })
}

func createIndexes(ctx context.Context, coll *mongo.Collection, n int) error {
	if n == 0 {
		return nil
	}
	models := make([]mongo.IndexModel, n)
	for i := range n {
		models[i] = mongo.IndexModel{Keys: bson.D{{Key: indexedField(i), Value: 1}}}
	}
	if _, err := coll.Indexes().CreateMany(ctx, models); err != nil {
		return fmt.Errorf("create %d secondary indexes: %w", n, err)
	}
	return nil
}

func indexedField(i int) string { return fmt.Sprintf("i%d", i) }

// newTask builds one worker's batch inserter, over its own wire
// connection on the wire path.
func (Insert) newTask(ctx context.Context, env Env, p spec.Params, c Client, worker int) (engine.Task, error) {
	w, err := c.dial(ctx, env.DB.Name(), InsertCollection)
	if err != nil {
		return nil, err
	}
	return &insertTask{
		wireTimed: wireTimed{wire: w},
		coll:      env.DB.Collection(InsertCollection), gen: newInsertGen(p, env.Seed, worker),
		batch: int(p.Int("batchSize")), docs: make([]any, 0, p.Int("batchSize")),
		opts: options.InsertMany().SetOrdered(false),
	}, nil
}

// insertTask inserts one batch per operation, reusing its buffers, over
// the wire client (wire set: the documents are appended straight into
// the message) or the driver.
type insertTask struct {
	wireTimed
	coll  *mongo.Collection
	gen   *insertGen
	batch int
	buf   []byte
	docs  []any
	opts  *options.InsertManyOptionsBuilder
}

// Do inserts one batch of new documents.
func (t *insertTask) Do(ctx context.Context) (int, error) {
	if t.wire != nil {
		return 0, t.wire.insertMany(ctx, t.batch, false, t.gen.appendDoc)
	}
	ends := make([]int, 0, t.batch)
	t.buf = t.buf[:0]
	for range t.batch {
		t.buf = t.gen.appendDoc(t.buf)
		ends = append(ends, len(t.buf))
	}
	t.docs = t.docs[:0]
	start := 0
	for _, end := range ends {
		t.docs = append(t.docs, bson.Raw(t.buf[start:end]))
		start = end
	}
	_, err := t.coll.InsertMany(ctx, t.docs, t.opts)
	return 0, err
}

// Close closes the worker's wire connection, if it has one.
func (t *insertTask) Close() error { return closeWire(t.wire) }

// insertGen makes new documents: a unique _id of the chosen kind, the
// random integer fields, and a payload window that fills the size. It
// appends BSON directly, so a document costs no allocation.
type insertGen struct {
	idType  string
	rnd     *rand.Rand
	payload []byte
	fill    int
}

// indexedNames are the random integer fields' names, made once.
var indexedNames = func() []string {
	names := make([]string, maxIndexedFields)
	for i := range names {
		names[i] = indexedField(i)
	}
	return names
}()

func newInsertGen(p spec.Params, seed int64, worker int) *insertGen {
	g := &insertGen{idType: p.String("idType"), rnd: datagen.Rand(seed, worker+1000)}
	bare := len(g.build(nil, nil))
	g.fill = max(0, int(p.Size("docSize"))-bare)
	g.payload = datagen.Payload(g.fill+4096, uint64(seed)+uint64(worker)+7)
	return g
}

// appendDoc appends one new document of the configured size.
func (g *insertGen) appendDoc(dst []byte) []byte {
	off := g.rnd.IntN(4096)
	return g.build(dst, g.payload[off:off+g.fill])
}

func (g *insertGen) build(dst, payload []byte) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	dst = g.appendID(dst)
	for _, name := range indexedNames {
		dst = bsoncore.AppendInt64Element(dst, name, g.rnd.Int64())
	}
	dst = bsoncore.AppendBinaryElement(dst, "payload", 0, payload)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// accounts numbers business keys across every generator of the process.
var accounts atomic.Int64

// appendID appends a new _id of the configured kind. A business key is
// "ACC" + a 5-digit account + 8 hex digits of the time in milliseconds;
// the running account number keeps keys unique up to 100,000 a
// millisecond.
func (g *insertGen) appendID(dst []byte) []byte {
	switch g.idType {
	case IDUUID:
		var u [16]byte
		_, _ = crand.Read(u[:]) // crypto/rand.Read never fails
		u[6] = u[6]&0x0f | 0x40
		u[8] = u[8]&0x3f | 0x80
		return bsoncore.AppendBinaryElement(dst, "_id", 4, u[:])
	case IDBusinessID:
		key := fmt.Sprintf("ACC%05d%08x", accounts.Add(1)%100000, uint32(time.Now().UnixMilli()))
		return bsoncore.AppendStringElement(dst, "_id", key)
	}
	return bsoncore.AppendObjectIDElement(dst, "_id", bson.NewObjectID())
}
