package significance

import (
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/texttable"
)

// Row is one metric's comparison of two sides' runs.
type Row struct {
	Metric Metric
	Comparison
}

// Table compares two sides' runs metric by metric, one value per run
// (RunValues): every metric either side has, in table order. A metric
// one side lacks is compared as missing, never as zero. minEffect
// overrides the minimum effects by kind or name; alpha is the
// significance level (DefaultAlpha when 0); seed seeds the bootstraps.
func Table(base, other []result.Doc, minEffect map[string]float64, alpha float64, seed uint64) ([]Row, error) {
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
		j := JudgeFor(m, minEffect, seed)
		j.Alpha = alpha
		rows = append(rows, Row{Metric: m, Comparison: j.Compare(column(bv, n), column(ov, n))})
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
// interval and number of runs, the difference, the U test's p-value, the
// bootstrap interval of the ratio of medians, and the verdict ("~" when
// the difference is likely noise).
func TextTable(rows []Row, baseName, otherName string) *texttable.Table {
	t := texttable.New("metric", ">"+baseName, ">"+otherName, ">delta", ">p", ">ratio interval", "verdict")
	for _, r := range rows {
		verdict := string(r.Verdict)
		if r.Verdict == TooFew || r.Verdict == Missing {
			verdict = r.Reason
		}
		t.Add(r.Metric.Name(), sideCell(r.Base, r.Metric.Unit), sideCell(r.Other, r.Metric.Unit), delta(r.Comparison),
			pvalue(r.Comparison), ratio(r.Ratio), verdict)
	}
	return t
}

// WriteText writes the table and a line on how the figures were found.
func WriteText(w io.Writer, rows []Row, baseName, otherName string, alpha float64) error {
	if err := TextTable(rows, baseName, otherName).WriteText(w, true); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, Legend(alpha))
	return err
}

// Legend says how the table's figures were found, at the significance
// level alpha (DefaultAlpha when 0).
func Legend(alpha float64) string {
	if alpha <= 0 {
		alpha = DefaultAlpha
	}
	return fmt.Sprintf("median [interval] (runs) of one value per run; p: Mann–Whitney U, two-sided; ratio: %g%% bootstrap interval of the ratio of medians; ~: likely noise (p ≥ %g)",
		100*DefaultLevel, alpha)
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

func pvalue(c Comparison) string {
	if c.Test.Method == "" {
		return "—"
	}
	return fmt.Sprintf("%.3g", c.Test.P)
}

func ratio(i Interval) string {
	if math.IsNaN(i.Lo) {
		return "—"
	}
	return fmt.Sprintf("%.3f–%.3f", i.Lo, i.Hi)
}
