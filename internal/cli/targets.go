package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/mongobench/mongobench/internal/catalog"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
)

// targetFlags are the flags that describe where a study runs, with --uri
// and --label: a targets file, or one target from --uri (or the embedded
// server) with a label, an instance description and a price.
type targetFlags struct {
	file, instance, price string
}

// targets returns the deployments a study runs on, in order: those of the
// targets file, or one built from the flags (uri, else $MONGOBENCH_URI,
// else empty for the embedded server).
func (f targetFlags) targets(uri, label string) ([]spec.Target, error) {
	if f.file != "" {
		for flag, v := range map[string]string{"--uri": uri, "--label": label, "--instance": f.instance, "--price": f.price} {
			if v != "" {
				return nil, usage(fmt.Errorf("%s: not valid with --targets (each target of %s has its own)", flag, f.file))
			}
		}
		ts, err := spec.ParseTargetsFile(f.file)
		if err != nil {
			return nil, usage(err)
		}
		if err := checkCPUs(f.file, ts); err != nil {
			return nil, usage(err)
		}
		return ts, nil
	}
	if uri == "" {
		uri = env("MONGOBENCH_URI")
	}
	t := spec.Target{Label: label, URI: uri}
	var errs []error
	if f.instance != "" {
		in, err := spec.ParseInstance("--instance", f.instance)
		errs = append(errs, err)
		t.Instance = in
	}
	if f.price != "" {
		p, err := spec.ParsePrice(f.price)
		if err != nil {
			errs = append(errs, fmt.Errorf("--price: %w", err))
		}
		t.Price = &p
	}
	if err := errors.Join(errs...); err != nil {
		return nil, usage(err)
	}
	return []spec.Target{t}, nil
}

// checkCPUs reports profiles pinned to CPUs this process may not use
// (taskset would fail only once the server starts).
func checkCPUs(file string, ts []spec.Target) error {
	var errs []error
	for i, t := range ts {
		if t.Profile == nil {
			continue
		}
		if err := server.CheckCPUs(t.Profile.CPUList()); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: targets[%d].profile.cpus: %q %w", file, t.Line, i, t.Profile.CPUs, err))
		}
	}
	return errors.Join(errs...)
}

// onTarget runs fn against one target: a profile gets a server of its own,
// started here and stopped (its data removed) when fn returns, also on an
// error or Ctrl-C; a URI, or none, resolves as for any run.
func (a *app) onTarget(ctx context.Context, t spec.Target, fn func(runner.Target) error) (err error) {
	instance := catalog.Instance(t)
	if t.Profile == nil {
		bt, err := a.target(ctx, t.URI)
		if err != nil {
			return err
		}
		bt.Instance = instance
		return fn(bt)
	}
	p := server.Profile{Label: t.Label, CPUs: t.Profile.CPUs, CacheSize: int64(t.Profile.CacheSize), Env: serverEnv()}
	h, err := server.StartProfile(ctx, server.ProfilesDir(serverDir()), p, a.say)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, h.Stop(ctx)) }()
	bt := runner.Target{URI: h.URI, Kind: "profile-" + h.Kind, PID: h.PID, DataDir: h.DataDir, Profile: t.Label, Instance: instance}
	if c := t.Profile.CacheSize; c > 0 {
		bt.CacheSize, bt.CacheSizeSource = int64(c), "profile "+t.Label
	}
	return fn(bt)
}

// targetEnv is the Env of a study that runs on targets (catalog, plan):
// s measures and keeps, and OnTarget points s at each target in turn
// (onTarget), the target's cache size replaced by cacheSize when it is
// set (--cache-size).
func (s *studyRun) targetEnv(cacheSize spec.Size) study.Env {
	return study.Env{
		Measure: s.measure, Keep: s.keep, Registry: s.registry, Say: s.app.say,
		OnTarget: func(ctx context.Context, t spec.Target, fn func(result.Instance) error) error {
			return s.app.onTarget(ctx, t, func(bt runner.Target) error {
				if cacheSize > 0 {
					bt.CacheSize, bt.CacheSizeSource = int64(cacheSize), "--cache-size"
				}
				s.target = bt
				return fn(bt.Instance)
			})
		},
	}
}
