package study_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/catalog"
	"github.com/mongobench/mongobench/internal/price"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
)

// targetsFake is a study's outside world without a server: OnTarget
// records the targets, Measure records each scenario and answers with
// the document doc makes, Keep records what is kept.
type targetsFake struct {
	reg      spec.Registry
	target   string   // the label of the target OnTarget points at
	targets  []string // every target OnTarget was called with
	measured []*spec.Scenario
	variants []map[string]any
	kept     []*result.Doc
	said     []string
	steps    []study.StepInfo
	// doc makes the result of the n-th measure (0-based); nil: a plain one.
	doc func(n int, sc *spec.Scenario, variant map[string]any) *result.Doc
}

func (f *targetsFake) env() study.Env {
	return study.Env{
		Registry: f.reg,
		Measure: func(_ context.Context, sc *spec.Scenario, typed result.Variant) (*result.Doc, error) {
			variant := typed.Fields()
			n := len(f.measured)
			f.measured = append(f.measured, sc)
			f.variants = append(f.variants, variant)
			if f.doc != nil {
				return f.doc(n, sc, variant), nil
			}
			return &result.Doc{RunID: fmt.Sprintf("run-%d", n), TestName: sc.Name, Label: sc.Label, Repetition: sc.Repetition,
				Variant: maps.Clone(variant), TestResults: result.TestResults{}}, nil
		},
		Keep: func(_ context.Context, d *result.Doc) error {
			f.kept = append(f.kept, d)
			return nil
		},
		OnTarget: func(_ context.Context, t spec.Target, fn func(result.Instance) error) error {
			f.target = t.Label
			f.targets = append(f.targets, t.Label)
			defer func() { f.target = "" }()
			return fn(t.Described())
		},
		Say:  func(format string, args ...any) { f.said = append(f.said, fmt.Sprintf(format, args...)) },
		Step: func(s study.StepInfo) { f.steps = append(f.steps, s) },
	}
}

// catalogRegistry declares every parameter the tests' variants set, as
// text, for the tests' workloads.
func catalogRegistry(tests ...catalog.Test) spec.MapRegistry {
	reg := spec.MapRegistry{}
	for _, t := range tests {
		seen := map[string]bool{}
		for _, p := range reg[t.Workload] {
			seen[p.Name] = true
		}
		for _, v := range t.Variants(catalog.DefaultScale) {
			for _, a := range v.Params {
				name, _, _ := strings.Cut(a, "=")
				if !seen[name] {
					seen[name] = true
					reg[t.Workload] = append(reg[t.Workload], spec.ParamSpec{Name: name, Kind: spec.KindString})
				}
			}
		}
		if reg[t.Workload] == nil {
			reg[t.Workload] = []spec.ParamSpec{}
		}
	}
	return reg
}

func findTests(t *testing.T, names ...string) []catalog.Test {
	t.Helper()
	var out []catalog.Test
	for _, n := range names {
		c, err := catalog.Find(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

func twoTargets() []spec.Target {
	price := price.Price{Amount: 0.5, Currency: "USD", Period: price.PerHour}
	return []spec.Target{
		{Label: "a", URI: "mongodb://a/", Instance: spec.Instance{Type: "small"}},
		{Label: "b", URI: "mongodb://b/", Instance: spec.Instance{Type: "large", IOPS: 3000}, Price: &price},
	}
}

// TestCatalogRunOrder runs a test that varies the target and one that
// does not on two targets: every test on the first target, then on the
// second; the target-varying test once per target at the target's
// position, the other with all its variants on each; each result kept and
// returned under its test, with the target's label and description.
func TestCatalogRunOrder(t *testing.T) {
	tests := findTests(t, "insert_iops", "insert_idtype")
	f := &targetsFake{reg: catalogRegistry(tests...)}
	c := study.Catalog{Tests: tests, Targets: twoTargets(), Scale: catalog.DefaultScale, Database: "db1"}
	docs, err := c.Run(context.Background(), f.env())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, sc := range f.measured {
		got = append(got, fmt.Sprintf("%s %s/%v", sc.Label, sc.Name, f.variants[i]["order"]))
		if sc.Database != "db1" || sc.Workload != "insert" {
			t.Errorf("%s: database %q workload %q, want db1 and insert", got[i], sc.Database, sc.Workload)
		}
		inst, _ := f.variants[i]["instance"].(map[string]any)
		if want := map[string]string{"a": "small", "b": "large"}[sc.Label]; inst["atlasInstanceType"] != want {
			t.Errorf("%s: variant.instance %v, want the target's (%s)", got[i], inst, want)
		}
	}
	want := []string{
		"a insert_iops/0", "a insert_idtype/0", "a insert_idtype/1", "a insert_idtype/2",
		"b insert_iops/1", "b insert_idtype/0", "b insert_idtype/1", "b insert_idtype/2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("runs:\n got %v\nwant %v", got, want)
	}
	if !slices.Equal(f.targets, []string{"a", "b"}) {
		t.Errorf("targets: got %v, want a then b", f.targets)
	}
	if len(docs) != 2 || len(docs[0]) != 2 || len(docs[1]) != 6 || len(f.kept) != 8 {
		t.Fatalf("docs per test: got %d tests, %d kept; want [2 6] and 8 kept", len(docs), len(f.kept))
	}
	if docs[0][1].Variant["order"] != 1 || docs[0][1].Label != "b" {
		t.Errorf("insert_iops on b: order %v label %q, want 1 and b", docs[0][1].Variant["order"], docs[0][1].Label)
	}
	if !slices.Contains(f.said, "insert_iops on b: "+tests[0].Description+"\n") {
		t.Errorf("progress lines %q lack insert_iops on b", f.said)
	}
	for i, s := range f.steps {
		if s.N != i+1 || s.Total != 8 {
			t.Errorf("step %d: got %d of %d, want %d of 8", i, s.N, s.Total, i+1)
		}
	}
	if len(f.steps) != 8 || !strings.HasPrefix(f.steps[5].What, "insert_idtype on b, variant 1 of 3 (") {
		t.Errorf("steps: got %+v, want 8, the sixth insert_idtype's first variant on b", f.steps)
	}
}

// TestCatalogScenario checks a variant's run: the test's workload and
// name, the variant's threads, operations, warm-up, bound and parameters.
func TestCatalogScenario(t *testing.T) {
	tests := findTests(t, "query_full")
	f := &targetsFake{reg: catalogRegistry(tests...)}
	c := study.Catalog{Tests: tests, Targets: []spec.Target{{Label: "x"}}, Scale: catalog.DefaultScale}
	if _, err := c.Run(context.Background(), f.env()); err != nil {
		t.Fatal(err)
	}
	vs := tests[0].Variants(catalog.DefaultScale)
	if len(f.measured) != len(vs) {
		t.Fatalf("measured %d variants, want %d", len(f.measured), len(vs))
	}
	for i, v := range vs {
		sc := f.measured[i]
		if sc.Workload != "query" || sc.Name != "query_full" || sc.Threads != v.Threads || sc.Ops != v.Ops ||
			sc.Warmup != v.Warmup || sc.Duration != v.MaxDuration || sc.Database != spec.DefaultDatabase || sc.Label != "x" {
			t.Errorf("variant %d: scenario %+v, want variant %+v on x", i, sc, v)
		}
		for _, a := range v.Params {
			name, value, _ := strings.Cut(a, "=")
			if sc.Params[name] != value {
				t.Errorf("variant %d: param %s = %v, want %s", i, name, sc.Params[name], value)
			}
		}
	}
	if f.measured[0].Warmup == 0 || f.measured[1].Warmup != 0 {
		t.Errorf("warm-ups: cached %v, uncached %v; want one for the cached variant only", f.measured[0].Warmup, f.measured[1].Warmup)
	}
}

// TestCatalogStops checks that a run stopped early ends the catalog: its
// partial result is kept and returned, nothing after it runs, and the
// error wraps ErrStopped; a cancelled context stops before the next target.
func TestCatalogStops(t *testing.T) {
	tests := findTests(t, "insert_idtype", "insert_iops")
	f := &targetsFake{reg: catalogRegistry(tests...)}
	f.doc = func(n int, sc *spec.Scenario, v map[string]any) *result.Doc {
		return &result.Doc{RunID: fmt.Sprint(n), TestName: sc.Name, Variant: v, TestResults: result.TestResults{}, Partial: n == 1}
	}
	c := study.Catalog{Tests: tests, Targets: twoTargets(), Scale: catalog.DefaultScale}
	docs, err := c.Run(context.Background(), f.env())
	if !errors.Is(err, study.ErrStopped) || !strings.Contains(err.Error(), "insert_idtype stopped early") {
		t.Errorf("error: got %v, want insert_idtype stopped early (ErrStopped)", err)
	}
	if len(f.measured) != 2 || len(f.kept) != 2 || len(docs[0]) != 2 || len(docs[1]) != 0 || !docs[0][1].Partial {
		t.Errorf("got %d measured, %d kept, docs %v; want 2, 2, the partial one last", len(f.measured), len(f.kept), docs)
	}

	ctx, cancel := context.WithCancel(context.Background())
	f = &targetsFake{reg: catalogRegistry(tests...)}
	f.doc = func(n int, sc *spec.Scenario, v map[string]any) *result.Doc {
		if n == 3 { // the last run on the first target
			cancel()
		}
		return &result.Doc{TestName: sc.Name, Variant: v, TestResults: result.TestResults{}}
	}
	docs, err = c.Run(ctx, f.env())
	if !errors.Is(err, study.ErrStopped) || !strings.Contains(err.Error(), "stopped before target b") {
		t.Errorf("error: got %v, want stopped before target b (ErrStopped)", err)
	}
	if !slices.Equal(f.targets, []string{"a"}) || len(docs[0]) != 3 || len(docs[1]) != 1 {
		t.Errorf("targets %v, docs %d and %d; want a only, 3 and 1", f.targets, len(docs[0]), len(docs[1]))
	}
}

// TestCatalogRates checks the rates stored for each measure, and that
// nothing is stored for a phase without duration.
func TestCatalogRates(t *testing.T) {
	ops := []result.OpStats{{Name: "insert", Count: 150}, {Name: "other", Count: 50}}
	tests := []struct {
		name      string
		measure   catalog.Measure
		docsPerOp int64
		duration  float64
		variant   map[string]any
		results   result.TestResults
		want      result.TestResults
	}{
		{"ingest", catalog.Ingest, 10, 2000, map[string]any{"docSizeKB": 4.0}, result.TestResults{},
			result.TestResults{Catalog: result.Catalog{DocsInserted: i64(2000), DocsPerSecond: result.F(1000), MBPerSecond: result.F(2000 * 4.0 / 1024 / 2)}}},
		{"ingest without a size", catalog.Ingest, 1, 4000, map[string]any{}, result.TestResults{},
			result.TestResults{Catalog: result.Catalog{DocsInserted: i64(200), DocsPerSecond: result.F(50), MBPerSecond: result.F(0)}}},
		{"updates", catalog.Updates, 1, 500, nil, result.TestResults{},
			result.TestResults{Catalog: result.Catalog{NUpdates: i64(200), UpdatesPerSecond: result.F(400)}}},
		{"queries", catalog.Queries, 1, 1000, nil, result.TestResults{Counts: result.Counts{DocsReturned: i64(3000)}},
			result.TestResults{Counts: result.Counts{DocsReturned: i64(3000)},
				Catalog: result.Catalog{NQueries: i64(200), QueriesPerSecond: result.F(200), DocsPerSecond: result.F(3000)}}},
		{"queries without documents returned", catalog.Queries, 1, 1000, nil, result.TestResults{},
			result.TestResults{Catalog: result.Catalog{NQueries: i64(200), QueriesPerSecond: result.F(200)}}},
		{"no duration", catalog.Ingest, 1, 0, map[string]any{"docSizeKB": 4.0}, result.TestResults{}, result.TestResults{}},
	}
	for _, tt := range tests {
		d := &result.Doc{Duration: tt.duration, Ops: ops, Variant: tt.variant, TestResults: tt.results}
		study.CatalogRates(d, tt.measure, tt.docsPerOp)
		if !reflect.DeepEqual(d.TestResults, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.name, d.TestResults, tt.want)
		}
	}
}

// ExampleCatalogRates shows the rates an ingest variant gets: 1,000
// batches of 10 documents of 4 KB in 2 seconds.
func ExampleCatalogRates() {
	d := &result.Doc{Duration: float64(2 * time.Second / time.Millisecond), Variant: map[string]any{"docSizeKB": 4.0},
		Ops: []result.OpStats{{Name: "insert", Count: 1000}}, TestResults: result.TestResults{}}
	study.CatalogRates(d, catalog.Ingest, 10)
	tr := d.TestResults
	fmt.Println(*tr.DocsInserted, *tr.DocsPerSecond, *tr.MBPerSecond)
	// Output: 10000 5000 19.53125
}

func i64(v int64) *int64 { return &v }

func TestFlat(t *testing.T) {
	a, b, c := &result.Doc{RunID: "a"}, &result.Doc{RunID: "b"}, &result.Doc{RunID: "c"}
	got := study.Flat([][]*result.Doc{{a, b}, nil, {c}})
	if len(got) != 3 || got[0].RunID != "a" || got[2].RunID != "c" {
		t.Errorf("got %+v", got)
	}
	if study.Flat(nil) != nil {
		t.Error("nothing: not nil")
	}
}
