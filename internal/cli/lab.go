package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/threshold"
	"github.com/mongobench/mongobench/internal/workload"
)

// checked makes a command's lab Options, made from its option set o,
// ready to open: bad input is a usage error, the results store's URI is
// warned about, and the runs' status lines come as often as o says.
func (a *app) checked(o *options.Measure, lo lab.Options, err error) (lab.Options, error) {
	if err != nil {
		return lo, usage(err)
	}
	a.statusInterval = o.StatusInterval
	if lo.ResultsURI != "" {
		a.warnURI(lo.ResultsURI)
	}
	return lo, nil
}

// open opens the lab with lo: the cli's UI (notes, the progress line,
// step headers, URI warnings) and the embedded server's place.
func (a *app) open(ctx context.Context, lo lab.Options) (*lab.Lab, error) {
	return lab.Open(ctx, lo, a.ui(), a.servers())
}

// ui is how the lab speaks through the cli.
func (a *app) ui() lab.UI {
	var clock report.StepClock
	return lab.UI{
		Say: a.say,
		Progress: func(sc *spec.Scenario, tally *engine.Tally) lab.Progress {
			return newProgress(a.stderr, a.term, a.statusInterval, sc, tally)
		},
		Step: func(info study.StepInfo) {
			a.say("%s\n", report.StepLine(clock.Next(info.N, info.Total, info.What, info.Planned, time.Now())))
		},
		WarnURI:     a.warnURI,
		AbortJudged: abortJudged,
		ToolVersion: Version,
	}
}

// abortJudged, when set (by tests, OnAbortJudged), is handed each
// cumulative document the abort judge judges.
var abortJudged func(*result.Doc)

// servers says where the embedded server and local profiles live.
func (a *app) servers() lab.Servers { return lab.Servers{Dir: serverDir(), Env: serverEnv()} }

// finishStudy prints a study's view after its progress lines (with
// --json, the stored documents of its runs as one JSON array instead)
// and writes its report, name.md and name.html, from the same view;
// view is handed the links to the runs' reports.
func (a *app) finishStudy(l *lab.Lab, o *options.Measure, runs int, view func(runs []report.Link) *report.StudyView) error {
	if o.JSON {
		if err := store.WriteJSON(a.stdout, l.Kept()); err != nil || runs == 0 {
			return err
		}
	} else {
		if runs == 0 {
			return nil
		}
		fmt.Fprintln(a.stdout)
		if err := view(nil).Text(a.stdout); err != nil {
			return err
		}
	}
	path, err := l.WriteStudyReport(view)
	if err != nil || path == "" {
		return err
	}
	a.sayReport(path)
	return nil
}

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
