package spec

import (
	"maps"
	"slices"
)

// Registry tells which workloads exist and which parameters each takes.
type Registry interface {
	Workloads() []string
	ParamSpecs(workload string) ([]ParamSpec, bool)
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
	return invalid(workload, oneOf(workload, workloads(reg)))
}
