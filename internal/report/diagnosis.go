package report

import (
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/texttable"
)

// mdDiagnosis writes what limited the run: the verdict, every candidate
// with its figures and evidence, the rules that could not judge and why,
// and what to try next. A document without a diagnosis gets no section.
func mdDiagnosis(ew *errWriter, d *result.Doc) {
	dg := d.Diagnosis
	if dg == nil {
		return
	}
	ew.line("\n## What limited the run\n")
	ew.line("**%s**\n", texttable.Escape(dg.Line))
	ew.md(findingsTable(dg.Candidates))
	if l := dg.Little; l != nil {
		ew.line("\nLittle's law: %s ops/s × %s ms mean latency = %s operations in flight on average, of %s allowed.",
			sig3(l.Rate), sig3(l.MeanLatency), sig3(l.InFlight), count(int64(l.Threads)))
	}
	if len(dg.NotJudged) > 0 {
		ew.line("\nCould not judge:\n")
		for _, f := range dg.NotJudged {
			ew.line("- %s: %s", texttable.Escape(f.Resource), texttable.Escape(f.Missing))
		}
	}
	if len(dg.Next) > 0 {
		ew.line("\nWhat to try next:\n")
		for _, n := range dg.Next {
			ew.line("- %s", texttable.Escape(n))
		}
	}
}

// mib converts bytes to MB (1MB = 1024KB, as the tool's sizes).
func mib(v *float64) *float64 {
	if v == nil {
		return nil
	}
	return result.F(*v / (1 << 20))
}

// findingsTable lists the candidates: the resource, its figure against
// its ceiling, the share, whether it saturated, and the evidence.
func findingsTable(fs []result.Finding) *table {
	t := newTable("resource", ">value", ">limit", "unit", ">share %", "saturated", "evidence")
	for _, f := range fs {
		sat := "no"
		if f.Saturated {
			sat = "yes"
		}
		var share *float64
		if f.Share != nil {
			share = result.F(100 * *f.Share)
		}
		value, limit, unit := f.Value, f.Limit, f.Unit
		if unit == "bytes/s" { // shown as the evidence shows it
			value, limit, unit = mib(value), mib(limit), "MB/s"
		}
		t.Add(f.Resource, mdCells.Num(value), mdCells.Num(limit), unit, mdCells.Num(share), sat, f.Evidence)
	}
	return t
}
