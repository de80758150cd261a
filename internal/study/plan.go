package study

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/plan"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/validity"
)

// ErrAllInvalid is a plan that cannot answer because a candidate's every
// stored run was judged invalid.
var ErrAllInvalid = errors.New("runs judged invalid")

// Plan is a capacity plan's study: it measures the plan's scenario on
// every candidate, and answers the plan from all the runs of the plan
// stored so far, so batches of runs may be made at different times.
type Plan struct {
	Spec *spec.Plan
	// Runs is how many repetitions of every candidate Measure makes.
	Runs int
	// Stored reads the stored result documents, those judged invalid
	// too; the plan picks its own (variant.plan, complete runs only).
	Stored func(ctx context.Context) ([]result.Doc, error)
	// Where names the results store in errors.
	Where string
	// FromResults answers from the stored runs without measuring.
	FromResults bool
	// IncludeInvalid counts the runs judged invalid too; by default
	// they are left out of the answer (validity.Filter).
	IncludeInvalid bool
	// Say, when set, writes a progress line: how many runs judged
	// invalid the answer left out.
	Say func(format string, args ...any)
}

// MeasureAgain is how many more times Measure measures a candidate
// whose every run of the plan (at a stage, for a recording's plan) was
// judged invalid, so a moment of machine noise does not leave it
// without an answer.
const MeasureAgain = 2

// Measure makes Runs repetitions of every candidate, alternating
// candidates within a repetition, each on its target through
// env.OnTarget. Repetitions are numbered after those already stored, so
// earlier batches are kept. A run that stopped early ends it with an
// error wrapping ErrStopped.
func (p Plan) Measure(ctx context.Context, env Env) error {
	docs, err := p.docs(ctx)
	if err != nil {
		return err
	}
	next := nextRepetitions(docs)
	pl := p.Spec
	sc, err := Scenario(env.Registry, pl.Scenario, nil)
	if err != nil {
		return err
	}
	if pl.RecordedRate > 0 {
		err = p.measurePaced(ctx, env, sc, pl.Candidates, p.Runs, next)
	} else {
		err = p.measureEach(ctx, env, sc, pl.Candidates, p.Runs, next)
	}
	for again := 1; err == nil && !p.IncludeInvalid && again <= MeasureAgain; again++ {
		if docs, err = p.docs(ctx); err != nil {
			return err
		}
		redo := p.allInvalid(docs)
		if len(redo) == 0 {
			break
		}
		for _, c := range redo {
			env.say("plan %s: every run of %s was judged invalid (%s): measuring it again (%d of %d)\n",
				pl.Name, c.Label, invalidWhy(docs, c.Label), again, MeasureAgain)
		}
		next = nextRepetitions(docs)
		if pl.RecordedRate > 0 {
			err = p.measurePaced(ctx, env, sc, redo, 1, next)
		} else {
			err = p.measureEach(ctx, env, sc, redo, 1, next)
		}
	}
	return err
}

// measureEach makes runs repetitions of the candidates cs, alternating
// them within a repetition, numbered from next.
func (p Plan) measureEach(ctx context.Context, env Env, sc *spec.Scenario, cs []spec.Target, runs int, next map[string]int) error {
	pl := p.Spec
	for rep := range runs {
		for i, c := range cs {
			env.step(rep*len(cs)+i+1, runs*len(cs), sc, "plan %s: %s, run %d of %d", pl.Name, c.Label, rep+1, runs)
			err := env.OnTarget(ctx, c, func(result.Instance) error {
				return p.measure(ctx, env, c, next[c.Label]+rep, nil)
			})
			if err != nil {
				return fmt.Errorf("plan %s: candidate %s: %w", pl.Name, c.Label, err)
			}
		}
	}
	return nil
}

// allInvalid are the candidates with stored runs of the plan none of
// which counts (at some stage, for a recording's plan): each was judged
// invalid.
func (p Plan) allInvalid(docs []result.Doc) []spec.Target {
	type key struct{ cand, stage string }
	stored, counted := map[key]bool{}, map[key]bool{}
	for i := range docs {
		k := key{candidateOf(&docs[i]), deref(result.VariantOf(&docs[i]).Stage)}
		stored[k] = true
		if validity.Counts(&docs[i], false) {
			counted[k] = true
		}
	}
	var out []spec.Target
	for _, c := range p.Spec.Candidates {
		for k := range stored {
			if k.cand == c.Label && !counted[k] {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// invalidWhy words why candidate's runs were judged invalid: the
// validity line of its newest run.
func invalidWhy(docs []result.Doc, candidate string) string {
	why := ""
	for i := range docs {
		if candidateOf(&docs[i]) == candidate && docs[i].Validity != nil {
			why = strings.TrimPrefix(validity.Line(*docs[i].Validity), result.Invalid+": ")
		}
	}
	return why
}

// candidateOf is the candidate a plan's run measured, "" for none.
func candidateOf(d *result.Doc) string { return deref(result.VariantOf(d).Candidate) }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// measurePaced measures a recording's plan on the candidates cs: on
// each, for each of runs repetitions, the recording replayed at every
// stage's rate, one run per stage (its variant.stage the stage's name),
// on one server.
func (p Plan) measurePaced(ctx context.Context, env Env, sc *spec.Scenario, cs []spec.Target, runs int, next map[string]int) error {
	pl := p.Spec
	stages := pl.Demand.Stages
	total := runs * len(cs) * len(stages)
	n := 0
	for rep := range runs {
		for _, c := range cs {
			err := env.OnTarget(ctx, c, func(result.Instance) error {
				for _, s := range stages {
					n++
					env.step(n, total, sc, "plan %s: %s, stage %s (×%s, %s), run %d of %d", pl.Name, c.Label, s.Name,
						strconv.FormatFloat(s.Rate/pl.RecordedRate, 'g', 4, 64), spec.Rate(s.Rate), rep+1, runs)
					if err := p.measure(ctx, env, c, next[c.Label]+rep, &s); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("plan %s: candidate %s: %w", pl.Name, c.Label, err)
			}
		}
	}
	return nil
}

// measure makes one run of the plan's scenario on candidate c, numbered
// rep, and keeps it; at a paced plan's stage, at the stage's rate.
func (p Plan) measure(ctx context.Context, env Env, c spec.Target, rep int, stage *plan.Stage) error {
	base := p.Spec.Scenario.Clone()
	base.Label, base.Repetition = c.Label, rep
	if stage != nil {
		base.Rate = spec.Rate(stage.Rate)
	}
	sc, err := Scenario(env.Registry, base, nil)
	if err != nil {
		return err
	}
	in := c.Described()
	variant := result.Variant{Plan: result.Ptr(p.Spec.Name), Candidate: result.Ptr(c.Label), Instance: &in}
	if stage != nil {
		variant.Stage = result.Ptr(stage.Name)
	}
	d, err := env.Measure(ctx, sc, variant)
	if err != nil {
		return err
	}
	if err := env.Keep(ctx, d); err != nil {
		return err
	}
	return stopped(d)
}

// Answer evaluates the plan on its stored runs, with the plan's prices
// (so a price change needs no new runs).
func (p Plan) Answer(ctx context.Context) (plan.Answer, error) {
	docs, err := p.docs(ctx)
	if err != nil {
		return plan.Answer{}, err
	}
	counted, left := validity.Filter(docs, p.IncludeInvalid)
	if line := validity.LeftOut(left); line != "" && p.Say != nil {
		p.Say("%s\n", line)
	}
	ans, err := AnswerPlan(p.Spec, counted, p.Where)
	if err != nil && left > 0 {
		return ans, p.invalidError(docs, err)
	}
	return ans, err
}

// invalidError words a plan that cannot answer because its runs of some
// candidates were all judged invalid: which, why, and how to count them.
func (p Plan) invalidError(docs []result.Doc, err error) error {
	stored, counted := map[string]int{}, map[string]bool{}
	for i := range docs {
		c := candidateOf(&docs[i])
		stored[c]++
		counted[c] = counted[c] || validity.Counts(&docs[i], p.IncludeInvalid)
	}
	var why []string
	for _, c := range p.Spec.Candidates {
		if n := stored[c.Label]; n > 0 && !counted[c.Label] {
			why = append(why, fmt.Sprintf("%s: its %d stored run(s) were judged invalid (%s)", c.Label, n, invalidWhy(docs, c.Label)))
		}
	}
	if len(why) == 0 {
		return err
	}
	return fmt.Errorf("plan %s: %s; --include-invalid counts them: %w", p.Spec.Name, strings.Join(why, "; "), ErrAllInvalid)
}

// docs reads the plan's stored, complete runs.
func (p Plan) docs(ctx context.Context) ([]result.Doc, error) {
	all, err := p.Stored(ctx)
	if err != nil {
		return nil, err
	}
	return PlanDocs(all, p.Spec.Name), nil
}

// PlanDocs picks the complete runs of the plan named name.
func PlanDocs(all []result.Doc, name string) []result.Doc {
	var out []result.Doc
	for _, d := range all {
		if n := result.VariantOf(&d).Plan; n != nil && *n == name && !d.Partial {
			out = append(out, d)
		}
	}
	return out
}

// nextRepetitions returns, per candidate, the first repetition number not
// stored yet.
func nextRepetitions(docs []result.Doc) map[string]int {
	next := map[string]int{}
	for i := range docs {
		c := candidateOf(&docs[i])
		next[c] = max(next[c], docs[i].Repetition+1)
	}
	return next
}

// AnswerPlan evaluates the plan pl on its runs docs (PlanDocs), priced
// as pl says. Every candidate needs a run; where names the results store
// in the error that says which have none.
func AnswerPlan(pl *spec.Plan, docs []result.Doc, where string) (plan.Answer, error) {
	p := plan.Plan{Demand: pl.Demand, Constraints: pl.Constraints, Paced: pl.RecordedRate > 0}
	var missing []string
	for _, c := range pl.Candidates {
		cand := plan.Candidate{Name: c.Label, Description: c.Instance.Type, Baseline: c.Baseline,
			Monthly: c.Price.PerMonth(), Currency: c.Price.Currency, CPUs: serverCPUs(c)}
		for i := range docs {
			if v := result.VariantOf(&docs[i]).Candidate; v != nil && *v == c.Label {
				cand.Runs = append(cand.Runs, plan.RunOf(&docs[i]))
			}
		}
		if len(cand.Runs) == 0 {
			missing = append(missing, c.Label)
		}
		p.Candidates = append(p.Candidates, cand)
	}
	if len(missing) > 0 {
		return plan.Answer{}, fmt.Errorf("plan %s: no stored runs of %s in %s (run 'mongobench plan' without --from-results)",
			pl.Name, strings.Join(missing, ", "), where)
	}
	return plan.Evaluate(p)
}

// serverCPUs is how many CPUs a candidate's server may use: its
// profile's CPU list, else its instance's vCPU; 0 when neither says.
func serverCPUs(t spec.Target) int {
	if t.Profile != nil {
		if l := t.Profile.CPUList(); len(l) > 0 {
			return len(l)
		}
	}
	return int(t.Instance.VCPU)
}
