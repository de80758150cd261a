package diagnosis

import (
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// tailDoc builds a 20-second run of 500 updates a second, 0.5–1.5 ms
// each; in the seconds listed in slow a fifth of the operations take
// 20–40 ms instead. set fills each interval's figures.
func tailDoc(t *testing.T, slow []int, set func(i int, iv *result.Interval)) *result.Doc {
	t.Helper()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	d := &result.Doc{Duration: 20000, Schedule: result.Schedule{Mode: "open", Workers: 64, AchievedRate: 500, TargetRate: result.F(500)}}
	all := hist.New()
	for i := range 20 {
		h := hist.New()
		isSlow := false
		for _, s := range slow {
			isSlow = isSlow || s == i
		}
		for j := range 500 {
			us := 500 + (j*37)%1000
			if isSlow && j%5 == 0 {
				us = 20000 + (j*53)%20000
			}
			hist.Record(h, time.Duration(us)*time.Microsecond)
		}
		if err := hist.Merge(all, h); err != nil {
			t.Fatal(err)
		}
		dist, err := hist.Summarize(h)
		if err != nil {
			t.Fatal(err)
		}
		iv := result.Interval{Start: t0.Add(time.Duration(i) * time.Second), Seconds: 1, MaxLag: 0.2,
			Ops:  []result.OpStats{{Name: "update", Count: 500, Latency: dist}},
			Host: map[string]float64{"cpuUserPct": 30 + float64(i%3), "cpuKernelPct": 5, "diskWriteBytesPerSec": float64(2+i%2) * (1 << 20)},
			Server: map[string]float64{"checkpointRunning": 0, "cacheDirtyBytes": 10 << 20, "cacheMaxBytes": 1 << 30,
				"appEvictionPagesPerSec": 0, "connections": 70}}
		if set != nil {
			set(i, &iv)
		}
		d.Intervals = append(d.Intervals, iv)
	}
	dist, err := hist.Summarize(all)
	if err != nil {
		t.Fatal(err)
	}
	d.Ops = []result.OpStats{{Name: "update", Count: 10000, Latency: dist}}
	return d
}

func in(i int, set ...int) bool {
	for _, s := range set {
		if s == i {
			return true
		}
	}
	return false
}

func TestTailCheckpointDriven(t *testing.T) {
	d := tailDoc(t, []int{6, 7, 16}, func(i int, iv *result.Interval) {
		if in(i, 6, 7, 16) {
			iv.Server["checkpointRunning"] = 1
		}
		if in(i, 2) { // a checkpoint that stalled nothing
			iv.Server["checkpointRunning"] = 1
		}
	})
	tl := Diagnose(d, Limits{}).Tail
	if len(tl.Causes) == 0 || tl.Causes[0].Series != "intervals.server.checkpointRunning" {
		t.Fatalf("tail %+v: want a checkpoint running first", tl)
	}
	c := tl.Causes[0]
	if c.TailShare != 1 || c.TimeShare != 0.2 || !equalInts(c.Intervals, []int{2, 6, 7, 16}) {
		t.Fatalf("cause %+v: want all of the tail in 4 of 20 seconds", c)
	}
	want := "100% of the operations above p99 fell in the 20% of seconds with a checkpoint running"
	if c.Evidence != want || tl.Line != "p99 tail: "+want {
		t.Fatalf("evidence %q, line %q", c.Evidence, tl.Line)
	}
	// 1% of 10,000 operations, all among the slow seconds' slow fifth.
	if tl.Above != 99 || tl.PerInterval[6] != 33 || tl.PerInterval[7] != 33 || tl.PerInterval[16] != 33 || tl.PerInterval[0] != 0 {
		t.Fatalf("above %d, per interval %v: want 99, a third in each slow second", tl.Above, tl.PerInterval)
	}
	// The checkpoint rule names the limit itself; the tail agrees.
	if line := Diagnose(d, Limits{}).Line; !strings.HasPrefix(line, "limited by: checkpoints") {
		t.Fatalf("limited-by line %q", line)
	}
}

func TestTailEvictionDriven(t *testing.T) {
	d := tailDoc(t, []int{11, 12}, func(i int, iv *result.Interval) {
		iv.Server["appEvictionPagesPerSec"] = float64(i % 3) // a trickle all along
		if in(i, 11, 12) {
			iv.Server["appEvictionPagesPerSec"] = 4200
			iv.Server["cacheDirtyBytes"] = 210 << 20 // dirty share 20.5%
		}
	})
	tl := Tail(d)
	if len(tl.Causes) < 2 {
		t.Fatalf("tail %+v: want eviction and the dirty cache", tl)
	}
	got := map[string]string{}
	for _, c := range tl.Causes {
		got[c.Series] = c.Evidence
	}
	if got["intervals.server.appEvictionPagesPerSec"] != "100% of the operations above p99 fell in the 10% of seconds with eviction by application threads above 4000 pages/s" {
		t.Fatalf("eviction: %q", got["intervals.server.appEvictionPagesPerSec"])
	}
	if got["intervals.server.cacheDirtyPct"] != "100% of the operations above p99 fell in the 10% of seconds with dirty cache above 20 % of the cache" {
		t.Fatalf("dirty cache: %q", got["intervals.server.cacheDirtyPct"])
	}
}

func TestTailClientLagDriven(t *testing.T) {
	d := tailDoc(t, []int{3, 9, 14, 18}, func(i int, iv *result.Interval) {
		if in(i, 3, 9, 14, 18) {
			iv.MaxLag = 35
		}
		if in(i, 3, 9, 14) { // a client lag the cause, not the server
			iv.ClientCPU = result.F(95)
		} else {
			iv.ClientCPU = result.F(20)
		}
	})
	tl := Tail(d)
	if len(tl.Causes) == 0 || tl.Causes[0].Series != "intervals.client.maxLagMs" {
		t.Fatalf("tail %+v: want the client's send lag first", tl)
	}
	if tl.Causes[0].Evidence != "100% of the operations above p99 fell in the 20% of seconds with client send lag above 30 ms" {
		t.Fatalf("evidence %q", tl.Causes[0].Evidence)
	}
}

// The client's receive lag (a reply arrived, the client took its time
// to return it) is compared as the send lag is.
func TestTailReceiveLagDriven(t *testing.T) {
	d := tailDoc(t, []int{4, 13}, func(i int, iv *result.Interval) {
		iv.MaxReceiveLag = result.F(0.3 + float64(i%3)/10)
		if in(i, 4, 13) {
			iv.MaxReceiveLag = result.F(28)
		}
	})
	tl := Tail(d)
	if len(tl.Causes) == 0 || tl.Causes[0].Series != "intervals.client.maxReceiveLagMs" ||
		tl.Causes[0].Evidence != "100% of the operations above p99 fell in the 10% of seconds with client receive lag above 20 ms" {
		t.Fatalf("tail %+v: want the client's receive lag first", tl)
	}
}

// A secondary's replication lag, a members series, is compared under
// its member's name.
func TestTailReplicationLagOfAMember(t *testing.T) {
	d := tailDoc(t, []int{8, 9}, nil)
	lag := result.Series{Name: result.ReplicationLag, Units: "SECONDS", Source: "ftdc", Member: "db2:27017", Role: "secondary"}
	for i, iv := range d.Intervals {
		v := 0.0
		if in(i, 8, 9) {
			v = 12
		}
		lag.DataPoints = append(lag.DataPoints, result.DataPoint{Timestamp: iv.Start.Add(time.Second), Value: result.F(v)})
	}
	d.Metrics.Members = []result.Series{lag}
	tl := Tail(d)
	if len(tl.Causes) == 0 || tl.Causes[0].Series != "db2:27017 "+result.ReplicationLag ||
		tl.Causes[0].Evidence != "100% of the operations above p99 fell in the 10% of seconds with db2:27017's replication lag above 10 s" {
		t.Fatalf("tail %+v: want db2's replication lag", tl)
	}
}

func TestTailWithNoCause(t *testing.T) {
	d := tailDoc(t, []int{5, 15}, nil)
	tl := Tail(d)
	if len(tl.Causes) != 0 {
		t.Fatalf("causes %+v in a run whose series are flat", tl.Causes)
	}
	if !strings.HasPrefix(tl.Line, "p99 tail: nothing the run measured lines up with its 100 operations above p99 (6 series compared)") {
		t.Fatalf("line %q", tl.Line)
	}
	// A burst that misses the tail is no cause either.
	d = tailDoc(t, []int{5, 15}, func(i int, iv *result.Interval) {
		if i == 9 {
			iv.Host["diskWriteBytesPerSec"] = 380 << 20
		}
	})
	if tl := Tail(d); len(tl.Causes) != 0 {
		t.Fatalf("causes %+v: the burst was in a second without tail", tl.Causes)
	}
	// The disk burst that holds the tail, as make demo measured it.
	d = tailDoc(t, []int{12}, func(i int, iv *result.Interval) {
		if i == 12 {
			iv.Host["diskWriteBytesPerSec"] = 379 << 20
		}
	})
	if tl := Tail(d); len(tl.Causes) == 0 || tl.Causes[0].Evidence != "100% of the operations above p99 fell in the 5% of seconds with disk writes above 300 MB/s" {
		t.Fatalf("tail %+v", tl)
	}
	// Nothing saturated, so the tail is the story of the limited-by line.
	if line := Diagnose(d, Limits{}).Line; !strings.HasPrefix(line, "limited by: nothing saturated; the p99 tail coincided with disk writes above 300 MB/s;") {
		t.Fatalf("limited-by line %q", line)
	}
}

func TestTailNotJudged(t *testing.T) {
	d := tailDoc(t, nil, nil)
	d.Ops[0].Latency.Hist = ""
	if tl := Tail(d); tl.NotJudged != "operation type update has no stored histogram" {
		t.Fatalf("not judged %q", tl.NotJudged)
	}
	d = tailDoc(t, []int{1}, nil)
	d.Intervals = d.Intervals[:4]
	if tl := Tail(d); !strings.Contains(tl.Line, "could not judge: 4 intervals") {
		t.Fatalf("line %q", tl.Line)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A client send lag that bursts where the tail is, while every worker was
// in flight, is the server's latency holding the schedule back: it is
// not offered as the tail's cause. The same lag with workers free is.
func TestTailSendLagOfBusyWorkersIsNotACause(t *testing.T) {
	for _, tc := range []struct {
		name     string
		inFlight int64
		want     bool
	}{
		{"every worker in flight", 64, false},
		{"workers free", 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tailDoc(t, []int{6, 7, 16}, func(i int, iv *result.Interval) {
				p := int64(5)
				if in(i, 6, 7, 16) {
					iv.MaxLag = 30
					p = tc.inFlight
				}
				iv.PeakInFlight = &p
			})
			tl := Diagnose(d, Limits{}).Tail
			got := false
			for _, c := range tl.Causes {
				got = got || c.Series == "intervals.client.maxLagMs"
			}
			if got != tc.want {
				t.Errorf("client send lag among the causes %+v: %v, want %v", tl.Causes, got, tc.want)
			}
		})
	}
}

// Causes as good as each other are all kept, past the three: which of
// them the order of the series would put fourth says nothing, and a
// checkpoint must not be dropped for a CPU figure that rose in the same
// seconds.
func TestTailKeepsEveryCauseTiedWithTheThird(t *testing.T) {
	d := tailDoc(t, []int{6, 7, 16}, func(i int, iv *result.Interval) {
		if in(i, 6, 7, 16) {
			iv.Server["checkpointRunning"] = 1
			iv.Host["cpuUserPct"] = 95
			iv.Host["cpuKernelPct"] = 40
			iv.Host["diskWriteBytesPerSec"] = 400 << 20
			iv.Server["appEvictionPagesPerSec"] = 5000
		}
	})
	tl := Diagnose(d, Limits{}).Tail
	var series []string
	for _, c := range tl.Causes {
		series = append(series, c.Series)
		if c.TailShare != 1 || c.TimeShare != 0.15 {
			t.Errorf("cause %+v: want all of the tail in 3 of 20 seconds", c)
		}
	}
	// Four series burst together (the host's CPU is one series).
	if len(tl.Causes) != 4 || !strings.Contains(strings.Join(series, " "), "intervals.server.checkpointRunning") {
		t.Fatalf("causes %v: want the four tied ones, the checkpoint among them", series)
	}
}
