package workload

import (
	"context"
	"fmt"
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

var _ Workload = (*File)(nil)

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
