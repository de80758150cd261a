package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/studyview"
	"github.com/mongobench/mongobench/internal/textreport"
)

// finishing is how a command that shows an outcome finishes: --json,
// its report directory, the runs' reports already written, where its
// runs are stored ("" said by nothing), and whether it measured (its
// view then comes after a blank line, apart from the progress lines).
type finishing struct {
	JSON       bool
	ReportDir  string
	RunReports []string
	Where      string
	Measured   bool
}

// finish is the one way every command that shows a study's outcome
// finishes: with --json the outcome as JSON (showJSON) on standard
// output and the lines only its view holds on standard error, else its
// view on standard output; where each run's report was written; for a
// one-run study where its run is stored; then the study's report, from
// the same view, into the report directory. err is the study's error.
func (a *app) finish(f finishing, out study.Outcome, err error) error {
	var errs []error
	if f.JSON {
		errs = append(errs, a.showJSON(out))
		for _, s := range out.Said {
			a.say("%s\n", s)
		}
	} else {
		errs = append(errs, a.showText(out, f.Measured))
	}
	if out.Run != nil {
		for _, p := range f.RunReports {
			a.sayReport(p)
		}
		if err == nil && f.Where != "" {
			a.say("result %s stored in %s\n", out.Run.RunID, f.Where)
		}
	}
	if out.Result != nil && f.ReportDir != "" {
		names := make([]string, len(f.RunReports))
		for i, p := range f.RunReports {
			names[i] = filepath.Base(p)
		}
		path, werr := lab.WriteStudyReport(f.ReportDir, studyview.Of(out, studyview.RunFiles(names)))
		if werr == nil {
			a.sayReport(path)
		}
		errs = append(errs, werr)
	}
	return errors.Join(errs...)
}

// showJSON is the one --json path: the study's answer when it has one
// (a plan's, a comparison's), else a one-run study's run alone, else,
// when the study has something to show, its runs as one JSON array.
func (a *app) showJSON(out study.Outcome) error {
	switch {
	case out.Answer != nil:
		return a.writeJSON(out.Answer)
	case out.Run != nil:
		b, err := store.JSON(out.Run)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(a.stdout, string(b))
		return err
	case out.Result != nil:
		return store.WriteJSON(a.stdout, out.Runs)
	}
	return nil
}

// showText prints the study's view (after a blank line when it
// measured: its progress lines came before), or a one-run study's run's
// own view.
func (a *app) showText(out study.Outcome, measured bool) error {
	switch {
	case out.Result != nil:
		if measured {
			fmt.Fprintln(a.stdout)
		}
		return textreport.Study(a.stdout, studyview.Of(out, nil))
	case out.Run != nil:
		return textreport.Summary(a.stdout, out.Run)
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
