package report

import (
	"errors"
	"fmt"
	"io"

	"github.com/mongobench/mongobench/internal/result"
)

// Summary writes a run's summary for the terminal: what ran, throughput
// and errors per operation type, latency and service-time percentiles,
// schedule health and the load generator's own cost. A run that stopped
// early or was limited by the client says so prominently; the last line
// says what limited the run, when the document carries its diagnosis.
func Summary(w io.Writer, d *result.Doc) error {
	if d == nil {
		return errNoDoc
	}
	ew := &errWriter{w: w}
	if d.Partial {
		ew.line("PARTIAL RUN: %s", textCells.Text(d.PartialReason))
		ew.line("")
	}
	ew.table(headerTable(d, textCells), false)
	ew.line("")
	ew.table(opsTable(d), true)
	ew.line("")
	ew.line("milliseconds: latency from intended start, service time from send")
	ew.table(latencyTable(d, textCells), true)
	ew.line("")
	ew.line("schedule  %s", scheduleText(d.Schedule))
	ew.line("client    %s", clientText(d.Client))
	if p := d.Schedule.Precision; p != nil {
		ew.line("precision %s", precisionText(p))
	}
	switch {
	case d.Client.ClientBound:
		ew.line("")
		ew.line("WARNING: %s", clientBoundWarning(d.Client))
	case d.Client.ServerBound:
		ew.line("")
		ew.line("NOTE: %s", serverBoundNote(d.Client))
	case d.Client.NotJudged != "":
		ew.line("")
		ew.line("NOTE: %s", d.Client.NotJudged)
	}
	if p := d.Schedule.Precision; p != nil && p.Flagged {
		ew.line("")
		ew.line("WARNING: %s", precisionWarning(p))
	}
	if len(d.Thresholds) > 0 {
		ew.line("")
		ew.table(thresholdTable(d), true)
	}
	if dg := d.Diagnosis; dg != nil {
		ew.line("")
		if dg.Tail != nil { // the verdict, "limited by", ends the summary
			ew.line("%s", dg.Tail.Line)
		}
		ew.line("%s", dg.Line)
	}
	return ew.err
}

// scheduleText summarises how well the schedule was kept, on one line.
func scheduleText(s result.Schedule) string {
	if s.Mode != "open" {
		return "closed loop: no pacing, nothing late or dropped" + receiveText(s)
	}
	text := fmt.Sprintf("intended %d, late %d, dropped %d, max lag %s ms (late > %s ms, dropped > %s ms)",
		s.Intended, s.Late, s.Dropped, sig3(s.MaxLag), sig3(s.LateThreshold), sig3(s.DropBound))
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
