package studyview

import (
	"fmt"
	"strings"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/study"
)

// Interleaved is the comparison's view, the verdict first, then the last
// look's table, the client host's canary, and what is undecided.
func Interleaved(r study.Interleaved, runs []report.Link) *report.StudyView {
	a, b := r.Names()
	p := r.Study.Plan
	v := &report.StudyView{Title: a + " vs " + b + ": interleaved comparison", Name: SafeName("compare-interleave-" + a + "-vs-" + b), Runs: runs,
		Intro: []report.Block{text(fmt.Sprintf("%s and %s run alternately, the order turned each round, and compared at planned looks from %d to %d runs a side, metric by metric, one value per run; each look judges at α %.3g (%g over %d looks, Bonferroni), its p-values adjusted by %s over the table's metrics; it stops when every metric is worse, better, or within its minimum effect.",
			a, b, p.MinRuns, p.MaxRuns, r.Judging.Alpha, r.Study.Judging.Level(), r.Looks, r.Judging.Corrected().Describe()))}}
	for i, l := range r.Verdict() {
		v.Verdict = append(v.Verdict, report.Block{Text: l, Strong: i == 0})
	}
	if moved := significance.HostMoved(r.Canary, a, b); moved != "" {
		v.Verdict = append(v.Verdict, report.Block{Text: "Client host: " + moved + "."})
	}
	if len(r.Rows) == 0 {
		return v
	}
	blocks := []report.Block{tableBlock(significance.TextTable(r.Rows, a, b)), text(significance.Legend(r.Judging))}
	if u := significance.Undecided(r.Rows, r.Judging); u != "" {
		blocks = append(blocks, text(strings.ToUpper(u[:1])+u[1:]+"."))
	}
	if t := canaryTable(r.Canary, a, b); t != nil {
		blocks = append(blocks, text("The client host's noise canary, the median of each side's readings (taken before and after every run):"), tableBlock(t))
	}
	v.Sections = append(v.Sections, report.Section{Title: fmt.Sprintf("%s (%d runs) against %s (%d runs), look %d", b, len(r.Counted[1]), a, len(r.Counted[0]), r.Look), Blocks: blocks})
	return v
}
