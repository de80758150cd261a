package studyview

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mongobench/mongobench/internal/plan"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
)

// Each study's one view (report.StudyView), built from what it measured
// or from its stored runs and their verdicts: the terminal, the Markdown
// report, the HTML page and the results browser all render it.

// RunFiles links the runs' reports by their file names.
func RunFiles(names []string) []report.Link {
	out := make([]report.Link, len(names))
	for i, n := range names {
		out[i] = report.Link{Text: n, Href: n}
	}
	return out
}

func text(s string) report.Block { return report.Block{Text: s} }

func tableBlock(t *table) report.Block { return report.Block{Table: t} }

// Sweep is the sweep's view, the answer first: the criteria and the label,
// the verdict (the saturation throughput, what limited the knee, the
// highest target that held) and its charts, then the steps and, with
// repetitions, their spread; runs link the steps' reports or pages.
func Sweep(r study.SweepResult, runs []report.Link) *report.StudyView {
	s := r.Study
	workload, label := s.Base.Scenario.Workload, s.Base.Scenario.Label
	v := &report.StudyView{Title: "Throughput sweep of " + workload, Name: sweepReportName(r), Runs: runs,
		Intro: []report.Block{text(fmt.Sprintf("Sweep %s. A step holds when %s.", s.ID, s.Criteria))}}
	if label != "" {
		v.Intro = append(v.Intro, text("Label: "+label))
	}
	for _, line := range sweepVerdict(r.Steps, s.Criteria) {
		v.Verdict = append(v.Verdict, text(line))
	}
	curve := ChartCurve(cmp.Or(label, workload), r.Steps)
	v.Charts = report.SweepStudyCharts(workload+" sweep "+s.ID, []report.Curve{curve}, false, ms(s.Criteria.SLA))
	steps := report.Section{Title: "Steps", Blocks: []report.Block{tableBlock(sweepTable(r.Steps, s.Criteria))}}
	if s.Repeat > 1 || slices.ContainsFunc(r.Steps, func(st study.Step) bool { return st.Rep > 0 }) {
		steps.Blocks = append(steps.Blocks, tableBlock(spreadTable(study.Spreads(r.Steps))), text(spreadNote))
	}
	v.Sections = append(v.Sections, steps)
	return v
}

// SLA is the SLA study's view, the answer first: the SLA and the stage,
// the verdict (each mode and rate's runs passed and p99s, and across
// several rates whether each held) and the p99 against the target rate,
// then the runs, how their transactions ran, the ledger's audit (""
// for none) and what the failing runs' tails coincided with.
func SLA(r study.SLAResult, audit string, runs []report.Link) *report.StudyView {
	v := &report.StudyView{Title: "Transactions at a fixed rate: " + r.Study.SLA.String(), Name: slaReportName(r), Runs: runs}
	if r.Study.Stage != "" {
		v.Intro = append(v.Intro, text("Stage: "+r.Study.Stage))
	}
	sums := r.Summaries()
	v.Verdict = append(v.Verdict, tableBlock(summaryTable(sums)))
	if study.DistinctRates(r.Runs) > 1 {
		v.Verdict = append(v.Verdict, tableBlock(scalingTable(sums)), text(scalingNote(r.Study.SLA)))
	}
	if c := slaChart(sums, r.Study.SLA); c != nil {
		v.Charts = append(v.Charts, *c)
	}
	v.Sections = append(v.Sections, report.Section{Title: "Runs", Blocks: []report.Block{tableBlock(runsTable(r.Runs, r.Study.SLA))}})
	how := []report.Block{tableBlock(settingsTable(r.Runs))}
	if notes := runNotes(r.Runs); len(notes) > 0 {
		how = append(how, report.Block{Items: notes})
	} else {
		how = append(how, text("Every run used the settings asked for: no fallback, no note."))
	}
	if audit != "" {
		how = append(how, text("Audit: "+audit))
	}
	v.Sections = append(v.Sections, report.Section{Title: "How the transactions ran", Blocks: how})
	if tails := tailLines(r); len(tails) > 0 {
		v.Sections = append(v.Sections, report.Section{Title: "What the failing runs' tails coincided with", Blocks: []report.Block{{Items: tails}}})
	}
	return v
}

// slaReportName is the SLA report's file name without ".md".
func slaReportName(r study.SLAResult) string {
	if len(r.Runs) == 0 {
		return "sla"
	}
	return "sla-" + sortedRuns(r.Runs)[0].RunID
}

// tailLines say, for each run that failed the SLA, what its p99 tail
// coincided with (the diagnosis's tail: the condition that holds the
// operations above p99, with its evidence, or that nothing lines up),
// then what limited it.
func tailLines(r study.SLAResult) []string {
	var lines []string
	for _, run := range r.Runs {
		v := study.Judge(run, r.Study.SLA)
		if v.Pass || (run.Tail == "" && run.Limited == "") {
			continue
		}
		lines = append(lines, fmt.Sprintf("%s, %s/s %s, repetition %d (%s): %s",
			run.RunID, thousands(run.TPS), run.Mode, run.Rep+1, strings.Join(v.Reasons, "; "), joinSet(run.Tail, run.Limited)))
	}
	return lines
}

// joinSet joins the non-empty of parts with "; ".
func joinSet(parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), "; ")
}

// slaChart plots each mode's median and highest run p99 against the
// target rate, with the SLA; nil without runs.
func slaChart(sums []study.Summary, s study.SLA) *report.StudyChart {
	modes, xs := modesAndRates(sums)
	if len(xs) == 0 {
		return nil
	}
	p := &report.Plot{Title: "p99 latency against target rate", XLabel: "target transactions/s", YLabel: "p99 ms (log scale)", Unit: "ms", YLog: true, X: xs}
	for i, m := range modes {
		med, hi := make([]*float64, len(xs)), make([]*float64, len(xs))
		for _, sm := range sums {
			if sm.Mode == m {
				j := slices.Index(xs, sm.TPS)
				med[j], hi[j] = sm.P99Median, sm.P99Max
			}
		}
		p.Lines = append(p.Lines, report.Line{Label: m + " p99 median", Y: med, Color: i, Points: true},
			report.Line{Label: m + " p99 max", Y: hi, Color: i, Dash: true})
	}
	if s.P99 > 0 {
		y := make([]*float64, len(xs))
		for i := range y {
			v := ms(s.P99)
			y[i] = &v
		}
		p.Lines = append(p.Lines, report.Line{Label: "SLA (p99)", Y: y, Dash: true, Kind: report.LineReference})
	}
	return &report.StudyChart{Name: "sla-p99", Plot: p,
		Caption: "Solid: the median of the runs' own p99s at each rate; dashed: the highest. The grey dashed line is the SLA."}
}

// Calibrate is the calibration's view: the knee, then the table of steps.
func Calibrate(r study.CalibrateResult, runs []report.Link) *report.StudyView {
	s := r.Study
	return &report.StudyView{Title: "Thread calibration of " + s.Base.Scenario.Workload, Name: calibrateReportName(r), Runs: runs,
		Intro:    []report.Block{text(fmt.Sprintf("Calibration %s, closed loop, %s per step.", s.ID, s.Base.Scenario.Duration))},
		Verdict:  []report.Block{text(study.KneeLine(r.Steps, s.Search))},
		Sections: []report.Section{{Title: "Steps", Blocks: []report.Block{tableBlock(calibrationTable(r.Steps, s.Search))}}}}
}

// Comparison is the comparison's view, the answer first: the criteria, each
// pair's verdict, the charts (the whole sweeps', then each operation
// type's, a line per label), then the profiles and each pair's tables.
func Comparison(c study.Comparison) *report.StudyView {
	labels := strings.Join(c.Labels(), " vs ")
	workload := ""
	if len(c.Profiles) > 0 {
		workload = c.Profiles[0].Workload
	}
	v := &report.StudyView{Title: labels + ": " + workload, Name: comparisonReportName(c),
		Intro: []report.Block{text(fmt.Sprintf("A target holds when %s.", c.Criteria))}}
	for _, p := range c.Pairs {
		v.Verdict = append(v.Verdict, text(p.Verdict()))
		if line := p.StepsVerdict(c.Judging); line != "" {
			v.Verdict = append(v.Verdict, text(line))
		}
	}
	v.Verdict = append(v.Verdict, tableBlock(profilesTable(c.Profiles)))
	curves := make([]report.Curve, len(c.Sweeps))
	for i, steps := range c.Sweeps {
		curves[i] = ChartCurve(c.Profiles[i].Label, steps)
	}
	v.Charts = report.SweepStudyCharts(labels+" ("+workload+")", curves, true, ms(c.Criteria.SLA))
	for _, p := range c.Pairs {
		blocks := []report.Block{tableBlock(ratioTable(p))}
		if len(p.Matched) > 0 {
			blocks = append(blocks, tableBlock(matchedTable(p)))
		}
		if slices.ContainsFunc(p.Steps, study.StepRows.Judged) {
			blocks = append(blocks, text(fmt.Sprintf("Each step both ran, %s's repetitions against %s's, metric by metric:", p.A.Label, p.B.Label)),
				tableBlock(stepsTable(p)), text(significance.Legend(c.Judging)+"; the correction runs over every step's metrics together"))
		}
		v.Sections = append(v.Sections, report.Section{Title: CompareTitle(p), Blocks: blocks})
	}
	return v
}

// Plan is the capacity plan's view, the answer first: the workload,
// the demand and the constraints, the recommendation per stage, each
// candidate's latency by percentile (from the exact merge of its runs'
// histograms) and the bar charts (throughput, each operation type's p95,
// monthly cost, throughput per cost unit, the baseline marked), then the
// candidates, the ratios against the baseline, what limited each and the
// stages; runs link the plan's runs.
func Plan(pl *spec.Plan, ans plan.Answer, runs []report.Link) *report.StudyView {
	v := &report.StudyView{Title: "Capacity plan: " + pl.Name, Name: PlanReportName(pl), VerdictTitle: "Recommendation", Runs: runs,
		Intro: []report.Block{text(fmt.Sprintf("Workload %s, %d thread(s), %s per run; %s", pl.Scenario.Workload, pl.Scenario.Threads,
			pl.Scenario.Duration, demandText(ans)))}}
	if ans.Paced {
		first := ""
		if len(ans.Stages) > 0 {
			first = ans.Stages[0].Stage.Name
		}
		v.Intro[0] = text(fmt.Sprintf("Recorded traffic: %s (%s requests per second as recorded), replayed on every candidate at each stage's growth, open loop. "+
			"A candidate carries a stage when its runs there kept at least %s of the stage's rate and met the constraints, judged on those runs; "+
			"the candidates' table and the ratios show the first stage, %s.", pl.Scenario.Workload, study.Compact(pl.RecordedRate), study.Percent(plan.KeepUp)+"%", first))
	}
	if len(pl.Constraints) > 0 {
		var cs []string
		for _, c := range pl.Constraints {
			cs = append(cs, c.Text)
		}
		v.Intro = append(v.Intro, text("Constraints: "+strings.Join(cs, ", ")+"."))
	}
	v.Verdict = []report.Block{{Items: plan.Verdicts(ans)}}
	for _, op := range plan.LatencyOps(ans) {
		d := &report.DistPlot{Title: op + ": latency by percentile, per candidate"}
		for i, as := range ans.Assessments {
			if l, ok := as.Latency[op]; ok {
				d.Lines = append(d.Lines, report.DistLine{Label: as.Name, Dist: l, Color: i})
			}
		}
		v.Charts = append(v.Charts, report.StudyChart{Name: strings.ToLower(op) + "-percentiles", Dists: d})
	}
	for _, ch := range planCharts(ans) {
		title, unit, bars := ch.title, ch.unit, ch.bars
		v.Charts = append(v.Charts, report.StudyChart{Name: ch.file}.WithSVG(func() ([]byte, error) {
			return report.BarChart(title, unit, "baseline", bars)
		}))
	}
	stages := []report.Block{tableBlock(plan.StagesTable(ans, true))}
	if line := plan.UserModelLine(ans); line != "" {
		stages = append(stages, text(line))
	}
	v.Sections = []report.Section{
		{Title: "Candidates", Blocks: []report.Block{tableBlock(plan.CandidatesTable(ans, true)),
			text("Server CPU is a share of the CPUs the candidate's server may use (its profile's CPU list, else its instance's vCPU, else all of its host's).")}},
		{Title: "Against the baseline, " + ans.Baseline, Blocks: []report.Block{tableBlock(plan.RatiosTable(ans, true)), {Items: plan.RatioLines(ans)}}},
		{Title: "What limited each candidate", Blocks: []report.Block{{Items: plan.LimitLines(ans)}}},
		{Title: "Stages", Blocks: stages},
	}
	return v
}

// PlanReportName is the plan report's file name without its extension;
// its charts' names start with it.
func PlanReportName(pl *spec.Plan) string { return "plan-" + pl.Name }

func demandText(ans plan.Answer) string {
	line := plan.UserModelLine(ans)
	if line == "" {
		return "demand in explicit rates."
	}
	return strings.TrimPrefix(line, "users: ")
}

type planChart struct {
	title, unit, file string
	bars              []report.Bar
}

// planCharts are the report's bar charts: throughput, each operation
// type's p95, monthly cost and throughput per cost unit.
func planCharts(ans plan.Answer) []planChart {
	bar := func(as plan.Assessment, v *float64) report.Bar {
		return report.Bar{Name: as.Name, Value: v, Marked: as.Baseline}
	}
	val := func(v float64) *float64 { return &v }
	charts := []planChart{
		{title: "Sustained throughput", unit: "ops/s", file: "throughput"},
	}
	ops := plan.LatencyOps(ans)
	for _, op := range ops {
		charts = append(charts, planChart{title: op + " p95 latency", unit: "ms", file: strings.ToLower(op) + "-p95"})
	}
	charts = append(charts,
		planChart{title: "Monthly cost", unit: ans.Currency + "/month", file: "cost"},
		planChart{title: "Throughput per cost unit", unit: "ops/s per " + ans.Currency + "/month", file: "per-cost"})
	for _, as := range ans.Assessments {
		charts[0].bars = append(charts[0].bars, bar(as, val(as.Throughput)))
		for i, op := range ops {
			var v *float64
			if d, ok := as.Latency[op]; ok {
				v = d.P95
			}
			charts[1+i].bars = append(charts[1+i].bars, bar(as, v))
		}
		n := len(charts)
		charts[n-2].bars = append(charts[n-2].bars, bar(as, val(as.Monthly)))
		charts[n-1].bars = append(charts[n-1].bars, bar(as, val(as.ThroughputPerCostUnit)))
	}
	return charts
}
