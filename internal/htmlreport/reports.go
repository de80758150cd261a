package htmlreport

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/plan"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
)

// Name is the file name of the HTML report written beside the Markdown
// report mdName ("run.md" → "run.html").
func Name(mdName string) string { return strings.TrimSuffix(mdName, ".md") + ".html" }

// Names returns the HTML twins of the Markdown reports' file names.
func Names(mdNames []string) []string {
	out := make([]string, len(mdNames))
	for i, n := range mdNames {
		out[i] = Name(n)
	}
	return out
}

// filesOf indexes a study report's linked files by path.
func filesOf(fs []study.File) map[string][]byte {
	m := make(map[string][]byte, len(fs))
	for _, f := range fs {
		m[f.Path] = f.Data
	}
	return m
}

// sweepPage is the page of a report with the sweep charts: the links to
// the SVGs of the achieved and p99 curves (the files naming those charts)
// replaced by interactive charts of curves, with the SLA line.
func sweepPage(title string, md []byte, files []study.File, chartTitle string, curves []report.Curve, sla time.Duration) *page {
	p := &page{title: title, markdown: md, files: filesOf(files), replace: map[string][]Chart{}}
	var slaMs *float64
	if sla > 0 {
		slaMs = result.F(float64(sla) / float64(time.Millisecond))
	}
	cs := curveCharts(chartTitle, curves, slaMs)
	for _, f := range files {
		for i, name := range []string{"sweep-throughput", "sweep-p99"} {
			if f.Chart == name && i < len(cs) {
				p.replace[f.Path] = []Chart{cs[i]} // the caption stays in the Markdown, under it
			}
		}
	}
	return p
}

// Sweep writes a sweep's report (res.WriteReport's content); runs are the
// file names of its runs' reports, linked as their HTML twins.
func Sweep(w io.Writer, res study.SweepResult, runs []string) error {
	var md bytes.Buffer
	files, err := res.WriteReport(&md, Names(runs))
	if err != nil {
		return err
	}
	s := res.Study
	label := cmp.Or(s.Base.Scenario.Label, s.Base.Scenario.Workload)
	p := sweepPage("Throughput sweep "+s.ID, md.Bytes(), files, s.Base.Scenario.Workload+" sweep "+s.ID,
		[]report.Curve{study.ChartCurve(label, res.Steps)}, s.Criteria.SLA)
	return p.write(w)
}

// Compare writes a comparison's report (c.WriteReport's content), one
// series per label in each chart.
func Compare(w io.Writer, c study.Comparison) error {
	var md bytes.Buffer
	files, err := c.WriteReport(&md)
	if err != nil {
		return err
	}
	labels := make([]string, len(c.Curves))
	for i, cv := range c.Curves {
		labels[i] = cv.Label
	}
	title := strings.Join(labels, " vs ")
	if len(c.Profiles) > 0 {
		title += " (" + c.Profiles[0].Workload + ")"
	}
	return sweepPage(title, md.Bytes(), files, title, c.Curves, c.Criteria.SLA).write(w)
}

// SLA writes an SLA study's report (res.WriteReport's content) with, after
// its verdict and before the runs, a chart of each mode's p99 against the
// target rate: the median and the highest of the runs' own p99s, with the
// SLA.
func SLA(w io.Writer, res study.SLAResult, audit string, runs []string) error {
	var md bytes.Buffer
	if err := res.WriteReport(&md, audit, Names(runs)); err != nil {
		return err
	}
	p := &page{title: "Transactions at a fixed rate: " + res.Study.SLA.String(), markdown: md.Bytes()}
	if c := slaChart(res); c != nil {
		p.lead = append(p.lead, section{charts: []Chart{*c}})
	}
	return p.write(w)
}

// slaChart plots each mode's median and highest run p99 against the
// target rate, or nil without runs.
func slaChart(res study.SLAResult) *Chart {
	sums := study.Summarize(res.Runs, res.Study.SLA)
	var xs []float64
	var modes []string
	for _, s := range sums {
		if !slices.Contains(xs, s.TPS) {
			xs = append(xs, s.TPS)
		}
		if !slices.Contains(modes, s.Mode) {
			modes = append(modes, s.Mode)
		}
	}
	if len(xs) == 0 {
		return nil
	}
	slices.Sort(xs)
	c := Chart{Title: "p99 latency against target rate", XLabel: "target transactions/s", YLabel: "p99 ms (log scale)", XAxis: "linear", YLog: true, X: xs,
		Caption: "Solid: the median of the runs' own p99s at each rate; dashed: the highest. The grey dashed line is the SLA."}
	for i, m := range modes {
		med, hi := make([]*float64, len(xs)), make([]*float64, len(xs))
		for _, s := range sums {
			if s.Mode == m {
				j := slices.Index(xs, s.TPS)
				med[j], hi[j] = s.P99Median, s.P99Max
			}
		}
		c.Series = append(c.Series,
			Series{Label: m + " p99 median", Y: med, Color: color(i), Points: true, Unit: "ms"},
			Series{Label: m + " p99 max", Y: hi, Color: color(i), Dash: true, Unit: "ms"})
	}
	if sla := res.Study.SLA.P99; sla > 0 {
		c.Series = append(c.Series, Series{Label: "SLA (p99)", Y: constant(len(xs), float64(sla)/float64(time.Millisecond)), Color: refGrey, Dash: true, Unit: "ms"})
	}
	return &c
}

// Calibrate writes a thread calibration's report (res.WriteReport's
// content).
func Calibrate(w io.Writer, res study.CalibrateResult, runs []string) error {
	var md bytes.Buffer
	if err := res.WriteReport(&md, Names(runs)); err != nil {
		return err
	}
	return (&page{title: "Thread calibration " + res.Study.ID, markdown: md.Bytes()}).write(w)
}

// Plan writes a capacity plan's report (study.PlanReportFiles' content,
// its bar charts inlined) and, per operation type, the candidates'
// latency distributions by percentile, one line per candidate, from
// their merged histograms.
func Plan(w io.Writer, pl *spec.Plan, ans plan.Answer) error {
	var md bytes.Buffer
	files, err := study.PlanReportFiles(&md, pl, ans)
	if err != nil {
		return err
	}
	p := &page{title: "Capacity plan: " + pl.Name, markdown: md.Bytes(), files: filesOf(files)}
	ops := plan.LatencyOps(ans)
	var cs []Chart
	for _, op := range ops {
		var lines []distLine
		for i, as := range ans.Assessments {
			if d, ok := as.Latency[op]; ok {
				lines = append(lines, distLine{label: as.Name, dist: d, color: color(i)})
			}
		}
		c, err := percentileChart(op+": latency by percentile, per candidate", lines)
		if err != nil {
			return fmt.Errorf("plan %s, %s: %w", pl.Name, op, err)
		}
		if c != nil {
			cs = append(cs, *c)
		}
	}
	if len(cs) > 0 {
		p.extra = append(p.extra, section{heading: "Latency by percentile",
			intro: "Each candidate's latency at every percentile, from the exact merge of its runs' histograms.", charts: cs})
	}
	return p.write(w)
}

// Document writes a rendered Markdown document (the Performance Tables,
// or any template 'mongobench tables' rendered) as a page titled title.
func Document(w io.Writer, title string, md []byte) error {
	return (&page{title: title, markdown: md}).write(w)
}
