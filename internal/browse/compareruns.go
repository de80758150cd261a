package browse

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/studyview"
)

// CompareRunsPath is the address of the comparison of labels' single
// runs (compare --runs): ?label=A&label=B… (the first compared with the
// others) and optionally &workload=W; with fewer than two labels, or
// with &edit=1, its form.
const CompareRunsPath = "/compare-runs"

// LabelsPage is the form of the comparison of labels' runs: the labels
// with stored single runs, the first to compare the others with.
type LabelsPage struct {
	Intro     string
	Labels    []LabelRuns
	Workloads []string
	// Base, Others and Workload are the choices given so far.
	Base, Workload string
	Others         []string
	Note           string // why the choices given cannot be compared yet
}

// LabelRuns is a label with its stored whole single runs.
type LabelRuns struct {
	Label     string
	Runs      int
	Workloads string
}

// RunLabels is the form of the comparison: every label with stored whole
// single runs (of any workload), the choices given marked, note saying
// what they lack.
func RunLabels(docs []result.Doc, labels []string, workload, note string) LabelsPage {
	p := LabelsPage{Intro: "Compare labels' stored single runs metric by metric, one value per run, as 'mongobench compare --runs' does: pick the label to compare with and one or more others.",
		Workload: workload, Note: note}
	if len(labels) > 0 {
		p.Base, p.Others = labels[0], labels[1:]
	}
	runs := map[string]int{}
	loads := map[string][]string{}
	var all []string
	for i := range docs {
		d := &docs[i]
		if !study.SingleRunOf(d, "") {
			continue
		}
		runs[d.Label]++
		w := workloadOf(d)
		if !slices.Contains(loads[d.Label], w) {
			loads[d.Label] = append(loads[d.Label], w)
		}
		if !slices.Contains(all, w) {
			all = append(all, w)
		}
	}
	for l, n := range runs {
		sort.Strings(loads[l])
		p.Labels = append(p.Labels, LabelRuns{Label: l, Runs: n, Workloads: strings.Join(loads[l], ", ")})
	}
	slices.SortFunc(p.Labels, func(a, b LabelRuns) int { return strings.Compare(a.Label, b.Label) })
	sort.Strings(all)
	p.Workloads = all
	if len(p.Labels) == 0 {
		p.Intro = "No single runs stored: run 'mongobench run --label L' a few times for each label, then compare them here."
	}
	return p
}

// ErrTooFewLabels is a comparison of runs asked for with fewer than two
// labels.
var ErrTooFewLabels = errors.New("pick at least two labels: the first, and the ones compared with it")

// DistinctLabels is the labels given, blanks and repeats left out, in
// their order (the first is the one the others are compared with).
func DistinctLabels(given []string) []string {
	var out []string
	for _, l := range given {
		if l != "" && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// CompareRuns writes the comparison of the labels' stored single runs
// (of workload, any when ""): the view of compare --runs with its
// defaults, the page it writes as its HTML report, under the browser's
// links, each label's runs linked to their pages. A label without a
// run is ErrNotFound.
func CompareRuns(w io.Writer, docs []result.Doc, labels []string, workload, where string) error {
	if len(labels) < 2 {
		return ErrTooFewLabels
	}
	s := study.CompareRunsStudy{Labels: labels, Workload: workload,
		Judging: significance.Settings{Alpha: significance.DefaultAlpha, Seed: significance.DefaultSeed, Correction: significance.DefaultCorrection}}
	c, err := s.Run(docs, where)
	if errors.Is(err, study.ErrNoRuns) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	if err != nil {
		return err
	}
	v := studyview.RunsComparison(c)
	v.Runs = runLinks(c.Base, c.BaseIDs)
	for _, p := range c.Pairs {
		v.Runs = append(v.Runs, runLinks(p.Label, p.IDs)...)
	}
	nav := NavOf("", where)
	q := url.Values{"label": labels, "edit": {"1"}}
	if workload != "" {
		q.Set("workload", workload)
	}
	nav.Links = append(nav.Links, htmlreport.Link{Href: CompareRunsPath + "?" + q.Encode(), Text: "choose other labels"})
	return htmlreport.Study(w, v, nav)
}

func runLinks(label string, ids []string) []report.Link {
	out := make([]report.Link, len(ids))
	for i, id := range ids {
		out[i] = report.Link{Href: "/run/" + url.PathEscape(id), Text: id, Note: "label " + label}
	}
	return out
}
