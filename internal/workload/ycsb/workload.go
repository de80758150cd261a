package ycsb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mongobench/mongobench/internal/result"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/datagen"
	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workload"
	core "github.com/mongobench/mongobench/internal/ycsb"
)

// Workload is one of YCSB's core workloads A–F ("ycsb-a" … "ycsb-f"): the
// preset's properties are the parameter defaults, and every property of
// YCSB's CoreWorkload can be overridden under its YCSB name. Documents are
// stored as YCSB's MongoDB binding stores them: collection usertable (the
// table property), _id the key name ("user6284781860667377211"), fields
// field0 … fieldN-1 holding binary values of the field length.
//
// Each operation is recorded once, under its own type. YCSB's own reports
// differ there: its DB wrapper also records the read and the update inside
// a READ-MODIFY-WRITE under READ and UPDATE (their latency from the
// READ-MODIFY-WRITE's intended start, their service time their own), and
// parameter measurerwparts=true records them so too, to reproduce YCSB's
// lines exactly. The parts never count as operations of their own in the
// run's throughput, operation count or error rate.
type Workload struct {
	Preset string // "a" … "f"
}

var _ workload.Workload = Workload{}

// YCSB operation types, in Ops order (core.Op's order).
var ops = []string{
	core.Read.String(), core.Update.String(), core.Insert.String(),
	core.Scan.String(), core.ReadModifyWrite.String(),
}

// errNotFound is an update that matched no record, which YCSB's
// MongoDB binding reports as NOT_FOUND (a failed operation).
var errNotFound = errors.New("ycsb: no record with that key")

// Name is "ycsb-" and the preset letter.
func (w Workload) Name() string { return "ycsb-" + w.Preset }

// Summary describes the workload in one line.
func (w Workload) Summary() string {
	switch w.Preset {
	case "a":
		return "YCSB workload A: update heavy, 50% reads / 50% updates, zipfian"
	case "b":
		return "YCSB workload B: read mostly, 95% reads / 5% updates, zipfian"
	case "c":
		return "YCSB workload C: read only, zipfian"
	case "d":
		return "YCSB workload D: read latest, 95% reads / 5% inserts, latest"
	case "e":
		return "YCSB workload E: short ranges, 95% scans / 5% inserts, zipfian"
	case "f":
		return "YCSB workload F: read-modify-write, 50% reads / 50% RMW, zipfian"
	}
	return "YCSB core workload " + w.Preset
}

// propertyParam declares one YCSB property as a parameter; get renders the
// preset's value as its default.
type propertyParam struct {
	name     string
	kind     spec.ParamKind
	min, max string
	values   []string
	help     string
	get      func(core.Properties) string
}

func i64(f func(core.Properties) int64) func(core.Properties) string {
	return func(p core.Properties) string { return strconv.FormatInt(f(p), 10) }
}

func f64(f func(core.Properties) float64) func(core.Properties) string {
	return func(p core.Properties) string { return strconv.FormatFloat(f(p), 'g', -1, 64) }
}

func fraction(name, help string, f func(core.Properties) float64) propertyParam {
	return propertyParam{name: name, kind: spec.KindFloat, min: "0", max: "1", help: help, get: f64(f)}
}

// propertyParams are every property core.Properties.Set accepts.
var propertyParams = []propertyParam{
	{name: "recordcount", kind: spec.KindInt, min: "0", help: "records in the database (keys 0..recordcount-1); 0 means 2^31-1, as YCSB",
		get: i64(func(p core.Properties) int64 { return p.RecordCount })},
	{name: "operationcount", kind: spec.KindInt, min: "0", help: "YCSB's run length; here it only sizes the zipfian key space as YCSB does (the run is bounded by --ops/--duration)",
		get: i64(func(p core.Properties) int64 { return p.OperationCount })},
	{name: "table", kind: spec.KindString, help: "collection name",
		get: func(p core.Properties) string { return p.Table }},
	{name: "fieldcount", kind: spec.KindInt, min: "1", max: "10000", help: "fields per record",
		get: i64(func(p core.Properties) int64 { return p.FieldCount })},
	{name: "fieldnameprefix", kind: spec.KindString, help: "field name prefix (field0, field1, …)",
		get: func(p core.Properties) string { return p.FieldNamePrefix }},
	{name: "fieldlength", kind: spec.KindInt, min: "0", max: "1048576", help: "field value length in bytes (the maximum for non-constant distributions)",
		get: i64(func(p core.Properties) int64 { return p.FieldLength })},
	{name: "minfieldlength", kind: spec.KindInt, min: "0", max: "1048576", help: "minimum field length (uniform and zipfian field length distributions)",
		get: i64(func(p core.Properties) int64 { return p.MinFieldLength })},
	{name: "fieldlengthdistribution", kind: spec.KindEnum, values: []string{"constant", "uniform", "zipfian"}, help: "distribution of field lengths",
		get: func(p core.Properties) string { return p.FieldLengthDistribution }},
	{name: "readallfields", kind: spec.KindBool, help: "reads and scans return every field (false: one random field)",
		get: func(p core.Properties) string { return strconv.FormatBool(p.ReadAllFields) }},
	{name: "writeallfields", kind: spec.KindBool, help: "updates $set every field (false: one random field)",
		get: func(p core.Properties) string { return strconv.FormatBool(p.WriteAllFields) }},
	fraction("readproportion", "share of READ operations", func(p core.Properties) float64 { return p.ReadProportion }),
	fraction("updateproportion", "share of UPDATE operations", func(p core.Properties) float64 { return p.UpdateProportion }),
	fraction("insertproportion", "share of INSERT operations", func(p core.Properties) float64 { return p.InsertProportion }),
	fraction("scanproportion", "share of SCAN operations", func(p core.Properties) float64 { return p.ScanProportion }),
	fraction("readmodifywriteproportion", "share of READ-MODIFY-WRITE operations", func(p core.Properties) float64 { return p.ReadModifyWriteProportion }),
	{name: "requestdistribution", kind: spec.KindEnum, values: []string{"uniform", "zipfian", "latest", "hotspot", "sequential"}, help: "key distribution of reads, updates, scans and RMW (zipfian is scrambled, constant 0.99)",
		get: func(p core.Properties) string { return p.RequestDistribution }},
	{name: "minscanlength", kind: spec.KindInt, min: "1", help: "fewest records a scan asks for",
		get: i64(func(p core.Properties) int64 { return p.MinScanLength })},
	{name: "maxscanlength", kind: spec.KindInt, min: "1", help: "most records a scan asks for",
		get: i64(func(p core.Properties) int64 { return p.MaxScanLength })},
	{name: "scanlengthdistribution", kind: spec.KindEnum, values: []string{"uniform", "zipfian"}, help: "distribution of scan lengths",
		get: func(p core.Properties) string { return p.ScanLengthDistribution }},
	{name: "insertorder", kind: spec.KindEnum, values: []string{"hashed", "ordered"}, help: "key names: hashed (FNV, YCSB's default) or in order",
		get: func(p core.Properties) string { return p.InsertOrder }},
	{name: "zeropadding", kind: spec.KindInt, min: "0", max: "64", help: "key numbers are left-padded with zeros to this many digits",
		get: func(p core.Properties) string { return strconv.Itoa(p.ZeroPadding) }},
	{name: "insertstart", kind: spec.KindInt, min: "0", help: "first key this client loads and operates on (to split a key space between clients)",
		get: i64(func(p core.Properties) int64 { return p.InsertStart })},
	{name: "insertcount", kind: spec.KindInt, min: "0", help: "keys this client loads from insertstart; 0 means recordcount - insertstart",
		get: i64(func(p core.Properties) int64 { return p.InsertCount })},
	fraction("hotspotdatafraction", "hotspot distribution: share of keys that are hot", func(p core.Properties) float64 { return p.HotspotDataFraction }),
	fraction("hotspotopnfraction", "hotspot distribution: share of operations on hot keys", func(p core.Properties) float64 { return p.HotspotOpnFraction }),
}

// PropertyNames returns the YCSB properties the workloads declare as
// parameters (every property core.Properties.Set accepts).
func PropertyNames() []string {
	names := make([]string, len(propertyParams))
	for i, d := range propertyParams {
		names[i] = d.name
	}
	return names
}

func (w Workload) preset() core.Properties {
	p, ok := core.Preset(w.Preset)
	if !ok {
		panic("workload: unknown YCSB preset " + strconv.Quote(w.Preset))
	}
	return p
}

// Params declares every YCSB property with the preset's value as its
// default, and the load phase's batch size and parallelism.
func (w Workload) Params() []spec.ParamSpec {
	preset := w.preset()
	specs := make([]spec.ParamSpec, 0, len(propertyParams)+2)
	for _, d := range propertyParams {
		specs = append(specs, spec.ParamSpec{Name: d.name, Kind: d.kind, Default: d.get(preset),
			Min: d.min, Max: d.max, Values: d.values, Help: d.help})
	}
	return append(specs,
		spec.ParamSpec{Name: "batchSize", Kind: spec.KindInt, Default: "1000", Min: "1", Max: "100000", Help: "records per insertMany in the load phase"},
		spec.ParamSpec{Name: "loaders", Kind: spec.KindInt, Default: "4", Min: "1", Max: "256", Help: "parallel load-phase connections"},
		clientParam,
		spec.ParamSpec{Name: "load", Kind: spec.KindBool, Default: "true",
			Help: "load the records before the run; false runs over the records 'mongobench load' put in the table (which must hold exactly insertcount of them)"},
		spec.ParamSpec{Name: measureRWParts, Kind: spec.KindBool, Default: "false",
			Help: "also record the read and the update inside each READ-MODIFY-WRITE under READ and UPDATE, as YCSB's DB wrapper does (their latency from the READ-MODIFY-WRITE's intended start, their service time their own); they are left out of the run's throughput, operation count and error rate"},
	)
}

// Properties converts validated parameters into YCSB properties: the
// preset, then each YCSB property given in p (core.FromParams).
func (w Workload) Properties(p spec.Params) (core.Properties, error) {
	return core.FromParams(w.Preset, p)
}

// GroupReady: a group's lead loads the records and every client runs its
// operations over all of them. Run-phase inserts are refused: each
// client's insert key sequence would start at recordcount, so the
// clients' inserts would collide.
func (w Workload) GroupReady(p spec.Params) error {
	props, err := w.Properties(p)
	if err != nil {
		return err
	}
	if props.InsertProportion > 0 {
		return fmt.Errorf("%s: insertproportion %g: a group of clients cannot share YCSB's run-phase insert key sequence; set -p insertproportion=0 or run one client", w.Name(), props.InsertProportion)
	}
	return nil
}

// Ops names the operation types as YCSB reports them.
func (Workload) Ops(spec.Params) []string { return ops }

func (w Workload) newShared(p spec.Params) (*core.Workload, error) {
	props, err := w.Properties(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w.Name(), err)
	}
	return core.New(props)
}

// Prepare decides the run's client (parameter client), then resets the
// table and runs YCSB's load phase: insertcount records from insertstart,
// in parallel unordered insertMany batches, over that client. The load is
// setup, so it is not part of the measured run. With load=false it checks
// instead that the table holds the records an earlier load put there.
//
// The run's workers share a fresh YCSB workload (its insert counter
// starts again at recordcount) and the client.
func (w Workload) Prepare(ctx context.Context, env workload.Env, p spec.Params) (workload.Run, error) {
	wl, err := w.newShared(p)
	if err != nil {
		return workload.Run{}, err
	}
	c := chooseClient(env.URI, p.String("client"))
	r := workload.Run{Decided: c.decided(false), Tasks: &run{env: env, wl: wl, client: c, parts: p.Bool(measureRWParts)}}
	_, count := wl.P.InsertRange()
	if !p.Bool("load") || env.Follower {
		if err := checkLoaded(ctx, env, wl.P.Table, count); err != nil {
			return workload.Run{}, err
		}
		r.Decided = c.decided(true)
		return r, nil
	}
	if err := load(ctx, env, p, wl, c); err != nil {
		return workload.Run{}, err
	}
	return r, nil
}

// load resets the table and loads the records of the insert range.
func load(ctx context.Context, env workload.Env, p spec.Params, wl *core.Workload, c *client) error {
	props := wl.P
	start, count := props.InsertRange()
	if err := workload.ResetCollection(ctx, env.DB, props.Table); err != nil {
		return err
	}
	rb := newRecordBuilder(props, env.Seed, -1)
	kw, rnd := wl.Worker(), datagen.Rand(env.Seed, -1)
	var mu sync.Mutex // the loaders share one builder and generator
	build := func(dst []byte, k int64) []byte {
		mu.Lock()
		defer mu.Unlock()
		return rb.appendRecord(dst, start+k, kw, rnd)
	}
	progress := func(done int64) { env.ReportProgress("load", done, count) }
	l := &workload.Loader{Coll: env.DB.Collection(props.Table), Total: count, Batch: p.Int("batchSize"), Build: build,
		DocBytes: 64 + int64(len(props.Key(start))) + props.FieldCount*(props.FieldLength+int64(len(props.FieldNamePrefix))+12)}
	if c.path == clientWire {
		l.Open = openWireInserter(c, env.DB.Name(), props.Table, build)
	}
	return l.Run(ctx, int(p.Int("loaders")), progress)
}

// settings are a YCSB run's effective settings.
type settings struct {
	// Client is the path the operations and the load take: wire or driver.
	Client string `bson:"client"`
	// LoadedBefore says the run is over records an earlier load put in
	// the table (load=false).
	LoadedBefore bool `bson:"loadedBefore,omitempty"`
}

// run is a prepared YCSB run: the state its workers share, the YCSB
// workload (with its insert counter) and the client.
type run struct {
	env    workload.Env
	wl     *core.Workload
	client *client
	parts  bool // measurerwparts
}

// measureRWParts names the parameter that records the parts of a
// READ-MODIFY-WRITE as YCSB does.
const measureRWParts = "measurerwparts"

var _ workload.Tasks = (*run)(nil)

// NewTask builds one worker's task over the run's shared workload state.
func (r *run) NewTask(ctx context.Context, worker int) (engine.Task, error) {
	env, wl := r.env, r.wl
	props := wl.P
	t := &task{
		coll:  env.DB.Collection(props.Table),
		wl:    wl,
		kw:    wl.Worker(),
		rnd:   datagen.Rand(env.Seed, worker),
		props: props,
		rb:    newRecordBuilder(props, env.Seed, worker),
		parts: r.parts,
	}
	t.oneField = make([]*options.FindOneOptionsBuilder, props.FieldCount)
	t.projections = make([]bson.Raw, props.FieldCount)
	for i, name := range t.rb.fields {
		t.projections[i] = bson.Raw(bsoncore.NewDocumentBuilder().AppendInt32(name, 1).Build())
		t.oneField[i] = options.FindOne().SetProjection(t.projections[i])
	}
	t.sortID = bson.Raw(bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).Build())
	if r.client.path == clientWire {
		return newWireTask(ctx, t, r.client, env.DB.Name())
	}
	return t, nil
}

// recordBuilder appends YCSB records and field values as BSON into the
// caller's buffers. Values are windows of a random payload.
type recordBuilder struct {
	props   core.Properties
	fields  []string
	payload []byte
	key     []byte
}

func newRecordBuilder(props core.Properties, seed int64, worker int) *recordBuilder {
	b := &recordBuilder{props: props, fields: make([]string, props.FieldCount), key: make([]byte, 0, 32)}
	for i := range b.fields {
		b.fields[i] = props.FieldNamePrefix + strconv.Itoa(i)
	}
	b.payload = datagen.Payload(int(props.FieldLength)+4096, uint64(seed)+uint64(worker)+11)
	return b
}

// appendKey sets b.key to the name of key number keynum.
func (b *recordBuilder) appendKey(keynum int64) {
	b.key = core.AppendKeyName(b.key[:0], keynum, b.props.ZeroPadding, b.props.Ordered())
}

// appendRecord appends the whole record of key number keynum.
func (b *recordBuilder) appendRecord(dst []byte, keynum int64, kw *core.Worker, r *rand.Rand) []byte {
	b.appendKey(keynum)
	idx, dst := bsoncore.AppendDocumentStart(dst)
	dst = appendStringBytes(dst, "_id", b.key)
	for _, name := range b.fields {
		dst = b.appendValue(dst, name, kw, r)
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// appendValue appends one field with a value of the next field length.
// appendSet appends an update's $set: new values of every field, or of
// one random field.
func (b *recordBuilder) appendSet(dst []byte, all bool, kw *core.Worker, r *rand.Rand) []byte {
	set, dst := bsoncore.AppendDocumentElementStart(dst, "$set")
	if all {
		for _, name := range b.fields {
			dst = b.appendValue(dst, name, kw, r)
		}
	} else {
		dst = b.appendValue(dst, b.fields[kw.Field(r)], kw, r)
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, set)
	return dst
}

func (b *recordBuilder) appendValue(dst []byte, name string, kw *core.Worker, r *rand.Rand) []byte {
	n := int(min(max(kw.FieldLength(r), 0), b.props.FieldLength))
	off := r.IntN(len(b.payload) - n + 1)
	return bsoncore.AppendBinaryElement(dst, name, 0, b.payload[off:off+n])
}

// appendStringBytes appends a string element whose value is in a byte
// slice, without converting it to a string.
func appendStringBytes(dst []byte, key string, val []byte) []byte {
	dst = bsoncore.AppendHeader(dst, bsoncore.TypeString, key)
	dst = bsoncore.AppendInt32(dst, int32(len(val)+1))
	dst = append(dst, val...)
	return append(dst, 0)
}

// task is one worker's YCSB operations. Filters, updates and records
// are appended into reused buffers.
type task struct {
	coll        *mongo.Collection
	wl          *core.Workload
	kw          *core.Worker
	rnd         *rand.Rand
	props       core.Properties
	rb          *recordBuilder
	oneField    []*options.FindOneOptionsBuilder // projection of field i
	projections []bson.Raw
	sortID      bson.Raw
	filter      []byte
	doc         []byte
	scanned     atomic.Int64 // records returned by scans; read while the worker runs
	notFound    atomic.Int64
	// parts is set (measurerwparts) to record the read and the update
	// of a READ-MODIFY-WRITE as operations of their own type too; rec is
	// the engine's recorder of them.
	parts bool
	rec   *engine.Parts
}

var _ engine.PartsTask = (*task)(nil)

// UseParts takes the engine's recorder of the parts of operations, when
// the run records them.
func (t *task) UseParts(p *engine.Parts) {
	if t.parts {
		t.rec = p
	}
}

// partSent is when a part of a READ-MODIFY-WRITE is sent, when parts are
// recorded (measurerwparts); zero otherwise.
func (t *task) partSent() time.Time {
	if t.rec == nil {
		return time.Time{}
	}
	return time.Now()
}

// partDone records a part of a READ-MODIFY-WRITE under op, when parts are
// recorded. A READ-MODIFY-WRITE reads, then updates unless the read
// failed, as YCSB's doTransactionReadModifyWrite does; its DB wrapper
// records each call.
func (t *task) partDone(op core.Op, sent time.Time, err error) {
	if t.rec != nil {
		t.rec.Record(int(op), sent, err)
	}
}

// Counts reports the records scans returned and the reads and updates
// that found no record.
func (t *task) Counts() result.Counts {
	return result.Counts{Scanned: result.Ptr(t.scanned.Load()), NotFound: result.Ptr(t.notFound.Load())}
}

// Do performs the next operation of the mix through the driver and
// returns its index in Ops (do).
func (t *task) Do(ctx context.Context) (int, error) { return t.do(ctx, t) }

// operations are a worker's YCSB operations on one client: the driver
// (task) or the wire client (wireTask).
type operations interface {
	read(ctx context.Context, keynum int64) error
	update(ctx context.Context, keynum int64) error
	insert(ctx context.Context) error
	scan(ctx context.Context, keynum int64) error
}

// do performs the next operation of the mix on ops, the one dispatch of
// both clients (so a seed draws the same operations and keys on either),
// and returns its index in Ops; a read-modify-write's read and update
// are recorded as its parts.
func (t *task) do(ctx context.Context, ops operations) (int, error) {
	op := t.kw.NextOp(t.rnd)
	var err error
	switch op {
	case core.Read:
		err = ops.read(ctx, t.kw.NextKeynum(t.rnd))
	case core.Update:
		err = ops.update(ctx, t.kw.NextKeynum(t.rnd))
	case core.Insert:
		err = ops.insert(ctx)
	case core.Scan:
		err = ops.scan(ctx, t.kw.NextKeynum(t.rnd))
	case core.ReadModifyWrite:
		keynum := t.kw.NextKeynum(t.rnd)
		sent := t.partSent()
		err = ops.read(ctx, keynum)
		t.partDone(core.Read, sent, err)
		if err == nil {
			sent = t.partSent()
			err = ops.update(ctx, keynum)
			t.partDone(core.Update, sent, err)
		}
	default:
		return 0, fmt.Errorf("ycsb: unknown operation %v", op)
	}
	return int(op), err
}

// keyFilter builds {_id: key} into t.filter.
func (t *task) keyFilter(keynum int64) bson.Raw {
	t.rb.appendKey(keynum)
	idx, dst := bsoncore.AppendDocumentStart(t.filter[:0])
	dst = appendStringBytes(dst, "_id", t.rb.key)
	t.filter, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return bson.Raw(t.filter)
}

// read finds the record by _id: every field, or one random field.
func (t *task) read(ctx context.Context, keynum int64) error {
	filter := t.keyFilter(keynum)
	var res *mongo.SingleResult
	if t.props.ReadAllFields {
		res = t.coll.FindOne(ctx, filter)
	} else {
		res = t.coll.FindOne(ctx, filter, t.oneField[t.kw.Field(t.rnd)])
	}
	_, err := res.Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		t.notFound.Add(1)
	}
	return err
}

// update $sets every field or one random field with new values.
func (t *task) update(ctx context.Context, keynum int64) error {
	filter := t.keyFilter(keynum)
	idx, dst := bsoncore.AppendDocumentStart(t.doc[:0])
	dst = t.rb.appendSet(dst, t.props.WriteAllFields, t.kw, t.rnd)
	t.doc, _ = bsoncore.AppendDocumentEnd(dst, idx)
	res, err := t.coll.UpdateOne(ctx, filter, bson.Raw(t.doc))
	if err != nil {
		return err
	}
	if res.Acknowledged && res.MatchedCount == 0 {
		t.notFound.Add(1)
		return errNotFound
	}
	return nil
}

// insert inserts the record of the next insert key number. The key is
// acknowledged once the insert returns, whether it succeeded or not, as
// YCSB does (in a finally block), so the latest distribution and the
// bound on chosen keys follow the inserts.
func (t *task) insert(ctx context.Context) error {
	keynum := t.wl.Inserts.Next()
	t.doc = t.rb.appendRecord(t.doc[:0], keynum, t.kw, t.rnd)
	_, err := t.coll.InsertOne(ctx, bson.Raw(t.doc))
	if ackErr := t.wl.Inserts.Acknowledge(keynum); err == nil {
		err = ackErr
	}
	return err
}

// scan reads up to the next scan length records from the start key in
// _id order, the whole result.
func (t *task) scan(ctx context.Context, keynum int64) error {
	t.rb.appendKey(keynum)
	idx, dst := bsoncore.AppendDocumentStart(t.filter[:0])
	gte, dst := bsoncore.AppendDocumentElementStart(dst, "_id")
	dst = appendStringBytes(dst, "$gte", t.rb.key)
	dst, _ = bsoncore.AppendDocumentEnd(dst, gte)
	t.filter, _ = bsoncore.AppendDocumentEnd(dst, idx)
	n := t.kw.ScanLength(t.rnd)
	opts := options.Find().SetSort(t.sortID).SetLimit(n).SetBatchSize(int32(min(n, math.MaxInt32)))
	if !t.props.ReadAllFields {
		opts.SetProjection(t.projections[t.kw.Field(t.rnd)])
	}
	cur, err := t.coll.Find(ctx, bson.Raw(t.filter), opts)
	if err != nil {
		return err
	}
	var got int64
	for cur.Next(ctx) {
		got++
	}
	err = cur.Err()
	if cerr := cur.Close(ctx); err == nil {
		err = cerr
	}
	t.scanned.Add(int64(got))
	if err == nil && got > n {
		err = fmt.Errorf("ycsb: scan returned %d records, asked for at most %d", got, n)
	}
	return err
}

// checkLoaded makes sure the table holds the records a run over an
// earlier load expects: exactly count of them (a run that inserted grows
// the table, and its inserts would collide with the next run's).
func checkLoaded(ctx context.Context, env workload.Env, table string, count int64) error {
	n, err := env.DB.Collection(table).CountDocuments(ctx, bson.D{})
	if err != nil {
		return fmt.Errorf("count %s: %w", table, err)
	}
	if n != count {
		return fmt.Errorf("load=false: %s holds %d records, the run expects %d: load them with 'mongobench load' and the same recordcount/insertstart/insertcount", table, n, count)
	}
	return nil
}
