package lab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/canary"
	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/group"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/secret"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/threshold"
	"github.com/mongobench/mongobench/internal/validity"
	"github.com/mongobench/mongobench/internal/workload"
)

// measurer is the study's Measure over the workloads of reg: one scenario
// through the single-run runner, with the progress display, the live
// metrics, the run group and the abort judge, its thresholds judged on
// the result before the study sees it.
func (l *Lab) measurer(reg *workload.Registry) study.Measure {
	return func(ctx context.Context, sc *spec.Scenario, variant result.Variant) (*result.Doc, error) {
		g, err := l.groupFor(ctx, sc, variant)
		if err != nil {
			return nil, err
		}
		// The run's one tally: the engine adds each closed interval to it,
		// and the progress line, the abort judge and the live metrics read it.
		tally := engine.NewTally()
		var p Progress = noProgress{}
		if l.ui.Progress != nil {
			p = l.ui.Progress(sc, tally)
		}
		ts := l.thresholdsOf(sc)
		rctx, watch, cancel := abortOn(ctx, sc, ts, l.opts.AbortOnFail, tally, l.ui.AbortJudged)
		defer cancel()
		runID, published, ended := l.live.begin(sc, variant, tally)
		registrar, _ := l.store.(store.Registrar)
		if l.opts.NoStream {
			registrar = nil
		}
		st := newStream(registrar, tally, l.ui.Say)
		o := runner.Options{
			Scenario: sc, Registry: reg, Target: l.target, ToolVersion: l.ui.ToolVersion, Variant: variant,
			OnSetup: p.Setup, OnStart: p.Start, OnInterval: watch.wrap(both(both(p.Interval, published), st.interval)), Tally: tally,
			Pacing: l.opts.Pacing, AtReturn: l.opts.AtReturn, Trace: l.opts.Trace, RunID: runID, OnTelemetry: figures(l.live.telemetry(), st), Group: g,
			OnMeasuring: func(d *result.Doc) { st.begin(rctx, d) }, Closing: ctx,
		}
		if l.opts.Announce {
			o.OnConnected = func(version, topology, how string) {
				l.ui.Say("%s: %s against %s (MongoDB %s, %s)\n", sc.Name, how, secret.URI(l.target.URI), version, topology)
			}
		}
		before := l.canary(rctx)
		d, err := runner.Run(rctx, o)
		if d != nil && before != nil {
			d.Canary = &result.Noise{Before: before, After: l.canary(ctx)}
		}
		st.end(ctx)
		st.fullResolution(d)
		ended()
		p.Done()
		if d != nil {
			watch.mark(d)
			if reason := watch.stopped(); reason != "" {
				l.aborted = &aborted{runID: d.RunID, reason: reason}
			}
			l.judge(d, sc)
		}
		if err != nil && l.joined != nil {
			l.joined.client.Leave()
			l.joined = nil
		}
		return d, err
	}
}

// noProgress shows nothing.
type noProgress struct{}

func (noProgress) Setup(string, int64, int64)         {}
func (noProgress) Start(time.Duration, time.Duration) {}
func (noProgress) Interval(*engine.Interval)          {}
func (noProgress) Done()                              {}

// thresholdsOf are the thresholds that judge a run of sc: its own, then
// the command's.
func (l *Lab) thresholdsOf(sc *spec.Scenario) []threshold.Threshold {
	return slices.Concat(sc.Thresholds, l.opts.Thresholds)
}

// canary takes the client host's noise canary, nil when the lab takes
// none or the context ended (a canary that could not run a probe says so
// in its problems).
func (l *Lab) canary(ctx context.Context) *result.Canary {
	if !l.opts.Canary || ctx.Err() != nil {
		return nil
	}
	c, err := canary.Take(ctx, canary.Default)
	if err != nil {
		return nil
	}
	return &c
}

// judge is the one judge of a run: it judges the run's validity (each
// rule with its evidence, said on a line when the run is not valid); it
// evaluates the thresholds of sc (its own and the command's) on d,
// stores the verdicts with it and says them on one line; and the bounds
// of the study the run belongs to (sc.StudyThresholds), on the same
// document, into testResults.bounds, which the study words its verdict
// from.
func (l *Lab) judge(d *result.Doc, sc *spec.Scenario) {
	v := validity.Judge(d, l.opts.Validity)
	d.Validity = &v
	if v.State != result.Valid {
		l.ui.Say("validity: %s\n", validity.Line(v))
	}
	if len(sc.StudyThresholds) > 0 && (d.Group == nil || d.Group.ClientIndex == nil) { // a client's own part: the group's result is judged
		d.TestResults.Bounds = threshold.Evaluate(sc.StudyThresholds, d)
	}
	ts := l.thresholdsOf(sc)
	if len(ts) == 0 {
		return
	}
	d.Thresholds = threshold.Evaluate(ts, d)
	l.runs++
	if len(threshold.Failed(d.Thresholds)) > 0 {
		l.failed++
	}
	l.ui.Say("%s\n", VerdictLine(d.Thresholds))
}

// keep is the study's Keep: it stores a run (or rescues it to a file),
// records it in its group, shows each of its notes once per command, and
// writes its report; a report that cannot be written is a warning, never
// the loss of the stored run.
func (l *Lab) keep(ctx context.Context, d *result.Doc) error {
	if err := Save(ctx, l.store, d); err != nil {
		return err
	}
	if err := l.keptInGroup(ctx, d); err != nil {
		return err
	}
	if l.opts.Collect {
		l.kept = append(l.kept, *d)
	}
	for _, n := range d.Notes {
		if !l.noted[n] {
			l.ui.Say("note: %s\n", n)
			l.noted[n] = true
		}
	}
	if l.opts.ReportDir == "" {
		return nil
	}
	path, err := WriteRunReport(d, l.opts.ReportDir)
	if err != nil {
		l.ui.Say("warning: run %s is stored, but its report was not written: %v\n", d.RunID, err)
		return nil
	}
	l.reports = append(l.reports, path)
	return nil
}

// VerdictLine is a run's verdicts on one line: "thresholds: PASS p99 <
// 5ms: 3.2 ms (READ); FAIL errors < 1: 3 errors".
func VerdictLine(vs []result.ThresholdVerdict) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		word := "FAIL"
		if v.Pass {
			word = "PASS"
		}
		parts[i] = word + " " + v.Expression + ": " + threshold.Measured(v)
	}
	return "thresholds: " + strings.Join(parts, "; ")
}

// aborted is a run the abort judge stopped, and why.
type aborted struct{ runID, reason string }

// Outcome is the error a command that made runs ends with, given err,
// what its study returned: a run the abort judge stopped, its partial
// result kept, ends in a failed verdict (exit 99), not an interruption; a
// run stopped by Ctrl-C stays interrupted.
func (l *Lab) Outcome(err error) error {
	a := l.aborted
	if a == nil || !errors.Is(err, study.ErrStopped) {
		return err
	}
	if kept := "its partial result is stored"; strings.HasSuffix(err.Error(), kept) {
		return study.VerdictFailed("run %s %s; %s", a.runID, a.reason, kept)
	}
	return study.VerdictFailed("run %s %s; %v", a.runID, a.reason, err) // the store failed: err says where the result went
}

// plural says how many runs failed their thresholds.
func plural(failed, runs int) string {
	return fmt.Sprintf("%d of %d runs failed their thresholds", failed, runs)
}

// group is the runner's view of a joined group client.
var _ runner.Group = (*group.Client)(nil)
