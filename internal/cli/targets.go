package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mongobench/mongobench/internal/result"

	"golang.org/x/sys/unix"

	"github.com/mongobench/mongobench/internal/catalog"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
)

// profileStopTimeout bounds how long stopping a profile's server may take.
const profileStopTimeout = 30 * time.Second

// targetFlags are the flags that describe where a study runs: a targets
// file, or one target from --uri (or the embedded server) with a label,
// an instance description and a price.
type targetFlags struct {
	file, uri, label, instance, price string
}

// targets returns the deployments a study runs on, in order: those of the
// targets file, or one built from the flags (--uri, else $MONGOBENCH_URI,
// else empty for the embedded server).
func (f targetFlags) targets() ([]spec.Target, error) {
	if f.file != "" {
		for flag, v := range map[string]string{"--uri": f.uri, "--label": f.label, "--instance": f.instance, "--price": f.price} {
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
	uri := f.uri
	if uri == "" {
		uri = env("MONGOBENCH_URI")
	}
	t := spec.Target{Label: f.label, URI: uri}
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
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return nil // cannot tell: taskset will say
	}
	var errs []error
	for i, t := range ts {
		if t.Profile == nil {
			continue
		}
		for _, c := range t.Profile.CPUList() {
			if !allowed.IsSet(c) {
				errs = append(errs, fmt.Errorf("%s:%d: targets[%d].profile.cpus: %q names CPU %d, which this machine does not let mongobench use: want CPUs from the %d available",
					file, t.Line, i, t.Profile.CPUs, c, allowed.Count()))
				break
			}
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
	h, dir, err := a.startProfileServer(ctx, t)
	if err != nil {
		return err
	}
	defer func() {
		err = errors.Join(err, a.stopProfileServer(ctx, t, h, dir))
	}()
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

// startProfileServer starts a profile's server in a fresh directory under
// profilesDir, on a free port, pinned to the profile's CPUs with its
// cache size. It is not detached: it dies with this process.
func (a *app) startProfileServer(ctx context.Context, t spec.Target) (*server.Handle, string, error) {
	root := profilesDir()
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, "", fmt.Errorf("profile %s: %w", t.Label, err)
	}
	dir, err := os.MkdirTemp(root, "profile-")
	if err != nil {
		return nil, "", fmt.Errorf("profile %s: %w", t.Label, err)
	}
	o := server.Options{Dir: dir, Env: serverEnv(), CPUs: t.Profile.CPUs, SyncOnCommit: true}
	if t.Profile.CacheSize > 0 {
		o.CacheSize = fmt.Sprintf("%dM", t.Profile.CacheSize/spec.MB)
	}
	a.say("profile %s: starting a server (cpus %s, cache %s) in %s …\n", t.Label, orText(o.CPUs, "all"), orText(o.CacheSize, "default"), dir)
	h, err := server.Start(ctx, o)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, "", fmt.Errorf("profile %s: start its server: %w", t.Label, err)
	}
	a.say("profile %s: %s %s at %s (pid %d)\n", t.Label, h.Kind, h.Version, h.URI, h.PID)
	return h, dir, nil
}

// stopProfileServer stops a profile's server and removes its directory.
func (a *app) stopProfileServer(ctx context.Context, t spec.Target, h *server.Handle, dir string) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), profileStopTimeout)
	defer cancel()
	how := "stopped"
	switch err := h.Stop(sctx); {
	case errors.Is(err, server.ErrKilled):
		how = "killed after ignoring SIGTERM" // gone: its unclean storage is removed anyway
	case err != nil:
		return fmt.Errorf("profile %s: stop its server (pid %d, data in %s): %w", t.Label, h.PID, dir, err)
	}
	a.say("profile %s: %s (pid %d)\n", t.Label, how, h.PID)
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("profile %s: remove its data: %w", t.Label, err)
	}
	return nil
}

// profilesDir holds the profiles' servers while they run: next to the
// embedded server's directory.
func profilesDir() string {
	return filepath.Join(filepath.Dir(serverDir()), "profiles")
}

func orText(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
