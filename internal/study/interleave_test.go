package study

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/spec"
)

// interleaveEnv measures a run of each side as recorded throughputs: a's
// about rate, b's about bRate; the third run measured is judged invalid.
// It records the order of the sides measured and of the runs kept.
func interleaveEnv(bRate float64) (Env, *[]string, *[]string) {
	var measured, kept []string
	n := 0
	return Env{
		OnTarget: func(_ context.Context, t spec.Target, fn func(result.Instance) error) error {
			if t.URI != "mongodb://"+t.Label+"/" {
				return fmt.Errorf("target %+v", t)
			}
			return fn(result.Instance{})
		},
		Measure: func(_ context.Context, sc *spec.Scenario, _ result.Variant) (*result.Doc, error) {
			n++
			rate := 1000.0
			if sc.Label == "b" {
				rate = bRate
			}
			rate += float64(n % 7)
			measured = append(measured, sc.Label)
			d := &result.Doc{RunID: fmt.Sprint(n), Label: sc.Label, Repetition: sc.Repetition, Schedule: result.Schedule{AchievedRate: rate, SuccessRate: rate}}
			if n == 3 {
				d.Validity = &result.Validity{State: result.Invalid}
			}
			return d, nil
		},
		Keep: func(_ context.Context, d *result.Doc) error { kept = append(kept, d.RunID); return nil },
	}, &measured, &kept
}

func interleaveStudyOf(maxRuns int) InterleaveStudy {
	side := func(n string) InterleaveSide {
		return InterleaveSide{Name: n, Scenario: &spec.Scenario{Workload: "kv"}, Target: spec.Target{Label: n, URI: "mongodb://" + n + "/"}}
	}
	return InterleaveStudy{Sides: [2]InterleaveSide{side("a"), side("b")}, Plan: significance.Sequential{MinRuns: 5, MaxRuns: maxRuns},
		Judging: significance.Settings{Alpha: 0.05, Seed: 1}}
}

// An A/A comparison decides nothing worse or better; throughput stays
// within its minimum effect and the error rate at none, so it stops at
// the first look its intervals allow, never failing.
func TestInterleaveAA(t *testing.T) {
	env, _, _ := interleaveEnv(1000)
	r, err := interleaveStudyOf(10).Run(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range r.Rows {
		if row.Verdict == significance.Worse || row.Verdict == significance.Better {
			t.Errorf("A/A: %s %s", row.Metric.Name(), row.Verdict)
		}
	}
	if r.Failed() != nil || r.Look < 1 || r.Look > r.Looks {
		t.Errorf("A/A: failed %v at look %d of %d", r.Failed(), r.Look, r.Looks)
	}
}

func TestInterleaveCheck(t *testing.T) {
	s := interleaveStudyOf(20)
	s.Plan.MaxRuns = 3
	if err := s.Check(); err == nil || !strings.HasPrefix(err.Error(), "--max-runs: 3 is below --min-runs 5") {
		t.Errorf("max below min: %v", err)
	}
	s = interleaveStudyOf(20)
	s.Sides[1].Name = "a"
	if err := s.Check(); err == nil || !strings.Contains(err.Error(), `both sides are named "a"`) {
		t.Errorf("one name: %v", err)
	}
}
