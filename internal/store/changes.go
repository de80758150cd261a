package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/changes"
	"github.com/mongobench/mongobench/internal/result"
)

// ChangesCollection holds the change points of stored series and their
// triage (changes.Change, one document each, _id its ID).
const ChangesCollection = "changes"

// ErrNoSuchChange is returned for a change id that matches none.
var ErrNoSuchChange = errors.New("no such change")

// A Triage keeps the change points found in stored runs and their
// statuses, beside the runs. The MongoDB store is one; the file store
// is not.
type Triage interface {
	// SeriesRuns reads the runs of test and label (empty: any), oldest
	// first, without their intervals, telemetry series and serverStatus
	// documents.
	SeriesRuns(ctx context.Context, test, label string) ([]result.Doc, error)
	// Changes reads the stored changes, oldest found first.
	Changes(ctx context.Context) ([]changes.Change, error)
	// PutChanges stores changes: new ones inserted, known ones' figures
	// updated, their status, why, found and alerted as stored.
	PutChanges(ctx context.Context, cs []changes.Change) error
	// SetChangeStatus sets a change's status and why, by id or unique
	// id prefix, and returns the change.
	SetChangeStatus(ctx context.Context, id string, s changes.Status, why string) (*changes.Change, error)
	// MarkAlerted records that a run of changes --fail-on-new failed on
	// the changes ids, at t (once: an alerted change keeps its first).
	MarkAlerted(ctx context.Context, ids []string, t time.Time) error
}

var _ Triage = (*Mongo)(nil)

func (m *Mongo) changes() *mongo.Collection { return m.db.Collection(ChangesCollection) }

// SeriesRuns reads runs from the history.
func (m *Mongo) SeriesRuns(ctx context.Context, test, label string) ([]result.Doc, error) {
	filter := bson.D{}
	if test != "" {
		filter = append(filter, bson.E{Key: "testName", Value: test})
	}
	if label != "" {
		filter = append(filter, bson.E{Key: "label", Value: label})
	}
	skip := bson.D{}
	for _, f := range []string{"intervals", "metrics", "before_status", "after_status"} {
		skip = append(skip, bson.E{Key: f, Value: 0})
	}
	opts := options.Find().SetSort(bson.D{{Key: "start", Value: 1}}).SetProjection(skip)
	cur, err := m.db.Collection(HistoryCollection).Find(ctx, filter, opts)
	if err != nil {
		return nil, fmt.Errorf("read runs: %w", err)
	}
	var rows []stored
	if err := cur.All(ctx, &rows); err != nil {
		return nil, fmt.Errorf("read runs: %w", err)
	}
	docs := make([]result.Doc, len(rows))
	for i := range rows {
		docs[i] = rows[i].doc()
	}
	return docs, nil
}

// Changes reads the changes collection.
func (m *Mongo) Changes(ctx context.Context) ([]changes.Change, error) {
	cur, err := m.changes().Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "found", Value: 1}, {Key: "_id", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("read changes: %w", err)
	}
	var cs []changes.Change
	if err := cur.All(ctx, &cs); err != nil {
		return nil, fmt.Errorf("read changes: %w", err)
	}
	return cs, nil
}

// PutChanges inserts what is new and updates the figures of the rest,
// never their triage.
func (m *Mongo) PutChanges(ctx context.Context, cs []changes.Change) error {
	for _, c := range cs {
		figures := bson.D{
			{Key: "series", Value: c.Series}, {Key: "metric", Value: c.Metric}, {Key: "unit", Value: c.Unit},
			{Key: "direction", Value: c.Direction}, {Key: "before", Value: c.Before}, {Key: "after", Value: c.After},
			{Key: "runsBefore", Value: c.RunsBefore}, {Key: "runsAfter", Value: c.RunsAfter},
			{Key: "change", Value: c.Change}, {Key: "magnitude", Value: c.Magnitude}, {Key: "p", Value: c.P},
			{Key: "lastStable", Value: c.LastStable}, {Key: "firstChanged", Value: c.FirstChanged},
			{Key: "configChanges", Value: c.ConfigChanges}, {Key: "stage", Value: c.StageName()},
		}
		onInsert := bson.D{{Key: "status", Value: c.Status}, {Key: "found", Value: c.Found}}
		if c.Why != "" {
			onInsert = append(onInsert, bson.E{Key: "why", Value: c.Why})
		}
		update := bson.D{{Key: "$set", Value: figures}, {Key: "$setOnInsert", Value: onInsert}}
		if _, err := m.changes().UpdateByID(ctx, c.ID, update, options.UpdateOne().SetUpsert(true)); err != nil {
			return fmt.Errorf("store change %s: %w", c.ID, err)
		}
	}
	return nil
}

// SetChangeStatus finds the change by id prefix and sets its status.
func (m *Mongo) SetChangeStatus(ctx context.Context, id string, s changes.Status, why string) (*changes.Change, error) {
	filter := bson.D{{Key: "_id", Value: bson.D{{Key: "$regex", Value: "^" + quoteRegex(id)}}}}
	cur, err := m.changes().Find(ctx, filter, options.Find().SetLimit(maxCandidates+1))
	if err != nil {
		return nil, fmt.Errorf("find change %s: %w", id, err)
	}
	var cs []changes.Change
	if err := cur.All(ctx, &cs); err != nil {
		return nil, fmt.Errorf("find change %s: %w", id, err)
	}
	switch len(cs) {
	case 0:
		return nil, fmt.Errorf("change %q: %w (changes lists them)", id, ErrNoSuchChange)
	case 1:
	default:
		ids := make([]string, len(cs))
		for i := range cs {
			ids[i] = cs[i].ID
		}
		return nil, fmt.Errorf("change id prefix %q %w (%v); give more of it", id, ErrAmbiguous, ids)
	}
	set := bson.D{{Key: "status", Value: s}, {Key: "why", Value: why}}
	if _, err := m.changes().UpdateByID(ctx, cs[0].ID, bson.D{{Key: "$set", Value: set}}); err != nil {
		return nil, fmt.Errorf("set change %s: %w", cs[0].ID, err)
	}
	cs[0].Status, cs[0].Why = s, why
	return &cs[0], nil
}

// MarkAlerted sets alerted on the changes that have none.
func (m *Mongo) MarkAlerted(ctx context.Context, ids []string, t time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	filter := bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}, {Key: "alerted", Value: bson.D{{Key: "$exists", Value: false}}}}
	if _, err := m.changes().UpdateMany(ctx, filter, bson.D{{Key: "$set", Value: bson.D{{Key: "alerted", Value: t}}}}); err != nil {
		return fmt.Errorf("mark changes alerted: %w", err)
	}
	return nil
}

// LookForChanges takes one look for change points over the stored runs
// of test and label (empty: any) at now, and stores what it found,
// merged with the stored triage (changes.Look.Run).
func LookForChanges(ctx context.Context, tr Triage, test, label string, look changes.Look, now time.Time) (changes.Found, error) {
	docs, err := tr.SeriesRuns(ctx, test, label)
	if err != nil {
		return changes.Found{}, err
	}
	stored, err := tr.Changes(ctx)
	if err != nil {
		return changes.Found{}, err
	}
	found, err := look.Run(ctx, docs, stored, now)
	if err != nil {
		return changes.Found{}, err
	}
	return found, tr.PutChanges(ctx, found.Changes)
}
