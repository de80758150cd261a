package cli

import (
	"fmt"

	"github.com/mongobench/mongobench/internal/htmlreport"
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
		a.say("report: %s and %s\n", p, htmlreport.Name(p))
	}
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
