// Package builtin assembles the registries of the workloads built into
// mongobench: the workloads of package workload and the YCSB core
// workloads A–F of package workload/ycsb, and the load phases of the
// latter. It is where a reader finds which workloads exist; the
// registries are built on each call, without init-time registration.
package builtin

import (
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/workload/recorded"
	"github.com/mongobench/mongobench/internal/workload/ycsb"
)

// presets are the letters of YCSB's core workloads.
var presets = []string{"a", "b", "c", "d", "e", "f"}

// Registry returns the registry of every built-in workload, the ones
// 'run', the studies and scenario files name, and of the workload files
// they name by path.
func Registry() *workload.Registry {
	ws := []workload.Workload{
		workload.KV{}, workload.Ledger{}, workload.Insert{}, workload.HotDoc{}, workload.UpdateAPI{}, workload.Query{},
		&recorded.Workload{},
	}
	for _, p := range presets {
		ws = append(ws, ycsb.Workload{Preset: p})
	}
	return workload.NewRegistry(ws...).WithFiles().WithRecordings(recorded.Named)
}

// YCSBLoads returns the registry of the load phases of YCSB A–F
// ("ycsb-a-load" … "ycsb-f-load"), which 'mongobench load' runs.
func YCSBLoads() *workload.Registry {
	ws := make([]workload.Workload, 0, len(presets))
	for _, p := range presets {
		ws = append(ws, ycsb.Load{Workload: ycsb.Workload{Preset: p}})
	}
	return workload.NewRegistry(ws...)
}
