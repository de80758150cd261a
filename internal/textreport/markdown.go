package textreport

import (
	"bytes"
	"path"
	"strings"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/texttable"
)

// RunMarkdown renders the run as a Markdown report with its charts, the
// answer first: notices, the headline, the charts, then the details. The
// charts map holds each SVG under the slash-separated path the report
// links it by, chartDir/<run id>-<chart>.svg; the caller writes them
// next to the report. Missing values are empty cells.
func RunMarkdown(v *report.RunView, chartDir string) (md []byte, charts map[string][]byte, err error) {
	rendered, err := v.SVGCharts()
	if err != nil {
		return nil, nil, err
	}
	charts = map[string][]byte{}
	var buf bytes.Buffer
	ew := &errWriter{w: &buf}
	ew.line("# %s", texttable.Escape(v.Title()))
	for _, n := range v.Notices {
		ew.line("\n> **%s:** %s", n.Kind, texttable.Escape(n.Text))
	}
	mdHeadline(ew, v.Headline)
	if len(rendered) > 0 {
		ew.line("\n## Charts")
	}
	for _, c := range rendered {
		file := path.Join(chartDir, fileSafe(v.RunID)+"-"+c.Name+".svg")
		charts[file] = c.SVG
		ew.line("\n![%s](%s)", c.Name, file)
		if caption := chartCaptions[c.Name]; caption != "" {
			ew.line("\n*%s*", caption)
		}
	}
	for _, s := range v.Sections {
		ew.line("\n## %s", s.Title)
		for _, b := range s.Blocks {
			ew.line("")
			mdBlock(ew, b)
		}
	}
	return buf.Bytes(), charts, ew.err
}

// chartCaptions says under a chart what to look for in it.
var chartCaptions = map[string]string{
	"telemetry": "p99 latency (solid) and service time (dashed) per second (top, log scale) over the server and host telemetry on the same time axis; " +
		"CPU is a percent of all cores; shaded bands are intervals with a WiredTiger checkpoint running. " +
		"Look for p99 tails that line up with a checkpoint, a build-up of dirty cache, or a rise in iowait or disk writes.",
}

// mdHeadline writes the answer: the figures, each operation's p50, p99
// and errors, where the p99 tail fell and what limited the run, the
// thresholds' verdicts.
func mdHeadline(ew *errWriter, h report.Headline) {
	ew.line("\n## Result\n")
	for _, f := range h.Figures {
		text := f.Value
		if f.Detail != "" {
			text += " (" + f.Detail + ")"
		}
		ew.line("- **%s:** %s", f.Label, texttable.Escape(text))
	}
	ew.line("")
	ew.md(h.Ops)
	for _, l := range []string{h.Tail, h.Limit} {
		if l != "" {
			ew.line("\n**%s**", texttable.Escape(l))
		}
	}
	if len(h.Thresholds) > 0 {
		ew.line("\n## Thresholds\n")
		ew.md(verdictTable(h.Thresholds))
	}
}

// verdictTable has a row per threshold: its verdict, the expression, and
// what was measured (or why the figure is missing).
func verdictTable(vs []report.Verdict) *table {
	t := texttable.New("verdict", "threshold", "measured")
	for _, v := range vs {
		t.Add(report.VerdictWord(v.Pass), v.Expression, v.Measured)
	}
	return t
}

// mdBlock writes one block of a section.
func mdBlock(ew *errWriter, b report.Block) {
	switch {
	case b.Table != nil:
		ew.md(b.Table)
	case b.Items != nil:
		for _, it := range b.Items {
			rest := strings.TrimLeft(it, " ")
			ew.line("%s- %s", it[:len(it)-len(rest)], texttable.Escape(rest)) // an item indented is nested under the one before
		}
	case b.Strong:
		ew.line("**%s**", texttable.Escape(b.Text))
	default:
		ew.line("%s", texttable.Escape(b.Text))
	}
}

// md writes t as a Markdown table.
func (e *errWriter) md(t *table) {
	if e.err == nil {
		e.err = t.WriteMarkdown(e.w)
	}
}

// fileSafe replaces the characters of s that are unsafe in a file name.
func fileSafe(s string) string {
	if s == "" {
		return "run"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9',
			r == '-', r == '_', r == '.':
			return r
		}
		return '-'
	}, s)
}
