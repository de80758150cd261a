package study

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/threshold"
)

var sweepCriteria = Criteria{MinFraction: DefaultSweepFraction, SLA: 20 * time.Millisecond, MaxErrors: 0.01}

// TestSweepStudyList measures every listed rate, failing or not, and
// stores the price with every step.
func TestSweepStudyList(t *testing.T) {
	l := &lab{Model: saturating(150)}
	s := SweepStudy{ID: "S3", Base: kvBase(t), Rates: List{100, 200, 300}, Repeat: 1, Criteria: sweepCriteria, Price: usd(3.2)}
	res, err := s.Run(context.Background(), envOf(l))
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Rates(); !slices.Equal(got, []float64{100, 200, 300}) {
		t.Errorf("rates: got %v, want every listed rate", got)
	}
	if got := l.Variants[2]["instance"]; !reflect.DeepEqual(got, map[string]any{"cost": 320.0, "price": "3.2 USD/h", "currency": "USD"}) {
		t.Errorf("instance: got %v, want cost 320 cents", got)
	}
	if c := res.Steps[0].Cost; c == nil || *c != 320 {
		t.Errorf("step cost: got %v, want 320", c)
	}
}

// TestSLAStudyEnds: a ladder that reaches its maximum stops without a
// word; a list runs every rate even when every mode fails.
func TestSLAStudyEnds(t *testing.T) {
	pass := func(sc *spec.Scenario) outcome { return outcome{Achieved: float64(sc.Rate), P99: fl(1)} }
	fail := func(sc *spec.Scenario) outcome { return outcome{Achieved: float64(sc.Rate), P99: fl(100)} }
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
		l := &lab{Model: tc.model}
		s := SLAStudy{SLA: SLA{P99: 20 * time.Millisecond}, Rates: tc.rates, Runs: 1, Modes: []string{"per-op"}, Base: base()}
		if _, err := s.Run(context.Background(), envOf(l)); err != nil {
			t.Fatal(err)
		}
		if got := l.Rates(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: rates %v, want %v", tc.name, got, tc.want)
		}
		stopLine := strings.Contains(l.SaidText(), "every mode failed")
		if wantLine := tc.name == "ladder, first rate fails"; stopLine != wantLine {
			t.Errorf("%s: says it stopped: %v, want %v", tc.name, stopLine, wantLine)
		}
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
	{"calibrate", func(sc *spec.Scenario) outcome { return outcome{Achieved: float64(1000 * sc.Threads), P99: fl(1)} }, func(env Env) (int, error) {
		c := CalibrateStudy{ID: "C", Search: Calibration{Start: 1, Factor: 2, Max: 8}, Base: Base{Scenario: &spec.Scenario{Workload: "kv"}}}
		res, err := c.Run(context.Background(), env)
		return len(res.Steps), err
	}},
}

// TestStudiesStopAtPartialRun: a run stopped early (Ctrl-C) is kept, the
// study says ErrStopped, and nothing after it runs.
func TestStudiesStopAtPartialRun(t *testing.T) {
	for _, st := range studies {
		l := &lab{Model: st.model, StopAt: 2}
		n, err := st.run(envOf(l))
		if !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), "run run-02 stopped early; its partial result is stored") {
			t.Errorf("%s: got %v, want ErrStopped naming run-02", st.name, err)
		}
		if len(l.Measured) != 2 || len(l.Kept) != 2 || !l.Kept[1].Partial || n != 2 {
			t.Errorf("%s: measured %d, kept %d, results %d; want 2 each, the second partial", st.name, len(l.Measured), len(l.Kept), n)
		}
	}
}

// TestStudiesStopOnFailure: a run that cannot be measured or kept ends the
// study with its error; what was measured before stays in the result.
func TestStudiesStopOnFailure(t *testing.T) {
	for _, st := range studies {
		l := &lab{Model: st.model, FailAt: 2}
		n, err := st.run(envOf(l))
		if err == nil || !strings.Contains(err.Error(), "server went away") || len(l.Measured) != 2 || len(l.Kept) != 1 || n != 1 {
			t.Errorf("%s, measure fails: got %v, measured %d, kept %d, results %d; want the error after 2, 1 kept", st.name, err, len(l.Measured), len(l.Kept), n)
		}
		l = &lab{Model: st.model, KeepFailAt: 2}
		_, err = st.run(envOf(l))
		if err == nil || !strings.Contains(err.Error(), "disk full") || len(l.Measured) != 2 {
			t.Errorf("%s, keep fails: got %v after %d runs; want the error after 2", st.name, err, len(l.Measured))
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
	l := &lab{Model: saturating(1e6)}
	env := envOf(l)
	env.Say = nil
	s := SweepStudy{ID: "S", Base: kvBase(t), Rates: List{100}, Repeat: 1, Criteria: sweepCriteria}
	if _, err := s.Run(context.Background(), env); err != nil || len(l.Kept) != 1 {
		t.Errorf("got %v, kept %d", err, len(l.Kept))
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

// TestRunsOf reads the SLA runs among stored documents of several tests.
func TestRunsOf(t *testing.T) {
	l := &lab{Model: saturating(1e6)}
	if _, err := (SLAStudy{SLA: SLA{P99: time.Second}, Rates: List{100}, Runs: 2, Modes: []string{"per-op"},
		Base: Base{Scenario: &spec.Scenario{Name: TestName, Workload: "ledger"}}}).Run(context.Background(), envOf(l)); err != nil {
		t.Fatal(err)
	}
	if _, err := (SweepStudy{ID: "S", Base: kvBase(t), Rates: List{100}, Repeat: 1}).Run(context.Background(), envOf(l)); err != nil {
		t.Fatal(err)
	}
	var docs []result.Doc
	for _, d := range l.Kept {
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
	l := &lab{Model: saturating(3000)}
	s := SweepStudy{ID: "S1", Base: kvBase(t), Rates: List{1000, 2000}, Repeat: 2, Criteria: sweepCriteria}
	if _, err := s.Run(context.Background(), envOf(l)); err != nil {
		t.Fatal(err)
	}
	want := []StepInfo{
		{N: 1, Total: 4, What: "1,000/s, run 1 of 2"}, {N: 2, Total: 4, What: "1,000/s, run 2 of 2"},
		{N: 3, Total: 4, What: "2,000/s, run 1 of 2"}, {N: 4, Total: 4, What: "2,000/s, run 2 of 2"},
	}
	for i := range l.Steps {
		if l.Steps[i].Planned <= 0 {
			t.Errorf("step %d: no planned length", i+1)
		}
		l.Steps[i].Planned = 0
	}
	if !slices.Equal(l.Steps, want) {
		t.Errorf("sweep steps:\ngot  %+v\nwant %+v", l.Steps, want)
	}

	l = &lab{Model: saturating(3000)}
	auto := SweepStudy{ID: "S2", Base: kvBase(t), Rates: Auto{Start: 500, Factor: 2, Max: 100000}, Repeat: 1, Criteria: sweepCriteria}
	if _, err := auto.Run(context.Background(), envOf(l)); err != nil {
		t.Fatal(err)
	}
	if len(l.Steps) != 7 || l.Steps[6].N != 7 || l.Steps[6].Total != 0 || l.Steps[6].What != "3,250/s" {
		t.Errorf("auto sweep steps: got %+v, want 7, the last 3,250/s of an unknown total", l.Steps)
	}

	l = &lab{Model: func(sc *spec.Scenario) outcome { return outcome{Achieved: float64(sc.Rate), P99: fl(8)} }}
	sla := SLAStudy{SLA: SLA{P99: time.Second}, Rates: List{100, 200}, Runs: 2, Modes: []string{"per-op", "client-bulk"},
		Base: Base{Scenario: &spec.Scenario{Name: TestName, Workload: "ledger"}}}
	if _, err := sla.Run(context.Background(), envOf(l)); err != nil {
		t.Fatal(err)
	}
	if len(l.Steps) != 8 || l.Steps[5].N != 6 || l.Steps[5].Total != 8 || l.Steps[5].What != "client-bulk at 200 TPS, run 1 of 2" {
		t.Errorf("sla steps: got %+v, want 8, the sixth client-bulk at 200 TPS, run 1 of 2", l.Steps)
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
	third := func(sc *spec.Scenario) outcome { return outcome{Achieved: float64(sc.Rate) / 3, P99: fl(2)} }
	l := &lab{Model: third}
	var clients []*result.Doc
	env := envOf(l)
	env.Merged = groupOf(0, &clients)
	s := SweepStudy{ID: "G", Base: kvBase(t), Rates: Auto{Start: 500, Factor: 2, Max: 2000}, Repeat: 1, Criteria: sweepCriteria}
	res, err := s.Run(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.Rates(), []float64{500, 1000, 2000}; !slices.Equal(got, want) {
		t.Errorf("rates: got %v, want %v (decided from the group's results)", got, want)
	}
	if len(l.Kept) != 3 || len(clients) != 3 {
		t.Fatalf("kept %d, merged %d; want 3 each", len(l.Kept), len(clients))
	}
	for i, d := range l.Kept {
		if !strings.HasPrefix(d.RunID, "group-") || d.TestResults.Sweep == nil || !d.TestResults.Sweep.Holds || res.Steps[i].RunID != d.RunID {
			t.Errorf("kept %d: %s with verdict %+v; want the group's result, holding", i, d.RunID, d.TestResults.Sweep)
		}
		if clients[i].TestResults.Sweep != nil {
			t.Errorf("client result %s got a verdict of its own: %+v", clients[i].RunID, clients[i].TestResults.Sweep)
		}
	}

	l, clients = &lab{Model: third}, nil
	env = envOf(l)
	env.Merged = groupOf(2, &clients)
	res, err = s.Run(context.Background(), env)
	if err == nil || errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), "G.s2.r0") || !strings.Contains(err.Error(), "client 2 of 3 stored no result") {
		t.Errorf("err %v, want the group's partial result named, not an interruption", err)
	}
	if len(res.Steps) != 2 || len(l.Kept) != 2 {
		t.Fatalf("steps %d, kept %d; want 2 each", len(res.Steps), len(l.Kept))
	}
	if v := l.Kept[1].TestResults.Sweep; v.Holds || !slices.Contains(v.Reasons, "group result partial: client 2 of 3 stored no result") {
		t.Errorf("partial step's verdict %+v", v)
	}
}
