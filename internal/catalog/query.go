package catalog

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/mongobench/mongobench/internal/result"

	"github.com/mongobench/mongobench/internal/spec"
)

// The query tests' dataset: 60 M documents of 1 KB in groups of 400
// (150,000 groups) at full scale. The query workload grows it to twice
// the server's cache so that uncached lookups miss the cache.
const (
	queryRecords   = 60e6
	queryGroupSize = 400
	// queryOps is how many single-document queries a variant runs at full
	// scale; a variant of n documents per query runs queryOps / √n, so
	// each takes a similar time; queryMaxDuration bounds it at every scale
	// (scaled, but at least 5 s), so that a slow shape cannot hold the
	// test up.
	queryOps         = 20e6
	queryMaxDuration = 600.0 // seconds, at full scale
	queryMinDuration = 5.0
	// queryWarmup warms the cache before the measured phase of a cached
	// variant (its setup has read the range once already): seconds at full
	// scale, scaled, between queryMinWarmup and queryWarmup.
	queryWarmup    = 60.0
	queryMinWarmup = 0.5
)

// queryColumns are the variant fields the query tests' terminal table shows.
var queryColumns = []string{"comment", "cached", "docsPerQuery"}

// queryShape is one variant of a query test before scaling.
type queryShape struct {
	comment string
	query   string
	cached  bool
	docs    int
	skip    int
}

// queryVariant scales a shape into a variant: the dataset, the number of
// queries, the threads and the warm-up.
func queryVariant(order int, q queryShape, s Scale) Variant {
	ops := s.docs(queryOps / math.Sqrt(float64(q.docs)))
	records := s.docs(queryRecords)
	params := []string{
		"query=" + q.query, "cached=" + strconv.FormatBool(q.cached), fmt.Sprintf("docsPerQuery=%d", q.docs),
		fmt.Sprintf("records=%d", records), "docSize=1KB", fmt.Sprintf("groupSize=%d", queryGroupSize),
	}
	if q.query == "skip" || q.query == "range" {
		params = append(params, fmt.Sprintf("skip=%d", q.skip))
	}
	v := Variant{
		Order: order, Threads: s.threads(8), Ops: ops, Params: params,
		Values:      result.Variant{Order: result.Ptr(order), Comment: result.Ptr(q.comment)},
		MaxDuration: spec.Duration(math.Round(max(queryMinDuration, queryMaxDuration*float64(s)))) * spec.Duration(time.Second),
	}
	if q.cached {
		tenths := math.Round(10 * min(queryWarmup, max(queryMinWarmup, 1500*float64(s))))
		v.Warmup = spec.Duration(tenths) * spec.Duration(100*time.Millisecond)
	}
	return v
}

var queryFull = Test{
	Name:     "query_full",
	Workload: "query", Measure: Queries, Columns: queryColumns,
	Description: "Query speed by query shape: 60 M × 1 KB in 150,000 groups of 400, groups not contiguous on disk",
	variants: func(s Scale) []Variant {
		shapes := []queryShape{
			{comment: "by _id, cached", query: "id", cached: true, docs: 1},
			{comment: "by _id, uncached", query: "id", docs: 1},
			{comment: "100 docs by indexed term, cached", query: "term", cached: true, docs: 100},
			{comment: "100 docs by indexed term, uncached", query: "term", docs: 100},
			{comment: "20 docs, skip 380 (page 20 of a term)", query: "skip", docs: 20, skip: 380},
			{comment: "20 docs, range $gte on indexed seq (page 20)", query: "range", docs: 20, skip: 380},
			{comment: "100 docs, compound index (term, cat)", query: "compound", docs: 100},
			{comment: "100 docs, indexed term + filter on unindexed field", query: "filter", docs: 100},
			{comment: "100 docs, $in of 100 terms", query: "in", docs: 100},
		}
		out := make([]Variant, len(shapes))
		for i, q := range shapes {
			out[i] = queryVariant(i, q, s)
		}
		return out
	},
}

var queryFetch = Test{
	Name:     "query_fetch",
	Workload: "query", Measure: Queries, Columns: queryColumns,
	Description: "Query speed by documents fetched per indexed lookup (1 to 400), cached and uncached, projecting a missing field: as query_full",
	variants: func(s Scale) []Variant {
		var out []Variant
		for _, cached := range []bool{true, false} {
			for _, n := range []int{1, 10, 50, 100, 200, 400} {
				where := "uncached"
				if cached {
					where = "cached"
				}
				docs := "docs"
				if n == 1 {
					docs = "doc"
				}
				q := queryShape{comment: fmt.Sprintf("%d %s per lookup, %s", n, docs, where), query: "fetch", cached: cached, docs: n}
				out = append(out, queryVariant(len(out), q, s))
			}
		}
		return out
	},
}

var queryFetchIO = Test{
	Name:     "query_fetch_io",
	Workload: "query", Measure: Queries, Columns: targetQueryColumns, VariesTarget: true,
	Description: "Out-of-cache lookups by the target's disk IOPS: single documents by _id over the whole dataset of query_full",
	variants: func(s Scale) []Variant {
		return []Variant{queryVariant(0, queryShape{comment: "by _id, uncached", query: "id", docs: 1}, s)}
	},
}

// targetQueryColumns are the variant fields query_fetch_io's terminal
// table shows.
var targetQueryColumns = []string{"label", "instance.atlasInstanceType", "instance.atlasIOPS", "instance.cost", "comment"}
