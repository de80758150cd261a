package builtin_test

import (
	"slices"
	"testing"

	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

func TestRegistryNamesEveryWorkload(t *testing.T) {
	want := []string{"hotdoc", "insert", "kv", "ledger", "query", "replay", "updateapi",
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

// TestRegistryOpensWorkloadFiles: a name that is a workload file's path
// opens the file, once; its problems come back as the error.
func TestRegistryOpensWorkloadFiles(t *testing.T) {
	reg := builtin.Registry()
	w, err := reg.Get("../../../workloads/kv.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Ops(nil); !slices.Equal(got, []string{"read", "update"}) {
		t.Errorf("ops %v", got)
	}
	if specs, ok := reg.ParamSpecs("../../../workloads/kv.yaml"); !ok || spec.CheckParamSpecs(specs) != nil {
		t.Errorf("parameters of a workload file: %v %v", specs, ok)
	}
	if again, _ := reg.Get("../../../workloads/kv.yaml"); again != w {
		t.Error("the file was opened again")
	}
	if err := reg.OpenWorkloadFile("no-such-file.yaml"); err == nil {
		t.Error("no error for a missing file")
	}
	if _, err := builtin.YCSBLoads().Get("../../../workloads/kv.yaml"); err == nil {
		t.Error("the load registry opened a workload file")
	}
}
