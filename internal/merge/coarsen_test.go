package merge

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// longRun is a run of n one-second intervals of two operation types whose
// latencies drift with time, a serverStatus figure per interval and a
// host series with one missing reading; it returns the histograms of
// each operation type's whole run as well.
func longRun(t *testing.T, n int) (*result.Doc, map[string]*hist.H) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(3, 4))
	whole := map[string]*hist.H{"read": hist.New(), "update": hist.New()}
	d := &result.Doc{RunID: "long", Start: t0, End: t0.Add(time.Duration(n) * time.Second)}
	cpu := result.Series{Name: result.CPUUser, Units: "PERCENT", Source: "local", GranularitySec: 1}
	for k := range n {
		iv := result.Interval{Start: t0.Add(time.Duration(k) * time.Second), Seconds: 1, Late: int64(k % 3), MaxLag: float64(k % 7),
			ClientCPU: result.F(float64(10 + k%5)), Server: map[string]float64{"checkpoints": float64(k % 2), "cacheBytes": float64(k)}}
		for _, name := range []string{"read", "update"} {
			h := hist.New()
			for range 50 + k%13 {
				d := time.Duration((1 + rnd.ExpFloat64()) * float64(time.Millisecond) * (1 + float64(k%60)/10))
				hist.Record(h, d)
				hist.Record(whole[name], d)
			}
			s, err := hist.Summarize(h)
			if err != nil {
				t.Fatal(err)
			}
			iv.Ops = append(iv.Ops, result.OpStats{Name: name, Count: h.TotalCount(), Rate: float64(h.TotalCount()), Latency: s, Service: s,
				Errors: result.Errors{Total: int64(k % 2), Timeout: int64(k % 2)}})
		}
		d.Intervals = append(d.Intervals, iv)
		p := result.DataPoint{Timestamp: iv.Start.Add(time.Second), Value: result.F(float64(k % 10))}
		if k == 5 {
			p.Value = nil
		}
		cpu.DataPoints = append(cpu.DataPoints, p)
	}
	d.Metrics.Measurements = []result.Series{cpu}
	return d, whole
}

func TestCoarsenMergesHistogramsExactly(t *testing.T) {
	d, whole := longRun(t, 600)
	c, err := Coarsen(d, 90*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(c.Intervals); got != 7 { // 600 s in 90 s slots: 6 whole and one of 60 s
		t.Fatalf("%d coarse intervals, want 7", got)
	}
	if c.Intervals[6].Seconds != 60 || c.Intervals[0].Seconds != 90 {
		t.Errorf("interval lengths %v and %v, want 90 and 60", c.Intervals[0].Seconds, c.Intervals[6].Seconds)
	}
	// The coarse intervals' counts add up to the run's, and the
	// distribution of the first coarse interval is the exact merge of the
	// fine ones it holds.
	var reads int64
	for _, iv := range c.Intervals {
		reads += iv.Ops[0].Count
		if iv.Ops[0].Latency.Hist != "" {
			t.Fatal("a coarse interval keeps its histogram; want its summary only")
		}
	}
	if reads != whole["read"].TotalCount() {
		t.Errorf("coarse reads %d, want %d", reads, whole["read"].TotalCount())
	}
	var fine []result.Dist
	for _, iv := range d.Intervals[:90] {
		fine = append(fine, iv.Ops[0].Latency)
	}
	want, err := hist.MergeDists(fine...)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Intervals[0].Ops[0].Latency
	if *got.P99 != *want.P99 || *got.P50 != *want.P50 || *got.Max != *want.Max || got.Count != want.Count {
		t.Errorf("first coarse read latency p50 %v p99 %v max %v n %d, want the exact merge's %v %v %v %d",
			*got.P50, *got.P99, *got.Max, got.Count, *want.P50, *want.P99, *want.Max, want.Count)
	}
	if e := c.Intervals[0].Ops[0].Errors; e.Total != 45 || e.Timeout != 45 {
		t.Errorf("first coarse interval's errors %+v, want 45 timeouts", e)
	}
	if r := c.Intervals[0].Ops[0].Rate; r != float64(c.Intervals[0].Ops[0].Count)/90 {
		t.Errorf("rate %v, want count over 90 s", r)
	}
	iv := c.Intervals[0]
	if iv.Server["checkpoints"] != 45 || iv.Server["cacheBytes"] != 44.5 {
		t.Errorf("server figures %v, want 45 checkpoints (summed) and cacheBytes 44.5 (mean)", iv.Server)
	}
	if *iv.ClientCPU != 12 || iv.MaxLag != 6 || iv.Late != 90 {
		t.Errorf("client CPU %v, max lag %v, late %d; want 12, 6, 90", *iv.ClientCPU, iv.MaxLag, iv.Late)
	}
	if d.Intervals[0].Ops[0].Latency.Hist == "" {
		t.Error("Coarsen changed its input's intervals")
	}
}

func TestCoarsenSeries(t *testing.T) {
	d, _ := longRun(t, 600)
	c, err := Coarsen(d, 90*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Metrics.Measurements[0]
	if s.GranularitySec != 90 {
		t.Errorf("granularitySec %v, want 90", s.GranularitySec)
	}
	// Readings at 1..600 s: slot 0 holds the readings at 1..89 s, one of
	// them (5) missing.
	if n := len(s.DataPoints); n != 7 {
		t.Fatalf("%d points, want 7", n)
	}
	var sum float64
	for k := 0; k < 89; k++ {
		if k != 5 {
			sum += float64((k) % 10)
		}
	}
	if got, want := *s.DataPoints[0].Value, sum/88; got != want {
		t.Errorf("first point %v, want the mean of the 88 readings present, %v", got, want)
	}
}

func TestCoarsenKeepsWhatIsCoarseEnough(t *testing.T) {
	d, _ := longRun(t, 30)
	c, err := Coarsen(d, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if c != d {
		t.Error("a run already at the granularity was copied, want it returned unchanged")
	}
	allMissing := &result.Doc{Start: t0, Metrics: result.Metrics{DiskMetrics: []result.Series{{Name: "x", GranularitySec: 1,
		DataPoints: []result.DataPoint{{Timestamp: t0}, {Timestamp: t0.Add(time.Second)}}}}}}
	c, err = Coarsen(allMissing, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Metrics.DiskMetrics[0].DataPoints; len(p) != 1 || p[0].Value != nil {
		t.Errorf("points %v, want one missing point", p)
	}
}
