package study_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/testsupport/plantest"
)

// planRegistry knows the workload of the plans below.
var planRegistry = spec.MapRegistry{"ycsb-b": {{Name: "recordcount", Kind: spec.KindInt, Default: "1000"}}}

func parsePlan(t *testing.T, src string) *spec.Plan {
	t.Helper()
	pl, err := spec.ParsePlan("plan.yaml", []byte(src), planRegistry)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

const twoCandidates = `name: p
scenario: {workload: ycsb-b, threads: 4, duration: 3s, params: {recordcount: 500}}
runs: 2
candidates:
  - {label: one, uri: 'mongodb://one/', price: 73 USD/month, baseline: true, instance: {type: 1 CPU}}
  - {label: two, uri: 'mongodb://two/', price: 139 USD/month, instance: {type: 2 CPUs}}
demand: {users: 1000, load: 80%, stages: [{name: now, users: 1000}]}
`

// stored returns a Stored function over docs.
func stored(docs ...result.Doc) func(context.Context) ([]result.Doc, error) {
	return func(context.Context) ([]result.Doc, error) { return docs, nil }
}

func planRun(plan, candidate string, rep int, partial bool) result.Doc {
	return result.Doc{RunID: fmt.Sprintf("%s-%s-%d", plan, candidate, rep), Repetition: rep, Partial: partial,
		Variant: map[string]any{"plan": plan, "candidate": candidate}}
}

// TestPlanMeasure checks that the plan alternates candidates within a
// repetition, numbers repetitions after the complete runs of this plan
// already stored, runs each candidate on its own target, and stores the
// plan, candidate and instance with each run.
func TestPlanMeasure(t *testing.T) {
	f := &targetsFake{reg: planRegistry}
	p := study.Plan{Spec: parsePlan(t, twoCandidates), Runs: 2, Stored: stored(
		planRun("p", "one", 0, false), planRun("p", "one", 1, false), planRun("p", "two", 0, false),
		planRun("p", "two", 5, true), planRun("other", "one", 9, false),
	)}
	if err := p.Measure(context.Background(), f.env()); err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, sc := range f.measured {
		v := f.variants[i]
		got = append(got, sc.Label+"/"+strconv.Itoa(sc.Repetition))
		inst, _ := v["instance"].(map[string]any)
		if v["plan"] != "p" || v["candidate"] != sc.Label || inst["atlasInstanceType"] == nil || inst["cost"] == nil {
			t.Errorf("%s: variant %v, want plan p, the candidate and its instance with its cost", got[i], v)
		}
		if sc.Workload != "ycsb-b" || sc.Threads != 4 || sc.Params["recordcount"] != int64(500) {
			t.Errorf("%s: scenario %+v, want the plan's", got[i], sc)
		}
	}
	if want := []string{"one/2", "two/1", "one/3", "two/2"}; !slices.Equal(got, want) {
		t.Errorf("runs: got %v, want %v", got, want)
	}
	if want := []string{"one", "two", "one", "two"}; !slices.Equal(f.targets, want) {
		t.Errorf("targets: got %v, want %v", f.targets, want)
	}
	if len(f.kept) != 4 || len(f.steps) != 4 {
		t.Fatalf("kept %d, steps %v; want 4 kept and a step per run", len(f.kept), f.steps)
	}
	for i, s := range f.steps {
		if s.N != i+1 || s.Total != 4 || s.Planned <= 0 {
			t.Errorf("step %d: got %+v, want %d of 4 with its planned length", i, s, i+1)
		}
	}
	if want := "plan p: two, run 1 of 2"; f.steps[1].What != want {
		t.Errorf("step 2: got %q, want %q", f.steps[1].What, want)
	}
	if p.Spec.Scenario.Label != "" || p.Spec.Scenario.Repetition != 0 {
		t.Errorf("the plan's scenario changed: label %q, repetition %d", p.Spec.Scenario.Label, p.Spec.Scenario.Repetition)
	}
}

// TestPlanMeasureStops checks that a run stopped early ends the plan's
// runs, kept, with an error naming the candidate and wrapping ErrStopped.
func TestPlanMeasureStops(t *testing.T) {
	f := &targetsFake{reg: planRegistry}
	f.doc = func(n int, sc *spec.Scenario, v map[string]any) *result.Doc {
		return &result.Doc{RunID: "r" + strconv.Itoa(n), Variant: v, Partial: n == 1}
	}
	p := study.Plan{Spec: parsePlan(t, twoCandidates), Runs: 2, Stored: stored()}
	err := p.Measure(context.Background(), f.env())
	if !errors.Is(err, study.ErrStopped) || !strings.HasPrefix(err.Error(), "plan p: candidate two: ") {
		t.Errorf("error: got %v, want plan p: candidate two: … (ErrStopped)", err)
	}
	if len(f.measured) != 2 || len(f.kept) != 2 {
		t.Errorf("measured %d, kept %d; want 2 and 2", len(f.measured), len(f.kept))
	}
}

// seedPlan is the seed study as a plan, b priced at bPrice EUR a month.
func seedPlan(t *testing.T, bPrice float64) *spec.Plan {
	t.Helper()
	var b strings.Builder
	b.WriteString("name: seed\nscenario: {workload: ycsb-b, threads: 16, duration: 60s}\nruns: 3\ncandidates:\n")
	for _, c := range plantest.Seed {
		price := c.Monthly
		if c.Name == "b" {
			price = bPrice
		}
		fmt.Fprintf(&b, "  - {label: %s, uri: 'mongodb://127.0.0.1:1/', price: %v EUR/month, baseline: %v}\n", c.Name, price, c.Name == "base")
	}
	b.WriteString("demand: {users: 25000, load: 80%, stages: [{name: stage 1, users: 50000}, {name: stage 2, users: 90000}]}\n")
	b.WriteString("constraints: [p95 READ <= +5%, p95 UPDATE <= +5%]\n")
	return parsePlan(t, b.String())
}

// seedStored is the seed study's stored runs, with runs of another plan
// and a partial run that the plan ignores.
func seedStored(t *testing.T) func(context.Context) ([]result.Doc, error) {
	t.Helper()
	docs, err := plantest.Docs("seed")
	if err != nil {
		t.Fatal(err)
	}
	var all []result.Doc
	for _, d := range docs {
		all = append(all, *d)
	}
	other, err := plantest.Docs("other")
	if err != nil {
		t.Fatal(err)
	}
	partial := *docs[0]
	partial.Partial, partial.Schedule.AchievedRate = true, 1 // would make base's median 7,760
	return stored(append(all, *other[0], partial)...)
}

// TestPlanAnswer answers the seed study from its stored runs: a for the
// first stage, b for the second; b's price alone, changed in the plan,
// moves the first stage to b. A candidate without runs is an error
// naming it and the store.
func TestPlanAnswer(t *testing.T) {
	for _, tt := range []struct {
		bPrice float64
		want   []string
	}{
		{1625, []string{"a", "b"}},
		{1390, []string{"b", "b"}},
	} {
		p := study.Plan{Spec: seedPlan(t, tt.bPrice), Stored: seedStored(t), Where: "results.jsonl"}
		ans, err := p.Answer(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range ans.Stages {
			got = append(got, s.Choice)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("b at %v EUR: choices %v, want %v", tt.bPrice, got, tt.want)
		}
		if ans.Assessments[0].Repetitions != 3 {
			t.Errorf("base: %d runs, want the 3 complete ones", ans.Assessments[0].Repetitions)
		}
	}

	pl := seedPlan(t, 1625)
	pl.Candidates = append(pl.Candidates, spec.Target{Label: "z", Price: pl.Candidates[0].Price}, spec.Target{Label: "y", Price: pl.Candidates[0].Price})
	_, err := study.Plan{Spec: pl, Stored: seedStored(t), Where: "results.jsonl"}.Answer(context.Background())
	if want := "plan seed: no stored runs of z, y in results.jsonl (run 'mongobench plan' without --from-results)"; err == nil || err.Error() != want {
		t.Errorf("missing runs: got %v, want %q", err, want)
	}
}

// TestPlanMeasuresAllInvalidAgain checks that a candidate whose every
// run of the plan was judged invalid is measured again, at most
// study.MeasureAgain more times, saying why; that the answer leaves the
// invalid runs out; and that a candidate left with invalid runs only is
// an error naming it, the rule and --include-invalid.
func TestPlanMeasuresAllInvalidAgain(t *testing.T) {
	steal := &result.Validity{State: result.Invalid, Rules: []result.ValidityRule{
		{Rule: "cpu-steal", Outcome: result.Invalid, Evidence: "mean steal 30.9%"}}}
	for _, tt := range []struct {
		name      string
		invalidTo int // measures of candidate two judged invalid, in order
		wantTwo   int // measures of candidate two
		wantErr   string
	}{
		{"valid at once", 0, 1, ""},
		{"valid the second time", 1, 2, ""},
		{"never valid", 99, 1 + study.MeasureAgain, "plan p: two: its 3 stored run(s) were judged invalid (cpu-steal (invalid): mean steal 30.9%); --include-invalid counts them"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			seed, err := plantest.Docs("p")
			if err != nil {
				t.Fatal(err)
			}
			f := &targetsFake{reg: planRegistry}
			two := 0
			f.doc = func(n int, sc *spec.Scenario, v map[string]any) *result.Doc {
				d := new(*seed[0]) // a baseline's run, measured
				d.RunID, d.Label, d.Repetition, d.Variant = "r"+strconv.Itoa(n), sc.Label, sc.Repetition, v
				if sc.Label == "two" {
					if two < tt.invalidTo {
						d.Validity = steal
					}
					two++
				}
				return d
			}
			pl := parsePlan(t, twoCandidates)
			p := study.Plan{Spec: pl, Runs: 1, Where: "results.jsonl", Stored: func(context.Context) ([]result.Doc, error) {
				var out []result.Doc
				for _, d := range f.kept {
					out = append(out, *d)
				}
				return out, nil
			}}
			env := f.env()
			p.Say = env.Say
			if err := p.Measure(context.Background(), env); err != nil {
				t.Fatal(err)
			}
			if two != tt.wantTwo || len(f.measured) != tt.wantTwo+1 {
				t.Errorf("measured two %d times (%d in all), want %d (and one of one)", two, len(f.measured), tt.wantTwo)
			}
			if again := tt.wantTwo - 1; again > 0 && !slices.ContainsFunc(f.said, func(s string) bool {
				return strings.Contains(s, "every run of two was judged invalid (cpu-steal (invalid): mean steal 30.9%): measuring it again (1 of 2)")
			}) {
				t.Errorf("said %q, want why two is measured again", f.said)
			}
			_, err = p.Answer(context.Background())
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("answer: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) || !errors.Is(err, study.ErrAllInvalid)):
				t.Errorf("answer: got %v, want %q… (ErrAllInvalid)", err, tt.wantErr)
			}
			if tt.invalidTo > 0 && !slices.ContainsFunc(f.said, func(s string) bool { return strings.Contains(s, "judged invalid left out") }) {
				t.Errorf("said %q, want how many invalid runs the answer left out", f.said)
			}
			p.IncludeInvalid = true
			if _, err := p.Answer(context.Background()); err != nil {
				t.Errorf("answer with the invalid runs counted: %v", err)
			}
		})
	}
}
