package study

import (
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/price"
	"github.com/mongobench/mongobench/internal/result"
)

// fStep is a YCSB-F-like step: half READ, half READ-MODIFY-WRITE.
func fStep(label string, cents float64, rate, achieved, readP99, rmwP99 float64) Step {
	return Step{Label: label, Sweep: "sweep-" + label, Workload: "ycsb-f", Cost: fl(cents),
		Rate: rate, Achieved: achieved, Count: int64(achieved * 10),
		Ops: []OpLatency{
			{Name: "READ", Rate: achieved / 2, P99: fl(readP99)},
			{Name: "READ-MODIFY-WRITE", Rate: achieved / 2, P99: fl(rmwP99)},
		}}
}

// r6g saturates at 64.8k ops/s (target 80k), r5 at 29.8k (target 35k);
// they share the targets 10k, 20k and 40k.
func r6gSteps() []Step {
	return []Step{
		fStep("r6g", 320, 10000, 10000, 0.8, 1.6), fStep("r6g", 320, 20000, 19990, 0.9, 1.8),
		fStep("r6g", 320, 40000, 39950, 1.3, 2.6), fStep("r6g", 320, 80000, 64800, 210, 380),
		fStep("r6g", 320, 60000, 59800, 3.1, 6.3), fStep("r6g", 320, 70000, 64500, 190, 350),
	}
}

func r5Steps() []Step {
	return []Step{
		fStep("r5", 400, 10000, 10000, 1.1, 2.2), fStep("r5", 400, 20000, 19980, 1.6, 3.1),
		fStep("r5", 400, 40000, 29700, 420, 810), fStep("r5", 400, 30000, 29800, 4.2, 8.8),
		fStep("r5", 400, 35000, 29750, 300, 600),
	}
}

var cmpCrit = Criteria{SLA: 20 * time.Millisecond, MaxErrors: 0.01}

func TestProfileOf(t *testing.T) {
	p := ProfileOf("r6g", r6gSteps(), nil, cmpCrit)
	if p.Saturation != 64800 || p.SaturationTarget != 80000 || !p.Saturated {
		t.Errorf("saturation: got %v at %v (saturated %v), want 64800 at 80000, saturated", p.Saturation, p.SaturationTarget, p.Saturated)
	}
	if p.Cost == nil || *p.Cost != 3.20 {
		t.Errorf("cost: got %s $/h, want the stored 320 cents = 3.20", ptr(p.Cost))
	}
	if p.MaxHeld == nil || *p.MaxHeld != 60000 {
		t.Errorf("highest held: got %s, want 60000", ptr(p.MaxHeld))
	}
	if want := 64800 * 3600 / 3.20; p.OpsPerDollar == nil || *p.OpsPerDollar != want {
		t.Errorf("ops per $: got %s, want %v", ptr(p.OpsPerDollar), want)
	}
	if len(p.Ops) != 2 || p.Ops[1].Name != "READ-MODIFY-WRITE" || p.Ops[1].Rate != 32400 {
		t.Errorf("ops at saturation: got %+v, want READ and READ-MODIFY-WRITE at 32,400/s", p.Ops)
	}
	given := ProfileOf("r6g", r6gSteps(), usd(2.5), cmpCrit)
	if *given.Cost != 2.5 {
		t.Errorf("given cost: got %v, want 2.5 over the stored 3.20", *given.Cost)
	}
	steady := ProfileOf("x", r6gSteps()[:3], nil, cmpCrit)
	if steady.Saturated || steady.Saturation != 39950 {
		t.Errorf("unsaturated sweep: got saturated %v at %v, want false and 39950 as a lower bound", steady.Saturated, steady.Saturation)
	}
	var noCost []Step
	for _, s := range r5Steps() {
		s.Cost = nil
		noCost = append(noCost, s)
	}
	if p := ProfileOf("r5", noCost, nil, cmpCrit); p.Cost != nil || p.OpsPerDollar != nil {
		t.Errorf("no cost: got %s $/h, %s ops/$; want both missing", ptr(p.Cost), ptr(p.OpsPerDollar))
	}
}

func TestCompare(t *testing.T) {
	a, b := ProfileOf("r6g", r6gSteps(), nil, cmpCrit), ProfileOf("r5", r5Steps(), nil, cmpCrit)
	p := Compare(a, b, cmpCrit)
	if got := SignedPercent(p.Saturation); got != "+117%" {
		t.Errorf("saturation ratio: got %s, want +117%%", got)
	}
	if p.Cost == nil || *p.Cost != 0.8 || p.PerDollar == nil || Times(*p.PerDollar) != "2.72×" {
		t.Errorf("cost %s, per dollar %s: want 0.8 and 2.72×", ptr(p.Cost), ptr(p.PerDollar))
	}
	var rates []float64
	for _, m := range p.Matched {
		rates = append(rates, m.Rate)
	}
	if len(rates) != 3 || rates[0] != 10000 || rates[2] != 40000 {
		t.Errorf("matched rates: got %v, want 10000 20000 40000", rates)
	}
	if p.Below != 1 || p.Above != 2 {
		t.Errorf("below/above: got %d/%d, want 1 (20,000/s) and 2 (40,000/s)", p.Below, p.Above)
	}
	if got := p.Matched[2].Regime("r6g", "r5"); got != "r5 saturated" {
		t.Errorf("regime at 40,000/s: got %q, want r5 saturated", got)
	}
}

func TestVerdict(t *testing.T) {
	a, b := ProfileOf("r6g", r6gSteps(), nil, cmpCrit), ProfileOf("r5", r5Steps(), nil, cmpCrit)
	for _, tc := range []struct {
		name string
		p    Pair
		want string
	}{
		{"faster and cheaper", Compare(a, b, cmpCrit),
			"r6g saturates at 64.8k ops/s, +117% over r5's 29.8k, at 20% lower cost: 2.72× the throughput per dollar. " +
				"Below saturation, at 20,000/s r6g p99 is 1.80 ms against 3.10 ms (−41.9%); at 40,000/s (r5 saturated) r6g p99 is 2.60 ms against 810 ms (−99.7%)."},
		{"slower and dearer", Compare(b, a, cmpCrit),
			"r5 saturates at 29.8k ops/s, 54% below r6g's 64.8k, at 25% higher cost: 0.368× the throughput per dollar. " +
				"Below saturation, at 20,000/s r5 p99 is 3.10 ms against 1.80 ms (+72.2%); at 40,000/s (r5 saturated) r5 p99 is 810 ms against 2.60 ms (312×)."},
		{"never saturated, no cost", Compare(ProfileOf("x", r6gSteps()[:3], usd(0), cmpCrit), withoutCost(b), cmpCrit),
			"x sustains at least 40k ops/s (it never saturated), +34.1% over r5's 29.8k. " +
				"Below saturation, at 20,000/s x p99 is 1.80 ms against 3.10 ms (−41.9%); at 40,000/s (r5 saturated) x p99 is 2.60 ms against 810 ms (−99.7%)."},
		{"many times faster, twice the cost", Compare(ProfileOf("z", r6gSteps()[3:4], usd(8), cmpCrit), ProfileOf("w", r6gSteps()[:1], usd(4), cmpCrit), cmpCrit),
			"z saturates at 64.8k ops/s, 6.48× w's 10k (a lower bound: it never saturated), at 2× the cost: 3.24× the throughput per dollar."},
		{"no shared rates, same cost", Compare(ProfileOf("y", r6gSteps()[3:4], usd(4), cmpCrit), b, cmpCrit),
			"y saturates at 64.8k ops/s, +117% over r5's 29.8k, at the same cost: 2.17× the throughput per dollar."},
	} {
		if got := tc.p.Verdict(); got != tc.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func withoutCost(p Profile) Profile {
	p.Cost, p.OpsPerDollar = nil, nil
	return p
}

func TestFormats(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Compact(64800), "64.8k"}, {Compact(30000), "30k"}, {Compact(830), "830"}, {Compact(1.25e6), "1.25M"},
		{Compact(999.7), "1k"}, {SignedPercent(2.1745), "+117%"}, {SignedPercent(0.8), "−20%"}, {SignedPercent(1), "+0%"}, {SignedPercent(3.5), "3.5×"},
		{percentText(0.2), "20%"}, {Times(2.718), "2.72×"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
}

// TestCostOf reads _id.instance.cost as stored, and refuses a non-number.
func TestCostOf(t *testing.T) {
	for _, tc := range []struct {
		name    string
		id      result.Ordered
		want    *float64
		wantErr bool
	}{
		{"stored", result.Ordered{{Key: "instance", Value: map[string]any{"cost": int64(320)}}}, fl(320), false},
		{"absent", result.Ordered{{Key: "testname", Value: "ycsb-b"}}, nil, false},
		{"not a number", result.Ordered{{Key: "instance", Value: map[string]any{"cost": "cheap"}}}, nil, true},
	} {
		got, _, err := costOf(&result.Doc{ID: tc.id})
		if (err != nil) != tc.wantErr || ptr(got) != ptr(tc.want) {
			t.Errorf("%s: got %s, %v; want %s, error %v", tc.name, ptr(got), err, ptr(tc.want), tc.wantErr)
		}
	}
}

func TestLatestSweep(t *testing.T) {
	old := Step{Sweep: "20261122T180000Z-aaaaaa", Rate: 1}
	late1 := Step{Sweep: "20261122T190000Z-bbbbbb", Rate: 2}
	late2 := Step{Sweep: "20261122T190000Z-bbbbbb", Rate: 3}
	got := LatestSweep([]Step{late1, old, late2})
	if len(got) != 2 || got[0].Rate != 2 || got[1].Rate != 3 {
		t.Errorf("got %+v, want the two steps of the 19:00 sweep in order", got)
	}
	if got := LatestSweep(nil); got != nil {
		t.Errorf("no steps: got %+v, want nil", got)
	}
}

// TestStepOfSkipsUnchosenOps keeps only the operation types that
// completed something: YCSB reports all five, a mix chooses some.
func TestStepOfSkipsUnchosenOps(t *testing.T) {
	d := &result.Doc{RunID: "r", Variant: map[string]any{"targetRate": 100.0, "sweep": "s", "sweepStep": 1},
		TestConfig: map[string]any{"workload": "ycsb-b"}, Label: "x",
		Ops: []result.OpStats{{Name: "READ", Count: 95, Rate: 95}, {Name: "INSERT"}, {Name: "UPDATE", Errors: result.Errors{Total: 5}}}}
	s, err := StepOf(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Ops) != 2 || s.Ops[0].Name != "READ" || s.Ops[1].Name != "UPDATE" || s.Workload != "ycsb-b" || s.Label != "x" || s.Cost != nil {
		t.Errorf("got %+v, want READ and UPDATE of ycsb-b, label x, no cost", s)
	}
}

// usd is a price in US dollars per hour.
func usd(v float64) *price.Price {
	return &price.Price{Amount: v, Currency: "USD", Period: price.PerHour}
}
