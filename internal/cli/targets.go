package cli

import (
	"context"
	"errors"

	"github.com/mongobench/mongobench/internal/catalog"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
)

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
		bt.HostMetrics, bt.HostDevice = t.HostMetrics, t.HostDevice
		return fn(bt)
	}
	p := server.Profile{Label: t.Label, CPUs: t.Profile.CPUs, CacheSize: int64(t.Profile.CacheSize), Env: serverEnv()}
	h, err := server.StartProfile(ctx, server.ProfilesDir(serverDir()), p, a.say)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, h.Stop(ctx)) }()
	bt := runner.Target{URI: h.URI, Kind: "profile-" + h.Kind, PID: h.PID, DataDir: h.DataDir, Profile: t.Label, Instance: instance,
		HostMetrics: t.HostMetrics, HostDevice: t.HostDevice}
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
				if s.atlas != nil {
					bt.Atlas = s.atlas
				}
				s.target = bt
				return fn(bt.Instance)
			})
		},
	}
}
