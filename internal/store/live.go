package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/result"
)

// A Registrar keeps a run in the store while it is measured, so that a
// client that dies leaves the run and its intervals up to its last write
// (result.Live): the run is registered as its measured phase starts, its
// closed intervals are appended at full resolution as it goes, its
// summary is kept current (Beat), and its complete result (Save)
// replaces the registered row.
type Registrar interface {
	Register(ctx context.Context, d *result.Doc) error
	Append(ctx context.Context, runID string, ivs []result.Interval, readings []Reading) error
	Beat(ctx context.Context, runID string, b Beat) error
}

var _ Registrar = (*Mongo)(nil)

// Beat is a running run's summary so far.
type Beat struct {
	At        time.Time
	End       time.Time // the end of its last closed interval
	Duration  float64   // milliseconds measured, as result.Doc.Duration
	Ops       []result.OpStats
	Intervals int64
}

// ErrTakenOver is the error of a write for a run whose registered row is
// no longer this client's (another process stored or registered it).
var ErrTakenOver = errors.New("is no longer this client's in the results store")

// registered holds the writer of each run this store registered.
type registered struct {
	mu      sync.Mutex
	writers map[string]string
}

func (r *registered) writer(runID string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.writers[runID]
	return w, ok
}

func (r *registered) set(runID, writer string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.writers == nil {
		r.writers = map[string]string{}
	}
	r.writers[runID] = writer
}

// Register stores d, with d.Live set, as the run's history row; a run id
// already stored is refused, so no two clients write one run.
func (m *Mongo) Register(ctx context.Context, d *result.Doc) error {
	if d.Live == nil || d.Live.Writer == "" {
		return fmt.Errorf("register run %s: no writer", d.RunID)
	}
	if err := m.ensureIndexes(ctx); err != nil {
		return err
	}
	if _, err := m.intervals(ctx); err != nil {
		return err
	}
	if _, err := m.db.Collection(HistoryCollection).InsertOne(ctx, history(d)); err != nil {
		if mongo.IsDuplicateKeyError(err) {
			return fmt.Errorf("register run %s: a run with this id is already stored", d.RunID)
		}
		return fmt.Errorf("register run %s: %w", d.RunID, err)
	}
	m.live.set(d.RunID, d.Live.Writer)
	return m.putSummary(ctx, d)
}

// Reading is one telemetry sample's figures at full resolution, over
// the sampling interval it closes (T to T + Seconds): the server's and
// the host's, as result.Interval holds them.
type Reading struct {
	T       time.Time          `bson:"t"`
	Seconds float64            `bson:"seconds"`
	Server  map[string]float64 `bson:"server,omitempty"`
	Host    map[string]float64 `bson:"host,omitempty"`
}

// readingsRecord is a Reading of a run in the IntervalsCollection.
type readingsRecord struct {
	Run     recordMeta `bson:"run"`
	Reading `bson:",inline"`
}

// Append writes closed intervals and telemetry readings of a run this
// store registered to the IntervalsCollection, marked with its writer.
func (m *Mongo) Append(ctx context.Context, runID string, ivs []result.Interval, readings []Reading) error {
	w, ok := m.live.writer(runID)
	if !ok {
		return fmt.Errorf("append to run %s: not registered by this client", runID)
	}
	recs := make([]any, 0, len(ivs)+len(readings))
	for _, iv := range ivs {
		recs = append(recs, intervalRecord{Run: recordMeta{RunID: runID, Kind: kindInterval, Writer: w}, Interval: iv})
	}
	for _, r := range readings {
		recs = append(recs, readingsRecord{Run: recordMeta{RunID: runID, Kind: kindTelemetry, Writer: w}, Reading: r})
	}
	if len(recs) == 0 {
		return nil
	}
	if _, err := m.db.Collection(IntervalsCollection).InsertMany(ctx, recs, options.InsertMany().SetOrdered(false)); err != nil {
		return fmt.Errorf("append to run %s: %w", runID, err)
	}
	return nil
}

// Beat keeps a registered run's row current: its heartbeat, how far it
// has measured, its operations so far.
func (m *Mongo) Beat(ctx context.Context, runID string, b Beat) error {
	w, ok := m.live.writer(runID)
	if !ok {
		return fmt.Errorf("beat of run %s: not registered by this client", runID)
	}
	var n int64
	for _, op := range b.Ops {
		c, _ := op.Whole()
		n += c
	}
	set := bson.D{{Key: "live.heartbeat", Value: b.At}, {Key: "live.intervals", Value: b.Intervals}, {Key: "end", Value: b.End},
		{Key: "duration", Value: b.Duration}, {Key: "ops", Value: b.Ops}, {Key: "testResults.nOps", Value: n}}
	res, err := m.db.Collection(HistoryCollection).UpdateOne(ctx, bson.D{{Key: "_id", Value: runID}, {Key: "live.writer", Value: w}},
		bson.D{{Key: "$set", Value: set}})
	if err != nil {
		return fmt.Errorf("beat of run %s: %w", runID, err)
	}
	if res.MatchedCount == 0 {
		return fmt.Errorf("run %s %w", runID, ErrTakenOver)
	}
	sum := Summary(&result.Doc{Ops: b.Ops})
	if _, err := m.db.Collection(SummariesCollection).UpdateOne(ctx, bson.D{{Key: "_id", Value: runID}}, bson.D{{Key: "$set", Value: bson.D{
		{Key: "live.heartbeat", Value: b.At}, {Key: "live.intervals", Value: b.Intervals}, {Key: "end", Value: b.End},
		{Key: "duration", Value: b.Duration}, {Key: "ops", Value: sum.Ops}}}}); err != nil {
		return fmt.Errorf("beat of run %s: its summary: %w", runID, err)
	}
	return nil
}

// putHistory writes d's history row: in place of its registered row when
// this store registered it (its writer must still hold it), else as a
// new row.
func (m *Mongo) putHistory(ctx context.Context, d *result.Doc) error {
	coll := m.db.Collection(HistoryCollection)
	w, ok := m.live.writer(d.RunID)
	if !ok {
		if _, err := coll.InsertOne(ctx, history(d)); err != nil {
			return fmt.Errorf("save run %s to history: %w", d.RunID, err)
		}
		return m.putSummary(ctx, d)
	}
	res, err := coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: d.RunID}, {Key: "live.writer", Value: w}}, history(d))
	if err != nil {
		return fmt.Errorf("save run %s to history: %w", d.RunID, err)
	}
	if res.MatchedCount == 0 {
		return fmt.Errorf("save run %s: it %w", d.RunID, ErrTakenOver)
	}
	return m.putSummary(ctx, d)
}
