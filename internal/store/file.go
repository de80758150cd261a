package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/result"
)

// File stores results as JSON Lines: one document per line in MongoDB
// relaxed Extended JSON, the form mongoimport reads.
type File struct{ path string }

// NewFile stores into the file at path, creating it on first save.
func NewFile(path string) File { return File{path: path} }

// Where names the file.
func (f File) Where() string { return f.path }

// Save appends d as one line and syncs the file.
func (f File) Save(_ context.Context, d *result.Doc) error {
	line, err := bson.MarshalExtJSON(latest(d), false, false)
	if err != nil {
		return fmt.Errorf("encode run %s: %w", d.RunID, err)
	}
	fh, err := os.OpenFile(f.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("save run %s: %w", d.RunID, err)
	}
	_, err = fh.Write(append(line, '\n'))
	if err == nil {
		err = fh.Sync()
	}
	return errors.Join(err, fh.Close())
}

// List reads every line, newest run first.
func (f File) List(_ context.Context, limit int) ([]result.Doc, error) {
	docs, err := f.readAll()
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(docs, func(a, b result.Doc) int { return b.Start.Compare(a.Start) })
	if limit > 0 && len(docs) > limit {
		docs = docs[:limit]
	}
	return docs, nil
}

// ListLight reads every line, newest run first, each without its
// intervals and serverStatus documents.
func (f File) ListLight(ctx context.Context) ([]result.Doc, error) {
	docs, err := f.List(ctx, 0)
	for i := range docs {
		docs[i].Intervals, docs[i].BeforeStatus, docs[i].AfterStatus = nil, nil, nil
	}
	return docs, err
}

// Sweeps reads the matching sweep steps, oldest first.
func (f File) Sweeps(_ context.Context, q Query) ([]result.Doc, error) {
	docs, err := f.readAll()
	if err != nil {
		return nil, err
	}
	var out []result.Doc
	for i := range docs {
		if q.matches(&docs[i]) {
			light(&docs[i])
			out = append(out, docs[i])
		}
	}
	slices.SortStableFunc(out, func(a, b result.Doc) int { return a.Start.Compare(b.Start) })
	return out, nil
}

// Get finds a run by id or unique id prefix, through the file's index:
// only the run's own line is read again.
func (f File) Get(_ context.Context, runID string) (*result.Doc, error) {
	idx, err := f.index()
	if err != nil {
		return nil, err
	}
	var found []int
	for i, e := range idx.entries {
		if strings.HasPrefix(e.summary.RunID, runID) {
			found = append(found, i)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("run %q: %w", runID, ErrNotFound)
	case 1:
		return f.lineAt(idx.entries[found[0]])
	}
	ids := make([]string, len(found))
	for i, k := range found {
		ids[i] = idx.entries[k].summary.RunID
	}
	return nil, Ambiguous(runID, ids)
}

func (f File) readAll() ([]result.Doc, error) {
	file, err := bounded.Open(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	defer func() { _ = file.Close() }() // read only
	var docs []result.Doc
	_, _, err = eachLine(bounded.Reader(file, f.path, bounded.ImportFile), f.path, 0, 0, func(line int, _ int64, b []byte) error {
		if isRecord(b) {
			return nil
		}
		d, err := decodeLine(b, f.path, line)
		docs = append(docs, d)
		return err
	})
	if err != nil {
		return nil, err
	}
	return docs, nil
}
