package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/merge"
	"github.com/mongobench/mongobench/internal/result"
)

// A result document stays bounded in size whatever its run's length: at
// most MaxPoints intervals and points per telemetry series, and at most
// DocBudget bytes of BSON. A run that does not fit keeps its intervals
// and series in the document coarsened (merge.Coarsen) to the finest of
// merge.Granularities that fits, and every interval and reading at full
// resolution in the IntervalsCollection.
const (
	MaxPoints           = merge.MaxPoints
	DocBudget           = 1536 << 10
	IntervalsCollection = "intervals"
)

// Record kinds in the IntervalsCollection.
const (
	kindInterval  = "interval"
	kindSeries    = "series"
	kindTelemetry = "telemetry" // a running run's streamed sample figures (Reading)
)

// recordMeta is what a full-resolution record belongs to: its run, its
// kind and, for a telemetry reading, its series (List is the document's
// list that holds it: measurements, diskMetrics or members).
type recordMeta struct {
	RunID          string  `bson:"id"`
	Kind           string  `bson:"kind"`
	Writer         string  `bson:"w,omitempty"` // the registered run's writer (result.Live)
	List           string  `bson:"list,omitempty"`
	Name           string  `bson:"name,omitempty"`
	Units          string  `bson:"units,omitempty"`
	Source         string  `bson:"source,omitempty"`
	GranularitySec float64 `bson:"granularitySec,omitempty"`
	Member         string  `bson:"member,omitempty"`
	Role           string  `bson:"role,omitempty"`
}

// intervalRecord is one interval of a run at full resolution.
type intervalRecord struct {
	Run             recordMeta `bson:"run"`
	result.Interval `bson:",inline"`
}

// readingRecord is one telemetry reading of a run at full resolution.
type readingRecord struct {
	Run   recordMeta `bson:"run"`
	T     time.Time  `bson:"t"`
	Value *float64   `bson:"v"`
}

// Fit returns d bounded in size: d itself when it fits, else a copy with
// its intervals and series coarsened to the finest granularity at which
// it does, and its Resolution saying so.
func Fit(d *result.Doc) (*result.Doc, error) {
	if fits, err := fitsBudget(d); err != nil || fits {
		return d, err
	}
	base := baseInterval(d)
	span := d.End.Sub(d.Start)
	if n := len(d.Intervals); n > 0 {
		span = d.Intervals[n-1].Start.Add(time.Duration(d.Intervals[n-1].Seconds * float64(time.Second))).Sub(d.Intervals[0].Start)
	}
	for _, every := range merge.Granularities {
		if every < base || span/every >= MaxPoints {
			continue // finer than the run's intervals, or too many points
		}
		c, err := merge.Coarsen(d, every)
		if err != nil {
			return nil, err
		}
		fits, err := fitsBudget(c)
		if err != nil {
			return nil, err
		}
		if fits {
			c.Resolution = &result.Resolution{IntervalSec: every.Seconds(), FullIntervalSec: base.Seconds(),
				FullIntervals: len(d.Intervals), Collection: IntervalsCollection}
			if r := d.Resolution; r != nil {
				// Coarsened by its run already: the full resolution is the run's.
				c.Resolution.FullIntervalSec, c.Resolution.FullIntervals, c.Resolution.Collection = r.FullIntervalSec, r.FullIntervals, r.Collection
			}
			return c, nil
		}
	}
	return nil, fmt.Errorf("run %s: its document does not fit %d bytes even with %v intervals", d.RunID, DocBudget, merge.Granularities[len(merge.Granularities)-1])
}

// fitsBudget reports whether d holds at most MaxPoints intervals and
// points per series and its history row at most DocBudget bytes.
func fitsBudget(d *result.Doc) (bool, error) {
	if len(d.Intervals) > MaxPoints {
		return false, nil
	}
	for _, l := range d.Metrics.Lists() {
		for _, s := range l.Series {
			if len(s.DataPoints) > MaxPoints {
				return false, nil
			}
		}
	}
	b, err := bson.Marshal(history(d))
	if err != nil {
		return false, fmt.Errorf("encode run %s: %w", d.RunID, err)
	}
	return len(b) <= DocBudget, nil
}

// baseInterval is the run's reporting interval: its shortest interval
// (the last may be shorter or longer), one second when it has none.
func baseInterval(d *result.Doc) time.Duration {
	base := time.Duration(0)
	for _, iv := range d.Intervals[:max(len(d.Intervals)-1, 0)] {
		if s := time.Duration(iv.Seconds * float64(time.Second)); base == 0 || s < base {
			base = s
		}
	}
	if base <= 0 {
		return time.Second
	}
	return base
}

// records are d's intervals and telemetry readings at full resolution.
func records(d *result.Doc) []any {
	out := make([]any, 0, len(d.Intervals))
	for _, iv := range d.Intervals {
		out = append(out, intervalRecord{Run: recordMeta{RunID: d.RunID, Kind: kindInterval}, Interval: iv})
	}
	for _, l := range d.Metrics.Lists() {
		for _, s := range l.Series {
			meta := recordMeta{RunID: d.RunID, Kind: kindSeries, List: l.Name, Name: s.Name, Units: s.Units, Source: s.Source,
				GranularitySec: s.GranularitySec, Member: s.Member, Role: s.Role}
			for _, p := range s.DataPoints {
				out = append(out, readingRecord{Run: meta, T: p.Timestamp, Value: p.Value})
			}
		}
	}
	return out
}

// recordBatch is how many full-resolution records one insert carries.
const recordBatch = 1000

// saveFull fits d and, when its document does not hold it at full
// resolution, writes its intervals and readings to the
// IntervalsCollection first, replacing any a previous save of the same
// run wrote (an import of the same file twice stores them once). It
// returns the document to store.
func (m *Mongo) saveFull(ctx context.Context, d *result.Doc) (*result.Doc, error) {
	b, err := Fit(d)
	if err != nil || b == d || d.Resolution != nil {
		// A document its run coarsened as it went holds no full
		// resolution to write: its run streamed that (lab's stream).
		return b, err
	}
	if err := m.replaceRecords(ctx, d.RunID, records(d)); err != nil {
		return nil, fmt.Errorf("save %w", err)
	}
	return b, nil
}

// replaceRecords puts a run's full-resolution records into the
// IntervalsCollection in place of any stored before, in batches of
// recordBatch.
func (m *Mongo) replaceRecords(ctx context.Context, runID string, recs []any) error {
	w, err := m.newRecordWriter(ctx, runID)
	for _, r := range recs {
		if err != nil {
			break
		}
		err = w.add(ctx, r)
	}
	if err == nil {
		err = w.flush(ctx)
	}
	if err != nil {
		return fmt.Errorf("run %s's intervals: %w", runID, err)
	}
	return nil
}

// recordWriter writes a run's full-resolution records into the
// IntervalsCollection in place of any stored before (deleted when it is
// made), in batches of recordBatch: it holds one batch however many it
// writes.
type recordWriter struct {
	coll  *mongo.Collection
	batch []any
}

func (m *Mongo) newRecordWriter(ctx context.Context, runID string) (*recordWriter, error) {
	coll, err := m.intervals(ctx)
	if err == nil {
		_, err = coll.DeleteMany(ctx, bson.D{{Key: "run.id", Value: runID}})
	}
	if err != nil {
		return nil, err
	}
	return &recordWriter{coll: coll, batch: make([]any, 0, recordBatch)}, nil
}

// add writes rec, with the batch it completes.
func (w *recordWriter) add(ctx context.Context, rec any) error {
	if w.batch = append(w.batch, rec); len(w.batch) == recordBatch {
		return w.flush(ctx)
	}
	return nil
}

// flush writes the records added since the last batch.
func (w *recordWriter) flush(ctx context.Context) error {
	if len(w.batch) == 0 {
		return nil
	}
	_, err := w.coll.InsertMany(ctx, w.batch, options.InsertMany().SetOrdered(false))
	w.batch = w.batch[:0]
	return err
}

// intervals is the IntervalsCollection, created on first use: a
// time-series collection where the server has them (asked by creating
// one), else a plain collection indexed by run, kind and time.
func (m *Mongo) intervals(ctx context.Context) (*mongo.Collection, error) {
	coll := m.db.Collection(IntervalsCollection)
	names, err := m.db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: IntervalsCollection}})
	if err != nil {
		return nil, fmt.Errorf("results store: list collections: %w", err)
	}
	if len(names) > 0 {
		return coll, nil
	}
	ts := options.CreateCollection().SetTimeSeriesOptions(options.TimeSeries().SetTimeField("t").SetMetaField("run").SetGranularity("seconds"))
	err = m.db.CreateCollection(ctx, IntervalsCollection, ts)
	if err == nil || exists(err) {
		return coll, nil // made here, or by another client
	}
	// The server has no time-series collections: a plain one.
	if err := m.db.CreateCollection(ctx, IntervalsCollection); err != nil && !exists(err) {
		return nil, fmt.Errorf("results store: create %s: %w", IntervalsCollection, err)
	}
	idx := mongo.IndexModel{Keys: bson.D{{Key: "run.id", Value: 1}, {Key: "run.kind", Value: 1}, {Key: "t", Value: 1}}}
	if _, err := coll.Indexes().CreateOne(ctx, idx); err != nil {
		return nil, fmt.Errorf("results store: index %s: %w", IntervalsCollection, err)
	}
	return coll, nil
}

// exists reports whether err is the server's NamespaceExists.
func exists(err error) bool {
	var ce mongo.CommandError
	return errors.As(err, &ce) && ce.HasErrorCode(48)
}

// FullIntervals reads a run's intervals at full resolution from the
// IntervalsCollection, in time order; none when the run's document holds
// them itself.
func (m *Mongo) FullIntervals(ctx context.Context, runID string) ([]result.Interval, error) {
	cur, err := m.records(ctx, runID, kindInterval)
	if err != nil {
		return nil, err
	}
	var recs []intervalRecord
	if err := cur.All(ctx, &recs); err != nil {
		return nil, fmt.Errorf("read run %s's intervals: %w", runID, err)
	}
	out := make([]result.Interval, len(recs))
	for i, r := range recs {
		out[i] = r.Interval
	}
	return out, nil
}

// records opens a cursor over a run's full-resolution records of kind
// (kindInterval, in time order, or any other kind when kind is ""): a
// registered run's own records only (its writer's), never those of a
// client that came back under the same run id.
func (m *Mongo) records(ctx context.Context, runID, kind string) (*mongo.Cursor, error) {
	filter := bson.D{{Key: "run.id", Value: runID}}
	var opts []options.Lister[options.FindOptions]
	if kind == kindInterval {
		// Intervals in time order, through the index (run.id, run.kind, t);
		// other records are copied whole, in any order (no blocking sort
		// of a day of readings).
		filter = append(filter, bson.E{Key: "run.kind", Value: kindInterval})
		opts = append(opts, options.Find().SetSort(bson.D{{Key: "t", Value: 1}}))
	} else {
		filter = append(filter, bson.E{Key: "run.kind", Value: bson.D{{Key: "$ne", Value: kindInterval}}})
	}
	var row struct {
		Live *result.Live `bson:"live"`
	}
	err := m.db.Collection(HistoryCollection).FindOne(ctx, bson.D{{Key: "_id", Value: runID}}, options.FindOne().SetProjection(bson.D{{Key: "live", Value: 1}})).Decode(&row)
	switch {
	case err != nil && !errors.Is(err, mongo.ErrNoDocuments):
		return nil, fmt.Errorf("read run %s: %w", runID, err)
	case row.Live != nil:
		filter = append(filter, bson.E{Key: "run.w", Value: row.Live.Writer})
	}
	cur, err := m.db.Collection(IntervalsCollection).Find(ctx, filter, opts...)
	if err != nil {
		return nil, fmt.Errorf("read run %s's records: %w", runID, err)
	}
	return cur, nil
}
