package browse

import (
	"context"
	"fmt"
	"io"
	"net/url"

	"github.com/mongobench/mongobench/internal/changes"
	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/validity"
)

// SeriesHref is the address of the series page of a run.
func SeriesHref(runID string) string { return "/series?run=" + url.QueryEscape(runID) }

// SeriesReport writes the page of the series a run belongs to: every
// metric's value per run with its change points marked (found as
// 'mongobench changes' finds them, with its defaults), and the statuses
// of the stored changes. docs are the stored runs (any: the run's series
// is picked from them).
func SeriesReport(ctx context.Context, w io.Writer, docs []result.Doc, runID string, stored []changes.Change, where string) error {
	var of *result.Doc
	for i := range docs {
		if docs[i].RunID == runID {
			of = &docs[i]
		}
	}
	if of == nil {
		return fmt.Errorf("run %q: %w", runID, ErrNotFound)
	}
	counted, _ := validity.Filter(docs, false)
	series, err := changes.Group(counted, nil)
	if err != nil {
		return err
	}
	for _, s := range series {
		for _, r := range s.Runs {
			if r.ID != runID {
				continue
			}
			found, err := changes.Find(ctx, s, changes.Options{})
			if err != nil {
				return err
			}
			cs := changes.Merge(stored, found, of.Start)
			nav := NavOf("", where)
			nav.Links = append(nav.Links, htmlreport.Link{Href: "/run/" + url.PathEscape(runID), Text: "run " + runID})
			intro := fmt.Sprintf("The series of run %s: %d runs of %s, oldest first, one value per run; change points as 'mongobench changes' finds them.", runID, len(s.Runs), s.Key.String())
			return htmlreport.Study(w, changes.SeriesView(s, cs, intro), nav)
		}
	}
	return fmt.Errorf("run %q is in no series (a partial run, or one client's part of a group): %w", runID, ErrNotFound)
}
