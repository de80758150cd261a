package merge

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/validity"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// clientDoc is client i's result with n latencies drawn around mean, in
// two one-second intervals, and the histogram of its latencies.
func clientDoc(t *testing.T, i, n int, mean time.Duration) (result.Doc, *hist.H) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(uint64(i), 9))
	all, ivh := hist.New(), []*hist.H{hist.New(), hist.New()}
	for k := range n {
		d := time.Duration(rnd.ExpFloat64() * float64(mean))
		hist.Record(all, d)
		hist.Record(ivh[k%2], d)
	}
	sum := func(h *hist.H) result.Dist {
		d, err := hist.Summarize(h)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	idx := i
	d := result.Doc{
		RunID: "r" + string(rune('0'+i)), TestName: "kv", Start: t0, End: t0.Add(2 * time.Second), Duration: 2000,
		ID:      result.Ordered{{Key: "testname", Value: "kv"}, {Key: "clientIndex", Value: i}, {Key: "group", Value: "g"}},
		Variant: map[string]any{"clientIndex": i, "group": "g", "targetRate": 300.0},
		Group:   &result.Group{ID: "g", Clients: 3, ClientIndex: &idx, StartAt: t0.Add(-time.Second), TargetRate: result.F(300)},
		Ops:     []result.OpStats{{Name: "read", Count: int64(n), Latency: sum(all), Service: sum(all)}},
		Schedule: result.Schedule{Mode: "open", Pacer: "constant 300/s (slots 3n+" + string(rune('0'+i)) + ")",
			Workers: 2, Intended: int64(n), AchievedRate: float64(n) / 2, TargetRate: result.F(100)},
		Client:      result.Client{CPUSeconds: 0.5, Cores: 1, CPUPercent: 25},
		TestResults: result.TestResults{NOps: result.Ptr(int64(n))},
	}
	if i != 2 { // client 2 read no reply's arrival (the driver's path)
		rl := sum(all)
		d.Schedule.ReceiveLag = &rl
	}
	for k := range 2 {
		d.Intervals = append(d.Intervals, result.Interval{Start: t0.Add(time.Duration(k) * time.Second), Seconds: 1,
			Ops:       []result.OpStats{{Name: "read", Count: ivh[k].TotalCount(), Latency: sum(ivh[k]), Service: sum(ivh[k])}},
			ClientCPU: result.F(25)})
	}
	return d, all
}

func TestMergeIsExact(t *testing.T) {
	union, received := hist.New(), hist.New()
	var docs []result.Doc
	for i, n := range []int{1000, 3000, 500} {
		d, h := clientDoc(t, i, n, time.Duration(i+1)*time.Millisecond)
		docs = append(docs, d)
		if err := hist.Merge(union, h); err != nil {
			t.Fatal(err)
		}
		if d.Schedule.ReceiveLag != nil {
			if err := hist.Merge(received, h); err != nil {
				t.Fatal(err)
			}
		}
	}
	g, err := Results(Group{ID: "g", Clients: 3}, []result.Doc{docs[2], docs[0], docs[1]})
	if err != nil {
		t.Fatal(err)
	}
	op := g.Op("read")
	if op.Count != 4500 || op.Latency.Count != union.TotalCount() {
		t.Fatalf("count %d (histogram %d), want 4500", op.Count, op.Latency.Count)
	}
	for _, c := range []struct {
		p   float64
		got *float64
	}{{50, op.Latency.P50}, {99, op.Latency.P99}, {99.9, op.Latency.P999}} {
		if want := hist.Percentile(union, c.p); *c.got != *want {
			t.Errorf("p%g: got %g ms, want %g ms (the union's)", c.p, *c.got, *want)
		}
	}
	if rl := g.Schedule.ReceiveLag; rl == nil || rl.Count != 4000 || *rl.P99 != *hist.Percentile(received, 99) {
		t.Errorf("receive lag %+v: want the exact merge of clients 0 and 1 (4000 operations, p99 %g ms)", rl, *hist.Percentile(received, 99))
	}
	if g.Partial || len(g.Group.Members) != 3 || g.Group.Missing != nil {
		t.Errorf("partial %v, members %d, missing %v", g.Partial, len(g.Group.Members), g.Group.Missing)
	}
	if g.Schedule.Pacer != "constant 300/s" || *g.Schedule.TargetRate != 300 || g.Schedule.Intended != 4500 || g.Schedule.Workers != 6 {
		t.Errorf("schedule %+v", g.Schedule)
	}
	if g.Schedule.AchievedRate != 2250 {
		t.Errorf("achieved %g/s, want 2250/s", g.Schedule.AchievedRate)
	}
	if _, ok := g.Variant["clientIndex"]; ok {
		t.Errorf("the group's variant keeps clientIndex: %v", g.Variant)
	}
	for _, kv := range g.ID {
		if kv.Key == "clientIndex" {
			t.Errorf("the group's _id keeps clientIndex: %v", g.ID)
		}
	}
	if len(g.Intervals) != 2 {
		t.Fatalf("%d intervals, want 2", len(g.Intervals))
	}
	var ivCount int64
	for _, iv := range g.Intervals {
		ivCount += iv.Ops[0].Count
		if iv.ClientCPU == nil || *iv.ClientCPU != 25 {
			t.Errorf("interval client CPU %v, want 25%%", iv.ClientCPU)
		}
	}
	if ivCount != 4500 {
		t.Errorf("intervals hold %d operations, want 4500", ivCount)
	}
	if *g.TestResults.NOps != 4500 || g.Client.CPUSeconds != 1.5 || g.Client.Cores != 3 {
		t.Errorf("nOps %d, client %+v", *g.TestResults.NOps, g.Client)
	}
}

func TestMergeMissingClient(t *testing.T) {
	a, _ := clientDoc(t, 0, 100, time.Millisecond)
	c, _ := clientDoc(t, 2, 100, time.Millisecond)
	c.Client.ClientBound, c.Client.Reasons = true, []string{"the schedule fell behind"}
	g, err := Results(Group{ID: "g", Clients: 3}, []result.Doc{a, c})
	if err != nil {
		t.Fatal(err)
	}
	if !g.Partial || !strings.Contains(g.PartialReason, "client 1 of 3") || len(g.Group.Missing) != 1 || g.Group.Missing[0] != 1 {
		t.Errorf("partial %v (%q), missing %v", g.Partial, g.PartialReason, g.Group.Missing)
	}
	if !g.Client.ClientBound || g.Client.Reasons[0] != "client 2: the schedule fell behind" {
		t.Errorf("client-bound %v, reasons %v", g.Client.ClientBound, g.Client.Reasons)
	}
}

// A closing interval one client absorbed its tail into overlaps another
// client's last one: the two fold into one.
func TestMergeFoldsOverlappingTail(t *testing.T) {
	a, _ := clientDoc(t, 0, 100, time.Millisecond)
	b, _ := clientDoc(t, 1, 100, time.Millisecond)
	a.Intervals[1].Seconds = 1.3
	b.Intervals = append(b.Intervals, result.Interval{Start: t0.Add(2 * time.Second), Seconds: 0.6,
		Ops: []result.OpStats{{Name: "read"}}})
	g, err := Results(Group{ID: "g", Clients: 2}, []result.Doc{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Intervals) != 2 || g.Intervals[1].Seconds != 1.6 {
		t.Errorf("%d intervals, the last %g s; want 2, 1.6 s", len(g.Intervals), g.Intervals[len(g.Intervals)-1].Seconds)
	}
}

func TestMergeRefuses(t *testing.T) {
	a, _ := clientDoc(t, 0, 10, time.Millisecond)
	if _, err := Results(Group{ID: "other", Clients: 3}, []result.Doc{a}); err == nil {
		t.Error("merged a client of another group")
	}
	if _, err := Results(Group{ID: "g", Clients: 3}, nil); err == nil {
		t.Error("merged nothing")
	}
}

// Two processes that ran as client 1 both reached the server: the merged
// result counts both (the group said "59.8 ops/s of 60/s" while the
// server received 90), names them in a note, and a run stored twice
// (partial, then complete) still counts once.
func TestMergeCountsEveryProcessThatRan(t *testing.T) {
	c0, _ := clientDoc(t, 0, 1000, time.Millisecond)
	c1, _ := clientDoc(t, 1, 1000, time.Millisecond)
	dup, _ := clientDoc(t, 1, 500, time.Millisecond)
	dup.RunID = "r1-second-process"
	c2, _ := clientDoc(t, 2, 1000, time.Millisecond)
	partialRow := c2
	partialRow.Partial, partialRow.Ops = true, []result.OpStats{{Name: "read", Count: 10}}
	g, err := Results(Group{ID: "g", Clients: 3}, []result.Doc{c0, c1, partialRow, dup, c2})
	if err != nil {
		t.Fatal(err)
	}
	if n := g.Op("read").Count; n != 3500 {
		t.Errorf("read count %d, want 3500 (every process's operations, client 2's complete row once)", n)
	}
	if g.Partial || len(g.Group.Missing) != 0 {
		t.Errorf("partial %v (%s), missing %v", g.Partial, g.PartialReason, g.Group.Missing)
	}
	if !strings.Contains(strings.Join(g.Notes, "\n"), "client 1 ran in 2 processes (runs r1, r1-second-process)") {
		t.Errorf("notes %q: want the shared index named", g.Notes)
	}
}

// The merged result is judged as a run is: its validity from the
// group's figures (a client-bound client makes the group invalid, naming
// it; the most starved client's wait for a CPU is the group's), by the
// bounds given; each client's canary is kept in its member, the first
// client's is the group's.
func TestMergedResultIsJudged(t *testing.T) {
	var docs []result.Doc
	for i, wait := range []float64{0.1, 0.76, 0.2} {
		d, _ := clientDoc(t, i, 500, time.Millisecond)
		d.Client.CPUWait = result.F(wait)
		d.Canary = &result.Noise{Before: &result.Canary{CPUNs: result.F(2.6 + float64(i))}, After: &result.Canary{CPUNs: result.F(2.7 + float64(i))}}
		docs = append(docs, d)
	}
	docs[2].Client.ClientBound, docs[2].Client.Reasons = true, []string{"the schedule fell behind"}
	g, err := Results(Group{ID: "g", Clients: 3}, []result.Doc{docs[1], docs[2], docs[0]})
	if err != nil {
		t.Fatal(err)
	}
	rule := func(v *result.Validity, name string) result.ValidityRule {
		for _, r := range v.Rules {
			if r.Rule == name {
				return r
			}
		}
		return result.ValidityRule{}
	}
	if g.Validity == nil || g.Validity.State != result.Invalid {
		t.Fatalf("validity %+v, want invalid", g.Validity)
	}
	if r := rule(g.Validity, "client-saturated"); r.Outcome != result.Invalid || !strings.Contains(r.Evidence, "client 2: the schedule fell behind") {
		t.Errorf("client-saturated: %s %q, want invalid naming client 2", r.Outcome, r.Evidence)
	}
	if r := rule(g.Validity, "client-starved"); r.Outcome != result.Suspect || !strings.Contains(r.Evidence, "76%") {
		t.Errorf("client-starved: %s %q, want suspect at client 1's 76%%", r.Outcome, r.Evidence)
	}
	for i, m := range g.Group.Members {
		if m.Canary == nil || m.Canary.Before == nil || *m.Canary.Before.CPUNs != 2.6+float64(m.ClientIndex) || m.ClientIndex != i {
			t.Errorf("member %d's canary %+v, want its own", i, m.Canary)
		}
	}
	if g.Canary == nil || *g.Canary.Before.CPUNs != 2.6 {
		t.Errorf("the group's canary %+v, want client 0's", g.Canary)
	}
	off := validity.Default()
	if err := validity.Parse(off, "client-saturated=off"); err != nil {
		t.Fatal(err)
	}
	g, err = Results(Group{ID: "g", Clients: 3, Validity: off}, docs)
	if err != nil || g.Validity.State != result.Suspect {
		t.Errorf("client-saturated off: %v %+v, want suspect (the starved client)", err, g.Validity)
	}
}
