package diagnosis

import (
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

// ftdcSeries is a series of one point a second, as results attach-ftdc
// stores one: the point of interval i stamped half a second into it.
func ftdcSeries(d *result.Doc, name string, value func(i int) float64) result.Series {
	s := result.Series{Name: name, Source: "ftdc", GranularitySec: 1}
	for i, iv := range d.Intervals {
		s.DataPoints = append(s.DataPoints, result.DataPoint{Timestamp: iv.Start.Add(500 * time.Millisecond), Value: result.F(value(i))})
	}
	return s
}

// A run whose intervals have no server figures (SecantusDB, or a server
// the tool could not sample) but whose FTDC series were attached: the
// checkpoint, cache and ticket rules judge from those series, and the
// tail names the checkpoint with the series' source.
func TestRulesReadFTDCSeries(t *testing.T) {
	d := tailDoc(t, []int{6, 7, 16}, func(_ int, iv *result.Interval) { iv.Server = nil })
	running := func(i int) float64 {
		if in(i, 2, 6, 7, 16) {
			return 1
		}
		return 0
	}
	d.Metrics.Measurements = append(d.Metrics.Measurements,
		ftdcSeries(d, result.CheckpointRunning, running),
		ftdcSeries(d, result.CheckpointsCompleted, func(i int) float64 { return float64(b2f(in(i, 8, 17))) }),
		ftdcSeries(d, result.CacheMax, func(int) float64 { return 1 << 30 }),
		ftdcSeries(d, result.CacheUsed, func(int) float64 { return 900 << 20 }),
		ftdcSeries(d, result.CacheDirty, func(i int) float64 { return float64(10+i) * (1 << 20) }),
		ftdcSeries(d, result.CacheAppEviction, func(i int) float64 { return float64(b2f(in(i, 7))) * 40 }),
		ftdcSeries(d, result.TicketsOut, func(i int) float64 { return 2 + 120*float64(b2f(in(i, 16))) }),
		ftdcSeries(d, result.TicketsTotal, func(int) float64 { return 128 }),
	)
	dg := Diagnose(d, Limits{})
	for _, nj := range dg.NotJudged {
		if nj.Rule == "checkpoints" || nj.Rule == "cache" || nj.Rule == "tickets" {
			t.Errorf("%s not judged: %s", nj.Rule, nj.Missing)
		}
	}
	find := func(rule string) result.Finding {
		for _, f := range dg.Candidates {
			if f.Rule == rule {
				return f
			}
		}
		t.Fatalf("no finding of %s in %+v", rule, dg.Candidates)
		return result.Finding{}
	}
	if f := find("checkpoints"); f.Value == nil || *f.Value != 3 || *f.Limit != 3 || !strings.Contains(f.Evidence, "6 of 20 intervals had a checkpoint") {
		t.Errorf("checkpoints: %+v", f)
	}
	if f := find("cache"); !strings.Contains(f.Evidence, "cache 1024 MB: peak 87.9% used") || !strings.Contains(f.Evidence, "application threads evicted 40 pages") {
		t.Errorf("cache: %s", f.Evidence)
	}
	if f := find("tickets"); f.Value == nil || *f.Value != 122 || *f.Limit != 128 || !strings.Contains(f.Evidence, "in any interval") || !f.Saturated {
		t.Errorf("tickets: %+v", f)
	}
	// The single seconds of eviction and of tickets out hold a third of
	// the tail each (the higher lift); the checkpoints hold all of it.
	tl := dg.Tail
	found := false
	for _, c := range tl.Causes {
		if c.Series == result.CheckpointRunning {
			found = c.Source == "ftdc" && c.TailShare == 1 && c.Evidence == "100% of the operations above p99 fell in the 20% of seconds with a checkpoint running"
		}
	}
	if !found || tl.Causes[0].Source != "ftdc" {
		t.Fatalf("tail %+v: want the FTDC checkpoint series among the causes, every cause from FTDC", tl)
	}
}

func b2f(b bool) int {
	if b {
		return 1
	}
	return 0
}
