package report

import (
	"strings"

	"github.com/mongobench/mongobench/internal/result"
)

// StudyView is one study's report (a sweep, a comparison, an SLA study, a
// calibration, a capacity plan) as every medium shows it, the answer
// first: what was asked, the verdict and its charts, then the details
// and the runs. studyview builds it once from what a study found or from
// the stored runs and their verdicts; the terminal and the Markdown
// report (textreport), the HTML page (htmlreport.Study) and the results
// browser render it.
type StudyView struct {
	Title string
	// Name is the report's file name without ".md"; its charts are
	// written as charts/<Name>-<chart>.svg.
	Name string
	// Intro says what was asked: the criteria, the label, the stage.
	Intro []Block
	// VerdictTitle heads the verdict when set ("Recommendation").
	VerdictTitle string
	// Verdict is the answer: its lines and the tables that carry it.
	Verdict []Block
	// Charts are the verdict's charts, in the order shown.
	Charts   []StudyChart
	Sections []Section
	// Runs link the study's runs: their reports (a relative .md file
	// name, shown by a page as its .html twin) or their pages.
	Runs []Link
}

// Link is one link of a view: its text, where it points, and a note.
type Link struct{ Text, Href, Note string }

// StudyChart is one chart of a study: its data, drawn interactively by a
// page (Plot, or Dists for latency by percentile), and the same data drawn
// as SVG for the Markdown report when the chart has a drawing (a chart
// whose data only a page can draw, such as a percentile plot read from
// stored histograms, is left out of the Markdown report).
type StudyChart struct {
	Name    string // what it draws, e.g. "sweep-throughput": its file's suffix and alt text
	Caption string // what to read from it
	Plot    *Plot
	Dists   *DistPlot
	// Time is a chart over time (a window of FTDC samples), drawn as a
	// run's charts are, by a page only.
	Time *TimeChart
	draw func() ([]byte, error)
}

// SVG draws the chart as SVG; nil when only a page draws it.
func (c StudyChart) SVG() ([]byte, error) {
	if c.draw == nil {
		return nil, nil
	}
	return c.draw()
}

// WithSVG is c drawn as SVG by draw for the Markdown report.
func (c StudyChart) WithSVG(draw func() ([]byte, error)) StudyChart {
	c.draw = draw
	return c
}

// Plot is a chart of lines over a numeric x axis (a target rate, a
// thread count); a nil value is a gap.
type Plot struct {
	Title, XLabel, YLabel string
	Unit                  string // of the y values, shown beside them
	YLog                  bool
	X                     []float64
	Lines                 []Line
	// Shade marks spans of X, each [from, to] (a change point's suspect
	// range), drawn behind the lines by a page.
	Shade [][2]float64
}

// DistPlot is latency by percentile, a line per stored distribution.
type DistPlot struct {
	Title string
	Lines []DistLine
}

// DistLine is one distribution of a DistPlot.
type DistLine struct {
	Label string
	Dist  result.Dist
	Color int // the line's place in the palette
	Dash  bool
}

// ChartPath is the path, relative to the report, of one of its charts'
// SVG file.
func (v *StudyView) ChartPath(c StudyChart) string {
	return "charts/" + SafeName(v.Name) + "-" + SafeName(c.Name) + ".svg"
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
