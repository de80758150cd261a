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
	t.Add("mode", c.Text(modeText(d.Schedule)))
	t.Add("workers", count(int64(d.Schedule.Workers)))
	t.Add("target rate", rateText(d.Schedule.TargetRate, c))
	t.Add("achieved rate", rateText(&d.Schedule.AchievedRate, c))
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

// opsTable has a row per operation type: successes, throughput and
// errors by class.
func opsTable(d *result.Doc) *table {
	t := newTable("op", ">ops", ">ops/s", ">errors", "error classes")
	for _, o := range d.Ops {
		t.Add(o.Name, count(o.Count), perSec(o.Rate), count(o.Errors.Total), errorClasses(o.Errors))
	}
	return t
}

// latencyTable has two rows per operation type, latency (from the
// intended start) and service time (from the send), in milliseconds.
func latencyTable(d *result.Doc, c cells) *table {
	t := newTable("op", "time", ">p50", ">p95", ">p99", ">p99.9", ">max")
	for _, o := range d.Ops {
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

// isOpen reports whether the run was paced to a target rate.
func isOpen(d *result.Doc) bool { return d.Schedule.Mode == "open" }
