package study

import (
	"context"

	"github.com/mongobench/mongobench/internal/result"

	"github.com/mongobench/mongobench/internal/spec"
)

// SLAStudy is one invocation of mongobench sla: the ledger workload open
// loop at the rates its search chooses, Runs times per mode and rate,
// alternating modes within each repetition so that machine noise falls on
// every mode alike. Every run is stored with its verdict in
// testResults.sla.
type SLAStudy struct {
	SLA   SLA
	Rates Search   // List, or Ladder for --rate auto
	Runs  int      // repetitions per mode and rate; at least 1
	Modes []string // ledger modes, run in this order
	Stage string   // free-text stage of a tuning journey, stored in the variant
	Base  Base     // the ledger scenario but for its rate, repetition and mode
}

// SLAResult is what an SLA study measured, in the order run.
type SLAResult struct {
	Study SLAStudy
	Runs  []Run
}

// Check says what is wrong with the study's settings (naming their
// flags: --p99, --rate, --repeat, --modes, the modes the registry's ledger
// knows), then builds the first run's scenario, so that a bad parameter
// fails before anything connects.
func (s SLAStudy) Check(env Env) error {
	if err := s.check(ledgerModes(env.Registry, s.Base)); err != nil {
		return err
	}
	tps, ok := s.Rates.Next(nil)
	if !ok || len(s.Modes) == 0 {
		return nil
	}
	_, err := s.scenario(env, tps, s.Modes[0], 0)
	return err
}

// Run measures every rate the search chooses until it ends (with Ladder,
// once every mode failed at a rate), a run fails or one stops early
// (ErrStopped). The result holds every run measured, also on error.
func (s SLAStudy) Run(ctx context.Context, env Env) (SLAResult, error) {
	res := SLAResult{Study: s}
	env.say("SLA: %s; %d runs per mode and rate\n", s.SLA, s.Runs)
	var tried []Trial
	for {
		tps, ok := s.Rates.Next(tried)
		if !ok {
			break
		}
		if err := s.level(ctx, env, &res, tps); err != nil {
			return res, err
		}
		tried = append(tried, res.trial(tps))
	}
	if _, ladder := s.Rates.(Ladder); ladder && len(tried) > 0 && !tried[len(tried)-1].Held {
		env.say("every mode failed at %.0f TPS: stopping\n", tried[len(tried)-1].Value)
	}
	return res, nil
}

// level runs every repetition of every mode at one rate.
func (s SLAStudy) level(ctx context.Context, env Env, res *SLAResult, tps float64) error {
	for rep := range s.Runs {
		for _, mode := range s.Modes {
			if err := s.one(ctx, env, res, tps, mode, rep); err != nil {
				return err
			}
		}
	}
	return nil
}

// one measures, judges and keeps one run.
func (s SLAStudy) one(ctx context.Context, env Env, res *SLAResult, tps float64, mode string, rep int) error {
	sc, err := s.scenario(env, tps, mode, rep)
	if err != nil {
		return err
	}
	env.step(len(res.Runs)+1, planned(s.Rates)*s.Runs*len(s.Modes), sc, "%s at %s TPS, run %d of %d", mode, thousands(tps), rep+1, s.Runs)
	d, err := env.Measure(ctx, sc, result.Variant{Stage: result.Ptr(s.Stage), Mode: result.Ptr(mode)})
	if err != nil {
		return err
	}
	r, err := RunOf(d)
	if err != nil {
		return err
	}
	v := Judge(r, s.SLA)
	d.TestResults.SLA = &result.SLAVerdict{Spec: s.SLA.String(), Pass: v.Pass, Reasons: v.Reasons}
	r.Verdict, r.Judged = d.TestResults.SLA, Judged(d.TestResults.Bounds, "", nil)
	if err := env.Keep(ctx, d); err != nil {
		return err
	}
	res.Runs = append(res.Runs, r)
	env.say("%-11s %6.0f TPS run %d: p99 %s ms, %.0f/s, %d retries: %s\n",
		r.Mode, r.TPS, r.Rep+1, progressMS(r.P99), r.Achieved, r.Retries, v)
	return stopped(d)
}

// scenario is the scenario of one run; the mode is set after the -p
// parameters, so it wins over one given there.
func (s SLAStudy) scenario(env Env, tps float64, mode string, rep int) (*spec.Scenario, error) {
	return s.Base.scenario(env, func(sc *spec.Scenario) {
		sc.Rate, sc.Repetition = spec.Rate(tps), rep
		sc.StudyThresholds = s.SLA.Thresholds() // judged by the lab on the run's result
	}, "mode="+mode)
}

// trial sums up the runs at tps: it held when most runs of some mode
// passed.
func (r SLAResult) trial(tps float64) Trial {
	held := false
	for _, sum := range Summarize(r.Runs, r.Study.SLA) {
		if sum.TPS == tps && sum.Held() {
			held = true
		}
	}
	var achieved, p99s []float64
	for _, run := range r.Runs {
		if run.TPS != tps {
			continue
		}
		achieved = append(achieved, run.Achieved)
		if run.P99 != nil {
			p99s = append(p99s, *run.P99)
		}
	}
	return trialOf(tps, held, achieved, p99s)
}

// Summaries are the runs summed up per mode and rate.
func (r SLAResult) Summaries() []Summary { return Summarize(r.Runs, r.Study.SLA) }

// DistinctRates is how many target rates runs ran at.
func DistinctRates(runs []Run) int {
	seen := map[float64]bool{}
	for _, r := range runs {
		seen[r.TPS] = true
	}
	return len(seen)
}
