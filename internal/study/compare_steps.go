package study

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/significance"
)

// StepRows is one target rate both compared sweeps ran, each metric
// judged with the repetitions of the step as the unit of sampling: one
// value per repeated run (significance.RunValues), A's runs against B's,
// so that "worse" is A worse than B, as the ratio tables read A against
// B.
type StepRows struct {
	Rate  float64            `json:"target"`
	ARuns int                `json:"aRuns"`
	BRuns int                `json:"bRuns"`
	Rows  []significance.Row `json:"metrics"`
}

// Judged says whether the step has a verdict on some metric: enough
// repetitions on both sides.
func (s StepRows) Judged() bool {
	return slices.ContainsFunc(s.Rows, func(r significance.Row) bool {
		return r.Verdict != significance.TooFew && r.Verdict != significance.Missing
	})
}

// sweepRuns is a latest sweep's complete runs by target rate: whole
// steps (no client's part of a group, none stopped early).
func sweepRuns(docs []result.Doc, sweep string) (map[float64][]result.Doc, error) {
	out := map[float64][]result.Doc{}
	for i := range docs {
		d := &docs[i]
		if s := result.VariantOf(d).Sweep; s == nil || *s != sweep || d.Partial || (d.Group != nil && d.Group.ClientIndex != nil) {
			continue
		}
		rate, err := targetRate(d)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", d.RunID, err)
		}
		out[rate] = append(out[rate], *d)
	}
	return out, nil
}

// compareSteps judges, at each target rate both sweeps ran (ascending),
// every metric of A's repetitions against B's; the p-values of all the
// steps and metrics are corrected together, as one family.
func compareSteps(a, b map[float64][]result.Doc, j significance.Settings) ([]StepRows, error) {
	var rates []float64
	for r := range a {
		if _, ok := b[r]; ok {
			rates = append(rates, r)
		}
	}
	slices.Sort(rates)
	out := make([]StepRows, 0, len(rates))
	tables := make([][]significance.Row, 0, len(rates))
	for _, r := range rates {
		rows, err := significance.Rows(b[r], a[r], j)
		if err != nil {
			return nil, err
		}
		out = append(out, StepRows{Rate: r, ARuns: len(a[r]), BRuns: len(b[r]), Rows: rows})
		tables = append(tables, rows)
	}
	significance.Correct(j.Corrected(), tables...)
	return out, nil
}

// StepsVerdict is the sentence on the steps' significance: the metrics
// significantly worse and better, at which target; that none is; or why
// no step could be judged and how many repetitions it would take.
func (p Pair) StepsVerdict(j significance.Settings) string {
	if len(p.Steps) == 0 {
		return ""
	}
	how := fmt.Sprintf("repetitions as samples, %s at %g", j.Corrected().Describe(), j.Level())
	judged, fewest := 0, 0
	var worse, better []string
	for _, s := range p.Steps {
		if !s.Judged() {
			if n := min(s.ARuns, s.BRuns); fewest == 0 || n < fewest {
				fewest = n
			}
			continue
		}
		judged++
		for _, r := range s.Rows {
			what := fmt.Sprintf("%s at %s/s (%s, adj. p %s)", r.Metric.Name(), thousands(s.Rate), DeltaText(r.Comparison), significance.PText2(r.P))
			switch r.Verdict {
			case significance.Worse:
				worse = append(worse, what)
			case significance.Better:
				better = append(better, what)
			}
		}
	}
	need := significance.RunsNeeded(j.Level())
	if judged == 0 {
		return fmt.Sprintf("Per step: no verdict: the steps both sweeps ran have at most %d repetitions a side; a difference at p < %g needs at least %d repetitions of each step on each side (sweep --repeat %d).",
			maxRuns(p.Steps), j.Level(), need, need)
	}
	s := fmt.Sprintf("Per step (%s), %d of %d steps judged: ", how, judged, len(p.Steps))
	switch {
	case len(worse)+len(better) == 0:
		s += fmt.Sprintf("no metric of %s differs significantly from %s's", p.A.Label, p.B.Label)
	default:
		var parts []string
		if len(worse) > 0 {
			parts = append(parts, p.A.Label+" worse: "+strings.Join(worse, "; "))
		}
		if len(better) > 0 {
			parts = append(parts, p.A.Label+" better: "+strings.Join(better, "; "))
		}
		s += strings.Join(parts, "; ")
	}
	if judged < len(p.Steps) {
		s += fmt.Sprintf("; the other steps have too few repetitions (%d a side; %d needed)", fewest, need)
	}
	return s + "."
}

func maxRuns(steps []StepRows) int {
	n := 0
	for _, s := range steps {
		n = max(n, min(s.ARuns, s.BRuns))
	}
	return n
}

// DeltaText is A's difference from B: a signed percentage of B's
// median, the plain difference when B's median is 0, "—" when missing.
func DeltaText(c significance.Comparison) string {
	switch {
	case c.Verdict == significance.Missing:
		return "—"
	case c.Base.Median == 0:
		return fmt.Sprintf("%+.3g", c.Diff)
	}
	return fmt.Sprintf("%+.1f%%", 100*c.Delta)
}
