package study

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/report"
)

// The studies' Markdown reports. Each renders to an io.Writer and returns
// the chart files it links; the caller writes them beside the report, at
// their Path.

// File is a file a report links to, by its path relative to the report
// ("charts/sweep-…-sweep-p99.svg").
type File struct {
	Path string
	Data []byte
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
	if err := r.WriteTables(w, Markdown); err != nil {
		return err
	}
	w.printf("\nAudit: %s\n", audit)
	writeRunLinks(w, runs)
	return w.err
}

// ReportName is the sweep report's file name without ".md".
func (r SweepResult) ReportName() string { return "sweep-" + r.Study.ID }

// WriteReport writes the sweep's Markdown report: the criteria, the label,
// the tables, the charts and links to the runs' reports; it returns the
// charts.
func (r SweepResult) WriteReport(out io.Writer, runs []string) ([]File, error) {
	s := r.Study
	workload, label := s.Base.Scenario.Workload, s.Base.Scenario.Label
	w := &writer{w: out}
	w.printf("# Throughput sweep of %s\n\nSweep %s. A step holds when %s.\n\n", workload, s.ID, s.Criteria)
	if label != "" {
		w.printf("Label: %s\n\n", label)
	}
	if err := r.WriteTables(w, Markdown); err != nil {
		return nil, err
	}
	charts, err := writeSweepCharts(w, r.ReportName(), workload+" sweep "+s.ID, []report.Curve{ChartCurve(cmp.Or(label, workload), r.Steps)}, s.Criteria.SLA)
	if err != nil {
		return nil, err
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

// ChartCurve is a sweep's steps as a chart's line.
func ChartCurve(label string, steps []Step) report.Curve {
	c := report.Curve{Label: label}
	for _, pt := range Curve(steps) {
		c.Points = append(c.Points, report.CurvePoint{Target: pt.Target, Achieved: pt.Achieved, P99: pt.P99})
	}
	return c
}

// sweepCaptions say under a sweep chart what to read from it.
var sweepCaptions = map[string]string{
	"sweep-throughput": "*Achieved against target throughput; the dashed diagonal is every target met. Where a curve leaves the diagonal, that target saturated it.*",
	"sweep-p99":        "*p99 latency (the highest over the operation types, log scale) against target throughput: how the tail grows as the load nears saturation; the dashed line is the SLA, when one was set.*",
}

// writeSweepCharts renders the sweep charts of curves, named
// charts/name-<chart>.svg (the p99 chart with the SLA, when positive), writes their Markdown links and captions, and
// returns them.
func writeSweepCharts(w *writer, name, title string, curves []report.Curve, sla time.Duration) ([]File, error) {
	charts, err := report.SweepCharts(title, curves, float64(sla)/float64(time.Millisecond))
	if err != nil || len(charts) == 0 {
		return nil, err
	}
	w.printf("\n## Charts\n\n")
	files := make([]File, 0, len(charts))
	for _, c := range charts {
		rel := "charts/" + SafeName(name) + "-" + c.Name + ".svg"
		files = append(files, File{Path: rel, Data: c.SVG})
		w.printf("![%s](%s)\n\n%s\n\n", c.Name, rel, sweepCaptions[c.Name])
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
