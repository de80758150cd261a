package study

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/texttable"
)

// The studies' Markdown reports. Each renders to an io.Writer and returns
// the chart files it links; the caller writes them beside the report, at
// their Path.

// File is a file a report links to, by its path relative to the report
// ("charts/sweep-…-sweep-p99.svg").
type File struct {
	Path string
	Data []byte
	// Chart names the chart the file draws ("sweep-throughput",
	// "sweep-p99", ...; "" for none): what a page that draws its charts
	// itself finds it by.
	Chart string
}

// writer keeps the first write error, so a report renders without a
// check after every line.
type writer struct {
	w   io.Writer
	err error
}

func (w *writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.w.Write(p)
	w.err = err
	return n, err
}

func (w *writer) printf(format string, args ...any) { fmt.Fprintf(w, format, args...) }

// writeRunLinks ends a study's report with links to its runs' own
// reports, file names in the same directory.
func writeRunLinks(w *writer, runs []string) {
	w.printf("\n## Runs\n\n")
	for _, r := range runs {
		w.printf("- [%s](%s)\n", r, r)
	}
}

// WriteReport writes the SLA study's Markdown report: the SLA, the stage,
// the tables, the ledger's audit and links to the runs' reports.
func (r SLAResult) WriteReport(out io.Writer, audit string, runs []string) error {
	w := &writer{w: out}
	w.printf("# Transactions at a fixed rate: %s\n\n", r.Study.SLA)
	if r.Study.Stage != "" {
		w.printf("Stage: %s\n\n", r.Study.Stage)
	}
	if err := r.writeVerdict(w); err != nil {
		return err
	}
	w.printf("\n## Runs\n\n")
	if err := WriteRuns(w, Markdown, r.Runs, r.Study.SLA); err != nil {
		return err
	}
	w.printf("\n## How the transactions ran\n\n")
	if err := WriteSettings(w, Markdown, r.Runs); err != nil {
		return err
	}
	w.printf("\nAudit: %s\n", audit)
	r.writeTails(w)
	writeRunLinks(w, runs)
	return w.err
}

// writeVerdict writes the SLA's answer: each mode and rate's runs passed
// and p99s, and across several rates whether each held.
func (r SLAResult) writeVerdict(w io.Writer) error {
	sums := r.Summaries()
	if err := WriteSummary(w, Markdown, sums); err != nil {
		return err
	}
	if distinctRates(r.Runs) > 1 {
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		return WriteScaling(w, Markdown, sums, r.Study.SLA)
	}
	return nil
}

// writeTails says, for each run that failed the SLA, what its p99 tail
// coincided with: the run's diagnosis.
func (r SLAResult) writeTails(w *writer) {
	var lines []string
	for _, run := range r.Runs {
		v := Judge(run, r.Study.SLA)
		if v.Pass || run.Limited == "" {
			continue
		}
		lines = append(lines, fmt.Sprintf("- %s, %s/s %s, repetition %d (%s): %s",
			run.RunID, thousands(run.TPS), run.Mode, run.Rep+1, strings.Join(v.Reasons, "; "), run.Limited))
	}
	if len(lines) == 0 {
		return
	}
	w.printf("\n## What the failing runs' tails coincided with\n\n%s\n", strings.Join(lines, "\n"))
}

// ReportName is the sweep report's file name without ".md".
func (r SweepResult) ReportName() string { return "sweep-" + r.Study.ID }

// WriteReport writes the sweep's Markdown report, the answer first: the
// criteria and the label, the verdict (the saturation throughput, what
// limited the knee, the highest target that held), the charts, then the
// steps' tables and links to the runs' reports; it returns the charts.
func (r SweepResult) WriteReport(out io.Writer, runs []string) ([]File, error) {
	s := r.Study
	workload, label := s.Base.Scenario.Workload, s.Base.Scenario.Label
	w := &writer{w: out}
	w.printf("# Throughput sweep of %s\n\nSweep %s. A step holds when %s.\n\n", workload, s.ID, s.Criteria)
	if label != "" {
		w.printf("Label: %s\n\n", texttable.Escape(label))
	}
	if err := sweepLines(w, Markdown, r.Steps, s.Criteria); err != nil {
		return nil, err
	}
	curve := ChartCurve(cmp.Or(label, workload), r.Steps)
	charts, err := writeSweepCharts(w, r.ReportName(), workload+" sweep "+s.ID, []report.Curve{curve}, false, s.Criteria.SLA)
	if err != nil {
		return nil, err
	}
	w.printf("\n## Steps\n\n")
	if err := writeSweepTable(w, Markdown, r.Steps, s.Criteria); err != nil {
		return nil, err
	}
	if s.Repeat > 1 {
		w.printf("\n")
		if err := WriteSpread(w, Markdown, Spreads(r.Steps)); err != nil {
			return nil, err
		}
	}
	writeRunLinks(w, runs)
	return charts, w.err
}

// ReportName is the calibration report's file name without ".md".
func (r CalibrateResult) ReportName() string { return "calibrate-" + r.Study.ID }

// WriteReport writes the calibration's Markdown report: the table, the
// knee and links to the runs' reports.
func (r CalibrateResult) WriteReport(out io.Writer, runs []string) error {
	w := &writer{w: out}
	w.printf("# Thread calibration of %s\n\nCalibration %s, closed loop, %s per step.\n\n",
		r.Study.Base.Scenario.Workload, r.Study.ID, r.Study.Base.Scenario.Duration)
	if err := r.WriteTables(w, Markdown); err != nil {
		return err
	}
	writeRunLinks(w, runs)
	return w.err
}

// ChartCurve is a sweep's steps as a chart's line, with a line per
// operation type (in the order first seen) of that type's mean achieved
// rate and mean p99 over the repetitions of each target.
func ChartCurve(label string, steps []Step) report.Curve {
	c := report.Curve{Label: label}
	for _, pt := range Curve(steps) {
		c.Points = append(c.Points, report.CurvePoint{Target: pt.Target, Achieved: pt.Achieved, P99: pt.P99})
	}
	for _, name := range opNames(steps) {
		op := report.Curve{Label: name}
		for _, l := range Levels(steps, Criteria{}) {
			pt := report.CurvePoint{Target: l.Rate}
			seen := false
			for _, r := range meanOpRates(l.Steps) {
				if r.Name == name {
					pt.Achieved, seen = r.Rate, true
				}
			}
			for _, p := range meanP99s(l.Steps) {
				if p.Name == name {
					pt.P99 = p.P99
				}
			}
			if seen {
				op.Points = append(op.Points, pt)
			}
		}
		c.Ops = append(c.Ops, op)
	}
	return c
}

// sweepCaption says under a sweep chart what to read from it.
func sweepCaption(chart string) string {
	switch chart {
	case "sweep-throughput":
		return "*Achieved against target throughput; the dashed diagonal is every target met. Where a curve leaves the diagonal, that target saturated it.*"
	case "sweep-p99":
		return "*p99 latency (the highest over the operation types, log scale) against target throughput: how the tail grows as the load nears saturation; the dashed line is the SLA, when one was set.*"
	case "ops-throughput":
		return "*Each operation type's achieved rate against the sweep's target throughput: each runs at its share of the target until the sweep saturates.*"
	case "ops-p99":
		return "*Each operation type's p99 latency (log scale) against the sweep's target throughput.*"
	}
	if op, ok := strings.CutSuffix(chart, "-throughput"); ok {
		return "*" + op + "'s achieved rate against the sweep's target throughput, one line per label: " + op + " runs at its share of the target until a sweep saturates.*"
	}
	if op, ok := strings.CutSuffix(chart, "-p99"); ok {
		return "*" + op + "'s p99 latency (log scale) against the sweep's target throughput, one line per label.*"
	}
	return ""
}

// writeSweepCharts renders the sweep charts of curves, named
// charts/name-<chart>.svg, writes their Markdown links and captions, and
// returns them: the whole sweep's two charts (the p99 chart with the SLA,
// when positive), then with perOp one pair per operation type, a line per
// curve (a comparison), else for a single curve one pair with a line per
// operation type.
func writeSweepCharts(w *writer, name, title string, curves []report.Curve, perOp bool, sla time.Duration) ([]File, error) {
	charts, err := report.SweepCharts(title, curves, float64(sla)/float64(time.Millisecond))
	if err != nil || len(charts) == 0 {
		return nil, err
	}
	var more []report.Chart
	switch {
	case perOp:
		more, err = report.OpCharts(title, curves)
	case len(curves) == 1:
		more, err = report.MixCharts(title, curves[0])
	}
	if err != nil {
		return nil, err
	}
	charts = append(charts, more...)
	w.printf("\n## Charts\n\n")
	files := make([]File, 0, len(charts))
	for _, c := range charts {
		rel := "charts/" + SafeName(name) + "-" + SafeName(c.Name) + ".svg"
		files = append(files, File{Path: rel, Data: c.SVG, Chart: c.Name})
		w.printf("![%s](%s)\n\n%s\n\n", c.Name, rel, sweepCaption(c.Name))
	}
	return files, nil
}

// SafeName replaces what a file name should not hold (/ \ : and spaces)
// with "_".
func SafeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, s)
}
