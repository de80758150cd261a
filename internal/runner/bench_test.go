package runner_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/validity"
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

// scenario builds a validated scenario from flag-style settings.
func scenario(t *testing.T, db string, flags map[string]string, params ...string) *spec.Scenario {
	t.Helper()
	reg := builtin.Registry()
	sc := &spec.Scenario{Workload: "kv"}
	for k, v := range flags {
		if err := sc.SetFlag(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := sc.SetFlag("database", db); err != nil {
		t.Fatal(err)
	}
	for _, p := range params {
		if err := sc.SetParam(reg, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := sc.Validate(reg); err != nil {
		t.Fatal(err)
	}
	return sc
}

func run(t *testing.T, sc *spec.Scenario, target runner.Target) *result.Doc {
	t.Helper()
	d, err := runner.Run(context.Background(), runner.Options{Scenario: sc, Registry: builtin.Registry(), Target: target, ToolVersion: "test"})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Cleanup(func() { dropOwned(t, target.URI, sc.Database) })
	return d
}

func dropOwned(t *testing.T, uri, db string) {
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Errorf("cleanup connect: %v", err)
		return
	}
	defer func() { _ = c.Disconnect(context.Background()) }()
	if err := workload.DropOwned(context.Background(), c.Database(db)); err != nil {
		t.Errorf("cleanup: %v", err)
	}
}

// TestOpenLoopScheduleEndToEnd: at 1000/s for 20s through the real
// runner and server, the schedule plans exactly 20,000 operations for the
// measured phase and accounts for every one (completed, failed, dropped or
// abandoned); none is dropped. Those are what the engine controls. What the
// server achieved second by second depends on the machine: it is logged,
// not asserted, so a stall of a shared machine shows in the log without
// failing the test (the engine's own per-interval schedule is checked in
// internal/engine).
func TestOpenLoopScheduleEndToEnd(t *testing.T) {
	target := runner.Target{Target: spec.Target{URI: testenv.URI(t)}, Kind: "test"}
	sc := scenario(t, testenv.DBName(t),
		map[string]string{"rate": "1000/s", "duration": "20s", "warmup": "3s"},
		"records=2000", "readPercent=90")
	d := run(t, sc, target)
	var done int64
	for _, op := range d.Ops {
		done += op.Count + op.Errors.Total
	}
	s := d.Schedule
	if s.Intended != 20000 {
		t.Errorf("intended: got %d, want exactly 20,000 (1000/s × 20s)", s.Intended)
	}
	if got := done + s.Dropped + s.Abandoned; got != s.Intended {
		t.Errorf("accounting: %d done + %d dropped + %d abandoned = %d, want the %d intended", done, s.Dropped, s.Abandoned, got, s.Intended)
	}
	if s.Dropped != 0 {
		t.Errorf("dropped %d: want none at a rate the server sustains (max lag %.1f ms)", s.Dropped, s.MaxLag)
	}
	for i, iv := range d.Intervals {
		var n int64
		for _, op := range iv.Ops {
			n += op.Count + op.Errors.Total
		}
		if iv.Seconds >= 0.99 && math.Abs(float64(n)/iv.Seconds-1000) > 50 {
			t.Logf("interval %d completed %.0f ops/s (the server's, not the schedule's): %s", i, float64(n)/iv.Seconds, around(d.Intervals, i))
		}
	}
	t.Logf("achieved %.1f ops/s; late %d; max lag %.1f ms; client-bound %v %v", s.AchievedRate, s.Late, s.MaxLag, d.Client.ClientBound, d.Client.Reasons)
}

// around describes the intervals next to i, so a miss shows whether the
// client fell behind (lag) or the server stalled (operations completing
// late, in the next interval).
func around(ivs []result.Interval, i int) string {
	var parts []string
	for j := max(0, i-1); j < min(len(ivs), i+2); j++ {
		var n int64
		for _, op := range ivs[j].Ops {
			n += op.Count + op.Errors.Total
		}
		parts = append(parts, fmt.Sprintf("#%d %.3fs %d ops max lag %.1fms server %v", j, ivs[j].Seconds, n, ivs[j].MaxLag, ivs[j].Server))
	}
	return strings.Join(parts, "; ")
}

// TestCoordinatedOmission freezes the server process for one second in
// the middle of a 500/s run: latency from the intended start must show
// it (p99 ≥ 500ms), service time must not, and the intervals around the
// freeze must show it too.
func TestCoordinatedOmission(t *testing.T) {
	h := testenv.Own(t, server.Options{})
	target := runner.Target{Target: spec.Target{URI: h.URI}, Kind: "test"}
	sc := scenario(t, "mbtest_co", map[string]string{"rate": "500/s", "duration": "8s", "warmup": "1s", "threads": "8"},
		"records=1000", "readPercent=100")
	var frozeAt time.Time
	go func() {
		time.Sleep(5 * time.Second) // warm-up, setup and 3-4s of measurement
		frozeAt = time.Now()
		if err := h.Freeze(); err != nil {
			t.Errorf("freeze: %v", err)
		}
		time.Sleep(time.Second)
		if err := h.Thaw(); err != nil {
			t.Errorf("thaw: %v", err)
		}
	}()
	d := run(t, sc, target)
	read := d.Op("read")
	if read == nil || read.Latency.P99 == nil || read.Service.P99 == nil {
		t.Fatalf("no read latency recorded: %+v", read)
	}
	lat, svc := *read.Latency.P99, *read.Service.P99
	t.Logf("latency p99 %.1f ms, service p99 %.1f ms, late %d", lat, svc, d.Schedule.Late)
	if lat < 500 {
		t.Errorf("latency p99: got %.1f ms, want at least 500 ms", lat)
	}
	if svc > lat/5 {
		t.Errorf("service-time p99: got %.1f ms, want far below latency p99 %.1f ms", svc, lat)
	}
	if frozeAt.IsZero() || !frozeAt.After(d.Start) || !frozeAt.Before(d.End) {
		t.Fatalf("the freeze at %v fell outside the measured phase %v–%v", frozeAt, d.Start, d.End)
	}
	worst := 0.0
	for _, iv := range d.Intervals {
		end := iv.Start.Add(time.Duration(iv.Seconds * float64(time.Second)))
		near := end.After(frozeAt) && iv.Start.Before(frozeAt.Add(2*time.Second))
		if p := iv.Ops[0].Latency.Max; near && p != nil {
			worst = math.Max(worst, *p)
		}
	}
	if worst < 500 {
		t.Errorf("intervals around the freeze: worst latency %.1f ms, want at least 500 ms", worst)
	}
}

// TestResultDocument checks the schema's fields and that the stored
// histograms decode to the summary's percentiles.
func TestResultDocument(t *testing.T) {
	h := testenv.Own(t, server.Options{})
	target := runner.Target{Target: spec.Target{URI: h.URI}, Kind: "embedded-" + h.Kind, PID: h.PID, DataDir: h.DataDir}
	sc := scenario(t, "mbtest_doc", map[string]string{"threads": "4", "duration": "3s", "label": "doc-test"},
		"records=500", "docSize=2KB")
	d := run(t, sc, target)

	if v, _ := d.ID.Get("testname"); v != "kv" {
		t.Errorf("_id.testname: got %v want kv", v)
	}
	if d.Duration < 2900 || d.Duration > 4000 {
		t.Errorf("duration: got %.0f ms want about 3000", d.Duration)
	}
	if d.Variant["docSizeKB"] != 2.0 || d.TestConfig["workload"] != "kv" {
		t.Errorf("variant/test_config: got %v / %v", d.Variant, d.TestConfig)
	}
	for name, st := range map[string]map[string]any{"before_status": d.BeforeStatus, "after_status": d.AfterStatus} {
		if _, ok := st["opcounters"]; !ok {
			t.Errorf("%s: no opcounters in %v", name, keys(st))
		}
	}
	for _, name := range []string{result.CPUUser, result.CPUKernel, result.CPUIOWait, result.ProcessCPUUser} {
		if s := d.Metrics.Series(name); s == nil || len(s.DataPoints) < 2 {
			t.Errorf("metrics %s: got %v, want a series over the phase", name, s)
		}
	}
	if s := d.Metrics.Series(result.OpTimeReads); s != nil {
		t.Errorf("%s: got a series, but this server reports no opLatencies", result.OpTimeReads)
	}
	if d.Client.CPUPerOp == nil || *d.Client.CPUPerOp <= 0 {
		t.Errorf("client CPU per op: got %v", d.Client.CPUPerOp)
	}
	if d.Target.ServerVersion == "" || d.Generator.DriverVersion == "" || len(d.Intervals) < 3 {
		t.Errorf("fingerprint/intervals: version %q driver %q intervals %d", d.Target.ServerVersion, d.Generator.DriverVersion, len(d.Intervals))
	}
	for _, op := range d.Ops {
		checkHistogram(t, op.Name, op.Latency)
	}
	// The embedded server is a replica set of one: its state is read at
	// every sample, and the run is judged on it.
	var states []result.Series
	for _, s := range d.Metrics.Members {
		if s.Name == result.MemberState {
			states = append(states, s)
		}
	}
	if len(states) != 1 || states[0].Role != "primary" || len(states[0].DataPoints) < 3 {
		t.Errorf("member states %+v: want the one member's, primary, a point per sample", states)
	}
	for _, r := range validity.Judge(d, validity.Default()).Rules {
		if r.Rule == validity.MemberState && (r.Outcome != result.Valid || !strings.Contains(r.Evidence, "1 member(s) kept their state")) {
			t.Errorf("%s: %s %q, want valid, the one member kept its state", r.Rule, r.Outcome, r.Evidence)
		}
	}
}

func checkHistogram(t *testing.T, name string, dist result.Dist) {
	t.Helper()
	h, err := hist.FromDist(dist)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if h.TotalCount() != dist.Count {
		t.Errorf("%s: histogram holds %d values, summary says %d", name, h.TotalCount(), dist.Count)
	}
	for p, want := range map[float64]*float64{50: dist.P50, 95: dist.P95, 99: dist.P99, 99.9: dist.P999} {
		if got := hist.Percentile(h, p); got == nil || want == nil || *got != *want {
			t.Errorf("%s p%v: decoded %v, summary %v", name, p, deref(got), deref(want))
		}
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestLongRunKeepsABoundedResult: a run of more intervals than its
// result keeps (60 intervals of 100 ms, 20 kept) coarsens them as it
// goes, on the nested ladder (100 ms, 200 ms, 1 s), in constant memory:
// the document holds at most 20 intervals, says its resolution (1 s of
// the run's 60 intervals of 100 ms), every operation is in an interval,
// the intervals' histograms merge to the run's, bucket for bucket, each
// interval has the host's figures over its span, and the telemetry
// series hold one reading per kept interval.
func TestLongRunKeepsABoundedResult(t *testing.T) {
	h := testenv.Own(t, server.Options{})
	target := runner.Target{Target: spec.Target{URI: h.URI}, Kind: "embedded-" + h.Kind, PID: h.PID, DataDir: h.DataDir}
	sc := scenario(t, "mbtest_long", map[string]string{"threads": "2", "duration": "6s", "interval": "100ms", "rate": "300"},
		"records=200", "docSize=1KB")
	d, err := runner.Run(context.Background(), runner.Options{Scenario: sc, Registry: builtin.Registry(), Target: target,
		ToolVersion: "test", MaxPoints: 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dropOwned(t, target.URI, sc.Database) })
	r := d.Resolution
	if len(d.Intervals) > 20 || r == nil || r.IntervalSec != 1 || r.FullIntervalSec != 0.1 || r.FullIntervals < 59 || r.FullIntervals > 61 {
		t.Fatalf("%d intervals, resolution %+v: want at most 20 of 1 s, from about 60 of 100 ms", len(d.Intervals), r)
	}
	for _, op := range d.Ops {
		whole, merged := hist.New(), hist.New()
		if err := hist.AddDist(whole, op.Latency); err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, iv := range d.Intervals {
			for _, o := range iv.Ops {
				if o.Name == op.Name {
					n += o.Count
					if err := hist.AddDist(merged, o.Latency); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		if n != op.Count || !merged.Equals(whole) {
			t.Errorf("%s: intervals hold %d operations (histograms %d), the run %d: want the same, bucket for bucket", op.Name, n, merged.TotalCount(), op.Count)
		}
	}
	for i, iv := range d.Intervals {
		if iv.Host == nil && i < len(d.Intervals)-1 {
			t.Errorf("interval %d (%s, %gs): no host figures", i, iv.Start.Format(time.StampMilli), iv.Seconds)
		}
	}
	s := d.Metrics.Series(result.CPUUser)
	if s == nil || len(s.DataPoints) > 22 || len(s.DataPoints) < 5 || s.GranularitySec != 1 {
		t.Errorf("host CPU series: %v; want about one reading a second, at most 22", s)
	}
}
