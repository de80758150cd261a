package studyview

import (
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/study"
)

// Of is the view of what a study found (its Outcome's Result), handed
// the links to its runs' reports: the terminal prints it and the report
// files are written from it; nil when the study has nothing to show.
func Of(out study.Outcome, runs []report.Link) *report.StudyView {
	switch r := out.Result.(type) {
	case study.SweepResult:
		return Sweep(r, runs)
	case study.AuditedSLA:
		return SLA(r.SLAResult, r.Audit, runs)
	case study.CalibrateResult:
		return Calibrate(r, runs)
	case study.CatalogResult:
		return Catalog(r.Catalog, r.Docs, runs)
	case study.PlanResult:
		return Plan(r.Spec, r.Answer, runs)
	case study.LoadResult:
		return Load(r.Doc, runs)
	case study.Interleaved:
		return Interleaved(r, runs)
	case study.Comparison:
		return Comparison(r)
	case study.RunsComparison:
		return RunsComparison(r)
	}
	return nil
}
