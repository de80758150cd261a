package htmlreport

import (
	"bytes"
	"cmp"
	"embed"
	"fmt"
	"html/template"
	"io"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/texttable"
)

//go:embed templates/*.html
var templates embed.FS

var (
	runTemplate = template.Must(template.New("run.html").Funcs(template.FuncMap{"verdict": report.VerdictWord}).
			ParseFS(templates, "templates/run.html", "templates/blocks.html"))
	navTemplate = template.Must(template.New("nav.html").ParseFS(templates, "templates/nav.html"))
)

// Nav is the bar of links above a page that the results browser serves
// (mongobench serve): the same page as the report file, with the way
// back to the browser's lists.
type Nav struct {
	Links []Link
	Note  string // at the right: where the results are read from
}

// Link is one link of a navigation bar.
type Link struct{ Href, Text string }

const percentileIntro = "The classic HDR plot: each operation type's latency (solid) and service time (dashed) at every percentile, read from the run's stored histograms."

// Run writes a run's page from its view, the answer first: the notices,
// the headline (achieved against target, each operation's p50, p99 and
// errors, the thresholds' verdicts, what limited the run), the charts
// over time with latency on top, each operation type's latency by
// percentile, then the details. nav, when set, is the results browser's
// bar of links above it.
func Run(w io.Writer, v *report.RunView, nav *Nav) error {
	var charts []Chart
	add := func(c Chart) int {
		charts = append(charts, clean(c))
		return len(charts) - 1
	}
	data := runData{View: v, Headline: v.Headline, OpsTable: tableOf(v.Headline.Ops)}
	for i, tc := range v.Charts {
		c := timeChart(tc)
		if i > 0 && tc.Name == "telemetry" {
			c.Height = telemetryHeight
		}
		data.Charts = append(data.Charts, figure{ID: add(c), Caption: c.Caption})
	}
	pcs, err := percentileCharts(v)
	if err != nil {
		return err
	}
	for _, c := range pcs {
		data.Percentiles = append(data.Percentiles, figure{ID: add(c), Caption: c.Caption})
	}
	data.PercentileIntro = percentileIntro
	for _, s := range v.Sections {
		hs := htmlSection{Title: s.Title}
		for _, b := range s.Blocks {
			hs.Blocks = append(hs.Blocks, htmlBlock{Block: b, Table: tableOf(b.Table)})
		}
		data.Sections = append(data.Sections, hs)
	}
	var body bytes.Buffer
	if err := runTemplate.Execute(&body, data); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	if charts == nil {
		charts = []Chart{} // "[]", never null, for the script
	}
	return shell(w, v.Title(), nav, body.Bytes(), charts)
}

// telemetryHeight is the height of a telemetry chart under the latency
// chart, in pixels.
const telemetryHeight = 200

// runData is what the run page's template reads.
type runData struct {
	View            *report.RunView
	Headline        report.Headline
	OpsTable        *htmlTable
	Charts          []figure
	PercentileIntro string
	Percentiles     []figure
	Sections        []htmlSection
}

// figure is a drawn chart's place on a page.
type figure struct {
	ID      int
	Caption string
}

type htmlSection struct {
	Title  string
	Blocks []htmlBlock
}

type htmlBlock struct {
	report.Block
	Table *htmlTable
}

// htmlTable is a table's cells as a page shows them: a number column
// right-aligned, a figure that is missing as "—".
type htmlTable struct {
	Head []htmlCell
	Rows [][]htmlCell
}

type htmlCell struct {
	Text           string
	Right, Missing bool
}

// missing is how a page shows a figure that was not measured.
const missing = "—"

// tableOf converts a report table to its page form; nil for nil.
func tableOf(t *texttable.Table) *htmlTable {
	if t == nil {
		return nil
	}
	cols := t.Columns()
	out := &htmlTable{}
	for _, c := range cols {
		out.Head = append(out.Head, htmlCell{Text: c.Name, Right: c.Right})
	}
	for _, row := range t.Rows() {
		cells := make([]htmlCell, len(row))
		for i, text := range row {
			right := i < len(cols) && cols[i].Right
			cells[i] = htmlCell{Text: text, Right: right}
			if right && text == "" {
				cells[i] = htmlCell{Text: missing, Right: true, Missing: true}
			}
		}
		out.Rows = append(out.Rows, cells)
	}
	return out
}

// timeChart draws a chart over time: measured lines in the palette, the
// total black, a reference grey and dashed; every chart over time moves
// its cursor with the others.
func timeChart(tc report.TimeChart) Chart {
	c := Chart{Title: tc.Title, XLabel: cmp.Or(tc.XLabel, report.XLabel), YLabel: tc.YLabel, XAxis: "linear", YLog: tc.Log, Sync: timeSync, X: tc.X, Shade: tc.Shade}
	for _, l := range tc.Lines {
		c.Series = append(c.Series, seriesOf(l, tc.Unit))
	}
	return c
}

// percentileCharts: one percentile chart per operation type, its
// latency and service time.
func percentileCharts(v *report.RunView) ([]Chart, error) {
	var out []Chart
	for i, o := range v.Dists {
		c, err := percentileChart(fmt.Sprintf("%s: latency by percentile", o.Name), []distLine{
			{label: o.Name + " latency", dist: o.Latency, color: color(i)},
			{label: o.Name + " service", dist: o.Service, color: color(i), dash: true},
		})
		if err != nil {
			return nil, fmt.Errorf("run %s, %s: %w", v.RunID, o.Name, err)
		}
		if c != nil {
			out = append(out, *c)
		}
	}
	return out, nil
}
