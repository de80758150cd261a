// Package plan judges transaction runs against a latency SLA and renders
// the tables of `mongobench sla`: one line per run, a summary per variant,
// the scaling study and the journey of stages. It also judges and renders
// the steps of `mongobench sweep` (sweep.go: Step, Holds, Saturation,
// MaxAtSLA, the automatic rate search and the spread of repetitions).
//
// Input is stored result documents of the txn_sla test (see RunOf). A run
// passes when every percentile the SLA checks is within its bound, it
// achieved at least a fraction (99% by default) of its target rate, and no
// transaction failed permanently. Repetitions are summarised by the median,
// maximum and sample standard deviation of their per-run p99s; percentiles
// are never averaged within a run.
//
// The package is pure: it reads values and writes to an io.Writer. Each
// table renders for the terminal (aligned text, a missing value shown as
// "—") or as Markdown (numeric columns right-aligned, a missing value left
// empty). Latencies are milliseconds to three significant figures; rates are
// whole transactions per second with thousands separators.
package plan
