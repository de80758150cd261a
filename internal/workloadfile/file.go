package workloadfile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// A File is a checked workload file: its collections and its mix of
// operations, compiled into generators.
type File struct {
	// Name is the file's name: its name key, else its base name without
	// the extension.
	Name        string
	Description string
	// Text is the file as read, and Hash its SHA-256 in hex: a run stores
	// both, so it can be run again exactly.
	Text        []byte
	Hash        string
	Collections []*Collection
	Ops         []*Op
	// Audit is what the run checks in the data after its operations
	// (nil: nothing).
	Audit *Audit

	zipfs     []*ycsb.Zipfian // per-worker distributions, cloned by NewGen
	maxValues int             // the most values an operation shares
	epoch     uint32          // seconds of the seeded ObjectIds
	seqs      []*atomic.Int64 // the sequences' shared counters
	exprs     int             // how many !expr it compiled
}

// A Collection is one collection the file seeds and its operations use.
type Collection struct {
	Name string
	// Seed is how many documents the seed phase writes.
	Seed int64
	// Doc is the shape of its documents (nil: none given).
	Doc  *Template
	noID *Template // Doc without its _id: a replacement's
	// Indexes are the createIndexes "indexes" entries, created before the
	// seed phase.
	Indexes [][]byte
	salt    uint64
	id      keyed // the _id generator, when seeded documents can be named
	broken  bool  // it has problems, reported: what names it says no more
}

// Op is one named operation of the mix.
type Op struct {
	Name string
	Kind string // find, findOne, aggregate, insertOne, …
	Coll *Collection
	// Weight is the operation's share of operations started, relative to
	// the others'.
	Weight float64
	// The parts of the command; nil when not given.
	Filter, Projection, Sort, Update, Replacement, Document, Pipeline *Template
	// Hint is an index name (a string) or key pattern (a document), as a
	// BSON value of type HintType; nil when not given.
	Hint     []byte
	HintType byte
	Limit    int64
	Skip     int64
	// Count is insertMany's number of documents.
	Count        *dist
	Upsert       bool
	Ordered      bool
	AllowDiskUse bool
	// ReadConcern is a read's level ("" when not given); WriteConcern a
	// write's (nil when not given).
	ReadConcern  string
	WriteConcern *WriteConcern
	// ReadPreference is a read's (nil: the connection string's).
	ReadPreference *ReadPreference
	// ReturnNew says a findOneAndUpdate or findOneAndReplace returns the
	// document after the write (returnDocument: after).
	ReturnNew bool
	// Key is a distinct's field.
	Key string
	// Writes are a bulkWrite's models, each an operation of kind
	// insertOne, updateOne, updateMany, replaceOne, deleteOne or
	// deleteMany on its collection; Namespaces are their collections, in
	// the order of first use (a model's ns is its index there).
	Writes     []*Op
	Namespaces []*Collection
	ns         int
	// Steps are a transaction's operations, which share its values;
	// MaxCommitTime bounds each commit (0: no bound) and MaxRetries the
	// retries of the whole transaction, and of its commit.
	Steps         []*Op
	MaxCommitTime time.Duration
	MaxRetries    int
	values        []namedValue
}

type namedValue struct {
	name string
	gen  node
}

// WriteConcern is an operation's write concern.
type WriteConcern struct {
	W any   // int64 or string ("majority", a tag set's name); nil: not given
	J *bool // nil: not given
}

// Doc is the write concern as a BSON document.
func (w *WriteConcern) Doc() []byte {
	at, dst := startDoc(nil)
	switch v := w.W.(type) {
	case int64:
		dst = appendInt32(header(dst, typeInt32, "w"), int32(v))
	case string:
		dst = appendString(header(dst, typeString, "w"), v)
	}
	if w.J != nil {
		dst = appendBool(header(dst, typeBool, "j"), *w.J)
	}
	return endDoc(dst, at)
}

// ReadConcernDoc is the read concern as a BSON document, nil when none
// is given.
func (o *Op) ReadConcernDoc() []byte {
	if o.ReadConcern == "" {
		return nil
	}
	at, dst := startDoc(nil)
	dst = appendString(header(dst, typeString, "level"), o.ReadConcern)
	return endDoc(dst, at)
}

// Write says whether the operation writes (a transaction: whether a
// step writes).
func (o *Op) Write() bool {
	if o.Kind == "transaction" {
		return slices.ContainsFunc(o.Steps, (*Op).Write)
	}
	return !reads[o.Kind]
}

// Documents draws how many documents an insertMany inserts.
func (o *Op) Documents(g *Gen) int {
	if o.Count == nil {
		return 1
	}
	return int(o.Count.next(g))
}

// ReadFile reads and checks a workload file.
func ReadFile(path string) (*File, error) {
	data, err := bounded.ReadFile(path, bounded.WorkloadFile)
	if err != nil {
		return nil, fmt.Errorf("read workload file: %w", err)
	}
	return Parse(path, data)
}

// Parse checks a workload file's text and compiles it. The error, if
// any, joins every problem found, each located file:line:column.
func Parse(name string, data []byte) (*File, error) {
	return ParseContext(context.Background(), name, data)
}

// ParseContext is Parse that stops with ctx's error when ctx ends first
// (the check's draws of a large file take a while).
func ParseContext(ctx context.Context, name string, data []byte) (*File, error) {
	p := &parser{file: name, ctx: ctx}
	sum := sha256.Sum256(data)
	f := &File{Text: data, Hash: hex.EncodeToString(sum[:]), epoch: uint32(time.Now().Unix())}
	f.Name = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	p.f = f
	p.parse(data)
	p.unplacedPads()
	if len(p.errs) == 0 {
		p.checkDrawn()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := join(p.errs); err != nil {
		return nil, err
	}
	return f, nil
}

// Reset prepares a run that starts at t: the sequences start again after
// the seed, and the ObjectIds the seed phase writes (and that !key
// names) carry t. Call it before the seed phase, with no Gen in use.
func (f *File) Reset(t time.Time) {
	f.epoch = uint32(t.Unix())
	for _, c := range f.seqs {
		c.Store(0)
	}
}

// Collection returns the named collection.
func (f *File) Collection(name string) *Collection {
	for _, c := range f.Collections {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// OpNames names the operations, in the order of the file.
func (f *File) OpNames() []string {
	names := make([]string, len(f.Ops))
	for i, o := range f.Ops {
		names[i] = o.Name
	}
	return names
}

// Mix is each operation's share of operations started, by name.
func (f *File) Mix() map[string]float64 {
	cum := cumulative(f.weights())
	m := make(map[string]float64, len(f.Ops))
	for i, o := range f.Ops {
		prev := 0.0
		if i > 0 {
			prev = cum[i-1]
		}
		m[o.Name] = (cum[i] - prev) / cum[len(cum)-1]
	}
	return m
}

func (f *File) weights() []float64 {
	w := make([]float64, len(f.Ops))
	for i, o := range f.Ops {
		w[i] = o.Weight
	}
	return w
}

// cumulative is the running sum of weights, each first divided by the
// largest, so no sum overflows however large the weights (two weights
// of 1e308 are half each).
func cumulative(weights []float64) []float64 {
	top := 0.0
	for _, w := range weights {
		top = max(top, w)
	}
	cum := make([]float64, len(weights))
	total := 0.0
	for i, w := range weights {
		if top > 0 {
			total += w / top
		}
		cum[i] = total
	}
	return cum
}

// MixText states the mix: "read 50%, update 50%".
func (f *File) MixText() string {
	mix := f.Mix()
	parts := make([]string, len(f.Ops))
	for i, o := range f.Ops {
		parts[i] = fmt.Sprintf("%s %.4g%%", o.Name, 100*mix[o.Name])
	}
	return strings.Join(parts, ", ")
}

// A Picker draws the next operation of the mix by weight.
type Picker struct{ cum []float64 }

// Picker returns the mix's picker.
func (f *File) Picker() Picker {
	return Picker{cum: cumulative(f.weights())}
}

// Next returns the index of the next operation.
func (p Picker) Next(g *Gen) int {
	u := g.r.Float64() * p.cum[len(p.cum)-1]
	for i, c := range p.cum {
		if u < c {
			return i
		}
	}
	return len(p.cum) - 1
}

// Begin starts an iteration of op: the values its steps share are drawn.
func (g *Gen) Begin(op *Op) { g.begin(op) }

// Seed appends seed document index of c (its random stream depends on
// the seed and the index alone).
func (g *Gen) Seed(dst []byte, c *Collection, seed, index int64) []byte {
	g.seedDoc(seed, c, index)
	dst = c.Doc.Append(dst, g)
	g.index = -1
	return dst
}

// Doc appends a new document of c, as an insert without a document of
// its own writes it.
func (g *Gen) Doc(dst []byte, c *Collection) []byte { return c.Doc.Append(dst, g) }

func salt(name string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return h.Sum64()
}
