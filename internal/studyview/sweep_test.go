package studyview

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/testsupport/golden"
	"github.com/mongobench/mongobench/internal/textreport"
)

// sweepText is the terminal's view of a sweep of steps under c.
func sweepText(t *testing.T, steps []study.Step, c study.Criteria) string {
	t.Helper()
	var b strings.Builder
	res := study.SweepResult{Study: study.SweepStudy{Criteria: c, Base: study.Base{Scenario: &spec.Scenario{Workload: "kv"}}}, Steps: steps}
	if err := textreport.Study(&b, Sweep(res, nil)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestSweepRender(t *testing.T) {
	reps := []study.Step{
		step(1000, 990, 10, 2, 0), step(1000, 1000, 10.5, 2, 1), step(1000, 1010, 10.8, 2, 2),
		step(2000, 1900, 10, 2, 0), step(2000, 2000, 12, 2, 1),
	}
	golden.Check(t, "sweep.txt", []byte(sweepText(t, sweepSteps(), crit)))
	golden.Check(t, "spread.txt", []byte(sweepText(t, reps, crit)))
	if got := sweepText(t, sweepSteps()[2:3], crit); !strings.Contains(got, "No target rate held (achieved ≥ 95% of target, p99 of every operation ≤ 20 ms, errors ≤ 1%).") {
		t.Errorf("no rate held: got\n%s", got)
	}
}

// TestSweepWithoutSaturation: a sweep in which every target rate was
// kept up with found no saturation; its line gives the highest achieved
// rate as a lower bound, as compare does, never as the saturation
// throughput.
func TestSweepWithoutSaturation(t *testing.T) {
	crit := study.Criteria{SLA: 20 * time.Millisecond, MaxErrors: 0.01}
	kept := []study.Step{step(1000, 1000, 1, 2, 0), step(2000, 1990, 2, 4, 0)}
	if want, got := "Saturation throughput: ≥ 1,990 ops/s (no step saturated", sweepText(t, kept, crit); !strings.Contains(got, want) {
		t.Errorf("every step kept up: want %q in\n%s", want, got)
	}
	if study.Saturated(kept, crit) {
		t.Errorf("Saturated: got true for steps that all kept up")
	}
	behind := append(kept, step(4000, 2100, 9, 30, 0))
	if want, got := "Saturation throughput: 2,100 ops/s achieved", sweepText(t, behind, crit); !strings.Contains(got, want) || strings.Contains(got, "≥ 2,100") {
		t.Errorf("a step fell behind: want %q in\n%s", want, got)
	}
}

// The sweep's verdict says what the tail coincided with in the step past
// the knee (the lowest target above the saturation target), each
// repetition's distinct line once; with no step past it, the knee's own.
func TestKneeTail(t *testing.T) {
	disk := "p99 tail: 80% of the operations above p99 fell in the 10% of seconds with disk writes above 300 MB/s"
	ckpt := "p99 tail: 64% of the operations above p99 fell in the 12% of seconds with a checkpoint running"
	knee := step(3000, 3000, 5, 9, 0)
	knee.Tail = "p99 tail: nothing the run measured lines up with its 90 operations above p99 (6 series compared)"
	past1, past2 := step(4000, 2900, 40, 90, 0), step(4000, 2950, 42, 95, 1)
	past1.Tail, past2.Tail = disk, ckpt
	far := step(8000, 2800, 80, 190, 0)
	far.Tail = "p99 tail: 90% of the operations above p99 fell in the 20% of seconds with iowait above 20 %"
	lines := sweepVerdict([]study.Step{step(1000, 1000, 1, 2, 0), knee, far, past1, past2}, crit)
	want := "Past the knee (target 4,000/s), what the tail coincided with: " + disk + " | " + ckpt + "."
	if !slices.Contains(lines, want) {
		t.Fatalf("verdict %q: want %q", lines, want)
	}
	knee.Achieved = 2500 // the top target, not kept up with: no step past it
	lines = sweepVerdict([]study.Step{step(1000, 1000, 1, 2, 0), knee}, crit)
	want = "At the knee (target 3,000/s), what the tail coincided with: " + knee.Tail + "."
	if !slices.Contains(lines, want) {
		t.Fatalf("verdict %q: want %q", lines, want)
	}
}
