package study

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/plan"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/threshold"
)

// A study's verdict, which sets the command's exit code:
//
//   - sweep: it fails when no target rate held (a step holds when it meets
//     the criteria and its thresholds);
//   - sla: it fails when a mode at a rate has fewer passing runs than
//     required (--require K/N, by default a majority); with --tps auto,
//     when no rate held for any mode, since the ladder climbs until every
//     mode fails (a run passes when it meets the SLA and its thresholds);
//   - plan: it fails when no candidate meets the plan's constraints (a
//     candidate with a run whose thresholds failed meets none).
//
// Thresholds apply to each run of a study and are stored with it.

// ThresholdReasons says which of a run's stored thresholds failed, one
// reason each, such as "threshold p99 < 5ms failed: 7.1 ms (READ)".
func ThresholdReasons(d *result.Doc) []string {
	var out []string
	for _, v := range threshold.Failed(d.Thresholds) {
		out = append(out, "threshold "+v.Expression+" failed: "+threshold.Measured(v))
	}
	return out
}

// Verdict says whether the sweep found a rate that held, and if not, why.
func (r SweepResult) Verdict() (bool, string) {
	if len(r.Steps) == 0 {
		return false, "the sweep measured no step"
	}
	if _, ok := MaxAtSLA(r.Steps, r.Study.Criteria); ok {
		return true, ""
	}
	return false, fmt.Sprintf("no target rate held (a step holds when %s, and its thresholds hold)", r.Study.Criteria)
}

// Verdict says whether the SLA study passed, and if not, why: with a list
// of rates, every mode at every rate must have the runs required; with
// --tps auto, some mode at some rate must.
func (r SLAResult) Verdict() (bool, string) {
	sums := r.Summaries()
	if len(sums) == 0 {
		return false, "the study measured no run"
	}
	var failed []string
	held := false
	for _, s := range sums {
		if s.Held() {
			held = true
			continue
		}
		failed = append(failed, fmt.Sprintf("%s at %s TPS: %d of %d runs passed, %d required", s.Mode, thousands(s.TPS), s.Passed, s.Runs, Required(s.Need, s.Runs)))
	}
	if _, ladder := r.Study.Rates.(Ladder); ladder {
		if held {
			return true, ""
		}
		return false, "no rate held: " + strings.Join(failed, "; ")
	}
	if len(failed) == 0 {
		return true, ""
	}
	return false, strings.Join(failed, "; ")
}

// Required is how many of n runs must pass for a mode at a rate to hold:
// k when set, else a majority (more than half).
func Required(k, n int) int {
	if k > 0 {
		return k
	}
	return n/2 + 1
}

// Require is the value of sla --require: K/N, K runs of every N (N is
// --repeat) must pass. Zero is not given: a majority.
type Require struct{ K, N int }

// Set reads K/N with 1 <= K <= N.
func (r *Require) Set(text string) error {
	k, n, ok := strings.Cut(text, "/")
	kv, err1 := strconv.Atoi(strings.TrimSpace(k))
	nv, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || kv < 1 || kv > nv {
		return fmt.Errorf("%q is not a pass count: want K/N with 1 <= K <= N, N the --repeat, such as 5/5 or 3/5", text)
	}
	r.K, r.N = kv, nv
	return nil
}

// String is K/N, empty when not given.
func (r *Require) String() string {
	if r.K == 0 {
		return ""
	}
	return strconv.Itoa(r.K) + "/" + strconv.Itoa(r.N)
}

// Type names the value for command-line help.
func (*Require) Type() string { return "K/N" }

// PlanVerdict says whether some candidate of a plan's answer meets the
// plan's constraints (its thresholds included), whichever stages it
// carries; a stage no candidate carries is part of the answer, not a
// failure.
func PlanVerdict(ans plan.Answer) (bool, string) {
	for _, a := range ans.Assessments {
		if a.Passed() {
			return true, ""
		}
	}
	return false, "no candidate meets the constraints (see the candidates' checks)"
}
