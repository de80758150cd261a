package study_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
)

// loadRegistry declares the load workloads of ycsb-a and ycsb-e with the
// parameters the load's sizing reads.
func loadRegistry() spec.MapRegistry {
	params := []spec.ParamSpec{
		{Name: "recordcount", Kind: spec.KindInt, Default: "1000", Min: "0"},
		{Name: "insertstart", Kind: spec.KindInt, Default: "0", Min: "0"},
		{Name: "insertcount", Kind: spec.KindInt, Default: "0", Min: "0"},
		{Name: "batchSize", Kind: spec.KindInt, Default: "1000", Min: "1"},
		{Name: "loaders", Kind: spec.KindInt, Default: "4", Min: "1"},
	}
	return spec.MapRegistry{"ycsb-a-load": params, "ycsb-e-load": params}
}

// TestLoadScenario sizes loads: as many operations as batches load the
// records from insertstart, as many workers as loaders, no warm-up, the
// run named after the workload.
func TestLoadScenario(t *testing.T) {
	for _, tt := range []struct {
		params      []string
		batches     int64
		threads     int
		recordcount int64
	}{
		{nil, 1, 4, 1000},
		{[]string{"recordcount=3000", "batchSize=500", "loaders=3"}, 6, 3, 3000},
		{[]string{"recordcount=3001", "batchSize=500"}, 7, 4, 3001},
		{[]string{"recordcount=1000", "insertstart=400", "batchSize=100"}, 6, 4, 1000},
		{[]string{"recordcount=1000", "insertstart=400", "insertcount=250", "batchSize=100", "loaders=8"}, 3, 8, 1000},
	} {
		l := study.Load{Workload: "ycsb-e", Params: tt.params, Database: "db", Label: "lab"}
		sc, err := l.Scenario(loadRegistry())
		if err != nil {
			t.Fatalf("%v: %v", tt.params, err)
		}
		if sc.Ops != tt.batches || sc.Threads != tt.threads || sc.Warmup != 0 || sc.Duration != 0 || sc.Rate != 0 {
			t.Errorf("%v: %d ops, %d threads, warm-up %v, duration %v, rate %v; want %d batches by %d loaders, closed loop, no warm-up, no bound",
				tt.params, sc.Ops, sc.Threads, sc.Warmup, sc.Duration, sc.Rate, tt.batches, tt.threads)
		}
		if sc.Name != "ycsb-e" || sc.Workload != "ycsb-e-load" || sc.Database != "db" || sc.Label != "lab" ||
			sc.Params["recordcount"] != tt.recordcount {
			t.Errorf("%v: scenario %+v", tt.params, sc)
		}
	}
}

func TestLoadScenarioErrors(t *testing.T) {
	for _, tt := range []struct {
		workload string
		params   []string
		want     string
	}{
		{"kv", nil, `--workload: "kv" has no load phase; want one of ycsb-a … ycsb-f`},
		{"ycsb-z", nil, `--workload: "ycsb-z" has no load phase`},
		{"ycsb-a", []string{"recordcount=10", "insertstart=10"}, "ycsb-a-load: insertcount 0: no keys to operate on"},
		{"ycsb-a", []string{"batchSize=0"}, "batchSize"},
		{"ycsb-a", []string{"nosuch=1"}, "nosuch"},
	} {
		_, err := study.Load{Workload: tt.workload, Params: tt.params}.Scenario(loadRegistry())
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %v: got %v, want an error containing %q", tt.workload, tt.params, err, tt.want)
		}
	}
}

// loadDoc is a measured load: 3,000 records of 3.6 MB in 1.5 s, six
// batches.
func loadDoc(partial bool) *result.Doc {
	return &result.Doc{RunID: "load-1", Duration: 1500, Partial: partial, Variant: map[string]any{"phase": "load"},
		TestResults: result.TestResults{Counts: result.Counts{Docs: result.Ptr(int64(3000)), Bytes: result.Ptr(int64(3_600_000))}},
		Ops: []result.OpStats{{Name: "BATCH-INSERT", Count: 6, Errors: result.Errors{Total: 1},
			Latency: result.Dist{P50: result.F(140.25), P99: result.F(410.9)}}}}
}

// TestLoadRun measures a load on the fake: one run, phase load, with its
// rates added, kept, and the line that says what it did.
func TestLoadRun(t *testing.T) {
	f := &targetsFake{reg: loadRegistry()}
	f.doc = func(_ int, _ *spec.Scenario, v map[string]any) *result.Doc { return loadDoc(false) }
	l := study.Load{Workload: "ycsb-a", Params: []string{"recordcount=3000", "batchSize=500", "loaders=3"}}
	d, err := l.Run(context.Background(), f.env())
	if err != nil {
		t.Fatal(err)
	}
	if len(f.measured) != 1 || f.variants[0]["phase"] != "load" || f.measured[0].Ops != 6 || len(f.kept) != 1 || f.kept[0] != d {
		t.Fatalf("measured %d (variant %v), kept %d; want one load of 6 batches, kept", len(f.measured), f.variants, len(f.kept))
	}
	if want := "ycsb-a load: 3 loaders, 6 batches of up to 500 records\n"; len(f.said) != 1 || f.said[0] != want {
		t.Errorf("said %q, want %q", f.said, want)
	}
	if tr := d.TestResults; tr.DocsPerSec == nil || *tr.DocsPerSec != 2000 || tr.MBPerSec == nil || *tr.MBPerSec != 2.4 {
		t.Errorf("rates: %v, want 2000 docs/s and 2.4 MB/s", d.TestResults)
	}
	want := "loaded 3000 records (3.6 MB) in 1.5 s: 2000 docs/s, 2.40 MB/s; batch p50 140 ms, p99 411 ms; 1 failed batches"
	if got := study.LoadLine(d); got != want {
		t.Errorf("line:\n got %q\nwant %q", got, want)
	}
}

// TestLoadRunStops checks that a load stopped early is kept and returned
// with an error wrapping ErrStopped.
func TestLoadRunStops(t *testing.T) {
	f := &targetsFake{reg: loadRegistry()}
	f.doc = func(int, *spec.Scenario, map[string]any) *result.Doc { return loadDoc(true) }
	d, err := study.Load{Workload: "ycsb-a"}.Run(context.Background(), f.env())
	if d == nil || !errors.Is(err, study.ErrStopped) || len(f.kept) != 1 {
		t.Errorf("got %v, %v, %d kept; want the partial load, ErrStopped, kept", d, err, len(f.kept))
	}
}

// TestLoadRates leaves rates out for a load without duration, and
// LoadLine reads what there is.
func TestLoadRates(t *testing.T) {
	d := &result.Doc{TestResults: result.TestResults{Counts: result.Counts{Docs: result.Ptr(int64(10)), Bytes: result.Ptr(int64(2000))}}}
	study.LoadRates(d)
	if d.TestResults.DocsPerSec != nil || d.TestResults.MBPerSec != nil {
		t.Errorf("no duration: got %v, want no rates", d.TestResults)
	}
	if got, want := study.LoadLine(d), "loaded 10 records (0.0 MB) in 0.0 s: 0 docs/s, 0.00 MB/s"; got != want {
		t.Errorf("line: got %q, want %q", got, want)
	}
}
