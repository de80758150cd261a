package plan

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/threshold"
)

// pacedRun is a run of a stage that achieved rate ops/s, its one
// operation type's latencies all lat.
func pacedRun(t *testing.T, stage string, rate float64, lat time.Duration) Run {
	t.Helper()
	h := hist.New()
	for range 1000 {
		hist.Record(h, lat)
	}
	d, err := hist.Summarize(h)
	if err != nil {
		t.Fatal(err)
	}
	return Run{RunID: stage, Stage: stage, Throughput: rate, Ops: map[string]result.Dist{"S1": d},
		Completed: 1000, Counts: map[string]OpCount{"S1": {Completed: 1000}}}
}

func constraints(t *testing.T, ss ...string) []threshold.Threshold {
	t.Helper()
	var out []threshold.Threshold
	for _, s := range ss {
		c, err := threshold.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// TestPacedPlan: a recording replayed at ×1 and ×2 on three candidates.
// At ×1 all keep the rate and the cheapest (small) is chosen; at ×2
// small falls behind (kept 80%), medium keeps the rate but its p99 is
// over the bound, and large carries it. Each stage is judged on its own
// runs, and a candidate's own figures are its first stage's.
func TestPacedPlan(t *testing.T) {
	p := Plan{Paced: true, Constraints: constraints(t, "p99 <= 10ms", "errors <= 1%"),
		Demand: Demand{Stages: []Stage{{Name: "today", Growth: 1, Rate: 100}, {Name: "next", Growth: 2, Rate: 200}}}}
	p.Candidates = []Candidate{
		{Name: "small", Baseline: true, Monthly: 100, Currency: "USD",
			Runs: []Run{pacedRun(t, "today", 99.5, 2*time.Millisecond), pacedRun(t, "next", 160, 30*time.Millisecond)}},
		{Name: "medium", Monthly: 200, Currency: "USD",
			Runs: []Run{pacedRun(t, "today", 99.9, time.Millisecond), pacedRun(t, "next", 199, 12*time.Millisecond)}},
		{Name: "large", Monthly: 400, Currency: "USD",
			Runs: []Run{pacedRun(t, "today", 100, time.Millisecond), pacedRun(t, "next", 199.8, 3*time.Millisecond)}},
	}
	a, err := Evaluate(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := choices(a); len(got) != 2 || got[0] != "small" || got[1] != "large" {
		t.Fatalf("choices %v, want small for today and large for next", got)
	}
	if r := rejection(a.Stages[1], "small"); !strings.Contains(r, "kept 160 ops/s of the 200 the stage replays (80%, under 95%)") {
		t.Errorf("next: small rejected for %q, want it fell behind", r)
	}
	if r := rejection(a.Stages[1], "medium"); !strings.Contains(r, "p99") {
		t.Errorf("next: medium rejected for %q, want its p99", r)
	}
	if got := a.Stages[1].Kept; math.Abs(got-0.999) > 1e-9 {
		t.Errorf("next: large kept %v of the rate, want 0.999", got)
	}
	if m := a.find("medium"); m.Throughput != 99.9 || m.Repetitions != 1 {
		t.Errorf("medium's own figures are %v ops/s over %d runs, want its first stage's (99.9 over 1)", m.Throughput, m.Repetitions)
	}
	var b strings.Builder
	if err := WriteStages(&b, a, false); err != nil {
		t.Fatal(err)
	}
	table := b.String()
	for _, want := range []string{"×2", "❌ fell behind (kept 80%)", "❌ constraints (kept 99.5%)", "✅ kept 99.9%"} {
		if !strings.Contains(table, want) {
			t.Errorf("stages table lacks %q:\n%s", want, table)
		}
	}
	lines := strings.Join(Verdicts(a), "\n")
	if !strings.Contains(lines, "next (×2 the recording, 200 ops/s): large carries it (kept 99.9% of the rate, within the constraints), for 300% more money than small.") {
		t.Errorf("verdicts:\n%s", lines)
	}

	// A headroom constraint has nothing to judge in a paced plan.
	p.Constraints = constraints(t, "headroom >= 20%")
	if _, err := Evaluate(p); err == nil || !strings.Contains(err.Error(), "headroom") {
		t.Errorf("headroom in a paced plan: got %v, want an error naming it", err)
	}
	// A stage without runs is rejected with the reason, not guessed.
	p.Constraints = nil
	p.Candidates[2].Runs = p.Candidates[2].Runs[:1]
	a, err = Evaluate(p)
	if err != nil {
		t.Fatal(err)
	}
	if r := rejection(a.Stages[1], "large"); r != "no runs at this stage" {
		t.Errorf("large without runs at next: %q", r)
	}
}
