package cli

import (
	"context"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/progress"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/threshold"
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
	var clock progress.StepClock
	return lab.UI{
		Say: a.say,
		Progress: func(sc *spec.Scenario, tally *engine.Tally) lab.Progress {
			return newProgress(a.stderr, a.term, a.statusInterval, sc, tally)
		},
		Step: func(info study.StepInfo) {
			a.say("%s\n", progress.StepLine(clock.Next(info.N, info.Total, info.What, info.Planned, time.Now())))
		},
		WarnURI:     a.warnURI,
		AbortJudged: abortJudged,
		ToolVersion: Version,
	}
}

// abortJudged, when set (by tests, OnAbortJudged), is handed each run's
// cumulative figures the abort judge judges.
var abortJudged func(threshold.Figures)

// servers says where the embedded server and local profiles live.
func (a *app) servers() lab.Servers { return lab.Servers{Dir: serverDir(), Env: serverEnv()} }
