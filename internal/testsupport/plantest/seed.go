// Package plantest holds the seed study, a capacity plan with known
// numbers, as result documents for the tests of package plan and of the plan
// command.
package plantest

import (
	"fmt"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// Candidate is one candidate of the seed study: its monthly price in EUR,
// its nominal throughput and its READ and UPDATE p95 in ms.
type Candidate struct {
	Name               string
	Monthly            float64
	Throughput         float64
	ReadP95, UpdateP95 float64
}

// Seed is the seed study's shape: a baseline that 25,000 users put at 80%
// of the 8,000 ops/s it sustains, and five alternatives. With growth to
// 50,000 then 90,000 users and p95 read and update at most 5% worse than
// the baseline's, a is the answer for the first stage (160% more
// throughput for 48% more money) and b for the second (250% more for 73%
// more). c is cheaper than a and carries the first stage, but its reads
// are 12% slower; d is cheaper than b and carries the second, but its
// updates are 9% slower.
var Seed = []Candidate{
	{"base", 940, 8000, 2.0, 4.0},
	{"a", 1391, 20800, 2.0, 4.1},
	{"b", 1625, 28000, 1.9, 4.0},
	{"c", 1200, 14000, 2.24, 4.0},
	{"d", 1500, 30000, 2.0, 4.36},
	{"e", 694, 10000, 2.0, 4.1},
}

// RunFactors are the three runs' throughputs relative to the nominal one,
// whose run is the median.
var RunFactors = []float64{0.97, 1, 1.02}

// Docs returns the seed study as stored result documents of the plan
// named plan: three runs per candidate, YCSB-B shaped (95% READ, 5%
// UPDATE over a minute), with encoded histograms and server CPU.
func Docs(plan string) ([]*result.Doc, error) {
	var out []*result.Doc
	for _, c := range Seed {
		for rep, f := range RunFactors {
			d, err := doc(plan, c, rep, c.Throughput*f)
			if err != nil {
				return nil, err
			}
			out = append(out, d)
		}
	}
	return out, nil
}

func doc(plan string, c Candidate, rep int, thr float64) (*result.Doc, error) {
	reads, updates := int64(thr*0.95*60), int64(thr*0.05*60)
	rd, err := dist(c.ReadP95, reads)
	if err != nil {
		return nil, err
	}
	ud, err := dist(c.UpdateP95, updates)
	if err != nil {
		return nil, err
	}
	cpu := func(v float64) []result.DataPoint { return []result.DataPoint{{Value: &v}, {Value: &v}} }
	start := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(rep) * time.Hour)
	return &result.Doc{
		ID:    result.Ordered{{Key: "testname", Value: "ycsb-b"}, {Key: "plan", Value: plan}, {Key: "candidate", Value: c.Name}, {Key: "repetition", Value: rep}},
		RunID: fmt.Sprintf("seed-%s-%d", c.Name, rep), TestName: "ycsb-b", Label: c.Name, Repetition: rep,
		Start: start, End: start.Add(time.Minute), Duration: 60000,
		Variant:  map[string]any{"plan": plan, "candidate": c.Name},
		Schedule: result.Schedule{Mode: "closed", Workers: 16, AchievedRate: thr},
		Ops: []result.OpStats{
			{Name: "READ", Count: reads, Rate: float64(reads) / 60, Latency: rd},
			{Name: "UPDATE", Count: updates, Rate: float64(updates) / 60, Latency: ud},
		},
		Metrics: result.Metrics{Measurements: []result.Series{
			{Name: result.ProcessCPUUser, Units: "PERCENT", DataPoints: cpu(56)},
			{Name: result.ProcessCPUKernel, Units: "PERCENT", DataPoints: cpu(14)},
		}},
	}, nil
}

// dist is a latency distribution of n operations whose p95, p99 and
// maximum are p95 ms: 94% at half of it, 6% at it.
func dist(p95 float64, n int64) (result.Dist, error) {
	h := hist.New()
	for i := range int64(1000) {
		v := p95 / 2
		if i >= 940 {
			v = p95
		}
		hist.Record(h, time.Duration(v*float64(time.Millisecond)))
	}
	d, err := hist.Summarize(h)
	if err != nil {
		return d, err
	}
	d.Hist, err = hist.Encode(h)
	d.Count = n
	return d, err
}
