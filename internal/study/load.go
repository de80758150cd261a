package study

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// Load is YCSB's load phase of a core workload as a measured run: the
// loaders parameter's workers each insert the next batchSize records
// until insertcount records from insertstart are in. It runs the
// registry's load workload of Workload (ycsb-a → ycsb-a-load), closed
// loop, one operation per batch, no warm-up, stored under the test name
// Workload with variant.phase "load".
type Load struct {
	Workload string   // ycsb-a … ycsb-f
	Params   []string // -p assignments
	Database string
	Label    string
}

// errNoLoad is the error of a workload that has no load phase.
func (l Load) errNoLoad() error {
	return fmt.Errorf("--workload: %q has no load phase; want one of ycsb-a … ycsb-f", l.Workload)
}

// Scenario sizes the load: as many operations as batches load the
// records, as many workers as loaders. reg holds the load workloads.
func (l Load) Scenario(reg spec.Registry) (*spec.Scenario, error) {
	name := l.Workload + "-load"
	if !strings.HasPrefix(l.Workload, "ycsb-") {
		return nil, l.errNoLoad()
	}
	if _, ok := reg.ParamSpecs(name); !ok {
		return nil, l.errNoLoad()
	}
	base := &spec.Scenario{Workload: name, Name: l.Workload, Database: l.Database, Label: l.Label}
	sc, err := Scenario(reg, base, l.Params)
	if err != nil {
		return nil, err
	}
	props, err := ycsb.FromParams(l.Workload, sc.Params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	batches, _ := props.LoadBatches(sc.Params.Int("batchSize"))
	if batches == 0 {
		return nil, errors.New("nothing to load: insertcount is 0")
	}
	base.Ops, base.Threads = batches, int(sc.Params.Int("loaders"))
	return Scenario(reg, base, l.Params)
}

// Run measures the load on env's target, adds its rates (LoadRates) and
// keeps it. It returns the kept result, with an error wrapping
// ErrStopped when the load stopped early.
func (l Load) Run(ctx context.Context, env Env) (*result.Doc, error) {
	sc, err := l.Scenario(env.Registry)
	if err != nil {
		return nil, err
	}
	env.say("%s load: %d loaders, %d batches of up to %d records\n", l.Workload, sc.Threads, sc.Ops, sc.Params.Int("batchSize"))
	d, err := env.Measure(ctx, sc, result.Variant{Phase: result.Ptr("load")})
	if err != nil {
		return nil, err
	}
	LoadRates(d)
	if err := env.Keep(ctx, d); err != nil {
		return nil, err
	}
	return d, stopped(d)
}

// LoadRates adds docsPerSec and MBPerSec (10^6 bytes of BSON) over the
// measured phase to testResults.
func LoadRates(d *result.Doc) {
	secs := d.Duration / 1000
	if secs <= 0 {
		return
	}
	docs, bytes := loaded(d.TestResults)
	d.TestResults.DocsPerSec = result.Ptr(float64(docs) / secs)
	d.TestResults.MBPerSec = result.Ptr(float64(bytes) / 1e6 / secs)
}

// loaded is the records and BSON bytes a load inserted (0 when not
// counted).
func loaded(tr result.TestResults) (docs, bytes int64) {
	if tr.Docs != nil {
		docs = *tr.Docs
	}
	if tr.Bytes != nil {
		bytes = *tr.Bytes
	}
	return docs, bytes
}

// LoadLine states what the load did, as in "loaded 100000 records (116.0
// MB) in 18.2 s: 5494 docs/s, 6.37 MB/s; batch p50 140 ms, p99 410 ms; 0
// failed batches".
func LoadLine(d *result.Doc) string {
	docs, bytes := loaded(d.TestResults)
	var dps, mbps float64
	if v := d.TestResults.DocsPerSec; v != nil {
		dps = *v
	}
	if v := d.TestResults.MBPerSec; v != nil {
		mbps = *v
	}
	s := fmt.Sprintf("loaded %d records (%.1f MB) in %.1f s: %.0f docs/s, %.2f MB/s", docs, float64(bytes)/1e6, d.Duration/1000, dps, mbps)
	if op := d.Op(ycsb.BatchInsert); op != nil {
		if l := op.Latency; l.P50 != nil && l.P99 != nil {
			s += fmt.Sprintf("; batch p50 %s ms, p99 %s ms", latencyCell(l.P50), latencyCell(l.P99))
		}
		s += fmt.Sprintf("; %d failed batches", op.Errors.Total)
	}
	return s
}
