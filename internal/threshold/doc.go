// Package threshold parses threshold expressions, such as
// "p99(READ) < 5ms" or "errors < 0.1%", and judges them on a result
// document, stored or just measured, so a pipeline can gate on a run.
//
// The grammar (see Parse) is METRIC CMP VALUE:
//
//	p99(READ) < 5ms         latency p99 of READ, from intended start
//	p99.9(UPDATE) <= 20ms   any percentile pN; p999 is p99.9
//	svc.p50(READ) < 1ms     service time, from send
//	p99 < 5ms               every operation type that succeeded must hold
//	max < 1s                also min and mean
//	errors < 0.1%           failed operations, share of completed ones
//	errors(timeout) < 1     a count, of one class (or of one operation type)
//	rate >= 99%             achieved rate, share of the target (open loop)
//	rate >= 1000/s          achieved rate, ops/s
//	clientbound == false    the client-bound verdict (also serverbound)
//	throughput >= 1000/s    achieved rate, ops/s
//
// A capacity plan's constraints are thresholds too, and add what only a
// plan has: a baseline, and stages of demand.
//
//	p95(READ) <= +5%        at most 5% above the baseline's READ p95
//	p95 READ <= +5%         the same: the plan file's form
//	p99 <= +10%             every operation type against its own baseline
//	throughput >= -10%      at most 10% below the baseline's throughput
//	headroom >= 20%         a stage's demand leaves 20% of the throughput
//
// The studies' bounds are threshold sets, judged here: a sweep step's
// criteria ("rate >= 95%", "p99 <= 20ms", "errors <= 1%") and an SLA
// run's bounds ("p99 <= 20ms", "rate >= 99%", "errors == 0").
//
// A figure the run does not have (no operation of the type succeeded,
// a verdict not judged, no target rate) is missing: its threshold fails,
// and the verdict says why, never comparing a 0 in its place.
//
// The package is pure: it reads result documents and does no I/O.
package threshold
