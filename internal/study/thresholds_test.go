package study

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/threshold"
)

func texts(ts []threshold.Threshold) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Text)
	}
	return strings.Join(out, "; ")
}

// TestCriteriaThresholds: a sweep's flags are a threshold set.
func TestCriteriaThresholds(t *testing.T) {
	for _, tc := range []struct {
		c    Criteria
		want string
	}{
		{crit, "rate >= 95%; p99 <= 20ms; errors <= 1%"},
		{Criteria{MinFraction: 0.99}, "rate >= 99%; errors <= 0%"},
		{Criteria{SLA: 1500 * time.Microsecond, MaxErrors: 0.0005, MinFraction: 0.9}, "rate >= 90%; p99 <= 1.5ms; errors <= 0.05%"},
		{Criteria{SLA: time.Minute, MaxErrors: 0.07}, "rate >= 95%; p99 <= 1m0s; errors <= 7%"},
	} {
		if got := texts(tc.c.Thresholds()); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.c, got, tc.want)
		}
	}
}

// TestSLAThresholds: an SLA's bounds are a threshold set.
func TestSLAThresholds(t *testing.T) {
	for _, tc := range []struct {
		s    SLA
		want string
	}{
		{sla20, "p99 <= 20ms; rate >= 99%; errors == 0"},
		{SLA{P99: 20 * time.Millisecond, P95: 8 * time.Millisecond, P999: 30 * time.Millisecond}, "p95 <= 8ms; p99 <= 20ms; p999 <= 30ms; rate >= 99%; errors == 0"},
		{SLA{P99: 5 * time.Millisecond, MinRateFraction: 0.9}, "p99 <= 5ms; rate >= 90%; errors == 0"},
	} {
		if got := texts(tc.s.Thresholds()); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.s, got, tc.want)
		}
	}
}

// stored is step s as the runner stores it: each operation type's
// successes and latency, the errors on its first type.
func stored(s Step) *result.Doc {
	rate := s.Rate
	d := &result.Doc{RunID: "r", Duration: 1000, Variant: map[string]any{"targetRate": rate},
		Schedule: result.Schedule{Mode: "open", TargetRate: &rate, AchievedRate: s.Achieved}}
	for i, op := range s.Ops {
		n := (s.Count - s.Errors) / int64(len(s.Ops))
		o := result.OpStats{Name: op.Name, Count: n, Latency: result.Dist{Count: n, P50: op.P50, P95: op.P95, P99: op.P99}}
		if i == 0 {
			o.Count += (s.Count - s.Errors) % int64(len(s.Ops))
			o.Errors.Total = s.Errors
		}
		d.Ops = append(d.Ops, o)
	}
	return d
}

// TestCriteriaJudgedAsStored: a step holds by its criteria exactly when
// the criteria's thresholds hold on the stored document, the verdict
// `--threshold` with the same expressions gives a run.
func TestCriteriaJudgedAsStored(t *testing.T) {
	errs := step(1000, 1000, 1, 1, 0)
	errs.Errors = 200
	steps := append(sweepSteps(), errs, step(1000, 950, 5, 19.9, 0), step(1000, 949.9, 1, 1, 0), step(1000, 1000, 5, 20.01, 0))
	for _, c := range []Criteria{crit, {MaxErrors: 0.05}, {MinFraction: 0.99, SLA: 10 * time.Millisecond, MaxErrors: 0.01}} {
		for _, s := range steps {
			d := stored(s)
			st, err := StepOf(d)
			if err != nil {
				t.Fatal(err)
			}
			held, reasons := Holds(st, c)
			all := !slices.ContainsFunc(threshold.Evaluate(c.Thresholds(), d), func(v result.ThresholdVerdict) bool { return !v.Pass })
			if held != all {
				t.Errorf("%v at %v/s, %s: holds %v (%q), thresholds on the stored document %v", c, s.Rate, texts(c.Thresholds()), held, reasons, all)
			}
		}
	}
}

// TestSLAJudgedAsStored: an SLA run passes exactly when the SLA's
// thresholds hold on the stored document.
func TestSLAJudgedAsStored(t *testing.T) {
	strict := SLA{P99: 20 * time.Millisecond, P95: 8 * time.Millisecond, MinRateFraction: 0.99}
	for _, tc := range []struct {
		p95, p99 float64
		achieved float64
		failed   int64
	}{{5, 10, 1000, 0}, {9, 10, 1000, 0}, {5, 20, 1000, 0}, {5, 20.01, 1000, 0}, {5, 10, 989, 0}, {5, 10, 990, 0}, {5, 10, 1000, 1}} {
		for _, s := range []SLA{sla20, strict} {
			tps := 1000.0
			d := &result.Doc{RunID: "r", TestName: TestName, Duration: 1000, Variant: map[string]any{"mode": "per-op", "targetRate": tps},
				Schedule: result.Schedule{Mode: "open", TargetRate: &tps, AchievedRate: tc.achieved},
				Ops: []result.OpStats{{Name: TxnOp, Count: 100, Errors: result.Errors{Total: tc.failed},
					Latency: result.Dist{Count: 100, P95: fl(tc.p95), P99: fl(tc.p99)}}}}
			r, err := RunOf(d)
			if err != nil {
				t.Fatal(err)
			}
			v := Judge(r, s)
			all := !slices.ContainsFunc(threshold.Evaluate(s.Thresholds(), d), func(v result.ThresholdVerdict) bool { return !v.Pass })
			if v.Pass != all {
				t.Errorf("%+v under %s: judged %v, thresholds on the stored document %v", tc, texts(s.Thresholds()), v, all)
			}
		}
	}
}

// The sweep and the SLA study hand the lab their bound set with every
// run's scenario and read the verdicts the lab stored with the run
// (testResults.bounds): a verdict the lab gave decides, whatever the
// study would make of the figures. Here every run's figures clear the
// bounds, but the lab's verdict on the latency bound says it failed.
func TestStudiesReadTheLabsVerdicts(t *testing.T) {
	fails := func(d *result.Doc) {
		for i, v := range d.TestResults.Bounds {
			if strings.HasPrefix(v.Expression, "p99") {
				d.TestResults.Bounds[i].Pass, d.TestResults.Bounds[i].Value = false, fl(25)
			}
		}
	}
	l := &lab{Model: func(sc *spec.Scenario) outcome { return outcome{Achieved: float64(sc.Rate), P99: fl(2)} }, Overrule: fails}
	s := SweepStudy{ID: "S", Base: kvBase(t), Rates: List{100, 200}, Repeat: 1, Criteria: sweepCriteria}
	res, err := s.Run(context.Background(), envOf(l))
	if err != nil {
		t.Fatal(err)
	}
	if want := texts(sweepCriteria.Thresholds()); len(l.Measured) != 2 || texts(l.Measured[0].StudyThresholds) != want {
		t.Fatalf("the lab was handed %d runs, the first with bounds %q; want 2, with %q", len(l.Measured), texts(l.Measured[0].StudyThresholds), want)
	}
	for _, st := range res.Steps {
		if st.Verdict == nil || st.Verdict.Holds || !slices.Contains(st.Verdict.Reasons, "read p99 25.0 ms > 20 ms") {
			t.Errorf("step %s: verdict %+v, want it not to hold by the lab's p99 verdict (25 ms)", st.RunID, st.Verdict)
		}
	}

	l = &lab{Model: func(sc *spec.Scenario) outcome { return outcome{Achieved: float64(sc.Rate), P99: fl(2)} }, Overrule: fails}
	sla := SLA{P99: 20 * time.Millisecond}
	base := Base{Scenario: &spec.Scenario{Name: TestName, Workload: "ledger"}, Params: []string{"accounts=500"}}
	r, err := SLAStudy{SLA: sla, Rates: List{100}, Runs: 1, Modes: []string{"per-op"}, Base: base}.Run(context.Background(), envOf(l))
	if err != nil {
		t.Fatal(err)
	}
	if want := texts(sla.Thresholds()); texts(l.Measured[0].StudyThresholds) != want {
		t.Errorf("the lab was handed the SLA's bounds %q, want %q", texts(l.Measured[0].StudyThresholds), want)
	}
	if v := r.Runs[0].Verdict; v == nil || v.Pass || !slices.Contains(v.Reasons, "p99 25.0 ms > 20 ms") {
		t.Errorf("SLA run: verdict %+v, want a FAIL by the lab's p99 verdict (25 ms)", v)
	}
	if l.Kept[0].TestResults.Bounds == nil {
		t.Errorf("the kept run lacks the lab's bound verdicts (testResults.bounds)")
	}
}
