package serve

import (
	"bytes"
	"context"
	"net/http"

	"github.com/mongobench/mongobench/internal/browse"
	"github.com/mongobench/mongobench/internal/changes"
	"github.com/mongobench/mongobench/internal/result"
)

// changeReader is a store that also holds the triage of changes (the
// MongoDB store); serve only reads it.
type changeReader interface {
	Changes(ctx context.Context) ([]changes.Change, error)
}

// seriesReader is a store that reads the runs of a test and label
// without their intervals and series (the MongoDB store).
type seriesReader interface {
	SeriesRuns(ctx context.Context, test, label string) ([]result.Doc, error)
}

// seriesRuns reads the runs that may share a series with run id, and
// the run's full id.
func (s *Server) seriesRuns(ctx context.Context, id string) ([]result.Doc, string, error) {
	sr, ok := s.Store.(seriesReader)
	if !ok {
		docs, err := s.Store.ListLight(ctx) // a results file: read whole, its intervals left out
		return docs, id, err
	}
	d, err := s.Store.Get(ctx, id) // an id prefix names the run fully
	if err != nil {
		return nil, "", err
	}
	docs, err := sr.SeriesRuns(ctx, d.TestName, d.Label)
	return docs, d.RunID, err
}

// series serves the page of the series a run (?run=ID) belongs to.
func (s *Server) series(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("run")
	if !checkIDs(w, "run id", id) {
		return
	}
	docs, id, err := s.seriesRuns(r.Context(), id)
	if err != nil {
		fail(w, err)
		return
	}
	var stored []changes.Change
	if cr, ok := s.Store.(changeReader); ok {
		if stored, err = cr.Changes(r.Context()); err != nil {
			fail(w, err)
			return
		}
	}
	var b bytes.Buffer
	if err := browse.SeriesReport(r.Context(), &b, docs, id, stored, s.Store.Where()); err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}
