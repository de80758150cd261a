package report

import (
	"bytes"
	"io"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/texttable"
)

// StudyView is one study's report (a sweep, a comparison, an SLA study, a
// calibration, a capacity plan) as every medium shows it, the answer
// first: what was asked, the verdict and its charts, then the details
// and the runs. Each study builds it once from what it measured or from
// the stored runs and their verdicts; the terminal (Text), the Markdown
// report (Markdown), the HTML page (htmlreport.Study) and the results
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

// Markdown renders the view as a Markdown report. The charts map holds
// each chart's SVG under the path the report links it by (ChartPath);
// the caller writes them beside the report.
func (v *StudyView) Markdown() (md []byte, charts map[string][]byte, err error) {
	var buf bytes.Buffer
	ew := &errWriter{w: &buf}
	charts = map[string][]byte{}
	ew.line("# %s", texttable.Escape(v.Title))
	mdBlocks(ew, v.Intro)
	if v.VerdictTitle != "" {
		ew.line("\n## %s", texttable.Escape(v.VerdictTitle))
	}
	mdBlocks(ew, v.Verdict)
	heading := false
	for _, c := range v.Charts {
		svg, err := c.SVG()
		if err != nil {
			return nil, nil, err
		}
		if svg == nil {
			continue
		}
		if !heading {
			ew.line("\n## Charts")
			heading = true
		}
		file := v.ChartPath(c)
		charts[file] = svg
		ew.line("\n![%s](%s)", texttable.Escape(c.Name), file)
		if c.Caption != "" {
			ew.line("\n*%s*", texttable.Escape(c.Caption))
		}
	}
	for _, s := range v.Sections {
		ew.line("\n## %s", texttable.Escape(s.Title))
		mdBlocks(ew, s.Blocks)
	}
	if len(v.Runs) > 0 {
		ew.line("\n## Runs\n")
		for _, r := range v.Runs {
			line := "- [" + texttable.Escape(r.Text) + "](" + r.Href + ")"
			if r.Note != "" {
				line += ": " + texttable.Escape(r.Note)
			}
			ew.line("%s", line)
		}
	}
	return buf.Bytes(), charts, ew.err
}

// mdBlocks writes blocks, a blank line before each.
func mdBlocks(ew *errWriter, bs []Block) {
	for _, b := range bs {
		ew.line("")
		mdBlock(ew, b)
	}
}

// Text renders the view for a terminal: the verdict, then the details,
// each section under its title; a missing figure is "—". What was asked,
// the charts and the links to the runs are the reports'.
func (v *StudyView) Text(w io.Writer) error {
	ew := &errWriter{w: w}
	for i, b := range v.Verdict {
		if i > 0 {
			ew.line("")
		}
		textBlock(ew, b)
	}
	for i, s := range v.Sections {
		if i > 0 || len(v.Verdict) > 0 {
			ew.line("")
		}
		ew.line("%s\n", s.Title)
		for j, b := range s.Blocks {
			if j > 0 {
				ew.line("")
			}
			textBlock(ew, b)
		}
	}
	return ew.err
}

// textBlock writes one block for a terminal.
func textBlock(ew *errWriter, b Block) {
	switch {
	case b.Table != nil:
		if ew.err == nil {
			ew.err = TextTable(b.Table).WriteText(ew.w, true)
		}
	case b.Items != nil:
		for _, it := range b.Items {
			ew.line("- %s", it)
		}
	default:
		ew.line("%s", b.Text)
	}
}

// TextTable is t as a terminal shows it: an empty cell, a figure that
// was not measured, is "—".
func TextTable(t *texttable.Table) *texttable.Table {
	var cols []string
	for _, c := range t.Columns() {
		name := c.Name
		if c.Right {
			name = ">" + name
		}
		cols = append(cols, name)
	}
	out := texttable.New(cols...)
	for _, row := range t.Rows() {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = textCells.Text(c)
		}
		out.Add(cells...)
	}
	return out
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
