package cli

import (
	"context"
	"fmt"

	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/store"
)

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

// resultsStore opens the store the results commands read: the given file
// or URI, else $MONGOBENCH_RESULTS_URI, else the embedded server.
func (a *app) resultsStore(ctx context.Context, given, file string) (store.Store, func(), error) {
	uri, err := options.ResultsURI(given, file, env)
	if err != nil {
		return nil, nil, usage(err)
	}
	if uri != "" {
		a.warnURI(uri)
	}
	return lab.OpenStore(ctx, uri, file, "", a.servers(), a.say)
}
