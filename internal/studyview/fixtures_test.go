package studyview

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/mongobench/mongobench/internal/price"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
)

var f = result.F

// sla20 is the write-up's SLA: p99 ≤ 20 ms.
var sla20 = study.SLA{P99: 20 * time.Millisecond, MinRateFraction: 0.99}

// passing returns a run at 5,000 TPS that meets sla20, for cases to alter.
func passing() study.Run {
	return study.Run{Mode: "per-op", TPS: 5000, P50: f(3), P95: f(8), P99: f(12), P999: f(30), Max: f(60), Achieved: 4999}
}

// withP99 returns runs of mode at tps with the given p99s, each at its
// target rate, other percentiles in proportion.
func withP99(mode string, tps float64, p99s ...float64) []study.Run {
	var runs []study.Run
	for i, p := range p99s {
		r := passing()
		r.Mode, r.TPS, r.Rep, r.Achieved = mode, tps, i, tps
		r.P50, r.P95, r.P99, r.P999, r.Max = f(p*0.3), f(p*0.8), f(p), f(p*1.5), f(p*4)
		runs = append(runs, r)
	}
	return runs
}

// ptr formats an optional number for messages.
func ptr(p *float64) string {
	if p == nil {
		return "nil"
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

func fl(v float64) *float64 { return &v }

// step is a YCSB-B-like step: READ and UPDATE with the given p99s.
func step(rate, achieved, readP99, updateP99 float64, rep int) study.Step {
	return study.Step{Rate: rate, Achieved: achieved, Rep: rep, Count: int64(achieved * 10),
		Ops: []study.OpLatency{
			{Name: "READ", P50: fl(readP99 / 4), P95: fl(readP99 / 2), P99: fl(readP99)},
			{Name: "UPDATE", P50: fl(updateP99 / 4), P95: fl(updateP99 / 2), P99: fl(updateP99)},
		}}
}

// sweepSteps is an auto sweep: 1,000 and 2,000 hold, 4,000 saturates at
// 3,100/s, the bisection at 3,000 misses the SLA, 2,500 holds.
func sweepSteps() []study.Step {
	s4 := step(4000, 3100, 48, 95, 0)
	s4.Late = 4200
	s4.Limited = "limited by: server CPU, 1.9 of 2 cores (95%); disk IOPS 41%"
	s3 := step(3000, 2950, 12, 31, 0)
	s3.Errors = 40
	return []study.Step{step(1000, 1000, 1.2, 2.5, 0), step(2000, 1996, 2.1, 4.4, 0), s4, s3, step(2500, 2490, 5, 9.87, 0)}
}

var crit = study.Criteria{SLA: 20 * time.Millisecond, MaxErrors: 0.01}

var sweepCriteria = study.Criteria{MinFraction: study.DefaultSweepFraction, SLA: 20 * time.Millisecond, MaxErrors: 0.01}

// calibrationServer rises to 8 threads, then flattens while p99 climbs.
func calibrationServer(sc *spec.Scenario) outcome {
	at := map[int]outcome{1: {Achieved: 1500, P99: fl(1.1)}, 2: {Achieved: 2800, P99: fl(1.3)}, 4: {Achieved: 4700, P99: fl(2.0)}, 8: {Achieved: 5930, P99: fl(4.1)}, 16: {Achieved: 6054, P99: fl(9.8)}, 32: {Achieved: 6100, P99: fl(20)}}
	return at[sc.Threads]
}

// r6g saturates at 64.8k ops/s (target 80k), r5 at 29.8k (target 35k);
// they share the targets 10k, 20k and 40k.
func r6gSteps() []study.Step {
	return []study.Step{
		fStep("r6g", 320, 10000, 10000, 0.8, 1.6), fStep("r6g", 320, 20000, 19990, 0.9, 1.8),
		fStep("r6g", 320, 40000, 39950, 1.3, 2.6), fStep("r6g", 320, 80000, 64800, 210, 380),
		fStep("r6g", 320, 60000, 59800, 3.1, 6.3), fStep("r6g", 320, 70000, 64500, 190, 350),
	}
}

func r5Steps() []study.Step {
	return []study.Step{
		fStep("r5", 400, 10000, 10000, 1.1, 2.2), fStep("r5", 400, 20000, 19980, 1.6, 3.1),
		fStep("r5", 400, 40000, 29700, 420, 810), fStep("r5", 400, 30000, 29800, 4.2, 8.8),
		fStep("r5", 400, 35000, 29750, 300, 600),
	}
}

var cmpCrit = study.Criteria{SLA: 20 * time.Millisecond, MaxErrors: 0.01}

// usd is a price in US dollars per hour.
func usd(v float64) *price.Price {
	return &price.Price{Amount: v, Currency: "USD", Period: price.PerHour}
}

// sweepOf is a label's sweep of three target rates, reps repetitions
// each, its p99 at 4000/s slowed by slow (1: not slowed); the
// repetitions' jitter interleaves the two labels' values elsewhere.
func sweepOf(label, sweep string, reps int, slow float64, offset float64) study.Contender {
	c := study.Contender{Label: label}
	for i, rate := range []float64{1000, 2000, 4000} {
		for r := range reps {
			jitter := 1 + 0.01*float64((r*3+i)%5) + offset
			p99 := 2 * jitter
			achieved := rate * (0.99 + 0.002*float64(r) + offset/10)
			if rate == 4000 {
				p99 *= slow
			}
			c.Docs = append(c.Docs, stepDoc(label, sweep, i+1, rate, r, achieved, p99))
		}
	}
	return c
}

// interleaveEnv measures a run of each side as recorded throughputs: a's
// about rate, b's about bRate; the third run measured is judged invalid.
// It records the order of the sides measured and of the runs kept.
func interleaveEnv(bRate float64) (study.Env, *[]string, *[]string) {
	var measured, kept []string
	n := 0
	return study.Env{
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

func interleaveStudyOf(maxRuns int) study.InterleaveStudy {
	side := func(n string) study.InterleaveSide {
		return study.InterleaveSide{Name: n, Scenario: &spec.Scenario{Workload: "kv"}, Target: spec.Target{Label: n, URI: "mongodb://" + n + "/"}}
	}
	return study.InterleaveStudy{Sides: [2]study.InterleaveSide{side("a"), side("b")}, Plan: significance.Sequential{MinRuns: 5, MaxRuns: maxRuns},
		Judging: significance.Settings{Alpha: 0.05, Seed: 1}}
}

// curve is a closed-loop calibration on a 2-core machine: throughput
// rises to 8 threads, then flattens while p99 climbs.
func curve() []study.ThreadStep {
	return []study.ThreadStep{ts(1, 1500, fl(1.1)), ts(2, 2800, fl(1.3)), ts(4, 4700, fl(2.0)), ts(8, 5930, fl(4.1)), ts(16, 6054, fl(9.8))}
}

var cal = study.Calibration{Start: 1, Factor: 2, Max: 256}

// fStep is a YCSB-F-like step: half READ, half READ-MODIFY-WRITE.
func fStep(label string, cents float64, rate, achieved, readP99, rmwP99 float64) study.Step {
	return study.Step{Label: label, Sweep: "sweep-" + label, Workload: "ycsb-f", Cost: fl(cents),
		Rate: rate, Achieved: achieved, Count: int64(achieved * 10),
		Ops: []study.OpLatency{
			{Name: "READ", Rate: achieved / 2, P99: fl(readP99)},
			{Name: "READ-MODIFY-WRITE", Rate: achieved / 2, P99: fl(rmwP99)},
		}}
}

// stepDoc is one repetition of a sweep step: its achieved rate and its
// read p99 (the other percentiles in proportion).
func stepDoc(label, sweep string, step int, rate float64, rep int, achieved, p99 float64) result.Doc {
	p50, p95, p999 := p99/4, p99/2, p99*2
	return result.Doc{RunID: fmt.Sprintf("%s-%s-%d-%d", label, sweep, step, rep), Label: label, Repetition: rep,
		TestConfig: map[string]any{"workload": "kv"},
		Variant:    map[string]any{"sweep": sweep, "sweepStep": step, "targetRate": rate},
		Schedule:   result.Schedule{TargetRate: &rate, AchievedRate: achieved, SuccessRate: achieved},
		Ops: []result.OpStats{{Name: "read", Count: 1000, Rate: achieved,
			Latency: result.Dist{Count: 1000, P50: &p50, P95: &p95, P99: &p99, P999: &p999}}}}
}

func ts(threads int, achieved float64, p99 *float64) study.ThreadStep {
	return study.ThreadStep{Threads: threads, Achieved: achieved, P99: p99}
}
