// Package study holds the studies: the commands that make many runs and
// decide from their results (sla, sweep, calibrate, compare), and the
// results they hand back (Outcome.Result), which package studyview shows.
//
// A study runs through an Env (env.go): it builds each run's scenario
// from a Base, measures it with Env.Measure, judges the result document,
// records the verdict in its testResults, and hands it to Env.Keep. It
// never talks to MongoDB itself; the cli fills Env with the runner and
// the store, tests with constructed result documents. SweepStudy,
// SLAStudy and CalibrateStudy (*_study.go) each ask a Search (search.go:
// List, Auto, Ladder, Calibration) for the next value to measure, from
// the Trials so far; Majority decides a value measured several times.
//
// SLA (sla.go, run.go): transaction runs judged against a latency SLA;
// one line per run, a summary per variant, the scaling study and the
// journey of stages. A run passes when every percentile the SLA checks is
// within its bound, it achieved at least a fraction (99% by default) of its
// target rate, and no transaction failed permanently. Repetitions are
// summarised by the median, maximum and sample standard deviation of their
// per-run p99s; percentiles are never averaged within a run.
//
// Sweep (sweep.go): steps, Holds, Saturation, MaxAtSLA, the automatic rate
// search and the spread of repetitions. Compare (compare.go): two labels'
// sweeps side by side. Calibrate (calibrate.go): the knee of the thread
// count.
//
// The package is pure: it reads result documents and returns what it
// found; it builds no views (studyview does).
package study
