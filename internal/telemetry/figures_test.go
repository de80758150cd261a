package telemetry

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// sameFigures reports the differences between two figure maps, comparing
// values to a relative tolerance.
func sameFigures(t *testing.T, what string, got, want map[string]float64) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s: %s absent, want %v", what, k, want[k])
			continue
		}
		if math.Abs(g-want[k]) > 1e-9*math.Max(1, math.Abs(want[k])) {
			t.Errorf("%s: %s = %v, want %v", what, k, g, want[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: got %s = %v, want absent", what, k, got[k])
		}
	}
}

// The interval sees a checkpoint start (counted, running at its end) and
// none complete: the most recent time, 1,180 ms, is the previous
// checkpoint's, so there is no checkpoint duration.
func TestServerFiguresMongod(t *testing.T) {
	before, after := loadStatus(t, "mongod-before.json"), loadStatus(t, "mongod-after.json")
	want := map[string]float64{
		"insertPerSec": 5000, "queryPerSec": 2000, "updatePerSec": 0, "deletePerSec": 0,
		"getmorePerSec": 0, "commandPerSec": 100,
		KeyConnections: 34,
		KeyNetIn:       10240000, KeyNetOut: 2048000,
		KeyNetPhysicalIn: 5120000, KeyNetPhysicalOut: 1024000,
		KeyCacheBytes: 734003200, KeyCacheDirty: 83886080,
		KeyCheckpointing: 1, KeyCheckpoints: 1,
		KeyWriteConflicts: 12,
		KeyReadLatency:    0.15, KeyWriteLatency: 0.25, KeyCommandLatency: 0.001,
		KeyCacheMax: 1 << 30, KeyConnCreated: 3, KeyQueued: 0, KeyTicketsOut: 3,
		KeyTicketsTotal: 256,
	}
	sameFigures(t, "mongod", ServerFigures(before, after), want)
}

func TestServerFiguresSecantus(t *testing.T) {
	before, after := loadStatus(t, "secantus-before.json"), loadStatus(t, "secantus-after.json")
	secs := after.Time.Sub(before.Time).Seconds()
	want := map[string]float64{
		"insertPerSec": 10 / secs, "queryPerSec": 200 / secs, "updatePerSec": 50 / secs,
		"deletePerSec": 1 / secs, "getmorePerSec": 0, "commandPerSec": 2 / secs,
		KeyConnections: 3,
		KeyNetIn:       (299234 - 1552) / secs, KeyNetOut: (110211 - 2449) / secs,
		KeyConnCreated: 0,
	}
	// No wiredTiger, opLatencies, writeConflicts or physical bytes: absent.
	sameFigures(t, "secantus", ServerFigures(before, after), want)
}

func TestServerFiguresEdges(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	st := func(secs float64, doc map[string]any) Status {
		return Status{Time: t0.Add(time.Duration(secs * float64(time.Second))), Doc: doc}
	}
	ops := func(insert, latency, n int64) map[string]any {
		return map[string]any{
			"opcounters":  map[string]any{"insert": insert},
			"connections": map[string]any{"current": int64(5)},
			"opLatencies": map[string]any{"writes": map[string]any{"latency": latency, "ops": n}},
		}
	}
	newCkpt := func(state, done int64) map[string]any {
		return map[string]any{"wiredTiger": map[string]any{"checkpoint": map[string]any{
			"progress state": state, "total succeed number of checkpoints": done,
		}}}
	}
	tests := []struct {
		name          string
		before, after Status
		want          map[string]float64
	}{
		{"before missing", Status{Time: t0}, st(1, ops(1, 0, 0)), nil},
		{"after missing", st(0, ops(1, 0, 0)), Status{Time: t0.Add(time.Second)}, nil},
		{
			"plain rates", st(0, ops(100, 1000, 10)), st(2, ops(300, 5000, 30)),
			map[string]float64{"insertPerSec": 100, KeyConnections: 5, KeyWriteLatency: 0.2},
		},
		{
			"counter reset is absent, not negative", st(0, ops(300, 5000, 30)), st(1, ops(10, 100, 2)),
			map[string]float64{KeyConnections: 5},
		},
		{
			"no ops in interval: latency absent", st(0, ops(100, 1000, 10)), st(1, ops(100, 1000, 10)),
			map[string]float64{"insertPerSec": 0, KeyConnections: 5},
		},
		{
			"zero-length interval keeps gauges only", st(1, ops(100, 1000, 10)), st(1, ops(200, 2000, 20)),
			map[string]float64{KeyConnections: 5},
		},
		{
			"section only in after is absent", st(0, map[string]any{}), st(1, ops(100, 1000, 10)),
			map[string]float64{KeyConnections: 5},
		},
		{
			"checkpoint section of newer WiredTiger", st(0, newCkpt(0, 40)), st(1, newCkpt(3, 42)),
			map[string]float64{KeyCheckpointing: 1, KeyCheckpoints: 2},
		},
		{
			"checkpoint idle", st(0, newCkpt(0, 40)), st(1, newCkpt(0, 40)),
			map[string]float64{KeyCheckpointing: 0, KeyCheckpoints: 0},
		},
		{"empty documents", st(0, map[string]any{}), st(1, map[string]any{}), map[string]float64{}},
	}
	for _, tt := range tests {
		got := ServerFigures(tt.before, tt.after)
		if (got == nil) != (tt.want == nil) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
			continue
		}
		sameFigures(t, tt.name, got, tt.want)
	}
}

func ExampleServerFigures() {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	before := Status{Time: t0, Doc: map[string]any{
		"opcounters": map[string]any{"insert": int64(1000)},
		"network":    map[string]any{"bytesIn": int64(0), "bytesOut": int64(0)},
	}}
	after := Status{Time: t0.Add(2 * time.Second), Doc: map[string]any{
		"opcounters": map[string]any{"insert": int64(3000)},
		"network":    map[string]any{"bytesIn": int64(4096), "bytesOut": int64(1024)},
	}}
	f := ServerFigures(before, after)
	fmt.Println(f["insertPerSec"], f[KeyNetIn], f[KeyNetOut])
	_, ok := f[KeyCacheBytes]
	fmt.Println("cache reported:", ok)
	// Output:
	// 1000 2048 512
	// cache reported: false
}

func TestHostFigures(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	cpu := func(user, sys, irq, soft, iowait, steal, idle float64) *CPUTimes {
		return &CPUTimes{User: user, System: sys, IRQ: irq, SoftIRQ: soft, IOWait: iowait, Steal: steal, Idle: idle}
	}
	disk := func(dev string, r, w, rs, ws uint64) *DiskCounters {
		return &DiskCounters{Device: dev, ReadIOs: r, WriteIOs: w, ReadSectors: rs, WriteSectors: ws}
	}
	full := func(secs float64, c *CPUTimes, p *ProcTimes, d *DiskCounters) HostSample {
		return HostSample{Time: t0.Add(time.Duration(secs * float64(time.Second))), Cores: 4, CPU: c, Proc: p, Disk: d}
	}
	b := full(0, cpu(100, 50, 5, 5, 10, 0, 830), &ProcTimes{User: 10, System: 2}, disk("vda", 1000, 2000, 8000, 16000))
	// Two seconds on 4 cores: 8 CPU seconds in all.
	a := full(2, cpu(102, 52.5, 5.5, 5.5, 10.8, 0.4, 831.3), &ProcTimes{User: 12, System: 2.4},
		disk("vda", 1100, 2300, 8800, 26000))
	tests := []struct {
		name          string
		before, after HostSample
		want          map[string]float64
	}{
		{"all parts", b, a, map[string]float64{
			KeyCPUUser: 25, KeyCPUKernel: 43.75, KeyCPUIOWait: 10, KeyCPUSteal: 5,
			KeyProcCPUUser: 25, KeyProcCPUKernel: 5,
			KeyDiskIOPS: 200, KeyDiskRead: 800 * 512 / 2, KeyDiskWrite: 10000 * 512 / 2,
		}},
		{"cpu unreadable at start", full(0, nil, b.Proc, b.Disk), a, map[string]float64{
			KeyProcCPUUser: 25, KeyProcCPUKernel: 5,
			KeyDiskIOPS: 200, KeyDiskRead: 800 * 512 / 2, KeyDiskWrite: 10000 * 512 / 2,
		}},
		{"no disk device", full(0, b.CPU, b.Proc, nil), full(2, a.CPU, a.Proc, nil), map[string]float64{
			KeyCPUUser: 25, KeyCPUKernel: 43.75, KeyCPUIOWait: 10, KeyCPUSteal: 5,
			KeyProcCPUUser: 25, KeyProcCPUKernel: 5,
		}},
		{"process restarted, disk counters wrapped", b,
			full(2, a.CPU, &ProcTimes{User: 1, System: 0.1}, disk("vda", 10, 2300, 8800, 26000)),
			map[string]float64{KeyCPUUser: 25, KeyCPUKernel: 43.75, KeyCPUIOWait: 10, KeyCPUSteal: 5}},
		{"disk device changed", b, full(2, nil, nil, disk("vdb", 1100, 2300, 8800, 26000)), nil},
		{"cores unknown", full(0, nil, b.Proc, nil), HostSample{Time: a.Time, Proc: a.Proc}, nil},
		{"no time elapsed", b, full(0, b.CPU, a.Proc, a.Disk), nil},
		{"nothing read", HostSample{Time: t0}, HostSample{Time: a.Time}, nil},
	}
	for _, tt := range tests {
		got := HostFigures(tt.before, tt.after)
		if (got == nil) != (tt.want == nil) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
			continue
		}
		sameFigures(t, tt.name, got, tt.want)
	}
}

// TestSetCPU: a server pinned to one CPU of four has that CPU's busy share.
func TestSetCPU(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := HostSample{Time: t0, ProcSet: &CPUSet{CPUs: 1, Times: CPUTimes{User: 10, Idle: 10}}}
	a := HostSample{Time: t0.Add(time.Second), ProcSet: &CPUSet{CPUs: 1, Times: CPUTimes{User: 10.9, System: 0.05, Idle: 10.05}}}
	got := HostFigures(b, a)
	if got[KeyProcCPUs] != 1 || math.Abs(got[KeyProcSetBusy]-95) > 1e-9 {
		t.Errorf("set figures %v, want 1 CPU 95%% busy", got)
	}
	// A CPU busy the whole interval whose idle ticks moved back to
	// iowait's reads a tick less idle: it is 100% busy, and its count kept.
	busy := HostSample{Time: a.Time, ProcSet: &CPUSet{CPUs: 1, Times: CPUTimes{User: 11, Idle: 9.99, IOWait: 0}}}
	got = HostFigures(b, busy)
	if got[KeyProcCPUs] != 1 || got[KeyProcSetBusy] != 100 {
		t.Errorf("set figures of a busy CPU whose idle went back a tick: %v, want 1 CPU 100%% busy", got)
	}
	a.ProcSet.CPUs = 2 // the affinity changed: no figure
	if got := HostFigures(b, a); got != nil {
		t.Errorf("figures across an affinity change: %v", got)
	}
}

// A checkpoint's duration is taken when it completes, for 7.0's and
// 8.0's names: when the running flag falls, when the most recent time
// changes, or when one started and ended within the interval; never at
// its start, when the most recent time is the previous checkpoint's.
func TestCheckpointDurationAtCompletion(t *testing.T) {
	for _, v8 := range []bool{false, true} {
		run, recent, count := "wiredTiger.transaction.transaction checkpoint currently running", "wiredTiger.transaction.transaction checkpoint most recent time (msecs)", "wiredTiger.transaction.transaction checkpoints"
		if v8 {
			run, recent, count = "wiredTiger.checkpoint.progress state", "wiredTiger.checkpoint.most recent time (msecs)", "wiredTiger.checkpoint.total succeed number of checkpoints"
		}
		doc := func(running, ms, n int64) Status {
			return Status{Doc: map[string]any{run: running, recent: ms, count: n}}
		}
		at := func(s Status, sec int) Status { s.Time = time.Unix(int64(sec), 0); return s }
		for _, c := range []struct {
			name          string
			before, after Status
			want          float64
			ok            bool
		}{
			{"starts: the previous one's time", doc(0, 2235, 10), doc(1, 2235, 11), 0, false},
			{"runs on", doc(1, 2235, 11), doc(1, 2235, 11), 0, false},
			{"the flag falls", doc(1, 2235, 11), doc(0, 8076, 11), 8076, true},
			{"the flag falls, the same time as the last", doc(1, 2235, 11), doc(0, 2235, 11), 2235, true},
			{"starts and ends within", doc(0, 2235, 11), doc(0, 40, 12), 40, true},
			{"ends and the next starts", doc(1, 2235, 11), doc(1, 8128, 12), 8128, true},
		} {
			got, ok := ServerFigures(at(c.before, 0), at(c.after, 1))[KeyCheckpointMs]
			if ok != c.ok || got != c.want {
				t.Errorf("v8 %v, %s: %v (%v), want %v (%v)", v8, c.name, got, ok, c.want, c.ok)
			}
		}
	}
}

// A CPU state's share of an interval is at most 100%, even when it took
// all of it and the cumulative times are large: the interval's total is
// the sum of each state's own difference, so the share is exact (a
// total taken as the difference of two large sums read 100.0000000006%
// on a machine with both cores busy).
func TestHostCPUShareOfABusyIntervalIsAHundred(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		// Uptime-sized times in seconds, read at 100 ticks a second.
		tick := func(max float64) float64 { return float64(int64(rng.Float64()*max*100)) / 100 }
		b := &CPUTimes{User: tick(1e6), Nice: tick(1e3), System: tick(1e5), Idle: tick(1e7), IOWait: tick(1e4), IRQ: tick(1e3), SoftIRQ: tick(1e4), Steal: tick(1e4)}
		a := *b
		a.User += tick(10)
		if a.User == b.User {
			continue
		}
		k := *b // an interval of kernel time alone, in three states
		k.System += tick(10)
		k.IRQ += tick(1)
		k.SoftIRQ += tick(1)
		if f := HostFigures(HostSample{Time: t0, Cores: 2, CPU: b}, HostSample{Time: t0.Add(time.Second), Cores: 2, CPU: &k}); k.System != b.System && f[KeyCPUKernel] != 100 {
			t.Fatalf("kernel share %v of an interval of kernel time alone (%+v → %+v): want 100", f[KeyCPUKernel], *b, k)
		}
		f := HostFigures(HostSample{Time: t0, Cores: 2, CPU: b, ProcSet: &CPUSet{CPUs: 2, Times: *b}},
			HostSample{Time: t0.Add(time.Second), Cores: 2, CPU: &a, ProcSet: &CPUSet{CPUs: 2, Times: a}})
		if f[KeyCPUUser] != 100 {
			t.Fatalf("user share %v of an interval of user time alone (%+v → %+v): want 100", f[KeyCPUUser], *b, a)
		}
		if f[KeyProcSetBusy] != 100 {
			t.Fatalf("busy share %v of the server's CPUs, an interval of user time alone (%+v → %+v): want 100", f[KeyProcSetBusy], *b, a)
		}
	}
}
