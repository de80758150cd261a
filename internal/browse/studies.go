package browse

import (
	"fmt"
	"io"
	"net/url"
	"slices"
	"time"

	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/studyview"
)

// group is the runs of one study (a sweep, a plan), by its id or name.
type group struct {
	id    string
	docs  []result.Doc
	first time.Time
}

// groupBy groups docs by key ("" is left out), newest group first.
func groupBy(docs []result.Doc, key func(*result.Doc) string) []group {
	idx := map[string]int{}
	var gs []group
	for i := range docs {
		k := key(&docs[i])
		if k == "" {
			continue
		}
		j, ok := idx[k]
		if !ok {
			j = len(gs)
			idx[k] = j
			gs = append(gs, group{id: k, first: docs[i].Start})
		}
		gs[j].docs = append(gs[j].docs, docs[i])
		if docs[i].Start.Before(gs[j].first) {
			gs[j].first = docs[i].Start
		}
	}
	slices.SortStableFunc(gs, func(a, b group) int { return b.first.Compare(a.first) })
	return gs
}

func sweepOf(d *result.Doc) string {
	if s := result.VariantOf(d).Sweep; s != nil {
		return *s
	}
	return ""
}

func planOf(d *result.Doc) string {
	if s := result.VariantOf(d).Plan; s != nil {
		return *s
	}
	return ""
}

// Sweeps lists the sweeps of the stored steps, newest first.
func Sweeps(steps []result.Doc) LinkPage {
	p := LinkPage{Intro: "Throughput sweeps: one link per sweep (mongobench sweep), newest first."}
	for _, g := range groupBy(steps, sweepOf) {
		d := &g.docs[0]
		p.Links = append(p.Links, Link{Href: "/sweep/" + url.PathEscape(g.id), Text: g.id,
			Note: fmt.Sprintf("%s, label %q, %d steps, started %s UTC", workloadOf(d), d.Label, len(g.docs), stamp(g.first))})
	}
	if len(p.Links) == 0 {
		p.Intro = "No sweeps stored."
	}
	return p
}

// Sweep writes a stored sweep's page: the sweep's one view
// (study.SweepResult.View) built from its stored steps and the verdicts
// stored with them, the same page 'mongobench sweep' writes as its HTML
// report, under the browser's links; each step links to its run's page.
func Sweep(w io.Writer, steps []result.Doc, id, where string) error {
	res, err := study.StoredSweep(steps, id)
	if err != nil {
		return err
	}
	if len(res.Steps) == 0 {
		return fmt.Errorf("sweep %q: %w", id, ErrNotFound)
	}
	var runs []report.Link
	for _, s := range res.Steps {
		runs = append(runs, report.Link{Href: "/run/" + url.PathEscape(s.RunID), Text: s.RunID,
			Note: fmt.Sprintf("step %d, repetition %d, target %s ops/s", s.Index, s.Rep+1, num(s.Rate))})
	}
	return htmlreport.Study(w, studyview.Sweep(res, runs), NavOf("", where))
}

// SLA writes the SLA journey page: the stored SLA studies (a stage's
// runs under one SLA each) through their journey's view
// (studyview.Journey), each run passing by the verdict stored with it,
// never judged again; each stage links to its own page (SLAStage).
func SLA(w io.Writer, docs []result.Doc, where string) error {
	studies, err := study.StoredSLAs(docs)
	if err != nil {
		return err
	}
	return htmlreport.Study(w, studyview.Journey(studies, where, stageHref), NavOf("", where))
}

// stageHref is the link to a stored SLA study's page.
func stageHref(r study.SLAResult) string {
	stage, sla := r.Key()
	return "/sla?" + url.Values{"stage": {stage}, "sla": {sla}}.Encode()
}

// SLAStage writes the page of one stored SLA study, the stage's runs
// under the SLA named: the study's own view (study.SLAResult.View), the
// same page 'mongobench sla' writes as its HTML report, from the stored
// runs and their stored verdicts, under the browser's links; each run
// links to its page.
func SLAStage(w io.Writer, docs []result.Doc, stage, sla, where string) error {
	studies, err := study.StoredSLAs(docs)
	if err != nil {
		return err
	}
	for _, st := range studies {
		if s, l := st.Key(); s != stage || l != sla {
			continue
		}
		var runs []report.Link
		for _, r := range st.Runs {
			runs = append(runs, report.Link{Href: "/run/" + url.PathEscape(r.RunID), Text: r.RunID,
				Note: fmt.Sprintf("%s at %s TPS, repetition %d", r.Mode, num(r.TPS), r.Rep+1)})
		}
		return htmlreport.Study(w, studyview.StoredSLA(st, runs), NavOf("", where))
	}
	return fmt.Errorf("SLA stage %q under %q: %w", stage, sla, ErrNotFound)
}

// Plans lists the capacity plans of the stored runs, newest first.
func Plans(docs []result.Doc) LinkPage {
	p := LinkPage{Intro: "Capacity plans (mongobench plan): one link per plan name, newest first."}
	for _, g := range groupBy(docs, planOf) {
		p.Links = append(p.Links, Link{Href: "/plan/" + url.PathEscape(g.id), Text: g.id,
			Note: fmt.Sprintf("%d runs, first %s UTC", len(g.docs), stamp(g.first))})
	}
	if len(p.Links) == 0 {
		p.Intro = "No plans stored."
	}
	return p
}

// Plan writes a plan's page from its stored runs (studyview.StoredPlan):
// each candidate's complete runs combined, its latency by percentile and
// what limited it, under the browser's links. The plan's demand, prices
// and constraints are in its plan file, not in the runs: the page says
// so and how to get the recommendation, and invents none of them.
func Plan(w io.Writer, docs []result.Doc, name, where string) error {
	v, err := studyview.StoredPlan(docs, name, func(id string) string { return "/run/" + url.PathEscape(id) })
	if err != nil {
		return err
	}
	if v == nil {
		return fmt.Errorf("plan %q: %w", name, ErrNotFound)
	}
	return htmlreport.Study(w, v, NavOf("", where))
}
