package study

import (
	"context"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
)

// Single is one run as a study: `mongobench run`. It measures its
// scenario once and keeps the result; its verdict is the run's
// thresholds.
type Single struct {
	Scenario *spec.Scenario
}

// Run measures the scenario on env's target and keeps it. It returns the
// kept result, with an error wrapping ErrStopped when the run stopped
// early.
func (s Single) Run(ctx context.Context, env Env) (*result.Doc, error) {
	d, err := env.Measure(ctx, s.Scenario, result.Variant{})
	if err != nil {
		return d, err
	}
	if err := env.Keep(ctx, d); err != nil {
		return d, err
	}
	return d, stopped(d)
}
