package study

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/mongobench/mongobench/internal/catalog"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
)

// Catalog runs tests of the catalog (the sections of the MongoDB
// Performance Tables) on targets: every test on the first target, then
// every test on the next, each variant a run of its own.
type Catalog struct {
	Tests   []catalog.Test
	Targets []spec.Target // in order; a test that varies the target stores the position as _id.order
	Scale   catalog.Scale
	// Database holds the workloads' data ("" for the default).
	Database string
}

// Flat is every test's results of Run, in order, as one list.
func Flat(docs [][]*result.Doc) []result.Doc {
	var all []result.Doc
	for _, ds := range docs {
		for _, d := range ds {
			all = append(all, *d)
		}
	}
	return all
}

// Run runs the tests' variants on each target in turn through
// env.OnTarget, adds the rates the reference tables read to each
// result, and keeps every one. It returns each test's results in run
// order, also when it ends early: after a run stopped early (its partial
// result is kept) or a cancelled context, the error wraps ErrStopped.
func (c Catalog) Run(ctx context.Context, env Env) ([][]*result.Doc, error) {
	docs := make([][]*result.Doc, len(c.Tests))
	n := &stepCount{total: c.runs()}
	for pos, tg := range c.Targets {
		if ctx.Err() != nil {
			return docs, fmt.Errorf("%w: stopped before target %s; the variants measured are stored", ErrStopped, tg.Label)
		}
		err := env.OnTarget(ctx, tg, func(instance result.Instance) error {
			for i, t := range c.Tests {
				got, err := c.runTest(ctx, env, n, t, t.VariantsOn(c.Scale, pos, instance), tg.Label)
				docs[i] = append(docs[i], got...)
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return docs, err
		}
	}
	return docs, nil
}

// stepCount numbers a study's runs: the last one started, of total.
type stepCount struct{ n, total int }

// runs is how many runs the catalog makes: every variant of every test
// on every target.
func (c Catalog) runs() int {
	n := 0
	for pos := range c.Targets {
		for _, t := range c.Tests {
			n += len(t.VariantsOn(c.Scale, pos, result.Instance{}))
		}
	}
	return n
}

// runTest runs the variants of one test on the current target and
// returns the results it kept.
func (c Catalog) runTest(ctx context.Context, env Env, n *stepCount, t catalog.Test, vs []catalog.Variant, label string) ([]*result.Doc, error) {
	on := ""
	if label != "" {
		on = " on " + label
	}
	env.say("%s%s: %s\n", t.Name, on, t.Description)
	var docs []*result.Doc
	for i, v := range vs {
		n.n++
		what := fmt.Sprintf("%s%s, variant %d of %d", t.Name, on, i+1, len(vs))
		if len(v.Params) > 0 {
			what += " (" + strings.Join(v.Params, " ") + ")"
		}
		d, err := c.runVariant(ctx, env, t, v, label, func(sc *spec.Scenario) { env.step(n.n, n.total, sc, "%s", what) })
		if err != nil {
			return docs, err
		}
		if err := env.Keep(ctx, d); err != nil {
			return docs, err
		}
		docs = append(docs, d)
		if d.Partial {
			return docs, fmt.Errorf("%w: %s stopped early; the variants measured are stored", ErrStopped, t.Name)
		}
	}
	return docs, nil
}

func (c Catalog) runVariant(ctx context.Context, env Env, t catalog.Test, v catalog.Variant, label string, starting func(*spec.Scenario)) (*result.Doc, error) {
	sc, err := Scenario(env.Registry, c.scenario(t, v, label), v.Params)
	if err != nil {
		return nil, err
	}
	starting(sc)
	d, err := env.Measure(ctx, sc, v.Values)
	if err != nil {
		return nil, err
	}
	CatalogRates(d, t.Measure, v.DocsPerOp)
	return d, nil
}

// scenario is a variant's run before its -p parameters: the test's
// workload and name, the variant's threads, operations, warm-up and bound.
func (c Catalog) scenario(t catalog.Test, v catalog.Variant, label string) *spec.Scenario {
	return &spec.Scenario{
		Workload: t.Workload, Name: t.Name, Database: c.Database, Label: label,
		Threads: v.Threads, Ops: v.Ops, Warmup: v.Warmup, Duration: v.MaxDuration,
	}
}

// CatalogRates stores the measured phase's rates that the reference
// tables read: documents and megabytes per second for ingest, updates per
// second, queries and documents returned per second. Nothing is stored
// for a phase with no duration, so a missing rate stays missing.
func CatalogRates(d *result.Doc, m catalog.Measure, docsPerOp int64) {
	if d.Duration <= 0 {
		return
	}
	secs := d.Duration / 1000
	var ops int64
	for _, op := range d.Ops {
		ops += op.Count
	}
	tr := &d.TestResults.Catalog
	switch m {
	case catalog.Ingest:
		docs := ops * docsPerOp
		var sizeKB float64
		if v := result.VariantOf(d).DocSizeKB; v != nil {
			sizeKB = *v
		}
		tr.DocsInserted = result.Ptr(docs)
		tr.DocsPerSecond = result.Ptr(float64(docs) / secs)
		tr.MBPerSecond = result.Ptr(float64(docs) * sizeKB / 1024 / secs)
	case catalog.Updates:
		tr.NUpdates = result.Ptr(ops)
		tr.UpdatesPerSecond = result.Ptr(float64(ops) / secs)
	case catalog.Queries:
		tr.NQueries = result.Ptr(ops)
		tr.QueriesPerSecond = result.Ptr(float64(ops) / secs)
		if n := d.TestResults.DocsReturned; n != nil {
			tr.DocsPerSecond = result.Ptr(float64(*n) / secs)
		}
	}
}

// latencyCell formats a latency in milliseconds for the terminal
// (msText); a dash when it was not recorded.
func latencyCell(v *float64) string {
	if v == nil {
		return "—"
	}
	return MsText(*v)
}

// MsText formats milliseconds to three significant figures, whole
// milliseconds with thousands separators from 1,000 up: 2,790, never
// 2.79e+03.
func MsText(v float64) string {
	if math.Abs(v) >= 1000 {
		return thousands(v)
	}
	return sig3(v)
}
