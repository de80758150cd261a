package store

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/result"
)

// A results file streams a run as the MongoDB store does: its intervals
// and telemetry readings at full resolution are appended as they close
// to the file's records file beside it (RecordsPath: the records of the
// IntervalsCollection, one a line, each beginning {"run":), so the
// results file itself keeps one run a line, as mongoimport and every
// pipeline read it; `results import` puts a run's records into the
// IntervalsCollection with the run whose document holds its intervals
// coarsened. A file has no row to keep current: registration and
// heartbeats write nothing. Readers of runs skip a record line wherever
// they meet one.
var _ Registrar = File{}

// recordPrefix begins every record line (recordMeta is its first field).
var recordPrefix = []byte(`{"run":`)

// RecordsPath is the records file of the results file at path: its name
// without .jsonl, then .records.jsonl.
func RecordsPath(path string) string {
	return strings.TrimSuffix(path, ".jsonl") + ".records.jsonl"
}

// isRecord reports whether a results file's line is a full-resolution
// record rather than a run.
func isRecord(b []byte) bool { return bytes.HasPrefix(bytes.TrimSpace(b), recordPrefix) }

// Register writes nothing: a results file holds a run's line once it
// ends.
func (File) Register(context.Context, *result.Doc) error { return nil }

// Beat writes nothing (see Register).
func (File) Beat(context.Context, string, Beat) error { return nil }

// Append appends a run's closed intervals and readings as record lines,
// synced.
func (f File) Append(_ context.Context, runID string, ivs []result.Interval, readings []Reading) error {
	var buf []byte
	add := func(v any) error {
		line, err := bson.MarshalExtJSON(v, false, false)
		if err != nil {
			return fmt.Errorf("append to run %s: %w", runID, err)
		}
		buf = append(append(buf, line...), '\n')
		return nil
	}
	for _, iv := range ivs {
		if err := add(intervalRecord{Run: recordMeta{RunID: runID, Kind: kindInterval}, Interval: iv}); err != nil {
			return err
		}
	}
	for _, r := range readings {
		if err := add(readingsRecord{Run: recordMeta{RunID: runID, Kind: kindTelemetry}, Reading: r}); err != nil {
			return err
		}
	}
	if len(buf) == 0 {
		return nil
	}
	if err := appendSynced(RecordsPath(f.path), buf[:len(buf)-1]); err != nil {
		return fmt.Errorf("append to run %s: %w", runID, err)
	}
	return nil
}

// ImportRecords puts a batch of a run's full-resolution records (a
// results file's) into the IntervalsCollection; a first batch replaces
// any stored before (an import of the same file twice stores them once).
func (m *Mongo) ImportRecords(ctx context.Context, runID string, recs []bson.Raw, first bool) error {
	coll, err := m.intervals(ctx)
	if err == nil && first {
		_, err = coll.DeleteMany(ctx, bson.D{{Key: "run.id", Value: runID}})
	}
	if err == nil && len(recs) > 0 {
		docs := make([]any, len(recs))
		for i, r := range recs {
			docs[i] = r
		}
		_, err = coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	}
	if err != nil {
		return fmt.Errorf("import run %s's intervals: %w", runID, err)
	}
	return nil
}
