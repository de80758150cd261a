package options

import (
	"slices"

	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/threshold"
	"github.com/mongobench/mongobench/internal/workload"
)

// CheckThresholds refuses, as bad input naming the threshold, what cannot
// apply to runs of sc (validated): a share of the target rate in a closed
// loop, or an operation type its workload does not have. ts are checked
// with sc's own thresholds.
func CheckThresholds(reg *workload.Registry, sc *spec.Scenario, openLoop bool, ts ...threshold.Threshold) error {
	run := threshold.Run{Workload: sc.Workload, OpenLoop: openLoop}
	if w, err := reg.Get(sc.Workload); err == nil {
		run.Ops = w.Ops(sc.Params)
	}
	return threshold.Check(slices.Concat(sc.Thresholds, ts), run)
}

// StudyThresholds checks the thresholds given to a study against runs of
// its base scenario with its -p parameters (read when it is called); a
// base the study itself will refuse is not checked here.
func StudyThresholds(reg *workload.Registry, base *spec.Scenario, params *[]string, openLoop bool) func([]threshold.Threshold) error {
	return func(ts []threshold.Threshold) error {
		sc, err := study.Scenario(reg, base, *params)
		if err != nil {
			return nil // the study's own check says what is wrong
		}
		return CheckThresholds(reg, sc, openLoop, ts...)
	}
}
