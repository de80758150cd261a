package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/texttable"
)

// Markdown renders the run as a Markdown report with its charts, the
// answer first: notices, the headline, the charts, then the details. The
// charts map holds each SVG under the slash-separated path the report
// links it by, chartDir/<run id>-<chart>.svg; the caller writes them
// next to the report. Missing values are empty cells.
func (v *RunView) Markdown(chartDir string) (md []byte, charts map[string][]byte, err error) {
	rendered, err := v.svgCharts()
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
func mdHeadline(ew *errWriter, h Headline) {
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
func verdictTable(vs []Verdict) *table {
	t := newTable("verdict", "threshold", "measured")
	for _, v := range vs {
		t.Add(VerdictWord(v.Pass), v.Expression, v.Measured)
	}
	return t
}

// VerdictWord is how a verdict reads: PASS or FAIL.
func VerdictWord(pass bool) string {
	if pass {
		return "PASS"
	}
	return "FAIL"
}

// mdBlock writes one block of a section.
func mdBlock(ew *errWriter, b Block) {
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

// settingText prints a configuration value: numbers as short as they
// go, documents and lists as JSON.
func settingText(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	case map[string]any, []any:
		if b, err := json.Marshal(x); err == nil {
			return string(b)
		}
	}
	return fmt.Sprint(v)
}

// scheduleTable states how well an open-loop schedule was kept.
func scheduleTable(s result.Schedule) *table {
	t := newTable(">intended", ">late", ">dropped", ">send lag p50 ms", ">send lag p99 ms", ">receive lag p50 ms", ">receive lag p99 ms", ">max lag ms", ">late threshold ms", ">drop bound ms")
	var p50, p99, r50, r99 *float64
	if s.SendLag != nil {
		p50, p99 = s.SendLag.P50, s.SendLag.P99
	}
	if s.ReceiveLag != nil {
		r50, r99 = s.ReceiveLag.P50, s.ReceiveLag.P99
	}
	t.Add(count(s.Intended), count(s.Late), count(s.Dropped), mdCells.Num(p50), mdCells.Num(p99), mdCells.Num(r50), mdCells.Num(r99),
		sig3(s.MaxLag), sig3(s.LateThreshold), dropBoundText(s))
	return t
}

// dropBoundText is the drop bound in milliseconds, or "never" for a
// schedule without one (a replay sends every operation, however late).
func dropBoundText(s result.Schedule) string {
	if s.DropBound <= 0 {
		return "never"
	}
	return sig3(s.DropBound)
}

// clientTable states the load generator's own cost.
func clientTable(c result.Client) *table {
	t := newTable(">CPU per op µs", ">client CPU %", ">cores", ">CPU seconds", "client-bound")
	bound := "no"
	if c.ClientBound {
		bound = "yes"
	}
	cores := ""
	if c.Cores > 0 {
		cores = count(int64(c.Cores))
	}
	t.Add(mdCells.Num(c.CPUPerOp), sig3(c.CPUPercent), cores, sig3(c.CPUSeconds), bound)
	return t
}

// md writes t as a Markdown table.
func (e *errWriter) md(t *table) {
	if e.err == nil {
		e.err = t.WriteMarkdown(e.w)
	}
}

// canaryTable is the client host's noise canary, a row per figure with
// its reading before and after the run; nil when neither was taken.
func canaryTable(n *result.Noise) *table {
	if n.Before == nil && n.After == nil {
		return nil
	}
	t := newTable("figure", ">before", ">after", "unit")
	read := func(c *result.Canary, f result.CanaryFigure) *float64 {
		if c == nil {
			return nil
		}
		return f.Value(*c)
	}
	for _, f := range result.CanaryFigures {
		t.Add(f.Name, mdCells.Num(read(n.Before, f)), mdCells.Num(read(n.After, f)), f.Unit)
	}
	return t
}

// validityTable is each validity rule's judgement: its outcome, the
// figure it read, its bounds and its evidence.
func validityTable(v *result.Validity) *table {
	t := newTable("rule", "outcome", ">value", ">suspect at", ">invalid at", "unit", "evidence")
	for _, r := range v.Rules {
		t.Add(r.Rule, r.Outcome, mdCells.Num(r.Value), mdCells.Num(r.Suspect), mdCells.Num(r.Invalid), r.Unit, r.Evidence)
	}
	return t
}
