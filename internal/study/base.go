package study

import (
	"math"
	"slices"
	"strconv"

	"github.com/mongobench/mongobench/internal/spec"
)

// Base is a study's scenario before the study sets what it varies from
// run to run (the rate, the threads, the repetition, the mode).
type Base struct {
	// Scenario holds the workload and the settings every run shares, in
	// typed fields; the study changes copies, never it.
	Scenario *spec.Scenario
	// Params are the -p parameters, applied to each run's copy.
	Params []string
}

// scenario makes one run's scenario: a copy of the base that vary
// changes, then the parameters and extra ones, validated against the
// registry.
func (b Base) scenario(env Env, vary func(*spec.Scenario), extra ...string) (*spec.Scenario, error) {
	sc := b.Scenario.Clone()
	vary(sc)
	return Scenario(env.Registry, sc, append(slices.Clone(b.Params), extra...))
}

// progressMS formats a latency for a progress line: three significant
// figures without trailing zeros, whole milliseconds with thousands
// separators from 1,000 up (2,790, never 2.79e+03), "—" when not
// recorded.
func progressMS(v *float64) string {
	switch {
	case v == nil:
		return "—"
	case math.Abs(*v) >= 1000:
		return thousands(*v)
	}
	return strconv.FormatFloat(*v, 'g', 3, 64)
}
