package study

import (
	"io"

	"github.com/mongobench/mongobench/internal/plan"
	"github.com/mongobench/mongobench/internal/spec"
)

// PlanReportFiles writes the plan's Markdown report to w (WritePlanReport)
// and returns its bar charts as the files to write beside it.
func PlanReportFiles(w io.Writer, pl *spec.Plan, ans plan.Answer) ([]File, error) {
	charts, err := WritePlanReport(w, pl, ans)
	files := make([]File, len(charts))
	for i, c := range charts {
		files[i] = File{Path: c.File, Data: c.SVG}
	}
	return files, err
}
