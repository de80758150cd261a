package store

import (
	"context"
	"path/filepath"

	"github.com/mongobench/mongobench/internal/result"
)

// RescueFile is where Rescue keeps a run that could not be stored: a JSON
// Lines file in dir named after the run.
func RescueFile(dir, runID string) string {
	return filepath.Join(dir, "mongobench-unsaved-"+runID+".jsonl")
}

// Rescue writes a result that its store could not save to its rescue file
// in dir (mongoimport loads it), so a run is never lost, and returns the
// file's path, also when writing it failed.
func Rescue(ctx context.Context, dir string, d *result.Doc) (string, error) {
	path := RescueFile(dir, d.RunID)
	return path, NewFile(path).Save(ctx, d)
}
