package studyview

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/diagnosis"
	"github.com/mongobench/mongobench/internal/study"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/threshold"
)

// The studies' tests run against a lab: a fake Measure that makes each
// run's result document from what a model of a server achieves at the
// run's rate or threads, and a Keep and Say that record what the study
// kept and said. No server, no store.

// testRegistry holds the workloads the studies' tests run.
var testRegistry = spec.MapRegistry{
	"kv": {{Name: "records", Kind: spec.KindInt, Default: "1000", Min: "1"}},
	"ledger": {
		{Name: "mode", Kind: spec.KindEnum, Values: []string{"per-op", "client-bulk"}},
		{Name: "accounts", Kind: spec.KindInt, Default: "1000", Min: "2"},
	},
}

// outcome is what one run achieved.
type outcome struct {
	achieved float64  // operations per second
	p99      *float64 // ms; nil not recorded
	errors   int64
}

// lab is a fake server and results store.
type lab struct {
	model func(sc *spec.Scenario) outcome

	stopAt     int // the run (1-based) that stops early, as Ctrl-C does; 0 none
	failAt     int // the run whose measurement fails; 0 none
	keepFailAt int // the run whose keeping fails; 0 none
	measured   []*spec.Scenario
	variants   []map[string]any
	kept       []*result.Doc
	said       []string
	steps      []study.StepInfo
	// judgedBounds counts the bound verdicts the lab stored with the runs.
	judgedBounds int
	// overrule, when set, changes a run's document after the lab judged it.
	overrule func(d *result.Doc)
}

func (l *lab) env() study.Env {
	return study.Env{Measure: l.measure, Keep: l.keep, Registry: testRegistry, Say: l.say,
		Step: func(s study.StepInfo) { l.steps = append(l.steps, s) }}
}

func (l *lab) say(format string, args ...any) { l.said = append(l.said, fmt.Sprintf(format, args...)) }

// measure makes the run's result document as the runner shapes it: the
// variant with the scenario's threads and rate, the schedule, one
// operation type (txn for the ledger, read otherwise).
func (l *lab) measure(_ context.Context, sc *spec.Scenario, typed result.Variant) (*result.Doc, error) {
	variant := typed.Fields()
	l.measured = append(l.measured, sc)
	l.variants = append(l.variants, variant)
	n := len(l.measured)
	if n == l.failAt {
		return nil, fmt.Errorf("run %d: server went away", n)
	}
	o := l.model(sc)
	v := maps.Clone(variant)
	v["numberOfThreads"] = sc.Threads
	d := &result.Doc{
		RunID: fmt.Sprintf("run-%02d", n), TestName: sc.Name, Label: sc.Label, Repetition: sc.Repetition,
		Start:   time.Date(2026, 1, 1, 0, 0, n, 0, time.UTC),
		Partial: n == l.stopAt, Variant: v,
		TestConfig:  map[string]any{"workload": sc.Workload},
		TestResults: result.TestResults{NOps: result.Ptr(int64(o.achieved))},
		Schedule:    result.Schedule{Mode: "closed", Workers: sc.Threads, AchievedRate: o.achieved},
	}
	if sc.Rate > 0 {
		r := float64(sc.Rate)
		v["targetRate"] = r
		d.Schedule.Mode, d.Schedule.TargetRate = "open", &r
	}
	op := "read"
	if sc.Name == study.TestName {
		op = study.TxnOp
		v["readConcern"] = "snapshot"
		d.TestConfig["readConcern"], d.TestConfig["writeConcern"] = "default", "majority, j: true"
		d.Notes = []string{`the server refuses readConcern "snapshot" on a client-level bulkWrite in a transaction; both modes run with the server's default read concern`}
	}
	count := int64(o.achieved) - o.errors
	d.Ops = []result.OpStats{{Name: op, Count: count, Rate: float64(count), Errors: result.Errors{Total: o.errors},
		Latency: result.Dist{P50: half(o.p99), P95: o.p99, P99: o.p99, P999: o.p99, Max: o.p99}}}
	if d.Partial {
		d.PartialReason = "interrupted"
	}
	// The model's server on a one-core host: its CPU full when it fell
	// short of the offered rate, else at 60%; diagnosed as the runner does.
	cpu := 60.0
	if sc.Rate > 0 && o.achieved < 0.95*float64(sc.Rate) {
		cpu = 99
	}
	d.Target.SameHost, d.Generator.Cores, d.Duration = true, 1, 1000
	d.Intervals = []result.Interval{{Start: d.Start, Seconds: 1, Host: map[string]float64{"procCpuUserPct": cpu, "cpuUserPct": cpu}}}
	d.Diagnosis = diagnosis.Diagnose(d, diagnosis.Limits{})
	if o.p99 != nil {
		d.Ops[0].Latency.Count = count
	}
	// The study's bounds, judged as the lab's measurer judges them.
	if len(sc.StudyThresholds) > 0 {
		d.TestResults.Bounds = threshold.Evaluate(sc.StudyThresholds, d)
	}
	l.judgedBounds += len(d.TestResults.Bounds)
	if l.overrule != nil {
		l.overrule(d)
	}
	return d, nil
}

func half(p *float64) *float64 {
	if p == nil {
		return nil
	}
	return fl(*p / 2)
}

func (l *lab) keep(_ context.Context, d *result.Doc) error {
	if len(l.kept)+1 == l.keepFailAt {
		return fmt.Errorf("store: disk full")
	}
	l.kept = append(l.kept, d)
	return nil
}

// rates are the target rates measured, in order.
func (l *lab) rates() []float64 {
	var out []float64
	for _, sc := range l.measured {
		out = append(out, float64(sc.Rate))
	}
	return out
}

// saturating is a server that keeps up to capacity operations per second
// with a 2 ms p99, and beyond it achieves capacity at a 60 ms p99.
func saturating(capacity float64) func(sc *spec.Scenario) outcome {
	return func(sc *spec.Scenario) outcome {
		r := float64(sc.Rate)
		if r <= capacity {
			return outcome{achieved: r, p99: fl(2)}
		}
		return outcome{achieved: capacity, p99: fl(60)}
	}
}

// kvBase is the base of a kv study.
func kvBase(t *testing.T) study.Base {
	t.Helper()
	sc := &spec.Scenario{Workload: "kv", Duration: spec.Duration(2 * time.Second), Label: "r6g"}
	return study.Base{Scenario: sc, Params: []string{"records=500"}}
}
