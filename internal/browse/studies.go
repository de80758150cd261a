package browse

import (
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/plan"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/texttable"
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
func Sweeps(steps []result.Doc) TextPage {
	p := TextPage{Intro: "Throughput sweeps: one link per sweep (mongobench sweep), newest first."}
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
	return htmlreport.Study(w, res.View(runs), NavOf("", where))
}

// SLA is the SLA journey page: one row per stage, mode and rate of the
// stored SLA runs, judged against the bounds in q (p99, p95, p999).
func SLA(docs []result.Doc, q url.Values) TextPage {
	p := TextPage{
		Intro: "SLA journeys (mongobench sla): one row per --stage, mode and rate, in the order the stages were run; give the SLA to count passes against.",
		Form: []Field{{Label: "p99", Name: "p99", Value: q.Get("p99"), Hint: "e.g. 20ms"},
			{Label: "p95", Name: "p95", Value: q.Get("p95"), Hint: "optional"}, {Label: "p99.9", Name: "p999", Value: q.Get("p999"), Hint: "optional"}},
	}
	if q.Get("p99") == "" {
		return p
	}
	sla, err := study.ParseSLA(q.Get("p99"), q.Get("p95"), q.Get("p999"))
	if err != nil {
		p.Error = err.Error()
		return p
	}
	var b strings.Builder
	if err := study.WriteJourneyOf(&b, false, docs, sla, "the results store"); err != nil {
		p.Error = err.Error()
		return p
	}
	p.Tables = append(p.Tables, TextTable{Title: "Journey against " + sla.String(), Text: b.String()})
	return p
}

// Plans lists the capacity plans of the stored runs, newest first.
func Plans(docs []result.Doc) TextPage {
	p := TextPage{Intro: "Capacity plans (mongobench plan): one link per plan name, newest first."}
	for _, g := range groupBy(docs, planOf) {
		p.Links = append(p.Links, Link{Href: "/plan/" + url.PathEscape(g.id), Text: g.id,
			Note: fmt.Sprintf("%d runs, first %s UTC", len(g.docs), stamp(g.first))})
	}
	if len(p.Links) == 0 {
		p.Intro = "No plans stored."
	}
	return p
}

// Plan is a plan's page: per candidate, its complete runs combined
// (throughput median and range, latency from the exact merge of the
// runs' histograms). Demand, prices and constraints live in the plan
// file, not in the runs: `mongobench plan FILE --from-results` answers
// with them.
func Plan(docs []result.Doc, name string) (TextPage, error) {
	runs := study.PlanDocs(docs, name)
	if len(runs) == 0 {
		return TextPage{}, fmt.Errorf("plan %q: %w", name, ErrNotFound)
	}
	p := TextPage{Intro: fmt.Sprintf("%d complete runs. Latency is the exact merge of each candidate's runs' histograms. "+
		"Demand, prices and constraints are in the plan file: 'mongobench plan FILE --from-results' gives the recommendation.", len(runs))}
	byCand := groupBy(runs, func(d *result.Doc) string {
		if c := result.VariantOf(d).Candidate; c != nil {
			return *c
		}
		return "(none)"
	})
	slices.SortFunc(byCand, func(a, b group) int { return strings.Compare(a.id, b.id) })
	var ops []string
	combined := make([]plan.Measured, len(byCand))
	for i, g := range byCand {
		var rs []plan.Run
		for j := range g.docs {
			rs = append(rs, plan.RunOf(&g.docs[j]))
		}
		m, err := plan.Combine(plan.Candidate{Name: g.id, Runs: rs})
		if err != nil {
			return p, fmt.Errorf("candidate %s: %w", g.id, err)
		}
		combined[i] = m
		for op := range m.Latency {
			if !slices.Contains(ops, op) {
				ops = append(ops, op)
			}
		}
		for j := range g.docs {
			p.Links = append(p.Links, Link{Href: "/run/" + g.docs[j].RunID, Text: g.docs[j].RunID, Note: "candidate " + g.id})
		}
	}
	slices.Sort(ops)
	cols := []string{"candidate", ">runs", ">ops/s (median)", ">min", ">max", ">server CPU %", ">errors %"}
	for _, op := range ops {
		cols = append(cols, ">"+op+" p95 ms", ">"+op+" p99 ms")
	}
	t := texttable.New(cols...)
	cells := texttable.Cells{Missing: missing}
	for i, g := range byCand {
		m := combined[i]
		row := []string{g.id, strconv.Itoa(m.Repetitions), texttable.Thousands(m.Throughput), texttable.Thousands(m.ThroughputMin),
			texttable.Thousands(m.ThroughputMax), cells.Num(m.ServerCPU), texttable.Sig3(100 * m.ErrorRate)}
		for _, op := range ops {
			if d, ok := m.Latency[op]; ok {
				row = append(row, cells.Num(d.P95), cells.Num(d.P99))
			} else {
				row = append(row, missing, missing)
			}
		}
		t.Add(row...)
	}
	var b strings.Builder
	if err := t.WriteText(&b, true); err != nil {
		return p, err
	}
	p.Tables = append(p.Tables, TextTable{Title: "Candidates", Text: b.String()})
	return p, nil
}
