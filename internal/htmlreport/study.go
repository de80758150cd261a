package htmlreport

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"

	"github.com/mongobench/mongobench/internal/report"
)

var studyTemplate = template.Must(template.New("study.html").ParseFS(templates, "templates/study.html", "templates/blocks.html"))

// Study writes a study's page from its view, the answer first: what was
// asked, the verdict (the page's headline), its charts (drawn
// interactively from their data; a chart only drawn as SVG is inlined),
// then the details and the links to the runs (a run's Markdown report as
// its HTML twin). nav, when set, is the results browser's bar of links
// above it: the browser serves the same page as the report file.
func Study(w io.Writer, v *report.StudyView, nav *Nav) error {
	data := studyData{View: v, Verdict: blocksOf(v.Verdict)}
	var charts []Chart
	for _, sc := range v.Charts {
		switch {
		case sc.Plot != nil:
			c := plotChart(*sc.Plot)
			c.Caption = sc.Caption
			data.Charts = append(data.Charts, studyFigure{figure: figure{ID: len(charts), Caption: sc.Caption}})
			charts = append(charts, clean(c))
		case sc.Time != nil:
			c := timeChart(*sc.Time)
			c.Height = telemetryHeight
			data.Charts = append(data.Charts, studyFigure{figure: figure{ID: len(charts), Caption: sc.Caption}})
			charts = append(charts, c)
		case sc.Dists != nil:
			lines := make([]distLine, len(sc.Dists.Lines))
			for i, l := range sc.Dists.Lines {
				lines[i] = distLine{label: l.Label, dist: l.Dist, dash: l.Dash, color: color(l.Color)}
			}
			c, err := percentileChart(sc.Dists.Title, lines)
			if err != nil {
				return fmt.Errorf("%s, %s: %w", v.Title, sc.Name, err)
			}
			if c != nil {
				data.Charts = append(data.Charts, studyFigure{figure: figure{ID: len(charts), Caption: c.Caption}})
				charts = append(charts, clean(*c))
			}
		default:
			svg, err := sc.SVG()
			if err != nil {
				return err
			}
			if svg != nil {
				data.Charts = append(data.Charts, studyFigure{figure: figure{Caption: sc.Caption}, Alt: sc.Name,
					Image: template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(svg))}) //nolint:gosec // our own SVG, base64-encoded
			}
		}
	}
	data.Sections = sectionsOf(v.Sections)
	for _, r := range v.Runs {
		data.Runs = append(data.Runs, report.Link{Text: r.Text, Href: string(htmlTwin([]byte(r.Href))), Note: r.Note})
	}
	var body bytes.Buffer
	if err := studyTemplate.Execute(&body, data); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	if charts == nil {
		charts = []Chart{}
	}
	return shell(w, v.Title, nav, body.Bytes(), charts)
}

// studyData is what the study page's template reads.
type studyData struct {
	View     *report.StudyView
	Verdict  []htmlBlock
	Charts   []studyFigure
	Sections []htmlSection
	Runs     []report.Link
}

// studyFigure is a chart drawn on the page (figure), or an SVG inlined
// as an image.
type studyFigure struct {
	figure
	Image template.URL
	Alt   string
}

// blocksOf converts blocks to their page form.
func blocksOf(bs []report.Block) []htmlBlock {
	out := make([]htmlBlock, len(bs))
	for i, b := range bs {
		out[i] = htmlBlock{Block: b, Table: tableOf(b.Table)}
	}
	return out
}

// sectionsOf converts sections to their page form.
func sectionsOf(ss []report.Section) []htmlSection {
	out := make([]htmlSection, len(ss))
	for i, s := range ss {
		out[i] = htmlSection{Title: s.Title, Blocks: blocksOf(s.Blocks)}
	}
	return out
}

// plotChart draws a plot over a numeric axis: measured lines in the
// palette with a dot on each value when asked, reference lines grey.
func plotChart(p report.Plot) Chart {
	c := Chart{Title: p.Title, XLabel: p.XLabel, YLabel: p.YLabel, XAxis: "linear", YLog: p.YLog, X: p.X, Shade: p.Shade}
	for _, l := range p.Lines {
		c.Series = append(c.Series, seriesOf(l, p.Unit))
	}
	return c
}

// seriesOf draws a line of a chart: measured lines in the palette, with a
// dot on each value when asked, the total black, reference lines grey.
func seriesOf(l report.Line, unit string) Series {
	s := Series{Label: l.Label, Y: l.Y, Color: color(l.Color), Dash: l.Dash, Points: l.Points, Unit: unit}
	switch l.Kind {
	case report.LineTotal:
		s.Color = "#000000"
	case report.LineReference:
		s.Color = refGrey
	}
	return s
}
