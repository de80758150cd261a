package studyview

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/plan"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/texttable"
)

// Journey is the tuning journey of the stored SLA studies, the
// answer first: a row per stage, SLA, mode and rate in the order the
// stages were run, with how many runs passed (by their stored verdicts)
// and whether the mode held there; each stage's study links to its own
// page (link; nil: no links, as on a terminal). where names the results
// store.
func Journey(studies []study.SLAResult, where string, link func(study.SLAResult) string) *report.StudyView {
	v := &report.StudyView{Title: "SLA journey", Name: "sla-journey",
		Intro: []report.Block{text(fmt.Sprintf("The SLA runs (mongobench sla) stored in %s, stage by stage in the order run. "+
			"Each run passes by the verdict its study stored with it (testResults.sla), never judged again; a mode holds at a rate when most of its runs there passed "+
			"(a study's --require is not stored with its runs).", where))}}
	if len(studies) == 0 {
		v.Verdict = []report.Block{text("No SLA runs stored in " + where + ".")}
		return v
	}
	t := newTable("stage", "SLA", "mode", ">TPS", ">passed", "held", ">p99 median ms")
	c := cells
	for _, st := range studies {
		for _, sum := range st.Summaries() {
			held := "no"
			if sum.Held() {
				held = "yes"
			}
			t.Add(c.Text(st.Study.Stage), st.Study.SLA.String(), sum.Mode, thousands(sum.TPS), fraction(sum.Passed, sum.Runs), held, c.Num(sum.P99Median))
		}
		stage := st.Study.Stage
		if stage == "" {
			stage = "(no stage)"
		}
		if link != nil {
			v.Runs = append(v.Runs, report.Link{Text: "stage " + stage, Href: link(st),
				Note: fmt.Sprintf("%d runs against %s", len(st.Runs), st.Study.SLA)})
		}
	}
	v.Verdict = []report.Block{tableBlock(t)}
	return v
}

// StoredSLA is a stored SLA study's view: the study's own (SLA), with
// a line first that says its runs were read from the store and judged by
// their stored verdicts.
func StoredSLA(r study.SLAResult, runs []report.Link) *report.StudyView {
	v := SLA(r, "", runs)
	v.Intro = append([]report.Block{text(fmt.Sprintf("%d stored runs of this stage, each judged by the verdict stored with it (testResults.sla); "+
		"a mode holds at a rate when most of its runs there passed (a study's --require is not stored with its runs). The ledger's audit is not stored: 'mongobench sla' prints it.", len(r.Runs)))}, v.Intro...)
	return v
}

// StoredPlan is a capacity plan's page from its stored runs alone:
// each candidate's complete runs combined (throughput median and range,
// latency from the exact merge of the runs' histograms, server CPU,
// errors, what limited it), its latency by percentile, and the runs.
// The plan's demand, prices, baseline and constraints are in its plan
// file, not in the runs: the page says so, and how to get the
// recommendation, rather than answering without them.
func StoredPlan(docs []result.Doc, name string, link func(runID string) string) (*report.StudyView, error) {
	runs := study.PlanDocs(docs, name)
	if len(runs) == 0 {
		return nil, nil
	}
	partial := 0
	for i := range docs {
		if n := result.VariantOf(&docs[i]).Plan; n != nil && *n == name && docs[i].Partial {
			partial++
		}
	}
	byCand := map[string][]plan.Run{}
	var names []string
	v := &report.StudyView{Title: "Capacity plan: " + name, Name: "plan-" + name, VerdictTitle: "Recommendation"}
	for i := range runs {
		c := "(none)"
		if n := result.VariantOf(&runs[i]).Candidate; n != nil {
			c = *n
		}
		r := plan.RunOf(&runs[i])
		if r.Stage != "" {
			// A plan on recorded traffic: each stage replayed at its own
			// rate is a row of its own, never merged with the others.
			c += " at " + r.Stage
		}
		if _, ok := byCand[c]; !ok {
			names = append(names, c)
		}
		byCand[c] = append(byCand[c], r)
		v.Runs = append(v.Runs, report.Link{Text: runs[i].RunID, Href: link(runs[i].RunID), Note: "candidate " + c})
	}
	slices.Sort(names)
	ans := plan.Answer{}
	for _, n := range names {
		m, err := plan.Combine(plan.Candidate{Name: n, Runs: byCand[n]})
		if err != nil {
			return nil, fmt.Errorf("plan %s, candidate %s: %w", name, n, err)
		}
		ans.Assessments = append(ans.Assessments, plan.Assessment{Candidate: plan.Candidate{Name: n}, Measured: m})
	}
	intro := fmt.Sprintf("%d complete runs of %d candidates stored", len(runs), len(names))
	if partial > 0 {
		intro += fmt.Sprintf(" (%d runs stopped early are left out)", partial)
	}
	v.Intro = []report.Block{text(intro + ".")}
	v.Verdict = []report.Block{{Strong: true, Text: "Not answered here: the plan's demand, prices, baseline and constraints are in its plan file, not in its runs, " +
		"so this page shows what the runs measured and no recommendation. 'mongobench plan FILE --from-results --report-dir DIR' answers from these runs with them and writes the full report."}}
	for _, op := range plan.LatencyOps(ans) {
		d := &report.DistPlot{Title: op + ": latency by percentile, per candidate"}
		for i, as := range ans.Assessments {
			if l, ok := as.Latency[op]; ok {
				d.Lines = append(d.Lines, report.DistLine{Label: as.Name, Dist: l, Color: i})
			}
		}
		v.Charts = append(v.Charts, report.StudyChart{Name: strings.ToLower(op) + "-percentiles", Dists: d})
	}
	v.Sections = []report.Section{
		{Title: "Candidates", Blocks: []report.Block{tableBlock(storedCandidates(ans)),
			text("Throughput is the median of a candidate's runs, with its range; latency the exact merge of its runs' histograms. " +
				"Server CPU is a share of the CPUs the candidate's server may use. Prices and the constraints' verdicts need the plan file.")}},
		{Title: "What limited each candidate", Blocks: []report.Block{{Items: plan.LimitLines(ans)}}},
	}
	return v, nil
}

// storedCandidates has a row per candidate: its runs, throughput median
// and range, server CPU, errors, and each operation type's p95 and p99.
func storedCandidates(ans plan.Answer) *table {
	ops := plan.LatencyOps(ans)
	cols := []string{"candidate", ">runs", ">ops/s (median)", ">min", ">max", ">server CPU %", ">errors %"}
	for _, op := range ops {
		cols = append(cols, ">"+op+" p95 ms", ">"+op+" p99 ms")
	}
	t := newTable(cols...)
	c := cells
	for _, as := range ans.Assessments {
		row := []string{as.Name, strconv.Itoa(as.Repetitions), texttable.Thousands(as.Throughput), texttable.Thousands(as.ThroughputMin),
			texttable.Thousands(as.ThroughputMax), c.Num(as.ServerCPU), sig3(100 * as.ErrorRate)}
		for _, op := range ops {
			l, ok := as.Latency[op]
			if !ok {
				row = append(row, c.Missing, c.Missing)
				continue
			}
			row = append(row, c.Num(l.P95), c.Num(l.P99))
		}
		t.Add(row...)
	}
	return t
}
