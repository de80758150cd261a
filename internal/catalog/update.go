package catalog

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/mongobench/mongobench/internal/result"

	"github.com/mongobench/mongobench/internal/spec"
)

// minUpdates is the fewest writes an update test's variant measures at
// the default scale. At a few thousand writes a second it keeps the
// measured phase longer than the host's one-second samples, so the
// resource tables have values; preloads still scale plainly.
const minUpdates = 10_000

// updates is the writes a variant measures for a reference count: the
// reference × scale, but at least minUpdates (below the default scale,
// minUpdates × scale/DefaultScale, so tiny runs stay tiny), and never
// more than the reference.
func (s Scale) updates(reference float64) int64 {
	floor := int64(math.Round(minUpdates * min(1, float64(s)/DefaultScale)))
	return min(int64(reference), max(s.docs(reference), floor))
}

// concurrencyThreads are the concurrency test's thread counts. They are
// what the test varies, so they do not scale.
var concurrencyThreads = []int{10, 20, 50, 100, 200, 400}

// concurrency reads in two halves: every thread count updating only the
// counter, then every thread count also changing an indexed field. Each
// variant warms up first, so opening its connections (up to 400) is not
// measured.
var concurrency = Test{
	Name:     "concurrency",
	Workload: "hotdoc", Measure: Updates,
	Columns:     []string{"indexUpdate"},
	Description: "Contention: 10 to 400 threads $inc one hot document, without then with an indexed field in the update; 1 M × 1 KB, 1 M updates",
	variants: func(s Scale) []Variant {
		records, n := s.docs(1e6), s.updates(1e6)
		var out []Variant
		for _, indexed := range []bool{false, true} {
			for _, threads := range concurrencyThreads {
				order := len(out)
				out = append(out, Variant{
					Order: order, Threads: threads, Ops: n, DocsPerOp: 1, Warmup: spec.Duration(time.Second),
					Params: []string{fmt.Sprintf("records=%d", records), "docSize=1KB", "indexUpdate=" + strconv.FormatBool(indexed)},
					Values: result.Variant{Order: result.Ptr(order), NumberOfThreads: result.Ptr(threads), IndexUpdate: result.Ptr(indexed), NUpdates: result.Ptr(n)},
				})
			}
		}
		return out
	},
}

// updateAPI reads by function, then upsert, then share of new keys.
var updateAPI = Test{
	Name:     "updateapi",
	Workload: "updateapi", Measure: Updates,
	Columns:     []string{"updateFunction", "upsert", "percentNew"},
	Description: "Update APIs: updateOne vs findOneAndUpdate, upsert or insert on miss, 0/50/100% new keys; 500 k × 1 KB, 500 k writes, 30 threads",
	variants: func(s Scale) []Variant {
		records, n := s.docs(500e3), s.updates(500e3)
		var out []Variant
		for _, fn := range []string{"updateOne", "findOneAndUpdate"} {
			for _, upsert := range []bool{false, true} {
				for _, pct := range []int{0, 50, 100} {
					order := len(out)
					threads := s.threads(30)
					out = append(out, Variant{
						Order: order, Threads: threads, Ops: n, DocsPerOp: 1,
						Params: []string{
							fmt.Sprintf("records=%d", records), "docSize=1KB", "updateFunction=" + fn,
							"upsert=" + strconv.FormatBool(upsert), fmt.Sprintf("percentNew=%d", pct),
						},
						Values: result.Variant{
							Order: result.Ptr(order), UpdateFunction: result.Ptr(fn), Upsert: result.Ptr(upsert), PercentNew: result.Ptr(pct),
							NUpdates: result.Ptr(n), NumberOfThreads: result.Ptr(threads),
						},
					})
				}
			}
		}
		return out
	},
}
