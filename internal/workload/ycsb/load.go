package ycsb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/mongobench/mongobench/internal/result"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/datagen"
	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/wire"
	"github.com/mongobench/mongobench/internal/workload"
	core "github.com/mongobench/mongobench/internal/ycsb"
)

// Load is YCSB's load phase of a core workload as a measured run of its
// own ("ycsb-a-load" … "ycsb-f-load"): setup only empties the table, then
// each operation inserts the next batch of batchSize records (insertcount
// from insertstart, as the ycsb workloads' setup loads them) with one
// unordered insertMany. Its one operation type is BATCH-INSERT, whose
// latency is a whole batch's. The run must be bounded to LoadBatches
// operations (mongobench load does this), with loaders workers and no
// warm-up; its tasks count the records ("docs") and BSON bytes ("bytes")
// they inserted.
type Load struct{ Workload }

var _ workload.Workload = Load{}

// BatchInsert is the load phase's operation type: one insertMany batch.
const BatchInsert = "BATCH-INSERT"

// errLoadDone is an operation asked for after every batch was claimed.
var errLoadDone = errors.New("ycsb load: every batch is loaded already")

// Name is the run workload's name and "-load".
func (w Load) Name() string { return w.Workload.Name() + "-load" }

// Summary describes the workload in one line.
func (w Load) Summary() string {
	return "YCSB load phase of workload " + w.Preset + ": batched parallel inserts of the records"
}

// Ops names the one operation type.
func (Load) Ops(spec.Params) []string { return []string{BatchInsert} }

// LoadBatches returns how many batches load the records p describes, and
// the records.
func (w Load) LoadBatches(p spec.Params) (batches, records int64, err error) {
	props, err := w.Properties(p)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", w.Name(), err)
	}
	_, records = props.InsertRange()
	return batchCount(records, p.Int("batchSize")), records, nil
}

// batchCount is how many batches of up to batch records insert records
// records.
func batchCount(records, batch int64) int64 { return (records + batch - 1) / batch }

// Prepare empties the table and decides the client; the load itself is
// the measured run. The loaders share the batch counter.
func (w Load) Prepare(ctx context.Context, env workload.Env, p spec.Params) (workload.Run, error) {
	wl, err := w.newShared(p)
	if err != nil {
		return workload.Run{}, err
	}
	if !env.Follower {
		if err := workload.ResetCollection(ctx, env.DB, wl.P.Table); err != nil {
			return workload.Run{}, err
		}
	}
	c := chooseClient(env.URI, p.String("client"))
	start, total := shareRange(wl.P, p.Int("batchSize"), env.Share)
	r := &loadRun{env: env, client: c, wl: wl, start: start, total: total, batch: p.Int("batchSize")}
	return workload.Run{Decided: c.decided(false), Tasks: r}, nil
}

// GroupReady: the clients of a group split the insert range.
func (Load) GroupReady(spec.Params) error { return nil }

// shareRange is the part of the insert range a group's client loads: a
// contiguous run of the whole range's batches (engine.Share's part of
// them, as the engine splits the operation count), so the clients load
// every record once, in the batches one client would have inserted.
func shareRange(props core.Properties, batch int64, s engine.Share) (start, count int64) {
	start, total := props.InsertRange()
	if !s.Grouped() {
		return start, total
	}
	batches := batchCount(total, batch)
	lo, hi := s.First(batches)*batch, (s.First(batches)+s.Part(batches))*batch
	return start + lo, min(total, hi) - min(total, lo)
}

// loadRun is a prepared load: the state its loaders share.
type loadRun struct {
	env    workload.Env
	client *client
	wl     *core.Workload
	start  int64 // first key number
	total  int64 // records to load
	batch  int64
	next   atomic.Int64 // next record (0-based) to claim
}

var _ workload.Tasks = (*loadRun)(nil)

// NewTask builds one loader.
func (s *loadRun) NewTask(ctx context.Context, worker int) (engine.Task, error) {
	env := s.env
	t := &loadTask{
		shared: s, coll: env.DB.Collection(s.wl.P.Table), db: env.DB.Name(),
		rb: newRecordBuilder(s.wl.P, env.Seed, worker), kw: s.wl.Worker(), rnd: datagen.Rand(env.Seed, worker),
		insert: options.InsertMany().SetOrdered(false),
	}
	if s.client.path == clientWire {
		var err error
		if t.conn, err = dialWire(ctx, s.client); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// loadTask is one loader: each Do inserts the next batch.
type loadTask struct {
	shared *loadRun
	coll   *mongo.Collection
	rb     *recordBuilder
	kw     *core.Worker
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

var _ interface {
	engine.ReplyTimed
	engine.SendTimed
	workload.Counter
} = (*loadTask)(nil)

// BeginSend starts a batch, when the wire client loads
// (engine.SendTimed).
func (t *loadTask) BeginSend() {
	if t.conn != nil {
		t.conn.BeginSend()
	}
}

// Sent is when the batch's first request was written, when the wire
// client loads (engine.SendTimed).
func (t *loadTask) Sent() (time.Time, bool) {
	if t.conn == nil {
		return time.Time{}, false
	}
	return t.conn.Sent()
}

// ReplyArrived is when the last batch's reply reached this host, when
// the wire client loads (engine.ReplyTimed).
func (t *loadTask) ReplyArrived() (time.Time, bool) {
	if t.conn == nil {
		return time.Time{}, false
	}
	return t.conn.ReplyArrived()
}

// Counts are the records and BSON bytes this loader inserted so far.
func (t *loadTask) Counts() result.Counts {
	return result.Counts{Docs: result.Ptr(t.inserted.Load()), Bytes: result.Ptr(t.bytes.Load())}
}

// Do builds and inserts the next batch.
func (t *loadTask) Do(ctx context.Context) (int, error) {
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
func (t *loadTask) doWire(ctx context.Context, first, last int64) error {
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
func (t *loadTask) Close() error {
	if t.conn == nil {
		return nil
	}
	return t.conn.Close()
}
