package report

import (
	"fmt"

	"github.com/mongobench/mongobench/internal/result"
)

// diagnosisBlocks are the evidence of what limited the run (its verdict
// is the headline's): every candidate with its figures, Little's law,
// the rules that could not judge and why, and what to try next.
func diagnosisBlocks(dg *result.Diagnosis) []Block {
	blocks := []Block{{Table: findingsTable(dg.Candidates)}}
	if l := dg.Little; l != nil {
		blocks = append(blocks, Block{Text: fmt.Sprintf("Little's law: %s ops/s × %s ms mean latency = %s operations in flight on average, of %s allowed.",
			sig3(l.Rate), sig3(l.MeanLatency), sig3(l.InFlight), count(int64(l.Threads)))})
	}
	if len(dg.NotJudged) > 0 {
		items := make([]string, len(dg.NotJudged))
		for i, f := range dg.NotJudged {
			items[i] = f.Resource + ": " + f.Missing
		}
		blocks = append(blocks, Block{Text: "Could not judge:"}, Block{Items: items})
	}
	if len(dg.Next) > 0 {
		blocks = append(blocks, Block{Text: "What to try next:"}, Block{Items: dg.Next})
	}
	return blocks
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
