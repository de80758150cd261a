package cli

import (
	"cmp"
	"context"
	"fmt"

	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/secret"
	"github.com/mongobench/mongobench/internal/store"
)

// serverDir is where the embedded server keeps its data and state.
func serverDir() string { return cmp.Or(env("MONGOBENCH_SERVER_DIR"), serverEnv().DefaultDir()) }

// say prints a progress note for people, on standard error.
func (a *app) say(format string, args ...any) { fmt.Fprintf(a.stderr, format, args...) }

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

// warnURI says, once per connection string, its warnings
// (secret.Warnings).
func (a *app) warnURI(s string) {
	if a.warned[s] {
		return
	}
	if a.warned == nil {
		a.warned = map[string]bool{}
	}
	a.warned[s] = true
	for _, w := range secret.Warnings(s) {
		a.say("warning: %s\n", w)
	}
}

// withImporter opens the MongoDB results store the URI names (else the
// default) as a store.Importer and runs fn on it; what is a results file
// is refused, saying what needs the store.
func (a *app) withImporter(ctx context.Context, uri, what string, fn func(store.Store, store.Importer) error) error {
	st, closeFn, err := a.resultsStore(ctx, uri, "")
	if err != nil {
		return err
	}
	defer closeFn()
	m, ok := st.(store.Importer)
	if !ok {
		return usage(fmt.Errorf("%s a MongoDB results store; %s is not one", what, st.Where()))
	}
	return fn(st, m)
}
