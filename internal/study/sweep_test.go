package study

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

func fl(v float64) *float64 { return &v }

// step is a YCSB-B-like step: READ and UPDATE with the given p99s.
func step(rate, achieved, readP99, updateP99 float64, rep int) Step {
	return Step{Rate: rate, Achieved: achieved, Rep: rep, Count: int64(achieved * 10),
		Ops: []OpLatency{
			{Name: "READ", P50: fl(readP99 / 4), P95: fl(readP99 / 2), P99: fl(readP99)},
			{Name: "UPDATE", P50: fl(updateP99 / 4), P95: fl(updateP99 / 2), P99: fl(updateP99)},
		}}
}

// sweepSteps is an auto sweep: 1,000 and 2,000 hold, 4,000 saturates at
// 3,100/s, the bisection at 3,000 misses the SLA, 2,500 holds.
func sweepSteps() []Step {
	s4 := step(4000, 3100, 48, 95, 0)
	s4.Late = 4200
	s4.Limited = "limited by: server CPU, 1.9 of 2 cores (95%); disk IOPS 41%"
	s3 := step(3000, 2950, 12, 31, 0)
	s3.Errors = 40
	return []Step{step(1000, 1000, 1.2, 2.5, 0), step(2000, 1996, 2.1, 4.4, 0), s4, s3, step(2500, 2490, 5, 9.87, 0)}
}

var crit = Criteria{SLA: 20 * time.Millisecond, MaxErrors: 0.01}

func TestHolds(t *testing.T) {
	partial := step(1000, 1000, 1, 1, 0)
	partial.Partial = true
	errs := step(1000, 1000, 1, 1, 0)
	errs.Errors = 200 // of 10,000
	groupPartial := partial
	groupPartial.Missing = "client 2 of 3 stored no result"
	noLat := Step{Rate: 100, Achieved: 100}
	for _, tc := range []struct {
		name string
		s    Step
		c    Criteria
		want []string
	}{
		{"holds", step(1000, 950, 5, 19.9, 0), crit, nil},
		{"exactly 95%", step(1000, 950, 1, 1, 0), crit, nil},
		{"slow", step(1000, 949.9, 1, 1, 0), crit, []string{"achieved 949/s < 95% of 1,000/s"}},
		{"sla on one op", step(1000, 1000, 5, 25, 0), crit, []string{"UPDATE p99 25.0 ms > 20 ms"}},
		{"no sla", step(1000, 1000, 5, 25, 0), Criteria{MaxErrors: 0.01}, nil},
		{"errors", errs, crit, []string{"errors 2.00% > 1%"}},
		{"errors allowed", errs, Criteria{MaxErrors: 0.05}, nil},
		{"partial", partial, crit, []string{"run stopped early"}},
		{"group partial", groupPartial, crit, []string{"group result partial: client 2 of 3 stored no result"}},
		{"no latency", noLat, crit, []string{"no p99 recorded", "errors: no operation completed"}}, // "errors <= 1%" of nothing is missing, not 0%
		{"custom fraction", step(1000, 980, 1, 1, 0), Criteria{MinFraction: 0.99}, []string{"achieved 980/s < 99% of 1,000/s"}},
	} {
		ok, got := Holds(tc.s, tc.c)
		if ok != (len(tc.want) == 0) || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v %q, want %q", tc.name, ok, got, tc.want)
		}
	}
}

func TestSaturationAndMaxAtSLA(t *testing.T) {
	steps := sweepSteps()
	if ach, at := Saturation(steps); ach != 3100 || at != 4000 {
		t.Errorf("saturation: got %v at %v, want 3100 at 4000", ach, at)
	}
	if best, ok := MaxAtSLA(steps, crit); !ok || best != 2500 {
		t.Errorf("max at SLA: got %v %v, want 2500", best, ok)
	}
	if _, ok := MaxAtSLA(steps[2:4], crit); ok {
		t.Error("max at SLA: no step held, got one")
	}
	if ach, at := Saturation(nil); ach != 0 || at != 0 {
		t.Errorf("saturation of nothing: got %v %v", ach, at)
	}
	// With repetitions, a rate's saturation is the mean of its runs and it
	// holds when most runs do.
	reps := []Step{step(1000, 1000, 1, 1, 0), step(1000, 900, 1, 1, 1), step(1000, 980, 1, 1, 2),
		step(2000, 1500, 1, 1, 0), step(2000, 1700, 1, 1, 1)}
	if ach, at := Saturation(reps); ach != 1600 || at != 2000 {
		t.Errorf("saturation with repetitions: got %v at %v, want 1600 at 2000", ach, at)
	}
	if best, ok := MaxAtSLA(reps, crit); !ok || best != 1000 {
		t.Errorf("max at SLA with repetitions: got %v %v, want 1000 (2 of 3 held)", best, ok)
	}
}

func TestAutoNext(t *testing.T) {
	a := Auto{Start: 500, Factor: 2, Max: 100000}
	h := func(rates ...float64) []Trial { // positive held, negative failed
		var out []Trial
		for _, r := range rates {
			out = append(out, Trial{Value: math.Abs(r), Held: r > 0})
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		a     Auto
		tried []Trial
		want  float64 // 0: done
	}{
		{"start", a, nil, 500},
		{"grow", a, h(500, 1000), 2000},
		{"first bad: bisect", a, h(500, 1000, 2000, -4000), 3000},
		{"bisect down", a, h(500, 1000, 2000, -4000, -3000), 2500},
		{"bisect up", a, h(500, 1000, 2000, -4000, 3000), 3500},
		{"gap below 10%", a, h(500, 1000, 2000, -4000, 3000, -3500, 3250), 0},
		{"four bisections", Auto{Start: 1000, Factor: 10, Max: 1e6}, h(1000, -10000, -5500, -3250, -2125, -1562), 0},
		{"first step fails", a, h(-500), 0},
		{"capped at max", Auto{Start: 500, Factor: 4, Max: 5000}, h(500, 2000), 5000},
		{"max holds", Auto{Start: 500, Factor: 4, Max: 5000}, h(500, 2000, 5000), 0},
		{"start above max", Auto{Start: 500, Factor: 2, Max: 100}, nil, 0},
	} {
		got, ok := tc.a.Next(tc.tried)
		if !ok {
			got = 0
		}
		if got != tc.want {
			t.Errorf("%s: got %v (%v), want %v", tc.name, got, ok, tc.want)
		}
	}
	// Four bisections at most: after 1000 ok, 10000 bad the search runs
	// 5500, 3250, 2125, 1562 and stops.
	tried := h(1000)
	b := Auto{Start: 1000, Factor: 10, Max: 1e6}
	for {
		r, ok := b.Next(tried)
		if !ok {
			break
		}
		tried = append(tried, Trial{Value: r, Held: r <= 1000})
		if len(tried) > 20 {
			t.Fatal("search does not end")
		}
	}
	if got := len(tried); got != 6 {
		t.Errorf("bisection: tried %v, want 1000, 10000 and four bisections", tried)
	}
}

func TestSpreads(t *testing.T) {
	steps := []Step{
		step(1000, 990, 10, 2, 0), step(1000, 1000, 10.5, 2, 1), step(1000, 1010, 10.8, 2, 2), // p99 varies 8%
		step(2000, 1900, 10, 2, 0), step(2000, 2000, 12, 2, 1), // 20%
		step(3000, 2500, 10, 2, 0), // one run: no spread
	}
	sp := Spreads(steps)
	if len(sp) != 3 {
		t.Fatalf("got %d spreads, want 3", len(sp))
	}
	a := sp[0].Achieved
	if a.N != 3 || a.Mean != 1000 || a.Min != 990 || a.Max != 1010 || *a.Stddev != 10 || math.Abs(*a.CV-0.01) > 1e-12 {
		t.Errorf("1,000/s achieved: %s", show(a))
	}
	if p := sp[0].P99; math.Abs(p.Variation-0.08) > 1e-9 || sp[0].Unstable {
		t.Errorf("1,000/s p99: %s unstable %v, want 8%% and stable", show(p), sp[0].Unstable)
	}
	if p := sp[1].P99; math.Abs(p.Variation-0.2) > 1e-9 || !sp[1].Unstable || math.Abs(*p.Stddev-math.Sqrt2) > 1e-9 {
		t.Errorf("2,000/s p99: %s unstable %v, want 20%% apart, stddev √2, unstable", show(p), sp[1].Unstable)
	}
	if sp[2].Achieved.Stddev != nil || sp[2].Unstable {
		t.Errorf("one run: %s", show(sp[2].Achieved))
	}
}

func TestStepOf(t *testing.T) {
	d := &result.Doc{RunID: "r1", TestName: "ycsb-b", Repetition: 1,
		Variant:  map[string]any{"targetRate": 2000.0, "sweep": "sw1", "sweepStep": int32(3)},
		Schedule: result.Schedule{AchievedRate: 1990, Late: 7},
		Ops: []result.OpStats{
			{Name: "READ", Count: 3800, Errors: result.Errors{Total: 2}, Latency: result.Dist{P50: fl(1), P95: fl(2), P99: fl(3)}},
			{Name: "UPDATE", Count: 198, Latency: result.Dist{P99: fl(5)}},
		}}
	s, err := StepOf(d)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rate != 2000 || s.Achieved != 1990 || s.Sweep != "sw1" || s.Index != 3 || s.Rep != 1 || s.Late != 7 ||
		s.Errors != 2 || s.Count != 4000 || len(s.Ops) != 2 || *s.P99() != 5 || s.ErrorRate() != 0.0005 {
		t.Errorf("got %s", show(s))
	}
	if _, err := StepOf(&result.Doc{RunID: "r2"}); err == nil {
		t.Error("no target rate: want an error")
	}
	// the tail's line when it was judged, none when it was not
	line := "p99 tail: 71% of the operations above p99 fell in the 6% of seconds with disk writes above 300 MB/s"
	d.Diagnosis = &result.Diagnosis{Line: "limited by: nothing saturated", Tail: &result.Tail{Line: line}}
	if s, _ := StepOf(d); s.Tail != line || s.Limited != "limited by: nothing saturated" {
		t.Errorf("tail %q, limited %q", s.Tail, s.Limited)
	}
	d.Diagnosis.Tail = &result.Tail{Line: "p99 tail: could not judge: 3 intervals", NotJudged: "3 intervals"}
	if s, _ := StepOf(d); s.Tail != "" {
		t.Errorf("a tail not judged: %q, want none", s.Tail)
	}
}

// TestSaturationLeavesOutPartialSteps: a step stopped early (Ctrl-C) says
// nothing about what its rate sustains, so the saturation line is read
// from complete steps only.
func TestSaturationLeavesOutPartialSteps(t *testing.T) {
	cut := step(4000, 3900, 3, 6, 0)
	cut.Partial = true
	steps := []Step{step(1000, 1000, 1, 2, 0), step(2000, 1990, 2, 4, 0), cut}
	if got, at := Saturation(steps); got != 1990 || at != 2000 {
		t.Errorf("Saturation: got %v at %v, want 1990 at 2000 (the partial step left out)", got, at)
	}
	if got, at := Saturation([]Step{cut}); got != 0 || at != 0 {
		t.Errorf("Saturation of a partial step alone: got %v at %v, want 0, 0", got, at)
	}
}
