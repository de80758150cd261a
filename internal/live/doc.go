// Package live publishes the figures of the run being measured while it
// goes, on one HTTP address (run --metrics-addr and the studies' flag of
// the same name):
//
//   - /metrics: the Prometheus (OpenMetrics) exposition of the last closed
//     interval, per operation type (rates, latency and service-time
//     percentiles as gauges, never averaged across intervals) and the
//     cumulative counters and achieved rate, read from the run's
//     engine.Tally at each scrape, labelled with the test, label, run id and
//     operation (docs/metrics.md lists every name);
//   - /live: the intervals of this process's runs closed so far as JSON
//     (Feed), which `mongobench serve --live` reads to update a run's
//     page while it goes.
//
// Both come from the engine's closed intervals (OnInterval) and its tally
// of them, the figures the result document stores; nothing is sampled or
// counted twice.
package live
