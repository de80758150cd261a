package plan

import (
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
)

// TestFailedThresholdsReject: a candidate with a stored run whose
// thresholds failed meets no constraint check, so it carries no stage;
// in the seed study a then loses stage 1, which c cannot take (its reads
// are slower), and b carries both stages.
func TestFailedThresholdsReject(t *testing.T) {
	p := seedPlan(t, nil)
	for i, c := range p.Candidates {
		if c.Name == "a" {
			d := &result.Doc{RunID: "a-1", Thresholds: []result.ThresholdVerdict{{Expression: "p99(READ) < 1ms", Value: result.F(2.5), Unit: "ms", Op: "READ"}}}
			p.Candidates[i].Runs[0].FailedThresholds = RunOf(d).FailedThresholds
		}
	}
	ans, err := Evaluate(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(choices(ans), ","); got != "b,b" {
		t.Errorf("choices %q, want b,b", got)
	}
	for _, a := range ans.Assessments {
		if a.Name != "a" {
			continue
		}
		last := a.Checks[len(a.Checks)-1]
		if a.Passed() || last.Constraint != "thresholds" || last.Reason != "thresholds failed: run "+a.Candidate.Runs[0].RunID+": p99(READ) < 1ms (2.5 ms (READ))" {
			t.Errorf("a: passed %v, last check %+v", a.Passed(), last)
		}
	}
}
