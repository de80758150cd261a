package cli

import "github.com/mongobench/mongobench/internal/threshold"

// OnAbortJudged hands f each run's cumulative figures the
// --abort-on-fail watch judges, until the returned func is called.
func OnAbortJudged(f func(threshold.Figures)) (restore func()) {
	abortJudged = f
	return func() { abortJudged = nil }
}
