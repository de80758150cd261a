package workload

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/datagen"
	"github.com/mongobench/mongobench/internal/spec"
)

// Query measures read queries of one shape over a preloaded collection
// of documents {_id, group, seq, cat, catCopy, payload} in groups of
// groupSize (seq 0..groupSize-1 within a group, cat = seq mod 4 and
// catCopy the same value, unindexed), with the indexes {group, seq} and
// {group, cat}. Groups are not contiguous on disk: consecutive inserts
// belong to different groups (see queryLayout).
//
// The key range is "cached" or not: cached queries pick groups and keys
// from the first stripes, at most half the server's cache; uncached ones
// from the whole dataset, which is grown to at least uncachedFactor times
// the cache. The cache size is the cacheSize parameter, else serverStatus
// wiredTiger.cache."maximum bytes configured", else what the caller knows
// (Env.CacheSize, such as the size a local server was started with); setup
// fails when none is known.
//
// The dataset is loaded once and reused by every later setup of the same
// shape (records, docSize, groupSize, stripeGroups): queries do not change
// it.
type Query struct{}

var _ Workload = Query{}

// QueryCollection is the collection the query workload reads.
const QueryCollection = "query"

// queryMeta holds the shape of the loaded dataset.
const queryMeta = "query_meta"

// Query shapes, the values of the query parameter.
const (
	QueryByID     = "id"       // findOne by _id
	QueryTerm     = "term"     // find {group}, limit docsPerQuery
	QuerySkip     = "skip"     // find {group} sort seq, skip, limit docsPerQuery
	QueryRange    = "range"    // find {group, seq: {$gte: skip}} sort seq, limit docsPerQuery
	QueryCompound = "compound" // find {group, cat} on the {group, cat} index
	QueryFilter   = "filter"   // find {group, catCopy}: the group index, then a filter
	QueryIn       = "in"       // find {group: {$in: docsPerQuery groups}, seq}
	QueryFetch    = "fetch"    // find {group}, limit docsPerQuery, projecting a missing field
)

// queryCats is how many values cat takes: a group of 400 has 100
// documents of each.
const queryCats = 4

// Cache rules: a cached key range takes at most cachedShare of the cache;
// an uncached one is the whole dataset, at least uncachedFactor (default
// 2) times the cache.
const cachedShare = 0.5

// The payload the documents are cut from: queryPayloadWindows documents
// worth, at most queryPayloadMax bytes.
const (
	queryPayloadWindows = 16384
	queryPayloadMax     = 64 << 20
)

// Name is "query".
func (Query) Name() string { return "query" }

// Summary describes the workload in one line.
func (Query) Summary() string {
	return "read queries of one shape (by _id, by indexed term, skip vs range, compound vs filter, $in, fetch) over grouped documents, cached or not"
}

// Params declares the query parameters.
func (Query) Params() []spec.ParamSpec {
	return []spec.ParamSpec{
		{Name: "query", Kind: spec.KindEnum, Values: []string{QueryByID, QueryTerm, QuerySkip, QueryRange, QueryCompound, QueryFilter, QueryIn, QueryFetch},
			Help: "query shape: id, term, skip, range, compound, filter, in, fetch"},
		{Name: "cached", Kind: spec.KindBool, Default: "true", Help: "pick keys from a range that fits in the server's cache (true) or from the whole dataset (false)"},
		{Name: "docsPerQuery", Kind: spec.KindInt, Default: "100", Min: "1", Help: "documents a query returns: its limit, or the number of $in terms"},
		{Name: "skip", Kind: spec.KindInt, Default: "380", Min: "0", Help: "skip: documents skipped; range: the first seq of the page"},
		{Name: "records", Kind: spec.KindInt, Default: "100000", Min: "1", Help: "documents at least (rounded up to whole groups; grown to uncachedFactor × the cache)"},
		{Name: "docSize", Kind: spec.KindSize, Default: "1KB", Min: "128B", Max: "16MB", Help: "BSON size of each document"},
		{Name: "groupSize", Kind: spec.KindInt, Default: "400", Min: "4", Help: "documents per group (per indexed term)"},
		{Name: "stripeGroups", Kind: spec.KindInt, Default: "256", Min: "2", Help: "groups interleaved in each stretch of inserts"},
		{Name: "cacheSize", Kind: spec.KindSize, Default: "0", Help: "the server's cache; 0: from serverStatus, else as the local server was started"},
		{Name: "uncachedFactor", Kind: spec.KindFloat, Default: "2", Min: "0", Help: "grow the dataset to this multiple of the cache (0: records as given)"},
		{Name: "batchSize", Kind: spec.KindInt, Default: "1000", Min: "1", Max: "100000", Help: "documents per insertMany while loading"},
		{Name: "loaders", Kind: spec.KindInt, Default: "4", Min: "1", Max: "256", Help: "parallel load connections"},
		ClientParam,
	}
}

// Ops names the one operation type: a query.
func (Query) Ops(spec.Params) []string { return []string{"query"} }

// querySpace is what setup decided and the tasks read: the layout and
// the range of groups queries pick from. It is the state a query run's
// workers share.
type querySpace struct {
	layout    queryLayout
	keyGroups int64 // queries pick groups 0..keyGroups-1 and _ids below keyGroups × groupSize
}

// queryShape is what must match for a loaded dataset to be reused.
type queryShape struct {
	Records      int64 `bson:"records"`
	DocSize      int64 `bson:"docSize"`
	GroupSize    int64 `bson:"groupSize"`
	StripeGroups int64 `bson:"stripeGroups"`
	Version      int64 `bson:"version"` // of the documents' and indexes' design
}

// queryShapeVersion changes whenever the documents or indexes change.
const queryShapeVersion = 2

// Prepare finds the server's cache size, sizes and loads (or reuses) the
// dataset, chooses the key range the workers share, decides the sizes
// test_config records, decides the client of the queries (parameter
// client) and, for a cached range, reads it once so the measured phase
// starts warm.
func (Query) Prepare(ctx context.Context, env Env, p spec.Params) (Run, error) {
	cache, source, err := queryCacheSize(ctx, env, p)
	if err != nil {
		return Run{}, err
	}
	docSize := int64(p.Size("docSize"))
	minRecords := max(p.Int("records"), int64(math.Ceil(p.Float("uncachedFactor")*float64(cache)/float64(docSize))))
	l := newQueryLayout(minRecords, p.Int("groupSize"), p.Int("stripeGroups"))
	reused, err := loadQueryData(ctx, env, p, l)
	if err != nil {
		return Run{}, err
	}
	space := querySpace{layout: l, keyGroups: l.groups}
	if p.Bool("cached") {
		space.keyGroups = l.cachedGroups(docSize, int64(cachedShare*float64(cache)))
	}
	c := ChooseClient(env.URI, p.String("client"))
	decided := querySizes(p, space, cache, source, reused)
	settings := decided.Settings.(querySettings)
	settings.Client = c.Path
	decided.Settings, decided.Warnings = settings, append(decided.Warnings, c.warnings(Query{}.Name())...)
	run := Run{Decided: decided, Tasks: &queryRun{env: env, p: p, space: space, client: c}}
	if p.Bool("cached") {
		if err := warmQueryRange(ctx, env, space); err != nil {
			return Run{}, err
		}
	}
	return run, nil
}

// queryRun is a prepared query run: the key range its workers share.
type queryRun struct {
	env    Env
	p      spec.Params
	space  querySpace
	client Client
}

var _ Tasks = (*queryRun)(nil)

// queryCacheSize returns the server's cache size in bytes and where it
// came from.
func queryCacheSize(ctx context.Context, env Env, p spec.Params) (int64, string, error) {
	if c := int64(p.Size("cacheSize")); c > 0 {
		return c, "parameter", nil
	}
	raw, err := env.DB.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	if err != nil {
		return 0, "", fmt.Errorf("query: read serverStatus: %w", err)
	}
	if v, err := raw.LookupErr("wiredTiger", "cache", "maximum bytes configured"); err == nil {
		if n, ok := v.AsInt64OK(); ok && n > 0 {
			return n, "serverStatus", nil
		}
	}
	if env.CacheSize > 0 {
		return env.CacheSize, cmp.Or(env.CacheSizeSource, "caller"), nil
	}
	return 0, "", errors.New("query: the server's cache size is unknown (serverStatus has no wiredTiger.cache): give it with -p cacheSize=SIZE or 'catalog run --cache-size SIZE'")
}

// loadQueryData loads the dataset unless one of the same shape is there,
// and says whether it reused one. The shape marker is written only after
// a complete load, and removed before a new one starts.
func loadQueryData(ctx context.Context, env Env, p spec.Params, l queryLayout) (bool, error) {
	want := queryShape{Records: l.records, DocSize: int64(p.Size("docSize")), GroupSize: l.groupSize,
		StripeGroups: p.Int("stripeGroups"), Version: queryShapeVersion}
	var have queryShape
	err := env.DB.Collection(queryMeta).FindOne(ctx, bson.D{{Key: "_id", Value: "shape"}}).Decode(&have)
	if err == nil && have == want {
		n, err := env.DB.Collection(QueryCollection).EstimatedDocumentCount(ctx)
		if err != nil {
			return false, fmt.Errorf("query: count %s: %w", QueryCollection, err)
		}
		if n == l.records {
			env.ReportProgress("reuse dataset", n, n)
			return true, nil
		}
	} else if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return false, fmt.Errorf("query: read dataset shape: %w", err)
	}
	for _, c := range []string{queryMeta, QueryCollection} {
		if err := ResetCollection(ctx, env.DB, c); err != nil {
			return false, err
		}
	}
	// The indexes come first: SecantusDB builds an index on a populated
	// collection in one transaction, which retries forever once the
	// collection outgrows its cache.
	_, err = env.DB.Collection(QueryCollection).Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "group", Value: 1}, {Key: "seq", Value: 1}}},
		{Keys: bson.D{{Key: "group", Value: 1}, {Key: "cat", Value: 1}}},
	})
	if err != nil {
		return false, fmt.Errorf("query: create indexes: %w", err)
	}
	if err := loadQueryDocs(ctx, env, p, l); err != nil {
		return false, err
	}
	if _, err := env.DB.Collection(queryMeta).InsertOne(ctx, bson.D{{Key: "_id", Value: "shape"},
		{Key: "records", Value: want.Records}, {Key: "docSize", Value: want.DocSize}, {Key: "groupSize", Value: want.GroupSize},
		{Key: "stripeGroups", Value: want.StripeGroups}, {Key: "version", Value: want.Version}}); err != nil {
		return false, fmt.Errorf("query: record dataset shape: %w", err)
	}
	return false, nil
}

// loadQueryDocs inserts every document of the layout, in _id order.
func loadQueryDocs(ctx context.Context, env Env, p spec.Params, l queryLayout) error {
	size := int(p.Size("docSize"))
	fill := max(0, size-len(queryDoc(nil, 0, 0, 0, nil)))
	// Documents take disjoint windows of a payload large enough that no
	// two documents of a page, or of nearby pages, share bytes: stored
	// sizes and disk reads are not flattered by block compression.
	windows := int64(max(1, min(queryPayloadWindows, queryPayloadMax/max(fill, 1))))
	payload := datagen.Payload(int(windows)*fill, uint64(env.Seed)+13)
	ld := &Loader{
		Coll: env.DB.Collection(QueryCollection), Total: l.records, Batch: p.Int("batchSize"),
		Build: func(dst []byte, k int64) []byte {
			g, seq := l.doc(k)
			off := int(k%windows) * fill
			return queryDoc(dst, k, g, seq, payload[off:off+fill])
		},
	}
	return ld.Run(ctx, int(p.Int("loaders")), func(done int64) { env.ReportProgress("load", done, l.records) })
}

// queryDoc appends document k of group g: {_id, group, seq, cat, catCopy,
// payload}.
func queryDoc(dst []byte, k, g, seq int64, payload []byte) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	dst = bsoncore.AppendInt64Element(dst, "_id", k)
	dst = bsoncore.AppendInt64Element(dst, "group", g)
	dst = bsoncore.AppendInt64Element(dst, "seq", seq)
	dst = bsoncore.AppendInt64Element(dst, "cat", seq%queryCats)
	dst = bsoncore.AppendInt64Element(dst, "catCopy", seq%queryCats)
	dst = bsoncore.AppendBinaryElement(dst, "payload", 0, payload)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// querySettings are the query workload's effective settings: the cache,
// dataset and working-set sizes.
type querySettings struct {
	CacheSizeBytes    int64   `bson:"cacheSizeBytes"`
	CacheSizeSource   string  `bson:"cacheSizeSource"`
	DatasetDocs       int64   `bson:"datasetDocs"`
	DatasetBytes      int64   `bson:"datasetBytes"`
	Groups            int64   `bson:"groups"`
	KeyRangeGroups    int64   `bson:"keyRangeGroups"`
	KeyRangeDocs      int64   `bson:"keyRangeDocs"`
	WorkingSetBytes   int64   `bson:"workingSetBytes"`
	WorkingSetToCache float64 `bson:"workingSetToCache"`
	DatasetReused     bool    `bson:"datasetReused"`
	// CacheRuleMet says whether the key range is what its name says.
	CacheRuleMet bool `bson:"cacheRuleMet"`
	// Client is the path the queries took: wire or driver.
	Client string `bson:"client"`
}

// querySizes decides the cache, dataset and working-set sizes test_config
// records, and a warning when the key range is not what its name says.
func querySizes(p spec.Params, s querySpace, cache int64, source string, reused bool) Decisions {
	docSize := int64(p.Size("docSize"))
	l := s.layout
	dataset := l.records * docSize
	working := s.keyGroups * l.groupSize * docSize
	cached := p.Bool("cached")
	asStated := float64(working) >= 2*float64(cache)
	if cached {
		asStated = float64(working) <= cachedShare*float64(cache)
	}
	d := Decisions{Settings: querySettings{
		CacheSizeBytes: cache, CacheSizeSource: source,
		DatasetDocs: l.records, DatasetBytes: dataset, Groups: l.groups,
		KeyRangeGroups: s.keyGroups, KeyRangeDocs: s.keyGroups * l.groupSize,
		WorkingSetBytes: working, WorkingSetToCache: float64(working) / float64(cache),
		DatasetReused: reused, CacheRuleMet: asStated,
	}}
	switch {
	case cached && !asStated:
		d.Warnings = append(d.Warnings, fmt.Sprintf("cached key range: its smallest unit (%d groups, %d MB) is more than half the server's cache (%d MB); the working set may not fit",
			s.keyGroups, working>>20, cache>>20))
	case !cached && !asStated:
		d.Warnings = append(d.Warnings, fmt.Sprintf("uncached key range: the dataset (%d MB) is less than twice the server's cache (%d MB), so many reads hit the cache",
			dataset>>20, cache>>20))
	}
	return d
}

// warmQueryRange reads the documents and index entries of the cached key
// range once.
func warmQueryRange(ctx context.Context, env Env, s querySpace) error {
	coll := env.DB.Collection(QueryCollection)
	lastID := s.keyGroups * s.layout.groupSize
	reads := []struct {
		filter bson.D
		opts   *options.FindOptionsBuilder
	}{
		{bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: lastID}}}},
			options.Find().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "absent", Value: 1}})},
		{bson.D{{Key: "group", Value: bson.D{{Key: "$lt", Value: s.keyGroups}}}},
			options.Find().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "group", Value: 1}, {Key: "seq", Value: 1}}).SetHint(bson.D{{Key: "group", Value: 1}, {Key: "seq", Value: 1}})},
		{bson.D{{Key: "group", Value: bson.D{{Key: "$lt", Value: s.keyGroups}}}},
			options.Find().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "group", Value: 1}, {Key: "cat", Value: 1}}).SetHint(bson.D{{Key: "group", Value: 1}, {Key: "cat", Value: 1}})},
	}
	for i, r := range reads {
		env.ReportProgress("warm cached range", int64(i), int64(len(reads)))
		cur, err := coll.Find(ctx, r.filter, r.opts.SetBatchSize(10000))
		if err != nil {
			return fmt.Errorf("query: warm the cached range: %w", err)
		}
		for cur.Next(ctx) {
		}
		err = cur.Err()
		if cerr := cur.Close(ctx); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("query: warm the cached range: %w", err)
		}
	}
	env.ReportProgress("warm cached range", int64(len(reads)), int64(len(reads)))
	return nil
}
