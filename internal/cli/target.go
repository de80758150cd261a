package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/server"
)

// target resolves the server under test: the given URI, or the embedded
// server, which is started (and left running) when it is not up. For the
// embedded server it knows the cache size the server was started with.
func (a *app) target(ctx context.Context, given string) (runner.Target, error) {
	h, err := a.embedded(ctx, given == "")
	if err != nil {
		return runner.Target{}, err
	}
	if given == "" || (h != nil && given == h.URI) {
		t := runner.Target{URI: h.URI, Kind: "embedded-" + h.Kind, PID: h.PID, DataDir: h.DataDir}
		if h.CacheSize != "" {
			if t.CacheSize, err = server.CacheBytes(h.CacheSize); err != nil {
				return runner.Target{}, fmt.Errorf("embedded server state: %w", err)
			}
			t.CacheSizeSource = "embedded server (" + h.CacheSize + ")"
		}
		return t, nil
	}
	a.warnURI(given)
	return runner.Target{URI: given, Kind: "external"}, nil
}

// embedded returns the embedded server's handle: the running one, or,
// when start is set, a newly started one. Without start it returns nil
// when none runs.
func (a *app) embedded(ctx context.Context, start bool) (*server.Handle, error) {
	dir := serverDir()
	h, err := server.Load(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err == nil && server.Running(h) {
		return h, nil
	}
	if !start {
		return nil, nil
	}
	a.say("starting the embedded server in %s …\n", dir)
	h, err = server.Start(ctx, server.Options{Dir: dir, Env: serverEnv(), Detach: true, SyncOnCommit: true, CacheSize: server.EmbeddedCacheSize})
	if err != nil {
		return nil, fmt.Errorf("start the embedded server: %w", err)
	}
	a.say("embedded %s %s listening at %s (stop it with 'mongobench server stop')\n", h.Kind, h.Version, h.URI)
	return h, nil
}

// serverDir is where the embedded server keeps its data and state.
func serverDir() string {
	if d := env("MONGOBENCH_SERVER_DIR"); d != "" {
		return d
	}
	return serverEnv().DefaultDir()
}

// say prints a progress note for people, on standard error.
func (a *app) say(format string, args ...any) {
	fmt.Fprintf(a.stderr, format, args...)
}
