package study

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
	"github.com/mongobench/mongobench/internal/testsupport/golden"
	"github.com/mongobench/mongobench/internal/threshold"
)

var sweepCriteria = Criteria{MinFraction: DefaultSweepFraction, SLA: 20 * time.Millisecond, MaxErrors: 0.01}

// TestSweepStudyAuto grows the rate by 2 from 500/s on a server that
// saturates at 3,000/s, then bisects: 4,000 fails, 3,000 holds, 3,500 and
// 3,250 fail, and the gap to 3,000 is then below 10%.
func TestSweepStudyAuto(t *testing.T) {
	l := &lab{model: saturating(3000)}
	s := SweepStudy{ID: "S1", Base: kvBase(t), Rates: Auto{Start: 500, Factor: 2, Max: 100000}, Repeat: 1, Criteria: sweepCriteria}
	res, err := s.Run(context.Background(), l.env())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.rates(), []float64{500, 1000, 2000, 4000, 3000, 3500, 3250}; !slices.Equal(got, want) {
		t.Errorf("rates: got %v, want %v", got, want)
	}
	if len(res.Steps) != 7 || len(l.kept) != 7 {
		t.Fatalf("steps %d, kept %d; want 7 each", len(res.Steps), len(l.kept))
	}
	for i, v := range l.variants {
		want := map[string]any{"sweep": "S1", "sweepStep": i + 1, "repetition": 0}
		if !reflect.DeepEqual(v, want) {
			t.Errorf("variant %d: got %v, want %v", i, v, want)
		}
	}
	sc := l.measured[0]
	if sc.Name != "kv" || sc.Threads != spec.DefaultOpenThreads || sc.Params.Int("records") != 500 || sc.Label != "r6g" {
		t.Errorf("scenario: name %q, %d threads, records %d, label %q; want kv, 64, 500, r6g", sc.Name, sc.Threads, sc.Params.Int("records"), sc.Label)
	}
	if s.Base.Scenario.Rate != 0 || s.Base.Scenario.Threads != 0 {
		t.Errorf("the base changed: %+v", s.Base.Scenario)
	}
	wantResults := &result.SweepVerdict{ID: "S1", Step: 4, Criteria: sweepCriteria.String(), Holds: false,
		Reasons: []string{"achieved 3,000/s < 95% of 4,000/s", "read p99 60.0 ms > 20 ms"}}
	if got := l.kept[3].TestResults.Sweep; !reflect.DeepEqual(got, wantResults) {
		t.Errorf("testResults.sweep of step 4:\ngot  %#v\nwant %#v", got, wantResults)
	}
	if got := l.kept[4].TestResults.Sweep.Holds; got != true {
		t.Errorf("3,000/s: holds %v, want true", got)
	}
	wantSaid := []string{
		"sweep S1 of kv: a step holds when achieved ≥ 95% of target, p99 of every operation ≤ 20 ms, errors ≤ 1%\n",
		"step 1      500/s run 1: achieved 500/s, p99 2 ms, 0 errors, 0 late: holds\n",
	}
	if !slices.Equal(l.said[:2], wantSaid) {
		t.Errorf("said:\ngot  %q\nwant %q", l.said[:2], wantSaid)
	}
	if want := "step 4     4000/s run 1: achieved 3000/s, p99 60 ms, 0 errors, 0 late: fails: achieved 3,000/s < 95% of 4,000/s; read p99 60.0 ms > 20 ms\n"; l.said[4] != want {
		t.Errorf("step 4 said:\ngot  %q\nwant %q", l.said[4], want)
	}
	var b bytes.Buffer
	if err := viewOf(res).Text(&b); err != nil {
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
	l.model = func(sc *spec.Scenario) outcome {
		r := float64(sc.Rate)
		if r > 1000 || sc.Repetition == 1 {
			return outcome{achieved: r / 2, p99: fl(50)}
		}
		return outcome{achieved: r, p99: fl(1)}
	}
	s := SweepStudy{ID: "S2", Base: kvBase(t), Rates: Auto{Start: 1000, Factor: 2, Max: 5000}, Repeat: 3, Criteria: sweepCriteria}
	res, err := s.Run(context.Background(), l.env())
	if err != nil {
		t.Fatal(err)
	}
	var want []float64
	for _, r := range []float64{1000, 2000, 1500, 1250, 1125, 1063} {
		want = append(want, r, r, r)
	}
	if got := l.rates(); !slices.Equal(got, want) {
		t.Errorf("rates: got %v, want %v", got, want)
	}
	for i, sc := range l.measured {
		if sc.Repetition != i%3 || l.variants[i]["repetition"] != i%3 || l.variants[i]["sweepStep"] != i/3+1 {
			t.Errorf("run %d: repetition %d, variant %v; want repetition %d of step %d", i, sc.Repetition, l.variants[i], i%3, i/3+1)
		}
	}
	if best, ok := MaxAtSLA(res.Steps, sweepCriteria); !ok || best != 1000 {
		t.Errorf("max at SLA: got %v %v, want 1000", best, ok)
	}
	var b bytes.Buffer
	if err := viewOf(res).Text(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "p99 stable") {
		t.Errorf("repetitions, yet no spread table:\n%s", b.String())
	}
}

// TestSweepStudyList measures every listed rate, failing or not, and
// stores the price with every step.
func TestSweepStudyList(t *testing.T) {
	l := &lab{model: saturating(150)}
	s := SweepStudy{ID: "S3", Base: kvBase(t), Rates: List{100, 200, 300}, Repeat: 1, Criteria: sweepCriteria, Price: usd(3.2)}
	res, err := s.Run(context.Background(), l.env())
	if err != nil {
		t.Fatal(err)
	}
	if got := l.rates(); !slices.Equal(got, []float64{100, 200, 300}) {
		t.Errorf("rates: got %v, want every listed rate", got)
	}
	if got := l.variants[2]["instance"]; !reflect.DeepEqual(got, map[string]any{"cost": 320.0, "price": "3.2 USD/h", "currency": "USD"}) {
		t.Errorf("instance: got %v, want cost 320 cents", got)
	}
	if c := res.Steps[0].Cost; c == nil || *c != 320 {
		t.Errorf("step cost: got %v, want 320", c)
	}
}

// TestSLAStudyLadder steps the rate up by 500 TPS until every mode
// fails: per-op keeps up to 1,000 TPS, client-bulk to 1,500.
func TestSLAStudyLadder(t *testing.T) {
	l := &lab{}
	l.model = func(sc *spec.Scenario) outcome {
		limit := 1000.0
		if sc.Params["mode"] == "client-bulk" {
			limit = 1500
		}
		if r := float64(sc.Rate); r <= limit {
			return outcome{achieved: r, p99: fl(8)}
		}
		return outcome{achieved: limit, p99: fl(400)}
	}
	sla := SLA{P99: 20 * time.Millisecond}
	base := Base{Scenario: &spec.Scenario{Name: TestName, Workload: "ledger"}, Params: []string{"mode=client-bulk", "accounts=500"}}
	s := SLAStudy{SLA: sla, Rates: Ladder{Start: 500, Step: 500, Max: 100000}, Runs: 2, Modes: []string{"per-op", "client-bulk"}, Stage: "baseline", Base: base}
	res, err := s.Run(context.Background(), l.env())
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
	for i, sc := range l.measured {
		modes = append(modes, sc.Params["mode"].(string))
		if sc.Repetition != i/2%2 || sc.Params.Int("accounts") != 500 || sc.Name != TestName {
			t.Errorf("run %d: repetition %d, accounts %d, name %q", i, sc.Repetition, sc.Params.Int("accounts"), sc.Name)
		}
		if !reflect.DeepEqual(l.variants[i], map[string]any{"stage": "baseline", "mode": modes[i]}) {
			t.Errorf("run %d: variant %v", i, l.variants[i])
		}
	}
	if got := l.rates(); !slices.Equal(got, wantRates) || !slices.Equal(modes, wantModes) {
		t.Errorf("runs: got %v %v, want %v %v", got, modes, wantRates, wantModes)
	}
	if got, want := l.said[len(l.said)-1], "every mode failed at 2000 TPS: stopping\n"; got != want {
		t.Errorf("last line: got %q, want %q", got, want)
	}
	if got, want := l.said[0], "SLA: "+sla.String()+"; 2 runs per mode and rate\n"; got != want {
		t.Errorf("first line: got %q, want %q", got, want)
	}
	if got, want := l.said[1], "per-op         500 TPS run 1: p99 8 ms, 500/s, 0 retries: PASS\n"; got != want {
		t.Errorf("run line: got %q, want %q", got, want)
	}
	wantVerdict := &result.SLAVerdict{Spec: sla.String(), Pass: false, Reasons: []string{"p99 400 ms > 20 ms", "achieved 1,000/s < 99% of 1,500/s"}}
	if got := l.kept[8].TestResults.SLA; !reflect.DeepEqual(got, wantVerdict) {
		t.Errorf("testResults.sla of per-op at 1,500:\ngot  %#v\nwant %#v", got, wantVerdict)
	}
	if len(res.Runs) != 16 {
		t.Errorf("runs: got %d, want 16", len(res.Runs))
	}
	var b bytes.Buffer
	if err := viewOf(res).Text(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "target TPS") {
		t.Errorf("several rates, yet no scaling table:\n%s", b.String())
	}
}

// TestSLAStudyEnds: a ladder that reaches its maximum stops without a
// word; a list runs every rate even when every mode fails.
func TestSLAStudyEnds(t *testing.T) {
	pass := func(sc *spec.Scenario) outcome { return outcome{achieved: float64(sc.Rate), p99: fl(1)} }
	fail := func(sc *spec.Scenario) outcome { return outcome{achieved: float64(sc.Rate), p99: fl(100)} }
	base := func() Base { return Base{Scenario: &spec.Scenario{Name: TestName, Workload: "ledger"}} }
	for _, tc := range []struct {
		name  string
		model func(*spec.Scenario) outcome
		rates Search
		want  []float64
	}{
		{"ladder to max", pass, Ladder{Start: 100, Step: 100, Max: 300}, []float64{100, 200, 300}},
		{"ladder, first rate fails", fail, Ladder{Start: 100, Step: 100, Max: 300}, []float64{100}},
		{"list, all fail", fail, List{100, 200}, []float64{100, 200}},
	} {
		l := &lab{model: tc.model}
		s := SLAStudy{SLA: SLA{P99: 20 * time.Millisecond}, Rates: tc.rates, Runs: 1, Modes: []string{"per-op"}, Base: base()}
		if _, err := s.Run(context.Background(), l.env()); err != nil {
			t.Fatal(err)
		}
		if got := l.rates(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: rates %v, want %v", tc.name, got, tc.want)
		}
		stopLine := strings.Contains(l.saidText(), "every mode failed")
		if wantLine := tc.name == "ladder, first rate fails"; stopLine != wantLine {
			t.Errorf("%s: says it stopped: %v, want %v", tc.name, stopLine, wantLine)
		}
	}
}

// calibrationServer rises to 8 threads, then flattens while p99 climbs.
func calibrationServer(sc *spec.Scenario) outcome {
	at := map[int]outcome{1: {1500, fl(1.1), 0}, 2: {2800, fl(1.3), 0}, 4: {4700, fl(2.0), 0}, 8: {5930, fl(4.1), 0}, 16: {6054, fl(9.8), 0}, 32: {6100, fl(20), 0}}
	return at[sc.Threads]
}

// TestCalibrateStudyKnee doubles the threads until a step gains less
// than 5% while p99 climbs: the knee is 8 threads.
func TestCalibrateStudyKnee(t *testing.T) {
	l := &lab{model: calibrationServer}
	base := Base{Scenario: &spec.Scenario{Workload: "kv", Duration: spec.Duration(10 * time.Second)}}
	c := CalibrateStudy{ID: "C1", Search: Calibration{Start: 1, Factor: 2, Max: 256, MinGain: 0.05}, Base: base}
	res, err := c.Run(context.Background(), l.env())
	if err != nil {
		t.Fatal(err)
	}
	var threads []int
	for i, sc := range l.measured {
		threads = append(threads, sc.Threads)
		if sc.Rate != 0 || !reflect.DeepEqual(l.variants[i], map[string]any{"calibration": "C1", "calibrationStep": i + 1}) {
			t.Errorf("run %d: rate %v, variant %v", i, sc.Rate, l.variants[i])
		}
	}
	if !slices.Equal(threads, []int{1, 2, 4, 8, 16}) {
		t.Errorf("threads: got %v, want 1, 2, 4, 8, 16", threads)
	}
	if got := l.kept[0].TestResults.Calibration; !reflect.DeepEqual(got, &result.Calibration{ID: "C1", Step: 1}) {
		t.Errorf("first step's testResults.calibration: got %v, want no gain", got)
	}
	entry := l.kept[4].TestResults.Calibration
	if entry.Gain == nil || entry.Step != 5 || *entry.Gain < 0.020 || *entry.Gain > 0.022 {
		t.Errorf("last step's testResults.calibration: got %v, want step 5, gain about 0.021", entry)
	}
	wantSaid := []string{
		"calibration C1 of kv: double the threads until a step gains < 5% while p99 climbs\n",
		"step 1    1 threads: 1500 ops/s, p99 1.1 ms, 0 errors\n",
	}
	if !slices.Equal(l.said[:2], wantSaid) {
		t.Errorf("said:\ngot  %q\nwant %q", l.said[:2], wantSaid)
	}
	var b bytes.Buffer
	if err := viewOf(res).Text(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Knee: 8 threads, 5,930 ops/s") {
		t.Errorf("tables lack the knee:\n%s", b.String())
	}
}

// studies runs each study on a lab and returns what it measured.
var studies = []struct {
	name  string
	model func(*spec.Scenario) outcome
	run   func(Env) (int, error) // runs the study; returns the number of results it holds
}{
	{"sweep", saturating(1e6), func(env Env) (int, error) {
		s := SweepStudy{ID: "S", Base: Base{Scenario: &spec.Scenario{Workload: "kv"}}, Rates: List{100, 200, 300}, Repeat: 1, Criteria: sweepCriteria}
		res, err := s.Run(context.Background(), env)
		return len(res.Steps), err
	}},
	{"sla", saturating(1e6), func(env Env) (int, error) {
		s := SLAStudy{SLA: SLA{P99: time.Second}, Rates: List{100, 200}, Runs: 1, Modes: []string{"per-op", "client-bulk"},
			Base: Base{Scenario: &spec.Scenario{Name: TestName, Workload: "ledger"}}}
		res, err := s.Run(context.Background(), env)
		return len(res.Runs), err
	}},
	{"calibrate", func(sc *spec.Scenario) outcome { return outcome{achieved: float64(1000 * sc.Threads), p99: fl(1)} }, func(env Env) (int, error) {
		c := CalibrateStudy{ID: "C", Search: Calibration{Start: 1, Factor: 2, Max: 8}, Base: Base{Scenario: &spec.Scenario{Workload: "kv"}}}
		res, err := c.Run(context.Background(), env)
		return len(res.Steps), err
	}},
}

// TestStudiesStopAtPartialRun: a run stopped early (Ctrl-C) is kept, the
// study says ErrStopped, and nothing after it runs.
func TestStudiesStopAtPartialRun(t *testing.T) {
	for _, st := range studies {
		l := &lab{model: st.model, stopAt: 2}
		n, err := st.run(l.env())
		if !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), "run run-02 stopped early; its partial result is stored") {
			t.Errorf("%s: got %v, want ErrStopped naming run-02", st.name, err)
		}
		if len(l.measured) != 2 || len(l.kept) != 2 || !l.kept[1].Partial || n != 2 {
			t.Errorf("%s: measured %d, kept %d, results %d; want 2 each, the second partial", st.name, len(l.measured), len(l.kept), n)
		}
	}
}

// TestStudiesStopOnFailure: a run that cannot be measured or kept ends the
// study with its error; what was measured before stays in the result.
func TestStudiesStopOnFailure(t *testing.T) {
	for _, st := range studies {
		l := &lab{model: st.model, failAt: 2}
		n, err := st.run(l.env())
		if err == nil || !strings.Contains(err.Error(), "server went away") || len(l.measured) != 2 || len(l.kept) != 1 || n != 1 {
			t.Errorf("%s, measure fails: got %v, measured %d, kept %d, results %d; want the error after 2, 1 kept", st.name, err, len(l.measured), len(l.kept), n)
		}
		l = &lab{model: st.model, keepFailAt: 2}
		_, err = st.run(l.env())
		if err == nil || !strings.Contains(err.Error(), "disk full") || len(l.measured) != 2 {
			t.Errorf("%s, keep fails: got %v after %d runs; want the error after 2", st.name, err, len(l.measured))
		}
	}
}

// TestStudiesBadScenario: a bad parameter fails Check before anything
// runs, as a *spec.Error the cli maps to a usage error.
func TestStudiesBadScenario(t *testing.T) {
	env := Env{Registry: testRegistry}
	bad := Base{Scenario: &spec.Scenario{Workload: "kv"}, Params: []string{"nope=1"}}
	checks := map[string]error{
		"sweep":     SweepStudy{Base: bad, Rates: List{100}, Repeat: 1}.Check(env),
		"sla":       SLAStudy{Base: Base{Scenario: &spec.Scenario{Workload: "ledger"}, Params: []string{"accounts=1"}}, SLA: SLA{P99: time.Millisecond}, Rates: List{100}, Runs: 1, Modes: []string{"per-op"}}.Check(env),
		"calibrate": CalibrateStudy{Base: bad, Search: Calibration{Start: 1, Factor: 2, Max: 2, MinGain: DefaultMinGain}}.Check(env),
	}
	for name, err := range checks {
		var se *spec.Error
		if !errors.As(err, &se) {
			t.Errorf("%s: got %v, want a *spec.Error", name, err)
		}
	}
	good := SweepStudy{Base: kvBase(t), Rates: Auto{Start: 100, Factor: 2, Max: 1000}, Repeat: 1}
	if err := good.Check(env); err != nil {
		t.Errorf("good sweep: %v", err)
	}
}

// TestStudiesSayNothingWithoutSay: a study without Say runs silently.
func TestStudiesSayNothingWithoutSay(t *testing.T) {
	l := &lab{model: saturating(1e6)}
	env := l.env()
	env.Say = nil
	s := SweepStudy{ID: "S", Base: kvBase(t), Rates: List{100}, Repeat: 1, Criteria: sweepCriteria}
	if _, err := s.Run(context.Background(), env); err != nil || len(l.kept) != 1 {
		t.Errorf("got %v, kept %d", err, len(l.kept))
	}
}

func TestParseRates(t *testing.T) {
	for _, tc := range []struct {
		text    string
		want    List
		auto    bool
		wantErr string
	}{
		{"auto", nil, true, ""},
		{"500,1000", List{500, 1000}, false, ""},
		{"1k/s, 120/m", List{1000, 2}, false, ""},
		{"-5", nil, false, `--rate: "-5": `},
		{"100,x,-1", nil, false, "--rate: \"x\": "},
		{"", nil, false, `--rate: "": `},
	} {
		got, auto, err := ParseRates("--rate", tc.text)
		if !slices.Equal(got, tc.want) || auto != tc.auto || (err == nil) != (tc.wantErr == "") || err != nil && !strings.HasPrefix(err.Error(), tc.wantErr) {
			t.Errorf("%q: got %v %v %v, want %v %v %q", tc.text, got, auto, err, tc.want, tc.auto, tc.wantErr)
		}
	}
	if _, _, err := ParseRates("--rate", "x,-1"); err == nil || strings.Count(err.Error(), "--rate: ") != 2 {
		t.Errorf("two bad rates: got %v, want both named", err)
	}
}

func TestSearches(t *testing.T) {
	held := func(vs ...float64) []Trial { // positive held, negative failed
		var out []Trial
		for _, v := range vs {
			out = append(out, Trial{Value: max(v, -v), Held: v > 0})
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		s     Search
		tried []Trial
		want  float64 // 0: done
	}{
		{"list first", List{5, 6}, nil, 5},
		{"list goes on after a failure", List{5, 6}, held(-5), 6},
		{"list done", List{5, 6}, held(5, 6), 0},
		{"ladder start", Ladder{Start: 250, Step: 250, Max: 1000}, nil, 250},
		{"ladder steps", Ladder{Start: 250, Step: 250, Max: 1000}, held(250, 500), 750},
		{"ladder stops at a failure", Ladder{Start: 250, Step: 250, Max: 1000}, held(250, -500), 0},
		{"ladder stops at max", Ladder{Start: 250, Step: 250, Max: 1000}, held(250, 500, 750, 1000), 0},
		{"ladder start above max", Ladder{Start: 2000, Step: 250, Max: 1000}, nil, 0},
		{"auto bisects", Auto{Start: 500, Factor: 2, Max: 1e5}, held(500, -1000), 750},
		{"calibration doubles", Calibration{Start: 1, Factor: 2, Max: 8}, []Trial{{Value: 1, Achieved: 100}, {Value: 2, Achieved: 200}}, 4},
	} {
		got, ok := tc.s.Next(tc.tried)
		if !ok {
			got = 0
		}
		if got != tc.want {
			t.Errorf("%s: got %v (%v), want %v", tc.name, got, ok, tc.want)
		}
	}
}

func TestMajority(t *testing.T) {
	for _, tc := range []struct {
		held, n int
		want    bool
	}{{1, 1, true}, {0, 1, false}, {1, 2, false}, {2, 3, true}, {2, 4, false}, {3, 5, true}} {
		if got := Majority(tc.held, tc.n); got != tc.want {
			t.Errorf("Majority(%d, %d): got %v, want %v", tc.held, tc.n, got, tc.want)
		}
		sum := Summary{Runs: tc.n, Passed: tc.held}
		lvl := Level{Steps: make([]Step, tc.n), Held: tc.held}
		if sum.Held() != tc.want || lvl.Holds() != tc.want {
			t.Errorf("%d of %d: summary %v, level %v, want %v", tc.held, tc.n, sum.Held(), lvl.Holds(), tc.want)
		}
	}
}

// TestStudyReports renders the three studies' Markdown reports from lab
// runs: golden files, and the sweep's charts linked and returned.
func TestStudyReports(t *testing.T) {
	l := &lab{model: saturating(3000)}
	sw, err := SweepStudy{ID: "S1", Base: kvBase(t), Rates: Auto{Start: 1000, Factor: 2, Max: 100000}, Repeat: 1, Criteria: sweepCriteria}.Run(context.Background(), l.env())
	if err != nil {
		t.Fatal(err)
	}
	md, charts := markdown(t, sw.View(RunFiles([]string{"run-01.md", "run-02.md"})))
	golden.Check(t, "sweep-report.md", md)
	svg := charts["charts/sweep-S1-sweep-p99.svg"]
	if sw.ReportName() != "sweep-S1" || len(charts) != 2 || charts["charts/sweep-S1-sweep-throughput.svg"] == nil || !bytes.HasPrefix(svg, []byte("<?xml")) {
		t.Errorf("sweep report %s: charts %d", sw.ReportName(), len(charts))
	}
	for path := range charts {
		if !bytes.Contains(md, []byte("]("+path+")")) {
			t.Errorf("the report does not link %s", path)
		}
	}

	l = &lab{model: saturating(1000)}
	sla, err := SLAStudy{SLA: SLA{P99: 20 * time.Millisecond}, Rates: List{500, 1500}, Runs: 2, Modes: []string{"per-op", "client-bulk"}, Stage: "7KB accounts",
		Base: Base{Scenario: &spec.Scenario{Name: TestName, Workload: "ledger"}}}.Run(context.Background(), l.env())
	if err != nil {
		t.Fatal(err)
	}
	md, charts = markdown(t, sla.View("8 transfers, 500 accounts: balances conserved", RunFiles([]string{"run-01.md"})))
	golden.Check(t, "sla-report.md", md)
	if len(charts) != 0 {
		t.Errorf("SLA report: %d SVG charts, want none (its chart is drawn by the page)", len(charts))
	}

	l = &lab{model: calibrationServer}
	cal, err := CalibrateStudy{ID: "C1", Search: Calibration{Start: 1, Factor: 2, Max: 256},
		Base: Base{Scenario: &spec.Scenario{Workload: "kv", Duration: spec.Duration(10 * time.Second)}}}.Run(context.Background(), l.env())
	if err != nil {
		t.Fatal(err)
	}
	md, _ = markdown(t, cal.View(nil))
	golden.Check(t, "calibrate-report.md", md)
	if cal.ReportName() != "calibrate-C1" {
		t.Errorf("calibration report name: %s", cal.ReportName())
	}
}

// TestCompareSweeps compares two labels' latest sweeps made in the lab,
// and refuses sweeps of different workloads.
func TestCompareSweeps(t *testing.T) {
	sweep := func(label, workload string, capacity float64, id string) Contender {
		l := &lab{model: saturating(capacity)}
		base := Base{Scenario: &spec.Scenario{Workload: "kv", Label: label}}
		if _, err := (SweepStudy{ID: id, Base: base, Rates: List{1000, 2000, 4000}, Repeat: 1, Criteria: sweepCriteria}).Run(context.Background(), l.env()); err != nil {
			t.Fatal(err)
		}
		c := Contender{Label: label}
		for _, d := range l.kept {
			d.TestConfig["workload"] = workload
			c.Docs = append(c.Docs, *d)
		}
		return c
	}
	fast, slow := sweep("fast", "kv", 3000, "S2"), sweep("slow/old", "kv", 1500, "S1")
	older := sweep("fast", "kv", 500, "S0") // an older sweep of fast: not compared
	fast.Docs = append(older.Docs, fast.Docs...)
	slow.Price = usd(4)
	c, err := CompareSweeps([]Contender{fast, slow}, sweepCriteria, significance.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Profiles) != 2 || len(c.Pairs) != 1 || c.Profiles[0].Sweep != "S2" || c.Profiles[0].Saturation != 3000 || *c.Profiles[1].Cost != 4 {
		t.Fatalf("profiles %+v, pairs %d", c.Profiles, len(c.Pairs))
	}
	if c.ReportName() != "compare-fast-vs-slow_old" {
		t.Errorf("report name: got %q", c.ReportName())
	}
	md, charts := markdown(t, c.View())
	b := bytes.NewBuffer(md)
	if len(charts) != 2 || !strings.HasPrefix(b.String(), "# fast vs slow/old: kv\n\nA target holds when ") ||
		!strings.Contains(b.String(), "\n## fast vs slow/old\n\n") || !strings.Contains(b.String(), "](charts/compare-fast-vs-slow_old-sweep-p99.svg)") {
		t.Errorf("report: %d charts\n%s", len(charts), b.String())
	}
	other := sweep("other", "ycsb-b", 3000, "S3")
	if _, err := CompareSweeps([]Contender{fast, other}, sweepCriteria, significance.Settings{}); !errors.Is(err, ErrMixedWorkloads) ||
		err.Error() != "the latest sweeps ran different workloads (fast: kv, other: ycsb-b); choose one with --workload" {
		t.Errorf("mixed workloads: got %v", err)
	}
	// A sweep stored with a price in euros against one given in dollars:
	// refused, naming both.
	euro := sweep("euro", "kv", 3000, "S4")
	for i := range euro.Docs {
		euro.Docs[i].ID = append(euro.Docs[i].ID, result.Ordered{{Key: "instance", Value: map[string]any{"cost": 290.0, "currency": "EUR"}}}...)
	}
	if _, err := CompareSweeps([]Contender{slow, euro}, sweepCriteria, significance.Settings{}); !errors.Is(err, ErrMixedCurrencies) ||
		err.Error() != "prices in different currencies cannot be compared: slow/old's 4 USD/h and euro's 2.9 EUR/h; give every price in one currency (--price LABEL=PRICE)" {
		t.Errorf("mixed currencies: got %v", err)
	}
}

// TestRunsOf reads the SLA runs among stored documents of several tests.
func TestRunsOf(t *testing.T) {
	l := &lab{model: saturating(1e6)}
	if _, err := (SLAStudy{SLA: SLA{P99: time.Second}, Rates: List{100}, Runs: 2, Modes: []string{"per-op"},
		Base: Base{Scenario: &spec.Scenario{Name: TestName, Workload: "ledger"}}}).Run(context.Background(), l.env()); err != nil {
		t.Fatal(err)
	}
	if _, err := (SweepStudy{ID: "S", Base: kvBase(t), Rates: List{100}, Repeat: 1}).Run(context.Background(), l.env()); err != nil {
		t.Fatal(err)
	}
	var docs []result.Doc
	for _, d := range l.kept {
		docs = append(docs, *d)
	}
	runs, err := RunsOf(docs)
	if err != nil || len(runs) != 2 || runs[1].Rep != 1 {
		t.Errorf("got %d runs (%v), want the 2 SLA runs of 3 documents", len(runs), err)
	}
	delete(docs[0].Variant, "mode")
	if _, err := RunsOf(docs); err == nil || !strings.HasPrefix(err.Error(), "run run-01: ") {
		t.Errorf("a run without a mode: got %v", err)
	}
}

// TestStudySteps: each run of a study is announced before it is
// measured, numbered, with the number of runs when the study knows it
// beforehand (a list of rates) and what the run varies.
func TestStudySteps(t *testing.T) {
	l := &lab{model: saturating(3000)}
	s := SweepStudy{ID: "S1", Base: kvBase(t), Rates: List{1000, 2000}, Repeat: 2, Criteria: sweepCriteria}
	if _, err := s.Run(context.Background(), l.env()); err != nil {
		t.Fatal(err)
	}
	want := []StepInfo{
		{N: 1, Total: 4, What: "1,000/s, run 1 of 2"}, {N: 2, Total: 4, What: "1,000/s, run 2 of 2"},
		{N: 3, Total: 4, What: "2,000/s, run 1 of 2"}, {N: 4, Total: 4, What: "2,000/s, run 2 of 2"},
	}
	for i := range l.steps {
		if l.steps[i].Planned <= 0 {
			t.Errorf("step %d: no planned length", i+1)
		}
		l.steps[i].Planned = 0
	}
	if !slices.Equal(l.steps, want) {
		t.Errorf("sweep steps:\ngot  %+v\nwant %+v", l.steps, want)
	}

	l = &lab{model: saturating(3000)}
	auto := SweepStudy{ID: "S2", Base: kvBase(t), Rates: Auto{Start: 500, Factor: 2, Max: 100000}, Repeat: 1, Criteria: sweepCriteria}
	if _, err := auto.Run(context.Background(), l.env()); err != nil {
		t.Fatal(err)
	}
	if len(l.steps) != 7 || l.steps[6].N != 7 || l.steps[6].Total != 0 || l.steps[6].What != "3,250/s" {
		t.Errorf("auto sweep steps: got %+v, want 7, the last 3,250/s of an unknown total", l.steps)
	}

	l = &lab{model: func(sc *spec.Scenario) outcome { return outcome{achieved: float64(sc.Rate), p99: fl(8)} }}
	sla := SLAStudy{SLA: SLA{P99: time.Second}, Rates: List{100, 200}, Runs: 2, Modes: []string{"per-op", "client-bulk"},
		Base: Base{Scenario: &spec.Scenario{Name: TestName, Workload: "ledger"}}}
	if _, err := sla.Run(context.Background(), l.env()); err != nil {
		t.Fatal(err)
	}
	if len(l.steps) != 8 || l.steps[5].N != 6 || l.steps[5].Total != 8 || l.steps[5].What != "client-bulk at 200 TPS, run 1 of 2" {
		t.Errorf("sla steps: got %+v, want 8, the sixth client-bulk at 200 TPS, run 1 of 2", l.steps)
	}
}

// groupOf is a Merged for a client of a group of three whose model
// serves a third of each step's rate: the group's result is the client's
// three times over, partial (client 2 missing) at run partialAt (1-based;
// 0 none). It records the client results it is handed. As the lab
// does, it judges the study's bounds on the group's result, not on the
// client's own part.
func groupOf(partialAt int, clients *[]*result.Doc) Merged {
	return func(_ context.Context, d *result.Doc) (*result.Doc, error) {
		var exprs []string
		for _, v := range d.TestResults.Bounds {
			exprs = append(exprs, v.Expression)
		}
		bounds, err := threshold.ParseAll(exprs)
		if err != nil {
			return nil, err
		}
		d.TestResults.Bounds = nil
		*clients = append(*clients, d)
		m := *d
		m.RunID = "group-" + d.RunID
		m.Schedule.AchievedRate *= 3
		m.Ops = slices.Clone(d.Ops)
		m.Ops[0].Count *= 3
		m.Group = &result.Group{ID: fmt.Sprintf("G.s%d.r0", len(*clients)), Clients: 3}
		if len(*clients) == partialAt {
			m.Partial, m.PartialReason, m.Group.Missing = true, "client 2 of 3 stored no result", []int{2}
		}
		m.TestResults.Bounds = threshold.Evaluate(bounds, &m)
		return &m, nil
	}
}

// TestSweepStudyGroup: as one client of a run group of three, the sweep
// judges, keeps and decides from the group's merged result that Merged
// returns, never from the client's own share (a third of the rate, which
// alone would never hold); a partial group result does not hold and ends
// the sweep, naming what it lacks.
func TestSweepStudyGroup(t *testing.T) {
	third := func(sc *spec.Scenario) outcome { return outcome{achieved: float64(sc.Rate) / 3, p99: fl(2)} }
	l := &lab{model: third}
	var clients []*result.Doc
	env := l.env()
	env.Merged = groupOf(0, &clients)
	s := SweepStudy{ID: "G", Base: kvBase(t), Rates: Auto{Start: 500, Factor: 2, Max: 2000}, Repeat: 1, Criteria: sweepCriteria}
	res, err := s.Run(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.rates(), []float64{500, 1000, 2000}; !slices.Equal(got, want) {
		t.Errorf("rates: got %v, want %v (decided from the group's results)", got, want)
	}
	if len(l.kept) != 3 || len(clients) != 3 {
		t.Fatalf("kept %d, merged %d; want 3 each", len(l.kept), len(clients))
	}
	for i, d := range l.kept {
		if !strings.HasPrefix(d.RunID, "group-") || d.TestResults.Sweep == nil || !d.TestResults.Sweep.Holds || res.Steps[i].RunID != d.RunID {
			t.Errorf("kept %d: %s with verdict %+v; want the group's result, holding", i, d.RunID, d.TestResults.Sweep)
		}
		if clients[i].TestResults.Sweep != nil {
			t.Errorf("client result %s got a verdict of its own: %+v", clients[i].RunID, clients[i].TestResults.Sweep)
		}
	}

	l, clients = &lab{model: third}, nil
	env = l.env()
	env.Merged = groupOf(2, &clients)
	res, err = s.Run(context.Background(), env)
	if err == nil || errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), "G.s2.r0") || !strings.Contains(err.Error(), "client 2 of 3 stored no result") {
		t.Errorf("err %v, want the group's partial result named, not an interruption", err)
	}
	if len(res.Steps) != 2 || len(l.kept) != 2 {
		t.Fatalf("steps %d, kept %d; want 2 each", len(res.Steps), len(l.kept))
	}
	if v := l.kept[1].TestResults.Sweep; v.Holds || !slices.Contains(v.Reasons, "group result partial: client 2 of 3 stored no result") {
		t.Errorf("partial step's verdict %+v", v)
	}
}

// markdown renders a study's view as its Markdown report.
func markdown(t *testing.T, v *report.StudyView) ([]byte, map[string][]byte) {
	t.Helper()
	md, charts, err := v.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	return md, charts
}

// viewOf is a study's result's view, as the terminal shows it.
func viewOf(res any) *report.StudyView {
	switch r := res.(type) {
	case SweepResult:
		return r.View(nil)
	case SLAResult:
		return r.View("", nil)
	case CalibrateResult:
		return r.View(nil)
	}
	panic(fmt.Sprintf("no view of %T", res))
}
