package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/study"
)

// curveOf is a sweep's steps as a chart curve.
func curveOf(label string, steps []study.Step) report.Curve {
	c := report.Curve{Label: label}
	for _, pt := range study.Curve(steps) {
		c.Points = append(c.Points, report.CurvePoint{Target: pt.Target, Achieved: pt.Achieved, P99: pt.P99})
	}
	return c
}

// sweepCaptions say under a sweep chart what to read from it.
var sweepCaptions = map[string]string{
	"sweep-throughput": "*Achieved against target throughput; the dashed diagonal is every target met. Where a curve leaves the diagonal, that target saturated it.*",
	"sweep-p99":        "*p99 latency (the highest over the operation types, log scale) against target throughput: how the tail grows as the load nears saturation.*",
}

// writeSweepCharts renders the sweep charts of curves into dir/charts,
// named name-<chart>.svg, and writes their Markdown links and captions to
// b.
func writeSweepCharts(b *strings.Builder, dir, name, title string, curves []report.Curve) error {
	charts, err := report.SweepCharts(title, curves)
	if err != nil {
		return err
	}
	if len(charts) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(dir, "charts"), 0o755); err != nil {
		return err
	}
	fmt.Fprintf(b, "\n## Charts\n\n")
	for _, c := range charts {
		rel := "charts/" + fileSafe(name) + "-" + c.Name + ".svg"
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), c.SVG, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(b, "![%s](%s)\n\n%s\n\n", c.Name, rel, sweepCaptions[c.Name])
	}
	return nil
}
