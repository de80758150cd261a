package workload

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
)

// Env is what a workload works with: the data database (owned by the
// tool) and its connection string, the run's seed, a progress callback
// for long setups, notes where setup records what it decided, and the
// server's cache size when the caller knows it.
type Env struct {
	DB *mongo.Database
	// URI is the connection string DB came from (credentials included,
	// never stored), for workloads with a client of their own.
	URI      string
	Seed     int64
	Progress func(stage string, done, total int64)
	Notes    *Notes
	// CacheSize is the server's storage cache in bytes as the caller knows
	// it (0: unknown), and CacheSizeSource where the caller got it; a
	// server that reports its own cache overrides it.
	CacheSize       int64
	CacheSizeSource string
}

// Notes holds what a workload's setup decided about the target: effective
// settings (stored in the result's test_config) and warnings for people
// (stored and printed). Setup writes it; tasks read it.
type Notes struct {
	mu        sync.Mutex
	effective map[string]any
	warnings  []string
	shared    map[string]any // state the tasks of one run share (not stored)
}

// Set records an effective setting.
func (n *Notes) Set(key string, v any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.effective == nil {
		n.effective = map[string]any{}
	}
	n.effective[key] = v
}

// Get returns an effective setting.
func (n *Notes) Get(key string) (any, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	v, ok := n.effective[key]
	return v, ok
}

// setShared stores state every task of the run shares, such as the YCSB
// insert counters; it is not part of the result.
func (n *Notes) setShared(key string, v any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.shared == nil {
		n.shared = map[string]any{}
	}
	n.shared[key] = v
}

// sharedOrNew returns the shared state under key, building and storing it
// with build when there is none yet.
func (n *Notes) sharedOrNew(key string, build func() (any, error)) (any, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if v, ok := n.shared[key]; ok {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return nil, err
	}
	if n.shared == nil {
		n.shared = map[string]any{}
	}
	n.shared[key] = v
	return v, nil
}

// Warn records a warning.
func (n *Notes) Warn(msg string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.warnings = append(n.warnings, msg)
}

// Effective returns a copy of the effective settings.
func (n *Notes) Effective() map[string]any {
	n.mu.Lock()
	defer n.mu.Unlock()
	return maps.Clone(n.effective)
}

// Warnings returns the warnings recorded.
func (n *Notes) Warnings() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.warnings)
}

// A Counter is a task that counts workload-specific events (retries,
// aborts); the run sums every worker's counts into the result, less
// those of the warm-up. Counts must be safe to call while the task runs.
type Counter interface {
	Counts() map[string]int64
}

func (e Env) progress(stage string, done, total int64) {
	if e.Progress != nil {
		e.Progress(stage, done, total)
	}
}

// A Workload is one kind of benchmark.
type Workload interface {
	Name() string
	// Summary is one line for --help and listings.
	Summary() string
	// Params declares the workload's parameters and their defaults.
	Params() []spec.ParamSpec
	// Ops names the operation types its tasks return, by index.
	Ops(p spec.Params) []string
	// Setup resets and preloads the workload's collections.
	Setup(ctx context.Context, env Env, p spec.Params) error
	// NewTask builds the task of one worker.
	NewTask(env Env, p spec.Params, worker int) (engine.Task, error)
}

// Registry is the set of workloads the binary knows. It satisfies
// spec.Registry, so scenario files are validated against it.
type Registry struct{ byName map[string]Workload }

var _ spec.Registry = (*Registry)(nil)

// Builtin returns the registry of every built-in workload.
func Builtin() *Registry {
	return NewRegistry(KV{}, Ledger{}, Insert{}, HotDoc{}, UpdateAPI{}, Query{},
		YCSB{Preset: "a"}, YCSB{Preset: "b"}, YCSB{Preset: "c"},
		YCSB{Preset: "d"}, YCSB{Preset: "e"}, YCSB{Preset: "f"})
}

// NewRegistry returns a registry of the given workloads.
func NewRegistry(ws ...Workload) *Registry {
	r := &Registry{byName: map[string]Workload{}}
	for _, w := range ws {
		r.byName[w.Name()] = w
	}
	return r
}

// Workloads lists the registered names, sorted.
func (r *Registry) Workloads() []string {
	names := make([]string, 0, len(r.byName))
	for n := range r.byName {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ParamSpecs returns the parameters of the named workload.
func (r *Registry) ParamSpecs(name string) ([]spec.ParamSpec, bool) {
	w, ok := r.byName[name]
	if !ok {
		return nil, false
	}
	return w.Params(), true
}

// Get returns the named workload.
func (r *Registry) Get(name string) (Workload, error) {
	w, ok := r.byName[name]
	if !ok {
		return nil, fmt.Errorf("unknown workload %q (known: %v)", name, r.Workloads())
	}
	return w, nil
}
