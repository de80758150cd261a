package cli_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/prometheus"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestMetricsScrapedByPrometheus runs a short open-loop benchmark with
// --metrics-addr against the real server while a real Prometheus scrapes
// it every second, then asks Prometheus's HTTP API for the run's series:
// the op label, the counters equal to the stored result, every scraped
// rate one of the result's interval rates, the rate within 2% of the
// document's.
func TestMetricsScrapedByPrometheus(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	db := testenv.DBName(t)
	dropAfter(t, c, db)
	addr := prometheus.FreeAddr(t)
	prom := prometheus.Start(t, addr)
	results := filepath.Join(t.TempDir(), "results.jsonl")

	o := mb(t, "run", "--uri", uri, "--database", db, "--rate", "200", "--duration", "5s", "-p", "records=500",
		"--metrics-addr", addr, "--results-file", results, "--no-report", "--json", "--label", "prom")
	wantCode(t, o, cli.ExitOK)
	var doc struct {
		RunID    string  `json:"runId"`
		Duration float64 `json:"duration"`
		Start    struct {
			Date time.Time `json:"$date"`
		} `json:"start"`
		Ops []struct {
			Name  string  `json:"name"`
			Count int64   `json:"count"`
			Rate  float64 `json:"opsPerSec"`
		} `json:"ops"`
		Intervals []struct {
			Ops []struct {
				Name string  `json:"name"`
				Rate float64 `json:"opsPerSec"`
			} `json:"ops"`
		} `json:"intervals"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, o.stdout)
	}
	for _, u := range prom.Query(t, `up{job="mongobench"}[10m]`) {
		t.Logf("up: %v", u.Floats(t))
	}
	grafanaQueries(t, prom, doc.Start.Date.Add(time.Duration(doc.Duration/2)*time.Millisecond))
	sel := fmt.Sprintf(`{job="mongobench",run_id=%q,test="kv",label="prom"}`, doc.RunID)

	// The counters: the final scrape (the endpoint waits for it) holds
	// every operation of the stored result.
	// A range selector: once the endpoint is gone, Prometheus marks the
	// series stale, and an instant selector finds nothing.
	total := prom.Query(t, "max_over_time(mongobench_operations_total"+sel+"[10m])")
	var ops []string
	var counted, stored float64
	for _, s := range total {
		ops = append(ops, s.Metric["op"])
		counted += s.Float(t)
	}
	var docOps []string
	var docRate float64
	for _, op := range doc.Ops {
		docOps = append(docOps, op.Name)
		stored += float64(op.Count)
		docRate += op.Rate
	}
	slices.Sort(ops)
	slices.Sort(docOps)
	if !slices.Equal(ops, docOps) || len(ops) == 0 {
		t.Fatalf("op labels of mongobench_operations_total: got %v, want the result's %v", ops, docOps)
	}
	if counted != stored {
		t.Errorf("mongobench_operations_total: got %v operations, want the stored result's %v", counted, stored)
	}
	// The rate over the run from Prometheus's counters, against the
	// document's successful operations per second.
	secs := doc.Duration / 1000
	rate := prom.Query(t, fmt.Sprintf("sum(max_over_time(mongobench_operations_total%s[10m])) / %g", sel, secs))
	if len(rate) != 1 {
		t.Fatalf("rate query: got %d series, want 1", len(rate))
	}
	if got := rate[0].Float(t); got <= 0 || math.Abs(got-docRate)/docRate > 0.02 {
		t.Errorf("rate from Prometheus: got %.2f ops/s, want within 2%% of the result's %.2f", got, docRate)
	} else {
		t.Logf("rate from Prometheus %.3f ops/s, the result's %.3f", got, docRate)
	}

	// Every scraped per-operation rate is the rate of one of the result's
	// intervals, except those of the last interval and the tail it
	// absorbed (the result stores them merged).
	for _, op := range docOps {
		raw := prom.Query(t, fmt.Sprintf(`mongobench_ops_per_second%s[10m]`, withOp(sel, op)))
		if len(raw) != 1 {
			t.Fatalf("%s: got %d series of mongobench_ops_per_second, want 1", op, len(raw))
		}
		var matched int
		other := map[float64]bool{}
		for _, v := range raw[0].Floats(t) {
			if v > 0 && slices.ContainsFunc(doc.Intervals, func(iv struct {
				Ops []struct {
					Name string  `json:"name"`
					Rate float64 `json:"opsPerSec"`
				} `json:"ops"`
			}) bool {
				return slices.ContainsFunc(iv.Ops, func(o struct {
					Name string  `json:"name"`
					Rate float64 `json:"opsPerSec"`
				}) bool {
					return o.Name == op && math.Abs(o.Rate-v) <= 1e-9*v
				})
			}) {
				matched++
			} else {
				other[v] = true
			}
		}
		if matched == 0 || len(other) > 2 {
			t.Errorf("%s: %d scraped rates are interval rates of the result, %d other values %v; want at least one, at most two others",
				op, matched, len(other), other)
		}
	}

	// The run's gauges: target, achieved, a latency percentile, the step.
	for q, want := range map[string]func(float64) bool{
		"max_over_time(mongobench_target_ops_per_second" + sel + "[10m])":                  func(v float64) bool { return v == 200 },
		"max_over_time(mongobench_achieved_ops_per_second" + sel + "[10m])":                func(v float64) bool { return v > 0 },
		`max_over_time(mongobench_latency_seconds{quantile="0.99",job="mongobench"}[10m])`: func(v float64) bool { return v > 0 },
		"max_over_time(mongobench_study_step" + sel + "[10m])":                             func(v float64) bool { return v == 1 },
		"last_over_time(mongobench_run_running" + sel + "[10m])":                           func(v float64) bool { return v == 0 },
		// The server telemetry the tool samples: serverStatus's open
		// connections (at least this run's), and the host's CPU (the test
		// server runs on this host).
		`max_over_time(mongobench_server_figure{job="mongobench",figure="connections"}[10m])`: func(v float64) bool { return v >= 1 },
		`max_over_time(mongobench_host_figure{job="mongobench",figure="cpuUserPct"}[10m])`:    func(v float64) bool { return v > 0 && v <= 100 },
	} {
		got := prom.Query(t, q)
		if len(got) == 0 {
			t.Errorf("%s: no series", q)
			continue
		}
		for _, s := range got {
			if v := s.Float(t); !want(v) {
				t.Errorf("%s: got %v (%v)", q, v, s.Metric)
			}
		}
	}
}

// grafanaQueries checks the shipped Grafana dashboard's queries against
// the real Prometheus in the middle of the run: each must parse, and
// each but the errors panel (no errors happened) must find series.
func grafanaQueries(t *testing.T, prom *prometheus.Server, mid time.Time) {
	b, err := os.ReadFile("../../docs/grafana/mongobench-live.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatal(err)
	}
	vars := strings.NewReplacer("$test", ".*", "$label", ".*", "$run_id", ".*")
	for _, p := range dash.Panels {
		for _, target := range p.Targets {
			got := prom.QueryAt(t, vars.Replace(target.Expr), mid)
			if len(got) == 0 && !strings.HasPrefix(p.Title, "Errors") {
				t.Errorf("Grafana panel %q: %s found no series in the middle of the run", p.Title, target.Expr)
			}
		}
	}
}

func withOp(sel, op string) string {
	return sel[:len(sel)-1] + fmt.Sprintf(",op=%q}", op)
}
