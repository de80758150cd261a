package studyview

import (
	"fmt"
	"strings"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/texttable"
)

// RunsComparison is the comparison's view, the answer first: the metrics
// significantly worse (or none), then for each label its table against
// the first label's and how its figures were found.
func RunsComparison(c study.RunsComparison) *report.StudyView {
	labels := []string{c.Base}
	for _, p := range c.Pairs {
		labels = append(labels, p.Label)
	}
	v := &report.StudyView{Title: strings.Join(labels, " vs ") + ": runs compared", Name: SafeName("compare-runs-" + strings.Join(labels, "-vs-")),
		Intro: []report.Block{text(fmt.Sprintf("Each label's stored single runs compared with %s's, metric by metric, one value per run; a difference counts when its p-value, adjusted by %s over the table's metrics, is below %g and it is at least the metric's minimum effect.",
			c.Base, c.Judging.Corrected().Describe(), c.Judging.Level()))}}
	verdict := "No metric is significantly worse than " + c.Base + "'s."
	if worse := c.Regressions(); len(worse) > 0 {
		verdict = "Significantly worse: " + strings.Join(worse, "; ") + "."
	}
	v.Verdict = []report.Block{{Text: verdict, Strong: true}}
	for _, p := range c.Pairs {
		if moved := significance.HostMoved(p.Canary, c.Base, p.Label); moved != "" {
			v.Verdict = append(v.Verdict, report.Block{Text: "Client host: " + moved + "."})
		}
		blocks := []report.Block{tableBlock(significance.TextTable(p.Rows, c.Base, p.Label)), text(significance.Legend(c.Judging))}
		if u := significance.Undecided(p.Rows, c.Judging); u != "" {
			blocks = append(blocks, text(strings.ToUpper(u[:1])+u[1:]+"."))
		}
		if t := canaryTable(p.Canary, c.Base, p.Label); t != nil {
			blocks = append(blocks, text("The client host's noise canary, the median of each side's readings (taken before and after every run):"), tableBlock(t))
		}
		v.Sections = append(v.Sections, report.Section{Title: fmt.Sprintf("%s (%d runs) against %s (%d runs)", p.Label, p.Runs, c.Base, c.BaseRuns), Blocks: blocks})
	}
	return v
}

// canaryTable lays the canary's shifts out, nil when neither side has a
// canary.
func canaryTable(shifts []significance.CanaryShift, base, other string) *texttable.Table {
	found := false
	t := texttable.New("canary", ">"+base, ">"+other, "unit", "moved")
	for _, s := range shifts {
		found = found || s.A != nil || s.B != nil
		moved := ""
		if s.Moved {
			moved = "yes"
		}
		t.Add(s.Figure, cells.Num(s.A), cells.Num(s.B), s.Unit, moved)
	}
	if !found {
		return nil
	}
	return t
}
