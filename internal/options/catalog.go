package options

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/catalog"
	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/threshold"
)

// Catalog is catalog run's flags: the scale, the target (--uri with its
// description, or a targets file), the cache size, and a study's flags.
type Catalog struct {
	Scale     string
	Target    spec.TargetFlags
	CacheSize spec.Size
	Study
}

// Add declares the flags on fl.
func (f *Catalog) Add(fl *pflag.FlagSet, h Help) {
	f.Scale = strconv.FormatFloat(catalog.DefaultScale, 'f', -1, 64)
	fl.Var(ScaleText(&f.Scale), "scale", "fraction of the reference sizes, or full")
	fl.StringVar(&f.Target.File, "targets", "", "YAML file of targets (URIs or local profiles) to run each test on, in order")
	fl.StringVar(&f.Target.Instance, "instance", "", "the target's description, e.g. '{type: m6i.xlarge, diskType: gp3, iops: 3000, diskSizeGB: 100, vCPU: 4, ramGB: 16}'")
	fl.Var(PriceText(&f.Target.Price), "price", "the target's price, e.g. '0.42 USD/h' or '694 EUR/month' (stored as _id.instance.cost, cents per hour, with its price and currency)")
	f.Study.Add(fl, "", h)
	fl.Lookup("report-dir").Usage = "directory for each variant's run report (default: none; 'mongobench report' renders the catalog's document)"
	fl.Lookup("results").Usage = "results MongoDB URI (default: the target; with --targets, $MONGOBENCH_RESULTS_URI, else the embedded server)"
	fl.Var(&f.CacheSize, "cache-size", "the target's storage cache, e.g. 8GB, for a server that does not report it (the query tests size their key ranges from it; default: serverStatus, or what the embedded server was started with)")
}

// Options checks the flags and makes the lab's Options, the targets the
// tests run on (each with its own node exporters; with a targets file,
// results never go to a target's server) and the scale.
func (f *Catalog) Options(ctx context.Context, env Env) (lab.Options, []spec.Target, catalog.Scale, error) {
	scale, err := catalog.ParseScale(f.Scale)
	if err != nil {
		return lab.Options{}, nil, 0, fmt.Errorf("--scale: %w", err)
	}
	lo, err := f.Measure.Options(ctx, env)
	if err != nil {
		return lo, nil, 0, err
	}
	if err := threshold.Check(lo.Thresholds, threshold.Run{}); err != nil { // closed loop, each variant its own workload
		return lo, nil, 0, err
	}
	f.Target.URI, f.Target.Label = f.URI, f.Label
	f.Target.HostMetrics, f.Target.HostDevice = f.HostMetrics, f.HostDevice
	targets, err := f.Target.Targets(env("MONGOBENCH_URI"), server.CheckCPUs)
	if err != nil {
		return lo, nil, 0, err
	}
	lo.HostMetrics, lo.HostDevice = nil, nil // each target carries its own
	lo.CacheSize = int64(f.CacheSize)
	if f.Target.File != "" {
		lo.Targets = true
	} else {
		lo.URI = targets[0].URI
	}
	return lo, targets, scale, nil
}
