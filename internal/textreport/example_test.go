package textreport_test

import (
	"os"
	"time"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/textreport"
)

func ExampleSummary() {
	f := result.F
	d := &result.Doc{
		RunID:    "20250304-100000-a1b2",
		TestName: "ycsb-c",
		Start:    time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC),
		Duration: 60000,
		Target:   result.Target{URI: "mongodb://127.0.0.1:27017", ServerVersion: "8.2.11", Topology: "replicaSet"},
		Schedule: result.Schedule{Mode: "open", Workers: 16, TargetRate: f(1000), AchievedRate: 999.8,
			Intended: 60000, Late: 4, LateThreshold: 10, DropBound: 1000, MaxLag: 14.2},
		Ops: []result.OpStats{{
			Name: "read", Count: 59985, Rate: 999.75,
			Errors:  result.Errors{Total: 3, Timeout: 2, Network: 1},
			Latency: result.Dist{P50: f(0.412), P95: f(0.98), P99: f(2.104), P999: f(5.3), Max: f(14.9)},
			Service: result.Dist{P50: f(0.401), P95: f(0.95), P99: f(1.998), P999: f(5.1)},
		}},
		Client: result.Client{CPUPerOp: f(9.1), CPUPercent: 2.3, Cores: 8},
	}
	if err := textreport.Summary(os.Stdout, d); err != nil {
		panic(err)
	}
	// Output:
	// test           ycsb-c
	// run            20250304-100000-a1b2
	// start          2025-03-04 10:00:00 UTC
	// target         mongodb://127.0.0.1:27017
	// server         8.2.11, replicaSet
	// loop           open
	// workers        16
	// target rate    1000 ops/s
	// achieved rate  999.8 ops/s
	// duration       60.0 s
	//
	// op      ops  ops/s  errors  error classes
	// read  59985  999.8       3  2 timeout, 1 network
	//
	// milliseconds: latency from intended start, service time from send
	// op    time       p50    p95   p99  p99.9   max
	// read  latency  0.412  0.980  2.10   5.30  14.9
	// read  service  0.401  0.950  2.00   5.10     —
	//
	// schedule  intended 60000, late 4, dropped 0, max lag 14.2 ms (late > 10.0 ms, dropped > 1000 ms)
	// client    9.10 µs CPU per op, 2.30% CPU of 8 cores
}
