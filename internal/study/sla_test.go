package study

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

var f = result.F

// sla20 is the write-up's SLA: p99 ≤ 20 ms.
var sla20 = SLA{P99: 20 * time.Millisecond, MinRateFraction: 0.99}

// passing returns a run at 5,000 TPS that meets sla20, for cases to alter.
func passing() Run {
	return Run{Mode: "per-op", TPS: 5000, P50: f(3), P95: f(8), P99: f(12), P999: f(30), Max: f(60), Achieved: 4999}
}

func TestParseSLA(t *testing.T) {
	tests := []struct {
		p99, p95, p999 string
		want           SLA
		err            string
	}{
		{"20ms", "", "", SLA{P99: 20 * time.Millisecond, MinRateFraction: 0.99}, ""},
		{"20ms", "10ms", "1.5s", SLA{P99: 20 * time.Millisecond, P95: 10 * time.Millisecond, P999: 1500 * time.Millisecond, MinRateFraction: 0.99}, ""},
		{"", "10ms", "", SLA{}, "p99: an SLA needs a p99 bound"},
		{"20", "", "", SLA{}, `p99: "20" is not a duration`},
		{"20ms", "-1ms", "", SLA{}, `p95: "-1ms": want a positive duration`},
		{"20ms", "", "x", SLA{}, `p999: "x" is not a duration`},
	}
	for _, tt := range tests {
		got, err := ParseSLA(tt.p99, tt.p95, tt.p999)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseSLA(%q, %q, %q): got error %v, want one containing %q", tt.p99, tt.p95, tt.p999, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseSLA(%q, %q, %q) = %+v, %v; want %+v, nil", tt.p99, tt.p95, tt.p999, got, err, tt.want)
		}
	}
}

func TestJudge(t *testing.T) {
	strict := SLA{P99: 20 * time.Millisecond, P95: 8 * time.Millisecond, P999: 30 * time.Millisecond}
	tests := []struct {
		name string
		edit func(*Run)
		sla  SLA
		want []string // nil = pass
	}{
		{"within", func(*Run) {}, sla20, nil},
		{"p99 exactly at the bound", func(r *Run) { r.P99 = f(20) }, sla20, nil},
		{"p99 just above", func(r *Run) { r.P99 = f(20.01) }, sla20, []string{"p99 20.0 ms > 20 ms"}},
		{"p99 over", func(r *Run) { r.P99 = f(24.1) }, sla20, []string{"p99 24.1 ms > 20 ms"}},
		{"p99 missing", func(r *Run) { r.P99 = nil }, sla20, []string{"no p99 recorded"}},
		{"no latency", func(r *Run) { r.P50, r.P95, r.P99, r.P999, r.Max = nil, nil, nil, nil, nil }, sla20, []string{"no latency recorded", "no transaction completed"}}, // "errors == 0" has no transaction to count
		{"unchecked p999 may be missing", func(r *Run) { r.P999 = nil }, sla20, nil},
		{"p95 and p999 exactly at bounds", func(*Run) {}, strict, nil},
		{"p95 and p999 over", func(r *Run) { r.P95, r.P999 = f(8.5), f(31) }, strict,
			[]string{"p95 8.50 ms > 8 ms", "p999 31.0 ms > 30 ms"}},
		{"rate exactly 99%", func(r *Run) { r.Achieved = 4950 }, sla20, nil},
		{"rate 98.9%", func(r *Run) { r.Achieved = 4945 }, sla20, []string{"achieved 4,945/s < 99% of 5,000/s"}},
		{"rate just under shows rounded down", func(r *Run) { r.Achieved = 4949.9 }, sla20, []string{"achieved 4,949/s < 99% of 5,000/s"}},
		{"default rate fraction", func(r *Run) { r.Achieved = 4945 }, SLA{P99: 20 * time.Millisecond}, []string{"achieved 4,945/s < 99% of 5,000/s"}},
		{"one failed", func(r *Run) { r.Failed = 1 }, sla20, []string{"1 transaction failed"}},
		{"several reasons", func(r *Run) { r.P99, r.Achieved, r.Failed = f(346), 4870, 3 }, sla20,
			[]string{"p99 346 ms > 20 ms", "achieved 4,870/s < 99% of 5,000/s", "3 transactions failed"}},
		{"partial", func(r *Run) { r.Partial = true }, sla20, []string{"run stopped early"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := passing()
			tt.edit(&r)
			got := Judge(r, tt.sla)
			if got.Pass != (tt.want == nil) || !slices.Equal(got.Reasons, tt.want) {
				t.Errorf("Judge = %+v, want pass=%v reasons %q", got, tt.want == nil, tt.want)
			}
		})
	}
}

func TestSLAString(t *testing.T) {
	s := SLA{P99: 20 * time.Millisecond, P95: 7500 * time.Microsecond, MinRateFraction: 0.995}
	want := "p95 ≤ 7.5 ms, p99 ≤ 20 ms, ≥ 99.5% of the target rate, no failed transactions"
	if got := s.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// withP99 returns runs of mode at tps with the given p99s, each at its
// target rate, other percentiles in proportion.
func withP99(mode string, tps float64, p99s ...float64) []Run {
	var runs []Run
	for i, p := range p99s {
		r := passing()
		r.Mode, r.TPS, r.Rep, r.Achieved = mode, tps, i, tps
		r.P50, r.P95, r.P99, r.P999, r.Max = f(p*0.3), f(p*0.8), f(p), f(p*1.5), f(p*4)
		runs = append(runs, r)
	}
	return runs
}

func TestSummarize(t *testing.T) {
	runs := withP99("client-bulk", 5000, 9.8, 9.1, 12.5, 9.6)
	runs = append(runs, withP99("per-op", 6000, 24)...)
	runs = append(runs, withP99("per-op", 5000, 7.53, 7.2, 11.7, 6.9, 8.1)...)
	runs[2].P99 = nil // a client-bulk run without a p99: counted, failed, not in the stats
	got := Summarize(runs, sla20)
	want := []Summary{
		{Mode: "per-op", TPS: 5000, Runs: 5, Passed: 5, P99Median: f(7.53), P99Stddev: f(1.9597), P99Max: f(11.7)},
		{Mode: "client-bulk", TPS: 5000, Runs: 4, Passed: 3, P99Median: f(9.6), P99Stddev: f(0.3606), P99Max: f(9.8)},
		{Mode: "per-op", TPS: 6000, Runs: 1, Passed: 0, P99Median: f(24), P99Max: f(24)},
	}
	if len(got) != len(want) {
		t.Fatalf("Summarize: got %d summaries %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Mode != w.Mode || g.TPS != w.TPS || g.Runs != w.Runs || g.Passed != w.Passed ||
			!near(g.P99Median, w.P99Median) || !near(g.P99Stddev, w.P99Stddev) || !near(g.P99Max, w.P99Max) {
			t.Errorf("summary %d: got %s, want %s", i, show(g), show(w))
		}
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		xs   []float64
		want *float64
	}{
		{nil, nil},
		{[]float64{5}, f(5)},
		{[]float64{4, 1, 3, 2}, f(2.5)},
		{[]float64{7.53, 7.2, 11.7, 6.9, 8.1}, f(7.53)},
	}
	for _, tt := range tests {
		if got := median(tt.xs); !near(got, tt.want) {
			t.Errorf("median(%v) = %s, want %s", tt.xs, ptr(got), ptr(tt.want))
		}
	}
}

func TestRunOf(t *testing.T) {
	start := time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)
	d := &result.Doc{
		RunID: "r1", TestName: "txn_sla", Repetition: 2, Start: start,
		Variant:  map[string]any{"mode": "client-bulk", "targetRate": float64(5000), "stage": "2.5 KB docs"},
		Schedule: result.Schedule{AchievedRate: 4998.2},
		Ops: []result.OpStats{{Name: "txn", Errors: result.Errors{Total: 2},
			Latency: result.Dist{P50: f(2.1), P95: f(5.5), P99: f(9.8), P999: f(30), Max: f(80)}}},
		TestResults: result.TestResults{Counts: result.Counts{Txns: result.Ptr(int64(300000)), Retries: result.Ptr(int64(41)),
			CommitRetries: result.Ptr(int64(3)), Aborts: result.Ptr(int64(44))}, ServerOpsPerOp: result.Ptr(2.0)},
	}
	got, err := RunOf(d)
	if err != nil {
		t.Fatalf("RunOf: got error %v, want nil", err)
	}
	want := Run{RunID: "r1", Mode: "client-bulk", Stage: "2.5 KB docs", TPS: 5000, Rep: 2, Start: start,
		P50: f(2.1), P95: f(5.5), P99: f(9.8), P999: f(30), Max: f(80), Achieved: 4998.2,
		Failed: 2, Retries: 41, CommitRetries: 3, Aborts: 44, OpsPerTxn: f(2)}
	if show(got) != show(want) {
		t.Errorf("RunOf:\n got %s\nwant %s", show(got), show(want))
	}
}

func TestRunOfTargetRateFallback(t *testing.T) {
	d := &result.Doc{TestName: "txn_sla", Variant: map[string]any{"mode": "per-op", "targetRate": int32(6000)}}
	if r, err := RunOf(d); err != nil || r.TPS != 6000 || r.OpsPerTxn != nil || r.hasLatency() {
		t.Errorf("RunOf(int32 target, no ops) = %+v, %v; want TPS 6000, no latency, nil", r, err)
	}
	d.Variant = map[string]any{"mode": "per-op"}
	d.Schedule.TargetRate = f(7000)
	if r, err := RunOf(d); err != nil || r.TPS != 7000 {
		t.Errorf("RunOf(schedule target) = %+v, %v; want TPS 7000, nil", r, err)
	}
}

func TestRunOfErrors(t *testing.T) {
	ok := map[string]any{"mode": "per-op", "targetRate": 5000.0}
	tests := []struct {
		name string
		doc  result.Doc
		want string
	}{
		{"other test", result.Doc{RunID: "r", TestName: "ycsb-a", Variant: ok}, `run r: test "ycsb-a" is not txn_sla`},
		{"no mode", result.Doc{RunID: "r", TestName: "txn_sla", Variant: map[string]any{"targetRate": 5000.0}}, "run r: variant has no mode"},
		{"no rate", result.Doc{RunID: "r", TestName: "txn_sla", Variant: map[string]any{"mode": "per-op"}}, "run r: no target rate"},
		{"rate not a number", result.Doc{RunID: "r", TestName: "txn_sla", Variant: map[string]any{"mode": "per-op", "targetRate": "5k"}},
			"run r: variant.targetRate: 5k is a string, not a number"},
	}
	for _, tt := range tests {
		if _, err := RunOf(&tt.doc); err == nil || err.Error() != tt.want {
			t.Errorf("%s: RunOf error = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 999.6: "1,000", 5000: "5,000", 1234567: "1,234,567", -4200: "-4,200", 12.4: "12"} {
		if got := thousands(v); got != want {
			t.Errorf("thousands(%v) = %q, want %q", v, got, want)
		}
	}
}

// near reports whether two optional numbers are both nil or agree to 1e-4.
func near(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return math.Abs(*a-*b) < 1e-4
}
