package lab

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workload"
)

// resolve finds the server under test: the given URI, or the embedded
// server, which is started (and left running) when it is not up. For the
// embedded server it knows the cache size the server was started with.
func (l *Lab) resolve(ctx context.Context, given string) (runner.Target, error) {
	h, err := l.embedded(ctx, given == "")
	if err != nil {
		return runner.Target{}, err
	}
	if given == "" || (h != nil && given == h.URI) {
		t := runner.Target{Target: spec.Target{URI: h.URI}, Kind: "embedded-" + h.Kind, PID: h.PID, DataDir: h.DataDir}
		if h.CacheSize != "" {
			if t.CacheSize, err = server.CacheBytes(h.CacheSize); err != nil {
				return runner.Target{}, fmt.Errorf("embedded server state: %w", err)
			}
			t.CacheSizeSource = "embedded server (" + h.CacheSize + ")"
		}
		return t, nil
	}
	if l.ui.WarnURI != nil {
		l.ui.WarnURI(given)
	}
	return runner.Target{Target: spec.Target{URI: given}, Kind: "external"}, nil
}

// embedded returns the embedded server's handle: the running one, or,
// when start is set, a newly started one. Without start it returns nil
// when none runs.
func (l *Lab) embedded(ctx context.Context, start bool) (*server.Handle, error) {
	return Embedded(ctx, l.servers, start, l.ui.Say)
}

// Embedded returns the embedded server's handle: the running one, or,
// when start is set, a newly started one (left running); nil when none
// runs and start is not set. A machine with no server binary is told
// what it can do.
func Embedded(ctx context.Context, srv Servers, start bool, say func(string, ...any)) (*server.Handle, error) {
	h, err := server.Load(srv.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err == nil && server.Running(h) {
		return h, nil
	}
	if !start {
		return nil, nil
	}
	if _, err := srv.Env.Find(); errors.Is(err, server.ErrNotFound) {
		return nil, fmt.Errorf("no target: --uri (or $MONGOBENCH_URI) names none and there is no server to start here: %w; %s", err, noServerHelp)
	}
	say("starting the embedded server in %s …\n", srv.Dir)
	h, err = server.Start(ctx, server.Options{Dir: srv.Dir, Env: srv.Env, Detach: true, SyncOnCommit: true, CacheSize: server.EmbeddedCacheSize})
	if err != nil {
		return nil, fmt.Errorf("start the embedded server: %w", err)
	}
	say("embedded %s %s listening at %s (stop it with 'mongobench server stop')\n", h.Kind, h.Version, h.URI)
	return h, nil
}

// configure gives a resolved target what the command's options say of
// every target: the node exporters (unless the target names its own),
// Atlas, the FTDC directory, the telemetry sources chosen, the stated
// limits, and --cache-size.
func (l *Lab) configure(t runner.Target) runner.Target {
	if len(t.HostMetrics) == 0 {
		t.HostMetrics, t.HostDevice = l.opts.HostMetrics, l.opts.HostDevice
	}
	t.Atlas, t.Limits = l.opts.Atlas, l.opts.Limits
	t.FTDC, t.Telemetry = l.opts.FTDC, l.opts.Telemetry
	if l.opts.CacheSize > 0 {
		t.CacheSize, t.CacheSizeSource = l.opts.CacheSize, "--cache-size"
	}
	return t
}

// onTarget is the study's OnTarget: it points Measure at one target for
// the time of fn. A profile gets a server of its own, started here and
// stopped (its data removed) when fn returns, also on an error or
// Ctrl-C; a URI, or none, resolves as for any run.
func (l *Lab) onTarget(ctx context.Context, t spec.Target, fn func(result.Instance) error) (err error) {
	use := func(bt runner.Target) error {
		uri := bt.URI
		bt.Target = t
		bt.URI = uri
		l.target = l.configure(bt)
		return fn(t.Described())
	}
	if t.Profile == nil {
		bt, err := l.resolve(ctx, t.URI)
		if err != nil {
			return err
		}
		return use(bt)
	}
	p := server.Profile{Label: t.Label, CPUs: t.Profile.CPUs, CacheSize: int64(t.Profile.CacheSize), Env: l.servers.Env}
	h, err := server.StartProfile(ctx, server.ProfilesDir(l.servers.Dir), p, l.ui.Say)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, h.Stop(ctx)) }()
	bt := runner.Target{Target: spec.Target{URI: h.URI}, Kind: "profile-" + h.Kind, PID: h.PID, DataDir: h.DataDir}
	if c := t.Profile.CacheSize; c > 0 {
		bt.CacheSize, bt.CacheSizeSource = int64(c), "profile "+t.Label
	}
	return use(bt)
}

// Clean drops the data database db on uri, or on the embedded server
// (started if it does not run) when uri is "", and returns the URI it
// dropped it on. A database mongobench did not create (without its
// marker) is refused, whatever is asked (workload.DropOwned).
func Clean(ctx context.Context, srv Servers, uri, db string, say func(string, ...any)) (string, error) {
	if err := spec.CheckDataDatabase(db); err != nil {
		return "", err
	}
	if uri == "" {
		h, err := Embedded(ctx, srv, true, say)
		if err != nil {
			return "", err
		}
		uri = h.URI
	}
	c, err := runner.Connect(ctx, uri, 2)
	if err != nil {
		return uri, err
	}
	defer func() { _ = c.Disconnect(context.WithoutCancel(ctx)) }()
	return uri, workload.DropOwned(ctx, c.Database(db))
}

// StartServer starts the embedded server in the background with o, in
// its directory with its environment, at the embedded cache size unless
// o names one (or is a small test server's); the one running is returned
// as already, and nothing is started.
func StartServer(ctx context.Context, srv Servers, o server.Options, say func(string, ...any)) (h *server.Handle, already bool, err error) {
	if h, err := Embedded(ctx, srv, false, say); err != nil || h != nil {
		return h, h != nil, err
	}
	o.Dir, o.Env, o.Detach = srv.Dir, srv.Env, true
	if o.CacheSize == "" && !o.Test {
		o.CacheSize = server.EmbeddedCacheSize
	}
	h, err = server.Start(ctx, o)
	return h, false, err
}
