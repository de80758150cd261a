package study

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/significance"
)

func TestCompareRunsCheck(t *testing.T) {
	if err := (CompareRunsStudy{Labels: []string{"a", "b"}, Judging: significance.Settings{Alpha: 0.01}}).Check(); err != nil {
		t.Error(err)
	}
	if err := (CompareRunsStudy{Labels: []string{"a"}, Judging: significance.Settings{Alpha: 0.01}}).Check(); err == nil || !strings.HasPrefix(err.Error(), "--label: compare --runs needs at least two labels, got 1") {
		t.Errorf("one label: %v", err)
	}
	if err := (CompareRunsStudy{Labels: []string{"a", "b"}, Judging: significance.Settings{Alpha: 1}}).Check(); err == nil || !strings.HasPrefix(err.Error(), "--alpha: 1 is not valid") {
		t.Errorf("alpha 1: %v", err)
	}
}

// TestRunsComparisonJSON: --json of compare --runs encodes a figure that
// is not defined (a zero base, too few runs) as null, never 0 or an
// error.
func TestRunsComparisonJSON(t *testing.T) {
	c := RunsComparison{Base: "a", BaseIDs: []string{"r1"}, Pairs: []RunsPair{{Label: "b", IDs: []string{"r2"}, Rows: []significance.Row{
		{Metric: significance.Metric{Stat: "p99", Op: "read", Unit: "ms"}, Comparison: significance.Comparison{
			Base: significance.Side{N: 1, Median: 2}, Other: significance.Side{N: 1, Median: 3}, Delta: 0.5, P: math.NaN(),
			Ratio: significance.Interval{Lo: math.NaN(), Hi: math.Inf(1)}, Verdict: significance.TooFew, Reason: "too few runs"}},
	}}}}
	b, err := json.Marshal(c.JSON())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"base":"a","runs":["r1"],"pairs":[{"label":"b","runs":["r2"],"metrics":[{"metric":"p99 read","unit":"ms","baseMedian":2,"median":3,"change":0.5,"p":null,"ratioLo":null,"ratioHi":null,"verdict":"too few","reason":"too few runs"}]}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}
