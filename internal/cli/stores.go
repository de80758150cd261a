package cli

import (
	"context"
	"fmt"

	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/secret"
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

// warnURI warns, once per connection string, about options the driver
// ignores (a misspelled option, or proxy options the Go driver does not
// honour) and about w=0, which hides every write error.
func (a *app) warnURI(s string) {
	if a.warned[s] {
		return
	}
	if a.warned == nil {
		a.warned = map[string]bool{}
	}
	a.warned[s] = true
	for _, o := range secret.UnknownOptions(s) {
		a.say("warning: %s: option %s is not one the MongoDB Go driver reads; it is ignored\n", secret.URI(s), o)
	}
	if secret.Unacknowledged(s) {
		a.say("warning: %s: w=0 asks for unacknowledged writes: the server reports no write error, so failed writes count as done\n", secret.URI(s))
	}
}
