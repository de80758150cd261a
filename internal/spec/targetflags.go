package spec

import (
	"errors"
	"fmt"

	"github.com/mongobench/mongobench/internal/price"
)

// TargetFlags are the command-line flags that say where a study runs: a
// targets file (File), or one target from URI (else the environment's
// URI, else the embedded server) with a label, an instance description
// and a price.
type TargetFlags struct {
	File, URI, Label, Instance, Price string
	HostMetrics, HostDevice           string
}

// Targets returns the deployments a study runs on, in order: those of the
// targets file, or the one the other flags describe. envURI is the URI the
// environment gives ($MONGOBENCH_URI); cpus reports CPUs a profile may not
// be pinned to (CheckCPUs). Errors name the flag, or the file and line.
func (f TargetFlags) Targets(envURI string, cpus func([]int) error) ([]Target, error) {
	if f.File != "" {
		for _, g := range []struct{ flag, v string }{{"--uri", f.URI}, {"--label", f.Label}, {"--instance", f.Instance}, {"--price", f.Price}, {"--host-metrics", f.HostMetrics}, {"--host-device", f.HostDevice}} {
			if g.v != "" {
				return nil, fmt.Errorf("%s: not valid with --targets (each target of %s has its own)", g.flag, f.File)
			}
		}
		ts, err := ParseTargetsFile(f.File)
		if err != nil {
			return nil, err
		}
		return ts, CheckCPUs(f.File, ts, cpus)
	}
	t := Target{Label: f.Label, URI: f.URI, HostMetrics: ParseHostMetrics(f.HostMetrics), HostDevice: ParseHostDevices(f.HostDevice)}
	if t.URI == "" {
		t.URI = envURI
	}
	errs := []error{CheckHostFlags(t.HostMetrics, t.HostDevice)}
	if f.Instance != "" {
		in, err := ParseInstance("--instance", f.Instance)
		errs = append(errs, err)
		t.Instance = in
	}
	if f.Price != "" {
		p, err := price.Parse(f.Price)
		if err != nil {
			errs = append(errs, fmt.Errorf("--price: %w", err))
		}
		t.Price = &p
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return []Target{t}, nil
}

// CheckCPUs reports the profiles of ts (read from file) pinned to CPUs
// that cpus refuses, such as CPUs this process may not use: taskset would
// fail only once the server starts.
func CheckCPUs(file string, ts []Target, cpus func([]int) error) error {
	var errs []error
	for i, t := range ts {
		if t.Profile == nil {
			continue
		}
		if err := cpus(t.Profile.CPUList()); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: targets[%d].profile.cpus: %q %w", file, t.Line, i, t.Profile.CPUs, err))
		}
	}
	return errors.Join(errs...)
}
