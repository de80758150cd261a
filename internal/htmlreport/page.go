package htmlreport

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"path"
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

// page is one report: its Markdown text, the files it links (SVG charts,
// inlined into the page), the interactive charts that stand in for some
// linked images, and sections of charts added after them.
type page struct {
	title    string
	markdown []byte
	files    map[string][]byte  // linked path → bytes
	replace  map[string][]Chart // linked path → the charts drawn instead
	// lead are sections of charts placed right after the report's answer:
	// before its first level-two heading.
	lead  []section
	extra []section
}

// section is a heading, a paragraph and charts, placed after the last
// chart the Markdown links (or at the end).
type section struct {
	heading, intro string
	charts         []Chart
}

// write renders the page as one HTML document with everything it needs
// inline.
func (p *page) write(w io.Writer) error {
	charts := []Chart{} // "[]", never null, for the script
	r := &nodeRenderer{page: p, add: func(cs []Chart) []int {
		var ids []int
		for _, c := range cs {
			ids = append(ids, len(charts))
			charts = append(charts, clean(c))
		}
		return ids
	}}
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(r, 100))),
	)
	doc := md.Parser().Parse(text.NewReader(p.markdown))
	p.transform(doc)
	var body bytes.Buffer
	if err := md.Renderer().Render(&body, p.markdown, doc); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return shell(w, p.title, nil, body.Bytes(), charts)
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

// transform replaces each paragraph that is one linked image with the
// charts that stand in for it, points links to Markdown reports at their
// HTML twins, and places the extra sections after the last chart.
func (p *page) transform(doc ast.Node) {
	var last ast.Node
	var blocks []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			n.Destination = htmlTwin(n.Destination)
		case *ast.Paragraph:
			if img := onlyImage(n); img != nil {
				blocks = append(blocks, n)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, para := range blocks {
		img := onlyImage(para)
		cs, ok := p.replace[string(img.Destination)]
		if !ok {
			last = para
			continue // rendered as an inlined image
		}
		node := &chartsNode{charts: cs}
		para.Parent().ReplaceChild(para.Parent(), para, node)
		last = node
	}
	// The extra sections close the section of the last chart: before
	// the next heading.
	for last != nil && last.NextSibling() != nil && last.NextSibling().Kind() != ast.KindHeading {
		last = last.NextSibling()
	}
	var first ast.Node
	for n := doc.FirstChild(); n != nil && first == nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && h.Level == 2 {
			first = h
		}
	}
	for i := range p.lead {
		node := &chartsNode{section: &p.lead[i], charts: p.lead[i].charts}
		if first != nil {
			doc.InsertBefore(doc, first, node)
		} else {
			doc.AppendChild(doc, node)
		}
	}
	for i := len(p.extra) - 1; i >= 0; i-- {
		node := &chartsNode{section: &p.extra[i], charts: p.extra[i].charts}
		if last != nil {
			last.Parent().InsertAfter(last.Parent(), last, node)
		} else {
			doc.AppendChild(doc, node)
		}
	}
}

// onlyImage returns the image a paragraph consists of, or nil.
func onlyImage(para ast.Node) *ast.Image {
	var img *ast.Image
	for c := para.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Image:
			if img != nil {
				return nil
			}
			img = c
		case *ast.Text:
			if c.Segment.Len() > 0 {
				return nil
			}
		default:
			return nil
		}
	}
	return img
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

var kindCharts = ast.NewNodeKind("MongobenchCharts")

// chartsNode is a block of interactive charts, with an optional heading.
type chartsNode struct {
	ast.BaseBlock
	section *section
	charts  []Chart
}

func (n *chartsNode) Kind() ast.NodeKind { return kindCharts }

func (n *chartsNode) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// nodeRenderer draws chart blocks and inlines linked images.
type nodeRenderer struct {
	page *page
	add  func([]Chart) []int // registers charts, returns their ids
}

func (r *nodeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindCharts, r.renderCharts)
	reg.Register(ast.KindImage, r.renderImage)
}

func (r *nodeRenderer) renderCharts(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	cn := n.(*chartsNode)
	if s := cn.section; s != nil && s.heading != "" {
		fmt.Fprintf(w, "<h2>%s</h2>\n", html.EscapeString(s.heading))
		if s.intro != "" {
			fmt.Fprintf(w, "<p>%s</p>\n", html.EscapeString(s.intro))
		}
	}
	for i, id := range r.add(cn.charts) {
		fmt.Fprintf(w, "<figure class=\"mb-figure\"><div class=\"mb-chart\" data-chart=\"%d\"></div>", id)
		if c := cn.charts[i].Caption; c != "" {
			fmt.Fprintf(w, "<figcaption>%s</figcaption>", html.EscapeString(c))
		}
		fmt.Fprint(w, "</figure>\n")
	}
	return ast.WalkSkipChildren, nil
}

// renderImage inlines a linked SVG as a data URL, so the page needs no
// file beside it; an image the report did not hand over is its alt text.
func (r *nodeRenderer) renderImage(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	img := n.(*ast.Image)
	alt := altText(img, src)
	data, ok := r.page.files[string(img.Destination)]
	if !ok {
		fmt.Fprintf(w, "<em>%s</em>", html.EscapeString(alt))
		return ast.WalkSkipChildren, nil
	}
	mime := "image/svg+xml"
	if ext := path.Ext(string(img.Destination)); ext == ".png" {
		mime = "image/png"
	}
	fmt.Fprintf(w, "<img class=\"mb-img\" alt=\"%s\" src=\"data:%s;base64,%s\">", html.EscapeString(alt), mime, base64.StdEncoding.EncodeToString(data))
	return ast.WalkSkipChildren, nil
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
