package textreport

import (
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/testsupport/rundocs"
)

// The fixtures are the documents of testsupport/rundocs, shared with the
// other renderers' tests; golden files carry their names.

var f = result.F

func fixtures() map[string]*result.Doc       { return rundocs.All() }
func diagnosedDoc() *result.Doc              { return rundocs.DiagnosedDoc() }
func dist(n int64, base float64) result.Dist { return rundocs.Dist(n, base) }
func op(name string, n int64, secs, base float64) result.OpStats {
	return rundocs.Op(name, n, secs, base)
}
func closedDoc() *result.Doc      { return rundocs.ClosedDoc() }
func openDoc() *result.Doc        { return rundocs.OpenDoc() }
func zeroSuccessDoc() *result.Doc { return rundocs.ZeroSuccessDoc() }
func checkpointDoc() *result.Doc  { return rundocs.CheckpointDoc() }

// renderMarkdown renders a document's view as Markdown.
func renderMarkdown(d *result.Doc, chartDir string) ([]byte, map[string][]byte, error) {
	v, err := report.NewRunView(d)
	if err != nil {
		return nil, nil, err
	}
	return RunMarkdown(v, chartDir)
}
