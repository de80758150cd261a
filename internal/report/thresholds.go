package report

import (
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/threshold"
)

// thresholdTable has a row per threshold judged on the run: its verdict,
// the expression, and what was measured (or why the figure is missing).
func thresholdTable(d *result.Doc) *table {
	t := newTable("verdict", "threshold", "measured")
	for _, v := range d.Thresholds {
		t.Add(VerdictWord(v.Pass), v.Expression, threshold.Measured(v))
	}
	return t
}
