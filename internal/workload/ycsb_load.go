package workload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/datagen"
	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/wire"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// YCSBLoad is YCSB's load phase of a core workload as a measured run of
// its own ("ycsb-a-load" … "ycsb-f-load"): setup only empties the table,
// then each operation inserts the next batch of batchSize records
// (insertcount from insertstart, as the ycsb workloads' setup loads them)
// with one unordered insertMany. Its one operation type is BATCH-INSERT,
// whose latency is a whole batch's. The run must be bounded to
// LoadBatches operations (mongobench load does this), with loaders workers
// and no warm-up; its tasks count the records ("docs") and BSON bytes
// ("bytes") they inserted.
type YCSBLoad struct{ YCSB }

var _ Workload = YCSBLoad{}

// BatchInsert is the load phase's operation type: one insertMany batch.
const BatchInsert = "BATCH-INSERT"

// errLoadDone is an operation asked for after every batch was claimed.
var errLoadDone = errors.New("ycsb load: every batch is loaded already")

// ycsbLoadShared is the Notes key of the load's shared batch counter.
const ycsbLoadShared = "ycsbLoad"

// YCSBLoads returns the registry of the load phases of YCSB A–F.
func YCSBLoads() *Registry {
	var ws []Workload
	for _, p := range []string{"a", "b", "c", "d", "e", "f"} {
		ws = append(ws, YCSBLoad{YCSB{Preset: p}})
	}
	return NewRegistry(ws...)
}

// Name is the run workload's name and "-load".
func (w YCSBLoad) Name() string { return w.YCSB.Name() + "-load" }

// Summary describes the workload in one line.
func (w YCSBLoad) Summary() string {
	return "YCSB load phase of workload " + w.Preset + ": batched parallel inserts of the records"
}

// Ops names the one operation type.
func (YCSBLoad) Ops(spec.Params) []string { return []string{BatchInsert} }

// LoadBatches returns how many batches load the records p describes, and
// the records.
func (w YCSBLoad) LoadBatches(p spec.Params) (batches, records int64, err error) {
	props, err := w.Properties(p)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", w.Name(), err)
	}
	_, records = props.InsertRange()
	batch := p.Int("batchSize")
	return (records + batch - 1) / batch, records, nil
}

// ycsbLoad is the state the load's tasks share.
type ycsbLoad struct {
	wl    *ycsb.Workload
	start int64 // first key number
	total int64 // records to load
	batch int64
	next  atomic.Int64 // next record (0-based) to claim
}

// Setup empties the table; the load itself is the measured run.
func (w YCSBLoad) Setup(ctx context.Context, env Env, p spec.Params) error {
	wl, err := w.newShared(p)
	if err != nil {
		return err
	}
	start, total := wl.P.InsertRange()
	if env.Notes != nil {
		env.Notes.setShared(ycsbLoadShared, &ycsbLoad{wl: wl, start: start, total: total, batch: p.Int("batchSize")})
	}
	return ResetCollection(ctx, env.DB, wl.P.Table)
}

// NewTask builds one loader.
func (w YCSBLoad) NewTask(env Env, p spec.Params, worker int) (engine.Task, error) {
	if env.Notes == nil {
		return nil, fmt.Errorf("%s: Env.Notes is needed to share the batch counter between loaders", w.Name())
	}
	v, err := env.Notes.sharedOrNew(ycsbLoadShared, func() (any, error) {
		wl, err := w.newShared(p)
		if err != nil {
			return nil, err
		}
		start, total := wl.P.InsertRange()
		return &ycsbLoad{wl: wl, start: start, total: total, batch: p.Int("batchSize")}, nil
	})
	if err != nil {
		return nil, err
	}
	s, ok := v.(*ycsbLoad)
	if !ok {
		return nil, fmt.Errorf("%s: shared state is %T", w.Name(), v)
	}
	t := &ycsbLoadTask{
		shared: s, coll: env.DB.Collection(s.wl.P.Table), db: env.DB.Name(),
		rb: newRecordBuilder(s.wl.P, env.Seed, worker), kw: s.wl.Worker(), rnd: datagen.Rand(env.Seed, worker),
		insert: options.InsertMany().SetOrdered(false),
	}
	if c := chooseClient(env, p); c.path == clientWire {
		if t.conn, err = dialWire(context.Background(), c); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// ycsbLoadTask is one loader: each Do inserts the next batch.
type ycsbLoadTask struct {
	shared *ycsbLoad
	coll   *mongo.Collection
	rb     *recordBuilder
	kw     *ycsb.Worker
	rnd    *rand.Rand
	insert *options.InsertManyOptionsBuilder
	// conn is the loader's wire connection; nil when the driver loads.
	conn *wire.Conn
	db   string
	buf  []byte
	docs []any
	ends []int
	// inserted and bytes count this loader's records and BSON bytes.
	inserted, bytes atomic.Int64
}

var _ Counter = (*ycsbLoadTask)(nil)

// Counts are the records and BSON bytes this loader inserted so far.
func (t *ycsbLoadTask) Counts() map[string]int64 {
	return map[string]int64{"docs": t.inserted.Load(), "bytes": t.bytes.Load()}
}

// Do builds and inserts the next batch.
func (t *ycsbLoadTask) Do(ctx context.Context) (int, error) {
	s := t.shared
	first := s.next.Add(s.batch) - s.batch
	if first >= s.total {
		return 0, errLoadDone
	}
	last := min(first+s.batch, s.total)
	if t.conn != nil {
		return 0, t.doWire(ctx, first, last)
	}
	t.buf, t.docs, t.ends = t.buf[:0], t.docs[:0], t.ends[:0]
	for k := first; k < last; k++ {
		t.buf = t.rb.appendRecord(t.buf, s.start+k, t.kw, t.rnd)
		t.ends = append(t.ends, len(t.buf))
	}
	begin := 0
	for _, end := range t.ends {
		t.docs = append(t.docs, bson.Raw(t.buf[begin:end]))
		begin = end
	}
	if _, err := t.coll.InsertMany(ctx, t.docs, t.insert); err != nil {
		return 0, err
	}
	t.inserted.Add(last - first)
	t.bytes.Add(int64(len(t.buf)))
	return 0, nil
}

// doWire inserts records first..last over the loader's wire connection,
// in as many messages as their size needs.
func (t *ycsbLoadTask) doWire(ctx context.Context, first, last int64) error {
	s := t.shared
	var bytes int64
	build := func(dst []byte, k int64) []byte {
		n := len(dst)
		dst = t.rb.appendRecord(dst, s.start+k, t.kw, t.rnd)
		bytes += int64(len(dst) - n)
		return dst
	}
	if err := wireInsertRange(ctx, t.conn, t.db, s.wl.P.Table, first, last, build); err != nil {
		return err
	}
	t.inserted.Add(last - first)
	t.bytes.Add(bytes)
	return nil
}

// Close closes the loader's wire connection, if it has one.
func (t *ycsbLoadTask) Close() error {
	if t.conn == nil {
		return nil
	}
	return t.conn.Close()
}
