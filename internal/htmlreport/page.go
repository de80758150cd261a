package htmlreport

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The vendored chart library (uPlot, vendor/uplot/VERSION) and this
// package's own script and styles, embedded in every page.
var (
	//go:embed vendor/uplot/uPlot.iife.min.js
	uplotJS string
	//go:embed vendor/uplot/uPlot.min.css
	uplotCSS string
	//go:embed assets/report.js
	reportJS string
	//go:embed assets/report.css
	reportCSS string
)

// Chart is one interactive chart: an x axis shared by its series, each a
// y value per x (nil: missing, drawn as a gap).
type Chart struct {
	Title  string `json:"title"`
	XLabel string `json:"xLabel"`
	YLabel string `json:"yLabel"`
	// XAxis is "linear" or "nines": x = 1/(1-p) on a log scale, labelled
	// as the percentile p.
	XAxis string `json:"xAxis"`
	YLog  bool   `json:"yLog,omitempty"`
	// Sync names a group of charts whose hover cursors move together
	// (charts over the same time axis).
	Sync   string       `json:"sync,omitempty"`
	X      []float64    `json:"x"`
	Series []Series     `json:"series"`
	Shade  [][2]float64 `json:"shade,omitempty"` // x ranges shaded across the plot (checkpoints)
	Height int          `json:"height,omitempty"`
	// Caption says under the chart what to read from it.
	Caption string `json:"-"`
}

// Series is one line of a chart.
type Series struct {
	Label  string     `json:"label"`
	Y      []*float64 `json:"y"`
	Color  string     `json:"color"`
	Dash   bool       `json:"dash,omitempty"`
	Points bool       `json:"points,omitempty"` // a dot on every value
	Unit   string     `json:"unit,omitempty"`   // after hover values
}

// palette colours series in order; reference lines (targets, SLAs) are
// grey.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"}

const refGrey = "#6e6e6e"

func color(i int) string { return palette[i%len(palette)] }

// page is a rendered Markdown document (the Performance Tables, a
// template's output) as one HTML page.
type page struct {
	title    string
	markdown []byte
}

// write renders the page as one HTML document with everything it needs
// inline.
func (p *page) write(w io.Writer) error {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(altRenderer{}, 100))))
	doc := md.Parser().Parse(text.NewReader(p.markdown))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if l, ok := n.(*ast.Link); ok && entering {
			l.Destination = htmlTwin(l.Destination)
		}
		return ast.WalkContinue, nil
	})
	var body bytes.Buffer
	if err := md.Renderer().Render(&body, p.markdown, doc); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return shell(w, p.title, nil, body.Bytes(), []Chart{})
}

// shell writes one HTML document with everything it needs inline: the
// styles, the navigation (nil: none), the body, the charts' data and the
// scripts that draw them.
func shell(w io.Writer, title string, nav *Nav, body []byte, charts []Chart) error {
	data, err := json.Marshal(charts) // escapes <, > and &: safe inside <script>
	if err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	b := &strings.Builder{}
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<meta name=\"generator\" content=\"mongobench\">\n")
	b.WriteString("<link rel=\"icon\" href=\"data:,\">\n") // no favicon to fetch: the page asks for nothing beyond itself
	fmt.Fprintf(b, "<title>%s</title>\n", html.EscapeString(title))
	fmt.Fprintf(b, "<style>\n%s\n%s\n</style>\n</head>\n<body>\n", uplotCSS, reportCSS)
	if nav != nil {
		if err := navTemplate.Execute(b, nav); err != nil {
			return fmt.Errorf("html report: %w", err)
		}
	}
	b.WriteString("<main>\n")
	b.Write(body)
	b.WriteString("</main>\n")
	fmt.Fprintf(b, "<script type=\"application/json\" id=\"mb-charts\">%s</script>\n", data)
	fmt.Fprintf(b, "<script>\n%s\n</script>\n<script>\n%s\n</script>\n</body>\n</html>\n", uplotJS, reportJS)
	_, err = io.WriteString(w, b.String())
	return err
}

// clean replaces values JSON cannot carry (NaN, ±Inf) by gaps, and on a
// log y axis the values it cannot place (≤ 0) too.
func clean(c Chart) Chart {
	out := c
	out.Series = make([]Series, len(c.Series))
	for i, s := range c.Series {
		s.Y = append([]*float64(nil), s.Y...)
		for j, v := range s.Y {
			if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0) || (c.YLog && *v <= 0)) {
				s.Y[j] = nil
			}
		}
		out.Series[i] = s
	}
	return out
}

// htmlTwin points a relative link to a Markdown report at the HTML
// report written beside it.
func htmlTwin(dest []byte) []byte {
	s := string(dest)
	if strings.Contains(s, ":") || !strings.HasSuffix(s, ".md") {
		return dest
	}
	return []byte(strings.TrimSuffix(s, ".md") + ".html")
}

// altRenderer shows an image a document links as its alt text: a page
// asks for nothing beyond itself.
type altRenderer struct{}

func (altRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindImage, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			fmt.Fprintf(w, "<em>%s</em>", html.EscapeString(altText(n.(*ast.Image), src)))
		}
		return ast.WalkSkipChildren, nil
	})
}

// altText is an image's alt text as written.
func altText(img *ast.Image, src []byte) string {
	var b strings.Builder
	for c := img.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(src))
		}
	}
	return b.String()
}
