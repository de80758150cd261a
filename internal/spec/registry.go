package spec

import (
	"maps"
	"slices"
	"strings"
)

// Registry tells which workloads exist and which parameters each takes.
type Registry interface {
	Workloads() []string
	ParamSpecs(workload string) ([]ParamSpec, bool)
}

// Recordings is what a registry that replays traffic recordings adds:
// whether a workload, with its parameters, replays a recording, and that
// recording's own rate (requests per second over its span). A plan
// whose scenario replays one is paced (Plan.RecordedRate).
type Recordings interface {
	RecordedRate(workload string, p Params) (rate float64, ok bool, err error)
}

// MapRegistry is a Registry held in a map from workload name to its
// parameters.
type MapRegistry map[string][]ParamSpec

var _ Registry = MapRegistry{}

// Workloads returns the workload names in sorted order.
func (m MapRegistry) Workloads() []string { return slices.Sorted(maps.Keys(m)) }

// ParamSpecs returns the parameters of a workload, and false if there is
// no such workload.
func (m MapRegistry) ParamSpecs(workload string) ([]ParamSpec, bool) {
	specs, ok := m[workload]
	return specs, ok
}

// paramSpecs looks a workload up; a nil registry knows no workloads.
func paramSpecs(reg Registry, workload string) ([]ParamSpec, bool) {
	if reg == nil || workload == "" {
		return nil, false
	}
	return reg.ParamSpecs(workload)
}

func workloads(reg Registry) []string {
	if reg == nil {
		return nil
	}
	return reg.Workloads()
}

// workloadError reports a missing or unknown workload, listing the known ones.
func workloadError(reg Registry, workload string) *Error {
	if workload == "" {
		return &Error{Problem: "no workload is given", Want: oneOf("", workloads(reg))}
	}
	if strings.ContainsAny(workload, `/\`) { // a path: a workload file without its extension, or no recording
		if _, ok := reg.(Recordings); ok {
			return invalid(workload, "a workload file whose name ends in .yaml or .yml, the path of a traffic recording (a file, or an 8.x server's recording directory), or a built-in workload: "+oneOf("", workloads(reg)))
		}
		return invalid(workload, "a workload file whose name ends in .yaml or .yml, or a built-in workload: "+oneOf("", workloads(reg)))
	}
	return invalid(workload, oneOf(workload, workloads(reg)))
}

// WorkloadFiles is a Registry that also knows the workloads described by
// workload files: OpenWorkloadFile reads and checks the file at path and
// registers the workload under the path, or says what is wrong with it.
type WorkloadFiles interface {
	OpenWorkloadFile(path string) error
}

// IsWorkloadFile says whether a workload name is a workload file's path
// (it ends in .yaml or .yml); no built-in workload is named so.
func IsWorkloadFile(name string) bool {
	l := strings.ToLower(name)
	return strings.HasSuffix(l, ".yaml") || strings.HasSuffix(l, ".yml")
}
