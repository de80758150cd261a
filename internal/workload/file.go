package workload

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workloadfile"
)

// File is a workload described by a workload file (package
// workloadfile): its collections are reset, indexed and seeded, then its
// named operations run in the file's mix, over the lean wire client (the
// driver when the connection string needs it, or when asked).
type File struct {
	name string
	f    *workloadfile.File
}

var (
	_ Workload      = (*File)(nil)
	_ LedgerAudited = (*File)(nil)
)

// OpenFile reads and checks the workload file at path; the workload is
// named by the path as given.
func OpenFile(path string) (*File, error) {
	f, err := workloadfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &File{name: path, f: f}, nil
}

// Name is the file's path, as given.
func (w *File) Name() string { return w.name }

// Summary is the file's description.
func (w *File) Summary() string {
	if w.f.Description != "" {
		return w.f.Description
	}
	return "the operations of workload file " + w.name
}

// Params declares the client and the seed's loading.
func (w *File) Params() []spec.ParamSpec {
	return append([]spec.ParamSpec{ClientParam}, preloadParams()...)
}

// Ops names the file's operations, as it names them.
func (w *File) Ops(spec.Params) []string { return w.f.OpNames() }

// fileSettings are what a workload file's run stores in test_config:
// the client, the file's full text and hash (so it can be run again
// exactly), its name and the mix it states.
type fileSettings struct {
	Client string `bson:"client"`
	Name   string `bson:"workloadName"`
	Text   string `bson:"workloadFile"`
	Hash   string `bson:"workloadFileSHA256"`
	Mix    string `bson:"workloadMix"`
}

// Prepare resets the file's collections, creates their indexes (before
// the seed, as the built-ins do) and seeds them in parallel batches,
// then decides the client of the operations.
func (w *File) Prepare(ctx context.Context, env Env, p spec.Params) (Run, error) {
	w.f.Reset(time.Now())
	for _, c := range w.f.Collections {
		if err := w.seed(ctx, env, p, c); err != nil {
			return Run{}, err
		}
	}
	c := ChooseClient(env.URI, p.String("client"))
	d := Decisions{
		Settings: fileSettings{Client: c.Path, Name: w.f.Name, Text: string(w.f.Text), Hash: w.f.Hash, Mix: w.f.MixText()},
		Warnings: c.warnings(w.name), Mix: w.f.Mix(),
	}
	if c.Path == ClientWire {
		d.Warnings = append(d.Warnings, w.routes()...)
	}
	return Run{Decided: d, Tasks: TasksFunc(func(ctx context.Context, worker int) (engine.Task, error) {
		return w.newTask(ctx, env, c, worker)
	})}, nil
}

func (w *File) seed(ctx context.Context, env Env, p spec.Params, c *workloadfile.Collection) error {
	if err := ResetCollection(ctx, env.DB, c.Name); err != nil {
		return err
	}
	if len(c.Indexes) > 0 {
		idx, cmd := bsoncore.AppendDocumentStart(nil)
		cmd = bsoncore.AppendStringElement(cmd, "createIndexes", c.Name)
		arr, cmd := bsoncore.AppendArrayElementStart(cmd, "indexes")
		for i, ix := range c.Indexes {
			cmd = bsoncore.AppendDocumentElement(cmd, fmt.Sprint(i), ix)
		}
		cmd, _ = bsoncore.AppendArrayEnd(cmd, arr)
		cmd, _ = bsoncore.AppendDocumentEnd(cmd, idx)
		if err := env.DB.RunCommand(ctx, bson.Raw(cmd)).Err(); err != nil {
			return fmt.Errorf("create the indexes of %s: %w", c.Name, err)
		}
	}
	if c.Seed == 0 {
		return nil
	}
	gens := sync.Pool{New: func() any { return w.f.NewGen(env.Seed, 0) }}
	l := &Loader{
		Coll: env.DB.Collection(c.Name), Total: c.Seed, Batch: p.Int("batchSize"),
		Build: func(dst []byte, k int64) []byte {
			g := gens.Get().(*workloadfile.Gen)
			dst = g.Seed(dst, c, env.Seed, k)
			gens.Put(g)
			return dst
		},
	}
	return l.Run(ctx, int(p.Int("loaders")), func(done int64) { env.ReportProgress("seed "+c.Name, done, c.Seed) })
}

// AuditedLedger names the collections of the file's ledger audit
// (audit: ledger), when it has one.
func (w *File) AuditedLedger() (LedgerCollections, bool) {
	a := w.f.Audit
	if a == nil || a.Kind != "ledger" {
		return LedgerCollections{}, false
	}
	return LedgerCollections{Accounts: a.Accounts, Entries: a.Entries, Summary: a.Summary, Initial: a.InitialBalance}, true
}

// routes says which of the file's operations go through the driver
// although the run's client is the wire client, and why.
func (w *File) routes() []string {
	var txns, prefs []string
	for _, o := range w.f.Ops {
		switch {
		case o.Kind == "transaction":
			txns = append(txns, o.Name)
		case !o.ReadPreference.Primary():
			prefs = append(prefs, o.Name)
		}
	}
	var notes []string
	if len(txns) > 0 {
		notes = append(notes, "transactions ("+strings.Join(txns, ", ")+") run through the driver's sessions, as the built-in ledger's do")
	}
	if len(prefs) > 0 {
		notes = append(notes, "reads with a read preference other than primary ("+strings.Join(prefs, ", ")+") go through the driver: the wire client reads from the primary only")
	}
	return notes
}
