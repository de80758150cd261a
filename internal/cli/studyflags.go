package cli

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/threshold"
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/ycsbprops"
)

// studyFlags are the flags of the commands that run a study on one
// target: the target and its data database, the runs' label and -p
// parameters, and the option set every measuring command shares.
type studyFlags struct {
	uri, database, label string
	params               []string
	uriOptions           []ycsbprops.Option // added to the target's URI (-P)
	measureOptions
}

// add declares the flags on fl; params is -p's help ("" declares none).
func (f *studyFlags) add(a *app, fl *pflag.FlagSet, params string, h optionHelp) {
	fl.StringVar(&f.uri, "uri", "", "target MongoDB URI (default: $MONGOBENCH_URI, else the embedded server)")
	fl.StringVar(&f.database, "database", "", "data database (default mongobench_data)")
	fl.StringVar(&f.label, "label", "", "label stored with every run, e.g. the instance type")
	if params != "" {
		fl.StringArrayVarP(&f.params, "param", "p", nil, params)
	}
	f.measureOptions.add(a, fl, h)
}

// openOn opens the lab on the one target the flags name, for a study of
// the workloads of reg: check builds the study's scenarios first and
// checkTs its thresholds (nil: nothing to check), so bad input fails
// before anything connects.
func (a *app) openOn(ctx context.Context, f *studyFlags, reg *workload.Registry, check func(study.Env) error, checkTs func([]threshold.Threshold) error) (*lab.Lab, error) {
	if err := check(study.Env{Registry: reg}); err != nil {
		return nil, usage(err)
	}
	lo, err := f.options(ctx, a)
	if err != nil {
		return nil, err
	}
	if checkTs != nil {
		if err := checkTs(lo.Thresholds); err != nil {
			return nil, err
		}
	}
	if err := checkURI(f.uri); err != nil {
		return nil, err
	}
	lo.URI, lo.URIOptions = f.uri, f.uriOptions
	if lo.URI == "" {
		lo.URI = env("MONGOBENCH_URI")
	}
	return a.open(ctx, lo)
}

// The typed flag values of spec and study are flag values.
var (
	_ pflag.Value = (*spec.SettingFlag)(nil)
	_ pflag.Value = (*spec.Duration)(nil)
	_ pflag.Value = (*spec.Rate)(nil)
	_ pflag.Value = (*spec.Size)(nil)
	_ pflag.Value = (*study.Bound)(nil)
	_ pflag.Value = (*study.Rates)(nil)
	_ pflag.Value = (*study.Costs)(nil)
	_ pflag.Value = (*study.Prices)(nil)
)
