package browse

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
)

//go:embed templates/*.html
var files embed.FS

var funcs = template.FuncMap{
	"join":   strings.Join,
	"num":    num,
	"optnum": func(v *float64) string { return opt(v, num) },
	"optms":  func(v *float64) string { return opt(v, ms) },
	"has":    func(list []string, s string) bool { return slices.Contains(list, s) },
}

// pages are the templates, each with the layout.
var pages = map[string]*template.Template{}

func init() {
	for _, name := range []string{"list", "live", "compare", "links", "labels"} {
		names := []string{"templates/layout.html", "templates/" + name + ".html"}
		if name == "live" {
			names = append(names, "templates/livebody.html")
		}
		pages[name] = template.Must(template.New(name).Funcs(funcs).ParseFS(files, names...))
	}
	pages["livebody"] = template.Must(template.New("livebody").Funcs(funcs).ParseFS(files, "templates/livebody.html"))
}

// missing is how a value that was not measured shows.
const missing = "—"

func opt(v *float64, f func(float64) string) string {
	if v == nil || math.IsNaN(*v) {
		return missing
	}
	return f(*v)
}

// num writes a rate or count with one decimal under 100, none above.
func num(v float64) string {
	if math.Abs(v) < 100 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// ms writes milliseconds with three significant digits.
func ms(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// Page is a page with the layout's title and the results store's name.
type Page struct {
	Title, Where string
	Data         any
}

// Render writes the page named name ("list", "live", "compare", "links",
// "labels")
// with its data.
func Render(w io.Writer, name string, p Page) error {
	t, ok := pages[name]
	if !ok {
		return fmt.Errorf("no page %q", name)
	}
	return t.ExecuteTemplate(w, "layout", p)
}

// RenderLive writes the live part of a running run's page, which the
// page fetches again every second.
func RenderLive(w io.Writer, v LiveView) error {
	return pages["livebody"].ExecuteTemplate(w, "livebody", v)
}

// ListPage is the runs list.
type ListPage struct {
	Filter     Filter
	From, To   string // the date fields as given
	Choices    Choices
	Runs       []Row
	Total      int
	Truncated  bool
	Live       []LiveView
	LiveErrors []string
}

// Row is one run of the list.
type Row struct {
	Head
	P99 string
}

// List is the list page of runs: the newest the filter selects (their
// summaries, already filtered and limited by the store), of matched that
// it selects and total stored, with the filter's choices over every
// stored run.
func List(runs []result.Doc, choices Choices, matched, total int, f Filter) ListPage {
	p := ListPage{Filter: f, Choices: choices, Total: total, Truncated: matched > len(runs)}
	if !f.From.IsZero() {
		p.From = f.From.UTC().Format(dateForm)
	}
	if !f.To.IsZero() {
		p.To = f.To.UTC().AddDate(0, 0, -1).Format(dateForm)
	}
	for i := range runs {
		p.Runs = append(p.Runs, Row{Head: HeadOf(&runs[i]), P99: p99s(&runs[i])})
	}
	return p
}

func p99s(d *result.Doc) string {
	parts := make([]string, len(d.Ops))
	for i, o := range d.Ops {
		parts[i] = o.Name + " " + opt(o.Latency.P99, ms)
	}
	return strings.Join(parts, ", ")
}

// RunReport writes a stored run's page: its HTML report (htmlreport.Run,
// the same page 'mongobench report' writes), under the browser's links.
func RunReport(w io.Writer, d *result.Doc, where string) error {
	v, err := report.NewRunView(d)
	if err != nil {
		return err
	}
	nav := NavOf(d.RunID+".json", where)
	nav.Links = append(nav.Links, htmlreport.Link{Href: SeriesHref(d.RunID), Text: "series over time"})
	return htmlreport.Run(w, v, nav)
}

// NavOf is the browser's bar of links above a page of a report: the
// lists, the document it was drawn from (doc, "" for none) and where the
// results are read from.
func NavOf(doc, where string) *htmlreport.Nav {
	nav := &htmlreport.Nav{Links: []htmlreport.Link{{Href: "/", Text: "Runs"}, {Href: "/sweeps", Text: "Sweeps"},
		{Href: "/sla", Text: "SLA journeys"}, {Href: "/plans", Text: "Plans"}, {Href: CompareRunsPath, Text: "Compare labels"}}, Note: "results: " + where}
	if doc != "" {
		nav.Links = append(nav.Links, htmlreport.Link{Href: "/run/" + doc, Text: "document (JSON)"})
	}
	return nav
}

// LinkPage is a list of the stored studies (the sweeps, the plans): a
// link to each one's page, with a note.
type LinkPage struct {
	Intro string
	Links []Link
}

// Link is a link of a page, with a note.
type Link struct{ Href, Text, Note string }

// stamp writes a time as the pages do, in UTC.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }
