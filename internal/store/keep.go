package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/within"
)

// Outcome says what storing a run did to the results collection (the
// history always keeps the run).
type Outcome int

const (
	// Latest: the run is its test and variant's row in results.
	Latest Outcome = iota
	// KeptComplete: a partial run left the complete row in results as it
	// was; the run is in the history only.
	KeptComplete
	// KeptNewer: a run older than the row in results (an import of a
	// rescued run) left it as it was; the run is in the history only.
	KeptNewer
)

func (o Outcome) String() string {
	switch o {
	case KeptComplete:
		return "kept the complete result in results; this partial run is in history only"
	case KeptNewer:
		return "kept the newer result in results; this run is in history only"
	}
	return "latest in results"
}

// putResult makes d its test and variant's row in results unless that
// would replace a complete row with a partial one (allowed when
// m.ReplacePartial is set) or a newer row with an older run.
func (m *Mongo) putResult(ctx context.Context, d *result.Doc) (Outcome, error) {
	row := latest(d)
	coll := m.db.Collection(ResultsCollection)
	filter := bson.D{{Key: "_id", Value: row.ID}, {Key: "start", Value: bson.D{{Key: "$lte", Value: d.Start}}}}
	if d.Partial && !m.ReplacePartial {
		filter = append(filter, bson.E{Key: "partial", Value: true})
	}
	res, err := coll.ReplaceOne(ctx, filter, row)
	if err != nil {
		return Latest, fmt.Errorf("save run %s to results: %w", d.RunID, err)
	}
	if res.MatchedCount > 0 {
		return Latest, nil
	}
	_, err = coll.InsertOne(ctx, row)
	switch {
	case err == nil:
		return Latest, nil
	case !mongo.IsDuplicateKeyError(err):
		return Latest, fmt.Errorf("save run %s to results: %w", d.RunID, err)
	}
	// A row exists that d may not replace: say why.
	var cur struct {
		Start   bson.DateTime `bson:"start"`
		Partial bool          `bson:"partial"`
	}
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: row.ID}}).Decode(&cur); err != nil {
		return Latest, fmt.Errorf("save run %s to results: read the row it would replace: %w", d.RunID, err)
	}
	if cur.Start.Time().After(d.Start) {
		return KeptNewer, nil
	}
	return KeptComplete, nil
}

// Import stores a run read back from a file (a rescue file, or a results
// file): its history row is written or rewritten under its run id, so
// importing a file twice stores each run once, and its results row follows
// the rules of Save.
// ReplacingPartial is the store with ReplacePartial set: a partial run
// it imports may replace a complete row in results.
func (m *Mongo) ReplacingPartial() Importer {
	c := *m
	c.ReplacePartial = true
	return &c
}

func (m *Mongo) Import(ctx context.Context, d *result.Doc) (Outcome, error) {
	if err := CheckIdentity(d); err != nil {
		return Latest, fmt.Errorf("import: %w", err)
	}
	if err := m.ensureIndexes(ctx); err != nil {
		return Latest, err
	}
	d, err := m.saveFull(ctx, d)
	if err != nil {
		return Latest, err
	}
	h := history(d)
	opts := options.Replace().SetUpsert(true)
	if _, err := m.db.Collection(HistoryCollection).ReplaceOne(ctx, bson.D{{Key: "_id", Value: h.ID}}, h, opts); err != nil {
		return Latest, fmt.Errorf("import run %s to history: %w", d.RunID, err)
	}
	if err := m.putSummary(ctx, d); err != nil {
		return Latest, err
	}
	return m.putResult(ctx, d)
}

// CheckIdentity checks what names a run before it is kept from outside
// (an imported file): its run id is a name, never a path
// (result.CheckID), and its test name, label and tags print as written
// (result.CheckText).
func CheckIdentity(d *result.Doc) error {
	if err := result.CheckID("run id", d.RunID); err != nil {
		return err
	}
	checks := []error{result.CheckText("run "+d.RunID+": test name", d.TestName), result.CheckText("run "+d.RunID+": label", d.Label)}
	for _, t := range d.Tags {
		checks = append(checks, result.CheckText("run "+d.RunID+": tag", t))
	}
	return errors.Join(checks...)
}

// ReadFile reads the runs of a JSON Lines file, in either stored form
// (results rows, keyed by test and variant, or history rows, keyed by run
// id, as rescue files are), in file order.
func ReadFile(path string) ([]result.Doc, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	return NewFile(path).readAll()
}

// rescueName is the file a rescued run is kept in.
func rescueName(runID string) string { return "mongobench-unsaved-" + runID + ".jsonl" }

// RescueTo keeps a run that its store could not save in a JSON Lines file
// named after the run, in the first of dirs that takes it (such as the
// working directory, then the temporary directory when the working
// directory is gone or read-only), and returns the file's path. The file
// holds the run as a history row (_id is the run id), so two rescued runs
// of one variant never collide, and `mongobench results import` (or
// mongoimport into the history) loads it.
func RescueTo(ctx context.Context, d *result.Doc, dirs ...string) (string, error) {
	line, err := bson.MarshalExtJSON(history(d), false, false)
	if err != nil {
		return "", fmt.Errorf("encode run %s: %w", d.RunID, err)
	}
	if err := result.CheckID("run id", d.RunID); err != nil {
		return "", fmt.Errorf("rescue run: %w", err)
	}
	var errs []error
	for _, dir := range dirs {
		path, err := within.Join(dir, rescueName(d.RunID))
		if err != nil {
			return "", fmt.Errorf("rescue run %s: %w", d.RunID, err)
		}
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if err := appendSynced(path, line); err != nil {
			errs = append(errs, err)
			continue
		}
		return path, nil
	}
	return "", fmt.Errorf("rescue run %s: %w", d.RunID, errors.Join(errs...))
}

// appendSynced appends line and a newline to the file at path, creating
// it, and syncs it to disk.
func appendSynced(path string, line []byte) error {
	fh, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fh.Write(append(line, '\n'))
	if err == nil {
		err = fh.Sync()
	}
	return errors.Join(err, fh.Close())
}
