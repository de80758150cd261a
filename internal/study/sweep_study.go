package study

import (
	"context"
	"fmt"
	"strings"

	"github.com/mongobench/mongobench/internal/result"

	"github.com/mongobench/mongobench/internal/price"
	"github.com/mongobench/mongobench/internal/spec"
)

// SweepStudy is one invocation of mongobench sweep: a workload open loop
// at the target rates its search chooses, each Repeat times. Every step
// is a stored run whose variant carries the sweep id, sweepStep and
// repetition, and whose testResults.sweep records whether it held. As
// one client of a run group (Env.Merged set), a step is the group's
// merged result: judged, kept and searched on alike by every client.
type SweepStudy struct {
	ID       string   // the sweep's id, shared by its steps
	Base     Base     // each step's scenario but for its rate and repetition
	Rates    Search   // List or Auto
	Repeat   int      // runs per target rate; at least 1
	Criteria Criteria // when a step holds
	// Price is the target's price, stored as _id.instance.cost (cents per
	// hour), price and currency; nil unknown.
	Price *price.Price
}

// SweepResult is what a sweep measured, in the order run.
type SweepResult struct {
	Study SweepStudy
	Steps []Step
}

// Check says what is wrong with the sweep's settings (naming their
// flags), then builds the first step's scenario, so that a bad workload
// or parameter fails before anything connects.
func (s SweepStudy) Check(env Env) error {
	if err := s.check(); err != nil {
		return err
	}
	rate, ok := s.Rates.Next(nil)
	if !ok {
		return nil
	}
	_, err := s.scenario(env, rate, 0)
	return err
}

// Run measures the rates the search chooses, every repetition of each,
// until the search ends, a run fails or one stops early (ErrStopped).
// The result holds every step measured, also on error.
func (s SweepStudy) Run(ctx context.Context, env Env) (SweepResult, error) {
	res := SweepResult{Study: s}
	env.say("sweep %s of %s: a step holds when %s\n", s.ID, s.Base.Scenario.Workload, s.Criteria)
	var tried []Trial
	for {
		rate, ok := s.Rates.Next(tried)
		if !ok {
			return res, nil
		}
		t, err := s.level(ctx, env, &res, rate, len(tried)+1)
		if err != nil {
			return res, err
		}
		tried = append(tried, t)
	}
}

// level runs every repetition at one rate; the trial holds when most
// did.
func (s SweepStudy) level(ctx context.Context, env Env, res *SweepResult, rate float64, index int) (Trial, error) {
	held := 0
	var achieved, p99s []float64
	for rep := range s.Repeat {
		st, err := s.step(ctx, env, res, rate, index, rep)
		if err != nil {
			return Trial{}, err
		}
		if ok, _ := Holds(st, s.Criteria); ok {
			held++
		}
		achieved = append(achieved, st.Achieved)
		if p := st.P99(); p != nil {
			p99s = append(p99s, *p)
		}
	}
	return trialOf(rate, Majority(held, s.Repeat), achieved, p99s), nil
}

// step measures, judges and keeps one run.
func (s SweepStudy) step(ctx context.Context, env Env, res *SweepResult, rate float64, index, rep int) (Step, error) {
	sc, err := s.scenario(env, rate, rep)
	if err != nil {
		return Step{}, err
	}
	what := thousands(rate) + "/s"
	if s.Repeat > 1 {
		what += fmt.Sprintf(", run %d of %d", rep+1, s.Repeat)
	}
	env.step(len(res.Steps)+1, planned(s.Rates)*s.Repeat, sc, "%s", what)
	d, err := env.Measure(ctx, sc, s.variant(index, rep))
	if err != nil {
		return Step{}, err
	}
	if env.Merged != nil {
		// one client's part of a run group: the step is the group's
		// result, judged and kept alike by every client
		if d, err = env.Merged(ctx, d); err != nil {
			return Step{}, err
		}
	}
	st, err := StepOf(d)
	if err != nil {
		return st, err
	}
	ok, reasons := Holds(st, s.Criteria)
	d.TestResults.Sweep = &result.SweepVerdict{ID: s.ID, Step: st.Index, Criteria: s.Criteria.String(), Holds: ok, Reasons: reasons}
	st.Verdict, st.Judged = d.TestResults.Sweep, Judged(d.TestResults.Bounds, "", nil)
	if err := env.Keep(ctx, d); err != nil {
		return st, err
	}
	res.Steps = append(res.Steps, st)
	verdict := "holds"
	if !ok {
		verdict = "fails: " + strings.Join(reasons, "; ")
	}
	env.say("step %d %8.0f/s run %d: achieved %.0f/s, p99 %s ms, %d errors, %d late: %s\n",
		st.Index, st.Rate, st.Rep+1, st.Achieved, progressMS(st.P99()), st.Errors, st.Late, verdict)
	return st, stopped(d)
}

// scenario is the scenario of one step at rate.
func (s SweepStudy) scenario(env Env, rate float64, rep int) (*spec.Scenario, error) {
	return s.Base.scenario(env, func(sc *spec.Scenario) {
		sc.Rate, sc.Repetition = spec.Rate(rate), rep
		sc.StudyThresholds = s.Criteria.Thresholds() // judged by the lab on the step's result
	})
}

// variant is what identifies a step within its sweep, and the target's
// price when given (instance.cost, cents per hour).
func (s SweepStudy) variant(index, rep int) result.Variant {
	v := result.Variant{Sweep: result.Ptr(s.ID), SweepStep: result.Ptr(index), Repetition: result.Ptr(rep)}
	if p := s.Price; p != nil {
		v.Instance = &result.Instance{Cost: result.Ptr(p.CentsPerHour()), Price: p.String(), Currency: p.Currency}
	}
	return v
}
