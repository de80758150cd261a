package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A Pruner removes old runs (results prune).
type Pruner interface {
	Prune(ctx context.Context, p Prune) (Pruned, error)
}

var _ Pruner = (*Mongo)(nil)

// Prune says which runs to remove: the history's runs that started before
// Before, except those that are their test and variant's row in results
// (unless Latest); with DryRun, nothing is removed, only counted.
type Prune struct {
	Before time.Time
	Latest bool
	DryRun bool
}

// Pruned is what a prune removed (or, dry, would remove): runs from the
// history, rows from results, full-resolution records; Foreign counts the
// old history documents that mongobench did not write (no run id or
// schema version), which it leaves alone.
type Pruned struct {
	Runs, Latest, Records, Foreign int64
}

// Prune removes the runs p selects from the history, with their
// full-resolution intervals and readings and, with p.Latest, their rows in
// results. A document without a run id and a schema version is not
// mongobench's and is never removed.
func (m *Mongo) Prune(ctx context.Context, p Prune) (Pruned, error) {
	var out Pruned
	old := bson.D{{Key: "start", Value: bson.D{{Key: "$lt", Value: p.Before}}}}
	ours := bson.D{{Key: "runId", Value: bson.D{{Key: "$type", Value: "string"}}}, {Key: "schemaVersion", Value: bson.D{{Key: "$type", Value: "number"}}}}
	history, results := m.db.Collection(HistoryCollection), m.db.Collection(ResultsCollection)
	all, err := history.CountDocuments(ctx, old)
	if err != nil {
		return out, fmt.Errorf("prune: %w", err)
	}
	cur, err := history.Find(ctx, append(old, ours...), options.Find().SetProjection(bson.D{{Key: "runId", Value: 1}}))
	if err != nil {
		return out, fmt.Errorf("prune: %w", err)
	}
	var rows []struct {
		RunID string `bson:"runId"`
	}
	if err := cur.All(ctx, &rows); err != nil {
		return out, fmt.Errorf("prune: %w", err)
	}
	out.Foreign = all - int64(len(rows))
	var latest []string
	if err := results.Distinct(ctx, "runId", bson.D{}).Decode(&latest); err != nil {
		return out, fmt.Errorf("prune: %w", err)
	}
	ids := []string{} // never null: $in wants an array, even an empty one
	for _, r := range rows {
		if slices.Contains(latest, r.RunID) {
			if !p.Latest {
				continue
			}
			out.Latest++
		}
		ids = append(ids, r.RunID)
	}
	out.Runs = int64(len(ids))
	inIDs := bson.D{{Key: "$in", Value: ids}}
	if out.Records, err = m.db.Collection(IntervalsCollection).CountDocuments(ctx, bson.D{{Key: "run.id", Value: inIDs}}); err != nil {
		return out, fmt.Errorf("prune: %w", err)
	}
	if p.DryRun || len(ids) == 0 {
		return out, nil
	}
	// The records first: a prune stopped halfway never leaves records no
	// run points to; it may leave old runs without their full-resolution
	// records, which the next prune removes.
	if _, err := m.db.Collection(IntervalsCollection).DeleteMany(ctx, bson.D{{Key: "run.id", Value: inIDs}}); err != nil {
		return out, fmt.Errorf("prune intervals: %w", err)
	}
	if p.Latest {
		if _, err := results.DeleteMany(ctx, bson.D{{Key: "runId", Value: inIDs}}); err != nil {
			return out, fmt.Errorf("prune results: %w", err)
		}
	}
	if _, err := history.DeleteMany(ctx, bson.D{{Key: "_id", Value: inIDs}}); err != nil {
		return out, fmt.Errorf("prune history: %w", err)
	}
	if _, err := m.db.Collection(SummariesCollection).DeleteMany(ctx, bson.D{{Key: "_id", Value: inIDs}}); err != nil {
		return out, fmt.Errorf("prune the run summaries: %w", err)
	}
	return out, nil
}
