package studyview

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/textreport"
)

// Each step both sweeps ran is judged with its repetitions as samples:
// a's p99s at 4000/s, 40% slower, are worse there, the rest is noise;
// the p-values of every step and metric are corrected together; with two
// repetitions a side, no step is judged and the verdict says how many
// are needed.
func TestCompareStepsSignificance(t *testing.T) {
	a := sweepOf("a", "S2", 5, 1.4, 0.001)
	b := sweepOf("b", "S1", 5, 1, 0)
	c, err := study.CompareSweeps([]study.Contender{a, b}, sweepCriteria, significance.Settings{Alpha: 0.05, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := c.Pairs[0]
	if len(p.Steps) != 3 || p.Steps[2].Rate != 4000 || p.Steps[2].ARuns != 5 || p.Steps[2].BRuns != 5 {
		t.Fatalf("steps %+v", p.Steps)
	}
	for _, s := range p.Steps {
		for _, r := range s.Rows {
			want := significance.Noise
			if s.Rate == 4000 && strings.HasPrefix(r.Metric.Stat, "p") {
				want = significance.Worse
			}
			if r.Verdict != want {
				t.Errorf("%v/s %s: %s (p %.3g, adj. p %.3g), want %s", s.Rate, r.Metric.Name(), r.Verdict, r.Test.P, r.P, want)
			}
			if want == significance.Worse && !(r.P > r.Test.P && r.P < 0.05) {
				t.Errorf("%v/s %s: adjusted p %v from %v: want it corrected over the 18 metrics and below 0.05", s.Rate, r.Metric.Name(), r.P, r.Test.P)
			}
		}
	}
	line := p.StepsVerdict(c.Judging)
	if !strings.HasPrefix(line, "Per step (repetitions as samples, Benjamini–Hochberg (false discovery rate) at 0.05), 3 of 3 steps judged: a worse: p50 read at 4,000/s (+40.") {
		t.Errorf("verdict %q", line)
	}
	v := Comparison(c)
	md, _, err := textreport.StudyMarkdown(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 4,000 | p99 read | 2.8", "worse |", "Benjamini–Hochberg", "a worse: p50 read at 4,000/s"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	var text strings.Builder
	if err := textreport.Study(&text, v); err != nil || !strings.Contains(text.String(), "verdict of a") {
		t.Errorf("terminal: %v\n%s", err, text.String())
	}
	js, err := json.Marshal(p)
	if err != nil || !strings.Contains(string(js), `"metric":"p99 read"`) || !strings.Contains(string(js), `"verdict":"worse"`) {
		t.Errorf("JSON: %v %.300s", err, js)
	}

	// Two repetitions a side: no verdict, and how many it would take.
	few, err := study.CompareSweeps([]study.Contender{sweepOf("a", "S2", 2, 1.4, 0), sweepOf("b", "S1", 2, 1, 0)}, sweepCriteria, significance.Settings{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if line := few.Pairs[0].StepsVerdict(few.Judging); line != "Per step: no verdict: the steps both sweeps ran have at most 2 repetitions a side; a difference at p < 0.05 needs at least 4 repetitions of each step on each side (sweep --repeat 4)." {
		t.Errorf("two repetitions: %q", line)
	}
	if md, _, _ := textreport.StudyMarkdown(Comparison(few)); strings.Contains(string(md), "verdict of a") {
		t.Errorf("two repetitions: a table of refusals:\n%s", md)
	}
	// A missing NaN survives JSON as null.
	if _, err := json.Marshal(few.Pairs[0]); err != nil {
		t.Errorf("JSON of refusals: %v", err)
	}
}
