package study

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/plan"
	"github.com/mongobench/mongobench/internal/result"
)

// failedDoc is a stored run whose second threshold failed.
func failedDoc() *result.Doc {
	return &result.Doc{Thresholds: []result.ThresholdVerdict{
		{Expression: "errors < 1", Value: f(0), Unit: "errors", Pass: true},
		{Expression: "p99(READ) < 5ms", Value: f(7.1), Unit: "ms", Op: "READ"},
	}}
}

func TestThresholdReasons(t *testing.T) {
	got := ThresholdReasons(failedDoc())
	if want := []string{"threshold p99(READ) < 5ms failed: 7.1 ms (READ)"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestThresholdsJoinJudgements: a sweep step or an SLA run whose
// thresholds failed does not hold, with the threshold as the reason.
func TestThresholdsJoinJudgements(t *testing.T) {
	s := step(1000, 1000, 1, 1, 0)
	s.Thresholds = ThresholdReasons(failedDoc())
	if ok, why := Holds(s, crit); ok || !slices.Equal(why, s.Thresholds) {
		t.Errorf("step: holds %v %q, want it to fail on its threshold", ok, why)
	}
	r := passing()
	r.Thresholds = ThresholdReasons(failedDoc())
	if v := Judge(r, sla20); v.Pass || !slices.Equal(v.Reasons, r.Thresholds) {
		t.Errorf("run: %v, want it to fail on its threshold", v)
	}
}

func TestRequire(t *testing.T) {
	var r Require
	if err := r.Set("4/5"); err != nil || r != (Require{4, 5}) || r.String() != "4/5" {
		t.Errorf("Set(4/5): %v %+v", err, r)
	}
	for _, bad := range []string{"5", "0/5", "6/5", "a/b", "-1/3", "3/"} {
		if err := new(Require).Set(bad); err == nil || !strings.Contains(err.Error(), "want K/N with 1 <= K <= N") {
			t.Errorf("Set(%q): %v", bad, err)
		}
	}
	for _, c := range []struct{ k, n, want int }{{0, 1, 1}, {0, 2, 2}, {0, 3, 2}, {0, 5, 3}, {5, 5, 5}, {1, 5, 1}} {
		if got := Required(c.k, c.n); got != c.want {
			t.Errorf("Required(%d, %d) = %d, want %d", c.k, c.n, got, c.want)
		}
	}
}

// TestSLAVerdict: with a list of rates every mode at every rate must have
// the runs required; with the ladder, one that held is enough.
func TestSLAVerdict(t *testing.T) {
	run := func(mode string, tps float64, pass bool) Run {
		r := passing()
		r.Mode, r.TPS, r.Achieved = mode, tps, tps
		if !pass {
			r.P99 = f(25)
		}
		return r
	}
	four := []Run{run("per-op", 5000, true), run("per-op", 5000, true), run("per-op", 5000, true), run("per-op", 5000, false), run("per-op", 5000, false)}
	cases := []struct {
		name    string
		runs    []Run
		require Require
		rates   Search
		ok      bool
		why     string
	}{
		{"majority", four, Require{}, List{5000}, true, ""},
		{"below --require", four, Require{5, 5}, List{5000}, false, "per-op at 5,000 TPS: 3 of 5 runs passed, 5 required"},
		{"at --require", four, Require{3, 5}, List{5000}, true, ""},
		{"a mode fails", []Run{run("per-op", 5000, true), run("client-bulk", 5000, false)}, Require{}, List{5000}, false, "client-bulk at 5,000 TPS: 0 of 1 runs passed, 1 required"},
		{"ladder: one rate held", []Run{run("per-op", 5000, true), run("per-op", 5250, false)}, Require{}, Ladder{Start: 5000, Step: 250, Max: 9000}, true, ""},
		{"ladder: none held", []Run{run("per-op", 5000, false)}, Require{}, Ladder{Start: 5000, Step: 250, Max: 9000}, false, "no rate held: per-op at 5,000 TPS"},
		{"no runs", nil, Require{}, List{5000}, false, "the study measured no run"},
	}
	for _, c := range cases {
		s := sla20
		s.Require = c.require
		ok, why := SLAResult{Study: SLAStudy{SLA: s, Rates: c.rates}, Runs: c.runs}.Verdict()
		if ok != c.ok || !strings.HasPrefix(why, c.why) {
			t.Errorf("%s: got %v %q, want %v %q", c.name, ok, why, c.ok, c.why)
		}
	}
}

func TestSweepVerdict(t *testing.T) {
	held := SweepResult{Study: SweepStudy{Criteria: crit}, Steps: sweepSteps()}
	if ok, why := held.Verdict(); !ok {
		t.Errorf("a sweep in which 2,500/s held: %q", why)
	}
	none := SweepResult{Study: SweepStudy{Criteria: Criteria{SLA: time.Microsecond, MaxErrors: 0.01}}, Steps: sweepSteps()}
	if ok, why := none.Verdict(); ok || !strings.HasPrefix(why, "no target rate held (a step holds when achieved ≥ 95% of target, p99 of every operation ≤ 0.001 ms") {
		t.Errorf("a sweep in which nothing held: %v %q", ok, why)
	}
}

func TestPlanVerdict(t *testing.T) {
	pass := plan.Assessment{Checks: []plan.Check{{Pass: true}}}
	fail := plan.Assessment{Checks: []plan.Check{{Pass: false}}}
	if ok, _ := PlanVerdict(plan.Answer{Assessments: []plan.Assessment{fail, pass}}); !ok {
		t.Error("a plan with a candidate that meets its constraints failed")
	}
	if ok, why := PlanVerdict(plan.Answer{Assessments: []plan.Assessment{fail, fail}}); ok || !strings.HasPrefix(why, "no candidate meets the constraints") {
		t.Errorf("a plan with no candidate meeting its constraints: %v %q", ok, why)
	}
}
