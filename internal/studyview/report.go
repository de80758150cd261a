package studyview

import (
	"strings"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/study"
)

// sweepReportName is the sweep report's file name without ".md".
func sweepReportName(r study.SweepResult) string { return "sweep-" + r.Study.ID }

// calibrateReportName is the calibration report's file name without ".md".
func calibrateReportName(r study.CalibrateResult) string { return "calibrate-" + r.Study.ID }

// ChartCurve is a sweep's steps as a chart's line, with a line per
// operation type (in the order first seen) of that type's mean achieved
// rate and mean p99 over the repetitions of each target.
func ChartCurve(label string, steps []study.Step) report.Curve {
	c := report.Curve{Label: label}
	for _, pt := range study.Curve(steps) {
		c.Points = append(c.Points, report.CurvePoint{Target: pt.Target, Achieved: pt.Achieved, P99: pt.P99})
	}
	for _, name := range study.OpNames(steps) {
		op := report.Curve{Label: name}
		for _, l := range study.Levels(steps, study.Criteria{}) {
			pt := report.CurvePoint{Target: l.Rate}
			seen := false
			for _, r := range study.MeanOpRates(l.Steps) {
				if r.Name == name {
					pt.Achieved, seen = r.Rate, true
				}
			}
			for _, p := range study.MeanP99s(l.Steps) {
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

// SafeName replaces what a file name should not hold (/ \ : and spaces)
// with "_".
func SafeName(s string) string { return report.SafeName(s) }

// comparisonReportName is the comparison report's file name without ".md",
// compare-A-vs-B….
func comparisonReportName(c study.Comparison) string {
	return SafeName("compare-" + strings.Join(c.Labels(), "-vs-"))
}
