package store

import (
	"context"
	"sync"
	"time"

	"errors"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
)

// Default names of the results database and collections.
const (
	DefaultDatabase   = spec.ResultsDatabase // reserved: no workload's data may use it
	ResultsCollection = "results"
	HistoryCollection = "history"
)

// ErrNotFound is returned when no stored run has the asked id.
var ErrNotFound = errors.New("no such run")

// ErrAmbiguous is returned when a run id prefix matches more than one run.
var ErrAmbiguous = errors.New("matches more than one run")

// maxCandidates is how many runs an ambiguous prefix's error names.
const maxCandidates = 5

// Ambiguous is the error of a run id prefix that matches the runs ids
// (at least two): it names up to maxCandidates of them, and says when
// there are more.
func Ambiguous(prefix string, ids []string) error {
	shown := ids[:min(len(ids), maxCandidates)]
	more := ""
	if len(ids) > len(shown) {
		more = ", …"
	}
	return fmt.Errorf("run id prefix %q %w (%s%s); give more of it", prefix, ErrAmbiguous, strings.Join(shown, ", "), more)
}

// A Store saves and reads result documents.
type Store interface {
	Save(ctx context.Context, d *result.Doc) error
	// List returns the most recent runs first, at most limit (0: all).
	List(ctx context.Context, limit int) ([]result.Doc, error)
	// ListLight returns every run, the most recent first, without its
	// intervals and serverStatus documents: what the studies read of
	// stored runs (their operations with histograms, verdicts,
	// configuration and telemetry series, which a plan averages).
	ListLight(ctx context.Context) ([]result.Doc, error)
	// Get returns the run with the given id (a unique prefix will do).
	Get(ctx context.Context, runID string) (*result.Doc, error)
	// ListRuns lists the runs a filter selects as summaries (Summary),
	// newest first, at most limit (0: all), with their count and the
	// filter's choices.
	ListRuns(ctx context.Context, f RunFilter, limit int) (RunList, error)
	// Sweeps returns the stored steps of throughput sweeps (runs whose
	// variant names a sweep; of a run group's step, its merged result)
	// that match q, oldest first, without their intervals, telemetry
	// series and serverStatus documents.
	Sweeps(ctx context.Context, q Query) ([]result.Doc, error)
	// Where says where results go, with no credentials.
	Where() string
}

// What a store can do beyond Store, asked of it once where it is opened
// (a JSON Lines file is only a Registrar; a MongoDB results store all).
type (
	// An Importer stores a document under its own run id, replacing a
	// stored one only where a partial result never replaces a complete one.
	Importer interface {
		Import(ctx context.Context, d *result.Doc) (Outcome, error)
		// ImportRecords puts a batch of a run's full-resolution records
		// (a results file's, FileImport); the first batch of an import
		// replaces any stored before.
		ImportRecords(ctx context.Context, runID string, recs []bson.Raw, first bool) error
		// ReplacingPartial is the same importer, but a partial run may
		// replace a complete row (results import --replace-partial).
		ReplacingPartial() Importer
	}
	// A TemplateSource gives a report template's pipelines a read-only
	// view of the results database.
	TemplateSource interface {
		TemplateReader(ctx context.Context) (*TemplateReader, error)
	}
	// A FullResolution store holds runs' intervals at full resolution
	// beside their documents (a long run's, a streamed run's).
	FullResolution interface {
		FullIntervals(ctx context.Context, runID string) ([]result.Interval, error)
	}
	// A Coordinator holds run groups' coordination documents (collection
	// groups) beside the results its clients store.
	Coordinator interface {
		Store
		Importer
		RegisterGroup(ctx context.Context, id string, clients int, scenario string, index int, me GroupMember) (*GroupDoc, error)
		Group(ctx context.Context, id string) (*GroupDoc, error)
		Heartbeat(ctx context.Context, id string, index int, t time.Time) error
		MarkReady(ctx context.Context, id string, index int, t time.Time) error
		MarkDone(ctx context.Context, id string, index int, t time.Time, runID string) (*GroupDoc, error)
		MarkPrepared(ctx context.Context, id string, at time.Time) error
		ChooseStart(ctx context.Context, id string, at time.Time) (*GroupDoc, error)
		GiveUp(ctx context.Context, id, why string) (*GroupDoc, error)
		ClaimMerge(ctx context.Context, id, token string, now time.Time, stale time.Duration) (bool, error)
		ReleaseMerge(ctx context.Context, id, token string) error
		MarkMerged(ctx context.Context, id, runID string, missing []int) error
		GroupRuns(ctx context.Context, id string) ([]result.Doc, error)
		MergeGroupRecords(ctx context.Context, runID string, clients []result.Doc, each func(result.Interval) error) (n int, complete bool, err error)
		ClockOffset(ctx context.Context) (offset, uncertainty time.Duration, err error)
	}
)

// Compile-time checks of what each store can do.
var (
	_ Store          = File{}
	_ Store          = (*Mongo)(nil)
	_ Importer       = (*Mongo)(nil)
	_ TemplateSource = (*Mongo)(nil)
	_ Coordinator    = (*Mongo)(nil)
	_ FullResolution = (*Mongo)(nil)
)

// Query selects stored sweep steps; an empty field matches anything.
type Query struct {
	Label    string // the runs' label
	Workload string // test_config.workload
}

// matches reports whether d is a sweep step that q selects. A run
// group's step is its merged result: its clients' own results (each a
// share of the step's rate) are not steps.
func (q Query) matches(d *result.Doc) bool {
	sweep := result.VariantOf(d).Sweep != nil && (d.Group == nil || d.Group.ClientIndex == nil) && d.Live == nil
	w, _ := d.TestConfig["workload"].(string)
	return sweep && (q.Label == "" || d.Label == q.Label) && (q.Workload == "" || w == q.Workload)
}

// light drops what compare never reads: intervals, series and the
// serverStatus documents.
func light(d *result.Doc) {
	d.Intervals, d.Metrics, d.BeforeStatus, d.AfterStatus = nil, result.Metrics{}, nil, nil
}

// Mongo stores results in a MongoDB database.
type Mongo struct {
	db    *mongo.Database
	where string
	// ReplacePartial lets a partial run replace a complete row in results;
	// by default a partial run goes to the history only.
	ReplacePartial bool
	// live holds the runs this store registered (Registrar).
	live *registered
	// indexed creates the readers' indexes once, on the first write.
	indexed   *sync.Once
	indexErr  error
	summaries *summaryState
}

// NewMongo stores into database db of client; where names it for people.
// Writes wait for a journaled majority, so an acknowledged result
// survives a crash of the server.
func NewMongo(client *mongo.Client, db, where string) *Mongo {
	wc := writeconcern.Majority()
	wc.Journal = new(bool)
	*wc.Journal = true
	return &Mongo{db: client.Database(db, options.Database().SetWriteConcern(wc)), where: where, live: &registered{}, indexed: &sync.Once{}, summaries: &summaryState{}}
}

// Where names the results collection.
func (m *Mongo) Where() string {
	return fmt.Sprintf("%s (database %s, collections %s and %s)", m.where, m.db.Name(), ResultsCollection, HistoryCollection)
}

// Save writes d to the history collection under its run id, then makes
// it the results row of its test and variant, unless d is partial and
// that row is complete (see ReplacePartial): a stopped run never silently
// replaces a complete one in the collection reports read.
func (m *Mongo) Save(ctx context.Context, d *result.Doc) error {
	if err := m.ensureIndexes(ctx); err != nil {
		return err
	}
	d, err := m.saveFull(ctx, d)
	if err != nil {
		return err
	}
	if err := m.putHistory(ctx, d); err != nil {
		return err
	}
	_, err = m.putResult(ctx, d)
	return err
}

// List reads the history, newest first.
func (m *Mongo) List(ctx context.Context, limit int) ([]result.Doc, error) {
	return m.list(ctx, options.Find().SetSort(bson.D{{Key: "start", Value: -1}}).SetLimit(int64(limit)))
}

// ListLight reads the history, newest first, without intervals and
// serverStatus documents.
func (m *Mongo) ListLight(ctx context.Context) ([]result.Doc, error) {
	skip := bson.D{{Key: "intervals", Value: 0}, {Key: "before_status", Value: 0}, {Key: "after_status", Value: 0}}
	return m.list(ctx, options.Find().SetSort(bson.D{{Key: "start", Value: -1}}).SetProjection(skip))
}

// lightProjection leaves out what light leaves out.
func lightProjection() bson.D {
	skip := bson.D{}
	for _, f := range []string{"intervals", "metrics", "before_status", "after_status"} {
		skip = append(skip, bson.E{Key: f, Value: 0})
	}
	return skip
}

func (m *Mongo) list(ctx context.Context, opts *options.FindOptionsBuilder) ([]result.Doc, error) {
	cur, err := m.db.Collection(HistoryCollection).Find(ctx, bson.D{}, opts)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var rows []stored
	if err := cur.All(ctx, &rows); err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	docs := make([]result.Doc, len(rows))
	for i := range rows {
		docs[i] = rows[i].doc()
	}
	return docs, nil
}

// Sweeps reads the matching sweep steps from the history.
func (m *Mongo) Sweeps(ctx context.Context, q Query) ([]result.Doc, error) {
	filter := bson.D{{Key: "variant.sweep", Value: bson.D{{Key: "$exists", Value: true}}},
		{Key: "group.clientIndex", Value: bson.D{{Key: "$exists", Value: false}}},
		{Key: "live", Value: bson.D{{Key: "$exists", Value: false}}}} // a step still running (or lost) is not a result
	if q.Label != "" {
		filter = append(filter, bson.E{Key: "label", Value: q.Label})
	}
	if q.Workload != "" {
		filter = append(filter, bson.E{Key: "test_config.workload", Value: q.Workload})
	}
	opts := options.Find().SetSort(bson.D{{Key: "start", Value: 1}, {Key: "_id", Value: 1}}).SetProjection(lightProjection())
	cur, err := m.db.Collection(HistoryCollection).Find(ctx, filter, opts)
	if err != nil {
		return nil, fmt.Errorf("find sweeps: %w", err)
	}
	var rows []stored
	if err := cur.All(ctx, &rows); err != nil {
		return nil, fmt.Errorf("find sweeps: %w", err)
	}
	var docs []result.Doc
	for i := range rows {
		if d := rows[i].doc(); q.matches(&d) {
			docs = append(docs, d)
		}
	}
	return docs, nil
}

// Get finds a run in the history by id or unique id prefix.
func (m *Mongo) Get(ctx context.Context, runID string) (*result.Doc, error) {
	filter := bson.D{{Key: "runId", Value: bson.D{{Key: "$regex", Value: "^" + quoteRegex(runID)}}}}
	cur, err := m.db.Collection(HistoryCollection).Find(ctx, filter, options.Find().SetLimit(maxCandidates+1))
	if err != nil {
		return nil, fmt.Errorf("find run %s: %w", runID, err)
	}
	var rows []stored
	if err := cur.All(ctx, &rows); err != nil {
		return nil, fmt.Errorf("find run %s: %w", runID, err)
	}
	return pick(rows, runID)
}

func pick(rows []stored, runID string) (*result.Doc, error) {
	switch len(rows) {
	case 0:
		return nil, fmt.Errorf("run %q: %w", runID, ErrNotFound)
	case 1:
		d := rows[0].doc()
		return &d, nil
	}
	ids := make([]string, len(rows))
	for i := range rows {
		ids[i] = rows[i].RunID
	}
	return nil, Ambiguous(runID, ids)
}
