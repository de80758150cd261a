// Package studylab is the studies' test lab: a model of a server that
// makes each run's result document from what it achieves at the run's
// rate or threads, and a results store that records what a study kept
// and said. No server, no store: it tests the studies' decisions (pure
// code), never a measurement. The study and studyview tests share it.
package studylab

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/diagnosis"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/threshold"
)

// Registry holds the workloads the studies' tests run.
var Registry = spec.MapRegistry{
	"kv": {{Name: "records", Kind: spec.KindInt, Default: "1000", Min: "1"}},
	"ledger": {
		{Name: "mode", Kind: spec.KindEnum, Values: []string{"per-op", "client-bulk"}},
		{Name: "accounts", Kind: spec.KindInt, Default: "1000", Min: "2"},
	},
}

// Outcome is what one run achieved.
type Outcome struct {
	Achieved float64  // operations per second
	P99      *float64 // ms; nil not recorded
	Errors   int64
}

// Lab is a fake server and results store; S is the study's step type,
// which the lab keeps as the study reports them.
type Lab[S any] struct {
	Model func(sc *spec.Scenario) Outcome

	StopAt     int // the run (1-based) that stops early, as Ctrl-C does; 0 none
	FailAt     int // the run whose measurement fails; 0 none
	KeepFailAt int // the run whose keeping fails; 0 none
	Measured   []*spec.Scenario
	Variants   []map[string]any
	Kept       []*result.Doc
	Said       []string
	Steps      []S
	// JudgedBounds counts the bound verdicts the lab stored with the runs.
	JudgedBounds int
	// Overrule, when set, changes a run's document after the lab judged it.
	Overrule func(d *result.Doc)
	// TxnTest names the transaction study's test, whose runs record one
	// TxnOp operation type (read otherwise).
	TxnTest, TxnOp string
}

// Say records what a study said.
func (l *Lab[S]) Say(format string, args ...any) {
	l.Said = append(l.Said, fmt.Sprintf(format, args...))
}

// Step records a study's step.
func (l *Lab[S]) Step(s S) { l.Steps = append(l.Steps, s) }

// Measure makes the run's result document as the runner shapes it: the
// variant with the scenario's threads and rate, the schedule, one
// operation type (TxnOp for TxnTest, read otherwise).
func (l *Lab[S]) Measure(_ context.Context, sc *spec.Scenario, typed result.Variant) (*result.Doc, error) {
	variant := typed.Fields()
	l.Measured = append(l.Measured, sc)
	l.Variants = append(l.Variants, variant)
	n := len(l.Measured)
	if n == l.FailAt {
		return nil, fmt.Errorf("run %d: server went away", n)
	}
	o := l.Model(sc)
	v := maps.Clone(variant)
	v["numberOfThreads"] = sc.Threads
	d := &result.Doc{
		RunID: fmt.Sprintf("run-%02d", n), TestName: sc.Name, Label: sc.Label, Repetition: sc.Repetition,
		Start:   time.Date(2026, 1, 1, 0, 0, n, 0, time.UTC),
		Partial: n == l.StopAt, Variant: v,
		TestConfig:  map[string]any{"workload": sc.Workload},
		TestResults: result.TestResults{NOps: result.Ptr(int64(o.Achieved))},
		Schedule:    result.Schedule{Mode: "closed", Workers: sc.Threads, AchievedRate: o.Achieved},
	}
	if sc.Rate > 0 {
		r := float64(sc.Rate)
		v["targetRate"] = r
		d.Schedule.Mode, d.Schedule.TargetRate = "open", &r
	}
	op := "read"
	if l.TxnTest != "" && sc.Name == l.TxnTest {
		op = l.TxnOp
		v["readConcern"] = "snapshot"
		d.TestConfig["readConcern"], d.TestConfig["writeConcern"] = "default", "majority, j: true"
		d.Notes = []string{`the server refuses readConcern "snapshot" on a client-level bulkWrite in a transaction; both modes run with the server's default read concern`}
	}
	count := int64(o.Achieved) - o.Errors
	d.Ops = []result.OpStats{{Name: op, Count: count, Rate: float64(count), Errors: result.Errors{Total: o.Errors},
		Latency: result.Dist{P50: Half(o.P99), P95: o.P99, P99: o.P99, P999: o.P99, Max: o.P99}}}
	if d.Partial {
		d.PartialReason = "interrupted"
	}
	// The model's server on a one-core host: its CPU full when it fell
	// short of the offered rate, else at 60%; diagnosed as the runner does.
	cpu := 60.0
	if sc.Rate > 0 && o.Achieved < 0.95*float64(sc.Rate) {
		cpu = 99
	}
	d.Target.SameHost, d.Generator.Cores, d.Duration = true, 1, 1000
	d.Intervals = []result.Interval{{Start: d.Start, Seconds: 1, Host: map[string]float64{"procCpuUserPct": cpu, "cpuUserPct": cpu}}}
	d.Diagnosis = diagnosis.Diagnose(d, diagnosis.Limits{})
	if o.P99 != nil {
		d.Ops[0].Latency.Count = count
	}
	// The study's bounds, judged as the lab's measurer judges them.
	if len(sc.StudyThresholds) > 0 {
		d.TestResults.Bounds = threshold.Evaluate(sc.StudyThresholds, d)
	}
	l.JudgedBounds += len(d.TestResults.Bounds)
	if l.Overrule != nil {
		l.Overrule(d)
	}
	return d, nil
}

// Keep records a kept run (failing at KeepFailAt).
func (l *Lab[S]) Keep(_ context.Context, d *result.Doc) error {
	if len(l.Kept)+1 == l.KeepFailAt {
		return fmt.Errorf("store: disk full")
	}
	l.Kept = append(l.Kept, d)
	return nil
}

// Rates are the target rates measured, in order.
func (l *Lab[S]) Rates() []float64 {
	var out []float64
	for _, sc := range l.Measured {
		out = append(out, float64(sc.Rate))
	}
	return out
}

// SaidText is the lines said, one string.
func (l *Lab[S]) SaidText() string { return strings.Join(l.Said, "") }

// Half is half of p; nil stays nil.
func Half(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p / 2
	return &v
}

// Saturating is a server that keeps up to capacity operations per second
// with a 2 ms p99, and beyond it achieves capacity at a 60 ms p99.
func Saturating(capacity float64) func(sc *spec.Scenario) Outcome {
	return func(sc *spec.Scenario) Outcome {
		r := float64(sc.Rate)
		if r <= capacity {
			return Outcome{Achieved: r, P99: result.F(2)}
		}
		return Outcome{Achieved: capacity, P99: result.F(60)}
	}
}

// KVScenario is the scenario of a kv study's base: 2 s runs labelled r6g.
func KVScenario() *spec.Scenario {
	return &spec.Scenario{Workload: "kv", Duration: spec.Duration(2 * time.Second), Label: "r6g"}
}
