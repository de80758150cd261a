package cli

import (
	"context"
	"errors"

	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

// measure is how every measuring command runs: its lab Options lo (made
// from its option set o, err when they could not be) ready, the study s
// checked against the workloads of reg and the command's thresholds, the
// lab opened once with lo, s run through it, and the command finished
// (finish): its exit code the study's error, else its verdict (each
// run's thresholds when it has none of its own).
func (a *app) measure(ctx context.Context, s study.Study, reg *workload.Registry, o *options.Measure, lo lab.Options, err error) error {
	if lo, err = a.checked(o, lo, err); err != nil {
		return err
	}
	if err := s.Check(reg, lo.Thresholds); err != nil {
		return usage(err)
	}
	l, err := a.open(ctx, lo)
	if err != nil {
		return err
	}
	defer l.Close()
	out, err := s.Run(ctx, l.Env(reg))
	out.Runs = l.Kept()
	ferr := a.finish(finishing{JSON: o.JSON, ReportDir: lo.ReportDir, RunReports: l.Reports(), Where: l.Store().Where(), Measured: true}, out, err)
	verdict := out.Verdict
	if verdict == nil {
		verdict = l.ThresholdsVerdict
	}
	return l.Outcome(study.Ends(errors.Join(err, ferr), s.Name(), verdict))
}

// workloads is the registry of the built-in workloads (and the workload
// files it opens by path), built once per command line: a workload file
// is read and checked once however often the command asks for it.
func (a *app) workloads() *workload.Registry {
	if a.registry == nil {
		a.registry = builtin.Registry()
	}
	return a.registry
}
