package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/store"
)

// openStore opens where results go: a JSON Lines file, the given results
// URI, or the target server. The returned func closes it.
func (a *app) openStore(ctx context.Context, resultsURI, file, targetURI string) (store.Store, func(), error) {
	if file != "" {
		return store.NewFile(file), func() {}, nil
	}
	where, role := resultsURI, "results store"
	if where == "" {
		where, role = targetURI, "target (which also holds the results)"
	} else if err := a.checkResultsURI(where); err != nil {
		return nil, nil, err
	}
	c, err := runner.Connect(ctx, where, 2)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", role, err)
	}
	closeFn := func() { _ = c.Disconnect(context.WithoutCancel(ctx)) }
	return store.NewMongo(c, store.DefaultDatabase, redact(where)), closeFn, nil
}

// targetAndStore resolves the target (the given URI, $MONGOBENCH_URI, or
// the embedded server) and opens where its results go. The returned func
// closes the store.
func (a *app) targetAndStore(ctx context.Context, uri, resultsURI, file string) (runner.Target, store.Store, func(), error) {
	if uri == "" {
		uri = env("MONGOBENCH_URI")
	}
	t, err := a.target(ctx, uri)
	if err != nil {
		return t, nil, nil, err
	}
	st, closeFn, err := a.openStore(ctx, resultsURI, file, t.URI)
	return t, st, closeFn, err
}

// resultsStore opens the store the results commands read: the given file
// or URI, else $MONGOBENCH_RESULTS_URI, else the embedded server.
func (a *app) resultsStore(ctx context.Context, resultsURI, file string) (store.Store, func(), error) {
	if file == "" && resultsURI == "" {
		resultsURI = env("MONGOBENCH_RESULTS_URI")
	}
	if file == "" && resultsURI == "" {
		h, err := a.embedded(ctx, true)
		if err != nil {
			return nil, nil, err
		}
		resultsURI = h.URI
	}
	return a.openStore(ctx, resultsURI, file, "")
}

// save stores a run; one the store refuses is written to a local file
// instead (store.RescueTo: the working directory or, when that is gone or
// read-only, the temporary directory), so a run is never lost, and the
// error says where it is and how to import it. A run group's result is
// written or rewritten under its run id: the merged one, which the client
// that merged it stored already, is kept by every client of a sweep step
// with the step's verdict (the same on every client), and a client's own
// result is stored before the merge and kept again by a sweep that stops
// on it.
func (a *app) save(ctx context.Context, st store.Store, d *result.Doc) error {
	var saveErr error
	ctx, cancel := bounded.StepGrace(ctx, time.Minute, 500*time.Millisecond) // after Ctrl-C, a dead store falls back to the rescue file at once
	defer cancel()
	if m, ok := st.(*store.Mongo); ok && d.Group != nil {
		_, saveErr = m.Import(ctx, d)
	} else {
		saveErr = st.Save(ctx, d)
	}
	if saveErr == nil {
		return nil
	}
	path, err := store.RescueTo(context.Background(), d, ".", os.TempDir())
	if err != nil {
		return fmt.Errorf("%w; keeping it in a local file failed too: %v", saveErr, err)
	}
	return fmt.Errorf("%w; the result is kept in %s (load it with 'mongobench results import %s')", saveErr, path, path)
}
