package studyview

import (
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/study"
)

// Load is the load's view: what it loaded and how fast (LoadLine),
// then its run.
func Load(d *result.Doc, runs []report.Link) *report.StudyView {
	return &report.StudyView{Title: "YCSB load of " + d.TestName, Name: "load-" + d.RunID, Runs: runs,
		Verdict: []report.Block{text(study.LoadLine(d))}}
}
