package lab

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/secret"
	"github.com/mongobench/mongobench/internal/store"
)

// openStore opens where results go: a JSON Lines file, the results URI,
// else the target's server or, for a study that brings its own targets,
// the embedded server.
func (l *Lab) openStore(ctx context.Context) error {
	st, closeFn, err := OpenStore(ctx, l.opts.ResultsURI, l.opts.ResultsFile, l.target.URI, l.servers, l.ui.Say)
	if err != nil {
		return err
	}
	l.store = st
	l.closers = append(l.closers, closeFn)
	return nil
}

// OpenStore opens a results store: the file, else the results URI, else
// the target's server (targetURI), else the embedded server (started
// when it is not up). The returned func closes it.
func OpenStore(ctx context.Context, resultsURI, file, targetURI string, srv Servers, say func(string, ...any)) (store.Store, func(), error) {
	if file != "" {
		return store.NewFile(file), func() {}, nil
	}
	where, role := resultsURI, "results store"
	if where == "" && targetURI != "" {
		where, role = targetURI, "target (which also holds the results)"
	}
	if where == "" {
		h, err := Embedded(ctx, srv, true, say)
		if err != nil {
			return nil, nil, err
		}
		where = h.URI
	}
	c, err := runner.Connect(ctx, where, 2)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", role, err)
	}
	closeFn := func() { _ = c.Disconnect(context.WithoutCancel(ctx)) }
	return store.NewMongo(c, store.DefaultDatabase, secret.URI(where)), closeFn, nil
}

// Save stores a run; one the store refuses is written to a local file
// instead (store.RescueTo: the working directory or, when that is gone or
// read-only, the temporary directory), so a run is never lost, and the
// error says where it is and how to import it. A run group's result is
// written or rewritten under its run id (store.Importer).
func Save(ctx context.Context, st store.Store, d *result.Doc) error {
	ctx, cancel := bounded.StepGrace(ctx, time.Minute, 500*time.Millisecond) // after Ctrl-C, a dead store falls back to the rescue file at once
	defer cancel()
	var saveErr error
	if im, ok := st.(store.Importer); ok && d.Group != nil {
		_, saveErr = im.Import(ctx, d)
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
