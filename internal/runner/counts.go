package runner

import (
	"maps"
	"slices"

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
	counts := r.counts()
	counts.Sub(r.base)
	d.TestResults.Counts = counts
	if d.TestResults.NOps != nil {
		if per, ok := serverOpsPerOp(r.before.Doc, r.after.Doc, *d.TestResults.NOps); ok {
			d.TestResults.ServerOpsPerOp = &per
		}
	}
}

// counts sums the counts of every task that keeps some.
func (r *run) counts() result.Counts {
	var sum result.Counts
	for _, t := range r.tasks {
		if c, ok := t.(workload.Counter); ok {
			sum.Add(c.Counts())
		}
	}
	return sum
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
