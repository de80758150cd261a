package browse

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/studyview"
	"github.com/mongobench/mongobench/internal/validity"
)

// CompareRunsPath is the address of the comparison of labels' single
// runs (compare --runs): ?label=A&label=B… (the first compared with the
// others) and optionally the other flags of compare --runs by their
// names (CompareQuery); with fewer than two labels, or with &edit=1, its
// form.
const CompareRunsPath = "/compare-runs"

// ErrBadParam is a parameter of a page's address that is not valid.
var ErrBadParam = errors.New("bad parameter")

// CompareQuery is a comparison of labels' runs as its page's address
// asks for it, the parameters named as compare --runs' flags: label
// (repeated, the first compared with the others), workload, alpha,
// min-effect (KIND=PERCENT, repeated or comma-separated), correction
// and include-invalid.
type CompareQuery struct {
	Labels         []string
	Workload       string
	Judging        significance.Settings
	IncludeInvalid bool
}

// ParseCompareQuery reads a comparison's address; a value that is not
// valid is ErrBadParam naming the parameter and what would be.
func ParseCompareQuery(q url.Values) (CompareQuery, error) {
	c := CompareQuery{Labels: DistinctLabels(q["label"]), Workload: q.Get("workload"),
		Judging: significance.Settings{Alpha: significance.DefaultAlpha, Seed: significance.DefaultSeed, Correction: significance.DefaultCorrection}}
	if a := strings.TrimSpace(q.Get("alpha")); a != "" {
		x, err := strconv.ParseFloat(a, 64)
		if err != nil {
			x = math.NaN()
		}
		c.Judging.Alpha = x
	}
	if k := strings.TrimSpace(q.Get("correction")); k != "" {
		c.Judging.Correction = significance.Correction(k)
	}
	for _, v := range q["min-effect"] {
		for _, one := range strings.Split(v, ",") {
			if strings.TrimSpace(one) == "" {
				continue
			}
			k, x, err := significance.ParseMinEffect(one)
			if err != nil {
				return c, fmt.Errorf("%w: min-effect %q: %w", ErrBadParam, one, err)
			}
			if c.Judging.MinEffect == nil {
				c.Judging.MinEffect = map[string]float64{}
			}
			c.Judging.MinEffect[k] = x
		}
	}
	switch v := q.Get("include-invalid"); v {
	case "", "0", "false":
	case "1", "true", "on":
		c.IncludeInvalid = true
	default:
		return c, fmt.Errorf("%w: include-invalid %q: want 1 or 0", ErrBadParam, v)
	}
	if err := study.CheckJudging(c.Judging); err != nil {
		return c, fmt.Errorf("%w: %s", ErrBadParam, strings.Replace(strings.TrimPrefix(err.Error(), "--"), ": ", " ", 1))
	}
	return c, nil
}

// Values is the query's address parameters (edit not among them).
func (c CompareQuery) Values() url.Values {
	q := url.Values{"label": c.Labels}
	if c.Workload != "" {
		q.Set("workload", c.Workload)
	}
	if c.Judging.Level() != significance.DefaultAlpha {
		q.Set("alpha", strconv.FormatFloat(c.Judging.Level(), 'g', -1, 64))
	}
	if c.Judging.Corrected() != significance.DefaultCorrection {
		q.Set("correction", string(c.Judging.Corrected()))
	}
	if me := c.minEffects(); me != "" {
		q.Set("min-effect", me)
	}
	if c.IncludeInvalid {
		q.Set("include-invalid", "1")
	}
	return q
}

// minEffects are the minimum effects asked for, KIND=PERCENT joined by
// commas in name order, "" for none.
func (c CompareQuery) minEffects() string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(c.Judging.MinEffect)) {
		out = append(out, fmt.Sprintf("%s=%s%%", k, strconv.FormatFloat(100*c.Judging.MinEffect[k], 'g', -1, 64)))
	}
	return strings.Join(out, ",")
}

// LabelsPage is the form of the comparison of labels' runs: the labels
// with stored single runs, the first to compare the others with.
type LabelsPage struct {
	Intro     string
	Labels    []LabelRuns
	Workloads []string
	// Base, Others and Workload are the choices given so far, and Alpha,
	// MinEffect, Correction and IncludeInvalid the other settings (as
	// compare --runs' flags).
	Base, Workload string
	Others         []string
	Alpha          string
	MinEffect      string
	Correction     string
	Corrections    []string
	IncludeInvalid bool
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
func RunLabels(docs []result.Doc, c CompareQuery, note string) LabelsPage {
	p := LabelsPage{Intro: "Compare labels' stored single runs metric by metric, one value per run, as 'mongobench compare --runs' does: pick the label to compare with and one or more others.",
		Workload: c.Workload, Note: note, Alpha: strconv.FormatFloat(c.Judging.Level(), 'g', -1, 64), MinEffect: c.minEffects(),
		Correction: string(c.Judging.Corrected()), Corrections: []string{string(significance.BH), string(significance.Holm), string(significance.None)},
		IncludeInvalid: c.IncludeInvalid}
	if len(c.Labels) > 0 {
		p.Base, p.Others = c.Labels[0], c.Labels[1:]
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
// (of the query's workload, any when "") judged as the query says (the
// flags of compare --runs; the runs judged invalid left out unless it
// includes them, the page saying how many): the view of compare --runs,
// the page it writes as its HTML report, under the browser's links,
// each label's runs linked to their pages. A label without a run is
// ErrNotFound.
func CompareRuns(w io.Writer, docs []result.Doc, c CompareQuery, where string) error {
	if len(c.Labels) < 2 {
		return ErrTooFewLabels
	}
	docs, left := validity.Filter(docs, c.IncludeInvalid)
	s := study.CompareRunsStudy{Labels: c.Labels, Workload: c.Workload, Judging: c.Judging}
	cmp, err := s.Run(docs, where)
	if errors.Is(err, study.ErrNoRuns) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	if err != nil {
		return err
	}
	v := studyview.RunsComparison(cmp)
	settings := fmt.Sprintf("Settings (as compare --runs' flags): --alpha %g, --correction %s, --min-effect %s; ", c.Judging.Level(), c.Judging.Corrected(), orDefaults(c.minEffects()))
	if c.IncludeInvalid {
		settings += "runs judged invalid counted (--include-invalid)."
	} else if s := validity.LeftOut(left); s != "" {
		settings += s + "."
	} else {
		settings += "no run judged invalid among them."
	}
	v.Intro = append(v.Intro, report.Block{Text: settings})
	v.Runs = runLinks(cmp.Base, cmp.BaseIDs)
	for _, p := range cmp.Pairs {
		v.Runs = append(v.Runs, runLinks(p.Label, p.IDs)...)
	}
	nav := NavOf("", where)
	q := c.Values()
	q.Set("edit", "1")
	nav.Links = append(nav.Links, htmlreport.Link{Href: CompareRunsPath + "?" + q.Encode(), Text: "change the labels or settings"})
	return htmlreport.Study(w, v, nav)
}

func orDefaults(s string) string {
	if s == "" {
		return "the defaults"
	}
	return s + " (the others their defaults)"
}

func runLinks(label string, ids []string) []report.Link {
	out := make([]report.Link, len(ids))
	for i, id := range ids {
		out[i] = report.Link{Href: "/run/" + url.PathEscape(id), Text: id, Note: "label " + label}
	}
	return out
}
