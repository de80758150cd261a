package runner

import (
	"maps"
	"slices"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/workload"
)

// addNotes stores what the workload's setup decided and what its tasks
// counted: effective settings into test_config, warnings into notes,
// every worker's counts
// over the measured phase (warm-up subtracted) into testResults (retry
// causes under retryCauses), and the server operations each completed
// operation cost.
func (r *run) addNotes(d *result.Doc) {
	maps.Copy(d.TestConfig, r.settings)
	d.Notes = slices.Clone(r.warnings)
	counts, causes := r.counts()
	for k, v := range counts {
		d.TestResults[k] = v - r.base[k]
	}
	for k, v := range r.baseCauses {
		if causes[k] -= v; causes[k] == 0 {
			delete(causes, k)
		}
	}
	if len(causes) > 0 {
		d.TestResults["retryCauses"] = causes
	}
	if per, ok := serverOpsPerOp(r.before.Doc, r.after.Doc, d.TestResults["nOps"]); ok {
		d.TestResults["serverOpsPerOp"] = per
	}
}

// counts sums the counts of every task that keeps some.
func (r *run) counts() (map[string]int64, map[string]int64) {
	counts, causes := map[string]int64{}, map[string]int64{}
	for _, t := range r.tasks {
		c, ok := t.(workload.Counter)
		if !ok {
			continue
		}
		for k, v := range c.Counts() {
			if name, isCause := strings.CutPrefix(k, "cause:"); isCause {
				causes[name] += v
			} else {
				counts[k] += v
			}
		}
	}
	return counts, causes
}

// opcounterNames are the serverStatus opcounters, each one server
// operation (a command, including commitTransaction and bulkWrite, counts
// once).
var opcounterNames = []string{"insert", "query", "update", "delete", "getmore", "command"}

// serverOpsPerOp is the growth of all opcounters over the measured phase
// per completed operation. It includes the tool's own serverStatus
// samples (one a second), which is noise well below one per operation at
// the rates measured.
func serverOpsPerOp(before, after map[string]any, nOps any) (float64, bool) {
	n, ok := nOps.(int64)
	if !ok || n == 0 || before == nil || after == nil {
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
