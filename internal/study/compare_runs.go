package study

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/significance"
)

// ErrNoRuns is a label of compare --runs without a complete single run
// stored.
var ErrNoRuns = errors.New("no complete single run with this label")

// CompareRunsStudy is mongobench compare --runs: each label's stored
// single runs (of Workload, when given) compared with the first label's,
// metric by metric, one value per run (significance.Table): a real
// difference or noise.
type CompareRunsStudy struct {
	Labels   []string
	Workload string
	// Judging is how each table judges its metrics: minimum effects,
	// the significance level of the adjusted p-values, the correction
	// for their number, the bootstraps' seed.
	Judging significance.Settings
}

// Check says what is wrong with the comparison's settings, naming their
// flags.
func (s CompareRunsStudy) Check() error {
	if len(s.Labels) < 2 {
		return fmt.Errorf("--label: compare --runs needs at least two labels, got %d", len(s.Labels))
	}
	return CheckJudging(s.Judging)
}

// CheckJudging says what is wrong with the settings of significance,
// naming their flags.
func CheckJudging(j significance.Settings) error {
	if !(j.Alpha > 0 && j.Alpha < 1) { // NaN too
		return fmt.Errorf("--alpha: %g is not valid: want a p-value between 0 and 1, such as 0.05", j.Alpha)
	}
	if _, err := significance.ParseCorrection(string(j.Corrected())); err != nil {
		return fmt.Errorf("--correction: %w", err)
	}
	return nil
}

// RunsComparison is compare --runs' answer: the first label's runs
// against each other label's.
type RunsComparison struct {
	Base     string
	BaseRuns int
	BaseIDs  []string // the first label's runs' ids
	Pairs    []RunsPair
	Judging  significance.Settings
}

// RunsPair is one label's runs against the first label's.
type RunsPair struct {
	Label string
	Runs  int
	IDs   []string // the label's runs' ids
	Rows  []significance.Row
	// Canary compares the client host's noise canaries of the label's
	// runs with the first label's (taken before and after each run).
	Canary []significance.CanaryShift
}

// canaries are the noise canaries stored with runs, before and after.
func canaries(docs []result.Doc) []result.Canary {
	var out []result.Canary
	for _, d := range docs {
		out = append(out, d.Canary.Readings()...)
	}
	return out
}

// Run compares the labels' runs among docs, the stored runs of the store
// where names. A label without a run is ErrNoRuns, naming it.
func (s CompareRunsStudy) Run(docs []result.Doc, where string) (RunsComparison, error) {
	byLabel := map[string][]result.Doc{}
	for _, d := range docs {
		if SingleRunOf(&d, s.Workload) {
			byLabel[d.Label] = append(byLabel[d.Label], d)
		}
	}
	for _, l := range s.Labels {
		if len(byLabel[l]) == 0 {
			return RunsComparison{}, fmt.Errorf("--label %s: %w in %s", l, ErrNoRuns, where)
		}
	}
	base := byLabel[s.Labels[0]]
	c := RunsComparison{Base: s.Labels[0], BaseRuns: len(base), BaseIDs: runIDs(base), Judging: s.Judging}
	for _, other := range s.Labels[1:] {
		rows, err := significance.Table(base, byLabel[other], s.Judging)
		if err != nil {
			return RunsComparison{}, err
		}
		c.Pairs = append(c.Pairs, RunsPair{Label: other, Runs: len(byLabel[other]), IDs: runIDs(byLabel[other]), Rows: rows,
			Canary: significance.Canaries(canaries(base), canaries(byLabel[other]))})
	}
	return c, nil
}

func runIDs(docs []result.Doc) []string {
	out := make([]string, len(docs))
	for i := range docs {
		out[i] = docs[i].RunID
	}
	return out
}

// SingleRunOf says whether d is a whole, complete single run (no sweep
// step, no client's part of a group) of workload (any when ""): what
// compare --runs compares.
func SingleRunOf(d *result.Doc, workload string) bool {
	if d.Partial || (d.Group != nil && d.Group.ClientIndex != nil) || result.VariantOf(d).Sweep != nil {
		return false
	}
	w, _ := d.TestConfig["workload"].(string)
	return workload == "" || w == workload
}

// Regressions name the metrics significantly worse than the first
// label's by at least their minimum effect, with the label.
func (c RunsComparison) Regressions() []string {
	var worse []string
	for _, p := range c.Pairs {
		for _, r := range significance.Regressions(p.Rows) {
			worse = append(worse, fmt.Sprintf("%s %s (%+.1f%%, adj. p %s)", p.Label, r.Metric.Name(), 100*r.Delta, significance.PText(r.P)))
		}
	}
	return worse
}

// Failed is the failed verdict of --fail-on-regression: nil when no
// metric is significantly worse.
func (c RunsComparison) Failed() error {
	if worse := c.Regressions(); len(worse) > 0 {
		return VerdictFailed("regression: %s", strings.Join(worse, "; "))
	}
	return nil
}

// JSON is the comparison as --json prints it: the first label and its
// runs, then per other label its runs and each metric's medians, change,
// p-value (adjusted for the table's number of metrics), ratio interval
// and verdict; a figure that is not defined (no value, a zero base) is
// null, never 0.
func (c RunsComparison) JSON() any {
	type metric struct {
		Metric     string   `json:"metric"`
		Unit       string   `json:"unit"`
		BaseMedian *float64 `json:"baseMedian"`
		Median     *float64 `json:"median"`
		Change     *float64 `json:"change"`
		P          *float64 `json:"p"`
		RatioLo    *float64 `json:"ratioLo"`
		RatioHi    *float64 `json:"ratioHi"`
		Verdict    string   `json:"verdict"`
		Reason     string   `json:"reason,omitempty"`
	}
	type pair struct {
		Label   string   `json:"label"`
		Runs    []string `json:"runs"`
		Metrics []metric `json:"metrics"`
	}
	out := struct {
		Base  string   `json:"base"`
		Runs  []string `json:"runs"`
		Pairs []pair   `json:"pairs"`
	}{Base: c.Base, Runs: c.BaseIDs, Pairs: []pair{}}
	for _, p := range c.Pairs {
		pp := pair{Label: p.Label, Runs: p.IDs, Metrics: []metric{}}
		for _, r := range p.Rows {
			m := metric{Metric: r.Metric.Name(), Unit: r.Metric.Unit, Verdict: string(r.Verdict), Reason: r.Reason,
				Change: finite(r.Delta), P: finite(r.P), RatioLo: finite(r.Ratio.Lo), RatioHi: finite(r.Ratio.Hi)}
			if r.Base.N > 0 {
				m.BaseMedian = finite(r.Base.Median)
			}
			if r.Other.N > 0 {
				m.Median = finite(r.Other.Median)
			}
			pp.Metrics = append(pp.Metrics, m)
		}
		out.Pairs = append(out.Pairs, pp)
	}
	return out
}

// finite is v, or nil when it is not a finite number.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
