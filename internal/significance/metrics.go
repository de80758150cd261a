package significance

import (
	"fmt"
	"maps"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// A Metric is one figure every run has once: the throughput, the error
// rate, or a latency percentile of an operation type read from the run's
// own histogram.
type Metric struct {
	Stat   string // throughput, errors, p50, p95, p99, p99.9
	Op     string // the operation type of a percentile
	Unit   string // ops/s, %, ms
	Better Direction
}

// Name is how the metric is written: "throughput", "errors", "p99 READ".
func (m Metric) Name() string {
	if m.Op == "" {
		return m.Stat
	}
	return m.Stat + " " + m.Op
}

// ParseMetric reads a metric's name as Name writes it.
func ParseMetric(name string) (Metric, error) {
	stat, op, _ := strings.Cut(name, " ")
	m := Metric{Stat: stat, Op: op}
	switch stat {
	case "throughput":
		m.Unit, m.Better = "ops/s", HigherIsBetter
	case "errors":
		m.Unit, m.Better = "%", LowerIsBetter
	case "p50", "p95", "p99", "p99.9":
		m.Unit, m.Better = "ms", LowerIsBetter
		if op == "" {
			return m, fmt.Errorf("metric %q: a percentile names its operation type, such as %q", name, stat+" READ")
		}
	default:
		return m, fmt.Errorf("metric %q: want throughput, errors, or p50, p95, p99, p99.9 and an operation type", name)
	}
	if (stat == "throughput" || stat == "errors") && op != "" {
		return m, fmt.Errorf("metric %q: %s is the run's, not an operation type's", name, stat)
	}
	return m, nil
}

// percentiles are the latency percentiles a run is judged on.
var percentiles = []struct {
	stat string
	p    float64
}{{"p50", 50}, {"p95", 95}, {"p99", 99}, {"p99.9", 99.9}}

// DefaultMinEffect is the smallest relative change that counts for each
// kind of metric: tails move more from run to run than medians do.
var DefaultMinEffect = map[string]float64{
	"throughput": 0.05, "p50": 0.05, "p95": 0.05, "p99": 0.10, "p99.9": 0.20,
	"errors": 0, // judged by ErrorsMinAbs instead
}

// ErrorsMinAbs is the smallest change of the error rate that counts, in
// percentage points.
const ErrorsMinAbs = 0.1

// JudgeFor is the judge of a metric: its direction and the minimum
// effect of its kind, from minEffect when it names the kind (or the
// metric's full name), else the default.
func JudgeFor(m Metric, minEffect map[string]float64, seed uint64) Judge {
	j := Judge{Better: m.Better, Seed: seed, MinEffect: DefaultMinEffect[m.Stat]}
	if m.Stat == "errors" {
		j.MinAbs = ErrorsMinAbs
	}
	for _, k := range []string{m.Stat, m.Name()} {
		if v, ok := minEffect[k]; ok {
			if m.Stat == "errors" {
				j.MinAbs = v * 100 // given as a share; the rate is in percent
			} else {
				j.MinEffect = v
			}
		}
	}
	return j
}

// Values are one run's figures by metric name. A figure the run does not
// have (an operation type it did not run, no operation completed) is
// absent, never zero.
type Values map[string]float64

// RunValues reads a run's metrics: the success throughput, the share of
// failed operations (percent), and each operation type's latency
// percentiles from its stored histogram (the stored percentiles, which
// the histogram gave, when a document has none).
func RunValues(d *result.Doc) (Values, error) {
	v := Values{}
	if d.Schedule.AchievedRate > 0 || d.Schedule.SuccessRate > 0 {
		v["throughput"] = d.Schedule.SuccessRate
	}
	if d.Schedule.AchievedRate > 0 { // a share of no operations is missing, not infinite
		v["errors"] = 100 * d.Schedule.FailedRate / d.Schedule.AchievedRate
	}
	for i := range d.Ops {
		op := &d.Ops[i]
		if op.Latency.Count == 0 {
			continue
		}
		if op.Latency.Hist != "" {
			h, err := hist.FromDist(op.Latency)
			if err != nil {
				return nil, fmt.Errorf("run %s, %s latency: %w", d.RunID, op.Name, err)
			}
			for _, p := range percentiles {
				if ms := hist.Percentile(h, p.p); ms != nil {
					v[p.stat+" "+op.Name] = *ms
				}
			}
			continue
		}
		for _, p := range percentiles {
			if ms := op.Latency.Percentile(p.stat); ms != nil {
				v[p.stat+" "+op.Name] = *ms
			}
		}
	}
	maps.DeleteFunc(v, func(_ string, x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }) // a stored figure that is no number is missing
	return v, nil
}

// SortMetrics orders metric names as tables show them: throughput, errors,
// then each operation type's percentiles, low to high.
func SortMetrics(names []string) {
	rank := func(n string) (int, string, int) {
		m, _ := ParseMetric(n)
		switch m.Stat {
		case "throughput":
			return 0, "", 0
		case "errors":
			return 1, "", 0
		}
		for i, p := range percentiles {
			if p.stat == m.Stat {
				return 2, m.Op, i
			}
		}
		return 3, n, 0
	}
	sort.SliceStable(names, func(a, b int) bool {
		ga, oa, ia := rank(names[a])
		gb, ob, ib := rank(names[b])
		if ga != gb {
			return ga < gb
		}
		if oa != ob {
			return oa < ob
		}
		return ia < ib
	})
}

// maxMinEffect bounds a minimum effect, in percent: a change of ten
// times.
const maxMinEffect = 1000

// ParseMinEffect reads one minimum effect, KIND=PERCENT (a kind of
// DefaultMinEffect or a metric's name, a percent from 0 to 1000, the %
// optional), into the kind and the fraction.
func ParseMinEffect(s string) (string, float64, error) {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	pct, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "%"), 64)
	if !ok || err != nil || !(pct >= 0 && pct <= maxMinEffect) { // NaN too
		return "", 0, fmt.Errorf("want KIND=PERCENT, a percent from 0 to %d, such as p99=10%% or throughput=3%%", maxMinEffect)
	}
	if _, kind := DefaultMinEffect[k]; !kind {
		if _, err := ParseMetric(k); err != nil {
			return "", 0, err
		}
	}
	return k, pct / 100, nil
}
