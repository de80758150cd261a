package significance

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/texttable"
)

// Row is one metric's comparison of two sides' runs.
type Row struct {
	Metric Metric
	Comparison
	// Spread is the runs' relative spread (Spread); Needed, for a metric
	// not decided (likely noise, or too few runs), how many runs a side
	// would find a change of its minimum effect (Needed), 0 when the
	// spread or the minimum effect gives no answer.
	Spread float64
	Needed int
	base   []float64
	other  []float64
	judge  Judge
}

// Settings are how a table judges its metrics.
type Settings struct {
	// MinEffect overrides the minimum effects by kind or metric name.
	MinEffect map[string]float64
	// Alpha is the significance level (DefaultAlpha when 0), of the
	// p-values adjusted by Correction (DefaultCorrection when "").
	Alpha      float64
	Correction Correction
	Seed       uint64 // the bootstraps' seed
}

// Corrected is the settings' correction, DefaultCorrection when unset.
func (s Settings) Corrected() Correction {
	if s.Correction == "" {
		return DefaultCorrection
	}
	return s.Correction
}

// Level is the settings' significance level, DefaultAlpha when unset.
func (s Settings) Level() float64 {
	if s.Alpha > 0 {
		return s.Alpha
	}
	return DefaultAlpha
}

// Table compares two sides' runs metric by metric, one value per run
// (RunValues), and corrects the p-values for the number of metrics
// (Correct): every metric either side has, in table order. A metric one
// side lacks is compared as missing, never as zero.
func Table(base, other []result.Doc, s Settings) ([]Row, error) {
	rows, err := Rows(base, other, s)
	if err != nil {
		return nil, err
	}
	Correct(s.Corrected(), rows)
	for i := range rows {
		r := &rows[i]
		r.Spread = Spread(r.base, r.other)
		if r.Verdict == Noise || r.Verdict == TooFew {
			r.Needed = Needed(r.Spread, r.judge.MinEffect, s.Level(), len(rows))
		}
	}
	return rows, nil
}

// Undecided says, for the metrics a table could not decide, how many
// runs a side would: "" when every metric is decided or none can say.
func Undecided(rows []Row, s Settings) string {
	var parts []string
	for _, r := range rows {
		if r.Needed > 0 {
			parts = append(parts, fmt.Sprintf("%s about %d (a %.0f%% change, spread %.1f%%)", r.Metric.Name(), r.Needed, 100*r.judge.MinEffect, 100*r.Spread))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("runs a side to decide what is undecided, at α %g over %d metrics with %.0f%% power: %s",
		s.Level(), len(rows), 100*Power, strings.Join(parts, "; "))
}

// Rows is Table before the correction: each metric judged on its own
// p-value, for a caller that corrects several tables judged together.
func Rows(base, other []result.Doc, s Settings) ([]Row, error) {
	bv, err := values(base)
	if err != nil {
		return nil, err
	}
	ov, err := values(other)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, side := range [][]Values{bv, ov} {
		for _, v := range side {
			for n := range v {
				names[n] = true
			}
		}
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	SortMetrics(list)
	rows := make([]Row, 0, len(list))
	for _, n := range list {
		m, err := ParseMetric(n)
		if err != nil {
			return nil, err
		}
		j := JudgeFor(m, s.MinEffect, s.Seed)
		j.Alpha = s.Alpha
		b, o := column(bv, n), column(ov, n)
		rows = append(rows, Row{Metric: m, Comparison: j.Compare(b, o), base: b, other: o, judge: j})
	}
	return rows, nil
}

func values(docs []result.Doc) ([]Values, error) {
	out := make([]Values, len(docs))
	for i := range docs {
		v, err := RunValues(&docs[i])
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func column(vs []Values, name string) []float64 {
	var out []float64
	for _, v := range vs {
		if x, ok := v[name]; ok && !math.IsNaN(x) {
			out = append(out, x)
		}
	}
	return out
}

// Regressions are the rows judged worse.
func Regressions(rows []Row) []Row {
	var out []Row
	for _, r := range rows {
		if r.Verdict == Worse {
			out = append(out, r)
		}
	}
	return out
}

// TextTable lays the rows out as a table: each side's median with its
// interval and number of runs, the difference, the U test's p-value and
// that p-value adjusted for the number of metrics, the bootstrap interval
// of the ratio of medians, and the verdict ("~" when the difference is
// likely noise).
func TextTable(rows []Row, baseName, otherName string) *texttable.Table {
	t := texttable.New("metric", ">"+baseName, ">"+otherName, ">delta", ">p", ">adj. p", ">ratio interval", "verdict")
	for _, r := range rows {
		t.Add(r.Metric.Name(), sideCell(r.Base, r.Metric.Unit), sideCell(r.Other, r.Metric.Unit), delta(r.Comparison),
			pvalue(r.Comparison, r.Test.P), pvalue(r.Comparison, r.P), ratio(r.Ratio), VerdictText(r.Comparison))
	}
	return t
}

// VerdictText is a comparison's verdict as a table shows it: the
// verdict, or why there is none.
func VerdictText(c Comparison) string {
	if c.Verdict == TooFew || c.Verdict == Missing {
		return c.Reason
	}
	return string(c.Verdict)
}

// WriteText writes the table and a line on how the figures were found.
func WriteText(w io.Writer, rows []Row, baseName, otherName string, s Settings) error {
	if err := TextTable(rows, baseName, otherName).WriteText(w, true); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, Legend(s))
	return err
}

// Legend says how a table's figures were found and judged.
func Legend(s Settings) string {
	return fmt.Sprintf("median [interval] (runs) of one value per run; p: Mann–Whitney U, two-sided; adj. p: %s over the table's metrics; ratio: %g%% bootstrap interval of the ratio of medians; ~: likely noise (adj. p ≥ %g)",
		s.Corrected().Describe(), 100*DefaultLevel, s.Level())
}

func sideCell(s Side, unit string) string {
	if s.N == 0 {
		return "—"
	}
	return fmt.Sprintf("%s [%s, %s] %s (%d)", texttable.Sig3(s.Median), texttable.Sig3(s.CI.Lo), texttable.Sig3(s.CI.Hi), unit, s.N)
}

func delta(c Comparison) string {
	switch {
	case math.IsNaN(c.Diff):
		return "—"
	case math.IsNaN(c.Delta):
		return fmt.Sprintf("%+.3g", c.Diff)
	}
	return fmt.Sprintf("%+.1f%%", 100*c.Delta)
}

func pvalue(c Comparison, p float64) string {
	if c.Test.Method == "" || math.IsNaN(p) {
		return "—"
	}
	return PText(p)
}

func ratio(i Interval) string {
	if math.IsNaN(i.Lo) {
		return "—"
	}
	return fmt.Sprintf("%.3f–%.3f", i.Lo, i.Hi)
}

// MarshalJSON writes the row with its figures by name, a figure that is
// not there (NaN: a missing side, no test) as null.
func (r Row) MarshalJSON() ([]byte, error) {
	num := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	type side struct {
		Runs   int      `json:"runs"`
		Median *float64 `json:"median"`
		Lo     *float64 `json:"lo"`
		Hi     *float64 `json:"hi"`
	}
	sideOf := func(s Side) side { return side{Runs: s.N, Median: num(s.Median), Lo: num(s.CI.Lo), Hi: num(s.CI.Hi)} }
	var p *float64
	if r.Test.Method != "" {
		p = num(AtFloor(r.Test.P))
	}
	return json.Marshal(struct {
		Metric    string   `json:"metric"`
		Unit      string   `json:"unit"`
		Base      side     `json:"base"`
		Other     side     `json:"other"`
		Delta     *float64 `json:"delta"`
		Diff      *float64 `json:"diff"`
		P         *float64 `json:"p"`
		AdjustedP *float64 `json:"adjustedP"`
		RatioLo   *float64 `json:"ratioLo"`
		RatioHi   *float64 `json:"ratioHi"`
		Verdict   Verdict  `json:"verdict"`
		Reason    string   `json:"reason,omitempty"`
		Spread    *float64 `json:"spread"`
		Needed    int      `json:"runsNeeded,omitempty"`
	}{r.Metric.Name(), r.Metric.Unit, sideOf(r.Base), sideOf(r.Other), num(r.Delta), num(r.Diff), p, num(AtFloor(r.P)),
		num(r.Ratio.Lo), num(r.Ratio.Hi), r.Verdict, r.Reason, num(r.Spread), r.Needed})
}
