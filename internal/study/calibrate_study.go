package study

import (
	"context"
	"strconv"

	"github.com/mongobench/mongobench/internal/result"

	"github.com/mongobench/mongobench/internal/spec"
)

// CalibrateStudy is one invocation of mongobench calibrate: a workload
// closed loop with the thread counts its search chooses, until the knee.
// Every step is a stored run whose variant carries the calibration id and
// calibrationStep, and whose testResults.calibration records its gain.
type CalibrateStudy struct {
	ID     string      // the calibration's id, shared by its steps
	Search Calibration // the thread counts and when to stop
	Base   Base        // each step's scenario but for its threads
}

// CalibrateResult is what a calibration measured, in the order run.
type CalibrateResult struct {
	Study CalibrateStudy
	Steps []ThreadStep
}

// Check says what is wrong with the calibration's settings (naming
// their flags), then builds the first step's scenario, so that a bad
// workload or parameter fails before anything connects.
func (c CalibrateStudy) Check(env Env) error {
	if err := c.check(); err != nil {
		return err
	}
	n, ok := c.Search.Next(nil)
	if !ok {
		return nil
	}
	_, err := c.scenario(env, n)
	return err
}

// Run measures the thread counts the search chooses until it ends, a run
// fails or one stops early (ErrStopped). The result holds every step
// measured, also on error.
func (c CalibrateStudy) Run(ctx context.Context, env Env) (CalibrateResult, error) {
	res := CalibrateResult{Study: c}
	env.say("calibration %s of %s: double the threads until a step gains < %s%% while p99 climbs\n",
		c.ID, c.Base.Scenario.Workload, strconv.FormatFloat(c.Search.minGain()*100, 'f', -1, 64))
	var tried []Trial
	for {
		n, ok := c.Search.Next(tried)
		if !ok {
			return res, nil
		}
		s, err := c.step(ctx, env, &res, n)
		if err != nil {
			return res, err
		}
		tried = append(tried, s.trial())
	}
}

// step measures, records and keeps one step.
func (c CalibrateStudy) step(ctx context.Context, env Env, res *CalibrateResult, threads float64) (ThreadStep, error) {
	sc, err := c.scenario(env, threads)
	if err != nil {
		return ThreadStep{}, err
	}
	env.step(len(res.Steps)+1, 0, sc, "%d threads", sc.Threads)
	d, err := env.Measure(ctx, sc, result.Variant{Calibration: result.Ptr(c.ID), CalibrationStep: result.Ptr(len(res.Steps) + 1)})
	if err != nil {
		return ThreadStep{}, err
	}
	s := ThreadStepOf(d)
	res.Steps = append(res.Steps, s)
	d.TestResults.Calibration = &result.Calibration{ID: c.ID, Step: len(res.Steps), Gain: Gain(res.Steps, len(res.Steps)-1)}
	if err := env.Keep(ctx, d); err != nil {
		return s, err
	}
	env.say("step %d %4d threads: %.0f ops/s, p99 %s ms, %d errors\n", len(res.Steps), s.Threads, s.Achieved, progressMS(s.P99), s.Errors)
	return s, stopped(d)
}

// scenario is the closed-loop scenario of one step.
func (c CalibrateStudy) scenario(env Env, threads float64) (*spec.Scenario, error) {
	return c.Base.scenario(env, func(sc *spec.Scenario) { sc.Threads = int(threads) })
}
