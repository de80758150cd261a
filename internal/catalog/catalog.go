// Package catalog defines the focused tests of the MongoDB Performance
// Tables: each test is a list of variants that change one parameter, at
// the reference document's sizes times a scale factor. It is pure: the
// cli runs each variant through bench and stores it with the variant's
// schema fields (docs/results.md), so report templates can render it.
package catalog

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/mongobench/mongobench/internal/result"

	"github.com/mongobench/mongobench/internal/spec"
)

// DefaultScale makes the whole insert family finish in minutes on a
// 2-core machine; 1 is the reference sizes.
const DefaultScale = 0.002

// A Test is one section of the reference document.
type Test struct {
	Name        string
	Description string
	// Workload is the workload every variant runs.
	Workload string
	// Measure says which rates the test's tables read.
	Measure Measure
	// Columns are the variant fields the terminal table shows (a dotted
	// path reads inside a variant field, such as instance.cost).
	Columns []string
	// VariesTarget says the test's variant is the target itself: it runs
	// its one variant on each target of a list (VariantsOn).
	VariesTarget bool
	variants     func(s Scale) []Variant
}

// Measure is what a test's tables report.
type Measure int

// The measures of the reference document's tables.
const (
	// Ingest: documents written (docsInserted, DocsPerSecond, MBPerSecond).
	Ingest Measure = iota
	// Updates: write operations (nUpdates, UpdatesPerSecond).
	Updates
	// Queries: queries and the documents they returned (nQueries,
	// QueriesPerSecond, DocsPerSecond).
	Queries
)

// Variant is one row of a test's table.
type Variant struct {
	Order   int
	Threads int
	// Ops is the measured phase's operation count (batches for inserts).
	Ops int64
	// Params are -p assignments for the test's workload.
	Params []string
	// Values are the variant's fields as the results schema names them;
	// they join the result's variant, test_config and _id.
	Values result.Variant
	// DocsPerOp is how many documents one operation writes.
	DocsPerOp int64
	// Warmup is an unmeasured phase before the measured one (0 for none).
	Warmup spec.Duration
	// MaxDuration bounds the measured phase (0 for none): it ends after
	// Ops operations or MaxDuration, whichever comes first, so a slow
	// variant cannot hold up the test.
	MaxDuration spec.Duration
}

// Scale multiplies the reference sizes (document counts, total bytes);
// thread counts above 8 scale down with it, to at least 8, except in a
// test whose variants are the thread counts (concurrency).
type Scale float64

// ParseScale reads a positive number, or "full" for 1.
func ParseScale(s string) (Scale, error) {
	if s == "full" {
		return 1, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f > 1 || math.IsNaN(f) {
		return 0, fmt.Errorf("scale %q: want a number in (0, 1] such as 0.01, or full", s)
	}
	return Scale(f), nil
}

func (s Scale) docs(reference float64) int64 { return max(1, int64(math.Round(reference*float64(s)))) }

func (s Scale) threads(reference int) int {
	if s >= 1 || reference <= 8 {
		return reference
	}
	return max(8, int(math.Round(float64(reference)*float64(s))))
}

// Variants returns the test's variants at scale s, in order.
func (t Test) Variants(s Scale) []Variant { return t.variants(s) }

// Tests lists the catalog, in the reference document's order.
func Tests() []Test {
	return []Test{insertDocSize, insertBatchSize, insertIDType, insertNIndexes, insertIOPS, insertInstanceSize, concurrency, updateAPI, queryFull, queryFetch, queryFetchIO}
}

// Find returns the named test.
func Find(name string) (Test, error) {
	tests := Tests()
	i := slices.IndexFunc(tests, func(t Test) bool { return t.Name == name })
	if i < 0 {
		names := make([]string, len(tests))
		for j, t := range tests {
			names[j] = t.Name
		}
		return Test{}, fmt.Errorf("unknown test %q (known: %v)", name, names)
	}
	return tests[i], nil
}

// FindAll returns the named tests, in the order named; an unknown name is
// an error that lists the known ones.
func FindAll(names []string) ([]Test, error) {
	tests := make([]Test, 0, len(names))
	for _, n := range names {
		t, err := Find(n)
		if err != nil {
			return nil, err
		}
		tests = append(tests, t)
	}
	return tests, nil
}
