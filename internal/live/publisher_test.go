package live_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/live"
	"github.com/mongobench/mongobench/internal/result"
)

func dist(t *testing.T, us ...int64) result.Dist {
	t.Helper()
	h := hist.New()
	for _, u := range us {
		hist.Record(h, time.Duration(u)*time.Microsecond)
	}
	d, err := hist.Summarize(h)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func interval(t *testing.T, index int, reads, timeouts int64, lat ...int64) *engine.Interval {
	iv := &engine.Interval{Index: index, Start: t0.Add(time.Duration(index) * time.Second), Length: time.Second,
		Late: 1, PeakInFlight: 3, CPU: 100 * time.Millisecond, Lag: dist(t, 5, 7, 900)}
	op := engine.IntervalOp{Name: "read", Count: reads, Latency: dist(t, lat...), Service: dist(t, lat...)}
	op.Errors[engine.Timeout] = timeouts
	iv.Ops = []engine.IntervalOp{op}
	return iv
}

// value finds the metric name with the given labels; ok is false when
// there is no such series.
func value(t *testing.T, p *live.Publisher, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	mfs, err := p.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if have[k] != v {
					continue next
				}
			}
			return metricValue(m), true
		}
	}
	return 0, false
}

func metricValue(m *dto.Metric) float64 {
	if m.Counter != nil {
		return m.Counter.GetValue()
	}
	return m.Gauge.GetValue()
}

func TestPublisherFigures(t *testing.T) {
	p := live.New()
	tally := engine.NewTally()
	p.Begin(live.Run{ID: "r1", Test: "kv", Label: "a", Workload: "kv", Target: func(_, _ time.Duration) float64 { return 200 }, Tally: tally})
	add := func(iv *engine.Interval) { // as the engine does: the tally first
		if err := tally.Add(iv); err != nil {
			t.Fatal(err)
		}
		p.Interval(iv)
	}
	add(interval(t, 0, 100, 2, 1000, 2000, 3000))
	add(interval(t, 1, 150, 0, 4000))
	// The final interval handed again after a tail joined it replaces
	// the one handed before.
	add(interval(t, 1, 160, 1, 4000, 5000))
	read := map[string]string{"run_id": "r1", "op": "read", "test": "kv", "label": "a"}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"mongobench_operations_total", read, 260},
		{"mongobench_parts_total", read, 0},
		{"mongobench_completed_total", map[string]string{"run_id": "r1"}, 263},
		{"mongobench_run_achieved_ops_per_second", map[string]string{"run_id": "r1"}, 131.5},
		{"mongobench_client_cpu_seconds_total", map[string]string{"run_id": "r1"}, 0.2},
		{"mongobench_ops_per_second", read, 160},
		{"mongobench_errors_total", map[string]string{"op": "read", "class": "timeout"}, 3},
		{"mongobench_errors_per_second", map[string]string{"op": "read", "class": "timeout"}, 1},
		{"mongobench_latency_seconds", map[string]string{"op": "read", "quantile": "1"}, 0.005},
		{"mongobench_achieved_ops_per_second", map[string]string{"run_id": "r1"}, 161},
		{"mongobench_target_ops_per_second", map[string]string{"run_id": "r1"}, 200},
		{"mongobench_send_lag_p99_seconds", map[string]string{"run_id": "r1"}, 0.0009},
		{"mongobench_late_total", map[string]string{"run_id": "r1"}, 2},
		{"mongobench_intervals_total", map[string]string{"run_id": "r1"}, 2},
		{"mongobench_in_flight_peak", map[string]string{"run_id": "r1"}, 3},
		{"mongobench_study_step", map[string]string{"run_id": "r1"}, 1},
		{"mongobench_run_running", map[string]string{"run_id": "r1"}, 1},
	} {
		got, ok := value(t, p, c.name, c.labels)
		if !ok || got < c.want*0.999 || got > c.want*1.001 {
			t.Errorf("%s%v: got %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	f := p.Feed()
	if len(f.Runs) != 1 || len(f.Runs[0].Intervals) != 2 || f.Runs[0].Intervals[1].Ops[0].Count != 160 {
		t.Errorf("feed: got %+v, want one run of two intervals, the second replaced by the joined one", f)
	}
	if f.Runs[0].Intervals[0].Ops[0].Latency.Hist != "" {
		t.Errorf("feed: intervals carry encoded histograms; want percentiles only")
	}

	// No success in an interval: its percentiles are missing, not 0.
	add(interval(t, 2, 0, 5))
	if v, ok := value(t, p, "mongobench_latency_seconds", map[string]string{"op": "read", "quantile": "0.99"}); ok {
		t.Errorf("latency p99 of an interval without successes: got %v, want no series", v)
	}
	p.End()
	if v, _ := value(t, p, "mongobench_run_running", map[string]string{"run_id": "r1"}); v != 0 {
		t.Errorf("run_running after End: got %v, want 0", v)
	}
	// The next run of a study replaces the previous one's series.
	p.Begin(live.Run{ID: "r2", Test: "kv", Step: "sweepStep=2 rate=400/s"})
	if _, ok := value(t, p, "mongobench_operations_total", map[string]string{"run_id": "r1"}); ok {
		t.Errorf("run r1's series remain after run r2 began")
	}
	if v, ok := value(t, p, "mongobench_run_info", map[string]string{"run_id": "r2", "step": "sweepStep=2 rate=400/s"}); !ok || v != 1 {
		t.Errorf("run_info of r2: got %v %v, want 1 with its step", v, ok)
	}
	if v, _ := value(t, p, "mongobench_study_step", map[string]string{"run_id": "r2"}); v != 2 {
		t.Errorf("study_step of the second run: got %v, want 2", v)
	}
	if _, ok := value(t, p, "mongobench_target_ops_per_second", map[string]string{"run_id": "r2"}); ok {
		t.Errorf("a closed-loop run has a target series; want none")
	}
}

func TestHandler(t *testing.T) {
	p := live.New()
	p.Begin(live.Run{ID: "r1", Test: "kv"})
	p.Interval(interval(t, 0, 10, 0, 100))
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text") {
		t.Errorf("/metrics content type: got %q, want OpenMetrics", ct)
	}
	resp2, err := http.Get(srv.URL + "/live")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp2.Body.Close() }()
	var f live.Feed
	if err := json.NewDecoder(resp2.Body).Decode(&f); err != nil {
		t.Fatal(err)
	}
	if r, ok := f.Find("r1"); !ok || !r.Running || len(r.Intervals) != 1 {
		t.Errorf("/live: got %+v, want run r1 running with one interval", f)
	}
}

func TestCloseWithoutScraperDoesNotWait(t *testing.T) {
	p := live.New()
	s, err := live.Listen("127.0.0.1:0", p)
	if err != nil {
		t.Fatal(err)
	}
	p.Begin(live.Run{ID: "r1", Test: "kv"})
	p.Interval(interval(t, 0, 10, 0, 100))
	start := time.Now()
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("closed in %v", time.Since(start))
	if _, err := http.Get("http://" + s.Addr() + "/metrics"); err == nil {
		t.Errorf("the endpoint still answers after Close")
	}
}

// TestPublisherLeavesPartsOut: the parts of a YCSB read-modify-write
// (measurerwparts) are counted as such, and left out of the completed
// operations and the achieved rates, as in the stored result.
func TestPublisherLeavesPartsOut(t *testing.T) {
	p := live.New()
	tally := engine.NewTally()
	p.Begin(live.Run{ID: "f", Test: "ycsb-f", Tally: tally})
	d := dist(t, 100, 200)
	iv := &engine.Interval{Start: t0, Length: 2 * time.Second, Ops: []engine.IntervalOp{
		{Name: "READ", Count: 500, Parts: 250, Latency: d, Service: d},
		{Name: "UPDATE", Count: 250, Parts: 250, Latency: d, Service: d},
		{Name: "READ-MODIFY-WRITE", Count: 250, Latency: d, Service: d},
	}}
	if err := tally.Add(iv); err != nil {
		t.Fatal(err)
	}
	p.Interval(iv)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"mongobench_operations_total", map[string]string{"op": "READ"}, 500},
		{"mongobench_parts_total", map[string]string{"op": "READ"}, 250},
		{"mongobench_parts_total", map[string]string{"op": "UPDATE"}, 250},
		{"mongobench_completed_total", nil, 500},
		{"mongobench_achieved_ops_per_second", nil, 250},
		{"mongobench_run_achieved_ops_per_second", nil, 250},
	} {
		if got, ok := value(t, p, c.name, c.labels); !ok || got != c.want {
			t.Errorf("%s%v: got %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
}
