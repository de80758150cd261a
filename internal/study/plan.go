package study

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/plan"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
)

// Plan is a capacity plan's study: it measures the plan's scenario on
// every candidate, and answers the plan from all the runs of the plan
// stored so far, so batches of runs may be made at different times.
type Plan struct {
	Spec *spec.Plan
	// Runs is how many repetitions of every candidate Measure makes.
	Runs int
	// Stored reads the stored result documents; the plan picks its own
	// (variant.plan, complete runs only).
	Stored func(ctx context.Context) ([]result.Doc, error)
	// Where names the results store in errors.
	Where string
	// FromResults answers from the stored runs without measuring.
	FromResults bool
}

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
		return p.measurePaced(ctx, env, sc, next)
	}
	for rep := range p.Runs {
		for i, c := range pl.Candidates {
			env.step(rep*len(pl.Candidates)+i+1, p.Runs*len(pl.Candidates), sc, "plan %s: %s, run %d of %d", pl.Name, c.Label, rep+1, p.Runs)
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

// measurePaced measures a recording's plan: on each candidate, for
// each repetition, the recording replayed at every stage's rate, one
// run per stage (its variant.stage the stage's name), on one server.
func (p Plan) measurePaced(ctx context.Context, env Env, sc *spec.Scenario, next map[string]int) error {
	pl := p.Spec
	stages := pl.Demand.Stages
	total := p.Runs * len(pl.Candidates) * len(stages)
	n := 0
	for rep := range p.Runs {
		for _, c := range pl.Candidates {
			err := env.OnTarget(ctx, c, func(result.Instance) error {
				for _, s := range stages {
					n++
					env.step(n, total, sc, "plan %s: %s, stage %s (×%s, %s), run %d of %d", pl.Name, c.Label, s.Name,
						strconv.FormatFloat(s.Rate/pl.RecordedRate, 'g', 4, 64), spec.Rate(s.Rate), rep+1, p.Runs)
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
	return AnswerPlan(p.Spec, docs, p.Where)
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
	for _, d := range docs {
		var c string
		if v := result.VariantOf(&d).Candidate; v != nil {
			c = *v
		}
		next[c] = max(next[c], d.Repetition+1)
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
