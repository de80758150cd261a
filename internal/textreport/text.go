package textreport

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/texttable"
)

// Summary writes a run's summary for the terminal: its view
// (NewRunView) as Run renders it.
func Summary(w io.Writer, d *result.Doc) error {
	v, err := report.NewRunView(d)
	if err != nil {
		return err
	}
	return Run(w, v)
}

// Run renders the run for a terminal from its view: a partial run says
// so first; then each section's brief (what ran, each operation type's
// throughput and errors, latency and service-time percentiles, the
// schedule kept and the load generator's own cost), the notices (a
// client-bound or imprecise client, a server-bound run), the
// thresholds' verdicts, and last the headline's verdict lines: where the
// p99 tail fell, then what limited the run. A missing figure is "—".
func Run(w io.Writer, v *report.RunView) error {
	ew := &errWriter{w: w}
	gap := false // a blank line is due before the next paragraph
	para := func() {
		if gap {
			ew.line("")
		}
		gap = true
	}
	for _, n := range v.Notices {
		if n.Kind == report.NoticePartial {
			para()
			ew.line("PARTIAL RUN: %s", texttable.TextCells.Text(n.Text))
		}
	}
	lines := false // the last brief was lines only: the next lines join it
	for _, s := range v.Sections {
		if len(s.Brief) == 0 {
			continue
		}
		onlyLines := !slices.ContainsFunc(s.Brief, func(b report.Block) bool { return b.Table != nil || b.Items != nil })
		if !onlyLines || !lines {
			para()
		}
		lines = onlyLines
		for _, b := range s.Brief {
			if b.Table != nil && ew.err == nil {
				ew.err = TextTable(b.Table).WriteText(ew.w, !b.Bare)
				continue
			}
			textBlock(ew, b)
		}
	}
	for _, n := range v.Notices {
		if n.Kind != report.NoticePartial {
			para()
			ew.line("%s: %s", strings.ToUpper(string(n.Kind)), strings.TrimSuffix(n.Text, "."))
		}
	}
	if h := v.Headline; len(h.Thresholds) > 0 {
		para()
		ew.table(verdictTable(h.Thresholds), true)
	}
	if h := v.Headline; h.Tail != "" || h.Limit != "" {
		para()
		for _, l := range []string{h.Tail, h.Limit} { // the verdict, "limited by", ends the summary
			if l != "" {
				ew.line("%s", l)
			}
		}
	}
	return ew.err
}

// errWriter writes lines and tables until the first error, which it keeps.
type errWriter struct {
	w   io.Writer
	err error
}

// line writes one formatted line.
func (e *errWriter) line(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format+"\n", args...)
	}
}

// table writes t as aligned text, with or without its header row.
func (e *errWriter) table(t *table, header bool) {
	if e.err == nil {
		e.err = t.WriteText(e.w, header)
	}
}

// table is the shared text and Markdown table writer.
type table = texttable.Table
