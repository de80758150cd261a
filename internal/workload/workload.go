package workload

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/mongobench/mongobench/internal/result"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
)

// Env is what a workload works with: the data database (owned by the
// tool) and its connection string, the run's seed, a progress callback
// for long setups, and the server's cache size when the caller knows it.
type Env struct {
	DB *mongo.Database
	// URI is the connection string DB came from (credentials included,
	// never stored), for workloads with a client of their own.
	URI      string
	Seed     int64
	Progress func(stage string, done, total int64)
	// CacheSize is the server's storage cache in bytes as the caller knows
	// it (0: unknown), and CacheSizeSource where the caller got it; a
	// server that reports its own cache overrides it.
	CacheSize       int64
	CacheSizeSource string
	// Share is this client's part of a run group (the zero Share: the
	// whole run), for workloads that slice their keys between clients.
	Share engine.Share
	// Follower says the group's lead prepared the data already: the
	// workload attaches to it instead of resetting or loading it.
	Follower bool
	// Rate is the scenario's target rate (0: none), for a workload whose
	// schedule is its own (a replay sets its speed from it).
	Rate float64
}

// A Grouped workload can run as one client of a run group: its Prepare
// honours Env.Share and Env.Follower, so the group's clients together do
// what one client would. GroupReady says why the parameters cannot be
// shared between clients, or nil.
type Grouped interface {
	GroupReady(p spec.Params) error
}

// CheckGroup reports whether w with parameters p can run as one client of
// a run group.
func CheckGroup(w Workload, p spec.Params) error {
	g, ok := w.(Grouped)
	if !ok {
		return fmt.Errorf("workload %s cannot run as a group of clients (it has no key slices to share); groups run kv, ledger and the YCSB workloads and their loads", w.Name())
	}
	return g.GroupReady(p)
}

// ReportProgress reports a long setup's progress, when the caller asked
// for it.
func (e Env) ReportProgress(stage string, done, total int64) {
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
	// Prepare resets and preloads the workload's collections, decides
	// what the target needs, and returns the prepared run.
	Prepare(ctx context.Context, env Env, p spec.Params) (Run, error)
}

// A DataFree workload uses no data database: the run does not claim
// one (no marker is written), so a replay of read-only traffic writes
// nothing at all to the candidate.
type DataFree interface {
	NoDataDatabase()
}

// A SelfScheduled workload's runs bring their own Schedule (a
// recording's replay): the scenario's rate, duration and warm-up do not
// pace them, and what does is known once the run is prepared.
type SelfScheduled interface {
	OwnSchedule()
}

// A Run is a prepared run of a workload: what its setup decided, which
// the result stores, and the state its workers share, which makes each
// worker's task.
type Run struct {
	Decided Decisions
	Tasks   Tasks
	// Schedule, when set, is the run's own schedule in place of the
	// scenario's rate, duration, warm-up and threads (a recording's
	// replay: its requests at their recorded offsets).
	Schedule *Schedule
	// Annotate, when set, adds the workload's own section to the run's
	// result document once it is assembled (ctx: the run's).
	Annotate func(context.Context, *result.Doc)
}

// Schedule is a workload's own open-loop schedule: Count operations at
// Pacer's offsets, no warm-up, none dropped however late, at most
// Workers in flight.
type Schedule struct {
	Pacer   engine.Pacer
	Count   int64
	Workers int
	// Length is how long the schedule sends (its last operation's
	// offset), the measured phase's planned length; About says in one
	// phrase what paces it, as the scenario's Describe does.
	Length time.Duration
	About  string
}

// Tasks makes the task of each worker of a prepared run. The state the
// workers share (an insert counter, a key range) is the implementation's
// own, typed per workload.
type Tasks interface {
	// NewTask builds worker's task; a task that dials its own connection
	// gives up when ctx ends.
	NewTask(ctx context.Context, worker int) (engine.Task, error)
}

// TasksFunc adapts a function to Tasks, for a workload whose workers share
// nothing.
type TasksFunc func(ctx context.Context, worker int) (engine.Task, error)

var _ Tasks = TasksFunc(nil)

// NewTask calls f.
func (f TasksFunc) NewTask(ctx context.Context, worker int) (engine.Task, error) {
	return f(ctx, worker)
}

// Decisions are what a workload's setup decided about the target:
// Settings, the effective settings, stored in the result's test_config,
// and Warnings for people, stored in the result's notes and printed.
//
// Settings is nil or a struct whose bson fields are the test_config fields
// it sets, of types int64, float64, bool or string (they are stored as
// such).
type Decisions struct {
	Settings any
	Warnings []string
	// Mix is each operation type's stated share of operations started
	// (nil: the workload states none); the run reports the mix achieved
	// against it.
	Mix map[string]float64
}

// TestConfig returns the test_config fields Settings sets (nil when it
// is nil).
func (d Decisions) TestConfig() (map[string]any, error) {
	if d.Settings == nil {
		return nil, nil
	}
	raw, err := bson.Marshal(d.Settings)
	if err != nil {
		return nil, fmt.Errorf("settings %T: %w", d.Settings, err)
	}
	var m map[string]any
	if err := bson.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("settings %T: %w", d.Settings, err)
	}
	return m, nil
}

// A Counter is a task that counts workload-specific events (retries,
// aborts); the run sums every worker's counts into the result, less
// those of the warm-up. Counts must be safe to call while the task runs.
type Counter interface {
	Counts() result.Counts
}

// Registry is the set of workloads the binary knows. It satisfies
// spec.Registry, so scenario files are validated against it, and, when
// made WithFiles, spec.WorkloadFiles: a name that is a workload file's
// path (spec.IsWorkloadFile) opens the file, once.
type Registry struct {
	mu     sync.Mutex
	byName map[string]Workload
	files  bool
	// recordings opens a traffic recording named by its path as a
	// workload (ok false: the path names no recording).
	recordings func(path string) (w Workload, ok bool, err error)
}

var (
	_ spec.Registry      = (*Registry)(nil)
	_ spec.WorkloadFiles = (*Registry)(nil)
	_ spec.Recordings    = (*Registry)(nil)
)

// Recording is a workload that replays a traffic recording: it says the
// recording's own rate (requests per second), with its parameters.
type Recording interface {
	RecordedRate(p spec.Params) (float64, error)
}

// NewRegistry returns a registry of the given workloads.
func NewRegistry(ws ...Workload) *Registry {
	r := &Registry{byName: map[string]Workload{}}
	for _, w := range ws {
		r.byName[w.Name()] = w
	}
	return r
}

// WithFiles makes the registry open the workload files it is asked for
// by path, and returns it.
func (r *Registry) WithFiles() *Registry {
	r.files = true
	return r
}

// WithRecordings makes the registry open the traffic recordings it is
// asked for by path, through open, and returns it.
func (r *Registry) WithRecordings(open func(path string) (Workload, bool, error)) *Registry {
	r.recordings = open
	return r
}

// OpenWorkloadFile reads and checks the workload file at path and
// registers it under the path; a file opened already is not read again.
func (r *Registry) OpenWorkloadFile(path string) error {
	_, err := r.lookup(path)
	return err
}

// lookup returns the named workload, opening a workload file when the
// registry opens files.
func (r *Registry) lookup(name string) (Workload, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w, ok := r.byName[name]; ok {
		return w, nil
	}
	if r.recordings != nil && !spec.IsWorkloadFile(name) {
		if w, ok, err := r.recordings(name); ok {
			if err != nil {
				return nil, err
			}
			r.byName[name] = w
			return w, nil
		}
	}
	if !r.files || !spec.IsWorkloadFile(name) {
		return nil, fmt.Errorf("unknown workload %q (known: %v)", name, r.names())
	}
	w, err := OpenFile(name)
	if err != nil {
		return nil, err
	}
	r.byName[name] = w
	return w, nil
}

// Workloads lists the registered names, sorted.
func (r *Registry) Workloads() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.names()
}

func (r *Registry) names() []string {
	names := make([]string, 0, len(r.byName))
	for n := range r.byName {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ParamSpecs returns the parameters of the named workload.
func (r *Registry) ParamSpecs(name string) ([]spec.ParamSpec, bool) {
	w, err := r.lookup(name)
	if err != nil {
		return nil, false
	}
	return w.Params(), true
}

// WriteList writes each workload with its summary, and its parameters
// (-p name=value) with their kind, default, help and bounds.
func (r *Registry) WriteList(w io.Writer) error {
	for _, name := range r.Workloads() {
		wl, _ := r.lookup(name)
		if _, err := fmt.Fprintf(w, "%s — %s\n", name, wl.Summary()); err != nil {
			return err
		}
		for _, p := range wl.Params() {
			if _, err := fmt.Fprintf(w, "  -p %-14s %-8s default %-7s %s%s\n", p.Name+"=", p.Kind, p.Default, p.Help, p.Limits()); err != nil {
				return err
			}
		}
	}
	return nil
}

// RecordedRate is the rate of the recording the named workload replays
// with parameters p; ok is false when the workload replays none.
func (r *Registry) RecordedRate(name string, p spec.Params) (float64, bool, error) {
	w, err := r.lookup(name)
	if err != nil {
		return 0, false, nil
	}
	rec, ok := w.(Recording)
	if !ok {
		return 0, false, nil
	}
	rate, err := rec.RecordedRate(p)
	return rate, true, err
}

// Get returns the named workload (a workload file is opened).
func (r *Registry) Get(name string) (Workload, error) { return r.lookup(name) }

// Ops is the operation types a run of the named workload with
// parameters p records; nil when the registry has no such workload.
func (r *Registry) Ops(name string, p spec.Params) []string {
	w, err := r.lookup(name)
	if err != nil {
		return nil
	}
	return w.Ops(p)
}
