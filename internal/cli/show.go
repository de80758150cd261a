package cli

import (
	"encoding/json"
	"fmt"

	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
)

// showRun prints a run's result (summary or JSON) and where its reports
// are.
func (a *app) showRun(d *result.Doc, asJSON bool, reports []string) error {
	if asJSON {
		if err := a.printJSON(d); err != nil {
			return err
		}
	} else if err := report.Summary(a.stdout, d); err != nil {
		return err
	}
	for _, p := range reports {
		a.sayReport(p)
	}
	return nil
}

// sayReport says where a Markdown report and its HTML page were written.
func (a *app) sayReport(path string) {
	a.say("report: %s and %s\n", path, htmlreport.Name(path))
}

// writeReport writes a study's view as its Markdown report (with the
// charts it links) and its HTML page in dir, and says where; nothing
// without a report directory.
func (a *app) writeReport(dir string, v *report.StudyView) error {
	if dir == "" {
		return nil
	}
	path, err := lab.WriteStudyReport(dir, v)
	if err != nil {
		return err
	}
	a.sayReport(path)
	return nil
}

// writeJSON prints v as indented JSON.
func (a *app) writeJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (a *app) printJSON(d *result.Doc) error {
	b, err := store.JSON(d)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(a.stdout, string(b))
	return err
}
