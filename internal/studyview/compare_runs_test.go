package studyview

import (
	"errors"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/textreport"
)

// compare --runs: the labels' whole single runs of the workload only, b
// significantly slower than a, c the same as a; the view answers first.
func TestCompareRuns(t *testing.T) {
	doc := func(label, workload string, rate float64) result.Doc {
		return result.Doc{Label: label, TestConfig: map[string]any{"workload": workload}, Schedule: result.Schedule{AchievedRate: rate, SuccessRate: rate}}
	}
	var docs []result.Doc
	for i, r := range []float64{1000, 1010, 990, 1005, 995} {
		docs = append(docs, doc("a", "kv", r), doc("b", "kv", r*0.8+0.1*float64(i)), doc("c", "kv", r+0.5))
	}
	step := "s1"
	idx := 0
	partial := doc("a", "kv", 1)
	partial.Partial = true
	client := doc("a", "kv", 1)
	client.Group = &result.Group{ClientIndex: &idx}
	sweepStep := doc("a", "kv", 1)
	sweepStep.Variant = map[string]any{"sweep": step}
	docs = append(docs, partial, client, sweepStep, doc("a", "ycsb-a", 1))

	s := study.CompareRunsStudy{Labels: []string{"a", "b", "c"}, Workload: "kv", Judging: significance.Settings{Seed: 1}}
	c, err := s.Run(docs, "results.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseRuns != 5 || len(c.Pairs) != 2 || c.Pairs[0].Runs != 5 || c.Pairs[1].Label != "c" {
		t.Fatalf("comparison %+v, want a's 5 whole kv runs against b's and c's", c)
	}
	worse := c.Regressions()
	if len(worse) != 1 || !strings.HasPrefix(worse[0], "b throughput (-20.0%, adj. p ") {
		t.Errorf("regressions %v, want b's throughput only", worse)
	}
	if err := c.Failed(); !errors.Is(err, study.ErrVerdict) || !strings.Contains(err.Error(), "regression: b throughput") {
		t.Errorf("verdict %v", err)
	}
	v := RunsComparison(c)
	if v.Name != "compare-runs-a-vs-b-vs-c" || len(v.Verdict) != 1 || !strings.HasPrefix(v.Verdict[0].Text, "Significantly worse: b throughput") {
		t.Errorf("view %q, verdict %+v", v.Name, v.Verdict)
	}
	if len(v.Sections) != 2 || v.Sections[0].Title != "b (5 runs) against a (5 runs)" || v.Sections[0].Blocks[0].Table == nil {
		t.Fatalf("sections %+v", v.Sections)
	}
	var b strings.Builder
	if err := textreport.Study(&b, v); err != nil || !strings.Contains(b.String(), "Mann–Whitney") || !strings.Contains(b.String(), "worse") {
		t.Errorf("text %q, %v", b.String(), err)
	}
	if md, _, err := textreport.StudyMarkdown(v); err != nil || !strings.Contains(string(md), "## c (5 runs) against a (5 runs)") || !strings.Contains(string(md), "| throughput |") {
		t.Errorf("markdown %s, %v", md, err)
	}

	if (study.RunsComparison{Base: "a", Pairs: c.Pairs[1:]}).Failed() != nil {
		t.Error("a and c alike: failed")
	}
	s.Labels = []string{"a", "nosuch"}
	if _, err := s.Run(docs, "results.jsonl"); !errors.Is(err, study.ErrNoRuns) || !strings.Contains(err.Error(), "--label nosuch: ") {
		t.Errorf("a label with no run: %v", err)
	}
}
