package cli

import "github.com/mongobench/mongobench/internal/result"

// OnAbortJudged hands f each cumulative document the --abort-on-fail
// watch judges, until the returned func is called.
func OnAbortJudged(f func(*result.Doc)) (restore func()) {
	abortJudged = f
	return func() { abortJudged = nil }
}
