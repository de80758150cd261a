package cli

import (
	"bytes"
	"fmt"

	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
)

// show prints the result (summary or JSON) and writes the report.
func (a *app) show(d *result.Doc, rf runFlags) error {
	if rf.json {
		if err := a.printJSON(d); err != nil {
			return err
		}
	} else if err := report.Summary(a.stdout, d); err != nil {
		return err
	}
	for _, n := range d.Notes {
		a.say("note: %s\n", n)
	}
	if rf.noReport {
		return nil
	}
	path, err := writeReport(d, rf.reportDir)
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	a.say("report: %s and %s\n", path, htmlreport.Name(path))
	return nil
}

func (a *app) printJSON(d *result.Doc) error {
	b, err := store.JSON(d)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(a.stdout, string(b))
	return err
}

// writeReport writes the run's Markdown report and its charts under dir,
// and the HTML report beside it, and returns the Markdown report's path.
func writeReport(d *result.Doc, dir string) (string, error) {
	md, charts, err := report.Markdown(d, "charts")
	if err != nil {
		return "", err
	}
	files := make([]study.File, 0, len(charts)+1)
	for rel, svg := range charts {
		files = append(files, study.File{Path: rel, Data: svg})
	}
	var page bytes.Buffer
	if err := htmlreport.Run(&page, d); err != nil {
		return "", err
	}
	files = append(files, study.File{Path: d.RunID + ".html", Data: page.Bytes()})
	return writeReportFiles(dir, d.RunID, md, files)
}
