package runner

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/workload"
)

// addNotes stores what the workload's setup decided and what its tasks
// counted: effective settings into test_config, warnings into notes,
// every worker's counts over the measured phase (warm-up subtracted) into
// testResults, and the server operations each completed operation cost.
func (r *run) addNotes(d *result.Doc) {
	maps.Copy(d.TestConfig, r.settings)
	d.Notes = slices.Clone(r.warnings)
	if note := MixNote(d.Ops, r.mix); note != "" {
		d.Notes = append(d.Notes, note)
	}
	d.TestResults.Counts = r.counts()
	if d.TestResults.NOps != nil {
		if per, ok := serverOpsPerOp(r.before.Doc, r.after.Doc, *d.TestResults.NOps); ok {
			d.TestResults.ServerOpsPerOp = &per
		}
	}
}

// counts sums, over every task that keeps some, its counts in the
// measured phase: its counts now less those it had at its first measured
// operation; all of them when it had none (a worker that only warmed up).
func (r *run) counts() result.Counts {
	var sum result.Counts
	for w, t := range r.tasks {
		c, ok := t.(workload.Counter)
		if !ok {
			continue
		}
		n := c.Counts()
		base := n // a worker that only warmed up: none of its counts
		if w < len(r.bases) && r.bases[w] != nil {
			base = *r.bases[w]
		}
		n.Sub(base)
		sum.Add(n)
	}
	return sum
}

// workerMeasured keeps worker w's counts at its first measured operation
// (on the goroutine that sends its operations: the worker's, or under
// the dispatch pacing possibly the engine's dispatcher; read once the
// engine has returned).
func (r *run) workerMeasured(w int) {
	if c, ok := r.tasks[w].(workload.Counter); ok && w < len(r.bases) {
		base := c.Counts()
		r.bases[w] = &base
	}
}

// opcounterNames are the serverStatus opcounters, each one server
// operation (a command, including commitTransaction and bulkWrite, counts
// once).
var opcounterNames = []string{"insert", "query", "update", "delete", "getmore", "command"}

// serverOpsPerOp is the growth of all opcounters over the measured phase
// per completed operation. It includes the tool's own serverStatus
// samples (one a second), which is noise well below one per operation at
// the rates measured.
func serverOpsPerOp(before, after map[string]any, n int64) (float64, bool) {
	if n == 0 || before == nil || after == nil {
		return 0, false
	}
	var sum float64
	for _, name := range opcounterNames {
		a, okA := telemetry.Lookup(after, "opcounters."+name)
		b, okB := telemetry.Lookup(before, "opcounters."+name)
		if !okA || !okB {
			return 0, false
		}
		sum += a - b
	}
	return sum / float64(n), true
}

// MixNote says the mix of operations achieved (operations completed or
// failed, by type) against the mix the workload states: "mix achieved
// (stated): read 50.3% (50%), update 49.7% (50%)"; "" when the workload
// states none or nothing ran.
func MixNote(ops []result.OpStats, mix map[string]float64) string {
	if len(mix) == 0 {
		return ""
	}
	var total int64
	for _, o := range ops {
		total += o.Count + o.Errors.Total
	}
	if total == 0 {
		return ""
	}
	parts := make([]string, 0, len(mix))
	seen := map[string]bool{}
	for _, o := range ops {
		if share, ok := mix[o.Name]; ok {
			seen[o.Name] = true
			parts = append(parts, fmt.Sprintf("%s %.1f%% (%.4g%%)", o.Name, 100*float64(o.Count+o.Errors.Total)/float64(total), 100*share))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(mix)) {
		if !seen[name] {
			parts = append(parts, fmt.Sprintf("%s 0.0%% (%.4g%%)", name, 100*mix[name]))
		}
	}
	return "mix achieved (stated): " + strings.Join(parts, ", ")
}
