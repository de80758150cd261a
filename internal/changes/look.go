package changes

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/validity"
)

// Look is one look for change points over stored runs, as 'mongobench
// changes' takes it: the runs grouped into series (the named Tags part
// them), each series' changes found with Options, and brought into the
// stored triage.
type Look struct {
	Tags []string
	Options
	// All lists hidden changes too.
	All bool
	// IncludeInvalid counts the runs judged invalid too.
	IncludeInvalid bool
}

// MaxWindow is the most runs a look's window may hold, ten times the
// default: a look costs about the series' runs times the window (times
// its logarithm) for each metric, about 1 s a metric for 5,000 runs at
// 500.
const MaxWindow = 500

// Check says what is wrong with the look's settings, naming the flag.
func (l Look) Check() error {
	if l.Window < 10 || l.Window > MaxWindow {
		return fmt.Errorf("--window: %d is not valid: want from 10 to %d runs", l.Window, MaxWindow)
	}
	if !(l.P > 0 && l.P < 1) {
		return fmt.Errorf("--p: %g is not valid: want a p-value between 0 and 1, such as 0.001", l.P)
	}
	for _, m := range l.Metrics {
		if _, err := significance.ParseMetric(m); err != nil {
			return fmt.Errorf("--metric: %w", err)
		}
	}
	return nil
}

// Found is what a look found.
type Found struct {
	Series []Series
	// Changes are every change found, merged with the stored triage
	// (Merge): what to store.
	Changes []Change
	// Shown are the changes listed: all but the hidden ones and the
	// withdrawn candidates, unless All (never nil: none is an empty list).
	Shown []Change
	// Alerts are the new regressions not alerted on before.
	Alerts []Change
	// Invalid counts the runs left out as invalid.
	Invalid int
}

// Run looks at docs, the stored runs oldest first, with stored, the
// stored changes, at now; it stops with ctx's error when ctx is done.
func (l Look) Run(ctx context.Context, docs []result.Doc, stored []Change, now time.Time) (Found, error) {
	docs, invalid := validity.Filter(docs, l.IncludeInvalid)
	series, err := Group(docs, l.Tags)
	if err != nil {
		return Found{}, err
	}
	var found []Change
	for _, s := range series {
		cs, err := Find(ctx, s, l.Options)
		if err != nil {
			return Found{}, err
		}
		found = append(found, cs...)
	}
	f := Found{Series: series, Changes: Merge(stored, found, now), Shown: []Change{}, Invalid: invalid}
	WithClientHost(series, f.Changes)
	for _, c := range f.Changes {
		if (c.Status != Hidden && c.Stage != Withdrawn) || l.All {
			f.Shown = append(f.Shown, c)
		}
		if c.Alerts() {
			f.Alerts = append(f.Alerts, c)
		}
	}
	return f, nil
}

// AlertIDs are the ids of the alerting changes.
func (f Found) AlertIDs() []string {
	ids := make([]string, len(f.Alerts))
	for i, c := range f.Alerts {
		ids[i] = c.ID
	}
	return ids
}

// Alert says what --fail-on-new fails on, "" when nothing alerts.
func (f Found) Alert() string {
	if len(f.Alerts) == 0 {
		return ""
	}
	return fmt.Sprintf("%d new regression(s): %s; acknowledge one with 'mongobench changes ack ID --why TEXT'", len(f.Alerts), strings.Join(f.AlertIDs(), ", "))
}

// WriteText writes how many series, runs and changes there are, then
// the shown changes' table.
func (f Found) WriteText(w io.Writer) error {
	runs := 0
	for _, s := range f.Series {
		runs += len(s.Runs)
	}
	if _, err := fmt.Fprintf(w, "%d series, %d runs: %d change(s)\n", len(f.Series), runs, len(f.Shown)); err != nil {
		return err
	}
	if s := validity.LeftOut(f.Invalid); s != "" {
		if _, err := fmt.Fprintln(w, s); err != nil {
			return err
		}
	}
	if len(f.Shown) == 0 {
		return nil
	}
	if err := Table(f.Shown).WriteText(w, true); err != nil {
		return err
	}
	for _, n := range HostNotes(f.Shown) {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	return nil
}

// View is the report of the shown changes (View); nil when none is
// shown, as there is nothing to report.
func (f Found) View() *report.StudyView {
	if len(f.Shown) == 0 {
		return nil
	}
	return View(f.Series, f.Shown)
}
