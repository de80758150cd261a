package diagnosis

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

// doc builds a small run: closed loop, 16 workers, 10 one-second
// intervals of 1000 successful inserts with a 2 ms mean latency, on a
// server on this 2-core host.
func doc(mod func(*result.Doc)) *result.Doc {
	d := &result.Doc{Duration: 10000, Target: result.Target{SameHost: true}, Generator: result.Generator{Cores: 2}}
	d.Schedule = result.Schedule{Mode: "closed", Workers: 16, AchievedRate: 1000}
	d.Client = result.Client{CPUPercent: 20, Cores: 2}
	op := func(n int64, p99 float64) result.OpStats {
		return result.OpStats{Name: "insert", Count: n, Latency: result.Dist{Count: n, Mean: result.F(2), P99: result.F(p99)}}
	}
	d.Ops = []result.OpStats{op(10000, 6)}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 10 {
		d.Intervals = append(d.Intervals, result.Interval{Start: t0.Add(time.Duration(i) * time.Second), Seconds: 1,
			Ops: []result.OpStats{op(1000, 5)}, Host: map[string]float64{}, Server: map[string]float64{}})
	}
	if mod != nil {
		mod(d)
	}
	return d
}

func host(d *result.Doc, key string, v float64) {
	for i := range d.Intervals {
		d.Intervals[i].Host[key] = v
	}
}

func load(t *testing.T, name string) *result.Doc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var d result.Doc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &d
}

func find(d *result.Diagnosis, rule string) (result.Finding, bool) {
	for _, f := range append(append([]result.Finding{}, d.Candidates...), d.NotJudged...) {
		if f.Rule == rule {
			return f, true
		}
	}
	return result.Finding{}, false
}

func TestRules(t *testing.T) {
	type want struct {
		limit     string // the limiting rule, or Nothing
		saturated []string
		missing   []string
		evidence  map[string]string // rule → substring of its evidence
	}
	cases := []struct {
		name   string
		doc    *result.Doc
		limits Limits
		want   want
	}{
		{"client CPU near its cores", doc(func(d *result.Doc) {
			d.Client = result.Client{CPUPercent: 96, Cores: 1, CPUPerOp: result.F(12)}
			host(d, keyCPUUser, 60)
		}), Limits{}, want{limit: "client-cpu", saturated: []string{"client-cpu"},
			evidence: map[string]string{"client-cpu": "client CPU 96% of its 1 core"}}},
		{"client fell behind with workers free", doc(func(d *result.Doc) {
			d.Schedule = result.Schedule{Mode: "open", Workers: 64, TargetRate: result.F(5000), AchievedRate: 3000, Intended: 50000, Late: 20000}
			for i := range d.Intervals {
				d.Intervals[i].PeakInFlight = result.Ptr(int64(3))
			}
		}), Limits{}, want{limit: "client-schedule", saturated: []string{"client-schedule"},
			evidence: map[string]string{"client-schedule": "at most 3 of 64 workers in flight"}}},
		{"schedule behind with every worker in flight", doc(func(d *result.Doc) {
			d.Schedule = result.Schedule{Mode: "open", Workers: 8, TargetRate: result.F(5000), AchievedRate: 3000, Intended: 50000, Late: 20000}
			for i := range d.Intervals {
				d.Intervals[i].PeakInFlight = result.Ptr(int64(8))
			}
		}), Limits{}, want{limit: "in-flight-cap", saturated: []string{"in-flight-cap"},
			evidence: map[string]string{"client-schedule": "the server's latency, not the client"}}},
		{"hot documents", doc(func(d *result.Doc) {
			d.TestResults.Retries = result.Ptr(int64(5000))
			d.TestResults.RetryCauses = map[string]int64{"WriteConflict": 5000}
			d.Ops[0].Errors = result.Errors{Total: 2, WriteConflict: 2}
		}), Limits{}, want{limit: "write-conflicts", saturated: []string{"write-conflicts"},
			evidence: map[string]string{"write-conflicts": "5000 retries (WriteConflict 5000)"}}},
		{"server pinned to one of two cores", doc(func(d *result.Doc) {
			host(d, keyProcUser, 40)
			host(d, keyProcKernel, 8)
			host(d, keyProcCPUs, 1)
			host(d, keyCPUUser, 60)
		}), Limits{}, want{limit: "server-cpu", saturated: []string{"server-cpu"},
			evidence: map[string]string{"server-cpu": "server process 0.96 of 1 core (96%)"}}},
		{"server's CPU set taken by others", doc(func(d *result.Doc) {
			host(d, keyProcUser, 30)
			host(d, keyProcCPUs, 1)
			host(d, keyProcSetBusy, 99)
		}), Limits{}, want{limit: "server-cpu", saturated: []string{"server-cpu"},
			evidence: map[string]string{"server-cpu": "its CPUs 99% busy"}}},
		{"server CPU from the target's description", doc(func(d *result.Doc) {
			d.Target.SameHost, d.Generator.Cores = false, 8
			d.Metrics.Measurements = []result.Series{series(result.ProcessCPUUser, 50), series(result.ProcessCPUKernel, 45)}
		}), Limits{}, want{limit: "server-cpu", saturated: []string{"server-cpu"}}},
		{"disk throughput against a stated ceiling", doc(func(d *result.Doc) {
			host(d, keyDiskWrite, 212<<20)
			host(d, keyDiskRead, 0)
			host(d, keyDiskIOPS, 1000)
			host(d, keyCPUUser, 41)
		}), Limits{DiskBytesPerSec: 225 << 20, DiskIOPS: 3000}, want{limit: "disk-throughput", saturated: []string{"disk-throughput"},
			evidence: map[string]string{"disk-throughput": "disk 212 of 225 MB/s (94.2%)", "disk-iops": "1000 of 3000 IOPS (33.3%)"}}},
		{"disk throughput without a ceiling", doc(func(d *result.Doc) { host(d, keyDiskWrite, 212<<20) }), Limits{},
			want{limit: Nothing, missing: []string{"disk-throughput", "disk-iops"},
				evidence: map[string]string{"disk-throughput": "could not judge: a disk throughput ceiling (state one with --disk-limit); measured 212 MB/s"}}},
		{"IOPS against the target's description", doc(func(d *result.Doc) {
			host(d, keyDiskIOPS, 2900)
			d.Variant = map[string]any{"instance": map[string]any{"atlasIOPS": int64(3000)}}
		}), Limits{}, want{limit: "disk-iops", saturated: []string{"disk-iops"},
			evidence: map[string]string{"disk-iops": "ceiling from variant.instance.atlasIOPS"}}},
		{"network against a stated link", doc(func(d *result.Doc) {
			for i := range d.Intervals {
				d.Intervals[i].Server[keyNetOut] = 120e6
				d.Intervals[i].Server[keyNetIn] = 10e6
			}
		}), Limits{LinkBytesPerSec: 125e6}, want{limit: "network", saturated: []string{"network"}}},
		{"host CPU taken by other processes", doc(func(d *result.Doc) {
			host(d, keyCPUUser, 80)
			host(d, keyCPUKernel, 18)
			host(d, keyProcUser, 10)
		}), Limits{}, want{limit: "host-cpu", saturated: []string{"host-cpu"},
			evidence: map[string]string{"host-cpu": "other processes 68%"}}},
		{"nothing saturated, closed loop", doc(nil), Limits{}, want{limit: Nothing,
			missing: []string{"server-cpu", "disk-throughput", "cache", "checkpoints", "tickets", "replication", "network", "in-flight-cap", "host-cpu"}}},
		{"WiredTiger cache pressure (constructed)", load(t, "wt-cache-pressure.json"), Limits{}, want{limit: "cache", saturated: []string{"cache"},
			evidence: map[string]string{"cache": "application threads evicted 2500 pages"}}},
		{"WiredTiger cache healthy (constructed)", load(t, "wt-cache-healthy.json"), Limits{}, want{limit: Nothing,
			evidence: map[string]string{"cache": "peak 40% used"}}},
		{"checkpoint stalls (constructed)", load(t, "wt-checkpoint-stalls.json"), Limits{}, want{limit: "checkpoints", saturated: []string{"checkpoints"},
			evidence: map[string]string{"checkpoints": "4 of 4 p99 spikes"}}},
		{"tickets exhausted (constructed)", load(t, "tickets-exhausted.json"), Limits{}, want{limit: "tickets", saturated: []string{"tickets"},
			evidence: map[string]string{"tickets": "128 of 128 tickets out"}}},
		{"majority wait (constructed)", load(t, "majority-wait.json"), Limits{}, want{limit: "replication", saturated: []string{"replication"},
			evidence: map[string]string{"replication": "1.60 ms each"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Diagnose(c.doc, c.limits)
			if got.Rule != c.want.limit && (c.want.limit != Nothing || got.Limit != Nothing) {
				t.Errorf("limit %q (rule %q), want %q\n%s", got.Limit, got.Rule, c.want.limit, dump(got))
			}
			for _, r := range c.want.saturated {
				if f, _ := find(got, r); !f.Saturated {
					t.Errorf("%s not saturated: %s", r, f.Evidence)
				}
			}
			for _, r := range c.want.missing {
				if f, _ := find(got, r); f.Missing == "" {
					t.Errorf("%s judged (%s), want could not judge", r, f.Evidence)
				}
			}
			for r, s := range c.want.evidence {
				if f, _ := find(got, r); !strings.Contains(f.Evidence, s) {
					t.Errorf("%s evidence %q, want it to contain %q", r, f.Evidence, s)
				}
			}
			if !strings.HasPrefix(got.Line, "limited by: ") {
				t.Errorf("line %q", got.Line)
			}
			if len(got.Next) == 0 {
				t.Errorf("nothing to try next")
			}
		})
	}
}

func series(name string, v float64) result.Series {
	s := result.Series{Name: name, Units: "PERCENT"}
	for range 5 {
		s.DataPoints = append(s.DataPoints, result.DataPoint{Value: result.F(v)})
	}
	return s
}

func dump(d *result.Diagnosis) string {
	b, _ := json.MarshalIndent(d, "", "  ")
	return string(b)
}

// TestLine pins the one-line verdict's shape: the limit with its figures,
// then the closest other candidates' shares.
func TestLine(t *testing.T) {
	d := doc(func(d *result.Doc) {
		host(d, keyDiskWrite, 212<<20)
		host(d, keyDiskIOPS, 1000)
		host(d, keyCPUUser, 41)
	})
	got := Diagnose(d, Limits{DiskBytesPerSec: 225 << 20, DiskIOPS: 3000}).Line
	want := "limited by: disk throughput, 212 of 225 MB/s (94.2%); host CPU 41%; disk IOPS 33.3%; client CPU 20%"
	if got != want {
		t.Errorf("line\n got %s\nwant %s", got, want)
	}
	got = Diagnose(doc(nil), Limits{}).Line
	want = "limited by: nothing saturated; in flight 2 = 1000 ops/s × 2 ms (of 16 threads); client CPU 20%"
	if got != want {
		t.Errorf("line\n got %s\nwant %s", got, want)
	}
}

// TestMissingNeverGuesses: a document without telemetry is judged only by
// the rules whose inputs it has.
func TestMissingNeverGuesses(t *testing.T) {
	d := doc(func(d *result.Doc) { d.Target.SameHost = false; d.Intervals = nil })
	got := Diagnose(d, Limits{DiskBytesPerSec: 1, DiskIOPS: 1, LinkBytesPerSec: 1})
	for _, f := range got.NotJudged {
		if f.Share != nil || f.Saturated {
			t.Errorf("%s could not judge but has share %v", f.Rule, f.Share)
		}
		if !strings.HasPrefix(f.Evidence, "could not judge: ") {
			t.Errorf("%s evidence %q", f.Rule, f.Evidence)
		}
	}
	for _, r := range []string{"disk-throughput", "disk-iops", "network", "server-cpu", "host-cpu"} {
		if f, _ := find(got, r); f.Missing == "" {
			t.Errorf("%s judged without figures: %s", r, f.Evidence)
		}
	}
}

func TestParseLimits(t *testing.T) {
	l, err := ParseDiskLimit("225MB/s,3000iops")
	if err != nil || l.DiskBytesPerSec != 225<<20 || l.DiskIOPS != 3000 {
		t.Errorf("ParseDiskLimit = %+v, %v", l, err)
	}
	if l, err := ParseDiskLimit("3000IOPS"); err != nil || l.DiskIOPS != 3000 || l.DiskBytesPerSec != 0 {
		t.Errorf("ParseDiskLimit iops = %+v, %v", l, err)
	}
	for _, bad := range []string{"", "225", "fast", "1,2,3", "225MB/s,225MB/s", "-3iops"} {
		if _, err := ParseDiskLimit(bad); err == nil || !strings.Contains(err.Error(), "225MB/s,3000iops") {
			t.Errorf("ParseDiskLimit(%q) = %v, want an error naming a valid value", bad, err)
		}
	}
	if v, err := ParseLink("10Gbit/s"); err != nil || v != 1.25e9 {
		t.Errorf("ParseLink = %v, %v", v, err)
	}
	if v, err := ParseLink("125MB/s"); err != nil || v != 125<<20 {
		t.Errorf("ParseLink MB = %v, %v", v, err)
	}
	if _, err := ParseLink("fast"); err == nil {
		t.Error("ParseLink(fast) accepted")
	}
}
