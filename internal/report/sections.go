package report

import (
	"fmt"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
)

// The sections below build the tables that the terminal summary and the
// Markdown report share.

// headerTable describes the run: what ran, against what, and how it was
// paced.
func headerTable(d *result.Doc, c cells) *table {
	t := newTable("field", "value")
	t.Add("test", c.Text(d.TestName))
	if d.Label != "" {
		t.Add("label", d.Label)
	}
	t.Add("run", c.Text(d.RunID))
	t.Add("start", c.Text(stamp(d.Start)))
	t.Add("target", c.Text(d.Target.URI))
	t.Add("server", c.Text(serverText(d.Target)))
	t.Add("loop", c.Text(modeText(d.Schedule)))
	t.Add("workers", count(int64(d.Schedule.Workers)))
	t.Add("target rate", rateText(d.Schedule.TargetRate, c))
	t.Add("achieved rate", achievedText(d.Schedule, c))
	t.Add("duration", seconds(d.Duration))
	return t
}

// serverText describes the server under test, as in
// "8.2.11, replicaSet, embedded-secantus, monitoring poll".
func serverText(t result.Target) string {
	var parts []string
	for _, p := range []string{t.ServerVersion, t.Topology, t.Kind} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if t.MonitoringMode != "" {
		parts = append(parts, "monitoring "+t.MonitoringMode)
	}
	return strings.Join(parts, ", ")
}

// modeText names the pacing mode and, when set, the pacer.
func modeText(s result.Schedule) string {
	if s.Pacer == "" {
		return s.Mode
	}
	return fmt.Sprintf("%s (%s)", s.Mode, s.Pacer)
}

// rateText formats an optional rate in operations per second.
func rateText(r *float64, c cells) string {
	if r == nil {
		return c.Missing
	}
	return perSec(*r) + " ops/s"
}

// achievedText is the rate of successful operations, with the failed ones
// beside it. A document stored before the two were kept apart has only
// the rate of completions, shown as it was.
func achievedText(s result.Schedule, c cells) string {
	if s.SuccessRate == 0 && s.FailedRate == 0 {
		return rateText(&s.AchievedRate, c)
	}
	text := perSec(s.SuccessRate) + " ops/s succeeded"
	if s.FailedRate > 0 {
		text += fmt.Sprintf(", %s/s failed", perSec(s.FailedRate))
	}
	if s.Skipped > 0 {
		text += fmt.Sprintf(", %s skipped (not sent: they no longer applied)", count(s.Skipped))
	}
	return text
}

// opsTable has a row per operation type: successes, throughput and
// errors by class. A type that also holds parts of other operations
// (YCSB's measurerwparts) says how many of its operations were parts.
func opsTable(d *result.Doc) *table {
	t := newTable("op", ">ops", ">ops/s", ">errors", "error classes")
	for _, o := range ranOps(d) {
		name := o.Name
		if p := o.Parts; p != nil {
			name += " (" + count(p.Count+p.Errors) + " as parts)"
		}
		t.Add(name, count(o.Count), perSec(o.Rate), count(o.Errors.Total), errorClasses(o.Errors))
	}
	return t
}

// ranOps are the operation types of the run that completed or failed at
// least once: a mix's types that never came up (YCSB B's inserts and
// scans) have nothing to show. A run in which none ran keeps them all, so
// its tables still say what was missing.
func ranOps(d *result.Doc) []result.OpStats {
	var out []result.OpStats
	for _, o := range d.Ops {
		if o.Count > 0 || o.Errors.Total > 0 {
			out = append(out, o)
		}
	}
	if len(out) == 0 {
		return d.Ops
	}
	return out
}

// latencyTable has two rows per operation type, latency (from the
// intended start) and service time (from the send), in milliseconds.
func latencyTable(d *result.Doc, c cells) *table {
	t := newTable("op", "time", ">p50", ">p95", ">p99", ">p99.9", ">max")
	for _, o := range ranOps(d) {
		t.Add(distRow(c, o.Name, "latency", o.Latency)...)
		t.Add(distRow(c, o.Name, "service", o.Service)...)
	}
	return t
}

// distRow formats the percentiles of one distribution.
func distRow(c cells, op, kind string, x result.Dist) []string {
	return []string{op, kind, c.Num(x.P50), c.Num(x.P95), c.Num(x.P99), c.Num(x.P999), c.Num(x.Max)}
}

// clientBoundWarning explains why the run is flagged as client-bound.
func clientBoundWarning(cl result.Client) string {
	msg := "client-bound run: the load generator, not the server, limited these numbers"
	if len(cl.Reasons) > 0 {
		msg += " (" + strings.Join(cl.Reasons, "; ") + ")"
	}
	return msg
}

// serverBoundNote explains why the run is judged server-bound.
func serverBoundNote(cl result.Client) string {
	msg := "server-bound run: the server, not the load generator, limited these numbers"
	if len(cl.ServerReasons) > 0 {
		msg += " (" + strings.Join(cl.ServerReasons, "; ") + ")"
	}
	return msg
}

// precisionText states the client's verdict on its own timing; a verdict
// that could not be given says why.
func precisionText(p *result.Precision) string {
	switch {
	case p == nil:
		return "not recorded"
	case !p.Judged:
		return "could not judge: " + p.Note
	}
	text := fmt.Sprintf("send lag p99 %s ms is %s%% of the smallest latency p50 (%s, %s ms)",
		textCells.Num(p.SendLagP99), sig3(100*deref(p.Share)), p.Op, textCells.Num(p.LatencyP50))
	switch {
	case p.Flagged:
		return text + fmt.Sprintf(", above the %s%% bound", sig3(100*p.Bound))
	case p.Note != "":
		return text + fmt.Sprintf(", above the %s%% bound, not the client's doing: %s", sig3(100*p.Bound), p.Note)
	}
	return text + fmt.Sprintf(", within the %s%% bound", sig3(100*p.Bound))
}

// precisionWarning says that the latencies carry the client's own lag.
func precisionWarning(p *result.Precision) string {
	return fmt.Sprintf("imprecise client: latencies carry the load generator's own send lag (p99 %s ms, %s%% of %s latency p50 %s ms; the bound is %s%%)",
		textCells.Num(p.SendLagP99), sig3(100*deref(p.Share)), p.Op, textCells.Num(p.LatencyP50), sig3(100*p.Bound))
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// isOpen reports whether the run was paced to a target rate.
func isOpen(d *result.Doc) bool { return d.Schedule.Mode == "open" }
