package htmlreport

import (
	"bytes"
	"fmt"
	"html"
	"io"

	"github.com/mongobench/mongobench/internal/changes"
	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/texttable"
)

// SeriesChart is one metric of a series over its runs, with the change
// points found in it.
type SeriesChart struct {
	Metric, Unit string
	Runs         []string  // run ids, oldest first
	Values       []float64 // one per run
	Changes      []changes.Change
}

// SeriesCharts are the charts of a series' metrics (all of them when
// metrics is empty), each with the changes of that series and metric.
func SeriesCharts(s changes.Series, cs []changes.Change, metrics []string) []SeriesChart {
	if len(metrics) == 0 {
		metrics = s.Metrics()
	}
	var out []SeriesChart
	for _, m := range metrics {
		runs, vals := s.Values(m)
		if len(runs) == 0 {
			continue
		}
		sc := SeriesChart{Metric: m, Values: vals}
		for _, r := range runs {
			sc.Runs = append(sc.Runs, r.ID)
		}
		for _, c := range cs {
			if c.Metric == m && c.Series.String() == s.Key.String() {
				sc.Changes = append(sc.Changes, c)
				sc.Unit = c.Unit
			}
		}
		if sc.Unit == "" {
			if mm, err := significance.ParseMetric(m); err == nil {
				sc.Unit = mm.Unit
			}
		}
		out = append(out, sc)
	}
	return out
}

// SeriesPage writes a page of series charts: each metric's value per run
// (oldest left), its change points marked by the shaded suspect range
// (last stable run to first changed run) and a dot on the first changed
// run, then the table of changes. nav, when set, is the results
// browser's bar of links.
func SeriesPage(w io.Writer, title, intro string, charts []SeriesChart, table *texttable.Table, nav *Nav) error {
	var body bytes.Buffer
	fmt.Fprintf(&body, "<h1 id=\"headline\">%s</h1>\n", html.EscapeString(title))
	if intro != "" {
		fmt.Fprintf(&body, "<p>%s</p>\n", html.EscapeString(intro))
	}
	var drawn []Chart
	for i, sc := range charts {
		drawn = append(drawn, seriesChart(sc))
		caption := fmt.Sprintf("%d runs, oldest left; %d change point(s).", len(sc.Runs), len(sc.Changes))
		for _, c := range sc.Changes {
			caption += fmt.Sprintf(" %s %s %s: %s → %s (p %.2g, %s).", c.ID, c.Direction, changes.Percent(c.Change),
				c.LastStable.ID, c.FirstChanged.ID, c.P, c.Status)
		}
		fmt.Fprintf(&body, "<figure class=\"mb-figure\"><div class=\"mb-chart\" data-chart=\"%d\"></div><figcaption>%s</figcaption></figure>\n",
			i, html.EscapeString(caption))
	}
	if table != nil && len(table.Rows()) > 0 {
		body.WriteString("<h2>Changes</h2>\n")
		writeTable(&body, table)
	}
	return shell(w, title, nav, body.Bytes(), drawn)
}

func seriesChart(sc SeriesChart) Chart {
	x := make([]float64, len(sc.Values))
	ys := make([]*float64, len(sc.Values))
	marks := make([]*float64, len(sc.Values))
	at := map[string]int{}
	for i, v := range sc.Values {
		x[i] = float64(i + 1)
		ys[i] = ptr(v)
		at[sc.Runs[i]] = i
	}
	var shade [][2]float64
	for _, c := range sc.Changes {
		if i, ok := at[c.FirstChanged.ID]; ok {
			marks[i] = ptr(sc.Values[i])
			shade = append(shade, [2]float64{float64(i), float64(i + 1)})
		}
	}
	return Chart{
		Title: sc.Metric, XLabel: "run (oldest first)", YLabel: sc.Unit, XAxis: "linear",
		X: x, Shade: shade,
		Series: []Series{
			{Label: sc.Metric, Y: ys, Color: color(0), Points: true, Unit: sc.Unit},
			{Label: "first changed run", Y: marks, Color: color(1), Points: true, Unit: sc.Unit},
		},
	}
}

func ptr(v float64) *float64 { return &v }

// writeTable writes a texttable as an HTML table, numbers right-aligned.
func writeTable(b *bytes.Buffer, t *texttable.Table) {
	cols := t.Columns()
	b.WriteString("<table>\n<thead><tr>")
	for _, c := range cols {
		align := ""
		if c.Right {
			align = " style=\"text-align:right\""
		}
		fmt.Fprintf(b, "<th%s>%s</th>", align, html.EscapeString(c.Name))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, row := range t.Rows() {
		b.WriteString("<tr>")
		for i, cell := range row {
			align := ""
			if i < len(cols) && cols[i].Right {
				align = " style=\"text-align:right\""
			}
			fmt.Fprintf(b, "<td%s>%s</td>", align, html.EscapeString(cell))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
}
