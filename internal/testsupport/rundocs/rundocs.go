// Package rundocs holds the result documents the report and textreport
// tests render: built from formulas, not randomness, so that rendered
// reports are stable golden files.
package rundocs

import (
	"math"
	"time"

	"github.com/mongobench/mongobench/internal/diagnosis"

	"github.com/mongobench/mongobench/internal/result"
)

// The fixtures are built from formulas, not randomness, so that rendered
// reports are stable golden files.

// T0 is the fixtures' start.
var T0 = time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)

var f = result.F

// All names every fixture document; golden files carry these names.
func All() map[string]*result.Doc {
	return map[string]*result.Doc{
		"closed":       ClosedDoc(),
		"open":         OpenDoc(),
		"partial":      PartialDoc(),
		"zero-success": ZeroSuccessDoc(),
		"client-bound": ClientBoundDoc(),
		"server-bound": ServerBoundDoc(),
		"checkpoint":   CheckpointDoc(),
		"diagnosed":    DiagnosedDoc(),
		"members":      MembersDoc(),
	}
}

// MembersDoc is the open-loop run with the hosts of a three-member replica
// set measured by their node exporters: the primary's series in the
// measurements, the secondaries' in metrics.members, one secondary
// without disk figures (its device unknown) and a missing point.
func MembersDoc() *result.Doc {
	d := OpenDoc()
	T0 := d.Start
	pts := func(vs ...*float64) []result.DataPoint {
		out := make([]result.DataPoint, len(vs))
		for i, v := range vs {
			out[i] = result.DataPoint{Timestamp: T0.Add(time.Duration(i) * time.Second), Value: v}
		}
		return out
	}
	series := func(member, role, name, units string, vs ...*float64) result.Series {
		return result.Series{Name: name, Units: units, Source: "node_exporter", GranularitySec: 1, Member: member, Role: role, DataPoints: pts(vs...)}
	}
	p, s2, s3 := "db1.example.net:27017", "db2.example.net:27017", "db3.example.net:27017"
	d.Metrics = result.Metrics{
		Measurements: []result.Series{
			series(p, "primary", result.CPUUser, "PERCENT", f(40), f(42), f(44)),
			series(p, "primary", result.CPUKernel, "PERCENT", f(10), f(11), f(12)),
			series(p, "primary", result.CPUIOWait, "PERCENT", f(2), f(3), f(4)),
		},
		DiskMetrics: []result.Series{
			series(p, "primary", result.DiskIOPS, "SCALAR_PER_SECOND", f(1200), f(1300), f(1400)),
			series(p, "primary", result.DiskWriteBytes, "BYTES_PER_SECOND", f(20<<20), f(22<<20), f(24<<20)),
			series(p, "primary", result.DiskReadBytes, "BYTES_PER_SECOND", f(0), f(0), f(0)),
		},
		Members: []result.Series{
			series(s2, "secondary", result.CPUUser, "PERCENT", f(20), nil, f(22)),
			series(s2, "secondary", result.CPUKernel, "PERCENT", f(5), nil, f(7)),
			series(s2, "secondary", result.CPUIOWait, "PERCENT", f(1), nil, f(1)),
			series(s2, "secondary", result.DiskIOPS, "SCALAR_PER_SECOND", f(900), nil, f(1000)),
			series(s2, "secondary", result.DiskWriteBytes, "BYTES_PER_SECOND", f(18<<20), nil, f(20<<20)),
			series(s2, "secondary", result.DiskReadBytes, "BYTES_PER_SECOND", f(0), nil, f(0)),
			series(s3, "secondary", result.CPUUser, "PERCENT", f(21), f(23), f(25)),
			series(s3, "secondary", result.CPUKernel, "PERCENT", f(6), f(6), f(6)),
			series(s3, "secondary", result.CPUIOWait, "PERCENT", f(1), f(1), f(1)),
		},
	}
	return d
}

// DiagnosedDoc is the checkpoint run with its diagnosis, judged against a
// stated disk ceiling.
func DiagnosedDoc() *result.Doc {
	d := CheckpointDoc()
	d.Diagnosis = diagnosis.Diagnose(d, diagnosis.Limits{DiskBytesPerSec: 64 << 20, DiskIOPS: 3000})
	return d
}

// Dist returns a distribution whose percentiles scale with base ms.
func Dist(n int64, base float64) result.Dist {
	return result.Dist{
		Count: n, Mean: f(base * 1.2), Min: f(base * 0.4), P50: f(base),
		P95: f(base * 2.1), P99: f(base * 3.7), P999: f(base * 8.2), Max: f(base * 15.3),
	}
}

// Op returns the stats of an operation type with latency base ms and a
// service time a little below it.
func Op(name string, n int64, secs, base float64) result.OpStats {
	return result.OpStats{Name: name, Count: n, Rate: float64(n) / secs,
		Latency: Dist(n, base), Service: Dist(n, base*0.9)}
}

// Intervals returns n one-second intervals from T0, each made by fill.
func Intervals(n int, fill func(i int, iv *result.Interval)) []result.Interval {
	out := make([]result.Interval, n)
	for i := range out {
		out[i] = result.Interval{Start: T0.Add(time.Duration(i) * time.Second), Seconds: 1}
		fill(i, &out[i])
	}
	return out
}

// Base returns a document with the fields every fixture shares.
func Base(test, runID string, secs float64) *result.Doc {
	return &result.Doc{
		SchemaVersion: result.SchemaVersion, RunID: runID, TestName: test,
		Start: T0, End: T0.Add(time.Duration(secs) * time.Second), Duration: secs * 1000,
		Target: result.Target{URI: "mongodb://127.0.0.1:27017/?serverMonitoringMode=poll",
			ServerVersion: "8.2.11", Topology: "replicaSet", Kind: "embedded-secantus",
			MonitoringMode: "poll", SameHost: true, Database: "mb_test"},
		Client: result.Client{CPUSeconds: 3.2, CPUPerOp: f(8.42), CPUPercent: 13.4, Cores: 4},
	}
}

// ClosedDoc is a closed-loop YCSB A run with serverStatus counters.
func ClosedDoc() *result.Doc {
	d := Base("ycsb-a", "20250304-100000-a1b2", 10)
	d.Schedule = result.Schedule{Mode: "closed", Workers: 32, AchievedRate: 9876.5,
		ReceiveLag: &result.Dist{Count: 296295, P50: f(0.011), P99: f(0.085), P999: f(0.4)}}
	d.Ops = []result.OpStats{Op("read", 49400, 10, 0.812), Op("update", 49365, 10, 1.27)}
	d.Ops[1].Errors = result.Errors{Total: 3, Timeout: 2, Network: 1}
	d.Intervals = Intervals(10, func(i int, iv *result.Interval) {
		iv.Ops = []result.OpStats{
			Op("read", int64(4900+13*i), 1, 0.8+0.01*float64(i)),
			Op("update", int64(4890+11*i), 1, 1.25+0.02*float64(i%3)),
		}
		iv.Server = map[string]float64{"opcounters.query": float64(4900 + 13*i),
			"opcounters.update": float64(4890 + 11*i), "connections.current": 34}
		iv.ClientCPU = f(13 + 0.1*float64(i))
	})
	return d
}

// OpenDoc is an open-loop run at 500 ops/s whose schedule slipped, with
// server, host and monitoring telemetry; long enough to be condensed.
func OpenDoc() *result.Doc {
	d := Base("txn-sla", "20250304-101500-c3d4", 40)
	d.Label = "m5.large"
	d.TestConfig = map[string]any{"workload": "ledger", "loop": "open", "mode": "client-bulk", "targetRate": 500.0,
		"accounts": int64(10000), "readConcern": "default", "writeConcern": "majority, j: true"}
	d.Notes = []string{`the server refuses readConcern "snapshot" on a client-level bulkWrite in a transaction; both modes run with the server's default read concern so they stay comparable`}
	d.Schedule = result.Schedule{Mode: "open", Pacer: "constant", Workers: 64,
		TargetRate: f(500), AchievedRate: 497.3, Intended: 20000, Late: 112, Dropped: 7,
		LateThreshold: 10, DropBound: 1000, MaxLag: 812.5, SendLag: Ptr(Dist(2400, 0.2))}
	d.Ops = []result.OpStats{Op("txn", 19882, 40, 4.31)}
	d.Ops[0].Errors = result.Errors{Total: 4, WriteConflict: 3, Other: 1}
	d.Intervals = Intervals(40, func(i int, iv *result.Interval) {
		n, lat := int64(500), 4.1+0.05*float64(i%5)
		if i == 23 { // a stall: the schedule falls behind
			n, lat = 380, 420
			iv.Late, iv.Dropped, iv.MaxLag = 112, 7, 812.5
		}
		iv.Ops = []result.OpStats{Op("txn", n, 1, lat)}
		iv.MaxLag = max(iv.MaxLag, 1.5)
		iv.Server = map[string]float64{"opcounters.command": float64(3 * n), "connections.current": 66}
		iv.Host = map[string]float64{"cpu.user": 41 + float64(i%7), "cpu.iowait": 2.5}
	})
	d.Metrics = result.Metrics{
		Measurements: []result.Series{{Name: result.CPUUser, Units: "PERCENT", DataPoints: []result.DataPoint{
			{Timestamp: T0, Value: f(40.5)}, {Timestamp: T0.Add(20 * time.Second), Value: nil},
			{Timestamp: T0.Add(40 * time.Second), Value: f(44.25)}}}},
		DiskMetrics: []result.Series{{Name: result.DiskIOPS, Units: "SCALAR_PER_SECOND", DataPoints: []result.DataPoint{
			{Timestamp: T0, Value: f(1210)}, {Timestamp: T0.Add(20 * time.Second), Value: f(1388)}}}},
	}
	return d
}

// PartialDoc is a run stopped by Ctrl-C after five seconds.
func PartialDoc() *result.Doc {
	d := Base("ingest", "20250304-103000-e5f6", 5.2)
	d.Partial, d.PartialReason = true, "interrupted (SIGINT)"
	d.Client.NotJudged = "interrupted: a run that did not finish is judged neither client- nor server-bound"
	d.Schedule = result.Schedule{Mode: "closed", Workers: 8, AchievedRate: 20311}
	d.Ops = []result.OpStats{Op("insert", 105617, 5.2, 0.364)}
	d.Intervals = Intervals(5, func(i int, iv *result.Interval) {
		iv.Ops = []result.OpStats{Op("insert", int64(20000+100*i), 1, 0.36)}
	})
	d.Client.CPUPerOp = nil
	return d
}

// ZeroSuccessDoc is an open-loop contention run where every update
// failed, so the update percentiles are missing.
func ZeroSuccessDoc() *result.Doc {
	d := Base("update-contention", "20250304-104500-a7b8", 3)
	d.Schedule = result.Schedule{Mode: "open", Workers: 16, TargetRate: f(200), AchievedRate: 200,
		Intended: 600, LateThreshold: 10, DropBound: 1000, MaxLag: 0.8}
	updates := result.OpStats{Name: "update", Errors: result.Errors{Total: 300, WriteConflict: 280, Timeout: 20},
		Latency: result.Dist{}, Service: result.Dist{}}
	d.Ops = []result.OpStats{Op("read", 300, 3, 0.52), updates}
	d.Intervals = Intervals(3, func(i int, iv *result.Interval) {
		u := updates
		u.Errors = result.Errors{Total: 100, WriteConflict: 93, Timeout: 7}
		iv.Ops = []result.OpStats{Op("read", 100, 1, 0.5), u}
		if i == 1 { // reads completed but no percentile was recorded
			iv.Ops[0].Latency, iv.Ops[0].Service = result.Dist{}, result.Dist{}
		}
	})
	return d
}

// ClientBoundDoc is an open-loop run the load generator could not keep up
// with.
func ClientBoundDoc() *result.Doc {
	d := Base("ingest-bulk", "20250304-110000-c9d0", 3)
	d.Target = result.Target{URI: "mongodb+srv://cluster0.example.mongodb.net/", Kind: "external"}
	d.Schedule = result.Schedule{Mode: "open", Pacer: "poisson", Workers: 256, TargetRate: f(20000),
		AchievedRate: 12040, Intended: 60000, Late: 23870, Dropped: 11880,
		LateThreshold: 10, DropBound: 1000, MaxLag: 1000}
	d.Ops = []result.OpStats{Op("insert", 36120, 3, 2.2)}
	d.Intervals = Intervals(3, func(i int, iv *result.Interval) {
		iv.Ops = []result.OpStats{Op("insert", int64(12000+20*i), 1, 2.2)}
		iv.Late, iv.Dropped, iv.MaxLag = 7900+int64(i), 3960, 1000
		iv.ClientCPU = f(97.5)
	})
	d.Schedule.SendLag = &result.Dist{P50: f(0.9), P99: f(1000), P999: f(1000)}
	d.Schedule.Precision = &result.Precision{Judged: true, SendLagP99: f(1000), Op: "insert", LatencyP50: f(2.2), Share: f(454.5), Bound: 0.1, Flagged: true}
	d.Client = result.Client{CPUSeconds: 5.85, CPUPerOp: f(162), CPUPercent: 97.5, Cores: 2, ClientBound: true,
		Reasons: []string{"schedule lag reached the drop bound", "client CPU 97.5% of 2 cores"}}
	return d
}

// ServerBoundDoc is an open-loop run against a failing server: the
// achieved rate counts successes with the failures beside it, and the
// precision verdict could be given and passed.
func ServerBoundDoc() *result.Doc {
	d := Base("kv-fault", "20250304-111500-a1b2", 3)
	d.Schedule = result.Schedule{Mode: "open", Pacer: "constant 2000/s", Pacing: "timerfd", Workers: 64, TargetRate: f(2000),
		AchievedRate: 2000, SuccessRate: 1340, FailedRate: 660, Intended: 6000, LateThreshold: 10, DropBound: 10000, MaxLag: 0.2,
		SendLag:    &result.Dist{P50: f(0.012), P99: f(0.041), P999: f(0.09)},
		ReceiveLag: &result.Dist{Count: 4020, P50: f(0.008), P99: f(0.07), P999: f(0.2)},
		Precision:  &result.Precision{Judged: true, SendLagP99: f(0.041), Op: "read", LatencyP50: f(0.5), Share: f(0.082), Bound: 0.1}}
	d.Ops = []result.OpStats{Op("read", 4020, 3, 0.5)}
	d.Ops[0].Errors = result.Errors{Total: 1980, Network: 1980}
	d.Intervals = Intervals(3, func(i int, iv *result.Interval) {
		iv.Ops = []result.OpStats{Op("read", 1340, 1, 0.5)}
	})
	d.Client = result.Client{CPUSeconds: 0.3, CPUPerOp: f(50), CPUPercent: 5, Cores: 2, ServerBound: true,
		ServerReasons: []string{"errors: 1980 of 6000 operations failed (33%)"}}
	return d
}

// CheckpointDoc is an open-loop transaction run on a local mongod whose
// p99 spikes while a WiredTiger checkpoint flushes the dirty cache: dirty
// cache builds up, then during the checkpoint (intervals 30-35) disk
// writes and iowait rise and p99 jumps. The host missed one reading
// (interval 12), which must be a gap, not a zero.
func CheckpointDoc() *result.Doc {
	d := Base("txn-sla", "20250304-113000-e1f2", 50)
	d.Target.Kind = "external"
	d.Schedule = result.Schedule{Mode: "open", Pacer: "constant", Workers: 64,
		TargetRate: f(1200), AchievedRate: 1196.4, Intended: 60000, Late: 41, Dropped: 0,
		LateThreshold: 10, DropBound: 1000, MaxLag: 96.5, SendLag: Ptr(Dist(60000, 0.15))}
	d.Ops = []result.OpStats{Op("txn", 49860, 50, 2.1), Op("read", 9972, 50, 0.3)}
	spike := map[int]float64{31: 4, 32: 14, 33: 23, 34: 9, 35: 2.5}
	d.Intervals = Intervals(50, func(i int, iv *result.Interval) {
		m, running := 1.0, i >= 30 && i <= 35
		if x, ok := spike[i]; ok {
			m = x
		}
		iv.Ops = []result.OpStats{Op("txn", 1000, 1, (1.6+0.05*float64(i%4))*m), Op("read", 200, 1, (0.28+0.01*float64(i%3))*math.Sqrt(m))}
		if i == 33 {
			iv.Late, iv.MaxLag = 41, 96.5
		}
		dirty := 20e6 + 5.2e6*float64(i) // builds up until the checkpoint…
		if i >= 30 {
			dirty = 176e6 - 28e6*float64(min(i, 35)-29) + 5.2e6*float64(max(i-35, 0)) // …which flushes it
		}
		iv.Server = map[string]float64{
			"commandPerSec": 1240, "insertPerSec": 1000, "updatePerSec": 3000, "queryPerSec": 200,
			"connections": 66, "cacheDirtyBytes": dirty, "checkpointRunning": 0, "checkpoints": 0,
		}
		if running {
			iv.Server["checkpointRunning"] = 1
		}
		if i == 35 {
			iv.Server["checkpoints"] = 1
		}
		iv.Host = map[string]float64{
			"cpuUserPct": 38 + float64(i%5), "procCpuUserPct": 31 + float64(i%5),
			"cpuIowaitPct": 1.2 + 0.1*float64(i%3), "diskWriteBytesPerSec": 14e6 + 1e5*float64(i%4),
		}
		if running {
			iv.Host["cpuIowaitPct"] = 6 + 3*spike[i]
			iv.Host["diskWriteBytesPerSec"] = 95e6 + 4e6*spike[i]
		}
		if i == 12 {
			iv.Host = nil
		}
	})
	return d
}

func Ptr(d result.Dist) *result.Dist { return &d }
