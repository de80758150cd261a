package studyview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/testsupport/golden"
	"github.com/mongobench/mongobench/internal/textreport"
)

// TestSweepStudyAuto grows the rate by 2 from 500/s on a server that
// saturates at 3,000/s, then bisects: 4,000 fails, 3,000 holds, 3,500 and
// 3,250 fail, and the gap to 3,000 is then below 10%.
func TestSweepStudyAuto(t *testing.T) {
	l := &lab{Model: saturating(3000)}
	s := study.SweepStudy{ID: "S1", Base: kvBase(t), Rates: study.Auto{Start: 500, Factor: 2, Max: 100000}, Repeat: 1, Criteria: sweepCriteria}
	res, err := s.Run(context.Background(), envOf(l))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.Rates(), []float64{500, 1000, 2000, 4000, 3000, 3500, 3250}; !slices.Equal(got, want) {
		t.Errorf("rates: got %v, want %v", got, want)
	}
	if len(res.Steps) != 7 || len(l.Kept) != 7 {
		t.Fatalf("steps %d, kept %d; want 7 each", len(res.Steps), len(l.Kept))
	}
	for i, v := range l.Variants {
		want := map[string]any{"sweep": "S1", "sweepStep": i + 1, "repetition": 0}
		if !reflect.DeepEqual(v, want) {
			t.Errorf("variant %d: got %v, want %v", i, v, want)
		}
	}
	sc := l.Measured[0]
	if sc.Name != "kv" || sc.Threads != spec.DefaultOpenThreads || sc.Params.Int("records") != 500 || sc.Label != "r6g" {
		t.Errorf("scenario: name %q, %d threads, records %d, label %q; want kv, 64, 500, r6g", sc.Name, sc.Threads, sc.Params.Int("records"), sc.Label)
	}
	if s.Base.Scenario.Rate != 0 || s.Base.Scenario.Threads != 0 {
		t.Errorf("the base changed: %+v", s.Base.Scenario)
	}
	wantResults := &result.SweepVerdict{ID: "S1", Step: 4, Criteria: sweepCriteria.String(), Holds: false,
		Reasons: []string{"achieved 3,000/s < 95% of 4,000/s", "read p99 60.0 ms > 20 ms"}}
	if got := l.Kept[3].TestResults.Sweep; !reflect.DeepEqual(got, wantResults) {
		t.Errorf("testResults.sweep of step 4:\ngot  %#v\nwant %#v", got, wantResults)
	}
	if got := l.Kept[4].TestResults.Sweep.Holds; got != true {
		t.Errorf("3,000/s: holds %v, want true", got)
	}
	wantSaid := []string{
		"sweep S1 of kv: a step holds when achieved ≥ 95% of target, p99 of every operation ≤ 20 ms, errors ≤ 1%\n",
		"step 1      500/s run 1: achieved 500/s, p99 2 ms, 0 errors, 0 late: holds\n",
	}
	if !slices.Equal(l.Said[:2], wantSaid) {
		t.Errorf("said:\ngot  %q\nwant %q", l.Said[:2], wantSaid)
	}
	if want := "step 4     4000/s run 1: achieved 3000/s, p99 60 ms, 0 errors, 0 late: fails: achieved 3,000/s < 95% of 4,000/s; read p99 60.0 ms > 20 ms\n"; l.Said[4] != want {
		t.Errorf("step 4 said:\ngot  %q\nwant %q", l.Said[4], want)
	}
	var b bytes.Buffer
	if err := textreport.Study(&b, viewOf(res)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Saturation throughput: 3,000 ops/s achieved", "Maximum throughput that held (" + sweepCriteria.String() + "): 3,000 ops/s."} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("tables lack %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "p99 stable") {
		t.Errorf("one run per rate, yet the spread table prints:\n%s", b.String())
	}
}

// TestSweepStudyRepeat holds a rate when most of its runs hold: 1,000/s
// holds with 2 of 3, so the search grows to 2,000/s; every rate above
// fails, and the search bisects four times.
func TestSweepStudyRepeat(t *testing.T) {
	l := &lab{}
	l.Model = func(sc *spec.Scenario) outcome {
		r := float64(sc.Rate)
		if r > 1000 || sc.Repetition == 1 {
			return outcome{Achieved: r / 2, P99: fl(50)}
		}
		return outcome{Achieved: r, P99: fl(1)}
	}
	s := study.SweepStudy{ID: "S2", Base: kvBase(t), Rates: study.Auto{Start: 1000, Factor: 2, Max: 5000}, Repeat: 3, Criteria: sweepCriteria}
	res, err := s.Run(context.Background(), envOf(l))
	if err != nil {
		t.Fatal(err)
	}
	var want []float64
	for _, r := range []float64{1000, 2000, 1500, 1250, 1125, 1063} {
		want = append(want, r, r, r)
	}
	if got := l.Rates(); !slices.Equal(got, want) {
		t.Errorf("rates: got %v, want %v", got, want)
	}
	for i, sc := range l.Measured {
		if sc.Repetition != i%3 || l.Variants[i]["repetition"] != i%3 || l.Variants[i]["sweepStep"] != i/3+1 {
			t.Errorf("run %d: repetition %d, variant %v; want repetition %d of step %d", i, sc.Repetition, l.Variants[i], i%3, i/3+1)
		}
	}
	if best, ok := study.MaxAtSLA(res.Steps, sweepCriteria); !ok || best != 1000 {
		t.Errorf("max at SLA: got %v %v, want 1000", best, ok)
	}
	var b bytes.Buffer
	if err := textreport.Study(&b, viewOf(res)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "p99 stable") {
		t.Errorf("repetitions, yet no spread table:\n%s", b.String())
	}
}

// TestSLAStudyLadder steps the rate up by 500 TPS until every mode
// fails: per-op keeps up to 1,000 TPS, client-bulk to 1,500.
func TestSLAStudyLadder(t *testing.T) {
	l := &lab{}
	l.Model = func(sc *spec.Scenario) outcome {
		limit := 1000.0
		if sc.Params["mode"] == "client-bulk" {
			limit = 1500
		}
		if r := float64(sc.Rate); r <= limit {
			return outcome{Achieved: r, P99: fl(8)}
		}
		return outcome{Achieved: limit, P99: fl(400)}
	}
	sla := study.SLA{P99: 20 * time.Millisecond}
	base := study.Base{Scenario: &spec.Scenario{Name: study.TestName, Workload: "ledger"}, Params: []string{"mode=client-bulk", "accounts=500"}}
	s := study.SLAStudy{SLA: sla, Rates: study.Ladder{Start: 500, Step: 500, Max: 100000}, Runs: 2, Modes: []string{"per-op", "client-bulk"}, Stage: "baseline", Base: base}
	res, err := s.Run(context.Background(), envOf(l))
	if err != nil {
		t.Fatal(err)
	}
	var wantRates []float64
	var wantModes []string
	for _, r := range []float64{500, 1000, 1500, 2000} {
		wantRates = append(wantRates, r, r, r, r)
		wantModes = append(wantModes, "per-op", "client-bulk", "per-op", "client-bulk")
	}
	var modes []string
	for i, sc := range l.Measured {
		modes = append(modes, sc.Params["mode"].(string))
		if sc.Repetition != i/2%2 || sc.Params.Int("accounts") != 500 || sc.Name != study.TestName {
			t.Errorf("run %d: repetition %d, accounts %d, name %q", i, sc.Repetition, sc.Params.Int("accounts"), sc.Name)
		}
		if !reflect.DeepEqual(l.Variants[i], map[string]any{"stage": "baseline", "mode": modes[i]}) {
			t.Errorf("run %d: variant %v", i, l.Variants[i])
		}
	}
	if got := l.Rates(); !slices.Equal(got, wantRates) || !slices.Equal(modes, wantModes) {
		t.Errorf("runs: got %v %v, want %v %v", got, modes, wantRates, wantModes)
	}
	if got, want := l.Said[len(l.Said)-1], "every mode failed at 2000 TPS: stopping\n"; got != want {
		t.Errorf("last line: got %q, want %q", got, want)
	}
	if got, want := l.Said[0], "SLA: "+sla.String()+"; 2 runs per mode and rate\n"; got != want {
		t.Errorf("first line: got %q, want %q", got, want)
	}
	if got, want := l.Said[1], "per-op         500 TPS run 1: p99 8 ms, 500/s, 0 retries: PASS\n"; got != want {
		t.Errorf("run line: got %q, want %q", got, want)
	}
	wantVerdict := &result.SLAVerdict{Spec: sla.String(), Pass: false, Reasons: []string{"p99 400 ms > 20 ms", "achieved 1,000/s < 99% of 1,500/s"}}
	if got := l.Kept[8].TestResults.SLA; !reflect.DeepEqual(got, wantVerdict) {
		t.Errorf("testResults.sla of per-op at 1,500:\ngot  %#v\nwant %#v", got, wantVerdict)
	}
	if len(res.Runs) != 16 {
		t.Errorf("runs: got %d, want 16", len(res.Runs))
	}
	var b bytes.Buffer
	if err := textreport.Study(&b, viewOf(res)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "target TPS") {
		t.Errorf("several rates, yet no scaling table:\n%s", b.String())
	}
}

// TestCalibrateStudyKnee doubles the threads until a step gains less
// than 5% while p99 climbs: the knee is 8 threads.
func TestCalibrateStudyKnee(t *testing.T) {
	l := &lab{Model: calibrationServer}
	base := study.Base{Scenario: &spec.Scenario{Workload: "kv", Duration: spec.Duration(10 * time.Second)}}
	c := study.CalibrateStudy{ID: "C1", Search: study.Calibration{Start: 1, Factor: 2, Max: 256, MinGain: 0.05}, Base: base}
	res, err := c.Run(context.Background(), envOf(l))
	if err != nil {
		t.Fatal(err)
	}
	var threads []int
	for i, sc := range l.Measured {
		threads = append(threads, sc.Threads)
		if sc.Rate != 0 || !reflect.DeepEqual(l.Variants[i], map[string]any{"calibration": "C1", "calibrationStep": i + 1}) {
			t.Errorf("run %d: rate %v, variant %v", i, sc.Rate, l.Variants[i])
		}
	}
	if !slices.Equal(threads, []int{1, 2, 4, 8, 16}) {
		t.Errorf("threads: got %v, want 1, 2, 4, 8, 16", threads)
	}
	if got := l.Kept[0].TestResults.Calibration; !reflect.DeepEqual(got, &result.Calibration{ID: "C1", Step: 1}) {
		t.Errorf("first step's testResults.calibration: got %v, want no gain", got)
	}
	entry := l.Kept[4].TestResults.Calibration
	if entry.Gain == nil || entry.Step != 5 || *entry.Gain < 0.020 || *entry.Gain > 0.022 {
		t.Errorf("last step's testResults.calibration: got %v, want step 5, gain about 0.021", entry)
	}
	wantSaid := []string{
		"calibration C1 of kv: double the threads until a step gains < 5% while p99 climbs\n",
		"step 1    1 threads: 1500 ops/s, p99 1.1 ms, 0 errors\n",
	}
	if !slices.Equal(l.Said[:2], wantSaid) {
		t.Errorf("said:\ngot  %q\nwant %q", l.Said[:2], wantSaid)
	}
	var b bytes.Buffer
	if err := textreport.Study(&b, viewOf(res)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Knee: 8 threads, 5,930 ops/s") {
		t.Errorf("tables lack the knee:\n%s", b.String())
	}
}

// TestStudyReports renders the three studies' Markdown reports from lab
// runs: golden files, and the sweep's charts linked and returned.
func TestStudyReports(t *testing.T) {
	l := &lab{Model: saturating(3000)}
	sw, err := study.SweepStudy{ID: "S1", Base: kvBase(t), Rates: study.Auto{Start: 1000, Factor: 2, Max: 100000}, Repeat: 1, Criteria: sweepCriteria}.Run(context.Background(), envOf(l))
	if err != nil {
		t.Fatal(err)
	}
	md, charts := markdown(t, Sweep(sw, RunFiles([]string{"run-01.md", "run-02.md"})))
	golden.Check(t, "sweep-report.md", md)
	svg := charts["charts/sweep-S1-sweep-p99.svg"]
	if sweepReportName(sw) != "sweep-S1" || len(charts) != 2 || charts["charts/sweep-S1-sweep-throughput.svg"] == nil || !bytes.HasPrefix(svg, []byte("<?xml")) {
		t.Errorf("sweep report %s: charts %d", sweepReportName(sw), len(charts))
	}
	for path := range charts {
		if !bytes.Contains(md, []byte("]("+path+")")) {
			t.Errorf("the report does not link %s", path)
		}
	}

	l = &lab{Model: saturating(1000)}
	sla, err := study.SLAStudy{SLA: study.SLA{P99: 20 * time.Millisecond}, Rates: study.List{500, 1500}, Runs: 2, Modes: []string{"per-op", "client-bulk"}, Stage: "7KB accounts",
		Base: study.Base{Scenario: &spec.Scenario{Name: study.TestName, Workload: "ledger"}}}.Run(context.Background(), envOf(l))
	if err != nil {
		t.Fatal(err)
	}
	md, charts = markdown(t, SLA(sla, "8 transfers, 500 accounts: balances conserved", RunFiles([]string{"run-01.md"})))
	golden.Check(t, "sla-report.md", md)
	if len(charts) != 0 {
		t.Errorf("SLA report: %d SVG charts, want none (its chart is drawn by the page)", len(charts))
	}

	l = &lab{Model: calibrationServer}
	cal, err := study.CalibrateStudy{ID: "C1", Search: study.Calibration{Start: 1, Factor: 2, Max: 256},
		Base: study.Base{Scenario: &spec.Scenario{Workload: "kv", Duration: spec.Duration(10 * time.Second)}}}.Run(context.Background(), envOf(l))
	if err != nil {
		t.Fatal(err)
	}
	md, _ = markdown(t, Calibrate(cal, nil))
	golden.Check(t, "calibrate-report.md", md)
	if calibrateReportName(cal) != "calibrate-C1" {
		t.Errorf("calibration report name: %s", calibrateReportName(cal))
	}
}

// TestCompareSweeps compares two labels' latest sweeps made in the lab,
// and refuses sweeps of different workloads.
func TestCompareSweeps(t *testing.T) {
	sweep := func(label, workload string, capacity float64, id string) study.Contender {
		l := &lab{Model: saturating(capacity)}
		base := study.Base{Scenario: &spec.Scenario{Workload: "kv", Label: label}}
		if _, err := (study.SweepStudy{ID: id, Base: base, Rates: study.List{1000, 2000, 4000}, Repeat: 1, Criteria: sweepCriteria}).Run(context.Background(), envOf(l)); err != nil {
			t.Fatal(err)
		}
		c := study.Contender{Label: label}
		for _, d := range l.Kept {
			d.TestConfig["workload"] = workload
			c.Docs = append(c.Docs, *d)
		}
		return c
	}
	fast, slow := sweep("fast", "kv", 3000, "S2"), sweep("slow/old", "kv", 1500, "S1")
	older := sweep("fast", "kv", 500, "S0") // an older sweep of fast: not compared
	fast.Docs = append(older.Docs, fast.Docs...)
	slow.Price = usd(4)
	c, err := study.CompareSweeps([]study.Contender{fast, slow}, sweepCriteria, significance.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Profiles) != 2 || len(c.Pairs) != 1 || c.Profiles[0].Sweep != "S2" || c.Profiles[0].Saturation != 3000 || *c.Profiles[1].Cost != 4 {
		t.Fatalf("profiles %+v, pairs %d", c.Profiles, len(c.Pairs))
	}
	if comparisonReportName(c) != "compare-fast-vs-slow_old" {
		t.Errorf("report name: got %q", comparisonReportName(c))
	}
	md, charts := markdown(t, Comparison(c))
	b := bytes.NewBuffer(md)
	if len(charts) != 2 || !strings.HasPrefix(b.String(), "# fast vs slow/old: kv\n\nA target holds when ") ||
		!strings.Contains(b.String(), "\n## fast vs slow/old\n\n") || !strings.Contains(b.String(), "](charts/compare-fast-vs-slow_old-sweep-p99.svg)") {
		t.Errorf("report: %d charts\n%s", len(charts), b.String())
	}
	other := sweep("other", "ycsb-b", 3000, "S3")
	if _, err := study.CompareSweeps([]study.Contender{fast, other}, sweepCriteria, significance.Settings{}); !errors.Is(err, study.ErrMixedWorkloads) ||
		err.Error() != "the latest sweeps ran different workloads (fast: kv, other: ycsb-b); choose one with --workload" {
		t.Errorf("mixed workloads: got %v", err)
	}
	// A sweep stored with a price in euros against one given in dollars:
	// refused, naming both.
	euro := sweep("euro", "kv", 3000, "S4")
	for i := range euro.Docs {
		euro.Docs[i].ID = append(euro.Docs[i].ID, result.Ordered{{Key: "instance", Value: map[string]any{"cost": 290.0, "currency": "EUR"}}}...)
	}
	if _, err := study.CompareSweeps([]study.Contender{slow, euro}, sweepCriteria, significance.Settings{}); !errors.Is(err, study.ErrMixedCurrencies) ||
		err.Error() != "prices in different currencies cannot be compared: slow/old's 4 USD/h and euro's 2.9 EUR/h; give every price in one currency (--price LABEL=PRICE)" {
		t.Errorf("mixed currencies: got %v", err)
	}
}

// markdown renders a study's view as its Markdown report.
func markdown(t *testing.T, v *report.StudyView) ([]byte, map[string][]byte) {
	t.Helper()
	md, charts, err := textreport.StudyMarkdown(v)
	if err != nil {
		t.Fatal(err)
	}
	return md, charts
}

// viewOf is a study's result's view, as the terminal shows it.
func viewOf(res any) *report.StudyView {
	switch r := res.(type) {
	case study.SweepResult:
		return Sweep(r, nil)
	case study.SLAResult:
		return SLA(r, "", nil)
	case study.CalibrateResult:
		return Calibrate(r, nil)
	}
	panic(fmt.Sprintf("no view of %T", res))
}
