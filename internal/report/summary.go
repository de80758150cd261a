package report

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
)

// Summary writes a run's summary for the terminal: its view
// (NewRunView) as RunView.Text renders it.
func Summary(w io.Writer, d *result.Doc) error {
	v, err := NewRunView(d)
	if err != nil {
		return err
	}
	return v.Text(w)
}

// Text renders the run for a terminal from its view: a partial run says
// so first; then each section's brief (what ran, each operation type's
// throughput and errors, latency and service-time percentiles, the
// schedule kept and the load generator's own cost), the notices (a
// client-bound or imprecise client, a server-bound run), the
// thresholds' verdicts, and last the headline's verdict lines: where the
// p99 tail fell, then what limited the run. A missing figure is "—".
func (v *RunView) Text(w io.Writer) error {
	ew := &errWriter{w: w}
	gap := false // a blank line is due before the next paragraph
	para := func() {
		if gap {
			ew.line("")
		}
		gap = true
	}
	for _, n := range v.Notices {
		if n.Kind == NoticePartial {
			para()
			ew.line("PARTIAL RUN: %s", textCells.Text(n.Text))
		}
	}
	lines := false // the last brief was lines only: the next lines join it
	for _, s := range v.Sections {
		if len(s.Brief) == 0 {
			continue
		}
		onlyLines := !slices.ContainsFunc(s.Brief, func(b Block) bool { return b.Table != nil || b.Items != nil })
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
		if n.Kind != NoticePartial {
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

// scheduleText summarises how well the schedule was kept, on one line.
func scheduleText(s result.Schedule) string {
	if s.Mode != "open" {
		return "closed loop: no pacing, nothing late or dropped" + receiveText(s)
	}
	text := fmt.Sprintf("intended %d, late %d, dropped %d, max lag %s ms (late > %s ms, %s)",
		s.Intended, s.Late, s.Dropped, sig3(s.MaxLag), sig3(s.LateThreshold), dropText(s))
	if s.Abandoned > 0 {
		text += fmt.Sprintf("; %d abandoned by the stop", s.Abandoned)
	}
	if s.SendLag != nil {
		text += fmt.Sprintf("; send lag p50 %s ms, p99 %s ms, p99.9 %s ms", textCells.Num(s.SendLag.P50), textCells.Num(s.SendLag.P99), textCells.Num(s.SendLag.P999))
	}
	if s.WarmupSkipped > 0 {
		text += fmt.Sprintf("; %d warm-up operations not sent", s.WarmupSkipped)
	}
	return text + receiveText(s)
}

// dropText states the drop bound: "dropped > 10000 ms", or "never
// dropped" for a schedule that sends every operation however late (a
// replay's, which has no bound).
func dropText(s result.Schedule) string {
	if s.DropBound <= 0 {
		return "never dropped"
	}
	return "dropped > " + sig3(s.DropBound) + " ms"
}

// receiveText states the receive lag, which the latencies do not carry:
// the operations timed by their reply's arrival end there.
func receiveText(s result.Schedule) string {
	r := s.ReceiveLag
	if r == nil {
		return ""
	}
	return fmt.Sprintf("; %s ops timed at their reply's arrival, receive lag p50 %s ms, p99 %s ms (not in the latencies)",
		count(r.Count), textCells.Num(r.P50), textCells.Num(r.P99))
}

// clientText states the load generator's CPU cost.
func clientText(c result.Client) string {
	s := fmt.Sprintf("%s µs CPU per op, %s%% CPU", textCells.Num(c.CPUPerOp), sig3(c.CPUPercent))
	if c.Cores > 0 {
		s += fmt.Sprintf(" of %d cores", c.Cores)
	}
	return s
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

var errNoDoc = errors.New("nil result document")
