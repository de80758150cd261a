// Package workload holds the operations mongobench sends to MongoDB. A
// Workload declares its parameters and prepares a Run: its data in a
// database the tool owns, the Decisions its setup made about the target
// (stored in the result's test_config and notes), and the Tasks that
// build one engine.Task per worker, for the engine to drive, over the
// state the run's workers share. The YCSB workloads are in workload/ycsb;
// workload/builtin assembles the registries of the built-in workloads.
//
// It also classifies driver errors for the engine, and guards the data
// database: the tool writes only into databases that carry its marker.
package workload
