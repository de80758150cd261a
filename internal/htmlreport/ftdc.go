package htmlreport

import (
	"io"

	"github.com/mongobench/mongobench/internal/ftdcwindow"
	"github.com/mongobench/mongobench/internal/report"
)

// FTDC writes the page of a window of FTDC samples: the summary's
// figures, then its charts over time, drawn as a run's are.
func FTDC(w io.Writer, s ftdcwindow.Summary, charts []report.TimeChart) error {
	return Study(w, s.View(charts), nil)
}
