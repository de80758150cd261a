package builtin_test

import (
	"slices"
	"testing"

	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

func TestRegistryNamesEveryWorkload(t *testing.T) {
	want := []string{"hotdoc", "insert", "kv", "ledger", "query", "updateapi",
		"ycsb-a", "ycsb-b", "ycsb-c", "ycsb-d", "ycsb-e", "ycsb-f"}
	if got := builtin.Registry().Workloads(); !slices.Equal(got, want) {
		t.Errorf("built-in workloads: got %v, want %v", got, want)
	}
	want = []string{"ycsb-a-load", "ycsb-b-load", "ycsb-c-load", "ycsb-d-load", "ycsb-e-load", "ycsb-f-load"}
	if got := builtin.YCSBLoads().Workloads(); !slices.Equal(got, want) {
		t.Errorf("load workloads: got %v, want %v", got, want)
	}
}

func TestParamSpecsAreWellFormed(t *testing.T) {
	for _, reg := range []*workload.Registry{builtin.Registry(), builtin.YCSBLoads()} {
		for _, name := range reg.Workloads() {
			specs, _ := reg.ParamSpecs(name)
			if err := spec.CheckParamSpecs(specs); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
}
