package cli

import (
	"context"

	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/threshold"
	"github.com/mongobench/mongobench/internal/workload"
)

// openOn opens the lab on the one target the flags name, for a study of
// the workloads of reg: check builds the study's scenarios first and
// checkTs its thresholds (nil: nothing to check), so bad input fails
// before anything connects.
func (a *app) openOn(ctx context.Context, f *options.Study, reg *workload.Registry, check func(study.Env) error, checkTs func([]threshold.Threshold) error) (*lab.Lab, error) {
	if err := check(study.Env{Registry: reg}); err != nil {
		return nil, usage(err)
	}
	lo, err := f.Options(ctx, env)
	if lo, err = a.checked(&f.Measure, lo, err); err != nil {
		return nil, err
	}
	if checkTs != nil {
		if err := checkTs(lo.Thresholds); err != nil {
			return nil, usage(err)
		}
	}
	return a.open(ctx, lo)
}
